//! A followed file read on from where the last look stopped, in pieces of bounded size:
//! complete lines a batch at a time, and a line longer than the limit passed over as it
//! streams by, never held whole.
//!
//! Bound: a piece holds at most [`BATCH`] bytes plus one line of at most the limit
//! (`crate::transcripts::file::MAX_LINE` when following), and passing over a line of any
//! length holds nothing but the reader's buffer — so a file of any size, a sparse one of
//! many GiB included, is read in that much memory.

use std::io::{BufRead, BufReader, Read};

/// Complete lines gathered before they are handed on (and stored): small enough to bound
/// memory, large enough that a big file is stored in few transactions.
pub const BATCH: usize = 8 << 20;

/// The reader's buffer: what passing over a long line holds.
const BUFFER: usize = 256 << 10;

/// What the next part of the file is.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// Complete lines, each ending in `\n`.
    Lines(Vec<u8>),
    /// Part of a line longer than the limit, passed over: `bytes` of it were read now;
    /// `starts` when the line begins in this piece (it is counted, and said, once);
    /// `ended` when its line end was read (the next piece is a new line).
    Long {
        bytes: u64,
        starts: bool,
        ended: bool,
    },
    /// Nothing more now: the file ends, or only part of a line is written yet.
    End,
}

#[cfg(test)]
impl Piece {
    /// How many bytes of the file this piece covers.
    fn len(&self) -> u64 {
        match self {
            Piece::Lines(bytes) => bytes.len() as u64,
            Piece::Long { bytes, .. } => *bytes,
            Piece::End => 0,
        }
    }
}

/// A file read in [`Piece`]s from where it was left.
pub struct Pieces<R> {
    reader: BufReader<R>,
    limit: usize,
    /// Inside a long line: what follows up to its end is passed over.
    skipping: bool,
    /// Bytes of a long line already read when it was found long, with lines before it
    /// still to hand on: its piece comes next.
    found_long: Option<u64>,
}

impl<R: Read> Pieces<R> {
    /// Pieces of `file` (positioned where the last look stopped) with lines of at most
    /// `limit` bytes; `skipping` when that look stopped inside a long line.
    pub fn new(file: R, limit: usize, skipping: bool) -> Pieces<R> {
        Pieces {
            reader: BufReader::with_capacity(BUFFER, file),
            limit,
            skipping,
            found_long: None,
        }
    }

    /// Whether the last piece stopped inside a long line (to be passed over at the next
    /// look).
    pub fn skipping(&self) -> bool {
        self.skipping
    }

    /// The next piece. After [`Piece::End`] the reader may have read part of a line
    /// beyond what the pieces covered: a next look starts again from the pieces' end.
    pub fn next_piece(&mut self) -> std::io::Result<Piece> {
        if let Some(read) = self.found_long.take() {
            let (rest, ended) = self.pass_line()?;
            self.skipping = !ended;
            return Ok(Piece::Long {
                bytes: read + rest,
                starts: true,
                ended,
            });
        }
        if self.skipping {
            let (bytes, ended) = self.pass_line()?;
            self.skipping = !ended;
            return Ok(match bytes {
                0 => Piece::End,
                _ => Piece::Long {
                    bytes,
                    starts: false,
                    ended,
                },
            });
        }
        let mut lines = Vec::new();
        loop {
            let start = lines.len();
            // One byte past the limit tells a long line from one exactly at it.
            let allowed = self.limit as u64 + 1;
            let read = (&mut self.reader)
                .take(allowed)
                .read_until(b'\n', &mut lines)?;
            if lines.ends_with(b"\n") && read > 0 {
                if lines.len() >= BATCH {
                    return Ok(Piece::Lines(lines));
                }
                continue;
            }
            let long = read as u64 == allowed;
            lines.truncate(start);
            if long {
                // Its first part was read: given back to the allocator now, before the
                // rest is passed over.
                lines.shrink_to_fit();
                if lines.is_empty() {
                    let (rest, ended) = self.pass_line()?;
                    self.skipping = !ended;
                    return Ok(Piece::Long {
                        bytes: read as u64 + rest,
                        starts: true,
                        ended,
                    });
                }
                self.found_long = Some(read as u64);
            }
            return Ok(match lines.is_empty() {
                true => Piece::End,
                false => Piece::Lines(lines),
            });
        }
    }

