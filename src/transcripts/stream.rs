//! Reading a line-based transcript as it grows: a [`Stream`] is given the file's complete
//! lines part by part (all at once for an import, each new part as an agent appends it for
//! live import) and hands out what each part added.
//!
//! Guarantees: reading a file in parts gives the entries, keys and sessions that reading it
//! whole gives, with two documented exceptions that need lines not yet written — a Claude
//! Code summary naming a uuid that comes later goes to the file's first session, and a
//! Codex rollout's message events count as entries until its first message item. The
//! format is decided by the first record that only one format writes; until one does,
//! nothing is read (a follower offers the same lines again with the next part).

use crate::model::transcript::Transcript;

use super::line_reader::LineReader;
use super::lines::{BadLines, records_from};
use super::reading::{Format, ReadError};
use super::recognise::format_of_record;
use super::{claude, codex, generic};

/// One file read part by part.
pub struct Stream {
    file_name: String,
    /// The number of the next line to be given.
    next_line: usize,
    format: Option<Format>,
    reader: Option<Box<dyn LineReader>>,
}

/// What one part of a file gave.
#[derive(Debug)]
pub struct Part {
    pub transcript: Transcript,
    /// Records passed over (kinds the format does not use, repeats, no text).
    pub ignored: usize,
    /// The lines of this part that are bad, with why (the first [`super::MAX_LISTED`],
    /// and how many more).
    pub bad: ReadError,
    /// Whether the lines were read; false when no line yet said which format the file
    /// is, so the same lines must be given again with more.
    pub read: bool,
}

impl Stream {
    /// A stream over the file named `file_name` (it names sessions and titles the
    /// content does not).
    pub fn new(file_name: &str) -> Stream {
        Stream {
            file_name: file_name.to_string(),
            next_line: 1,
            format: None,
            reader: None,
        }
    }

    /// The format decided so far.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Reads `bytes`, the file's next complete lines; a format read whole
    /// ([`Format::reads_by_line`]) is only said (`read` false, [`Stream::format`] set). `undecided` is the format to read
    /// them as when none of their records decides one (an import reads such a file as
    /// generic JSONL so that its bad lines say what is wrong; a follower waits).
    pub fn read(&mut self, bytes: &[u8], undecided: Option<Format>) -> Part {
        let mut bad = BadLines::default();
        let lines = records_from(bytes, self.next_line, &mut bad);
        if self.reader.is_none() {
            let decided = lines.iter().find_map(|line| format_of_record(&line.object));
            match decided.or(undecided) {
                // Read whole by its own reader: said, and nothing read here.
                Some(format) if !format.reads_by_line() => {
                    self.format = Some(format);
                    return Part::unread();
                }
                Some(format) => {
                    self.format = decided;
                    self.reader = Some(reader_for(format, &self.file_name));
                }
                // Records, none of a known format: left for a later look with more.
                None if !lines.is_empty() => return Part::unread(),
                // Only blank or bad lines: read, and said.
                None => {
                    self.count_lines(bytes);
                    let mut part = Part::unread();
                    part.bad = bad.into_error();
                    part.read = true;
                    return part;
                }
            }
        }
        self.count_lines(bytes);
        let Some(reader) = self.reader.as_mut() else {
            return Part::unread();
        };
        reader.read_all(&lines, &mut bad);
        Part::taken(reader.as_mut(), &self.file_name, bad)
    }
}

impl Stream {
    /// The file is complete: what its reader held back for a later line (a chat of
    /// preamble only) is read now.
    pub fn finish(&mut self) -> Part {
        let Some(reader) = self.reader.as_mut() else {
            return Part::unread();
        };
        let mut bad = BadLines::default();
        reader.end(&mut bad);
        Part::taken(reader.as_mut(), &self.file_name, bad)
    }

    /// Passes over the next line without reading it (too long to hold): its number.
    pub fn skip_line(&mut self) -> usize {
        self.next_line += 1;
        self.next_line - 1
    }

    /// Moves the number of the next line past `bytes`.
    fn count_lines(&mut self, bytes: &[u8]) {
        self.next_line += bytes.iter().filter(|&&b| b == b'\n').count();
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            self.next_line += 1;
        }
    }
}

impl Part {
    /// What `reader` read since the last part was taken, with the lines found `bad`.
    fn taken(reader: &mut dyn LineReader, file_name: &str, bad: BadLines) -> Part {
        let sessions = reader.sessions();
        let ignored = std::mem::take(&mut sessions.ignored);
        Part {
            transcript: sessions.take(file_name),
            ignored,
            bad: bad.into_error(),
            read: true,
        }
    }

    fn unread() -> Part {
        Part {
            transcript: Transcript::default(),
            ignored: 0,
            bad: BadLines::default().into_error(),
            read: false,
        }
    }
}

/// The reader of a format that reads by line ([`Format::reads_by_line`]); generic JSONL
/// for the others, which never come here.
fn reader_for(format: Format, file_name: &str) -> Box<dyn LineReader> {
    match format {
        Format::ClaudeCode => Box::new(claude::Reader::new()),
        Format::Codex => Box::new(codex::Reader::new(file_name)),
        Format::Jsonl | Format::GeminiCli | Format::Aider | Format::OpenCode => {
            Box::new(generic::Reader::new(file_name))
        }
    }
}
