//! An entry's number in the store, `(session << 32) + seq`: the primary key (session, seq)
//! as one integer, so an entry's number is stable (the full-text indexes refer to it) and
//! a session's entries are one range of numbers in seq order. The layout is written here
//! alone: in Rust ([`entry_id`], [`split_entry_id`], [`session_range`]) and in SQL
//! ([`entry_id_sql`], [`session_of_sql`], spliced into every statement that makes or
//! splits a number). The schemas'
//! `CHECK`s say it too, as the migrations that made existing stores wrote it; a test holds
//! them to [`entry_id_sql`].

/// The bits of an entry number that hold its seq; the session's rowid is above them.
const SEQ_BITS: u32 = 32;

/// The largest seq a session can hold.
pub(crate) const MAX_SEQ: i64 = (1 << SEQ_BITS) - 1;

/// The stored number of entry `seq` of session `session` (a session's rowid).
pub(crate) fn entry_id(session: i64, seq: i64) -> i64 {
    (session << SEQ_BITS) + seq
}

/// The session and seq of an entry number.
pub(crate) fn split_entry_id(id: i64) -> (i64, i64) {
    (id >> SEQ_BITS, id & MAX_SEQ)
}

/// The numbers every entry of `session` lies between (inclusive).
pub(crate) fn session_range(session: i64) -> (i64, i64) {
    (entry_id(session, 1), entry_id(session, MAX_SEQ))
}

/// The session of the entry number `id` (an SQL expression), in SQL: [`split_entry_id`]'s
/// first half.
pub(crate) fn session_of_sql(id: &str) -> String {
    format!("({id} >> {SEQ_BITS})")
}

/// [`entry_id`] in SQL, of the SQL expressions `session` and `seq`, in either dialect
/// (`<<` binds looser than `+` in both, hence the parentheses). PostgreSQL shifts a
/// 32-bit integer within 32 bits: there `session` must be a `BIGINT` already.
pub(crate) fn entry_id_sql(session: &str, seq: &str) -> String {
    format!("({session} << {SEQ_BITS}) + {seq}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_numbers_keep_session_and_seq() {
        let (lo, hi) = session_range(7);
        assert!(lo <= entry_id(7, 1) && entry_id(7, MAX_SEQ) <= hi);
        assert!(hi < entry_id(8, 1));
        assert_eq!(split_entry_id(entry_id(123_456, 42)), (123_456, 42));
    }

    #[test]
    fn the_schemas_check_the_layout_written_here() {
        let sqlite = format!("CHECK (id = {})", entry_id_sql("session", "seq"));
        assert!(super::super::SCHEMA.contains(&sqlite), "{sqlite}");
        let postgres = format!("CHECK (id = {})", entry_id_sql("session::BIGINT", "seq"));
        assert!(super::super::PG_SCHEMA.contains(&postgres), "{postgres}");
        let seqs = format!("CHECK (seq BETWEEN 1 AND {MAX_SEQ})");
        assert!(super::super::SCHEMA.contains(&seqs) && super::super::PG_SCHEMA.contains(&seqs));
    }
}
