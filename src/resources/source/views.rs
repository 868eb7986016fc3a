//! Entry views of `source/`: the project root (packages with one-line docstrings and
//! counts), packages (modules with docstrings and sizes), modules and classes (symbol
//! tables: name, kind, signature, first docstring line, size; and the past sessions that
//! changed the file). Sizes are given before
//! anyone reads a file, so an agent knows what a `cat` will cost.

use std::path::Path;

use crate::error::Result;
use crate::model::count::file_size;
use crate::model::count::{one_or_many, plural};
use crate::model::{Detail, Entry, Function, Lighter, Section};
use crate::python::{ModuleIndex, SymbolKind};
use crate::render::size_note_of;
use crate::resources::source::Source;
use crate::resources::source::changed_in;
use crate::resources::source::modules::Module;
use crate::resources::source::outline;
use crate::resources::source::own_names;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::{Resolved, TESTS, spelled_at_top};
use crate::resources::source::project::{DirKind, DiskEntry, EntryKind};

/// The entry of the directory at `path` (already resolved to `place`).
pub(super) fn entry(source: &Source, path: &[&str], place: &Resolved) -> Result<Entry> {
    let mut dir = vec!["source"];
    dir.extend_from_slice(path);
    let here = source.links.dir(&dir);
    match place {
        Resolved::Root => Ok(root(source, &here)),
        Resolved::TestsRoot => Ok(Entry {
            title: match source.project.test_dirs().len() {
                0 => format!(
                    "source/tests — the test runner; pytest finds the tests where the project keeps them{}",
                    test_homes(source)
                ),
                n => format!("{} — {n} test folders", tree_path_of([TESTS])),
            },
            sections: vec![Section::children(
                "Test folders",
                &crate::tree::resource::Resource::list(source, path)?,
                "",
            )],
            ..Entry::default()
        }),
        Resolved::Dir { disk, dotted } => Ok(package(source, disk, dotted, &here)),
        Resolved::Members {
            module,
            dotted,
            parent,
            disk,
            ..
        } => {
            let file = disk.strip_prefix(&source.project.root).unwrap_or(disk);
            let file = file.display().to_string();
            let mut entry = members(module, dotted, *parent, &here, &file);
            if let Some(line) = changed_in::entry_line(&source.store, &source.links, &file) {
                entry.about.push(line);
            }
            if parent.is_none()
                && let Some(failure) = source.editor.known_import_failure(dotted)
            {
                // The view is as private as the module; the exception may come from a more
                // private module it imports, whose text it must not quote.
                // A traceback cut to its last lines may name no file: unsure, not quoted.
                let quotable = !failure.files.is_empty()
                    && failure
                        .files
                        .iter()
                        .all(|quoted| readable_by_its_readers(quoted, disk));
                let failure = match quotable {
                    true => failure.line,
                    false => "raised in a module more private than this one (the daemon's \
                              log has it)"
                        .to_string(),
                };
                entry.about.insert(
                    0,
                    format!(
                        "**Import fails** as it did before the last edit: {failure}. Edits are \
                         kept while they bring no new failure."
                    ),
                );
            }
            Ok(entry)
        }
        _ => Ok(Entry::default()),
    }
}

