//! The PostgreSQL backend of memory: [`MemoryRecords`] on a transaction of the store,
//! over the schema of `schema.sql` — reads (`read.rs`), changes (`write.rs`), bulk loads
//! (`load.rs`), search (`search.rs`) and related sessions (`related.rs`).

mod load;
mod read;
mod related;
mod search;
mod write;

use super::record::{Channel, EntryRecord, SessionRecord};
use super::records::{EntryRow, Found, Loader, MemoryRecords, SessionRow, Stats};
use crate::error::Result;
use crate::store::postgres::Tx;

impl MemoryRecords for Tx<'_> {
    fn days(&self) -> Result<Vec<(String, usize)>> {
        read::days(self)
    }

    fn sessions_on(&self, day: &str) -> Result<Vec<SessionRow>> {
        read::sessions_on(self, day)
    }

    fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        read::session(self, id)
    }

    fn session_by_rowid(&self, rowid: i64) -> Result<Option<SessionRow>> {
        read::session_by_rowid(self, rowid)
    }

    fn recent_sessions(&self, limit: usize) -> Result<Vec<SessionRow>> {
        read::recent_sessions(self, limit)
    }

    fn entries(&self, session: i64, after_seq: i64, limit: usize) -> Result<Vec<EntryRow>> {
        read::entries(self, session, after_seq, limit)
    }

    fn entry(&self, session: i64, seq: i64) -> Result<Option<EntryRow>> {
        read::entry(self, session, seq)
    }

    fn channel_counts(&self, session: i64) -> Result<Vec<(Channel, usize)>> {
        read::channel_counts(self, session)
    }

    fn session_tags(&self, session: i64) -> Result<Vec<(String, usize)>> {
        read::session_tags(self, session)
    }

    fn tags(&self) -> Result<Vec<(String, usize)>> {
        read::tags(self)
    }

    fn tagged(&self, tag: &str, limit: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)> {
        read::tagged(self, tag, limit)
    }

    fn stats(&self) -> Result<Stats> {
        read::stats(self)
    }

    fn search(&self, query: &str, limit: usize) -> Result<Found> {
        search::search(self, query, limit)
    }

    fn related(&self, session: i64, limit: usize) -> Result<Vec<(SessionRow, Vec<String>)>> {
        related::related(self, session, limit)
    }

    fn create_session(&self, record: &SessionRecord) -> Result<i64> {
        write::create_session(self, record)
    }

    fn append(&self, session: i64, entry: &EntryRecord) -> Result<i64> {
        write::append(self, session, entry)
    }

    fn set_summary(&self, session: i64, text: Option<&str>) -> Result<()> {
        write::set_summary(self, session, text)
    }

    fn set_tags(&self, session: i64, seq: i64, tags: &[String]) -> Result<()> {
        write::set_tags(self, session, seq, tags)
    }

    fn forget(&self, id: &str) -> Result<bool> {
        write::forget(self, id)
    }

    fn compact(&self) -> Result<()> {
        write::compact(self)
    }

    fn bulk_load(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        load::bulk_load(self, load)
    }
}
