//! The reading half of `search/source:`: every searched file read on every core, its
//! matching lines found as bytes and counted, and only the lines a ranking can still show
//! turned into text. What the query means and how hits are ranked and named is
//! `search.rs`'s.

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::bytes::{Regex, RegexSet};

use crate::resources::source::project::LARGEST_TEXT;

/// How much of a file is looked at to tell a binary file (a NUL byte) from text, as grep does.
const SNIFF: usize = 8 << 10;
/// Files read at once, whatever the cores: a cold disk answers many reads in flight
/// faster than one per core, and waiting readers cost nothing when the files are cached.
pub const READERS: usize = 8;
/// The longest line text kept for a hit, in characters.
const LINE_CHARS: usize = 160;

/// One matching line.
#[derive(Debug, Clone)]
pub struct Found {
    pub file: usize,
    pub line: usize,
    pub offset: usize,
    pub text: String,
    pub definition: bool,
    /// How many of the query's terms the line holds.
    pub terms: usize,
}

/// What a query looks for: any of its terms, and each term to count how many a line holds.
pub struct Pattern {
    pub any: Regex,
    /// Every term, to tell in one pass which a line holds; empty for a `re:` query (a line
    /// holds it or not) and for one term.
    pub each: RegexSet,
    /// The terms as the query spells them, numbered as [`Pattern::each`] numbers them
    /// (empty for a `re:` query), and whether they match in any case (smart case).
    pub words: Vec<String>,
    pub ignore_case: bool,
}

impl Pattern {
    /// How many terms `line` holds, counting those of `named` (a bit per term, as
    /// [`Pattern::each`] numbers them) whether it spells them or not.
    pub fn terms_in(&self, line: &[u8], named: u64) -> usize {
        if self.each.is_empty() {
            return 1;
        }
        let mut held = named;
        for term in self.each.matches(line).iter().filter(|t| *t < 64) {
            held |= 1 << term;
        }
        held.count_ones() as usize
    }
}

/// The first `limit` matching lines of `files` for each number of terms held, definitions
/// and others apart (all a ranking can show), and how many lines matched in all. Files from
/// `python` on are not Python: those past [`LARGEST_TEXT`] are data and left unread. Each
/// reader takes the next unread file, so a large file does not hold the others back; every
/// reader meets its files in order, so its first `limit` are the first of the files it read
/// and together they hold the first of all. Memory stays bounded whatever the query
/// (`re:^` matches every line of the project).
///
/// `named[n]` has a bit for each of the query's terms that names file `n` itself
/// (`accounts.py`), as [`Pattern::each`] numbers them: every line of it holds them.
pub fn scan(
    pattern: &Pattern,
    files: &[PathBuf],
    named: &[u64],
    python: usize,
    limit: usize,
) -> (Vec<Found>, usize) {
    let readers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .max(READERS)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..readers)
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut reader = Reader::new(pattern, limit);
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(n) else { break };
                        let named = named.get(n).copied().unwrap_or(0);
                        reader.file(n, path, named, n >= python);
                    }
                    (reader.found, reader.total)
                })
            })
            .collect();
        let mut found = Vec::new();
        let mut total = 0;
        for worker in workers {
            let (hits, count) = worker.join().unwrap_or_default();
            found.extend(hits);
            total += count;
        }
        (found, total)
    })
}

/// One core's reading: its buffer, kept from file to file, and what it found.
struct Reader<'p> {
    pattern: &'p Pattern,
    limit: usize,
    bytes: Vec<u8>,
    found: Vec<Found>,
    /// Lines kept per (terms held, definition), up to `limit` each.
    kept: std::collections::HashMap<(usize, bool), usize>,
    total: usize,
}

impl<'p> Reader<'p> {
    fn new(pattern: &'p Pattern, limit: usize) -> Self {
        Reader {
            pattern,
            limit,
            bytes: Vec::new(),
            found: Vec::new(),
            kept: std::collections::HashMap::new(),
            total: 0,
        }
    }

    /// Read the `n`th file at `path` and note its matching lines; a file that cannot be
    /// read, is binary, or (when not Python) is too large to be text, matches nothing.
    fn file(&mut self, n: usize, path: &std::path::Path, named: u64, data: bool) {
        self.bytes.clear();
        let Ok(mut file) = std::fs::File::open(path) else {
            return;
        };
        if data && file.metadata().is_ok_and(|m| m.len() > LARGEST_TEXT) {
            return;
        }
        if file.read_to_end(&mut self.bytes).is_err() {
            return;
        }
        let bytes = std::mem::take(&mut self.bytes);
        self.lines(n, &bytes, named);
        self.bytes = bytes;
    }

    fn lines(&mut self, n: usize, bytes: &[u8], named: u64) {
        if memchr::memchr(0, &bytes[..bytes.len().min(SNIFF)]).is_some() {
            return;
        }
        let mut line = 1;
        let mut counted_to = 0;
        // Where the line of the last counted match ends: later matches before it are on
        // the same line, which counts once.
        let mut line_end: Option<usize> = None;
        for m in self.pattern.any.find_iter(bytes) {
            if line_end.is_some_and(|end| m.start() <= end) {
                continue;
            }
            let start = memchr::memrchr(b'\n', &bytes[counted_to..m.start()])
                .map_or(counted_to, |p| counted_to + p + 1);
            line += memchr::memchr_iter(b'\n', &bytes[counted_to..start]).count();
            counted_to = start;
            let end =
                memchr::memchr(b'\n', &bytes[m.start()..]).map_or(bytes.len(), |p| m.start() + p);
            line_end = Some(end);
            self.total += 1;
            let raw = &bytes[start..end];
            let definition = is_definition(raw);
            let terms = self.pattern.terms_in(raw, named);
            let count = self.kept.entry((terms, definition)).or_default();
            if *count >= self.limit {
                continue;
            }
            *count += 1;
            self.found.push(Found {
                file: n,
                line,
                offset: start,
                text: cut(String::from_utf8_lossy(raw).trim(), LINE_CHARS),
                definition,
                terms,
            });
        }
    }
}

/// Whether a line defines a function or class: it starts, past its indentation, with
/// `def `, `class ` or `async def `. Indentation is what `str::trim` takes away; a line
/// whose first visible byte is not ASCII is read as text to tell.
fn is_definition(raw: &[u8]) -> bool {
    const KEYWORDS: [&str; 3] = ["def ", "class ", "async def "];
    let indent = raw
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '))
        .unwrap_or(raw.len());
    let rest = &raw[indent..];
    match rest.first() {
        Some(b) if *b >= 0x80 => {
            let text = String::from_utf8_lossy(raw);
            KEYWORDS.iter().any(|k| text.trim().starts_with(k))
        }
        _ => KEYWORDS.iter().any(|k| rest.starts_with(k.as_bytes())),
    }
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_told_past_any_indentation_str_trim_takes() {
        assert!(is_definition(b"    def debit(self):"));
        assert!(is_definition(b"\x0b\tasync def run():"));
        assert!(is_definition("\u{a0}class Account:".as_bytes()));
        assert!(!is_definition(b"    # def debit"));
        assert!(!is_definition(b"define = 1"));
        assert!(!is_definition(b""));
    }

    #[test]
    fn long_lines_are_cut_at_a_character() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("aé€d", 2), "aé…");
    }
}
