//! Routed edits of the project. Writing `m.py` replaces the module; writing a symbol file
//! replaces that symbol in its module, re-indented to where it lives; a new `name.py` in a
//! module or class directory appends a symbol, in a package directory creates a module
//! (exposed in the package's `__init__.py`); `mv` renames a symbol's definition; `rm`
//! deletes it. Every edit is validated first (nothing reaches the disk otherwise), then
//! computes the new contents of the files it touches from what they hold now (locating
//! the symbol afresh) and hands them to a [`ProjectChange`], which locks, writes,
//! import-checks (rolling back if the import fails) and records in `source/history/`.

use std::path::Path;

use crate::error::{Error, ErrorKind, Result};
use crate::model::count::one_or_many;
use crate::python::{DottedName, check_syntax, symbol_text};
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::{ProjectChange, conflict};
use crate::resources::source::edit::files::check_data_file;
use crate::resources::source::edit::text::{
    self, check_module_file, check_new_symbols_file, check_symbol_file, is_identifier, stem_name,
};
use crate::resources::source::edit::{exposure, importers};
use crate::resources::source::modules::Module;
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::member_path::MemberPath;
use crate::resources::source::places::paths::{RESERVED, RUNNER_NAMES, Resolved, TESTS, locate};
use crate::resources::source::project::EntryKind;

impl Editor {
    /// Route a write of `content` to `path` (see the module doc).
    pub(crate) fn write_path(
        &self,
        path: &[&str],
        content: &[u8],
        base: Option<&[u8]>,
    ) -> Result<()> {
        let shown = self.links.file(&tree_path_of(path));
        let Some((name, parent)) = path.split_last() else {
            return Err(Error::new(
                ErrorKind::IsADirectory,
                format!("{shown} is a directory"),
            ));
        };
        // The parent is walked once: a new file is created from where it leads.
        let parent = self.places.walk(None, parent)?;
        match self
            .places
            .walk_on(None, parent.clone(), &[name])
            .map(|walked| walked.place)
        {
            Ok(Resolved::ModuleFile { disk, dotted }) => {
                self.write_module(&shown, &disk, &dotted, content, base)
            }
            Ok(Resolved::Symbol {
                disk,
                dotted,
                inner,
                ..
            }) => self.write_symbol(&shown, &disk, &dotted, &inner, content, base),
            Ok(Resolved::DataFile { disk }) => {
                let mut change = ProjectChange::begin(self, &[&disk])?;
                let old = change.old(&disk)?;
                if old == Some(content) {
                    return Ok(());
                }
                check_data_file(&shown, &disk, old, content)?;
                change.expect(&disk, base, &shown)?;
                change.write(&disk, content, format!("write {}", self.rel(&disk)))?;
                change.commit()
            }
            Ok(_) => Err(Error::new(
                ErrorKind::IsADirectory,
                format!("{shown} is a directory"),
            )),
            Err(missing) if missing.kind == ErrorKind::NotFound => {
                self.create(path, parent.place, content, missing)
            }
            Err(other) => Err(other),
        }
    }

    /// Whether `path` may be created: a symbol in a module or class directory, a module or
    /// data file in a package directory.
    pub(crate) fn creatable(&self, path: &[&str]) -> Result<()> {
        let (_, parent) = path
            .split_last()
            .ok_or_else(|| Error::not_permitted("source/ itself cannot be created"))?;
        self.creatable_in(path, &self.places.resolve(None, parent)?)
    }