fn root(source: &Source, here: &str) -> Entry {
    let top = source.project.top_level();
    let mut rows = Vec::new();
    let mut example = main_package(source, &top).and_then(|dir| {
        first_module(source, &dir.path).map(|m| format!("{}/{m}", spelled_at_top(&dir.name)))
    });
    for (n, entry) in top.iter().enumerate() {
        if n >= DETAILED {
            rows.push(ContentsRow::plain(
                source,
                &entry.name,
                entry.kind,
                &entry.path,
            ));
            continue;
        }
        match entry.kind {
            EntryKind::Dir => {
                let init = entry.path.join("__init__.py");
                let doc = docstring(source, &init)
                    .filter(|_| readable_by_its_readers(&init, &source.project.root));
                let about = match doc {
                    Some(doc) => format!("{doc} ({})", Contents::of(source, &entry.path)),
                    None => Contents::of(source, &entry.path).to_string(),
                };
                rows.push(ContentsRow {
                    about,
                    ..ContentsRow::plain(source, &entry.name, entry.kind, &entry.path)
                });
            }
            EntryKind::Module => {
                let about = match readable_by_its_readers(&entry.path, &source.project.root) {
                    true => about_module_at(source, &entry.path).unwrap_or_default(),
                    false => private_about(&entry.path),
                };
                rows.push(ContentsRow {
                    about,
                    ..ContentsRow::plain(source, &entry.name, entry.kind, &entry.path)
                });
                example.get_or_insert_with(|| entry.name.clone());
            }
            EntryKind::Data => {}
        }
    }
    let example = example.unwrap_or_else(|| "<module>.py".into());
    // `history.py`'s members are `.history/`, and its dotted names `history.<Symbol>.py`.
    let stem = spelled_at_top(example.trim_end_matches(".py"));
    let dotted = stem.trim_start_matches('.').replace('/', ".");
    let layout = if source.project.code_roots.len() > 1 {
        "src layout: packages under src/"
    } else {
        "packages at the top of the project"
    };
    let mut sections = vec![ContentsRow::section(
        "Packages and modules",
        rows,
        "No Python packages or modules found in the project.",
    )];
    let test_dirs = source.project.test_dirs();
    let tests = test_dirs.iter().map(|d| {
        d.strip_prefix(&source.project.root)
            .unwrap_or(d)
            .display()
            .to_string()
    });
    let mut subresources: Vec<String> = tests
        .map(|t| format!("`{here}tests/` — the test modules of `{t}/`, browsable like the code"))
        .collect();
    let homes = test_homes(source);
    if subresources.is_empty() && homes.is_empty() {
        subresources.push("no test folder (tests/, test/ or pytest's testpaths)".into());
    } else {
        if subresources.is_empty() {
            subresources.push(format!(
                "`{here}tests/` — the test runner; pytest finds the tests{homes}"
            ));
        }
        let runs = source.links.to("source/tests/runs/");
        subresources.push(match source.runner.last_run() {
            Some(run) => format!("`{runs}` — last test run {run}"),
            None => format!(
                "`{runs}` — no test run yet: `echo > {}` runs them",
                source.links.to("source/tests/run")
            ),
        });
    }
    // deps/ and config/ say themselves what pyproject.toml holds.
    for name in [super::deps::DEPS, super::config::CONFIG] {
        if let Some(child) = source.children.iter().find(|c| c.name() == name)
            && let Ok(summary) = child.summary()
        {
            subresources.push(format!("`{here}{name}/` — {summary}"));
        }
    }
    let edits = source
        .editor
        .edits()
        .newest(0)
        .map(|(_, total)| total)
        .unwrap_or(0);
    subresources.push(format!(
        "`{here}history/` — {edits} routed edit{} as diffs, with undo",
        plural(edits)
    ));
    let check = if source.kept_settings().import_check {
        "on"
    } else {
        "off"
    };
    subresources.push(format!("`{here}meta/` — settings: import check {check}"));
    sections.push(Section {
        heading: "Subresources".into(),
        items: subresources,
        empty: String::new(),
        ..Section::default()
    });
    let mut entry = Entry {
        title: format!("source — {} ({layout})", source.name),
        about: vec![
            "Every module `m.py` has `m/` with its classes and functions; every class `C.py` has `C/` with its methods. Files are exact source.".into(),
        ],
        functions: vec![
            Function::new(format!("cat {here}{example}"), "read a module", "its exact source"),
            Function::new(format!("ls {here}{stem}/"), "list a module's symbols", "one file per class and function"),
            Function::new(format!("cat {here}{}/_entry.md", stem), "see a module's outline", "symbols with signatures and sizes"),
            Function::new(format!("cat {here}{dotted}.<Symbol>.py"), "read by dotted path", "that symbol's exact source"),
            Function::new(format!("cp fixed.py {here}{stem}/<Symbol>.py"), "replace one symbol", "the module rewritten; refused with line:column if invalid"),
            Function::new(format!("cat {}", source.links.to("source/history/_entry.md")), "see what was edited", "every edit as a diff, with undo"),
            Function::new(format!("cat \"{}\"", source.links.to("search/source:<query>")), "search the code", "`module:line: text` with symbol paths"),
        ],
        sections,
        advanced: vec![
            format!("`homespace render --project {} /source/<path>` prints any of these files without mounting.", source.project.root.display()),
            "Dotted names work in every directory here but are not listed by `ls`.".into(),
        ],
    };
    entry.about.extend(own_names::note(here, &top));
    entry
}

