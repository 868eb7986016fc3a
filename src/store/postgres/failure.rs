//! How the database failing is told apart and worded: gone away (unreachable, so
//! [`ErrorKind::Unavailable`] and the next request connects again) or a statement refused.

use crate::error::{Error, ErrorKind};

pub(super) fn unreachable(shown: &str, e: &postgres::Error) -> Error {
    let why = std::error::Error::source(e).map_or_else(|| e.to_string(), |s| s.to_string());
    Error::new(
        ErrorKind::Unavailable,
        format!(
            "the PostgreSQL store at {shown} cannot be reached ({why}); source/ works as \
             before, and the mount connects again by itself at the next request once the \
             database is back"
        ),
    )
}

/// A failed statement: the server's own message when it gave one.
pub(super) fn failure(shown: &str, e: &postgres::Error) -> Error {
    if is_lost(e) {
        return unreachable(shown, e);
    }
    match e.as_db_error() {
        Some(db) => Error::internal(format!(
            "the PostgreSQL store at {shown} refused a statement: {}",
            db.message()
        )),
        None => Error::internal(format!("the PostgreSQL store at {shown} failed: {e}")),
    }
}

/// Whether `e` is the database going away rather than a statement failing: the
/// connection closed or broke, or the server said so itself — SQLSTATE class 08
/// (connection exception) or 57 (operator intervention: shutting down, crashed, not yet
/// accepting connections), as a server being stopped sends to its open connections.
pub(super) fn is_lost(e: &postgres::Error) -> bool {
    let said = e
        .code()
        .is_some_and(|code| code.code().starts_with("08") || code.code().starts_with("57"));
    said || e.is_closed() || is_io(e)
}

/// Whether `e` is the connection failing rather than a statement.
fn is_io(e: &postgres::Error) -> bool {
    std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
}