    /// Whether `path` may be created, its parent leading to `parent_place`.
    fn creatable_in(&self, path: &[&str], parent_place: &Resolved) -> Result<()> {
        let (name, parent) = path
            .split_last()
            .ok_or_else(|| Error::not_permitted("source/ itself cannot be created"))?;
        let shown = self.links.file(&tree_path_of(path));
        if self.mistaken_for_runner(path, parent_place) {
            return Err(self.runner_not_available(&shown));
        }
        match parent_place {
            Resolved::Members { .. } => match name.strip_suffix(".py") {
                Some(ident) if is_identifier(ident) => Ok(()),
                _ => Err(Error::invalid(format!(
                    "{shown}: a new symbol file is called <name>.py, where name is a Python identifier (`send.py`)"
                ))),
            },
            place @ (Resolved::Dir { .. } | Resolved::Root) => match name.strip_suffix(".py") {
                Some(ident) if is_identifier(ident) => self.module_name_free(place, ident, &shown),
                Some(_) => Err(Error::invalid(format!(
                    "{shown}: a module's name must be a Python identifier"
                ))),
                None if name.starts_with('-') => Err(Error::invalid(format!(
                    "{shown} was not created: a name starting with `-` is read as an option \
                     by shell tools; name the file without it"
                ))),
                None => self.file_name_shown(place, parent.is_empty(), name, &shown),
            },
            // Made in the project's first test folder, `tests/`, if it may be.
            Resolved::TestsRoot => {
                self.first_test_folder_allowed(&shown, "was not created")?;
                let folder = self.project.root.join(TESTS);
                let place = Resolved::Dir {
                    dotted: self.project.dotted_of_test_dir(&folder),
                    disk: folder,
                };
                self.creatable_in(path, &place)
            }
            _ => Err(Error::not_permitted(format!(
                "nothing can be created in source/{}",
                parent.join("/")
            ))),
        }
    }

    /// Whether a new module `ident` may be made in `place` (a package or the top of
    /// source/): not under a name source/ keeps for itself at the top (`deps`, `history`,
    /// …: its members would be only at the unlisted `.history/`), nor beside a folder of the same name (Python
    /// imports the package and never the module).
    fn module_name_free(&self, place: &Resolved, ident: &str, shown: &str) -> Result<()> {
        let dirs = match place {
            Resolved::Root => {
                if RESERVED.contains(&ident) {
                    return Err(Error::not_permitted(format!(
                        "{shown} was not created: source/{ident}/ is homespace's own, so a \
                         module {ident} at the top would have its symbols only at the unlisted \
                         source/.{ident}/; name the module otherwise, or make it inside a package"
                    )));
                }
                self.project.code_roots.clone()
            }
            Resolved::Dir { disk, .. } => vec![disk.clone()],
            _ => Vec::new(),
        };
        match dirs.iter().map(|dir| dir.join(ident)).find(|d| d.is_dir()) {
            Some(package) => Err(Error::exists(format!(
                "{shown} was not created: the folder {} is there, and Python imports it, never \
                 a module {ident}.py beside it; edit {} instead",
                package.display(),
                shown.trim_end_matches(".py").to_string() + "/__init__.py"
            ))),
            None => Ok(()),
        }
    }

    /// Whether `path` is the runner's name where a user would take it for the runner:
    /// right under a top-level folder (`source/testing/run`) or beside test modules that
    /// pytest finds outside the test folders (`source/toolz/tests/run`). It would be a
    /// stray file in the project, never a run. Inside a test folder under `tests/`, the
    /// names are the project's again.
    fn mistaken_for_runner(&self, path: &[&str], parent_place: &Resolved) -> bool {
        let Some(name) = path.last() else {
            return false;
        };
        if !RUNNER_NAMES.contains(name) || path.first() == Some(&TESTS) {
            return false;
        }
        let Resolved::Dir { disk, .. } = parent_place else {
            return false;
        };
        path.len() == 2
            || self.project.list_dir(None, disk).is_ok_and(|entries| {
                entries
                    .iter()
                    .any(|e| e.kind == EntryKind::Module && self.project.pytest_collects(&e.path))
            })
    }

    /// Why `source/tests/run` or `runs` cannot be made: EPERM, the name is not the project's.
    fn runner_not_available(&self, shown: &str) -> Error {
        let tests = self.links.dir(&["source", TESTS]);
        let module = match self.project.test_dirs().len() {
            0 | 1 => format!("{tests}<module>.py"),
            _ => format!("{tests}<folder>/<module>.py"),
        };
        Error::not_permitted(format!(
            "{shown} was not created: `run` and `runs` belong to the test runner (write a \
             pytest selector to {tests}run; results appear in {tests}runs/); they never \
             become project files.\n\
             Test modules are edited as {module}"
        ))
    }

