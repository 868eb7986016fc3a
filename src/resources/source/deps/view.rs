//! The entry views of `source/deps/`: what the project requires and how to change it —
//! or, when `[project]` does not list its dependencies, where they are instead (setup.py,
//! setup.cfg, requirements files, Poetry's tables) and how to move them.

use super::elsewhere::{Declared, places, setup_py_requires};
use super::{
    DEPS, GROUPS, ListKind, OPTIONAL, Project, list_dir, others, packages, packages_count,
};
use crate::model::{Entry, Function, Section};
use crate::pyproject::deps::{ListId, Manifest};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::pyproject_change::Pyproject;
use crate::resources::source::places::in_tree::{tree_path, tree_path_of};

/// `source/deps/_entry.md`.
pub(super) fn top(editor: &Editor, project: &Project) -> Entry {
    let manifest = match project {
        Pyproject::Read(manifest) => manifest,
        Pyproject::Missing => {
            return elsewhere_entry(editor, "the project has no pyproject.toml");
        }
        Pyproject::Broken(why) => {
            return Entry {
                title: format!("{} — pyproject.toml does not parse", tree_path(DEPS)),
                about: vec![
                    "pyproject.toml is not valid TOML, so no dependency can be read or changed \
                     here until it is fixed:"
                        .into(),
                    why.lines().next().unwrap_or_default().to_string(),
                ],
                ..Entry::default()
            };
        }
    };
    if !manifest.project {
        return elsewhere_entry(editor, "pyproject.toml has no [project] table");
    }
    if manifest.is_dynamic(&ListId::Main) {
        let mut entry = elsewhere_entry(
            editor,
            "pyproject.toml declares its dependencies dynamic: another tool provides them",
        );
        entry.sections.insert(0, lists_section(editor, manifest));
        return entry;
    }
    let main = manifest.list(&ListId::Main);
    let count = main.map_or(0, |l| l.names().len());
    let mut entry = list_entry(editor, manifest, &ListId::Main);
    entry.title = format!(
        "source/{DEPS} — {} required by [project].dependencies",
        packages_count(count)
    );
    entry.sections.push(lists_section(editor, manifest));
    let outside = elsewhere(editor);
    if !outside.is_empty() {
        entry.sections.push(Section {
            heading: "Also declared outside [project]".into(),
            items: outside,
            ..Section::default()
        });
    }
    entry
}

