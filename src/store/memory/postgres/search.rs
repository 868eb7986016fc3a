//! Memory search on PostgreSQL (placeholder: refused until written).

use crate::error::{Error, Result};
use crate::store::memory::records::Found;
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

pub fn search(_: &Tx<'_>, _: &str, _: usize) -> Result<Found> {
    refused()
}