    /// Create `path`, whose parent leads to `parent` and which `missing` says is not there.
    fn create(
        &self,
        path: &[&str],
        parent: Resolved,
        content: &[u8],
        missing: Error,
    ) -> Result<()> {
        let Some((name, _)) = path.split_last() else {
            return Err(missing);
        };
        self.creatable_in(path, &parent)?;
        let shown = self.links.file(&tree_path_of(path));
        match parent {
            Resolved::Members {
                disk,
                dotted,
                inner,
                ..
            } => {
                let ident = name.trim_end_matches(".py");
                // A new file may bring several definitions at once (a test module's new
                // tests, a class's new methods), added in order as one edit.
                let new = check_new_symbols_file(&shown, content, ident, self.target_version())?;
                let (text, names) = (new.text, &new.names);
                let added: Vec<String> = names.iter().map(|n| inner.qualname_of(n)).collect();
                self.change_module(
                    &disk,
                    &dotted,
                    &format!("add {dotted}.{}", added.join(", ")),
                    |module, module_text| {
                        let parent_index = match inner.is_empty() {
                            true => None,
                            false => Some(located(module, &inner, &disk)?.0),
                        };
                        if edit_conflict_name(module, parent_index, ident) {
                            return Err(Error::exists(format!(
                                "{shown} already exists: write it to change it"
                            )));
                        }
                        let taken: Vec<&String> = names
                            .iter()
                            .filter(|n| edit_conflict_name(module, parent_index, n))
                            .collect();
                        if !taken.is_empty() {
                            return Err(Error::exists(format!(
                                "{shown} was not added: {} already exist{} here; write {} to change {}",
                                taken.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                                one_or_many(taken.len(), "s", ""),
                                taken.iter().map(|n| format!("{n}.py")).collect::<Vec<_>>().join(", "),
                                one_or_many(taken.len(), "it", "them")
                            )));
                        }
                        // Appended first: the module's index locates the class.
                        let appended =
                            text::append_symbol(module_text, &module.index, parent_index, text);
                        Ok(text::add_imports(&appended, &new.imports))
                    },
                )
            }
            Resolved::Dir { disk: dir, dotted } => {
                self.create_file(&dir.join(name), &dotted, name, content, &shown)
            }
            Resolved::Root => {
                // A module goes where the packages are (`src/`), any other file to the
                // project's top, beside its README.
                let dir = match name.ends_with(".py") {
                    true => self.code_root(),
                    false => self.project.root.clone(),
                };
                self.create_file(
                    &dir.join(name),
                    &DottedName::default(),
                    name,
                    content,
                    &shown,
                )
            }
            Resolved::TestsRoot => {
                self.in_first_test_folder(&shown, "was not created", |folder, dotted| {
                    self.create_file(&folder.join(name), dotted, name, content, &shown)
                })
            }
            _ => Err(missing),
        }
    }

    /// Create a module (exposed in `__init__.py`) or a data file at `file`.
    fn create_file(
        &self,
        file: &Path,
        package: &DottedName,
        name: &str,
        content: &[u8],
        shown: &str,
    ) -> Result<()> {
        let exists = || Error::exists(format!("{shown} already exists"));
        // The empty __init__.py mkdir made is not shown: a copy of the package brings its
        // own, which takes its place.
        if name == "__init__.py" && self.project.is_made_init(file) {
            self.project.shown_init(file);
            let text = check_module_file(shown, content, self.target_version())?;
            if text.is_empty() {
                return Ok(());
            }
            let mut change = ProjectChange::begin(self, &[file])?;
            change.write(file, text, format!("replace module {package}"))?;
            change.import_check(package.to_string());
            change.awaits_modules_of(package.to_string());
            return change.commit();
        }
        // Asked first, and again under the lock: a directory of that name (one the tree
        // hides) cannot be read as a file, and is "already there" all the same.
        if file.exists() {
            return Err(exists());
        }
        let Some(stem) = name.strip_suffix(".py") else {
            let mut change = ProjectChange::begin(self, &[file])?;
            if change.old(file)?.is_some() {
                return Err(exists());
            }
            check_data_file(shown, file, None, content)?;
            change.write(file, content, format!("create {}", self.rel(file)))?;
            return change.commit();
        };
        let text = check_module_file(shown, content, self.target_version())?;
        let dotted = match stem {
            "__init__" => package.clone(),
            _ => package.child(stem),
        };
        let init = file.with_file_name("__init__.py");
        let may_expose = stem != "__init__"
            && !exposure::is_private(stem)
            && self.settings.current().expose_new_modules
            && init.is_file()
            && !self.project.is_test_dir(file.parent().unwrap_or(file))
            && !exposure::is_tests(package, self.project.is_test_file(file));
        let touched: &[&Path] = if may_expose { &[file, &init] } else { &[file] };
        let mut change = ProjectChange::begin(self, touched)?;
        if change.old(file)?.is_some() {
            return Err(exists());
        }
        change.write(file, text, format!("create module {dotted}"))?;
        let mut exposed = false;
        if may_expose {
            let before = String::from_utf8_lossy(change.existing(&init)?).into_owned();
            if let Some(style) =
                exposure::style(&crate::python::index_module(&before).names, package)
                && !exposure::imports_module(&before, package, stem)
            {
                let after = exposure::expose(&before, package, stem, &style);
                change.write(&init, after, format!("expose {dotted} in {package}"))?;
                exposed = true;
            }
        }
        // Nothing imports a new module yet, unless its package now does: only then would
        // a sibling it imports, not written yet, break what worked.
        if !exposed && !package.is_empty() {
            change.awaits_modules_of(package.to_string());
        }
        change.import_check(dotted.to_string());
        change.commit()
    }

