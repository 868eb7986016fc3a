//! The files a session changed, read off its tool calls: what links memory to the code.
//!
//! An entry touches a file when it is a tool call of a tool that edits or writes files —
//! Claude Code's `Edit`, `MultiEdit`, `Write`, `NotebookEdit`; Gemini CLI's `replace`,
//! `write_file`; OpenCode's `edit`, `write`, `patch`; chat exports' `edit_file`,
//! `create_file`, `str_replace_based_edit_tool` and the like — and names the file in its
//! arguments (`file_path`, `filePath`, `path`, `notebook_path`, `file`, `filename`, `target_file`),
//! or when it is an `apply_patch` (Codex) whose patch has `*** Update File:`,
//! `*** Add File:`, `*** Delete File:` or `*** Move to:` lines. Reads (`Read`, `cat`) and
//! shell commands never count: a session touched what it changed.
//!
//! Paths come out as the tool wrote them, made relative to the session's working directory
//! when they lie under it (`/home/a/proj/src/x.py` in `/home/a/proj` → `src/x.py`), with
//! `./` and repeated slashes dropped; a path outside it stays absolute.

use serde_json::Value;

use crate::model::transcript::{Channel, EntryRecord};

/// Tools that change the file their arguments name, as [`fold`] gives their names.
const EDITING_TOOLS: [&str; 15] = [
    "edit",
    "multiedit",
    "write",
    "notebookedit",
    "writefile",
    "replace",
    "editfile",
    "createfile",
    "strreplacebasededittool",
    "strreplaceeditor",
    "patch",
    "insert",
    "create",
    "delete",
    "deletefile",
];

/// Argument fields that name the file a tool changes, in the order they are tried.
const PATH_FIELDS: [&str; 7] = [
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "file",
    "filename",
    "target_file",
];

/// Lines of an `apply_patch` patch that name a file it changes.
const PATCH_MARKERS: [&str; 4] = [
    "*** Update File:",
    "*** Add File:",
    "*** Delete File:",
    "*** Move to:",
];

/// The files `entry` changed, as written in the call (see the module's rules), in order,
/// each once. Empty for every entry that is not an editing tool call.
pub fn files_changed(entry: &EntryRecord) -> Vec<String> {
    if entry.channel != Channel::ToolCall {
        return Vec::new();
    }
    let (tool, arguments) = tool_and_arguments(entry);
    let mut found = Vec::new();
    let folded = fold(tool);
    if folded == "applypatch" || arguments.contains("*** Begin Patch") {
        found.extend(patched_files(arguments));
    } else if EDITING_TOOLS.contains(&folded.as_str()) {
        found.extend(argument_path(arguments));
    }
    let mut unique: Vec<String> = Vec::new();
    for path in found {
        let path = tidy(&path);
        if !path.is_empty() && !unique.contains(&path) {
            unique.push(path);
        }
    }
    unique
}

/// The tool a call names (its meta's `tool`, else the content's first word) and its
/// arguments: what follows the tool's name, or the whole content when it does not open
/// with the name (a chat export's line may hold the arguments alone).
pub fn tool_and_arguments(entry: &EntryRecord) -> (&str, &str) {
    let content = entry.content.as_str();
    let (first_word, rest) = content
        .split_once(char::is_whitespace)
        .unwrap_or((content, ""));
    let tool = entry.meta.tool().unwrap_or(first_word);
    if first_word == tool {
        (tool, rest)
    } else {
        (tool, content)
    }
}

/// A tool's name compared without case and without `_`, `-` or `.` (so `write_file`,
/// `WriteFile` and `write-file` are one).
pub fn fold(tool: &str) -> String {
    tool.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// `path` relative to `cwd` when it lies under it; else as it is.
pub fn relative_to(path: &str, cwd: Option<&str>) -> String {
    let Some(cwd) = cwd
        .map(|c| c.trim_end_matches('/'))
        .filter(|c| !c.is_empty())
    else {
        return path.to_string();
    };
    match path
        .strip_prefix(cwd)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => path.to_string(),
    }
}

