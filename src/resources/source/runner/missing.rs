//! What a failure says when the tests need something the interpreter running them lacks:
//! a fixture pytest knows no definition of (no conftest.py defines it, no installed plugin
//! does), or a module that is not installed. The test ran none of its code, so no suspect
//! can explain it: its failure says what is missing instead, which packages the project
//! declares that would bring it, and the command that installs them where the tests run.

use crate::resources::source::deps::{DEPS, DeclaredPackage, declared_packages};
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::runner::Runner;
use crate::store::runs;

/// What a failing test needed and did not find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lacking<'a> {
    /// A fixture, by name (`failed on setup: fixture 'benchmark' not found`).
    Fixture(&'a str),
    /// The fixture a project's fixture of the same name wraps, which a plugin defines
    /// (requests' `def httpbin(httpbin)` over pytest-httpbin's): without the plugin,
    /// pytest says `recursive dependency involving fixture 'httpbin' detected`.
    Wrapped(&'a str),
    /// A module that is not the project's, by its top-level name (`No module named
    /// 'freezegun.api'` lacks `freezegun`).
    Module(&'a str),
}

/// What `message` says its test lacked, if that is why it failed.
fn lacking(message: &str) -> Option<Lacking<'_>> {
    if let Some((_, rest)) = message.split_once("fixture '")
        && let Some((name, tail)) = rest.split_once('\'')
        && tail.starts_with(" not found")
    {
        return Some(Lacking::Fixture(name));
    }
    if let Some((_, rest)) = message.split_once("recursive dependency involving fixture '")
        && let Some((name, tail)) = rest.split_once('\'')
        && tail.starts_with(" detected")
    {
        return Some(Lacking::Wrapped(name));
    }
    // Only a test module that could not be imported ran none of its code: a test that
    // reached an import of a missing module ran project code on the way, which its
    // suspects explain (six imports `_dbm` lazily, in `six.moves`).
    lacking_module(message.strip_prefix("collecting it failed: ")?)
}

/// The module an import error (`ModuleNotFoundError: No module named 'x.y'`) lacks.
fn lacking_module(cause: &str) -> Option<Lacking<'_>> {
    let (_, rest) = cause.split_once("ModuleNotFoundError: No module named '")?;
    let module = rest.split('\'').next()?;
    let provided = super::distributions::provided(module);
    // `_dbm`, `_ctypes`: a module of Python's own build, which no package installs.
    (!provided.is_empty() && !provided.starts_with('_')).then_some(Lacking::Module(provided))
}

/// A package name as PEP 503 compares it: `Py_YAML` and `py-yaml` are one.
fn normalised(name: &str) -> String {
    name.to_lowercase().replace(['_', '.'], "-")
}

/// The interpreter of a run's command line (`PYTHONPATH=src /venv/bin/python -m pytest
/// …`), quoted for a shell as it was.
fn interpreter_of(command: &str) -> Option<String> {
    let words = shlex::split(command)?;
    let at = words
        .windows(2)
        .position(|w| w[0] == "-m" && w[1] == "pytest")?;
    let python = words.get(at.checked_sub(1)?)?;
    shlex::try_quote(python).ok().map(|q| q.into_owned())
}

/// pytest's list of the fixtures it has, from the text of a failed lookup.
fn available_fixtures(traceback: &str) -> Vec<&str> {
    traceback
        .lines()
        .find_map(|l| l.split_once("available fixtures: "))
        .map(|(_, names)| names.split(", ").map(str::trim).collect())
        .unwrap_or_default()
}