    fn write_module(
        &self,
        shown: &str,
        file: &Path,
        dotted: &DottedName,
        content: &[u8],
        base: Option<&[u8]>,
    ) -> Result<()> {
        let text = check_module_file(shown, content, self.target_version())?;
        let mut change = ProjectChange::begin(self, &[file])?;
        let before = change.existing(file)?;
        if before == content {
            return Ok(());
        }
        if text.trim().is_empty() && !String::from_utf8_lossy(before).trim().is_empty() {
            return Err(Error::invalid(format!(
                "{shown} was not saved: it is empty, and would lose the whole module. \
                 To delete the module use `rm {shown}`"
            )));
        }
        change.expect(file, base, shown)?;
        let removed = importers::removed_names(
            &crate::python::index_module(&String::from_utf8_lossy(before)),
            text,
        );
        change.write(file, text, format!("replace module {dotted}"))?;
        change.import_check(dotted.to_string());
        change.import_checks(self.importers_of(&dotted.to_string(), file, &removed));
        change.commit()
    }

    fn write_symbol(
        &self,
        shown: &str,
        file: &Path,
        dotted: &DottedName,
        inner: &MemberPath,
        content: &[u8],
        base: Option<&[u8]>,
    ) -> Result<()> {
        let text = check_symbol_file(
            shown,
            content,
            stem_name(inner.stem()),
            self.target_version(),
        )?;
        self.change_module(
            file,
            dotted,
            &format!("replace {dotted}.{}", inner.qualname()),
            |module, module_text| {
                let (index, _) = located(module, inner, file)?;
                let symbol = &module.index.symbols[index];
                if let Some(base) = base
                    && symbol_text(module_text, symbol).as_bytes() != base
                {
                    return Err(conflict(shown));
                }
                if let Some(refusal) = overload_turned(module, index, text, shown) {
                    return Err(refusal);
                }
                Ok(text::replace_symbol(
                    module_text,
                    &module.index,
                    symbol,
                    text,
                ))
            },
        )
    }

    /// Read the module `file` afresh under its lock, compute its new text with `edit`,
    /// check that it parses, and apply it as one [`ProjectChange`] import-checking `dotted`.
    fn change_module(
        &self,
        file: &Path,
        dotted: &DottedName,
        what: &str,
        edit: impl FnOnce(&Module, &str) -> Result<String>,
    ) -> Result<()> {
        let mut change = ProjectChange::begin(self, &[file])?;
        let before = change.existing(file)?;
        let module = Module::parse(before.to_vec(), std::time::SystemTime::now());
        let after = edit(&module, module.text()?)?;
        if after.as_bytes() == before {
            return Ok(());
        }
        let problems = check_syntax(&after);
        if !problems.is_empty() {
            let lines: Vec<String> = problems
                .iter()
                .map(|p| format!("- line {}, column {}: {}", p.line, p.column, p.message))
                .collect();
            return Err(Error::invalid(format!(
                "{what}: the module would not be valid Python afterwards (lines of {}):\n{}",
                file_name(file),
                lines.join("\n")
            )));
        }
        // A top-level name taken away may break the modules that import it: check them too.
        let removed = importers::removed_names(&module.index, &after);
        change.write(file, after, what)?;
        change.import_check(dotted.to_string());
        change.import_checks(self.importers_of(&dotted.to_string(), file, &removed));
        change.commit()
    }

