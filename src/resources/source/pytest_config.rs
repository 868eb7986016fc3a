//! pytest's own configuration of a project, read where pytest reads it and in its order:
//! `pytest.ini` (even without a `[pytest]` section), then `pyproject.toml`'s
//! `[tool.pytest.ini_options]`, `tox.ini`'s `[pytest]`, `setup.cfg`'s `[tool:pytest]`; the
//! first file that has the section is the only one read. Only the options that decide
//! where tests are: `testpaths`, `python_files` and `norecursedirs`.
//!
//! [`config_file`] is which file a run hands pytest with `-c`: pytest's own choice, made
//! within the project only (pytest would look above it too, and take a `pytest.ini`
//! another user left in a shared folder).

use std::path::Path;

/// The files pytest may read its configuration from, in the order it looks at them.
pub const CONFIG_FILES: &[&str] = &["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];

/// The files pytest 9 takes its configuration from, in the order it looks at them, each
/// with whether it counts only when it has pytest's section (`pytest.ini` counts even
/// empty).
const RUN_CONFIG_FILES: &[(&str, bool)] = &[
    ("pytest.toml", false),
    (".pytest.toml", false),
    ("pytest.ini", false),
    (".pytest.ini", false),
    ("pyproject.toml", true),
    ("tox.ini", true),
    ("setup.cfg", true),
];

/// The configuration file pytest would take in the project folder `root` alone: the first
/// of [`RUN_CONFIG_FILES`] that counts, else `pyproject.toml` if there is one (pytest 8.1+
/// settles on it then); `None` when the project has none.
pub fn config_file(root: &Path) -> Option<std::path::PathBuf> {
    let mut pyproject = None;
    for (name, needs_section) in RUN_CONFIG_FILES {
        let file = root.join(name);
        if !file.is_file() {
            continue;
        }
        if !needs_section {
            return Some(file);
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let counts = match *name {
            "pyproject.toml" => {
                pyproject = Some(file.clone());
                has_tool_pytest(&text)
            }
            "tox.ini" => ini_section(&text, "pytest").is_some(),
            _ => ini_section(&text, "tool:pytest").is_some(),
        };
        if counts {
            return Some(file);
        }
    }
    pyproject
}

/// Whether a pyproject.toml has `[tool.pytest]` (pytest 9's own table) or
/// `[tool.pytest.ini_options]`.
fn has_tool_pytest(text: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|doc| doc.get("tool")?.get("pytest").map(|_| ()))
        .is_some()
}

/// pytest's defaults for the options read here.
const PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];
const NORECURSEDIRS: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
];

/// Where pytest looks for tests in one project.
#[derive(Debug, Clone)]
pub struct PytestConfig {
    /// `testpaths`, as written (relative to the project root).
    pub testpaths: Vec<String>,
    /// `python_files`: the globs a test module's file name matches.
    python_files: Globs,
    /// `norecursedirs`: the globs of folder names pytest does not enter.
    norecursedirs: Globs,
}

/// Shell-style globs compiled once: a view of the source root asks of every module of the
/// project whether pytest collects it, and compiling a glob costs more than a stat.
#[derive(Debug, Clone)]
struct Globs(globset::GlobSet);

impl Globs {
    /// `globs`, leaving out any that is not a valid glob (pytest's fnmatch would match
    /// nothing with it either).
    fn new(globs: &[String]) -> Globs {
        let mut set = globset::GlobSetBuilder::new();
        for glob in globs {
            if let Ok(glob) = globset::Glob::new(glob) {
                set.add(glob);
            }
        }
        Globs(set.build().unwrap_or_else(|_| globset::GlobSet::empty()))
    }

    /// Whether `name` matches one of them.
    fn matches(&self, name: &str) -> bool {
        self.0.is_match(name)
    }
}

impl PytestConfig {
    /// The configuration of the project at `root`; pytest's defaults where no file says.
    pub fn read(root: &Path) -> PytestConfig {
        let mut testpaths = Vec::new();
        let mut python_files = owned(PYTHON_FILES);
        let mut norecursedirs = owned(NORECURSEDIRS);
        for name in CONFIG_FILES {
            let Ok(text) = std::fs::read_to_string(root.join(name)) else {
                continue;
            };
            let options = match *name {
                "pyproject.toml" => toml_options(&text),
                // pytest.ini is pytest's own file: it counts even when empty.
                "pytest.ini" => Some(ini_section(&text, "pytest").unwrap_or_default()),
                "tox.ini" => ini_section(&text, "pytest"),
                _ => ini_section(&text, "tool:pytest"),
            };
            let Some(options) = options else { continue };
            for (key, words) in options {
                match key.as_str() {
                    "testpaths" => testpaths = words,
                    "python_files" => python_files = words,
                    "norecursedirs" => norecursedirs = words,
                    _ => {}
                }
            }
            break;
        }
        PytestConfig {
            testpaths,
            python_files: Globs::new(&python_files),
            norecursedirs: Globs::new(&norecursedirs),
        }
    }

    /// Whether `name` is a test module's file name for pytest.
    pub fn is_test_module(&self, name: &str) -> bool {
        name.ends_with(".py") && self.python_files.matches(name)
    }

