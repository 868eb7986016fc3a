//! OpenCode sessions, which are no single file: a session is read with its messages and
//! their parts, from wherever OpenCode kept them.
//!
//! - OpenCode 1.2 and later: the SQLite database `~/.local/share/opencode/opencode.db`
//!   (`$XDG_DATA_HOME/opencode/opencode.db`), tables `session` (`id`, `directory`, `title`,
//!   `parent_id`, `time_created`, `time_updated`), `message` (`id`, `session_id`,
//!   `time_created`, JSON `data`) and `part` (`id`, `message_id`, JSON `data`). It is
//!   opened read-only and read whole: every session in it.
//! - OpenCode 0.x to 1.1: the folder `~/.local/share/opencode/storage/`, with
//!   `session/<project id>/<session id>.json`, `message/<session id>/<message id>.json` and
//!   `part/<message id>/<part id>.json`. A session file there is read with its messages and
//!   parts; walking the folder takes each session once and passes over the rest.
//!
//! A message is `role` (`user`, `assistant`), `time.created` (Unix ms), `modelID` and, for an
//! assistant turn that failed, `error` (`name`, `data.message`) → a system entry. Its parts,
//! in id order (OpenCode's ids sort by time), by `type`: `text` → user or assistant (system
//! when `synthetic`: context OpenCode added, such as a file's content), `reasoning` →
//! thinking, `tool` (`tool`, `callID`, `state`: `status`, `input`, `output`/`error`, `title`,
//! `time`) → a tool_call `<tool> <input JSON>` once it is running or done, and a tool_result
//! once it completed or failed (`is_error` when it failed); the rest (`step-start`,
//! `step-finish`, `snapshot`, `patch`, `file`, `agent`, `compaction`, …) are skipped and
//! counted. Keys are OpenCode's part and message ids (`<part>.call`, `<part>.result`,
//! `<message>.error`): reading the store again, grown, adds only what is new.
//!
//! The session's `directory` is its `cwd`; its title is OpenCode's, unless it is still the
//! placeholder `New session - <time>` (then the first user text titles it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::model::Meta;
use crate::model::transcript::Channel;

use super::reading::{self, Format, MAX_LISTED, ReadError, Reading};
use super::sessions::Sessions;
use super::time::{Stamp, stamp};
use super::trusted::Owner;
use super::trusted::folder::Folder;
use files::{json_files, open_folder, piece, trusted_database};

pub const SOURCE: &str = "opencode";

/// The name of OpenCode's database (1.2 and later).
pub const DATABASE: &str = "opencode.db";

/// The folders of a storage folder that make a session (pre-1.2).
const STORAGE: [&str; 3] = ["session", "message", "part"];

/// A piece of OpenCode's JSON storage larger than this is no message nor part.
const MAX_PIECE: u64 = 64 << 20;

/// The database's write-ahead log, where OpenCode's latest writes are until checkpointed:
/// a change to it is a change to the database.
const DATABASE_LOG: &str = "opencode.db-wal";

/// Whether this reader takes the file at `path`: OpenCode's database (or its log), or a
/// file of its JSON storage that belongs to a session (the session's own, one of its
/// messages, one of their parts).
pub fn reads(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str());
    matches!(name, Some(DATABASE | DATABASE_LOG)) || session_of(path).is_some()
}

/// Whether the folder `dir` is a part of a JSON storage folder other than its sessions
/// (messages, parts, diffs, …): walking a folder passes over it, its session files gather
/// what it holds.
pub fn is_piece_folder(dir: &Path) -> bool {
    dir.file_name().is_some_and(|name| name != "session") && dir.parent().is_some_and(is_storage)
}

fn is_storage(dir: &Path) -> bool {
    STORAGE.iter().all(|folder| dir.join(folder).is_dir())
}

