//! Parsed modules: the files on disk are the truth, so every access checks the file's
//! identity (size, mtime, inode, ctime) and parses again when it changed — a stale symbol
//! range is never served. What a parse yields is kept three ways: the small index of every
//! module seen, for the whole mount; the text with it for the most recently used modules;
//! and the index on disk across mounts (`parse_index.rs`), so that a remount parses only what
//! changed. Counts of parses and of indexes loaded say which was which.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::python::{ModuleIndex, index_module};
use crate::resources::source::parse_index::{Identity, ParseIndex};
use crate::tree::glance::Glance;
use crate::tree::lock;

/// Modules kept with their text at once; the index of every module is kept regardless.
const CAPACITY: usize = 1024;

/// A module read and parsed.
#[derive(Debug)]
pub struct Module {
    /// The text, when the bytes on disk are UTF-8.
    pub text: Option<String>,
    /// The bytes on disk when they are not UTF-8 (else empty: `text` holds them).
    raw: Vec<u8>,
    /// The symbols (empty when the text is not UTF-8).
    pub index: Arc<ModuleIndex>,
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

    /// Parse `bytes` (a module's content, modified at `mtime`).
    pub fn parse(bytes: Vec<u8>, mtime: SystemTime) -> Module {
        match String::from_utf8(bytes) {
            Ok(text) => {
                let index = Arc::new(index_module(&text));
                Module::of_text(text, index, mtime)
            }
            Err(e) => Module::unreadable(e, mtime),
        }
    }

    fn of_text(text: String, index: Arc<ModuleIndex>, mtime: SystemTime) -> Module {
        Module {
            text: Some(text),
            raw: Vec::new(),
            index,
            unreadable: None,
            mtime,
        }
    }

    fn unreadable(e: std::string::FromUtf8Error, mtime: SystemTime) -> Module {
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
            index: Arc::default(),
            mtime,
        }
    }
}

/// How the indexes of this mount were obtained so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub parsed: usize,
    /// Loaded from the parse index instead of parsed.
    pub loaded: usize,
}

/// The modules of a project, parsed.
#[derive(Debug)]
pub struct Modules {
    /// The index of every module seen, by path, for the version of the file it is of.
    indexes: Mutex<HashMap<PathBuf, (Identity, Arc<ModuleIndex>)>>,
    /// The most recently used modules with their text.
    recent: Mutex<Recent>,
    kept: ParseIndex,
    parsed: AtomicUsize,
    loaded: AtomicUsize,
}

impl Default for Modules {
    fn default() -> Self {
        Modules::new(ParseIndex::default())
    }
}

impl Modules {
    /// Modules kept across mounts in `kept`.
    pub fn new(kept: ParseIndex) -> Modules {
        Modules {
            indexes: Mutex::default(),
            recent: Mutex::default(),
            kept,
            parsed: AtomicUsize::new(0),
            loaded: AtomicUsize::new(0),
        }
    }

    /// Keep parses across mounts in `file` (before the first module is read).
    pub fn keep_parses_in(&self, file: PathBuf) {
        self.kept.keep_in(file);
    }

    /// The module at `path`, parsed at its current content.
    pub fn get(&self, glance: Option<&Glance>, path: &Path) -> Result<Arc<Module>> {
        let meta = stat(glance, path)?;
        let identity = Identity::of(&meta);
        if let Some(module) = lock(&self.recent).get(path, &identity) {
            return Ok(module);
        }
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let (bytes, read_at) = read(path)?;
        let module = Arc::new(match String::from_utf8(bytes) {
            Ok(text) => {
                let index = self.index_of(path, &identity, &text, read_at);
                Module::of_text(text, index, mtime)
            }
            Err(e) => Module::unreadable(e, mtime),
        });
        lock(&self.recent).put(path, identity, Arc::clone(&module));
        Ok(module)
    }

    /// The index of the module at `path`, read and parsed only when not at hand; `None`
    /// when the module is not UTF-8 (nothing to index: [`Modules::get`] says why).
    pub fn index(&self, glance: Option<&Glance>, path: &Path) -> Result<Option<Arc<ModuleIndex>>> {
        let identity = Identity::of(&stat(glance, path)?);
        if let Some(index) = self.index_at_hand(path, &identity) {
            return Ok(Some(index));
        }
        let module = self.get(glance, path)?;
        Ok(module.text.as_ref().map(|_| Arc::clone(&module.index)))
    }