/// Rows described in full (docstring, counts, sizes: a parse each); the rest, which the
/// budget cuts anyway unless raised far, are named only, so a package of hundreds of
/// modules does not parse them all for one view.
const DETAILED: usize = 40;

/// One row of a contents table, `| name | kind | about |`.
struct ContentsRow {
    /// `` `io/` ``, `` `accounts.py` ``.
    name: String,
    kind: &'static str,
    about: String,
    /// Whether it is Python (a module, a package): such rows keep their names longest.
    python: bool,
}

impl ContentsRow {
    /// The row of `name` with its kind and nothing about it.
    fn plain(source: &Source, name: &str, kind: EntryKind, path: &Path) -> ContentsRow {
        let (name, kind, python) = match kind {
            EntryKind::Dir => {
                let dir = source.project.dir_kind(path);
                let name = match path
                    .parent()
                    .is_some_and(|p| source.project.code_roots.iter().any(|r| r == p))
                {
                    true => spelled_at_top(name),
                    false => name.to_string(),
                };
                (format!("`{name}/`"), dir.label(), dir != DirKind::Folder)
            }
            EntryKind::Module => (format!("`{name}`"), "module", true),
            EntryKind::Data => (format!("`{name}`"), "data", false),
        };
        ContentsRow {
            name,
            kind,
            about: String::new(),
            python,
        }
    }

    fn line(&self, about: bool) -> String {
        let about = if about { self.about.as_str() } else { "" };
        format!("| {} | {} | {about} |", self.name, self.kind)
    }

    /// A contents table whose rows give up what they say about themselves, then their
    /// place in the table, before a name is dropped — other files' before modules' and
    /// packages', private modules' (`_impl.py`) before public ones'.
    fn section(heading: &str, rows: Vec<ContentsRow>, empty: &str) -> Section {
        let mut rank: Vec<usize> = (0..rows.len()).collect();
        rank.sort_by_key(|&at| {
            let stem = rows[at]
                .name
                .trim_matches(['`', '/'])
                .trim_end_matches(".py");
            (!rows[at].python, outline::privacy(stem), at)
        });
        let lighter = rows
            .iter()
            .map(|row| Lighter {
                forms: vec![(
                    if row.about.is_empty() {
                        String::new()
                    } else {
                        "without description".into()
                    },
                    row.line(false),
                )],
                name: row.name.clone(),
            })
            .collect();
        Section {
            heading: heading.into(),
            table_header: Some("| name | kind | about |".into()),
            items: rows.iter().map(|row| row.line(true)).collect(),
            empty: empty.into(),
            detail: Some(Detail {
                items: lighter,
                rank,
                noun: "entries".into(),
            }),
            ..Section::default()
        }
    }
}

/// What a folder holds directly: modules, subpackages (regular or namespace) and other
/// folders, as its entry and its parent's row both count them.
struct Contents {
    modules: usize,
    packages: usize,
    folders: usize,
}

impl Contents {
    fn of(source: &Source, dir: &Path) -> Contents {
        Self::among(source, &source.project.list_dir(dir).unwrap_or_default())
    }

    fn among(source: &Source, entries: &[DiskEntry]) -> Contents {
        let mut contents = Contents {
            modules: 0,
            packages: 0,
            folders: 0,
        };
        for entry in entries {
            match entry.kind {
                EntryKind::Module => contents.modules += 1,
                EntryKind::Dir if source.project.dir_kind(&entry.path) == DirKind::Folder => {
                    contents.folders += 1;
                }
                EntryKind::Dir => contents.packages += 1,
                EntryKind::Data => {}
            }
        }
        contents
    }
}