    /// `rm`: a symbol from its module, or a module or data file from the project.
    pub(crate) fn remove_path(&self, path: &[&str]) -> Result<()> {
        let shown = self.links.file(&tree_path_of(path));
        match self.places.resolve(None, path)? {
            Resolved::Symbol {
                disk,
                dotted,
                inner,
                ..
            } => {
                let what = format!("delete {dotted}.{}", inner.qualname());
                self.change_module(&disk, &dotted, &what, |module, text| {
                    let (index, _) = located(module, &inner, &disk)?;
                    Ok(text::remove_symbol(text, &module.index.symbols[index]))
                })
            }
            Resolved::ModuleFile { disk: file, dotted } => self.remove_module(&file, &dotted),
            Resolved::DataFile { disk: file } => {
                let mut change = ProjectChange::begin(self, &[&file])?;
                change.existing(&file)?;
                change.delete(&file, format!("delete {}", self.rel(&file)))?;
                change.commit()
            }
            _ => Err(Error::not_permitted(format!(
                "{shown} is a directory of the tree; delete its files (symbols, modules) one by one"
            ))),
        }
    }

    /// Delete a module file, and the `from . import name` that exposed it in its package's
    /// `__init__.py`; the package and the modules that import it (tests too) are imported
    /// before and after, and a failure the deletion brings restores both, as any edit.
    fn remove_module(&self, file: &Path, dotted: &DottedName) -> Result<()> {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let init = file.with_file_name("__init__.py");
        let package = dotted.parent();
        let unexposes = stem != "__init__" && init.is_file();
        let touched: &[&Path] = if unexposes { &[file, &init] } else { &[file] };
        let mut change = ProjectChange::begin(self, touched)?;
        // Gone already: say it cannot be read, rather than that removing it failed.
        change.existing(file)?;
        change.delete(file, format!("delete module {dotted}"))?;
        if unexposes
            && let Some(after) = exposure::unexpose(
                &String::from_utf8_lossy(change.existing(&init)?),
                &package.clone().unwrap_or_default(),
                &stem,
            )
        {
            let what = format!(
                "stop importing {stem} in {}",
                package.clone().unwrap_or_default()
            );
            change.write(&init, after, what)?;
        }
        if let Some(package) = package {
            change.import_check(package.to_string());
        }
        let named = std::collections::BTreeSet::from([stem.clone()]);
        change.import_checks(self.importers_of(&dotted.to_string(), file, &named));
        change.commit()
    }

    /// `mv a.py b.py` of a module in its package: the file renamed, the import exposing it
    /// in `__init__.py` renamed with it, judged like any edit — the package, the module
    /// under its new name and every module that imported the old one are imported before
    /// and after, and a failure the rename brings undoes it, naming the module that fails.
    fn rename_module(
        &self,
        file: &Path,
        dotted: &DottedName,
        new_stem: &str,
        shown: &str,
    ) -> Result<()> {
        let old_stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let target = file.with_file_name(format!("{new_stem}.py"));
        if target.exists() || file.with_file_name(new_stem).is_dir() {
            return Err(Error::exists(format!(
                "{shown} was not renamed: {new_stem} is taken in its folder ({} is there)",
                target.with_extension("").display()
            )));
        }
        let package = dotted.parent().unwrap_or_default();
        let renamed = package.child(new_stem);
        let init = file.with_file_name("__init__.py");
        let what = format!("rename module {dotted} to {renamed}");
        let touched: Vec<&Path> = match init.is_file() {
            true => vec![file, &target, &init],
            false => vec![file, &target],
        };
        let mut change = ProjectChange::begin(self, &touched)?;
        let text = change.existing(file)?.to_vec();
        if change.old(&target)?.is_some() {
            return Err(Error::exists(format!(
                "{shown} was not renamed: {new_stem}.py exists"
            )));
        }
        change.write(&target, text, what.clone())?;
        change.delete(file, what.clone())?;
        if init.is_file()
            && let Some(after) = exposure::renamed(
                &String::from_utf8_lossy(change.existing(&init)?),
                &package,
                &old_stem,
                new_stem,
            )
        {
            change.write(&init, after, what)?;
        }
        if !package.is_empty() {
            change.import_check(package.to_string());
        }
        change.import_check(renamed.to_string());
        let named = std::collections::BTreeSet::from([old_stem]);
        change.import_checks(self.importers_of(&dotted.to_string(), file, &named));
        change.commit()
    }

