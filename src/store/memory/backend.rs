//! A backend of memory made whole: whatever answers the dialect's primitives
//! ([`WriteSql`], [`SearchSql`], [`RelatedSql`]) and the plain reads is a
//! [`MemoryRecords`], its import, search and related sessions decided by the one algorithm
//! above the dialects (`write.rs`, `search.rs`, `related.rs`).

use super::dialect::{RelatedSql, SearchSql, WriteSql};
use super::record::{EntryRecord, SessionRecord};
use super::records::{Found, Loader, MemoryReads, MemoryRecords, SessionRow};
use crate::error::Result;

impl<D: MemoryReads + WriteSql + SearchSql + RelatedSql> MemoryRecords for D {
    fn search(&self, query: &str, limit: usize) -> Result<Found> {
        super::search::search(self, query, limit)
    }

    fn related(&self, session: i64, limit: usize) -> Result<Vec<(SessionRow, Vec<String>)>> {
        super::related::related(self, session, limit)
    }

    fn create_session(&self, record: &SessionRecord) -> Result<i64> {
        super::write::create_session(self, record)
    }

    fn append(&self, session: i64, entry: &EntryRecord) -> Result<i64> {
        super::write::append(self, session, entry)
    }

    fn set_summary(&self, session: i64, text: Option<&str>) -> Result<()> {
        super::write::set_summary(self, session, text)
    }

    fn set_tags(&self, session: i64, seq: i64, tags: &[String]) -> Result<()> {
        super::write::set_tags(self, session, seq, tags)
    }

    fn forget(&self, id: &str) -> Result<bool> {
        super::write::forget(self, id)
    }

    fn compact(&self) -> Result<()> {
        self.compact_indexes()
    }

    fn bulk_load(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        self.load_in_bulk(load)
    }
}
