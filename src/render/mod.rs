//! Generated views: entry views, the navigation tree, the error log and the root
//! dashboard. Every view passes through [`budget::prune`] so none exceeds the budget.

pub mod budget;
pub mod dashboard;
pub mod entry;
pub mod errors;
pub mod fit;
pub mod inert;
pub mod nav;

use crate::model::count::plural;
pub use crate::model::count::thousands;

/// A size as views show it before anyone reads the file: `24 lines, ~180 tokens`.
pub fn size_note(text: &str) -> String {
    size_note_of(text.lines().count(), text.chars().count())
}

/// [`size_note`] of a text of `lines` lines (as `str::lines` counts them) and `chars`
/// characters.
pub fn size_note_of(lines: usize, chars: usize) -> String {
    let tokens = budget::tokens_of_chars(chars);
    format!("{lines} line{}, ~{tokens} tokens", plural(lines))
}

/// `text` on one line (runs of whitespace made one space) of at most `chars` characters,
/// cut with `…`.
pub fn one_line(text: &str, chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= chars {
        line
    } else {
        let head: String = line.chars().take(chars.saturating_sub(1)).collect();
        format!("{head}…")
    }
}