/// The storage folder and the session file of a file in `<storage>/session/<project>/`,
/// `<storage>/message/<session id>/` or `<storage>/part/<message id>/` (a part names its
/// session in `sessionID`).
fn session_of(path: &Path) -> Option<(&Path, PathBuf)> {
    if path.extension().and_then(|e| e.to_str()) != Some("json") {
        return None;
    }
    let folder = path.parent()?;
    let kind = folder.parent()?;
    let storage = kind.parent()?;
    let kind = kind.file_name()?.to_str()?;
    if !STORAGE.contains(&kind) || !is_storage(storage) {
        return None;
    }
    let session = match kind {
        "session" => return Some((storage, path.to_path_buf())),
        "message" => folder.file_name()?.to_str()?.to_string(),
        // Only to know which session to read; read as a piece is, never through a link.
        _ => piece(
            &Folder::root(folder).ok()??,
            Path::new(path.file_name()?),
            None,
        )
        .ok()?
        .ok()?
        .get("sessionID")?
        .as_str()?
        .to_string(),
    };
    // An id names a file in a folder of the storage, never a path elsewhere.
    if session.is_empty()
        || !session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let file = std::fs::read_dir(storage.join("session"))
        .ok()?
        .filter_map(Result::ok)
        .map(|project| project.path().join(format!("{session}.json")))
        .find(|file| std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file()))?;
    Some((storage, file))
}

/// Reads the database or the session at `path` (see [`reads`]), as `homespace import`
/// does: whoever owns its files, but never through a link.
pub fn read_path(path: &Path) -> Result<Reading, ReadError> {
    read_below(None, path, None).and_then(all_read)
}

/// The reading of [`read_below`] if no piece was set aside, else the refusal listing them
/// (`homespace import` reads a store whole or says why not).
pub fn all_read((reading, set_aside): (Reading, Option<ReadError>)) -> Result<Reading, ReadError> {
    match set_aside {
        Some(error) => Err(error),
        None => Ok(reading),
    }
}

/// Reads the database or the session at `path` (see [`reads`]). With `root`, a folder
/// `path` lies below, every folder between them is opened one by one, never through a
/// link ([`Folder::below`]); with `owner`, every file read (each message and part, the
/// database and its log) must be the owner's own ([`Owner::check`]), and the database's
/// folder one no one else may write: a piece that is not is said, and the session (or the
/// database) is not read. Returns what was read, and the pieces of a session set aside
/// (each with why): the session is read without them.
pub fn read_below(
    root: Option<&Path>,
    path: &Path,
    owner: Option<&Owner>,
) -> Result<(Reading, Option<ReadError>), ReadError> {
    let (sessions, named) = match session_of(path) {
        Some((storage, file)) => {
            let folder = open_folder(root, storage, None)?;
            (vec![from_storage(&folder, storage, &file, owner)?], file)
        }
        None => {
            let database = match path.to_str().and_then(|p| p.strip_suffix("-wal")) {
                Some(database) if path.file_name().is_some_and(|n| n == DATABASE_LOG) => {
                    PathBuf::from(database)
                }
                _ => path.to_path_buf(),
            };
            (from_database(root, &database, owner)?, database)
        }
    };
    let mut reader = Reader::new();
    for session in &sessions {
        reader.session(session);
    }
    none_of(reader.problems)?;
    let ignored = reader.sessions.ignored;
    let set_aside = sessions.into_iter().flat_map(|s| s.set_aside).map(|piece| {
        format!("{piece} (set aside unread: only the owner's own regular files are read)")
    });
    let set_aside = none_of(set_aside.collect()).err();
    let reading = Reading {
        format: Some(Format::OpenCode),
        transcript: reader.sessions.finish(&named.to_string_lossy()),
        ignored,
    };
    Ok((reading, set_aside))
}

/// A session as read from either store, before it is made entries.
struct Raw {
    info: Map<String, Value>,
    messages: Vec<RawMessage>,
    /// Pieces not read, and why: not the owner's own regular files (a link, another
    /// user's). The rest of the session is read without them.
    set_aside: Vec<String>,
}

struct RawMessage {
    /// Where it came from, for messages about it.
    place: String,
    info: Map<String, Value>,
    /// (place, part) in id order.
    parts: Vec<(String, Map<String, Value>)>,
}