    /// `mv a.py b.py` inside one container renames the definition of `a` to `b`; a file
    /// that is not Python moves to any folder of the project (see [`Editor::move_file`]).
    pub(crate) fn rename_path(&self, from: &[&str], to: &[&str]) -> Result<()> {
        let shown = self.links.file(&tree_path_of(from));
        if let Ok(Resolved::DataFile { disk }) = self.places.resolve(None, from) {
            return self.move_file(&disk, to, &shown);
        }
        let (Some((new_name, to_parent)), Some((_, from_parent))) =
            (to.split_last(), from.split_last())
        else {
            return Err(Error::not_permitted("cannot move source/ itself"));
        };
        if to_parent != from_parent {
            return Err(Error::not_permitted(format!(
                "{shown} can only be renamed inside its own directory; to move code, write it to the new place and rm it here"
            )));
        }
        let new_ident = new_name.strip_suffix(".py").unwrap_or(new_name);
        if !is_identifier(new_ident) {
            // EPERM, not EINVAL: `mv` prints EINVAL as "cannot move to a subdirectory of itself".
            return Err(Error::not_permitted(format!(
                "{new_name} is not a Python name: mv renames classes, functions and methods"
            )));
        }
        match self.places.resolve(None, from)? {
            Resolved::Symbol {
                disk,
                dotted,
                inner,
                ..
            }
            | Resolved::Members {
                disk,
                dotted,
                inner,
                ..
            } if !inner.is_empty() => {
                // (A module's own folder has no definition to rename: it is refused below.)
                let what = format!("rename {dotted}.{} to {new_ident}", inner.qualname());
                self.change_module(&disk, &dotted, &what, |module, text| {
                    let (index, _) = located(module, &inner, &disk)?;
                    let parent = module.index.symbols[index].parent;
                    if edit_conflict_name(module, parent, new_ident) {
                        return Err(Error::exists(format!("{new_ident} already exists there")));
                    }
                    text::rename_symbol(text, &module.index.symbols[index], new_ident)
                })
            }
            Resolved::ModuleFile { disk, dotted }
                if new_name.ends_with(".py")
                    && disk.file_stem().is_some_and(|s| s != "__init__")
                    && new_ident != "__init__" =>
            {
                self.rename_module(&disk, &dotted, new_ident, &shown)
            }
            _ => Err(Error::not_permitted(format!(
                "{shown} cannot be renamed here: mv renames modules in their package, and \
                 classes, functions and methods"
            ))),
        }
    }
}

fn located(module: &Module, inner: &MemberPath, file: &Path) -> Result<(usize, bool)> {
    locate(module, inner).ok_or_else(|| {
        Error::not_found(format!(
            "{} is no longer in {}: the file changed on disk; list the directory again",
            inner,
            file_name(file)
        ))
    })
}

/// Why `text`, written over definition `index` of an overloaded name, is refused: it turns
/// a stub into an implementation (no `@overload`) or the implementation into a stub. The
/// plain name's file is the implementation and the stubs are `name@N.py`, so either would
/// rename the files beside it, and the one written would read back as another.
fn overload_turned(module: &Module, index: usize, text: &str, shown: &str) -> Option<Error> {
    let symbol = &module.index.symbols[index];
    let name = symbol.qualname.last()?;
    let written = crate::python::index_module(text)
        .symbols
        .into_iter()
        .find(|s| s.parent.is_none())?;
    let overloaded = module.index.symbols.iter().enumerate().any(|(other, s)| {
        other != index && s.parent == symbol.parent && s.qualname.last() == Some(name)
    });
    if written.overload == symbol.overload || !overloaded {
        return None;
    }
    Some(Error::invalid(if symbol.overload {
        format!(
            "{shown} was not saved: it is an `@overload` stub of `{name}`, and without \
             `@overload` it would become the implementation, renaming the files beside it. \
             Keep the decorator; the implementation, the code that runs, is `{name}.py`"
        )
    } else {
        format!(
            "{shown} was not saved: it is the implementation of the overloaded `{name}`, and \
             with `@overload` it would become a stub, renaming the files beside it. Keep it \
             without the decorator; the stubs are `{name}@2.py` and on"
        )
    }))
}

/// Whether a member called `name` already exists under `parent`.
fn edit_conflict_name(module: &Module, parent: Option<usize>, name: &str) -> bool {
    module
        .index
        .symbols
        .iter()
        .any(|s| s.parent == parent && s.qualname.last().is_some_and(|n| n == name))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
