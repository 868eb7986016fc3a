//! Dedent and re-indent: turning a symbol's lines into a standalone file and back, exactly.
//!
//! The rule, one line at a time (a line ends after `\n`, `\r\n` or a lone `\r`, like Python):
//! - a whitespace-only line is kept verbatim;
//! - a line that begins inside a multi-line string (a continuation line of a triple-quoted
//!   string or f-string) is kept verbatim, because its leading spaces are string content;
//! - every other line loses (dedent) or gains (re-indent) exactly the symbol's indentation.
//!
//! If some other line does not start with the indentation (a comment or a bracket
//! continuation further left than the `def`), stripping cannot be undone from the text alone.
//! Such a symbol is not dedented at all: its file is the range verbatim, still indented, and
//! [`reindent`] recognises that form (its first code line already starts with the indentation)
//! and leaves it alone. So `reindent(&symbol_text(source, sym), &sym.indent)` is
//! `source[sym.range]` byte for byte, for every symbol `index_module` returns.

use std::ops::Range;

use super::parse;
use super::symbols::Symbol;

/// The symbol's file: `source[sym.range]` dedented by `sym.indent`, or verbatim when
/// `sym.exact_dedent` is false. `sym` must come from `index_module(source)`; for anything
/// else the result is unspecified (but this never panics).
pub fn symbol_text(source: &str, sym: &Symbol) -> String {
    let text = source.get(sym.range.clone()).unwrap_or("");
    if !sym.exact_dedent {
        return text.to_string();
    }
    dedent(text, &sym.indent, &sym.string_lines).unwrap_or_else(|| text.to_string())
}

/// The inverse of [`symbol_text`]: prefixes `indent` to every line that is neither
/// whitespace-only nor inside a multi-line string, finding the strings by lexing `text`
/// itself (so it works on text someone wrote). Text whose first code line already starts
/// with `indent` is returned unchanged.
pub fn reindent(text: &str, indent: &str) -> String {
    if indent.is_empty() || first_code_line(text).is_some_and(|line| line.starts_with(indent)) {
        return text.to_string();
    }
    let table = LineTable::new(text);
    let in_string = table.lines_in_strings(&parse::multiline_string_spans(text));
    let mut out = String::with_capacity(text.len() + indent.len() * table.len());
    for (number, line) in table.lines(text).enumerate() {
        let keep = is_blank(line) || in_string.get(number).copied().unwrap_or(false);
        if !keep {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

/// Whether [`dedent`] succeeds: every line that is not blank and not in a string (by the
/// relative `string_lines`) starts with `indent`.
pub(super) fn can_dedent(text: &str, indent: &str, string_lines: &[Range<usize>]) -> bool {
    indent.is_empty()
        || LineTable::new(text)
            .lines(text)
            .enumerate()
            .all(|(number, line)| {
                is_blank(line) || in_runs(string_lines, number) || line.starts_with(indent)
            })
}

/// Strips `indent` from every line that is not blank and not in `string_lines`; `None` if
/// one of those lines does not start with it.
fn dedent(text: &str, indent: &str, string_lines: &[Range<usize>]) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for (number, line) in LineTable::new(text).lines(text).enumerate() {
        if is_blank(line) || in_runs(string_lines, number) {
            out.push_str(line);
        } else {
            out.push_str(line.strip_prefix(indent)?);
        }
    }
    Some(out)
}

fn in_runs(runs: &[Range<usize>], line: usize) -> bool {
    runs.iter().any(|run| run.contains(&line))
}

/// Only spaces, tabs, form feeds and the line break. Python ignores such lines' indentation.
fn is_blank(line: &str) -> bool {
    line.bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n'))
}

/// The first line that is neither blank nor a comment: the decorator or `def`/`class` line.
fn first_code_line(text: &str) -> Option<&str> {
    let table = LineTable::new(text);
    table
        .lines(text)
        .find(|line| !is_blank(line) && !line.trim_start().starts_with('#'))
}

/// Where the lines of a text start. Line breaks are `\n`, `\r\n` and a lone `\r`.
#[derive(Debug, Clone)]
pub(super) struct LineTable {
    /// Start of every line; a text ending in a line break has no empty last line here.
    starts: Vec<usize>,
    text_len: usize,
    ends_with_break: bool,
}

impl LineTable {
    pub(super) fn new(text: &str) -> LineTable {
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
        if !bytes.is_empty() {
            starts.push(0);
        }
        for (at, &byte) in bytes.iter().enumerate() {
            let is_break = byte == b'\n' || (byte == b'\r' && bytes.get(at + 1) != Some(&b'\n'));
            if is_break && at + 1 < bytes.len() {
                starts.push(at + 1);
            }
        }
        LineTable {
            starts,
            text_len: bytes.len(),
            ends_with_break: matches!(bytes.last(), Some(b'\n' | b'\r')),
        }
    }

    /// Number of lines.
    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The lines of `text` (which must be the text this table was built from), each with
    /// its line break.
    pub(super) fn lines<'t>(&self, text: &'t str) -> impl Iterator<Item = &'t str> {
        (0..self.len()).map(move |line| text.get(self.line_range(line)).unwrap_or(""))
    }

    /// 0-based line containing `offset`; offsets past the end belong to the last line.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    pub(super) fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.text_len)
    }

    pub(super) fn line_range(&self, line: usize) -> Range<usize> {
        self.line_start(line)..self.line_start(line + 1)
    }

    /// The end (after the line break) of the line holding the byte just before `offset`.
    pub(super) fn line_end_after(&self, offset: usize) -> usize {
        if offset == 0 {
            return 0;
        }
        self.line_start(self.line_of(offset - 1) + 1)
    }

    /// 1-based line and 1-based column in chars. An offset at the end of a text that ends
    /// with a line break is on the (empty) line after it.
    pub(super) fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        if offset >= self.text_len && (self.ends_with_break || self.starts.is_empty()) {
            return (self.len() + 1, 1);
        }
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let mut end = offset.min(self.text_len);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let column = text
            .get(start..end)
            .map_or(0, |before| before.chars().count());
        (line + 1, column + 1)
    }

    /// For every line, whether it begins strictly inside one of `spans` (sorted, disjoint).
    pub(super) fn lines_in_strings(&self, spans: &[Range<usize>]) -> Vec<bool> {
        let mut flags = vec![false; self.len()];
        for span in spans {
            let first = self.starts.partition_point(|&start| start <= span.start);
            for (line, &start) in self.starts.iter().enumerate().skip(first) {
                if start >= span.end {
                    break;
                }
                flags[line] = true;
            }
        }
        flags
    }
}
