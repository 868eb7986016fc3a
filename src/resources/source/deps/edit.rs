//! Changing dependencies through `source/deps/`: a package's file written (its
//! requirements set), removed, an extra or group made or removed. Each is validated whole
//! first — every line a PEP 508 requirement naming the file's package — then made as one
//! [`ProjectChange`] of pyproject.toml: locked against other edits of it, checked against
//! what the writer saw, written atomically, recorded in `source/history/` (and so undone
//! like any edit). A refused change writes nothing.

use super::{DEPS, editable, file_text, list_dir};
use crate::error::{Error, ErrorKind, Result};
use crate::model::count::plural;
use crate::pyproject::deps::{self, ListId, Manifest};
use crate::pyproject::requirement::{self, Requirement};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::conflict;
use crate::resources::source::edit::pyproject_change::{Pyproject, broken, change_pyproject};
use crate::resources::source::places::in_tree::tree_path;

/// Sets package `name`'s requirements in list `id` to the lines of `content`.
pub(super) fn write(
    editor: &Editor,
    id: &ListId,
    name: &str,
    content: &[u8],
    base: Option<&[u8]>,
) -> Result<()> {
    let shown = shown(id, name);
    let requirements = parse_file(content, name, &shown)?;
    change(
        editor,
        id,
        &format!("set {name} in {id}"),
        |text, manifest| {
            if let Some(base) = base {
                let now = manifest.list(id).and_then(|l| file_text(l, name));
                if now.as_deref().map(str::as_bytes) != Some(base) {
                    return Err(conflict(&shown));
                }
            }
            deps::set(text, id, name, &requirements).map_err(Error::invalid)
        },
    )
}

/// Whether a file for package `name` may be made in list `id`.
pub(super) fn can_create(editor: &Editor, id: &ListId, name: &str) -> Result<()> {
    check_name(name, &shown(id, name))?;
    let manifest = read(editor)?;
    writable(editor, &manifest, id)?;
    if *id != ListId::Main && manifest.list(id).is_none() {
        return Err(Error::not_found(format!(
            "{id} does not exist: make it first with mkdir {}",
            editor
                .links()
                .folder(&tree_path(format!("{DEPS}/{}", list_dir(id))))
        )));
    }
    Ok(())
}

/// Removes every requirement of package `name` from list `id`.
pub(super) fn remove(editor: &Editor, id: &ListId, name: &str) -> Result<()> {
    change(
        editor,
        id,
        &format!("remove {name} from {id}"),
        |text, manifest| {
            let found = manifest
                .list(id)
                .is_some_and(|l| !l.requirements(name).is_empty());
            if !found {
                return Err(Error::not_found(format!(
                    "{} does not exist: {id} does not require {name}",
                    shown(id, name)
                )));
            }
            deps::remove(text, id, name).map_err(Error::invalid)
        },
    )
}

/// Makes the empty extra or group `id` (`mkdir`).
pub(super) fn add_list(editor: &Editor, id: &ListId) -> Result<()> {
    if let ListId::Extra(name) | ListId::Group(name) = id {
        check_list_name(name)?;
    }
    change(editor, id, &format!("add {id}"), |text, manifest| {
        if manifest.list(id).is_some() {
            return Err(Error::exists(format!("{id} exists already")));
        }
        deps::add_list(text, id).map_err(Error::invalid)
    })
}

/// Removes the empty extra or group `id` (`rmdir`).
pub(super) fn remove_list(editor: &Editor, id: &ListId) -> Result<()> {
    change(editor, id, &format!("remove {id}"), |text, manifest| {
        let left = manifest.list(id).map_or(0, |l| l.elements.len());
        if left > 0 {
            // ENOTEMPTY, what rmdir and `rm -r` say of a folder that still holds something.
            return Err(Error::new(
                ErrorKind::NotEmpty,
                format!(
                    "{id} is not empty: {left} element{} left; rm its packages first (what is \
                     no package, an include-group, is removed in pyproject.toml by hand)",
                    plural(left)
                ),
            ));
        }
        deps::remove_list(text, id).map_err(Error::invalid)
    })
}