fn from_storage(
    storage: &Folder,
    storage_path: &Path,
    session_file: &Path,
    owner: Option<&Owner>,
) -> Result<Raw, ReadError> {
    let session_rel = session_file
        .strip_prefix(storage_path)
        .unwrap_or(session_file);
    let info = piece(storage, session_rel, owner)
        .and_then(|read| read)
        .map_err(|why| ReadError::whole_file(format!("{}: {why}", session_rel.display())))?;
    let id = info
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| ReadError::whole_file("the session has no `id`"))?
        .to_string();
    let mut problems = Vec::new();
    let mut set_aside = Vec::new();
    let mut messages = Vec::new();
    for message_file in json_files(storage, &Path::new("message").join(&id), &mut problems) {
        let place = message_file.display().to_string();
        let info = match piece(storage, &message_file, owner) {
            Ok(Ok(info)) => info,
            Ok(Err(why)) => {
                problems.push(format!("{place}: {why}"));
                continue;
            }
            Err(why) => {
                set_aside.push(format!("{place}: {why}"));
                continue;
            }
        };
        let message_id = info.get("id").and_then(Value::as_str).unwrap_or_default();
        let mut parts = Vec::new();
        let part_folder = Path::new("part").join(message_id);
        for part_file in json_files(storage, &part_folder, &mut problems) {
            let part_place = part_file.display().to_string();
            match piece(storage, &part_file, owner) {
                Ok(Ok(part)) => parts.push((part_place, part)),
                Ok(Err(why)) => problems.push(format!("{part_place}: {why}")),
                Err(why) => set_aside.push(format!("{part_place}: {why}")),
            }
        }
        messages.push(RawMessage { place, info, parts });
    }
    none_of(problems)?;
    Ok(Raw {
        info,
        messages,
        set_aside,
    })
}

fn from_database(
    root: Option<&Path>,
    path: &Path,
    owner: Option<&Owner>,
) -> Result<Vec<Raw>, ReadError> {
    use rusqlite::{Connection, OpenFlags};
    let refuse = |e: rusqlite::Error| ReadError::whole_file(format!("the OpenCode database: {e}"));
    trusted_database(root, path, owner)?;
    let db = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(refuse)?;
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
        .map_err(refuse)?;
    if let Some(missing) = STORAGE
        .iter()
        .find(|t| !tables.iter().any(|name| name == *t))
    {
        return Err(ReadError::whole_file(format!(
            "not an OpenCode database: it has no `{missing}` table"
        )));
    }
    let mut sessions: Vec<Raw> = db
        .prepare(
            "SELECT id, directory, title, parent_id, time_created, time_updated \
             FROM session ORDER BY time_created, id",
        )
        .and_then(|mut s| {
            s.query_map([], |row| {
                let info = json!({
                    "id": row.get::<_, String>(0)?,
                    "directory": row.get::<_, Option<String>>(1)?,
                    "title": row.get::<_, Option<String>>(2)?,
                    "parentID": row.get::<_, Option<String>>(3)?,
                    "time": {"created": row.get::<_, Option<i64>>(4)?, "updated": row.get::<_, Option<i64>>(5)?},
                });
                Ok(Raw {
                    info: info.as_object().cloned().unwrap_or_default(),
                    messages: Vec::new(),
                    set_aside: Vec::new(),
                })
            })?
            .collect()
        })
        .map_err(refuse)?;
    let by_session: HashMap<String, usize> = sessions
        .iter()
        .enumerate()
        .filter_map(|(n, s)| Some((s.info.get("id")?.as_str()?.to_string(), n)))
        .collect();
    let mut where_message: HashMap<String, (usize, usize)> = HashMap::new();
    let mut problems = Vec::new();
    let messages = "SELECT id, session_id, data FROM message ORDER BY session_id, time_created, id";
    for (id, session, data) in triples(&db, messages).map_err(refuse)? {
        let place = format!("message {id}");
        let Some(&n) = by_session.get(&session) else {
            continue;
        };
        match data_of(&data, &id) {
            Ok(info) => {
                where_message.insert(id, (n, sessions[n].messages.len()));
                sessions[n].messages.push(RawMessage {
                    place,
                    info,
                    parts: Vec::new(),
                });
            }
            Err(why) => problems.push(format!("{place}: {why}")),
        }
    }
    let parts = "SELECT id, message_id, data FROM part ORDER BY message_id, id";
    for (id, message, data) in triples(&db, parts).map_err(refuse)? {
        let place = format!("part {id}");
        let Some(&(s, m)) = where_message.get(&message) else {
            continue;
        };
        match data_of(&data, &id) {
            Ok(part) => sessions[s].messages[m].parts.push((place, part)),
            Err(why) => problems.push(format!("{place}: {why}")),
        }
    }
    none_of(problems)?;
    Ok(sessions)
}

