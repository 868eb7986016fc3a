//! `source/deps/`: the project's dependencies as files, one per package, each holding its
//! PEP 508 requirement — `[project].dependencies` at the top, each extra of
//! `[project.optional-dependencies]` in `optional/<extra>/`, each PEP 735 group in
//! `groups/<group>/`. A package required more than once in a list (with different
//! markers) is one file of several lines.
//!
//! The file pyproject.toml is the truth: every access reads it afresh. Changes go through
//! `edit.rs` (validated, spliced byte for byte by [`crate::pyproject::deps`], written as
//! a [`super::change::ProjectChange`]: locked, atomic, in `source/history/`). A project
//! whose dependencies live elsewhere gets an entry view saying where (`view.rs`).

mod edit;
mod elsewhere;
mod metadata;
mod view;

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::count::plural;
use crate::model::{Child, Entry, Kind, Node};
use crate::pyproject::deps::{Element, List, ListId, Manifest};
use crate::resources::source::edit::pyproject_change::Pyproject;
use crate::resources::source::edit::{Editor, is_a_dir, not_a_dir};
use crate::resources::source::places::in_tree::tree_path_of;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// The directory name under `source/`.
pub const DEPS: &str = "deps";
/// The directory of extras, and of groups.
const OPTIONAL: &str = "optional";
const GROUPS: &str = "groups";

/// `source/deps/`.
pub struct DepsDir {
    editor: Arc<Editor>,
}

/// What a path under `source/deps/` names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum At {
    Top,
    /// `optional/` or `groups/`: the lists of one kind.
    Lists(ListKind),
    /// `optional/<extra>/` or `groups/<group>/`.
    List(ListId),
    /// One package's requirements in a list.
    Package(ListId, String),
    /// A place outside `[project]` that declares dependencies (`requirements.txt/`).
    Declared(String),
    /// One package declared there.
    DeclaredPackage(String, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListKind {
    Extras,
    Groups,
}

impl ListKind {
    fn dir(self) -> &'static str {
        match self {
            ListKind::Extras => OPTIONAL,
            ListKind::Groups => GROUPS,
        }
    }

    fn id(self, name: &str) -> ListId {
        match self {
            ListKind::Extras => ListId::Extra(name.to_string()),
            ListKind::Groups => ListId::Group(name.to_string()),
        }
    }

    fn holds(self, id: &ListId) -> bool {
        matches!(
            (self, id),
            (ListKind::Extras, ListId::Extra(_)) | (ListKind::Groups, ListId::Group(_))
        )
    }
}

fn at(path: &[&str]) -> Option<At> {
    let kind = |dir: &str| match dir {
        OPTIONAL => Some(ListKind::Extras),
        GROUPS => Some(ListKind::Groups),
        _ => None,
    };
    // No normalised package name has a dot; every place outside [project] has one.
    let declared = |name: &str| name.contains('.');
    Some(match path {
        [] => At::Top,
        [place] if declared(place) => At::Declared(place.to_string()),
        [place, name] if declared(place) => {
            At::DeclaredPackage(place.to_string(), name.to_string())
        }
        [dir] if kind(dir).is_some() => At::Lists(kind(dir)?),
        [name] => At::Package(ListId::Main, name.to_string()),
        [dir, list] => At::List(kind(dir)?.id(list)),
        [dir, list, name] => At::Package(kind(dir)?.id(list), name.to_string()),
        _ => return None,
    })
}

/// The path of a list's directory under `source/deps/`, ending in `/` (empty for the top).
fn list_dir(id: &ListId) -> String {
    match id {
        ListId::Main => String::new(),
        ListId::Extra(extra) => format!("{OPTIONAL}/{extra}/"),
        ListId::Group(group) => format!("{GROUPS}/{group}/"),
    }
}

/// What pyproject.toml holds now: its dependency lists, or why there are none.
type Project = Pyproject<Manifest>;

impl DepsDir {
    pub fn new(editor: Arc<Editor>) -> Self {
        DepsDir { editor }
    }

    fn project(editor: &Editor) -> Result<Project> {
        Pyproject::read(editor, |text| Manifest::read(&text))
    }

