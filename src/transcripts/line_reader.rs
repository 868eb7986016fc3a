//! What a reader of a line-based format is: records read one by one, with what it learnt
//! carried from line to line — and from one part of a growing file to the next, which is
//! how [`super::stream::Stream`] reads a transcript as an agent writes it.

use super::lines::{BadLines, Line};
use super::sessions::Sessions;

/// A reader of one line-based format, carrying what it learnt from line to line.
pub trait LineReader: Send {
    /// Sees the next lines before they are read one by one: facts that lines refer to
    /// across each other (a summary naming a message by uuid).
    fn look_ahead(&mut self, _lines: &[Line<'_>]) {}

    /// Reads one record; `Err` says why the line is bad.
    fn line(&mut self, line: &Line<'_>) -> Result<(), String>;

    /// The sessions read so far, with whatever needs every line read to be settled.
    fn sessions(&mut self) -> &mut Sessions;

    /// Reads `lines` (looked ahead at first), noting bad ones in `bad`.
    fn read_all(&mut self, lines: &[Line<'_>], bad: &mut BadLines) {
        self.look_ahead(lines);
        for line in lines {
            if let Err(reason) = self.line(line) {
                bad.add(line.number, reason);
            }
        }
    }

    /// The file is complete (an import, not a file still being written): reads what was
    /// held back waiting for a later line.
    fn end(&mut self, _bad: &mut BadLines) {}

    /// The sessions, once every line is read.
    fn into_sessions(mut self) -> Sessions
    where
        Self: Sized,
    {
        std::mem::replace(self.sessions(), Sessions::new(""))
    }
}
