//! How both backends choose the words that make a session distinctive (`related.md`,
//! `memory/recall`): the same text, cut the same way, weighed the same way, so a session
//! is related to the same others whichever store holds it (`related.rs`). Each backend only
//! counts document frequencies and ranks with its own index (`sqlite/related.rs`,
//! `postgres/related.rs`).

use std::collections::BTreeMap;

/// How many of the session's last entries describe it.
pub(super) const RECENT_ENTRIES: usize = 20;
/// Characters of each text read (a long tool result says little more past this).
pub(super) const TEXT_CHARS: usize = 20_000;
/// Words whose document frequency is looked up.
pub(super) const CANDIDATES: usize = 80;
/// Document frequencies are counted up to this: a word in that many entries or more is
/// too common to tell sessions apart.
pub(super) const DF_CAP: usize = 2_000;
/// Words in the query.
pub(super) const TERMS: usize = 12;
/// Matching entries ranked.
pub(super) const WINDOW: usize = 2_000;
/// Entries of one session that add to its score.
pub(super) const BEST_ROWS: usize = 5;

/// Words too common in any text to relate two sessions, and the words of tool calls and
/// results themselves (`Bash {"command": "grep …"}`: every session that ran a command has
/// them), so sessions relate by what they worked on (sorted: looked up by binary search).
const STOPWORDS: &[&str] = &[
    "about",
    "add",
    "after",
    "again",
    "all",
    "also",
    "and",
    "any",
    "are",
    "arguments",
    "bash",
    "because",
    "been",
    "before",
    "but",
    "can",
    "command",
    "commands",
    "content",
    "could",
    "description",
    "did",
    "does",
    "doing",
    "done",
    "each",
    "edit",
    "error",
    "exit_code",
    "false",
    "file",
    "file_path",
    "filepath",
    "files",
    "for",
    "from",
    "glob",
    "grep",
    "had",
    "has",
    "have",
    "here",
    "how",
    "input",
    "into",
    "its",
    "json",
    "just",
    "let",
    "like",
    "make",
    "metadata",
    "more",
    "most",
    "need",
    "new_string",
    "not",
    "now",
    "null",
    "old_string",
    "one",
    "only",
    "other",
    "our",
    "out",
    "output",
    "over",
    "path",
    "pattern",
    "read",
    "replace_all",
    "result",
    "run",
    "same",
    "see",
    "shell",
    "should",
    "some",
    "status",
    "string",
    "such",
    "task",
    "text",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "todo",
    "todos",
    "todowrite",
    "too",
    "tool",
    "true",
    "type",
    "use",
    "used",
    "using",
    "very",
    "was",
    "way",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "write",
    "you",
    "your",
];

/// The words of a session's texts with how often each occurs.
#[derive(Debug, Default)]
pub(super) struct Words(BTreeMap<String, usize>);

impl Words {
    /// Counts the words of `text` (its first [`TEXT_CHARS`] characters): lowercase runs of
    /// letters and digits, 3 to 32 long, not a number, not a stop word.
    pub fn add(&mut self, text: &str) {
        let text = match text.char_indices().nth(TEXT_CHARS) {
            Some((at, _)) => &text[..at],
            None => text,
        };
        for word in text.split(|c: char| !c.is_alphanumeric()) {
            let length = word.chars().count();
            if !(3..=32).contains(&length) || word.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let word = word.to_lowercase();
            if STOPWORDS.binary_search(&word.as_str()).is_err() {
                *self.0.entry(word).or_default() += 1;
            }
        }
    }

    /// The [`CANDIDATES`] most frequent words with their counts (ties by name, so the
    /// choice is stable).
    pub fn candidates(self) -> Vec<(String, usize)> {
        let mut candidates: Vec<(String, usize)> = self.0.into_iter().collect();
        candidates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        candidates.truncate(CANDIDATES);
        candidates
    }
}

/// The [`TERMS`] most distinctive of `counted` — each word with its count in the session
/// (`tf`), the entries and sessions holding it (`df`) and how many of those are not this
/// session's (`elsewhere`) — by tf-idf over `documents`, most distinctive first. A word too
/// common ([`DF_CAP`]) or found only in this session shares nothing.
pub(super) fn distinctive(
    counted: impl IntoIterator<Item = (String, usize, usize, usize)>,
    documents: usize,
) -> Vec<String> {
    let documents = documents.max(1) as f64;
    let mut weighted = Vec::new();
    for (term, tf, df, elsewhere) in counted {
        if df == 0 || df >= DF_CAP || elsewhere == 0 {
            continue;
        }
        let weight = (1.0 + (tf as f64).ln()) * (documents / df as f64).ln_1p();
        weighted.push((term, weight));
    }
    weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    weighted.truncate(TERMS);
    weighted.into_iter().map(|(term, _)| term).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_cut_counted_and_weighed_alike_for_every_backend() {
        assert!(
            STOPWORDS.windows(2).all(|w| w[0] < w[1]),
            "sorted for binary search"
        );
        let mut words = Words::default();
        words.add("The Parser parses parser_config; 2026 and 12345 are numbers, é-tude ok");
        let candidates = words.candidates();
        assert_eq!(candidates[0], ("parser".to_string(), 2));
        let names: Vec<&str> = candidates.iter().map(|(w, _)| w.as_str()).collect();
        assert!(
            names.contains(&"config") && names.contains(&"tude"),
            "{names:?}"
        );
        assert!(
            !names.contains(&"the") && !names.contains(&"2026"),
            "{names:?}"
        );
        let chosen = distinctive(
            [
                ("common".to_string(), 5, DF_CAP, 10),
                ("only_here".to_string(), 5, 3, 0),
                ("rare".to_string(), 1, 2, 1),
                ("frequent".to_string(), 4, 2, 1),
            ],
            1_000,
        );
        assert_eq!(chosen, ["frequent", "rare"]);
    }
}
