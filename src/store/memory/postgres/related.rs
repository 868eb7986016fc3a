//! Related sessions on PostgreSQL (placeholder: refused until written).

use crate::error::{Error, Result};
use crate::store::memory::records::SessionRow;
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

pub fn related(_: &Tx<'_>, _: i64, _: usize) -> Result<Vec<(SessionRow, Vec<String>)>> {
    refused()
}
