//! The searchable words of an entry on PostgreSQL, cut here and sent ready: the `words`
//! tsvector is what `setweight(to_tsvector('simple', <content's words>), 'D') ||
//! setweight(to_tsvector('simple', <tags' words>), 'C')` makes of the text cut as a
//! query is (`fts::words`: runs of letters and digits), so matching is the same as on
//! SQLite and as for a query's words, which the server's `simple` configuration cuts.
//!
//! Why not let the server compute them: the generated column it had (a regular expression
//! over every document, then the parser) took most of an import's time. Here an entry of
//! plain ASCII words is made into the tsvector's binary form directly; an entry the
//! server's parser could cut differently (letters past ASCII, whose case and classes are
//! the database locale's; `1e5x`, which it reads as the number `1e5` and the word `x`)
//! or that reaches a tsvector's limits (a lexeme of 2 KiB, 16,383 positions, 255 of one
//! lexeme) is given to `to_tsvector` as its pre-cut words, all such entries of a batch in
//! one statement. Either way the bytes are those `to_tsvector` makes
//! (`a_rust_cut_entry_has_the_servers_own_words` below checks it).

use super::read::column;
use crate::error::{Error, Result};
use crate::store::fts;
use crate::store::postgres::Tx;

/// Characters of a document's words indexed (a tsvector holds at most 1 MiB); the rest of
/// a longer document is not searchable, and the document is never refused for its size.
const INDEXED_CHARS: usize = 1 << 20;
/// PostgreSQL skips a word this many bytes long or longer.
const LONGEST_LEXEME: usize = 2047;
/// The last position a tsvector tells apart.
const LAST_POSITION: u16 = 16_383;
/// Positions of one lexeme `to_tsvector` keeps.
const POSITIONS_KEPT: usize = 255;
/// Bytes of lexemes one tsvector holds.
const LEXEME_BYTES: usize = (1 << 20) - 1;
/// The weight bits of a tag's position (C); content's (D) are zero.
const TAG_WEIGHT: u16 = 1 << 14;

/// An entry's words: a tsvector in PostgreSQL's binary form (`tsvectorsend`'s), which a
/// binary `COPY` hands to the column as it is.
pub(super) type Words = Vec<u8>;

