//! Where a session and its entries are under `memory/`: the names every view of a session
//! links by (the session's own views, its conversation pages, search hits).

use crate::model::Links;
use crate::store::memory::SessionRow;

/// The file name of entry `seq` of `row`.
pub fn entry_name(row: &SessionRow, seq: i64) -> String {
    format!("{seq:0width$}.json", width = row.width())
}

/// The path of session `row`'s directory.
pub fn session_dir(row: &SessionRow, links: &Links) -> String {
    links.dir(&["memory", "sessions", &row.day, row.record.id.as_str()])
}
