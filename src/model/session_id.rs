//! A memory session's id, which names its directory (`memory/sessions/<day>/<id>/`): one
//! rule, checked here alone, whether the id comes from `mkdir`, from a transcript or from
//! the store ([`SessionId::parse`]); a transcript's own id, or a file's name, is made
//! into one by [`SessionId::derived`].

use std::fmt;

use crate::error::{Error, Result};

/// An id that may name a session: 1 to [`SessionId::MAX_LEN`] of `A-Z a-z 0-9 . _ -`, not
/// starting with `.` (hidden from `ls`, or `..`) or `-` (read as an option by every shell
/// tool).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// The longest id, in bytes (all of them ASCII).
    pub const MAX_LEN: usize = 200;

    /// The longest id [`SessionId::derived`] keeps of a tool's id or a file's name: ids
    /// derived by earlier versions were cut here, and must stay the same so that importing
    /// the same file again finds its session.
    const DERIVED_CHARS: usize = 128;

    /// `id` if it may name a session; else why not, in the one message every place that
    /// takes an id gives.
    pub fn parse(id: &str) -> Result<SessionId> {
        let fits = (1..=Self::MAX_LEN).contains(&id.len())
            && !id.starts_with(['.', '-'])
            && id.chars().all(allowed);
        if !fits {
            return Err(Error::invalid(format!(
                "{id:?} cannot name a memory session: use 1 to {} of A-Z a-z 0-9 . _ -, \
                 starting with a letter, a digit or _",
                Self::MAX_LEN
            )));
        }
        Ok(SessionId(id.to_string()))
    }

    /// An id made from `raw` (a tool's session id, a file's name): every character that
    /// may not stand in an id becomes `-`, at most 128 characters are kept, and one that
    /// would be empty or start with `.` or `-` is prefixed with `session`.
    pub fn derived(raw: &str) -> SessionId {
        let id: String = raw
            .chars()
            .take(Self::DERIVED_CHARS)
            .map(|c| if allowed(c) { c } else { '-' })
            .collect();
        if id.is_empty() || id.starts_with(['.', '-']) {
            SessionId(format!("session{id}"))
        } else {
            SessionId(id)
        }
    }

    /// An id as the store keeps it: it took only what [`SessionId::parse`] takes, so a
    /// session read back is named as it was stored, never refused.
    pub fn stored(id: String) -> SessionId {
        SessionId(id)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An id is its text: `record.id == "4f35e220"` reads as it says.
impl PartialEq<str> for SessionId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for SessionId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for SessionId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

/// A character an id may hold anywhere.
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

#[cfg(test)]
mod tests {
    use super::SessionId;

    #[test]
    fn an_id_is_1_to_200_safe_characters_not_starting_with_a_dot_or_a_dash() {
        for good in [
            "fine-session",
            "_x",
            "4f35e220-c435-4cf7",
            "a..b",
            "x.jsonl",
        ] {
            assert_eq!(SessionId::parse(good).unwrap().as_str(), good);
        }
        assert!(SessionId::parse(&"x".repeat(200)).is_ok());
        let message = "\"-x\" cannot name a memory session: use 1 to 200 of A-Z a-z 0-9 . _ -, \
                       starting with a letter, a digit or _";
        assert_eq!(SessionId::parse("-x").unwrap_err().message, message);
        for bad in [
            String::new(),
            ".hidden".into(),
            "..".into(),
            "-rf".into(),
            "a/b".into(),
            "a b".into(),
            "é".into(),
            "x".repeat(201),
        ] {
            let refused = SessionId::parse(&bad).unwrap_err();
            assert!(
                refused.message.contains("cannot name a memory session"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_derived_id_always_parses() {
        for raw in [
            "a/b c:d",
            "",
            "..",
            ".hidden",
            "-rf",
            "ses_4f2a",
            &"é".repeat(300),
        ] {
            let id = SessionId::derived(raw);
            assert_eq!(SessionId::parse(id.as_str()), Ok(id.clone()), "{raw}");
        }
        assert_eq!(SessionId::derived("a/b c:d").as_str(), "a-b-c-d");
        assert_eq!(SessionId::derived("-rf").as_str(), "session-rf");
        assert_eq!(SessionId::derived(&"x".repeat(300)).as_str().len(), 128);
    }
}
