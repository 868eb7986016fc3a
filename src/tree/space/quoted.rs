//! What a failure's message may quote, as modes to read it by: the file the failure is
//! about and every folder on its way there, and each file a traceback in the message names
//! (`File "/…/vault.py", line 3`: the next line is that file's text) with the folders above
//! it inside the project. The error log shows a message only in views whose every reader
//! may read all of these (see [`crate::tree::errlog`]): a refused edit of a private module
//! quotes its lines, and the view of its folder, or `_errors.md`, must not.

use std::path::{Path, PathBuf};

use crate::model::{Ownership, TreePath};
use crate::tree::Space;
use crate::tree::access::Perm;

impl Space {
    /// The modes of everything a failure of `path` with `message` may quote.
    pub(super) fn quoted(&self, path: &TreePath, message: &str) -> Vec<Perm> {
        let mut quotes = Vec::new();
        // The path and the folders on its way as `stat` shows them (a module's members
        // folder, reached through its link, has the module's modes).
        let names: Vec<&str> = path.names().collect();
        let mut at = TreePath::root();
        for (n, name) in names.iter().enumerate() {
            at.push(name);
            let Ok(node) = self.stat(&at) else {
                break;
            };
            let perm = self.perm_of(&node);
            quotes.push(match n + 1 == names.len() {
                true => perm,
                false => perm.as_dir().passing_as_reading(),
            });
        }
        let project = Path::new(&self.project.path);
        let named = named_files(message);
        // A traceback, or an import check's failure, that names no file (the checker
        // keeps only a traceback's last lines) may quote any module: unsure, so shown only
        // in views no one else reads.
        if named.is_empty() && (message.contains("Traceback") || message.contains("importing ")) {
            quotes.push(UNKNOWN);
        }
        for file in named {
            let Ok(meta) = std::fs::metadata(&file) else {
                continue;
            };
            quotes.push(self.perm_of_ownership(Ownership::of(&meta)));
            // Folders outside the project are the system's and the interpreter's, not what
            // the mount shows.
            let folders = file.ancestors().skip(1);
            for folder in folders.take_while(|f| f.starts_with(project) && *f != project) {
                if let Ok(meta) = std::fs::metadata(folder) {
                    let perm = self.perm_of_ownership(Ownership::of(&meta));
                    quotes.push(perm.passing_as_reading());
                }
            }
        }
        quotes
    }
}

/// The modes of a file no reader is known to be allowed: what an unsure quote counts as.
const UNKNOWN: Perm = Perm {
    uid: u32::MAX,
    gid: u32::MAX,
    mode: 0,
};

/// The files a Python traceback in `message` names (`  File "/p/vault.py", line 3, in
/// <module>`), whose lines it may quote.
pub(crate) fn named_files(message: &str) -> Vec<PathBuf> {
    message
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("File \""))
        .filter_map(|rest| rest.split_once("\", line ").map(|(file, _)| file))
        .filter(|file| file.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_names_the_files_whose_lines_it_quotes() {
        let message = "importing ledger.journal failed after the edit:\n\
                       Traceback (most recent call last):\n  \
                       File \"/p/src/ledger/journal.py\", line 2, in <module>\n    \
                       from ledger import vault\n  \
                       File \"/p/src/ledger/vault.py\", line 1, in <module>\n    \
                       raise KeyError('PLANTED')\n\
                       KeyError: 'PLANTED'\n  File \"<string>\", line 1\n";
        assert_eq!(
            named_files(message),
            [
                PathBuf::from("/p/src/ledger/journal.py"),
                PathBuf::from("/p/src/ledger/vault.py")
            ]
        );
        assert!(named_files("write refused: File \"x\" is odd").is_empty());
    }

    #[test]
    fn a_traceback_cut_before_its_files_is_quoted_nowhere_others_read() {
        let space = crate::tree::space::tests::plain_space();
        let cut = "importing ledger.vault failed after the edit, so the edit was undone:\n\
                   raise KeyError('PLANTED')\nKeyError: 'PLANTED'";
        let public = Perm {
            uid: 0,
            gid: 0,
            mode: 0o644,
        };
        let quoted = space.quoted(&TreePath::root(), cut);
        assert!(
            quoted
                .iter()
                .any(|perm| !perm.readable_by_readers_of(public)),
            "{quoted:?}"
        );
        let plain = space.quoted(&TreePath::root(), "task 3 was not saved: no title");
        assert!(plain.iter().all(|perm| perm.readable_by_readers_of(public)));
    }
}