    fn manifest(editor: &Editor) -> Result<Manifest> {
        match Self::project(editor)? {
            Pyproject::Read(manifest) => Ok(manifest),
            Pyproject::Missing | Pyproject::Broken(_) => Ok(Manifest::default()),
        }
    }

    /// The place outside `[project]` named `place`, if the project has it.
    fn declared(editor: &Editor, place: &str) -> Option<elsewhere::Declared> {
        elsewhere::places(&editor.project().root)
            .into_iter()
            .find(|d| d.name == place)
    }

    fn shown(path: &[&str]) -> String {
        tree_path_of([DEPS].iter().chain(path)).to_string()
    }

    fn missing(&self, path: &[&str]) -> Error {
        self.editor
            .missing(DEPS, path, "lists the dependencies and where they are")
    }
}

/// One package the project declares, and where: `required`, `extra tests`, `group dev`,
/// or the place outside `[project]` (`requirements-dev.txt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeclaredPackage {
    /// Its normalised name (PEP 503).
    pub name: String,
    pub place: String,
}

/// Every package the project at `root` declares anywhere `deps/` reads, in the order
/// `deps/` lists them: pyproject.toml's lists, then the places outside `[project]`.
pub(crate) fn declared_packages(root: &Path) -> Vec<DeclaredPackage> {
    let manifest = std::fs::read_to_string(root.join("pyproject.toml"))
        .ok()
        .and_then(|text| Manifest::read(&text).ok())
        .unwrap_or_default();
    let in_lists = manifest.lists.iter().flat_map(|list| {
        let place = match &list.id {
            ListId::Main => "required".to_string(),
            ListId::Extra(extra) => format!("extra {extra}"),
            ListId::Group(group) => format!("group {group}"),
        };
        list.names().into_iter().map(move |name| DeclaredPackage {
            name: name.to_string(),
            place: place.clone(),
        })
    });
    let elsewhere = elsewhere::places(root).into_iter().flat_map(|declared| {
        declared
            .names()
            .into_iter()
            .map(|name| DeclaredPackage {
                name: name.to_string(),
                place: declared.name.clone(),
            })
            .collect::<Vec<_>>()
    });
    in_lists.chain(elsewhere).collect()
}

/// A package's file: its requirements, one per line.
fn file_text(list: &List, name: &str) -> Option<String> {
    let lines: Vec<&str> = list
        .requirements(name)
        .iter()
        .map(|r| r.text.as_str())
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n") + "\n")
}

/// Whether files can be written in `id`: `[project]` lists it, not another tool.
fn editable(manifest: &Manifest, id: &ListId) -> bool {
    manifest.project && !manifest.is_dynamic(id)
}