/// `packages` as `a (extra tests), b (group dev)`.
fn listed(packages: &[&DeclaredPackage]) -> String {
    packages
        .iter()
        .map(|p| format!("{} ({})", p.name, p.place))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Declared pytest plugins listed in a note: a project rarely declares more.
const PLUGINS: usize = 6;

impl Runner {
    /// What a failure with `message` lacked, when that is why it failed: a fixture, or a
    /// module of no folder or file of the project (a missing module of the project's own
    /// is its code's fault, which the suspects explain).
    pub(crate) fn lacked<'a>(&self, message: &'a str) -> Option<Lacking<'a>> {
        self.not_the_project_s(lacking(message)?)
    }

    /// The module the error that kept pytest from starting lacks (a conftest.py's import:
    /// marshmallow's of simplejson), when it is not the project's.
    pub(crate) fn lacked_at_start<'a>(&self, cause: &'a str) -> Option<Lacking<'a>> {
        self.not_the_project_s(lacking_module(cause)?)
    }

    /// `lacked`, unless it is a module of the project's own.
    fn not_the_project_s<'a>(&self, lacked: Lacking<'a>) -> Option<Lacking<'a>> {
        if let Lacking::Module(module) = lacked {
            let top = module.split('.').next().unwrap_or(module);
            let homes = std::iter::once(self.project.root.clone())
                .chain(self.project.code_roots.iter().cloned())
                .chain(self.project.test_dirs());
            for home in homes {
                if home.join(top).is_dir() || home.join(format!("{top}.py")).is_file() {
                    return None;
                }
            }
        }
        Some(lacked)
    }

    /// The lines a failure that `lacked` something says instead of suspects, each opening
    /// with `indent`: what is missing, what the project declares that would bring it, and
    /// how to install it for the interpreter that ran `run`.
    pub(crate) fn lacking_lines(
        &self,
        run: &runs::Run,
        lacked: &Lacking,
        traceback: &str,
        indent: &str,
    ) -> String {
        let python = interpreter_of(&run.command).unwrap_or_else(|| "<interpreter>".into());
        let mut declared = declared_packages(&self.project.root);
        let mut seen = std::collections::HashSet::new();
        declared.retain(|p| seen.insert(p.name.clone()));
        let deps = self.links.folder(&tree_path(DEPS));
        match lacked {
            Lacking::Fixture(fixture) | Lacking::Wrapped(fixture) => {
                let mut text = match lacked {
                    Lacking::Wrapped(_) => format!(
                        "{indent}no test code ran: the project's fixture `{fixture}` asks for \
                         the fixture of its own name that a plugin defines, and no plugin \
                         installed for {python} does\n"
                    ),
                    _ => format!(
                        "{indent}no test code ran: pytest knows no fixture `{fixture}`: no \
                         conftest.py of the project defines it, and no plugin installed for \
                         {python} does\n"
                    ),
                };
                // A name close to one pytest has is a typo, whatever is declared.
                let typo = matches!(lacked, Lacking::Fixture(_));
                let closest = available_fixtures(traceback)
                    .into_iter()
                    .filter(|name| typo && name != fixture)
                    .map(|name| (strsim::jaro_winkler(fixture, name), name))
                    .filter(|(score, _)| *score >= 0.85)
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((_, name)) = closest {
                    text.push_str(&format!("{indent}did you mean `{name}`?\n"));
                    return text;
                }
                let wanted = normalised(fixture);
                let mut plugins: Vec<&DeclaredPackage> = declared
                    .iter()
                    .filter(|p| p.name.starts_with("pytest-"))
                    .collect();
                // The plugin named after the fixture (pytest-benchmark for `benchmark`)
                // first.
                plugins.sort_by_key(|p| !p.name.contains(&wanted));
                plugins.truncate(PLUGINS);
                if plugins.is_empty() {
                    text.push_str(&format!(
                        "{indent}define it in a conftest.py, or install the plugin that does \
                         (`{python} -m pip install <plugin>`) and declare it in {deps}\n"
                    ));
                } else {
                    let names: Vec<&str> = plugins.iter().map(|p| p.name.as_str()).collect();
                    text.push_str(&format!(
                        "{indent}the project declares the pytest plugins {}: install them there: \
                         `{python} -m pip install {}`\n",
                        listed(&plugins),
                        names.join(" ")
                    ));
                }
                text
            }
            Lacking::Module(module) => {
                module_line(module, providing(module, &declared), &python, &deps, indent)
            }
        }
    }

    /// For a test that ran code and then an import of a module the interpreter lacks
    /// (pyparsing's tests reach `railroad` through its diagrams): the line saying which
    /// declared package provides it, beside the suspects; `None` when the project declares
    /// none (the suspects explain the import). Not for a test that ran no code: its
    /// failure says what it [`Runner::lacked`] instead of suspects.
    pub(crate) fn declared_but_missing(
        &self,
        run: &runs::Run,
        message: &str,
        indent: &str,
    ) -> Option<String> {
        let Lacking::Module(module) = self.not_the_project_s(lacking_module(message)?)? else {
            return None;
        };
        let declared = declared_packages(&self.project.root);
        let provided = providing(module, &declared);
        if matches!(provided, Providing::Undeclared(_)) {
            return None;
        }
        let python = interpreter_of(&run.command).unwrap_or_else(|| "<interpreter>".into());
        let deps = self.links.folder(&tree_path(DEPS));
        Some(module_line(module, provided, &python, &deps, indent))
    }
}

