//! Bulk loads of memory on PostgreSQL (placeholder: refused until written).

use crate::error::{Error, Result};
use crate::store::memory::records::Loader;
use crate::store::pg::Tx;

fn refused<T>() -> Result<T> {
    Err(Error::internal("memory is not on PostgreSQL yet"))
}

pub fn bulk_load(_: &Tx<'_>, _: &mut dyn FnMut(&mut dyn Loader) -> Result<()>) -> Result<()> {
    refused()
}