/// Nothing, or the error listing `problems` (each about the whole store, so "line" 0):
/// the first [`MAX_LISTED`], and how many more.
fn none_of(problems: Vec<String>) -> Result<(), ReadError> {
    if problems.is_empty() {
        return Ok(());
    }
    let more = problems.len().saturating_sub(MAX_LISTED);
    let bad_lines = problems
        .into_iter()
        .take(MAX_LISTED)
        .map(|p| (0, p))
        .collect();
    Err(ReadError { bad_lines, more })
}

/// The rows of `query`, three text columns each (an id, whose it is, the JSON `data`).
fn triples(
    db: &rusqlite::Connection,
    query: &str,
) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut statement = db.prepare(query)?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    rows.collect()
}

/// A row's JSON `data`, with its `id` column put back in.
fn data_of(data: &str, id: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str(data) {
        Ok(Value::Object(mut o)) => {
            o.insert("id".into(), Value::from(id));
            Ok(o)
        }
        Ok(_) => Err("`data` is not a JSON object".to_string()),
        Err(e) => Err(format!("`data` is invalid JSON: {e}")),
    }
}

/// Makes entries of the sessions read, noting what is wrong with them.
struct Reader {
    sessions: Sessions,
    problems: Vec<String>,
}

impl Reader {
    fn new() -> Reader {
        Reader {
            sessions: Sessions::new(SOURCE),
            problems: Vec::new(),
        }
    }

    fn session(&mut self, raw: &Raw) {
        let Some(id) = str_of(&raw.info, "id") else {
            self.problems.push("a session has no `id`".to_string());
            return;
        };
        let draft = self.sessions.session(id);
        let placeholder =
            |t: &&str| t.starts_with("New session - ") || t.starts_with("Child session - ");
        if let Some(title) = str_of(&raw.info, "title").filter(|t| !placeholder(t)) {
            draft.set_title(title);
        }
        draft.saw_context(str_of(&raw.info, "directory"), None);
        let times = raw.info.get("time");
        for field in ["created", "updated"] {
            if let Some(at) = times.and_then(|t| t.get(field)).and_then(|t| stamp(t).ok()) {
                draft.saw_time(&at);
            }
        }
        for message in &raw.messages {
            if let Err(why) = self.message(id, message) {
                self.problems.push(format!("{}: {why}", message.place));
            }
        }
    }

