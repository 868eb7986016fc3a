//! A module's members directory as its package lists it (`source/pkg/mod`) is a symbolic
//! link to the module's dotted name (`../pkg.mod`), which is never listed. So `ls`, `cd`,
//! `cat pkg/mod/Class.py` and a file manager go through it, while recursive walkers —
//! `grep -r`, `ls -R`, `find`, `du`, `tar` — do not follow it: they see the project's own
//! files once, at the disk's cost, instead of every symbol a second time beside its module
//! (each hit printed twice, and every module parsed on the first `grep -r`).
//!
//! The dotted name is the directory's own name: paths under it are no aliases, so the
//! kernel keeps them like any other. A module at the top of the project (`six.py`) has no
//! dotted name other than its own: its directory is `.six`, hidden like a dotfile.

use crate::error::Result;
use crate::model::TreePath;
use crate::resources::source::places::Places;
use crate::resources::source::places::paths::{self, Resolved, Walked};
use crate::tree::glance::Glance;

impl Places {
    /// The target of the link at `path`, when `path` is a module's members directory as
    /// its package (or source/) lists it; `None` for everything else.
    pub(crate) fn link_at(&self, path: &[&str]) -> Result<Option<String>> {
        let Some((name, parent)) = path.split_last() else {
            return Ok(None);
        };
        // A link's name is a module's, without a dot: every read of a `.py` file asks
        // here first, and must not pay a walk of its folder for it.
        if name.is_empty() || name.contains('.') {
            return Ok(None);
        }
        let parent = match self.walk(None, parent) {
            Ok(walked) => walked.place,
            Err(_) => return Ok(None),
        };
        Ok(self
            .module_of_members_dir(None, &parent, name)
            .map(|_| link_target(path)))
    }

    /// `path` as listings spell it when it starts with a module's own directory (`pkg.mod/x`
    /// is `pkg/mod/x`, `.six` is `six`); `None` when it is spelled so already, or starts
    /// with another dotted name (`pkg.mod.f.py` stays as written).
    pub(crate) fn shown_as(&self, glance: Option<&Glance>, path: &[&str]) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let root = self.walk(glance, &[]).ok()?;
        self.canonical_members(glance, &root, first).ok()??;
        let mut shown: Vec<String> = match first.strip_prefix('.') {
            // `.history` is no other name of a listed `history`: that is source/'s own.
            Some(_) if paths::project_name_of(first).is_some() => return None,
            Some(top) => vec![top.to_string()],
            None => {
                let names: Vec<&str> = first.split('.').collect();
                // `deps.x` is listed as `.deps/x` when source/ keeps `deps` for itself.
                paths::spelled_at_top(&names.join("/"))
                    .split('/')
                    .map(str::to_string)
                    .collect()
            }
        };
        shown.extend(rest.iter().map(|n| n.to_string()));
        Some(shown)
    }

    /// `path` as listed (see [`Places::shown_as`]), or as it is: what a write's messages
    /// name, so that they speak of the path the writer used, not where its link led.
    pub(crate) fn listed(&self, path: &[&str]) -> Vec<String> {
        self.shown_as(None, path)
            .unwrap_or_else(|| path.iter().map(|n| n.to_string()).collect())
    }

    /// `first` walked from `source/` when it is a module's own dotted directory (`pkg.mod`,
    /// `.six`): where its links lead, with paths under it that are no aliases.
    pub(crate) fn canonical_members(
        &self,
        glance: Option<&Glance>,
        root: &Walked,
        first: &str,
    ) -> Result<Option<Walked>> {
        let spelled = match first.strip_prefix('.') {
            Some(top) if !top.contains('.') && !top.is_empty() => top,
            Some(_) => return Ok(None),
            None if first.contains('.') && !first.ends_with(".py") => first,
            None => return Ok(None),
        };
        let Ok(mut walked) = self.walk_on(glance, root.clone(), &[spelled]) else {
            return Ok(None);
        };
        if !matches!(walked.place, Resolved::Members { parent: None, .. }) {
            return Ok(None);
        }
        walked.aliased = false;
        Ok(Some(walked))
    }
}

/// `../../pkg.sub.mod` for the link `pkg/sub/mod`; `.six` for the link `six` at the top;
/// `../deps.x` for the link `.deps/x` in the project's package `deps` (spelled `.deps`
/// beside source/'s own `deps/`).
pub(crate) fn link_target(path: &[&str]) -> String {
    match path {
        [top] => format!(".{top}"),
        [first, rest @ ..] => {
            let first = paths::project_name_of(first).unwrap_or(first);
            format!("{}{first}.{}", "../".repeat(path.len() - 1), rest.join("."))
        }
        [] => String::new(),
    }
}

/// The other spellings of the paths from `source/` at and under `path`: the dotted
/// directories of the modules at or under it (`pkg/mod/Class.py` is also
/// `pkg.mod/Class.py`, and a package `pkg` holds every `pkg.*`), as prefixes of tree paths
/// (see [`crate::tree::resource::Resource::spellings`]).
pub(crate) fn spellings(mounted_as: &str, path: &[&str]) -> Vec<String> {
    let mut names: Vec<&str> = path.to_vec();
    if let Some(last) = names.last_mut() {
        *last = last.strip_suffix(".py").unwrap_or(last);
    }
    let mut out = Vec::new();
    if let [top] = names.as_slice() {
        out.push(TreePath::from_names([mounted_as, &format!(".{top}")]).to_string());
    }
    // The project's package `deps` is `.deps/` beside source/'s own `deps/`.
    if let [first, rest @ ..] = path
        && !rest.is_empty()
        && paths::package_spelled_with_dot(first)
    {
        let mut spelled = TreePath::from_names([mounted_as, &format!(".{first}")]);
        for name in rest {
            spelled.push(name);
        }
        out.push(spelled.to_string());
    }
    for split in 1..=names.len() {
        let dotted = names[..split].join(".");
        let mut spelled = TreePath::from_names([mounted_as, &dotted]);
        for name in &path[split..] {
            spelled.push(name);
        }
        if split == names.len() {
            // The modules of a package: `pkg.` is the start of every `pkg.mod`.
            out.push(format!("{spelled}."));
        }
        if split > 1 {
            out.push(spelled.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_climbs_to_source_and_names_the_module_dotted() {
        assert_eq!(link_target(&["ledger", "accounts"]), "../ledger.accounts");
        assert_eq!(link_target(&["pkg", "sub", "mod"]), "../../pkg.sub.mod");
        assert_eq!(link_target(&["tests", "test_x"]), "../tests.test_x");
        assert_eq!(link_target(&["six"]), ".six");
        assert_eq!(link_target(&[".deps", "x"]), "../deps.x");
    }

    #[test]
    fn a_change_is_also_spelled_with_the_dotted_directories() {
        let spelled = spellings("source", &["pkg", "mod.py"]);
        assert!(
            spelled.contains(&"source/pkg.mod".to_string()),
            "{spelled:?}"
        );
        assert!(
            spelled.contains(&"source/pkg.mod.".to_string()),
            "{spelled:?}"
        );
        let inner = spellings("source", &["pkg", "mod", "Class.py"]);
        assert!(
            inner.contains(&"source/pkg.mod/Class.py".to_string()),
            "{inner:?}"
        );
        let own = spellings("source", &["deps", "x", "f.py"]);
        assert!(own.contains(&"source/.deps/x/f.py".to_string()), "{own:?}");
        let package = spellings("source", &["pkg"]);
        assert!(package.contains(&"source/pkg.".to_string()), "{package:?}");
        assert!(package.contains(&"source/.pkg".to_string()), "{package:?}");
    }
}