/// `3 modules, 1 subpackage` and `, 2 folders` when there are any.
impl std::fmt::Display for Contents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} module{}, {} subpackage{}",
            self.modules,
            plural(self.modules),
            self.packages,
            plural(self.packages)
        )?;
        if self.folders > 0 {
            write!(f, ", {} folder{}", self.folders, plural(self.folders))?;
        }
        Ok(())
    }
}

/// The package the examples show: the one named as the project is (`my-lib` is `my_lib`),
/// else the first regular package, else the first folder of Python — the project's own
/// code rather than its documentation's configuration.
fn main_package<'a>(source: &Source, top: &'a [DiskEntry]) -> Option<&'a DiskEntry> {
    let named = source.name.to_lowercase().replace(['-', '.'], "_");
    top.iter()
        .filter(|e| e.kind == EntryKind::Dir && first_module(source, &e.path).is_some())
        .min_by_key(|e| {
            (
                e.name.to_lowercase() != named,
                source.project.dir_kind(&e.path) != DirKind::Package,
            )
        })
}

/// A module of `dir` to show in examples: a public one (`version.py`) before a private
/// one (`_elffile.py`), never `__init__.py`.
fn first_module(source: &Source, dir: &Path) -> Option<String> {
    let modules: Vec<String> = source
        .project
        .list_dir(dir)
        .ok()?
        .into_iter()
        .filter(|e| e.kind == EntryKind::Module && e.name != "__init__.py")
        .map(|e| e.name)
        .collect();
    let public = modules.iter().find(|m| !m.starts_with('_'));
    public.or(modules.first()).cloned()
}

/// Whether everyone who may read the view of folder `dir` may read `file` too, judged by
/// their owners and modes alone, so that the view is the same for every reader (the kernel
/// keeps one copy for all): a module more private than its folder is described by name
/// only, never by its docstring or counts (a view derived from a file is shown only to
/// those who may read the file). Unsure cases count as not readable.
fn readable_by_its_readers(file: &Path, dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let metadata = crate::tree::glance::metadata;
    let (Ok(file), Ok(dir)) = (metadata(file), metadata(dir)) else {
        return false;
    };
    let perm = |m: &std::fs::Metadata| crate::tree::access::Perm {
        uid: m.uid(),
        gid: m.gid(),
        mode: m.mode() & 0o777,
    };
    perm(&file).readable_by_readers_of(perm(&dir))
}

/// What a folder's view says of a module more private than the folder.
fn private_about(file: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let mode = std::fs::metadata(file)
        .map(|m| m.mode() & 0o777)
        .unwrap_or(0);
    format!("more private than its folder (mode {mode:o}): described in its own _entry.md")
}

/// `Accounts: named buckets… (2 classes, 9 functions, 96 lines, ~800 tokens)`.
fn module_about(module: &Module) -> String {
    match module.text {
        Some(_) => index_about(&module.index),
        None => module.unreadable.clone().unwrap_or_default(),
    }
}

/// [`module_about`] of a module that is text, from its index alone.
fn index_about(index: &ModuleIndex) -> String {
    let (classes, functions, methods) = counts(index);
    let doc = index
        .docstring
        .clone()
        .map(|d| format!("{d} "))
        .unwrap_or_default();
    let broken = if index.problems.is_empty() {
        ""
    } else {
        ", has syntax errors"
    };
    let methods = match methods {
        0 => String::new(),
        n => format!(", {n} method{}", plural(n)),
    };
    format!(
        "{doc}({classes} class{}, {functions} function{}{methods}, {}{broken})",
        one_or_many(classes, "", "es"),
        plural(functions),
        size_note_of(index.size.lines, index.size.chars)
    )
}

/// The first line of the docstring of the module at `path`, from its index: a folder's
/// view reads none of the modules it describes once their parses are kept.
fn docstring(source: &Source, path: &Path) -> Option<String> {
    let index = source.modules.index(path).ok()??;
    index.docstring.clone()
}

/// [`module_about`] of the module at `path`: from its index when that is at hand, without
/// reading the module (a folder's `_entry.md` describes every module in it).
fn about_module_at(source: &Source, path: &Path) -> Result<String> {
    match source.modules.index(path)? {
        Some(index) => Ok(index_about(&index)),
        None => source.modules.get(path).map(|m| module_about(&m)),
    }
}

