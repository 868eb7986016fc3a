//! Where a store lives, as `--store`, `-o store=` and `HOMESPACE_STORE` name it: a SQLite
//! file (the default) or a PostgreSQL database (`postgres://user@host:port/db`, shared by
//! many mounts on many machines). Opening one gives a [`Store`], whichever it is.
//!
//! A password may be in the URL or, as libpq reads it, in `PGPASSWORD`; messages and the
//! daemon's command line only ever show the URL without it ([`Location::shown`]), and the
//! mount hands the password to its daemon in `PGPASSWORD`, so `ps` never shows it.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::store::Store;

/// The environment variable libpq and homespace read a PostgreSQL password from.
pub const PASSWORD_VARIABLE: &str = "PGPASSWORD";

/// A store's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL URL, password included when one was given.
    Postgres(String),
}

impl Location {
    /// `postgres://…` and `postgresql://…` name a database; anything else is a file.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.to_string())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    /// Opens (a file: creating it; a database: migrating it) the store here.
    pub fn open(&self) -> Result<Store> {
        match self {
            Location::File(path) => Store::open(path),
            Location::Postgres(url) => Store::connect(&with_password(url, password_variable())),
        }
    }

    /// The file, for a SQLite store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Postgres(_) => None,
        }
    }

    /// How messages, logs and the daemon's command line name it: a URL without its
    /// password.
    pub fn shown(&self) -> String {
        match self {
            Location::File(path) => path.display().to_string(),
            Location::Postgres(url) => without_password(url),
        }
    }

    /// The password in a PostgreSQL URL, if it has one.
    pub fn password(&self) -> Option<String> {
        let Location::Postgres(url) = self else {
            return None;
        };
        let (_, rest) = url.split_once("://")?;
        let (user, _) = rest.split_once('@')?;
        let (_, password) = user.split_once(':')?;
        Some(percent_decode(password))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

/// `PGPASSWORD`, when set and not empty.
fn password_variable() -> Option<String> {
    std::env::var(PASSWORD_VARIABLE)
        .ok()
        .filter(|p| !p.is_empty())
}

/// `url` with `password` when it names a user but no password of its own.
fn with_password(url: &str, password: Option<String>) -> String {
    let (Some(password), Some((scheme, rest))) = (password, url.split_once("://")) else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((user, host)) if !user.contains(':') => {
            format!("{scheme}://{user}:{}@{host}", percent_encode(&password))
        }
        _ => url.to_string(),
    }
}

/// `postgres://user:secret@host/db` → `postgres://user@host/db`.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((user, host)) => {
            let user = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_string(),
    }
}

/// What a URL's userinfo escapes in a password: everything but unreserved characters (a
/// password may hold `@`, `:` or `/`).
const USERINFO: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, USERINFO).to_string()
}

fn percent_decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_databases_and_anything_else_a_file() {
        assert_eq!(
            Location::parse("postgres://me@db/team"),
            Location::Postgres("postgres://me@db/team".into())
        );
        assert!(matches!(
            Location::parse("postgresql://me@db/team"),
            Location::Postgres(_)
        ));
        assert_eq!(
            Location::parse("postgres.db"),
            Location::File("postgres.db".into())
        );
    }

    #[test]
    fn a_password_is_never_shown_and_travels_apart() {
        let at = Location::parse("postgres://me:p%40ss:w@db.example:5432/team");
        assert_eq!(at.shown(), "postgres://me@db.example:5432/team");
        assert_eq!(at.to_string(), at.shown());
        assert_eq!(at.password().as_deref(), Some("p@ss:w"));
        // Given back to a URL without one, it connects as the same user.
        let again = with_password(&at.shown(), at.password());
        assert_eq!(again, "postgres://me:p%40ss%3Aw@db.example:5432/team");
        assert_eq!(without_password("postgres://me@db/x"), "postgres://me@db/x");
        let parsed: postgres::Config = again.parse().unwrap();
        assert_eq!(parsed.get_password(), Some(&b"p@ss:w"[..]));
    }

    #[test]
    fn a_password_in_the_url_wins_over_the_variable() {
        assert_eq!(
            with_password("postgres://me:mine@db/x", Some("env".into())),
            "postgres://me:mine@db/x"
        );
        assert_eq!(
            with_password("postgres://me@db/x", None),
            "postgres://me@db/x"
        );
        assert_eq!(
            Location::parse("postgres://me@db/x").password(),
            None,
            "no password"
        );
    }
}