/// `source/deps/optional/_entry.md` and `groups/_entry.md`.
pub(super) fn lists(editor: &Editor, project: &Project, kind: ListKind) -> Entry {
    let (what, table) = match kind {
        ListKind::Extras => ("extras", "[project.optional-dependencies]"),
        ListKind::Groups => ("dependency groups (PEP 735)", "[dependency-groups]"),
    };
    let dir = editor.links().file(&tree_path_of([DEPS, kind.dir()]));
    let items = match project {
        Pyproject::Read(manifest) => manifest
            .lists
            .iter()
            .filter(|l| kind.holds(&l.id))
            .map(|l| {
                format!(
                    "`{}` — {}",
                    dir_of(editor, &l.id),
                    packages_count(l.names().len())
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    Entry {
        title: format!(
            "source/{DEPS}/{} — {} {what} of {table}",
            kind.dir(),
            items.len()
        ),
        functions: vec![
            Function::new(
                format!("mkdir {dir}/NAME"),
                format!("add an empty one to {table}"),
                "then write package files into it",
            ),
            Function::new(
                format!("rmdir {dir}/NAME"),
                "remove an empty one",
                format!("its line goes from pyproject.toml, and {table} with the last one"),
            ),
            Function::new(
                format!("rm -r {dir}/NAME"),
                "remove one with all its packages",
                "each package, then the list, as rm and rmdir would",
            ),
        ],
        sections: vec![Section {
            heading: what.to_string(),
            items,
            empty: format!("none yet: {table} lists none"),
            ..Section::default()
        }],
        ..Entry::default()
    }
}

/// `source/deps/optional/<extra>/_entry.md` and `groups/<group>/_entry.md`.
pub(super) fn list(editor: &Editor, manifest: &Manifest, id: &ListId) -> Entry {
    let mut entry = list_entry(editor, manifest, id);
    let count = manifest.list(id).map_or(0, |l| l.names().len());
    entry.title = format!(
        "source/{DEPS}/{} — {} in {id}",
        list_dir(id).trim_end_matches('/'),
        packages_count(count)
    );
    entry
}

/// The packages of list `id` and how to change them.
fn list_entry(editor: &Editor, manifest: &Manifest, id: &ListId) -> Entry {
    let dir = dir_of(editor, id);
    let list = manifest.list(id);
    let rows = packages(list)
        .into_iter()
        .map(|c| format!("`{}` — {}", c.name, c.about))
        .collect();
    let mut sections = vec![Section {
        heading: "Packages".into(),
        items: rows,
        empty: format!("none: {id} is empty"),
        ..Section::default()
    }];
    let other = list.map(others).unwrap_or_default();
    if !other.is_empty() {
        sections.push(Section {
            heading: "Also in the list (not a package file; change them in pyproject.toml)".into(),
            items: other,
            ..Section::default()
        });
    }
    Entry {
        title: String::new(),
        about: vec![format!(
            "One file per package, named by its normalised name (PEP 503), holding its PEP 508 \
             requirement; several lines when it is required under different markers. Changes \
             are made in pyproject.toml, touching only their own bytes, and are listed in {}.",
            editor.links().to("source/history/")
        )],
        functions: vec![
            Function::new(
                format!("cat {dir}PACKAGE"),
                "read a requirement",
                "e.g. requests>=2.31",
            ),
            Function::new(
                format!("echo 'httpx>=0.27' > {dir}httpx"),
                "add or change one",
                "refused with the position if it is not PEP 508 or names another package",
            ),
            Function::new(
                format!("rm {dir}PACKAGE"),
                "drop a dependency",
                "its line (and the comments above it) go",
            ),
        ],
        sections,
        ..Entry::default()
    }
}

/// The extras and groups, as one block of the top entry.
fn lists_section(editor: &Editor, manifest: &Manifest) -> Section {
    let items = manifest
        .lists
        .iter()
        .filter(|l| l.id != ListId::Main)
        .map(|l| {
            format!(
                "`{}` — {}",
                dir_of(editor, &l.id),
                packages_count(l.names().len())
            )
        })
        .collect();
    Section {
        heading: format!("Extras ({OPTIONAL}/) and groups ({GROUPS}/)"),
        items,
        empty: format!(
            "none: mkdir {} or {} to add one",
            editor.links().file(&tree_path_of([DEPS, OPTIONAL, "NAME"])),
            editor.links().file(&tree_path_of([DEPS, GROUPS, "NAME"]))
        ),
        ..Section::default()
    }
}

fn dir_of(editor: &Editor, id: &ListId) -> String {
    editor
        .links()
        .folder(&tree_path(format!("{DEPS}/{}", list_dir(id))))
}

/// The entry of a project whose dependencies `[project]` does not list: where they are.
fn elsewhere_entry(editor: &Editor, why: &str) -> Entry {
    let found = elsewhere(editor);
    Entry {
        title: format!("{} — {why}", tree_path(DEPS)),
        about: vec![
            "Dependencies are read and changed here when pyproject.toml lists them in \
             [project] (PEP 621). This project keeps them elsewhere, so nothing here can be \
             written; change them where they are."
                .into(),
        ],
        sections: vec![Section {
            heading: "Where this project's dependencies are".into(),
            items: found,
            empty: "no requirements in setup.cfg, setup.py, a requirements file or a Poetry table: the project declares no dependencies".into(),
            ..Section::default()
        }],
        advanced: vec![super::metadata::advice(&editor.project().root, editor.name())],
        ..Entry::default()
    }
}

/// The other places a project declares dependencies in, one line each.
fn elsewhere(editor: &Editor) -> Vec<String> {
    let mut found = Vec::new();
    if setup_py_requires(&editor.project().root) {
        found.push(
            "`setup.py` — `install_requires=[...]` in its setup() call: code, which homespace \
             does not run to read; edit it there"
                .into(),
        );
    }
    let places = places(&editor.project().root);
    let root = &editor.project().root;
    if root.join("setup.cfg").is_file()
        && !setup_py_requires(root)
        && !places.iter().any(|p| p.name == "setup.cfg")
    {
        found.push(
            "setup.cfg's `[options]` has no `install_requires`, nor does setup.py pass it: \
             the project needs no other package to run"
                .into(),
        );
    }
    for place in places {
        found.push(format!(
            "`{}` — {}, {} (read-only)",
            dir_of_place(editor, &place.name),
            place.about,
            packages_count(place.names().len())
        ));
    }
    found
}

fn dir_of_place(editor: &Editor, place: &str) -> String {
    editor.links().folder(&tree_path(format!("{DEPS}/{place}")))
}

/// `source/deps/<place>/_entry.md` for a place outside `[project]`.
pub(super) fn declared_entry(editor: &Editor, place: &Declared) -> Entry {
    let rows = place
        .names()
        .into_iter()
        .map(|name| {
            let text = place.text(name).unwrap_or_default();
            format!("`{name}` — {}", text.trim_end().replace('\n', " | "))
        })
        .collect();
    let mut sections = vec![Section {
        heading: "Packages".into(),
        items: rows,
        empty: "none".into(),
        ..Section::default()
    }];
    if !place.other.is_empty() {
        sections.push(Section {
            heading: "Other lines (no package)".into(),
            items: place.other.iter().map(|l| format!("`{l}`")).collect(),
            ..Section::default()
        });
    }
    let dir = dir_of_place(editor, &place.name);
    Entry {
        title: format!(
            "source/{DEPS}/{} — {}, read-only",
            place.name,
            packages_count(place.names().len())
        ),
        about: vec![format!(
            "{}: one file per package with the line that declares it. Read-only: homespace \
             changes only the lists of [project] in pyproject.toml ({}).",
            place.about,
            editor.links().folder(&tree_path(DEPS))
        )],
        functions: vec![Function::new(
            format!("cat {dir}PACKAGE"),
            "read how a package is declared",
            "its line, as written",
        )],
        sections,
        ..Entry::default()
    }
}