/// Classes (nested ones too), functions of the module, and methods (functions in a
/// class): what `ls` shows under each name.
fn counts(index: &ModuleIndex) -> (usize, usize, usize) {
    let in_class = |parent: Option<usize>| {
        parent
            .and_then(|p| index.symbols.get(p))
            .is_some_and(|p| p.kind == SymbolKind::Class)
    };
    let (mut classes, mut functions, mut methods) = (0, 0, 0);
    for symbol in &index.symbols {
        match symbol.kind {
            SymbolKind::Class => classes += 1,
            _ if in_class(symbol.parent) => methods += 1,
            _ => functions += 1,
        }
    }
    (classes, functions, methods)
}

fn package(source: &Source, disk: &Path, dotted: &str, here: &str) -> Entry {
    let entries = source.project.list_dir(disk).unwrap_or_default();
    let init = disk.join("__init__.py");
    let doc = docstring(source, &init);
    let mut rows = Vec::new();
    for (n, entry) in entries.iter().enumerate() {
        let plain = ContentsRow::plain(source, &entry.name, entry.kind, &entry.path);
        if n >= DETAILED {
            rows.push(plain);
            continue;
        }
        let about = match entry.kind {
            EntryKind::Dir => Contents::of(source, &entry.path).to_string(),
            EntryKind::Module if !readable_by_its_readers(&entry.path, disk) => {
                private_about(&entry.path)
            }
            EntryKind::Module => about_module_at(source, &entry.path).unwrap_or_else(|e| e.message),
            EntryKind::Data => {
                let size = std::fs::metadata(&entry.path).map(|m| m.len()).unwrap_or(0);
                file_size(size)
            }
        };
        rows.push(ContentsRow { about, ..plain });
    }
    let example = entries
        .iter()
        .find(|e| e.kind == EntryKind::Module && e.name != "__init__.py")
        .map(|e| e.name.clone())
        .unwrap_or_else(|| "__init__.py".into());
    let stem = example.trim_end_matches(".py");
    let name = if dotted.is_empty() {
        disk.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        dotted.to_string()
    };
    Entry {
        title: format!(
            "{name} — {} {}({})",
            source.project.dir_kind(disk).label(),
            doc.map(|d| format!("{d} ")).unwrap_or_default(),
            Contents::among(source, &entries)
        ),
        functions: vec![
            Function::new(
                format!("cat {here}{example}"),
                "read a module",
                "its exact source",
            ),
            Function::new(
                format!("ls {here}{stem}/"),
                "list its classes and functions",
                "one file per symbol",
            ),
            Function::new(
                format!("cat {here}{stem}/_entry.md"),
                "outline a module",
                "symbols with signatures and sizes",
            ),
            Function::new(
                format!("echo '\"\"\"Doc.\"\"\"' > {here}newmod.py"),
                "create a module",
                match (
                    source.kept_settings().expose_new_modules,
                    disk.join("__init__.py").is_file(),
                ) {
                    (true, true) => {
                        "the file, and `from . import newmod` in __init__.py (off: `[source] expose_new_modules = false` in source/meta/settings.toml)"
                    }
                    _ => "the file",
                },
            ),
        ],
        sections: vec![ContentsRow::section(
            "Contents",
            rows,
            "This folder is empty.",
        )],
        ..Entry::default()
    }
}