    /// The index of `path` as `identity` without reading the module: in memory, or in the
    /// parse index under a stamp that vouches for it.
    fn index_at_hand(&self, path: &Path, identity: &Identity) -> Option<Arc<ModuleIndex>> {
        if let Some((seen, index)) = lock(&self.indexes).get(path)
            && seen == identity
        {
            return Some(Arc::clone(index));
        }
        Some(self.loaded_from_index(path, *identity, self.kept.by_stamp(path, identity)?))
    }

    /// Keep `index`, loaded from the parse index for `path` as `identity`, and count it.
    fn loaded_from_index(
        &self,
        path: &Path,
        identity: Identity,
        index: ModuleIndex,
    ) -> Arc<ModuleIndex> {
        let index = Arc::new(index);
        self.loaded.fetch_add(1, Ordering::Relaxed);
        lock(&self.indexes).insert(path.to_path_buf(), (identity, Arc::clone(&index)));
        index
    }

    /// Load the kept parses of those of `files` that did not change since, in one pass over
    /// the parse index; the files left to [`Modules::warm`] are returned, in order.
    pub fn load_kept(&self, files: &[PathBuf]) -> Vec<PathBuf> {
        let mut stamped: HashMap<PathBuf, crate::resources::source::parse_index::Stamped> = self
            .kept
            .stamped()
            .into_iter()
            .map(|kept| (kept.path.clone(), kept))
            .collect();
        let mut rest = Vec::new();
        for file in files {
            let mut load = || {
                let kept = stamped.remove(file)?;
                let identity = Identity::of(&stat(None, file).ok()?);
                if identity != kept.identity {
                    return None;
                }
                if let Some((seen, _)) = lock(&self.indexes).get(file)
                    && *seen == identity
                {
                    return Some(());
                }
                self.loaded_from_index(file, identity, kept.index()?);
                Some(())
            };
            if load().is_none() {
                rest.push(file.clone());
            }
        }
        rest
    }

    /// Make sure the index of the module at `path` is in memory, without keeping its text:
    /// what warming up does ahead of requests. Whether the module had to be read (its
    /// index was not at hand). A module that is not UTF-8 has nothing to index.
    pub fn warm(&self, path: &Path) -> Result<bool> {
        let identity = Identity::of(&stat(None, path)?);
        if self.index_at_hand(path, &identity).is_some() {
            return Ok(false);
        }
        let (bytes, read_at) = read(path)?;
        if let Ok(text) = std::str::from_utf8(&bytes) {
            self.index_of(path, &identity, text, read_at);
        }
        Ok(true)
    }

    /// How many modules were parsed, and how many loaded from the parse index, so far.
    pub fn counts(&self) -> Counts {
        Counts {
            parsed: self.parsed.load(Ordering::Relaxed),
            loaded: self.loaded.load(Ordering::Relaxed),
        }
    }

    /// The index of `text`, the content of `path` read at `read_at` as `identity`: from
    /// memory, else the parse index, else parsed (and kept in both).
    fn index_of(
        &self,
        path: &Path,
        identity: &Identity,
        text: &str,
        read_at: SystemTime,
    ) -> Arc<ModuleIndex> {
        if let Some((seen, index)) = lock(&self.indexes).get(path)
            && seen == identity
        {
            return Arc::clone(index);
        }
        let index = match self.kept.lookup(path, identity, text.as_bytes(), read_at) {
            Some(index) => {
                self.loaded.fetch_add(1, Ordering::Relaxed);
                index
            }
            None => {
                let index = index_module(text);
                self.parsed.fetch_add(1, Ordering::Relaxed);
                self.kept
                    .keep(path, identity, text.as_bytes(), read_at, &index);
                index
            }
        };
        let index = Arc::new(index);
        lock(&self.indexes).insert(path.to_path_buf(), (*identity, Arc::clone(&index)));
        index
    }
}

fn stat(glance: Option<&Glance>, path: &Path) -> Result<std::fs::Metadata> {
    crate::tree::glance::metadata(glance, path)
        .map_err(|e| Error::not_found(format!("{} cannot be read: {e}", path.display())))
}

/// The bytes of `path`, and the moment just before they were read (which decides whether
/// the file's mtime can tell its versions apart, see [`ParseIndex`]).
fn read(path: &Path) -> Result<(Vec<u8>, SystemTime)> {
    let read_at = SystemTime::now();
    let bytes = std::fs::read(path)
        .map_err(|e| Error::internal(format!("{} cannot be read: {e}", path.display())))?;
    Ok((bytes, read_at))
}

