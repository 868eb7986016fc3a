//! One transcript file read from disk, touching no store: only a regular file is opened
//! (a device, a fifo or a socket is refused without being opened; a fifo swapped in before
//! the open does not block it, and the open file is checked again); a file found in a
//! folder only if it is the reading user's own and no one else may write it
//! ([`super::trusted`]); a line longer than [`MAX_LINE`] refuses its file. OpenCode is
//! read by session, not by file ([`super::opencode`]).

use std::fs::{File, Metadata};
use std::path::Path;

use super::trusted::{Owner, not_regular};
use super::walk::Found;
use super::{ReadError, Reading, format_of, opencode, placed, read_counted};

/// The longest line a transcript may hold: a turn with a large tool result is a few MiB;
/// past this a "line" is no turn of a conversation (a device, a dump).
pub const MAX_LINE: usize = 64 << 20;

/// What reading one file gave, before anything of it is stored.
pub enum Read {
    /// Refused: unreadable, or bad lines.
    Refused(ReadError),
    /// Found in a directory, and no transcript format: passed over.
    NotTranscript,
    Transcript(Reading),
}

/// The reading of the open regular file `file` (of metadata `meta`) at `path`, read
/// whole, with what its place says: what live import does with formats not read by line.
pub fn read_open(file: File, meta: &Metadata, path: &Path) -> Result<Reading, ReadError> {
    let bytes = read_bounded(file, meta).map_err(ReadError::whole_file)?;
    read_counted(&bytes, &path.to_string_lossy()).map(|reading| placed(reading, path))
}

/// Reads and parses `file`; touches no store, so it runs on the reading thread. A file
/// found in a directory is read only if it is `owner`'s own, as live import reads it
/// ([`super::trusted`]); a file named on its own is read whoever owns it (the user chose it).
pub fn read_file(file: &Found, owner: &Owner) -> Read {
    // An OpenCode session is spread over many files, or is one of many in a database.
    if opencode::reads(&file.path) {
        // Its pieces are read as the file is: the owner's own when found in a directory.
        let read = opencode::read_below(None, &file.path, (!file.named).then_some(owner));
        return match read.and_then(opencode::all_read) {
            Ok(reading) => Read::Transcript(reading),
            Err(error) => Read::Refused(error),
        };
    }
    let bytes = match open_regular(&file.path, (!file.named).then_some(owner))
        .and_then(|(opened, meta)| read_bounded(opened, &meta))
    {
        Ok(bytes) => bytes,
        Err(why) => return Read::Refused(ReadError::whole_file(why)),
    };
    match read_counted(&bytes, &file.path.to_string_lossy()) {
        Ok(reading) if !file.named && reading.format.is_none() => Read::NotTranscript,
        Ok(reading) => Read::Transcript(placed(reading, &file.path)),
        // Another JSON file in a directory reads as bad generic JSONL: what it is, is
        // asked only then.
        Err(_) if !file.named && format_of(&bytes).is_none() => Read::NotTranscript,
        Err(error) => Read::Refused(error),
    }
}

/// The regular file at `path` opened for reading, or why not. A name that is no regular
/// file (a device, a fifo, a socket, also behind a link) is refused before any open; the
/// open does not block (a fifo put in its place would otherwise hang the import) and is
/// checked again on its descriptor, with `owner`'s rules when given.
fn open_regular(
    path: &Path,
    owner: Option<&Owner>,
) -> std::result::Result<(File, Metadata), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let named = std::fs::metadata(path).map_err(|e| format!("cannot read the file: {e}"))?;
    if !named.is_file() {
        return Err(not_regular(&named));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    if let Some(owner) = owner {
        owner
            .check(&meta)
            .map_err(|why| format!("not read: {why}"))?;
    }
    Ok((file, meta))
}

/// The bytes of the open regular `file`, or why not: read with no line longer than
/// [`MAX_LINE`] (refused at the first such line, having held no more than it).
fn read_bounded(file: File, meta: &Metadata) -> std::result::Result<Vec<u8>, String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(file);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    let mut line = 1;
    loop {
        let start = bytes.len();
        // At most one byte past the bound is read into a line that is too long.
        let limit = u64::try_from(MAX_LINE).unwrap_or(u64::MAX) + 1;
        let read = std::io::Read::take(&mut reader, limit)
            .read_until(b'\n', &mut bytes)
            .map_err(|e| format!("cannot read the file: {e}"))?;
        if read == 0 {
            return Ok(bytes);
        }
        let body = bytes[start..]
            .strip_suffix(b"\n")
            .unwrap_or(&bytes[start..]);
        if body.len() > MAX_LINE {
            return Err(format!(
                "line {line} is longer than {} MiB: no transcript line is that long",
                MAX_LINE >> 20
            ));
        }
        reader
            .fill_buf()
            .map_err(|e| format!("cannot read the file: {e}"))?;
        line += 1;
    }
}