/// Changes pyproject.toml by `edit` (from its text and lists to the new text), described
/// in the history as `what`, if list `id` may be changed at all.
fn change(
    editor: &Editor,
    id: &ListId,
    what: &str,
    edit: impl FnOnce(&str, &Manifest) -> Result<String>,
) -> Result<()> {
    change_pyproject(editor, &format!("deps: {what}"), |text| {
        let text = text.ok_or_else(|| no_project(editor, "the project has no pyproject.toml"))?;
        let manifest = Manifest::read(text).map_err(broken)?;
        writable(editor, &manifest, id)?;
        edit(text, &manifest)
    })
}

/// The requirements a package file holds: one per non-blank line, `#` lines ignored, each
/// valid PEP 508 naming `name`. Every problem is listed.
fn parse_file(content: &[u8], name: &str, shown: &str) -> Result<Vec<Requirement>> {
    check_name(name, shown)?;
    let text = std::str::from_utf8(content)
        .map_err(|_| Error::invalid(format!("{shown} was not saved: it is not UTF-8 text")))?;
    let mut requirements = Vec::new();
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match requirement::parse(line) {
            Ok(r) if r.name == name => requirements.push(r),
            Ok(r) => problems.push(format!(
                "line {}: `{line}` requires {}, but this file is {name}: write it to {}",
                n + 1,
                r.name,
                shown
                    .rsplit_once('/')
                    .map_or(String::new(), |(dir, _)| format!("{dir}/{}", r.name))
            )),
            Err(why) => problems.push(format!(
                "line {}: `{line}` is not a PEP 508 requirement: {why}",
                n + 1
            )),
        }
    }
    if requirements.is_empty() && problems.is_empty() {
        problems.push(format!(
            "it is empty: write the requirement (`{name}`, `{name}>=1.0`, ...), or rm the \
             file to drop the dependency"
        ));
    }
    if !problems.is_empty() {
        return Err(Error::invalid(format!(
            "{shown} was not saved, pyproject.toml is unchanged:\n- {}",
            problems.join("\n- ")
        )));
    }
    Ok(requirements)
}

/// A package's file is named by its normalised name (PEP 503).
fn check_name(name: &str, shown: &str) -> Result<()> {
    match requirement::normalize(name) {
        Ok(normal) if normal == name => Ok(()),
        Ok(normal) => Err(Error::invalid(format!(
            "{shown}: files here are named by the normalised package name (PEP 503): use {normal}"
        ))),
        Err(why) => Err(Error::invalid(format!(
            "{shown}: {name:?} is no package name: {why}"
        ))),
    }
}

/// Extras and groups are named like packages (`dev`, `test-unit`).
fn check_list_name(name: &str) -> Result<()> {
    requirement::normalize(name)
        .map(|_| ())
        .map_err(|why| Error::invalid(format!("{name:?} cannot name an extra or group: {why}")))
}

fn read(editor: &Editor) -> Result<Manifest> {
    match Pyproject::read(editor, |text| Manifest::read(&text))? {
        Pyproject::Read(manifest) => Ok(manifest),
        Pyproject::Missing => Err(no_project(editor, "the project has no pyproject.toml")),
        Pyproject::Broken(why) => Err(broken(why)),
    }
}

/// Refuses changes to a list that `[project]` does not hold.
fn writable(editor: &Editor, manifest: &Manifest, id: &ListId) -> Result<()> {
    if !manifest.project {
        return Err(no_project(
            editor,
            "pyproject.toml has no [project] table, where dependencies are listed (PEP 621)",
        ));
    }
    if !editable(manifest, id) {
        return Err(Error::read_only(format!(
            "pyproject.toml declares {id} dynamic (`[project].dynamic`): another tool \
             (setup.py, a build plugin) provides them, so they are changed there"
        )));
    }
    Ok(())
}

/// Why nothing here can change dependencies (`why`), and where they are changed instead.
fn no_project(editor: &Editor, why: &str) -> Error {
    Error::read_only(format!(
        "{why}, so source/{DEPS}/ is read-only. {}",
        super::metadata::advice(&editor.project().root, editor.name())
    ))
}

fn shown(id: &ListId, name: &str) -> String {
    tree_path(format!("{DEPS}/{}{name}", list_dir(id))).to_string()
}