/// The line saying that `module` is not installed for `python`, and which package
/// (`provided`) would bring it; `deps` is where to declare one.
fn module_line(
    module: &str,
    provided: Providing,
    python: &str,
    deps: &str,
    indent: &str,
) -> String {
    match provided {
        Providing::Declared(package) => format!(
            "{indent}`{module}` is not installed for {python}; the project declares \
             {} ({}): `{python} -m pip install {}`\n",
            package.name, package.place, package.name
        ),
        Providing::Likely(package) => format!(
            "{indent}`{module}` is not installed for {python}; the project declares \
             {} ({}), which likely provides it: `{python} -m pip install {}`\n",
            package.name, package.place, package.name
        ),
        Providing::Undeclared(likely) => format!(
            "{indent}`{module}` is not installed for {python}, and the project \
             declares no package that provides it; the usual one is {likely}: \
             `{python} -m pip install {likely}`, and declare it in {deps}\n"
        ),
    }
}

/// Which package would bring a module the interpreter lacks.
enum Providing<'d> {
    /// One the project declares by that name.
    Declared(&'d DeclaredPackage),
    /// The one declared package whose name begins with the module's (`railroad` from
    /// `railroad-diagrams`); type stubs (`pandas-stubs`) provide no module.
    Likely(&'d DeclaredPackage),
    /// None the project declares: the package that usually provides it.
    Undeclared(String),
}

fn providing<'d>(module: &str, declared: &'d [DeclaredPackage]) -> Providing<'d> {
    let likely = super::distributions::likely_package(module);
    let wanted = [
        normalised(module),
        normalised(&likely),
        format!("python-{}", normalised(module)),
    ];
    if let Some(package) = declared.iter().find(|p| wanted.contains(&p.name)) {
        return Providing::Declared(package);
    }
    let prefix = format!("{}-", normalised(module));
    let named_after: Vec<&DeclaredPackage> = declared
        .iter()
        .filter(|p| p.name.starts_with(&prefix) && !p.name.ends_with("-stubs"))
        .collect();
    match named_after.as_slice() {
        [package] => Providing::Likely(package),
        _ => Providing::Undeclared(likely),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_fixture_or_module_is_read_from_the_message() {
        assert_eq!(
            lacking("failed on setup: fixture 'benchmark' not found"),
            Some(Lacking::Fixture("benchmark"))
        );
        assert_eq!(
            lacking("collecting it failed: ModuleNotFoundError: No module named 'freezegun.api'"),
            Some(Lacking::Module("freezegun"))
        );
        assert_eq!(
            lacking("ModuleNotFoundError: No module named 'yaml'"),
            None,
            "a test that ran into the import ran code"
        );
        assert_eq!(
            lacking("collecting it failed: ModuleNotFoundError: No module named '_dbm'"),
            None,
            "no package installs a module of Python's build"
        );
        assert_eq!(
            lacking("failed on setup: recursive dependency involving fixture 'httpbin' detected"),
            Some(Lacking::Wrapped("httpbin"))
        );
        assert_eq!(lacking("AssertionError: assert 'fixture' == 1"), None);
        assert_eq!(lacking("ImportError: cannot import name 'x'"), None);
    }

    #[test]
    fn the_interpreter_is_read_from_the_run_s_command_line() {
        assert_eq!(
            interpreter_of(
                "PYTHONPATH=src:. PYTHONDONTWRITEBYTECODE=1 /v/bin/python3.11 -m pytest '--rootdir=.'"
            )
            .as_deref(),
            Some("/v/bin/python3.11")
        );
        assert_eq!(
            interpreter_of("PYTHONPATH=src '/my venv/bin/python' -m pytest -q").as_deref(),
            Some("'/my venv/bin/python'")
        );
        assert_eq!(interpreter_of("pytest -q"), None);
    }

    #[test]
    fn pytest_s_list_of_fixtures_is_read_from_the_lookup_s_text() {
        let text = "  def test_x(tmp_pth):\nE       fixture 'tmp_pth' not found\n>       available fixtures: cache, tmp_path, tmpdir\n>       use 'pytest --fixtures [testpath]' for help on them.\n";
        assert_eq!(available_fixtures(text), ["cache", "tmp_path", "tmpdir"]);
    }
}