/// The outline of `module`'s members under `parent` (the module itself when `None`);
/// `file` is the module's path in the project, which line ranges refer to.
fn members(module: &Module, dotted: &str, parent: Option<usize>, here: &str, file: &str) -> Entry {
    let parent_dir = here
        .trim_end_matches('/')
        .rsplit_once('/')
        .map(|(p, _)| p)
        .unwrap_or("");
    let symbols = &module.index.symbols;
    let qual = |index: usize| {
        symbols
            .get(index)
            .map(|s| s.qualname.join("."))
            .unwrap_or_default()
    };
    let name = match parent {
        Some(index) => format!("{dotted}.{}", qual(index)),
        None => dotted.to_string(),
    };
    let mut about = Vec::new();
    if let Some(why) = &module.unreadable {
        about.push(format!("**Cannot show symbols:** {why}"));
    }
    if !module.index.problems.is_empty() {
        about.push(format!(
            "**Syntax errors** ({}); symbols after the first one are not shown:",
            module.index.problems.len()
        ));
        for problem in module.index.problems.iter().take(5) {
            about.push(format!(
                "- line {}, column {}: {}",
                problem.line, problem.column, problem.message
            ));
        }
    }
    let title = match parent {
        Some(index) => {
            let symbol = &symbols[index];
            let members = symbols.iter().filter(|s| s.parent == Some(index)).count();
            format!(
                "{name} — class{} at {file}:{}-{} ({members} member{}){}",
                symbol.signature,
                symbol.first_line,
                symbol.first_line + symbol.lines.saturating_sub(1),
                plural(members),
                symbol
                    .doc
                    .as_ref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )
        }
        // Without a docstring the counts follow the name: `attr._cmp (0 classes, ...)`.
        None => match module_about(module) {
            about if about.starts_with('(') => format!("{name} {about}"),
            about => format!("{name} — {about}"),
        },
    };
    if parent.is_none() {
        about.insert(0, format!("Line ranges are of `{file}`."));
    }
    let verbatim: Vec<String> = symbols
        .iter()
        .filter(|s| s.parent == parent && !s.exact_dedent)
        .map(|s| format!("`{}.py`", s.file_stem))
        .collect();
    if !verbatim.is_empty() {
        about.push(format!(
            "Not dedented, shown as they stand in the module (a line inside starts left of the \
             `def`, so dedenting could not be undone): {}. Write them back indented the same way.",
            verbatim.join(", ")
        ));
    }
    // The example is the first member that ranks highest, so not a private helper.
    let example = symbols
        .iter()
        .filter(|s| s.parent == parent)
        .min_by_key(|s| outline::privacy(s.qualname.last().map_or("", String::as_str)))
        .map(|s| s.file_stem.clone())
        .unwrap_or_else(|| "<name>".into());
    let source_file = match parent {
        Some(index) => format!("{}.py", symbols[index].file_stem),
        None => format!("{}.py", dotted.rsplit('.').next().unwrap_or(dotted)),
    };
    Entry {
        title,
        about,
        functions: vec![
            Function::new(format!("cat {here}{example}.py"), "read one symbol", "its exact source, dedented"),
            Function::new(format!("cp fixed.py {here}{example}.py"), "replace it (sed -i, vim, echo > too)", "module rewritten, or refused with line:column"),
            Function::new(format!("cp new.py {here}<name>.py"), "add symbols", if parent.is_some() { "appended to the class; a file may define several, <name> one of them" } else { "appended to the module; a file may define several, <name> one of them" }),
            Function::new("mv a.py b.py / rm a.py", "rename / delete", "def name changed (not callers) / symbol removed"),
            Function::new(format!("cat {parent_dir}/{source_file}"), "read all of it", "the exact source"),
        ],
        sections: vec![outline::symbol_table(module, parent)],
        advanced: vec![
            "`name.py` is a name's first definition or, when overloaded, its implementation; the others (a setter, `@overload` stubs) are `name@2.py`, `name@3.py`.".into(),
            "Symbol files start at the comment lines directly above the decorators and are dedented to column 0, docstrings too.".into(),
        ],
    }
}

/// ` (toolz/tests/, …)`: the folders holding test modules of a project without a test
/// folder at its top, by path from the project's folder.
fn test_homes(source: &Source) -> String {
    let mut homes: Vec<String> = Vec::new();
    for file in source.project.python_files() {
        if !source.project.pytest_collects(&file) {
            continue;
        }
        let Some(dir) = file
            .parent()
            .and_then(|d| d.strip_prefix(&source.project.root).ok())
        else {
            continue;
        };
        let shown = format!("{}/", dir.display());
        if !homes.contains(&shown) {
            homes.push(shown);
        }
    }
    match homes.len() {
        0 => String::new(),
        n if n > 3 => format!(" ({}, …)", homes[..3].join(", ")),
        _ => format!(" ({})", homes.join(", ")),
    }
}
