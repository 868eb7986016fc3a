//! The PostgreSQL backend of memory: not there yet; every call is refused as before.

use super::record::{Channel, EntryRecord, SessionRecord};
use super::records::{EntryRow, Found, Loader, MemoryRecords, SessionRow, Stats};
use crate::error::{Error, Result};
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

impl MemoryRecords for Tx<'_> {
    fn days(&self) -> Result<Vec<(String, usize)>> {
        refused()
    }
    fn sessions_on(&self, _: &str) -> Result<Vec<SessionRow>> {
        refused()
    }
    fn session(&self, _: &str) -> Result<Option<SessionRow>> {
        refused()
    }
    fn session_by_rowid(&self, _: i64) -> Result<Option<SessionRow>> {
        refused()
    }
    fn recent_sessions(&self, _: usize) -> Result<Vec<SessionRow>> {
        refused()
    }
    fn entries(&self, _: i64, _: i64, _: usize) -> Result<Vec<EntryRow>> {
        refused()
    }
    fn entry(&self, _: i64, _: i64) -> Result<Option<EntryRow>> {
        refused()
    }
    fn channel_counts(&self, _: i64) -> Result<Vec<(Channel, usize)>> {
        refused()
    }
    fn session_tags(&self, _: i64) -> Result<Vec<(String, usize)>> {
        refused()
    }
    fn tags(&self) -> Result<Vec<(String, usize)>> {
        refused()
    }
    fn tagged(&self, _: &str, _: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)> {
        refused()
    }
    fn stats(&self) -> Result<Stats> {
        refused()
    }
    fn search(&self, _: &str, _: usize) -> Result<Found> {
        refused()
    }
    fn related(&self, _: i64, _: usize) -> Result<Vec<(SessionRow, Vec<String>)>> {
        refused()
    }
    fn create_session(&self, _: &SessionRecord) -> Result<i64> {
        refused()
    }
    fn append(&self, _: i64, _: &EntryRecord) -> Result<i64> {
        refused()
    }
    fn set_summary(&self, _: i64, _: Option<&str>) -> Result<()> {
        refused()
    }
    fn set_tags(&self, _: i64, _: i64, _: &[String]) -> Result<()> {
        refused()
    }
    fn forget(&self, _: &str) -> Result<bool> {
        refused()
    }
    fn compact(&self) -> Result<()> {
        refused()
    }
    fn bulk_load(&self, _: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
        refused()
    }
}