    /// Whether pytest leaves folder `name` out of its discovery.
    pub fn skips_dir(&self, name: &str) -> bool {
        self.norecursedirs.matches(name)
    }
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The options that decide where tests are, as (key, words).
type Options = Vec<(String, Vec<String>)>;

/// `[tool.pytest.ini_options]` of a pyproject.toml, if it has the table.
fn toml_options(text: &str) -> Option<Options> {
    let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
    let table = doc.get("tool")?.get("pytest")?.get("ini_options")?;
    let table = table.as_table_like()?;
    let mut options = Vec::new();
    for (key, item) in table.iter() {
        let words = match item.as_value() {
            Some(toml_edit::Value::Array(array)) => array
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            // pytest takes a string for a list option too, split on whitespace.
            Some(toml_edit::Value::String(s)) => words_of(s.value()),
            _ => continue,
        };
        options.push((key.to_string(), words));
    }
    Some(options)
}

/// Section `name` of an ini file, as pytest's iniconfig reads it: `key = value` or
/// `key: value`, indented lines continue the value, `#` and `;` start comments. `None`
/// when the file has no such section.
fn ini_section(text: &str, name: &str) -> Option<Options> {
    let mut options: Options = Vec::new();
    let mut inside = false;
    let mut found = false;
    let mut last_key: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            inside = header.trim() == name;
            found |= inside;
            last_key = None;
            continue;
        }
        if !inside {
            continue;
        }
        let continued = line.starts_with(char::is_whitespace);
        match last_key {
            Some(at) if continued => options[at].1.extend(words_of(trimmed)),
            _ => {
                let Some(split) = trimmed.find(['=', ':']) else {
                    continue;
                };
                let key = trimmed[..split].trim().to_string();
                options.push((key, words_of(&trimmed[split + 1..])));
                last_key = Some(options.len() - 1);
            }
        }
    }
    found.then_some(options)
}

fn words_of(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn tox_ini_pytest_section_gives_testpaths_as_pluggy_keeps_them() {
        let dir = project(&[(
            "tox.ini",
            "[tox]\nenvlist = py\n\n[pytest]\naddopts = -r a\ntestpaths = testing\n",
        )]);
        let config = PytestConfig::read(dir.path());
        assert_eq!(config.testpaths, ["testing"]);
    }

    #[test]
    fn setup_cfg_testpaths_continue_on_indented_lines() {
        let dir = project(&[(
            "setup.cfg",
            "[metadata]\nname = x\n[tool:pytest]\ntestpaths =\n    unit\n    integration\n",
        )]);
        assert_eq!(
            PytestConfig::read(dir.path()).testpaths,
            ["unit", "integration"]
        );
    }

    #[test]
    fn the_first_file_with_the_section_wins_even_an_empty_pytest_ini() {
        let dir = project(&[
            ("pytest.ini", ""),
            ("tox.ini", "[pytest]\ntestpaths = testing\n"),
        ]);
        assert!(PytestConfig::read(dir.path()).testpaths.is_empty());
        let dir = project(&[
            ("pyproject.toml", "[project]\nname = \"x\"\n"),
            ("tox.ini", "[pytest]\ntestpaths = testing\n"),
            ("setup.cfg", "[tool:pytest]\ntestpaths = other\n"),
        ]);
        assert_eq!(PytestConfig::read(dir.path()).testpaths, ["testing"]);
        let dir = project(&[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"t\"]\n",
            ),
            ("tox.ini", "[pytest]\ntestpaths = testing\n"),
        ]);
        assert_eq!(PytestConfig::read(dir.path()).testpaths, ["t"]);
    }

    #[test]
    fn a_run_takes_the_file_pytest_would_take_in_the_project() {
        let chosen = |files: &[(&str, &str)]| {
            let dir = project(files);
            config_file(dir.path()).map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        };
        assert_eq!(chosen(&[]), None);
        assert_eq!(
            chosen(&[("pyproject.toml", "[project]\nname = \"x\"\n")]).as_deref(),
            Some("pyproject.toml"),
            "without its table, when nothing else is"
        );
        assert_eq!(
            chosen(&[
                ("pyproject.toml", "[project]\nname = \"x\"\n"),
                ("tox.ini", "[tox]\n"),
                ("setup.cfg", "[tool:pytest]\n"),
            ])
            .as_deref(),
            Some("setup.cfg")
        );
        assert_eq!(
            chosen(&[
                ("pyproject.toml", "[tool.pytest]\nminversion = \"9.0\"\n"),
                ("setup.cfg", "[tool:pytest]\n"),
            ])
            .as_deref(),
            Some("pyproject.toml")
        );
        assert_eq!(
            chosen(&[("pytest.ini", ""), ("pytest.toml", "")]).as_deref(),
            Some("pytest.toml")
        );
    }

    #[test]
    fn python_files_and_norecursedirs_default_to_pytests_own() {
        let config = PytestConfig::read(project(&[]).path());
        assert!(config.is_test_module("test_core.py"));
        assert!(config.is_test_module("core_test.py"));
        assert!(!config.is_test_module("core.py"));
        assert!(config.skips_dir("build") && config.skips_dir(".tox"));
        assert!(config.skips_dir("x.egg") && !config.skips_dir("tests"));
        let dir = project(&[("pytest.ini", "[pytest]\npython_files = check_*.py\n")]);
        let config = PytestConfig::read(dir.path());
        assert!(config.is_test_module("check_a.py") && !config.is_test_module("test_a.py"));
    }
}
