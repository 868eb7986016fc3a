//! Growing a file as a writer that keeps it open does: what a transcript followed live
//! sees when an agent appends to it.

use std::io::Write;
use std::path::Path;

/// Append `text` to the file at `path`, creating it when it is not there.
pub fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {} to append: {e}", path.display()));
    file.write_all(text.as_bytes())
        .unwrap_or_else(|e| panic!("append to {}: {e}", path.display()));
}