/// The most recently used modules with their text, at most [`CAPACITY`]: a module's text is
/// as large as its file, its index a fraction of that.
#[derive(Debug, Default)]
struct Recent {
    modules: HashMap<PathBuf, (Identity, Arc<Module>, u64)>,
    /// Advances with every use; a module's last use is when it was.
    clock: u64,
}

impl Recent {
    fn get(&mut self, path: &Path, identity: &Identity) -> Option<Arc<Module>> {
        self.clock += 1;
        let (seen, module, used) = self.modules.get_mut(path)?;
        if seen != identity {
            return None;
        }
        *used = self.clock;
        Some(Arc::clone(module))
    }

    fn put(&mut self, path: &Path, identity: Identity, module: Arc<Module>) {
        if self.modules.len() >= CAPACITY && !self.modules.contains_key(path) {
            // The least recently used eighth goes at once, so that eviction's sort is paid
            // once per CAPACITY / 8 new modules, not on every one.
            let mut uses: Vec<u64> = self.modules.values().map(|(_, _, used)| *used).collect();
            uses.sort_unstable();
            let cut = uses[CAPACITY / 8];
            self.modules.retain(|_, (_, _, used)| *used >= cut);
        }
        self.clock += 1;
        self.modules
            .insert(path.to_path_buf(), (identity, module, self.clock));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remount_loads_what_was_parsed_and_parses_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("parses.db");
        let calc = dir.path().join("calc.py");
        let other = dir.path().join("other.py");
        std::fs::write(&calc, "def add(a, b):\n    return a + b\n").unwrap();
        std::fs::write(&other, "class A:\n    pass\n").unwrap();
        let first = Modules::new(ParseIndex::new(index.clone()));
        first.warm(&calc).unwrap();
        first.warm(&calc).unwrap();
        first.warm(&other).unwrap();
        // Warmed twice, parsed once.
        assert_eq!(
            first.counts(),
            Counts {
                parsed: 2,
                loaded: 0
            }
        );

        std::fs::write(
            &calc,
            "def add(a, b):\n    return a - b\n\ndef sub():\n    pass\n",
        )
        .unwrap();
        let second = Modules::new(ParseIndex::new(index));
        let module = second.get(None, &calc).unwrap();
        assert_eq!(module.index.symbols.len(), 2);
        second.get(None, &other).unwrap();
        assert_eq!(
            second.counts(),
            Counts {
                parsed: 1,
                loaded: 1
            }
        );
    }

    #[test]
    fn a_remount_loads_the_unchanged_in_one_pass_and_leaves_the_changed() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("parses.db");
        let files: Vec<PathBuf> = ["a.py", "b.py", "c.py"]
            .iter()
            .map(|name| dir.path().join(name))
            .collect();
        // Older than a stamp's tick, so that the stamp alone vouches for their parses.
        let long_ago = SystemTime::now() - std::time::Duration::from_secs(60);
        for file in &files {
            std::fs::write(file, "def f():\n    pass\n").unwrap();
            let opened = std::fs::File::options().write(true).open(file).unwrap();
            opened.set_modified(long_ago).unwrap();
        }
        let first = Modules::new(ParseIndex::new(index.clone()));
        for file in &files {
            first.warm(file).unwrap();
        }
        std::fs::write(&files[1], "def g():\n    pass\n").unwrap();

        let second = Modules::new(ParseIndex::new(index));
        assert_eq!(second.load_kept(&files), vec![files[1].clone()]);
        assert_eq!(
            second.counts(),
            Counts {
                parsed: 0,
                loaded: 2
            }
        );
        let loaded = second.index(None, &files[0]).unwrap().unwrap();
        assert_eq!(loaded.symbols[0].file_stem, "f");
        assert_eq!(second.counts().loaded, 2, "served from memory since");
    }

    #[test]
    fn more_modules_than_kept_with_text_are_all_still_served() {
        let dir = tempfile::tempdir().unwrap();
        let modules = Modules::default();
        let paths: Vec<PathBuf> = (0..CAPACITY + 10)
            .map(|n| {
                let path = dir.path().join(format!("m{n}.py"));
                std::fs::write(&path, format!("def f{n}():\n    pass\n")).unwrap();
                path
            })
            .collect();
        for path in &paths {
            modules.get(None, path).unwrap();
        }
        // Every index stays: reading them all again parses none.
        for (n, path) in paths.iter().enumerate() {
            let module = modules.get(None, path).unwrap();
            assert_eq!(module.index.symbols[0].qualname, [format!("f{n}")]);
        }
        assert_eq!(modules.counts().parsed, CAPACITY + 10);
    }
}