impl Resource for DepsDir {
    fn name(&self) -> &'static str {
        DEPS
    }

    fn summary(&self) -> Result<String> {
        let manifest = Self::manifest(&self.editor)?;
        let main = manifest.list(&ListId::Main).map_or(0, |l| l.names().len());
        let count = |kind: ListKind| manifest.lists.iter().filter(|l| kind.holds(&l.id)).count();
        let (extras, groups) = (count(ListKind::Extras), count(ListKind::Groups));
        let places = elsewhere::places(&self.editor.project().root);
        if main + extras + groups == 0 && !places.is_empty() {
            let names: Vec<&str> = places.iter().map(|p| p.name.as_str()).collect();
            return Ok(format!(
                "dependencies kept outside pyproject.toml, read-only: {}",
                names.join(", ")
            ));
        }
        if matches!(Self::project(&self.editor)?, Pyproject::Missing) {
            return Ok(
                if elsewhere::setup_py_requires(&self.editor.project().root) {
                    "no pyproject.toml: setup.py passes install_requires (code, read there)"
                } else {
                    "no pyproject.toml, and no dependencies declared elsewhere"
                }
                .into(),
            );
        }
        Ok(format!(
            "dependencies of pyproject.toml: {main} required, {extras} extra{}, {groups} group{}",
            plural(extras),
            plural(groups)
        ))
    }

    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        let editor = &*self.editor;
        let owner = editor.root_ownership(Some(glance));
        let manifest = Self::manifest(editor)?;
        match at(path).ok_or_else(|| self.missing(path))? {
            At::Top => Ok(Node::dir(editable(&manifest, &ListId::Main)).owned(owner)),
            At::Lists(kind) => Ok(Node::dir(editable(&manifest, &kind.id(""))).owned(owner)),
            At::List(id) => match manifest.list(&id) {
                Some(_) => Ok(Node::dir(editable(&manifest, &id)).owned(owner)),
                None => Err(self.missing(path)),
            },
            At::Package(id, name) => match manifest.list(&id).and_then(|l| file_text(l, &name)) {
                Some(text) => Ok(Node {
                    size: Some(text.len() as u64),
                    ..Node::document(editable(&manifest, &id)).owned(owner)
                }),
                None => Err(self.missing(path)),
            },
            At::Declared(place) => match Self::declared(editor, &place) {
                Some(_) => Ok(Node::dir(false).owned(owner)),
                None => Err(self.missing(path)),
            },
            At::DeclaredPackage(place, name) => {
                match Self::declared(editor, &place).and_then(|d| d.text(&name)) {
                    Some(text) => Ok(Node {
                        size: Some(text.len() as u64),
                        ..Node::document(false).owned(owner)
                    }),
                    None => Err(self.missing(path)),
                }
            }
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        let editor = &*self.editor;
        let manifest = Self::manifest(editor)?;
        match at(path).ok_or_else(|| self.missing(path))? {
            At::Top => {
                let mut children = packages(manifest.list(&ListId::Main));
                if manifest.project {
                    for kind in [ListKind::Extras, ListKind::Groups] {
                        let n = manifest.lists.iter().filter(|l| kind.holds(&l.id)).count();
                        let what = match kind {
                            ListKind::Extras => "extras of [project.optional-dependencies]",
                            ListKind::Groups => "groups of [dependency-groups] (PEP 735)",
                        };
                        children.push(Child::new(kind.dir(), Kind::Dir, format!("{n} {what}")));
                    }
                }
                for place in elsewhere::places(&editor.project().root) {
                    let about = format!(
                        "{}, read-only: {}",
                        place.about,
                        packages_count(place.names().len())
                    );
                    children.push(Child::new(place.name, Kind::Dir, about));
                }
                Ok(children)
            }
            At::Lists(kind) => Ok(manifest
                .lists
                .iter()
                .filter(|l| kind.holds(&l.id))
                .map(|l| {
                    let name = match &l.id {
                        ListId::Extra(n) | ListId::Group(n) => n.clone(),
                        ListId::Main => String::new(),
                    };
                    Child::new(name, Kind::Dir, packages_count(l.names().len()))
                })
                .collect()),
            At::List(id) => match manifest.list(&id) {
                Some(list) => Ok(packages(Some(list))),
                None => Err(self.missing(path)),
            },
            At::Declared(place) => match Self::declared(editor, &place) {
                Some(place) => Ok(place
                    .names()
                    .into_iter()
                    .map(|name| {
                        Child::new(
                            name,
                            Kind::Document,
                            place
                                .text(name)
                                .unwrap_or_default()
                                .trim_end()
                                .replace('\n', " | "),
                        )
                    })
                    .collect()),
                None => Err(self.missing(path)),
            },
            At::Package(..) | At::DeclaredPackage(..) => Err(not_a_dir(DEPS, path)),
        }
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        let editor = &*self.editor;
        let manifest = Self::manifest(editor)?;
        match at(path).ok_or_else(|| self.missing(path))? {
            At::DeclaredPackage(place, name) => Self::declared(editor, &place)
                .and_then(|d| d.text(&name))
                .map(String::into_bytes)
                .ok_or_else(|| self.missing(path)),
            At::Package(id, name) => manifest
                .list(&id)
                .and_then(|l| file_text(l, &name))
                .map(String::into_bytes)
                .ok_or_else(|| self.missing(path)),
            _ => Err(is_a_dir(DEPS, path)),
        }
    }

    fn entry(&self, _glance: &Glance, path: &[&str]) -> Result<Entry> {
        let editor = &*self.editor;
        let project = Self::project(editor)?;
        match at(path).ok_or_else(|| self.missing(path))? {
            At::Top => Ok(view::top(editor, &project)),
            At::Lists(kind) => Ok(view::lists(editor, &project, kind)),
            At::List(id) => match &project {
                Pyproject::Read(manifest) if manifest.list(&id).is_some() => {
                    Ok(view::list(editor, manifest, &id))
                }
                _ => Err(self.missing(path)),
            },
            At::Declared(place) => match Self::declared(editor, &place) {
                Some(place) => Ok(view::declared_entry(editor, &place)),
                None => Err(self.missing(path)),
            },
            At::Package(..) | At::DeclaredPackage(..) => Err(not_a_dir(DEPS, path)),
        }
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for DepsDir {
    fn write(&self, path: &[&str], content: &[u8], base: Option<&[u8]>) -> Result<()> {
        match at(path) {
            Some(At::Declared(place) | At::DeclaredPackage(place, _)) => {
                Err(declared_read_only(&place))
            }
            Some(At::Package(id, name)) => edit::write(&self.editor, &id, &name, content, base),
            _ => Err(Error::read_only(format!(
                "{} cannot be written: write a package's file (source/{DEPS}/<package>)",
                Self::shown(path)
            ))),
        }
    }

    fn can_create(&self, path: &[&str]) -> Result<()> {
        match at(path) {
            Some(At::Declared(place) | At::DeclaredPackage(place, _)) => {
                Err(declared_read_only(&place))
            }
            Some(At::Package(id, name)) => edit::can_create(&self.editor, &id, &name),
            _ => Err(Error::not_permitted(format!(
                "cannot create {}: files here are packages (source/{DEPS}/<package>, \
                 {OPTIONAL}/<extra>/<package>, {GROUPS}/<group>/<package>)",
                Self::shown(path)
            ))),
        }
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        let editor = &*self.editor;
        match at(path) {
            Some(At::Declared(place) | At::DeclaredPackage(place, _)) => {
                Err(declared_read_only(&place))
            }
            Some(At::Package(id, name)) => edit::remove(editor, &id, &name),
            Some(At::List(id)) => edit::remove_list(editor, &id),
            _ => Err(Error::not_permitted(format!(
                "{} cannot be removed: remove a package's file, or an empty extra or group",
                Self::shown(path)
            ))),
        }
    }

    fn removable(&self, path: &[&str]) -> bool {
        let Some(At::List(id)) = at(path) else {
            return false;
        };
        Self::manifest(&self.editor)
            .is_ok_and(|manifest| manifest.list(&id).is_some() && editable(&manifest, &id))
    }

    fn mkdir(&self, path: &[&str]) -> Result<()> {
        match at(path) {
            Some(At::List(id)) => edit::add_list(&self.editor, &id),
            _ => Err(Error::not_permitted(format!(
                "cannot make {}: make an extra in {OPTIONAL}/ or a group in {GROUPS}/",
                Self::shown(path)
            ))),
        }
    }
}

/// The refusal of a change in a place outside `[project]`.
fn declared_read_only(place: &str) -> Error {
    let file = place
        .split_once(".dependencies")
        .map_or(place, |_| "pyproject.toml");
    Error::read_only(format!(
        "source/{DEPS}/{place}/ is read-only: homespace changes only [project]'s lists; edit {file} itself"
    ))
}

/// `1 package`, `3 packages`.
fn packages_count(n: usize) -> String {
    format!("{n} package{}", plural(n))
}

/// The members of a list: a file per package, described by its requirement.
fn packages(list: Option<&List>) -> Vec<Child> {
    let Some(list) = list else {
        return Vec::new();
    };
    list.names()
        .into_iter()
        .map(|name| {
            let texts: Vec<&str> = list
                .requirements(name)
                .iter()
                .map(|r| r.text.as_str())
                .collect();
            Child::new(name, Kind::Document, texts.join(" | "))
        })
        .collect()
}

/// The elements of a list that are no requirement, for the entry view.
fn others(list: &List) -> Vec<String> {
    list.elements
        .iter()
        .filter_map(|e| match e {
            Element::Requirement(_) => None,
            Element::Invalid { text, why } => {
                Some(format!("`{text}` — not a valid requirement: {why}"))
            }
            Element::Other(text) => Some(format!("`{text}`")),
        })
        .collect()
}
