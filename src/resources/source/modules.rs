//! Parsed modules, cached by (path, modification time, size): the files on disk are the
//! truth, so every access checks the file's metadata and re-parses when it changed — a
//! stale symbol range is never served. The cache is bounded; evicting only costs a parse.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::python::{ModuleIndex, index_module};
use crate::tree::lock;

/// Modules kept parsed at once.
const CAPACITY: usize = 1024;

/// A module read and parsed.
#[derive(Debug)]
pub struct Module {
    /// The text, when the bytes on disk are UTF-8.
    pub text: Option<String>,
    /// The bytes on disk when they are not UTF-8 (else empty: `text` holds them).
    raw: Vec<u8>,
    /// The symbols (empty when the text is not UTF-8).
    pub index: ModuleIndex,
    /// Why the module could not be read as Python text, if so.
    pub unreadable: Option<String>,
    pub mtime: SystemTime,
}

impl Module {
    /// The exact bytes on disk.
    pub fn bytes(&self) -> &[u8] {
        self.text
            .as_ref()
            .map(String::as_bytes)
            .unwrap_or(&self.raw)
    }

    /// Lines of the module.
    pub fn lines(&self) -> usize {
        self.bytes()
            .split(|&b| b == b'\n')
            .count()
            .saturating_sub(usize::from(self.bytes().ends_with(b"\n")))
    }

    /// The module source as text, or an error saying why it cannot have symbols.
    pub fn text(&self) -> Result<&str> {
        self.text.as_deref().ok_or_else(|| {
            Error::invalid(
                self.unreadable
                    .clone()
                    .unwrap_or_else(|| "not UTF-8".into()),
            )
        })
    }
}

/// What identifies a version of a file: modification time, size, inode number (an atomic
/// write by rename gives a new one) and change time — two writes of the same size within
/// one mtime tick still differ.
type Stamp = (SystemTime, u64, u64, i64, i64);

/// The cache of parsed modules.
#[derive(Debug, Default)]
pub struct Modules {
    parsed: Mutex<HashMap<PathBuf, (Stamp, Arc<Module>)>>,
}

impl Modules {
    /// The module at `path`, parsed at its current content.
    pub fn get(&self, path: &Path) -> Result<Arc<Module>> {
        let meta = std::fs::metadata(path)
            .map_err(|e| Error::not_found(format!("{} cannot be read: {e}", path.display())))?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
            meta.ino(),
            meta.ctime(),
            meta.ctime_nsec(),
        );
        if let Some((seen, module)) = lock(&self.parsed).get(path)
            && *seen == stamp
        {
            return Ok(Arc::clone(module));
        }
        let bytes = std::fs::read(path)
            .map_err(|e| Error::internal(format!("{} cannot be read: {e}", path.display())))?;
        let module = Arc::new(Module::parse(bytes, stamp.0));
        let mut parsed = lock(&self.parsed);
        if parsed.len() >= CAPACITY {
            parsed.clear();
        }
        parsed.insert(path.to_path_buf(), (stamp, Arc::clone(&module)));
        Ok(module)
    }
}

impl Module {
    /// Parse `bytes` (a module's content, modified at `mtime`).
    pub fn parse(bytes: Vec<u8>, mtime: SystemTime) -> Module {
        match String::from_utf8(bytes) {
            Ok(text) => {
                let index = index_module(&text);
                Module {
                    text: Some(text),
                    raw: Vec::new(),
                    index,
                    unreadable: None,
                    mtime,
                }
            }
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                Module {
                    unreadable: Some(format!(
                        "the file is not UTF-8 (byte 0x{:02x} on line {line}), so it has no symbols here; \
                     its exact bytes are still readable",
                        bytes.get(at).copied().unwrap_or(0)
                    )),
                    raw: bytes,
                    text: None,
                    index: ModuleIndex::default(),
                    mtime,
                }
            }
        }
    }
}
