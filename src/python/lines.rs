//! Where the lines of a text start, and where an offset falls: the one notion of a line
//! (ended by `\n`, `\r\n` or a lone `\r`, like Python) that dedent, the symbol index and
//! error locations share.
//!
//! The bottom layer of `python/`, beside `index.rs`: it knows text, nothing of Python.

use std::ops::Range;

/// Where the lines of a text start. Line breaks are `\n`, `\r\n` and a lone `\r`.
#[derive(Debug, Clone)]
pub struct LineTable {
    /// Start of every line; a text ending in a line break has no empty last line here.
    starts: Vec<usize>,
    text_len: usize,
    ends_with_break: bool,
}

impl LineTable {
    pub fn new(text: &str) -> LineTable {
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
        if !bytes.is_empty() {
            starts.push(0);
        }
        for (at, &byte) in bytes.iter().enumerate() {
            if byte > b'\r' {
                continue;
            }
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
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    pub(super) fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.text_len)
    }

    pub fn line_range(&self, line: usize) -> Range<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_table_knows_all_three_line_breaks() {
        let text = "a\nb\r\nc\rd";
        let table = LineTable::new(text);
        let lines: Vec<&str> = table.lines(text).collect();
        assert_eq!(lines, ["a\n", "b\r\n", "c\r", "d"]);
        assert_eq!(table.line_of(3), 1);
        assert_eq!(table.line_end_after(3), 5);
        assert_eq!(table.line_end_after(2), 2);
        assert_eq!(LineTable::new("x\n").len(), 1);
        assert_eq!(LineTable::new("").len(), 0);
        assert_eq!(LineTable::new("\n\n").len(), 2);
    }
}
