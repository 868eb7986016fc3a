//! Reading memory on PostgreSQL (placeholder: refused until written).

use crate::error::{Error, Result};
use crate::store::memory::record::Channel;
use crate::store::memory::records::{EntryRow, SessionRow, Stats};
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

pub fn days(_: &Tx<'_>) -> Result<Vec<(String, usize)>> {
    refused()
}
pub fn sessions_on(_: &Tx<'_>, _: &str) -> Result<Vec<SessionRow>> {
    refused()
}
pub fn session(_: &Tx<'_>, _: &str) -> Result<Option<SessionRow>> {
    refused()
}
pub fn session_by_rowid(_: &Tx<'_>, _: i64) -> Result<Option<SessionRow>> {
    refused()
}
pub fn recent_sessions(_: &Tx<'_>, _: usize) -> Result<Vec<SessionRow>> {
    refused()
}
pub fn entries(_: &Tx<'_>, _: i64, _: i64, _: usize) -> Result<Vec<EntryRow>> {
    refused()
}
pub fn entry(_: &Tx<'_>, _: i64, _: i64) -> Result<Option<EntryRow>> {
    refused()
}
pub fn channel_counts(_: &Tx<'_>, _: i64) -> Result<Vec<(Channel, usize)>> {
    refused()
}
pub fn session_tags(_: &Tx<'_>, _: i64) -> Result<Vec<(String, usize)>> {
    refused()
}
pub fn tags(_: &Tx<'_>) -> Result<Vec<(String, usize)>> {
    refused()
}
pub fn tagged(_: &Tx<'_>, _: &str, _: usize) -> Result<(Vec<(SessionRow, EntryRow)>, usize)> {
    refused()
}
pub fn stats(_: &Tx<'_>) -> Result<Stats> {
    refused()
}
