//! The folders a dotted name passes on its own way. `pkg.mod.Sym.py` is
//! `pkg/mod/Sym.py`, but the kernel walks only the name it was given: it checks that the
//! caller may pass `source/`, never `pkg/` or the members folder `mod/` (which shows the
//! module's modes). The tree checks these itself ([`crate::tree::Space::lookup`]), so
//! that a dotted name answers every caller exactly as its nested path would. A name a
//! package re-exports passes the folders of the module that defines it, where its path
//! leads.

use crate::model::Ownership;
use crate::resources::source::places::Places;
use crate::resources::source::places::paths::{Resolved, split_dotted};

impl Places {
    /// The folders `path` passes when it is spelled otherwise than its nested path, from
    /// the top down: those the nested path passes to reach the folder holding its last
    /// name (whether that name is there or not: the kernel refuses at the first folder it
    /// may not pass), and those above where it leads (a re-exported name leads into the
    /// module that defines it). Empty for a path spelled as nested.
    pub(crate) fn crossed(&self, path: &[&str]) -> Vec<Ownership> {
        // Only a dotted name or a module's own hidden folder is spelled otherwise; every
        // `.py` name has a dot, so this asks whether the name splits.
        let dotted = |name: &&str| name.starts_with('.') || split_dotted(name).len() > 1;
        if !path.iter().any(dotted) {
            return Vec::new();
        }
        let mut folders = self.passed_to_last(path);
        if let Ok(walked) = self.walk(None, path) {
            folders.extend(self.folders_to(&walked.place, false));
        }
        folders
    }

    /// The folders the nested path of `path` passes to reach the folder that holds its
    /// last name, and that folder; as far as they exist.
    fn passed_to_last(&self, path: &[&str]) -> Vec<Ownership> {
        let Some((last, parent)) = path.split_last() else {
            return Vec::new();
        };
        let parts = split_dotted(last);
        let mut holder: Vec<&str> = parent.to_vec();
        holder.extend(parts[..parts.len() - 1].iter().map(String::as_str));
        match self.walk(None, &holder) {
            Ok(walked) => self.folders_to(&walked.place, true),
            // Not there: the nested path stops where it does, after the folders before.
            Err(_) => self.passed_to_last(&holder),
        }
    }

    /// The project folders above `place`, and `place` itself when `entering` it; a symbol
    /// or a class's members also pass their module's file, whose modes their members
    /// folders show.
    fn folders_to(&self, place: &Resolved, entering: bool) -> Vec<Ownership> {
        let (disk, itself) = match place {
            Resolved::Symbol { disk, .. } => (disk, true),
            Resolved::Members { disk, inner, .. } => (disk, entering || !inner.is_empty()),
            Resolved::Dir { disk, .. } => (disk, entering),
            Resolved::ModuleFile { disk, .. } | Resolved::DataFile { disk } => (disk, false),
            Resolved::Root | Resolved::TestsRoot => return Vec::new(),
        };
        let project = &self.project;
        let top = |folder: &std::path::Path| {
            folder == project.root
                || project.code_roots.iter().any(|r| r == folder)
                || !folder.starts_with(&project.root)
        };
        let mut folders: Vec<Ownership> = disk
            .ancestors()
            .skip(1)
            .take_while(|folder| !top(folder))
            .map(|folder| crate::resources::source::disk::ownership(None, folder))
            .collect();
        folders.reverse();
        if itself {
            folders.push(crate::resources::source::disk::ownership(None, disk));
        }
        folders
    }
}