/// Whether the database's `simple` configuration lowers ASCII letters to ASCII letters, as
/// here (a Turkish locale lowers `I` to a dotless `ı`): only then are ASCII words cut here.
pub(super) const ASCII_LOWERED: &str = "to_tsvector('simple', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')::TEXT
    = '''abcdefghijklmnopqrstuvwxyz'':1'";

/// The words of each of `entries` (its content, and its tags as JSON), in order; plain
/// entries are cut here when `ascii_here` (the database said [`ASCII_LOWERED`]).
pub(super) fn words_of(
    tx: &Tx<'_>,
    entries: &[(&str, &str)],
    ascii_here: bool,
) -> Result<Vec<Words>> {
    let mut words: Vec<Option<Words>> = match ascii_here {
        true => entries
            .iter()
            .map(|(content, tags)| cut_here(content, tags))
            .collect(),
        false => entries.iter().map(|_| None).collect(),
    };
    let left: Vec<usize> = (0..entries.len()).filter(|&i| words[i].is_none()).collect();
    if !left.is_empty() {
        let (contents, tags): (Vec<String>, Vec<String>) = left
            .iter()
            .map(|&i| (indexed_text(entries[i].0), indexed_text(entries[i].1)))
            .unzip();
        let rows = tx.query(
            &format!(
                "SELECT tsvectorsend({})
                 FROM unnest($1::TEXT[], $2::TEXT[]) WITH ORDINALITY AS u (c, t, n) ORDER BY n",
                words_sql("c", "t")
            ),
            &[&contents, &tags],
        )?;
        if rows.len() != left.len() {
            return Err(Error::internal(
                "PostgreSQL cut fewer entries than it was given",
            ));
        }
        for (&i, row) in left.iter().zip(&rows) {
            words[i] = Some(column(row, 0)?);
        }
    }
    words
        .into_iter()
        .map(|w| w.ok_or_else(|| Error::internal("an entry's words were not cut")))
        .collect()
}

/// The SQL of an entry's words from `content` and `tags`, SQL text values holding their
/// [`indexed_text`].
pub(super) fn words_sql(content: &str, tags: &str) -> String {
    format!(
        "setweight(to_tsvector('simple', {content}), 'D') || setweight(to_tsvector('simple', {tags}), 'C')"
    )
}

/// `text`'s words joined by single spaces, up to [`INDEXED_CHARS`] characters: what
/// `to_tsvector` is given.
pub(super) fn indexed_text(text: &str) -> String {
    let mut words = fts::word_text(text);
    if let Some((end, _)) = words.char_indices().nth(INDEXED_CHARS) {
        words.truncate(end);
    }
    words
}

/// The words of an entry made here, when every word is one the server's parser keeps whole
/// and lowers as ASCII, and no limit of a tsvector is reached; `None` for the server to cut.
///
/// Every word is noted with its position, then the notes are sorted by word: a stable sort
/// keeps each word's positions in order, and a run of equal words is one lexeme. This is
/// the hot loop of an import on PostgreSQL; sorting short slices of one lowered copy of the
/// text is cheaper than a map of owned lexemes was (a hash and, for each new lexeme,
/// an allocation).
fn cut_here(content: &str, tags: &str) -> Option<Words> {
    // Lowering ASCII letters moves no word boundary, and a word with any other letter is
    // left to the server below.
    let texts = [
        (content.to_ascii_lowercase(), 0),
        (tags.to_ascii_lowercase(), TAG_WEIGHT),
    ];
    let mut noted: Vec<(&str, u16)> = Vec::new();
    let mut position: u16 = 0;
    // Tags follow the content: `||` puts the second vector's positions after the first's.
    for (text, weight) in &texts {
        let mut chars = 0usize;
        for word in fts::words(text) {
            if !word.is_ascii() || word.len() >= LONGEST_LEXEME || read_as_number(word) {
                return None;
            }
            chars += word.len() + usize::from(chars > 0);
            position += 1;
            if chars > INDEXED_CHARS || position > LAST_POSITION {
                return None;
            }
            noted.push((word, position | weight));
        }
    }
    // The order of a tsvector: by bytes, a shorter lexeme before one it begins.
    noted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    binary(&noted)
}

/// The binary form of a tsvector (as `tsvectorsend` writes it) from its words' positions
/// sorted by word: the number of lexemes, then each lexeme NUL-terminated with its number
/// of positions and the positions. `None` where a lexeme has more positions than a
/// tsvector keeps, or the lexemes more bytes than it holds.
fn binary(noted: &[(&str, u16)]) -> Option<Words> {
    let mut out = Vec::with_capacity(4 + noted.len() * 8);
    // The number of lexemes, known at the end.
    out.extend_from_slice(&[0; 4]);
    let (mut lexemes, mut lexeme_bytes) = (0u32, 0usize);
    for run in noted.chunk_by(|a, b| a.0 == b.0) {
        if run.len() > POSITIONS_KEPT {
            return None;
        }
        lexemes += 1;
        lexeme_bytes += run[0].0.len();
        out.extend_from_slice(run[0].0.as_bytes());
        out.push(0);
        out.extend_from_slice(&(run.len() as u16).to_be_bytes());
        for (_, position) in run {
            out.extend_from_slice(&position.to_be_bytes());
        }
    }
    if lexeme_bytes > LEXEME_BYTES {
        return None;
    }
    out[..4].copy_from_slice(&lexemes.to_be_bytes());
    Some(out)
}

/// Whether the parser reads `word` (ASCII letters and digits) as a number in scientific
/// notation followed by a word (`1e5x`: `1e5` and `x`) rather than as one word.
fn read_as_number(word: &str) -> bool {
    let bytes = word.as_bytes();
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let mantissa = digits(0);
    if mantissa == 0 || !matches!(bytes.get(mantissa), Some(b'e' | b'E')) {
        return false;
    }
    let exponent = digits(mantissa + 1);
    exponent > 0 && bytes.len() > mantissa + 1 + exponent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SessionId;
    use crate::model::transcript::{Channel, EntryRecord, SessionRecord, Transcript};
    use crate::store::postgres::Postgres;
    use crate::store::postgres::scratch::ScratchServer;
    use crate::store::testing::for_each_backend_from;

    /// Entries cut here and entries the server cuts (every reason to hand one over) get
    /// the very bytes `to_tsvector` makes of their words.
    #[test]
    fn a_rust_cut_entry_has_the_servers_own_words() {
        let server = ScratchServer::start().unwrap();
        let url = server.database("words").unwrap();
        let store = Postgres::connect(&url, crate::store::PG_MIGRATIONS).unwrap();
        let many = "deploy ".repeat(300);
        let most = "deploy ".repeat(POSITIONS_KEPT);
        let long = "w ".repeat(17_000);
        let huge = "x".repeat(2_100);
        let entries: Vec<(&str, &str)> = vec![
            (
                "Parse_amount in ledger/money.py: 12 EUR, 1e5 and 0x1F",
                "[]",
            ),
            ("the same the same THE same", r#"["Sampled", "the two"]"#),
            ("", r#"["only-tags"]"#),
            ("", "[]"),
            ("été à Tōkyō, 東京 ΣΑΣ x² İx", "[]"),
            ("a 1e5x and 8E5289e1x", "[]"),
            (&many, "[]"),
            (&most, "[]"),
            (&long, r#"["tail"]"#),
            (&huge, "[]"),
        ];
        let (here, theirs) = store
            .read(|tx| {
                let lowered: bool =
                    column(&tx.query_one(&format!("SELECT {ASCII_LOWERED}"), &[])?, 0)?;
                assert!(lowered, "a C.UTF-8 database lowers ASCII as homespace does");
                let here = words_of(tx, &entries, lowered)?;
                let theirs: Vec<Vec<u8>> = entries
                    .iter()
                    .map(|(content, tags)| {
                        let row = tx.query_one(
                            &format!("SELECT tsvectorsend({})", words_sql("$1", "$2")),
                            &[&indexed_text(content), &indexed_text(tags)],
                        )?;
                        column(&row, 0)
                    })
                    .collect::<Result<_>>()?;
                Ok((here, theirs))
            })
            .unwrap();
        for ((entry, here), theirs) in entries.iter().zip(&here).zip(&theirs) {
            assert_eq!(here, theirs, "{:.60}", entry.0);
        }
        // The plain ones were cut here, not handed over.
        assert!(cut_here(entries[0].0, entries[0].1).is_some());
        assert!(cut_here(entries[1].0, entries[1].1).is_some());
        assert!(cut_here(entries[4].0, entries[4].1).is_none());
        assert!(
            cut_here(&most, "[]").is_some(),
            "as many positions as a lexeme keeps"
        );
        assert!(cut_here(&many, "[]").is_none(), "more than a lexeme keeps");
    }

    /// A store whose entries' words the server generated (before migration 14) is opened
    /// by this homespace: its entries are found as before, beside new ones, and a new tag
    /// of an old entry is found.
    #[test]
    fn an_entry_stored_before_homespace_cut_its_words_is_found_and_retagged() {
        let rows = r#"
            INSERT INTO sessions (id, source, day, title)
                VALUES ('old', 'claude', '2026-10-01', 'old work');
            INSERT INTO entries (id, session, seq, channel, key, meta, content) VALUES
                (4294967297, 1, 1, 'user', 'a', '{}', 'the ledger rounds Money wrong');
        "#;
        for_each_backend_from(13, rows, |store| {
            let transcript = Transcript {
                sessions: vec![(
                    SessionRecord {
                        id: SessionId::parse("new").unwrap(),
                        source: "claude".into(),
                        started: None,
                        ended: None,
                        title: "new work".into(),
                        cwd: None,
                        model: None,
                        continuation_of: None,
                        resumes_by_copy: false,
                        lesser_titles: Vec::new(),
                    },
                    vec![EntryRecord {
                        key: "b".into(),
                        ts: None,
                        channel: Channel::User,
                        content: "money, rounded right".into(),
                        tags: Vec::new(),
                        meta: crate::model::Meta::default(),
                    }],
                )],
            };
            store.change_memory(|m| m.import(&transcript)).unwrap();
            let found = |query: &str| {
                let (hits, _, _) = store.memory(|m| m.search(query, 10)).unwrap();
                let mut sessions: Vec<String> = hits.into_iter().map(|h| h.session_id).collect();
                sessions.sort();
                sessions
            };
            assert_eq!(found("money"), ["new", "old"]);
            assert_eq!(found("\"rounds money\""), ["old"]);
            store
                .change_memory(|m| m.set_tags(1, 1, &["audited".into()]))
                .unwrap();
            assert_eq!(found("audited"), ["old"]);
            assert_eq!(found("ledger"), ["old"], "its content's words stay");
        });
    }
}