    fn message(&mut self, session: &str, message: &RawMessage) -> Result<(), String> {
        let info = &message.info;
        let id = str_of(info, "id").ok_or("no `id`")?;
        let role = str_of(info, "role").ok_or("no `role` (user or assistant)")?;
        let created = time_at(info.get("time"), "created")?;
        let model = str_of(info, "modelID").or_else(|| info.get("model")?.get("modelID")?.as_str());
        self.sessions.session(session).saw_context(None, model);
        for (place, part) in &message.parts {
            if let Err(why) = self.part(session, role, created, part) {
                self.problems.push(format!("{place}: {why}"));
            }
        }
        if let Some(error) = info.get("error").filter(|e| !e.is_null()) {
            let name = error.get("name").and_then(Value::as_str).unwrap_or("error");
            let text = error
                .get("data")
                .and_then(|d| d.get("message"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let content = format!("{name}: {text}");
            let entry = reading::entry(
                format!("{id}.error"),
                created,
                Channel::System,
                content.trim_end_matches([' ', ':']).to_string(),
                {
                    let mut meta = Meta::default();
                    meta.set_is_error(true);
                    meta.insert("error", name);
                    meta
                },
            );
            self.sessions.push(session, entry);
        }
        Ok(())
    }

    fn part(
        &mut self,
        session: &str,
        role: &str,
        created: Option<Stamp>,
        part: &Map<String, Value>,
    ) -> Result<(), String> {
        let id = str_of(part, "id").ok_or("no `id`")?;
        let kind = str_of(part, "type").ok_or("no `type`")?;
        let entry = |key, ts: Option<Stamp>, channel, content, meta| {
            reading::entry(key, ts.or(created), channel, content, meta)
        };
        match kind {
            "text" | "reasoning" => {
                let text = str_of(part, "text").ok_or("no `text`")?;
                if text.trim().is_empty() {
                    self.sessions.ignored += 1;
                    return Ok(());
                }
                let synthetic = part.get("synthetic").and_then(Value::as_bool) == Some(true);
                let channel = match (kind, role) {
                    ("reasoning", _) => Channel::Thinking,
                    _ if synthetic => Channel::System,
                    (_, "user") => Channel::User,
                    _ => Channel::Assistant,
                };
                if channel == Channel::User {
                    self.sessions.session(session).saw_user_text(text);
                }
                let mut meta = Meta::default();
                if synthetic {
                    meta.insert("synthetic", true);
                }
                let at = time_at(part.get("time"), "start")?;
                self.sessions.push(
                    session,
                    entry(id.to_string(), at, channel, text.to_string(), meta),
                );
            }
            "tool" => {
                let tool = str_of(part, "tool").ok_or("a tool part has no `tool`")?;
                let call_id = str_of(part, "callID").ok_or("a tool part has no `callID`")?;
                let state = part
                    .get("state")
                    .and_then(Value::as_object)
                    .ok_or("a tool part has no `state`")?;
                let status =
                    str_of(state, "status").ok_or("a tool part's state has no `status`")?;
                if status == "pending" {
                    // Its input is still being written: the call is read once it runs.
                    self.sessions.ignored += 1;
                    return Ok(());
                }
                let input = state.get("input").cloned().unwrap_or_else(|| json!({}));
                let (start, end) = (
                    time_at(state.get("time"), "start")?,
                    time_at(state.get("time"), "end")?,
                );
                let meta = Meta::call(tool, call_id);
                let call = format!("{tool} {input}");
                self.sessions.push(
                    session,
                    entry(format!("{id}.call"), start, Channel::ToolCall, call, meta),
                );
                let failed = status == "error";
                if !failed && status != "completed" {
                    return Ok(());
                }
                let output = [if failed { "error" } else { "output" }, "title"]
                    .iter()
                    .find_map(|field| str_of(state, field).filter(|t| !t.trim().is_empty()))
                    .unwrap_or(status);
                let mut meta = Meta::call(tool, call_id);
                meta.set_is_error(failed);
                let result = entry(
                    format!("{id}.result"),
                    end.or(start),
                    Channel::ToolResult,
                    output.to_string(),
                    meta,
                );
                self.sessions.push(session, result);
            }
            _ => self.sessions.ignored += 1,
        }
        Ok(())
    }
}

fn str_of<'a>(o: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    o.get(name).and_then(Value::as_str)
}

/// The time `field` of a `time` object (Unix milliseconds), when it has one.
fn time_at(times: Option<&Value>, field: &str) -> Result<Option<Stamp>, String> {
    match times.and_then(|t| t.get(field)) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => stamp(value)
            .map(Some)
            .map_err(|e| format!("`time.{field}`: {e}")),
    }
}

#[path = "opencode_files.rs"]
mod files;

#[cfg(test)]
#[path = "opencode_tests.rs"]
mod tests;
