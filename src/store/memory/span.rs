//! The entry numbers a search covers: all of memory, or one session's (a session's
//! entries are numbered in a range of their own), narrowed from below as a scan moves on.

use super::session_range;

/// The entry numbers a search covers: all, or from `low` and up to `high`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Span {
    pub low: Option<i64>,
    pub high: Option<i64>,
}

impl Span {
    pub(super) fn session(rowid: i64) -> Span {
        let (low, high) = session_range(rowid);
        Span {
            low: Some(low),
            high: Some(high),
        }
    }

    /// The same span starting at `low` at the earliest.
    pub fn from(self, low: Option<i64>) -> Span {
        Span {
            low: self.low.max(low),
            high: self.high,
        }
    }

    /// ` AND column >= low AND column <= high` for the bounds there are (nothing when
    /// searching everything), each value bound by `bind`, which gives its placeholder.
    pub fn sql(self, column: &str, mut bind: impl FnMut(i64) -> String) -> String {
        let mut sql = String::new();
        for (bound, op) in [(self.low, ">="), (self.high, "<=")] {
            if let Some(bound) = bound {
                sql.push_str(&format!(" AND {column} {op} {}", bind(bound)));
            }
        }
        sql
    }

    pub fn bounds(self) -> (i64, i64) {
        (self.low.unwrap_or(0), self.high.unwrap_or(i64::MAX))
    }
}
