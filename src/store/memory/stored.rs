//! A stored session's and a stored entry's row read back, once for both backends: each
//! backend selects its columns in the same order (`SESSION_COLUMNS`, `ENTRY_COLUMNS` in
//! `sqlite/read.rs` and `postgres/read.rs`), and what a column holds is checked here. A
//! time is stored as the text [`Time`] shows, and read back from it.

use super::count;
use super::records::{EntryRow, SessionRow};
use crate::error::{Error, Result};
use crate::model::SessionId;
use crate::model::time::Time;
use crate::model::transcript::{Channel, EntryRecord, SessionRecord};
use crate::store::row::Row;

/// How many columns a session's row has.
pub(super) const SESSION_WIDTH: usize = 12;

/// A [`SessionRow`] from its twelve columns starting at column `at`: rowid, id, source,
/// started, ended, title, cwd, model, continuation_of, day, entry count, summary.
pub(super) fn session_at(row: &impl Row, at: usize) -> Result<SessionRow> {
    let id: String = row.value(at + 1)?;
    let time = |i: usize| {
        time_of(row, at + i, |e| {
            format!("memory session {id}: its stored {e}")
        })
    };
    Ok(SessionRow {
        rowid: row.value(at)?,
        record: SessionRecord {
            source: row.value(at + 2)?,
            started: time(3)?,
            ended: time(4)?,
            title: row.value(at + 5)?,
            cwd: row.value(at + 6)?,
            model: row.value(at + 7)?,
            continuation_of: row.value(at + 8)?,
            // How its tool resumes sessions matters only while importing; not stored.
            lesser_titles: Vec::new(),
            resumes_by_copy: false,
            id: SessionId::stored(id),
        },
        day: row.value(at + 9)?,
        entries: count(row.value(at + 10)?),
        summary: row.value(at + 11)?,
    })
}

/// An [`EntryRow`] from its seven columns starting at column `at`: seq, key, ts, channel,
/// content, tags, meta.
pub(super) fn entry_at(row: &impl Row, at: usize) -> Result<EntryRow> {
    let seq: i64 = row.value(at)?;
    let key: String = row.value(at + 1)?;
    let channel: String = row.value(at + 3)?;
    let tags: String = row.value(at + 5)?;
    let meta: String = row.value(at + 6)?;
    Ok(EntryRow {
        seq,
        record: EntryRecord {
            ts: time_of(row, at + 2, |e| {
                format!("memory entry {seq} (key {key:?}): its stored {e}")
            })?,
            key,
            channel: channel_of(&channel)?,
            content: row.value(at + 4)?,
            tags: serde_json::from_str(&tags).map_err(|_| corrupt("tags", &tags))?,
            meta: serde_json::from_str(&meta).map_err(|_| corrupt("meta", &meta))?,
        },
    })
}

/// The channel a stored entry names.
pub(super) fn channel_of(name: &str) -> Result<Channel> {
    Channel::parse(name).ok_or_else(|| corrupt("channel", name))
}

/// The text `time` is stored as (RFC 3339, as [`Time`] shows it): text, so that both
/// backends compare and order stored times alike, by bytes.
pub(super) fn time_text(time: Option<Time>) -> Option<String> {
    time.map(|t| t.to_string())
}

/// Column `i` of `row`, a time as the store writes it (its text, as `Time` shows it), when
/// there is one; a text that is no time is refused with `whose` message.
pub(super) fn time_of(
    row: &impl Row,
    i: usize,
    whose: impl Fn(&str) -> String,
) -> Result<Option<Time>> {
    let text: Option<String> = row.value(i)?;
    text.map(|text| Time::parse(&text).map_err(|e| Error::internal(whose(&e.0))))
        .transpose()
}

/// A stored value the schema should have made impossible; reported, never papered over.
fn corrupt(name: &str, value: &str) -> Error {
    Error::internal(format!("memory entry {name} {value:?} is not valid"))
}

#[cfg(test)]
mod tests {
    use crate::model::transcript::{Channel, Transcript};
    use crate::store::memory::testing::{at, entry, execute, session, time};
    use crate::store::testing::for_each_backend;

    #[test]
    fn a_stored_time_that_is_no_time_is_refused_naming_its_session() {
        for_each_backend(|store| {
            let transcript = Transcript {
                sessions: vec![(
                    session("s1", Some("2026-11-20T09:00:00.079Z"), "Fix the login"),
                    vec![at(
                        entry("a", Channel::User, "the login form fails"),
                        "2026-11-20T09:00:00.079Z",
                    )],
                )],
            };
            store.change_memory(|m| m.import(&transcript)).unwrap();
            let row = store.memory(|m| m.session("s1")).unwrap().unwrap();
            assert_eq!(row.record.started, time("2026-11-20T09:00:00.079Z"));
            let first = store.memory(|m| m.entry(row.rowid, 1)).unwrap().unwrap();
            assert_eq!(first.record.ts, time("2026-11-20T09:00:00.079Z"));

            execute(&store, "UPDATE sessions SET started = 'yesterday'").unwrap();
            // Entries cannot change once stored (a trigger refuses): a damaged one is added.
            let id = crate::store::memory::entry_id(row.rowid, 2);
            execute(
                &store,
                &format!(
                    "INSERT INTO entries (id, session, seq, key, ts, channel, tags, meta, content)
                     VALUES ({id}, {}, 2, 'b', 'noon', 'user', '[]', '{{}}', 'x')",
                    row.rowid
                ),
            )
            .unwrap();
            let refused = store.memory(|m| m.session("s1")).unwrap_err();
            assert!(
                refused.message.contains("session s1") && refused.message.contains("yesterday"),
                "{}",
                refused.message
            );
            let refused = store.memory(|m| m.entry(row.rowid, 2)).unwrap_err();
            assert!(refused.message.contains("\"noon\""), "{}", refused.message);
        });
    }
}