    /// Reads on to the end of the current line without keeping it: the bytes read, and
    /// whether the line end was among them. Through `read_until`, whose search for the
    /// line end is the standard library's (fast even in a debug build), at most
    /// [`BUFFER`] bytes at a time.
    fn pass_line(&mut self) -> std::io::Result<(u64, bool)> {
        let mut passed = 0u64;
        let mut scratch = Vec::with_capacity(BUFFER);
        loop {
            scratch.clear();
            let read = (&mut self.reader)
                .take(BUFFER as u64)
                .read_until(b'\n', &mut scratch)?;
            if read == 0 {
                return Ok((passed, false));
            }
            passed += read as u64;
            if scratch.ends_with(b"\n") {
                return Ok((passed, true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], limit: usize, skipping: bool) -> Vec<Piece> {
        let mut pieces = Pieces::new(bytes, limit, skipping);
        let mut out = Vec::new();
        loop {
            let piece = pieces.next_piece().unwrap();
            if piece == Piece::End {
                return out;
            }
            out.push(piece);
        }
    }

    fn lines(text: &str) -> Piece {
        Piece::Lines(text.as_bytes().to_vec())
    }

    #[test]
    fn complete_lines_come_whole_and_a_line_being_written_waits() {
        assert_eq!(all(b"a\nbb\ncc", 4, false), [lines("a\nbb\n")]);
        assert_eq!(all(b"", 4, false), []);
        // A line exactly at the limit is a line; one byte more is a long one.
        assert_eq!(all(b"abcd\n", 4, false), [lines("abcd\n")]);
        assert_eq!(
            all(b"abcde\nok\n", 4, false),
            [
                Piece::Long {
                    bytes: 6,
                    starts: true,
                    ended: true
                },
                lines("ok\n")
            ]
        );
    }

    #[test]
    fn a_long_line_is_passed_over_between_the_lines_around_it() {
        let text = format!("a\n{}\nb\n", "x".repeat(3 * BUFFER));
        let pieces = all(text.as_bytes(), 16, false);
        assert_eq!(
            pieces,
            [
                lines("a\n"),
                Piece::Long {
                    bytes: 3 * BUFFER as u64 + 1,
                    starts: true,
                    ended: true
                },
                lines("b\n")
            ]
        );
        let covered: u64 = pieces.iter().map(Piece::len).sum();
        assert_eq!(covered, text.len() as u64);
    }

    #[test]
    fn a_long_line_still_being_written_is_passed_over_across_looks() {
        let mut first = Pieces::new(&b"ok\nxxxxxxxxxx"[..], 4, false);
        assert_eq!(first.next_piece().unwrap(), lines("ok\n"));
        assert_eq!(
            first.next_piece().unwrap(),
            Piece::Long {
                bytes: 10,
                starts: true,
                ended: false
            }
        );
        assert!(first.skipping());
        assert_eq!(first.next_piece().unwrap(), Piece::End);
        // The next look starts inside it: the rest up to its end is passed over, once.
        assert_eq!(
            all(b"xxx\nnext\n", 4, true),
            [
                Piece::Long {
                    bytes: 4,
                    starts: false,
                    ended: true
                },
                lines("next\n")
            ]
        );
        assert_eq!(all(b"", 4, true), []);
    }

    #[test]
    fn lines_come_in_batches() {
        let line = format!("{}\n", "y".repeat(1 << 20));
        let text = line.repeat(BATCH / line.len() + 3);
        let pieces = all(text.as_bytes(), 2 << 20, false);
        assert_eq!(pieces.len(), 2);
        assert!(
            pieces
                .iter()
                .all(|p| p.len() as usize <= BATCH + line.len())
        );
    }
}
