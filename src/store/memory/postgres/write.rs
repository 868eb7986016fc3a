//! Changing memory on PostgreSQL (placeholder: refused until written).

use crate::error::{Error, Result};
use crate::store::memory::record::{EntryRecord, SessionRecord};
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

pub fn create_session(_: &Tx<'_>, _: &SessionRecord) -> Result<i64> {
    refused()
}
pub fn append(_: &Tx<'_>, _: i64, _: &EntryRecord) -> Result<i64> {
    refused()
}
pub fn set_summary(_: &Tx<'_>, _: i64, _: Option<&str>) -> Result<()> {
    refused()
}
pub fn set_tags(_: &Tx<'_>, _: i64, _: i64, _: &[String]) -> Result<()> {
    refused()
}
pub fn forget(_: &Tx<'_>, _: &str) -> Result<bool> {
    refused()
}
pub fn compact(_: &Tx<'_>) -> Result<()> {
    refused()
}