/// The path an editing tool's JSON arguments name.
fn argument_path(arguments: &str) -> Option<String> {
    let value: Value = serde_json::from_str(arguments.trim()).ok()?;
    let object = value.as_object()?;
    PATH_FIELDS
        .iter()
        .find_map(|field| object.get(*field).and_then(Value::as_str))
        .map(str::to_string)
}

/// The files an `apply_patch` patch names. The patch may be the arguments themselves or a
/// JSON string field of them (`{"input": "*** Begin Patch…"}`, `{"command": ["apply_patch",
/// "…"]}`), so every string in the arguments is searched.
fn patched_files(arguments: &str) -> Vec<String> {
    let mut texts = Vec::new();
    match serde_json::from_str::<Value>(arguments.trim()) {
        Ok(value) => strings_in(&value, &mut texts),
        Err(_) => texts.push(arguments.to_string()),
    }
    texts
        .iter()
        .flat_map(|text| text.lines())
        .filter_map(|line| {
            let line = line.trim();
            PATCH_MARKERS
                .iter()
                .find_map(|marker| line.strip_prefix(marker))
                .map(|path| path.trim().to_string())
        })
        .collect()
}

fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_in(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| strings_in(item, out)),
        _ => {}
    }
}

/// Drops `./` prefixes and repeated or trailing slashes.
fn tidy(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Meta;
    use serde_json::json;

    fn call(content: &str, tool: Option<&str>) -> EntryRecord {
        EntryRecord {
            key: "k".into(),
            ts: None,
            channel: Channel::ToolCall,
            content: content.into(),
            tags: Vec::new(),
            meta: tool.map_or_else(Meta::default, |t| {
                let mut meta = Meta::default();
                meta.set_tool(t);
                meta
            }),
        }
    }

    #[test]
    fn editing_calls_name_their_files_and_reads_and_shells_do_not() {
        let edit = call(
            r#"Edit {"file_path":"/p/ledger/money.py","old_string":"a","new_string":"b"}"#,
            Some("Edit"),
        );
        assert_eq!(files_changed(&edit), ["/p/ledger/money.py"]);
        let write = call(r#"write_file {"file_path":"./docs//a.md"}"#, None);
        assert_eq!(files_changed(&write), ["docs/a.md"]);
        let opencode = call(r#"edit {"filePath":"src/x.py"}"#, Some("edit"));
        assert_eq!(files_changed(&opencode), ["src/x.py"]);
        let read = call(r#"Read {"file_path":"/p/ledger/money.py"}"#, Some("Read"));
        assert!(files_changed(&read).is_empty());
        let shell = call(r#"Bash {"command":"sed -i s/a/b/ x.py"}"#, Some("Bash"));
        assert!(files_changed(&shell).is_empty());
        let mut result = call(r#"Edit {"file_path":"x.py"}"#, Some("Edit"));
        result.channel = Channel::ToolResult;
        assert!(files_changed(&result).is_empty());
    }

    #[test]
    fn patches_name_every_file_they_change_once() {
        let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b/c.py\n+z\n\
                     *** Update File: a.py\n*** Move to: d.py\n*** End Patch";
        let custom = call(&format!("apply_patch {patch}"), Some("apply_patch"));
        assert_eq!(files_changed(&custom), ["a.py", "b/c.py", "d.py"]);
        let shell = call(
            &format!("shell {}", json!({"command": ["apply_patch", patch]})),
            Some("shell"),
        );
        assert_eq!(files_changed(&shell), ["a.py", "b/c.py", "d.py"]);
    }

    #[test]
    fn paths_under_the_working_directory_become_relative() {
        assert_eq!(relative_to("/p/ledger/a.py", Some("/p")), "ledger/a.py");
        assert_eq!(relative_to("/p/ledger/a.py", Some("/p/")), "ledger/a.py");
        assert_eq!(relative_to("/pq/a.py", Some("/p")), "/pq/a.py");
        assert_eq!(relative_to("/p", Some("/p")), "/p");
        assert_eq!(relative_to("a.py", None), "a.py");
    }
}
