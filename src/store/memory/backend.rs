//! A backend of memory made whole: whatever answers the dialect's primitives
//! ([`WriteSql`], [`SearchSql`], [`RelatedSql`], [`FilesSql`]) and the plain reads is a
//! [`MemoryRecords`], its import, search and related sessions decided by the one algorithm
//! above the dialects (`write.rs`, `bounded_search.rs`, `related.rs`).

use super::changed::{ChangedFile, FileOrder, FilePattern};
use super::dialect::{FilesSql, RelatedSql, SearchSql, WriteSql};
use super::records::Changers;
use super::records::{Found, Loader, MemoryReads, MemoryRecords, SessionRow};
use crate::error::Result;
use crate::model::time::Time;
use crate::model::transcript::{EntryRecord, SessionRecord};

impl<D: MemoryReads + WriteSql + SearchSql + RelatedSql + FilesSql> MemoryRecords for D {
    fn search(&self, query: &str, limit: usize) -> Result<Found> {
        super::bounded_search::search(self, query, limit)
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

    fn files_of(&self, session: i64) -> Result<Vec<(String, Option<Time>)>> {
        FilesSql::files_of(self, session)
    }

    fn sessions_changing(&self, file: &str, limit: usize) -> Result<Changers> {
        FilesSql::sessions_changing(self, &FilePattern::parse(file)?, limit)
    }

    fn changed_files(&self, order: FileOrder, limit: usize) -> Result<Vec<ChangedFile>> {
        FilesSql::changed_files(self, order, limit)
    }

    fn fill_changed_files(&self) -> Result<Option<usize>> {
        super::session_files::backfill(self)
    }

    fn bulk_load(&self, load: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        self.load_in_bulk(load)
    }
}
