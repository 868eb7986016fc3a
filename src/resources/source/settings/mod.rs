//! `source/meta/settings.toml`: how source/ behaves, as a TOML document that is validated
//! on write (unknown keys with "did you mean", wrong types, out-of-range values — all
//! reported together) and applied at once. Kept in the checkout, `.homespace/settings.toml`
//! (see `settings_file.rs`): two of its settings say what the daemon runs ([`Settings::runs_something`]),
//! and only a file the owner alone controls may say that — never the shared store.

pub(crate) mod file;
pub(crate) mod meta;

use std::path::{Path, PathBuf};
use std::time::Duration;

use toml_edit::{DocumentMut, Item, Value};

use crate::error::{Error, Result};
use crate::render::nav::NavShape;
use crate::resources::source::project::IgnoreLines;
use crate::transcripts::places::Watching;

/// The settings text before anyone wrote it.
pub const DEFAULT: &str = r#"# Settings of source/ for this project. Write this file to change them; they apply at once.
# Kept in the project's .homespace/settings.toml, yours alone: the interpreter and the test
# arguments below run as you, so they apply only while no one else can change that file.

[import_check]
# After every routed edit, import the edited module in a separate Python process and undo
# the edit if the import fails.
enabled = true
# The interpreter: "" means <project>/.venv/bin/python if it exists, else python3 on PATH
# (either only if no one else can change it).
python = ""
# Seconds an import may take before it counts as failed.
timeout_secs = 10

[nav]
# Levels below the current directory that _nav.txt shows (1 to 5).
depth = 2
# Members listed per directory in _nav.txt before the rest collapse to "+N more" (1 to 100;
# fewer when the view would not fit its budget).
collapse = 8

[project]
# More paths source/ leaves out, as .gitignore lines, on top of the project's .gitignore.
ignore = []

[source]
# Creating a module (source/<package>/<name>.py) also adds `from . import <name>` to the
# package's __init__.py, beside its other imports of its own modules, in the same edit;
# false leaves __init__.py as it is.
expose_new_modules = true

[memory]
# Transcript folders this mount follows, importing sessions into memory/ as agents write
# them: "default" is this project's own folders (Claude Code's ~/.claude/projects/<project>/,
# Codex's ~/.codex/sessions rollouts run here); "off" follows none; a list of paths
# follows those ("default" in the list adds the defaults).
watch = "default"

[tests]
# Arguments put before the selector written to source/tests/run (`--tb=short`, `-p plugin`);
# a selector itself takes test ids and -k, -m, --lf, --ff, -x, --maxfail, -q, -v only.
args = []
# Seconds a test run may take before it is stopped and reported as timed out.
timeout_secs = 600
# When tests fail, run their test files again, recording which project lines each test
# ran, to rank the suspects by what the failing tests ran and the passing ones did not;
# false names suspects from the text of the test and its traceback alone.
trace = true
# Seconds the traced pass may then spend trying one-token changes to the code the first
# failing test ran (a comparison, a condition, a constant), running that test again with
# each, to find the change that makes it pass; 0 tries none. The changes run only in
# that process; the project's files are never written.
probe_secs = 10
"#;

/// The parsed settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub import_check: bool,
    /// `None`: find one (see [`DEFAULT`]).
    pub python: Option<PathBuf>,
    pub import_timeout: Duration,
    /// How `_nav.txt` is drawn.
    pub nav: NavShape,
    /// More paths to leave out (.gitignore lines).
    pub ignore: IgnoreLines,
    /// pytest arguments before every selector.
    pub test_args: Vec<String>,
    pub test_timeout: Duration,
    /// Whether a failing run's test files run again traced, to rank the suspects.
    pub test_trace: bool,
    /// How long the traced pass may try one-token fixes; zero: none.
    pub test_probe: Duration,
    /// Whether a new module is imported in its package's `__init__.py`.
    pub expose_new_modules: bool,
    /// Which transcript folders memory follows.
    pub memory_watch: Watching,
    /// Why `python` and `test_args` were set aside (left at their defaults): the file that
    /// holds them is not the owner's alone. `None` when they apply.
    pub set_aside: Option<String>,
}

impl Settings {
    /// Whether these settings choose something the daemon runs: an interpreter, or pytest
    /// arguments (`-p plugin` loads code, `--basetemp` deletes a folder).
    pub fn runs_something(&self) -> bool {
        self.python.is_some() || !self.test_args.is_empty()
    }

    /// These settings without what they would run, saying `why`.
    pub fn set_aside(self, why: String) -> Settings {
        Settings {
            python: None,
            test_args: Vec::new(),
            set_aside: Some(why),
            ..self
        }
    }
}

/// `text` with the settings that run something blanked (`python = ""`, `args = []`),
/// everything else as written: settings written to the store before they moved to the
/// checkout are read this way, since anyone who can write the store could have set them.
pub fn without_what_runs(text: &str) -> String {
    let Ok(mut doc) = text.parse::<DocumentMut>() else {
        return text.to_string();
    };
    let mut blank = |table: &str, key: &str, empty: Value| {
        if let Some(item) = doc
            .get_mut(table)
            .and_then(|t| t.as_table_like_mut())
            .and_then(|t| t.get_mut(key))
            && let Some(value) = item.as_value_mut()
        {
            let decor = value.decor().clone();
            *value = empty;
            *value.decor_mut() = decor;
        }
    };
    blank("import_check", "python", Value::from(""));
    blank("tests", "args", Value::Array(toml_edit::Array::new()));
    doc.to_string()
}

const KNOWN: &[(&str, &[&str])] = &[
    ("import_check", &["enabled", "python", "timeout_secs"]),
    ("nav", &["depth", "collapse"]),
    ("project", &["ignore"]),
    ("source", &["expose_new_modules"]),
    ("memory", &["watch"]),
    ("tests", &["args", "timeout_secs", "trace", "probe_secs"]),
];

/// Parse and check `text`; every problem is listed.
pub fn parse(text: &str) -> Result<Settings> {
    let doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let at = e
            .span()
            .map(|s| line_col(text, s.start))
            .map(|(l, c)| format!("line {l}, column {c}: "))
            .unwrap_or_default();
        Error::invalid(format!(
            "settings.toml was not saved: it is not valid TOML:\n- {at}{}",
            e.message()
        ))
    })?;
    let mut problems = Vec::new();
    for (table, item) in doc.iter() {
        problems.extend(table_problems(table, item));
    }
    let value = |table: &str, key: &str| {
        doc.get(table)
            .and_then(|t| t.get(key))
            .and_then(Item::as_value)
    };
    let get = |key: &str| value("import_check", key);
    let mut switch = |table: &str, key: &str| match value(table, key) {
        None => true,
        Some(Value::Boolean(b)) => *b.value(),
        Some(other) => {
            problems.push(format!(
                "{table}.{key} must be true or false, got {}",
                other.to_string().trim()
            ));
            true
        }
    };
    let import_check = switch("import_check", "enabled");
    let expose_new_modules = switch("source", "expose_new_modules");
    let test_trace = switch("tests", "trace");
    let python = match get("python") {
        None => None,
        Some(Value::String(s)) if s.value().is_empty() => None,
        Some(Value::String(s)) => Some(PathBuf::from(s.value())),
        Some(other) => {
            problems.push(format!(
                "import_check.python must be a string (a path), got {}",
                other.to_string().trim()
            ));
            None
        }
    };
    let mut whole =
        |table: &str, key: &str, range: std::ops::RangeInclusive<i64>, default: i64, unit: &str| {
            match value(table, key) {
                None => default,
                Some(Value::Integer(n)) if range.contains(n.value()) => *n.value(),
                Some(other) => {
                    problems.push(format!(
                        "{table}.{key} must be a whole number{unit} from {} to {}, got {}",
                        range.start(),
                        range.end(),
                        other.to_string().trim()
                    ));
                    default
                }
            }
        };
    let import_timeout =
        Duration::from_secs(
            whole("import_check", "timeout_secs", 1..=600, 10, " of seconds") as u64,
        );
    let test_timeout =
        Duration::from_secs(whole("tests", "timeout_secs", 1..=86_400, 600, " of seconds") as u64);
    let test_probe =
        Duration::from_secs(whole("tests", "probe_secs", 0..=3_600, 10, " of seconds") as u64);
    let nav = NavShape {
        depth: whole("nav", "depth", 1..=5, 2, "") as usize,
        collapse: whole("nav", "collapse", 1..=100, 8, "") as usize,
    };
    let mut strings = |table: &str, key: &str, what: &str| match value(table, key) {
        None => Some(Vec::new()),
        Some(Value::Array(items)) if items.iter().all(|i| i.as_str().is_some()) => Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect(),
        ),
        Some(other) => {
            problems.push(format!(
                "{table}.{key} must be an array of {what} (strings), got {}",
                other.to_string().trim()
            ));
            None
        }
    };
    let test_args = strings("tests", "args", "pytest arguments").unwrap_or_default();
    let ignore =
        IgnoreLines::new(strings("project", "ignore", ".gitignore lines").unwrap_or_default());
    problems.extend(
        test_args
            .iter()
            .filter_map(|word| crate::testrun::selector::fromfile(word))
            .map(|why| format!("tests.args: {why}")),
    );
    if let Err(bad) = ignore.matcher(Path::new("/")) {
        problems.push(format!(
            "project.ignore has patterns that are not valid: {bad}"
        ));
    }
    let memory_watch = watching(value("memory", "watch")).unwrap_or_else(|problem| {
        problems.push(problem);
        Watching::Default
    });
    if problems.is_empty() {
        Ok(Settings {
            memory_watch,
            import_check,
            python,
            import_timeout,
            nav,
            ignore,
            test_args,
            test_timeout,
            test_trace,
            test_probe,
            expose_new_modules,
            set_aside: None,
        })
    } else {
        Err(Error::invalid(format!(
            "settings.toml was not saved:\n- {}",
            problems.join("\n- ")
        )))
    }
}

/// `[memory] watch`: `"default"`, `"off"`, or a list of absolute paths (`~/` for the home
/// folder) that may hold `"default"`.
fn watching(value: Option<&Value>) -> std::result::Result<Watching, String> {
    let shape = "memory.watch must be \"default\", \"off\" or a list of absolute paths \
                 (\"default\" in it adds the defaults)";
    match value {
        None => Ok(Watching::Default),
        Some(Value::String(s)) if s.value() == "default" => Ok(Watching::Default),
        Some(Value::String(s)) if s.value() == "off" => Ok(Watching::Off),
        Some(Value::Array(items)) => {
            let mut paths = Vec::new();
            let mut with_defaults = false;
            for item in items {
                match item.as_str() {
                    Some("default") => with_defaults = true,
                    Some(path) => paths.push(absolute(path).ok_or_else(|| {
                        format!("memory.watch: {path:?} is not an absolute path (or ~/...)")
                    })?),
                    None => return Err(format!("{shape}, got {}", item.to_string().trim())),
                }
            }
            Ok(Watching::Paths {
                paths,
                with_defaults,
            })
        }
        Some(other) => Err(format!("{shape}, got {}", other.to_string().trim())),
    }
}

/// `path` made absolute: `~/x` under the home folder; a relative path is refused.
fn absolute(path: &str) -> Option<PathBuf> {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
        None => Some(PathBuf::from(path)).filter(|p| p.is_absolute()),
    }
}

/// What is wrong with top-level item `name`: an unknown name, a known table given some
/// other value (it would otherwise be stored and silently ignored), unknown keys inside.
fn table_problems(name: &str, item: &Item) -> Vec<String> {
    let Some(keys) = KNOWN
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, keys)| *keys)
    else {
        let what = if item.is_table_like() { "table" } else { "key" };
        return vec![unknown(what, name, KNOWN.iter().map(|(n, _)| *n))];
    };
    let Some(table) = item.as_table_like() else {
        return vec![format!(
            "{name} must be a table ([{name}] with {}), got {}",
            keys.join(", "),
            kind(item)
        )];
    };
    table
        .iter()
        .filter(|(key, _)| !keys.contains(key))
        .map(|(key, _)| unknown(&format!("key in [{name}]"), key, keys.iter().copied()))
        .collect()
}

/// The TOML type of `item`, with its article, for messages.
fn kind(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(Value::String(_)) => "a string",
        Item::Value(Value::Integer(_)) => "an integer",
        Item::Value(Value::Float(_)) => "a float",
        Item::Value(Value::Boolean(_)) => "a boolean",
        Item::Value(Value::Datetime(_)) => "a date-time",
        Item::Value(Value::Array(_)) => "an array",
        Item::Value(Value::InlineTable(_)) => "an inline table",
    }
}

fn unknown<'a>(what: &str, name: &str, known: impl Iterator<Item = &'a str>) -> String {
    let known: Vec<&str> = known.collect();
    let best = known
        .iter()
        .max_by(|a, b| strsim::jaro_winkler(name, a).total_cmp(&strsim::jaro_winkler(name, b)));
    match best.filter(|b| strsim::jaro_winkler(name, b) > 0.8) {
        Some(best) => format!("unknown {what} `{name}` (did you mean `{best}`?)"),
        None => format!("unknown {what} `{name}`; known: {}", known.join(", ")),
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let head = &text[..offset.min(text.len())];
    let line = head.matches('\n').count() + 1;
    let column = head.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_from_the_store_lose_only_what_runs() {
        let stored = DEFAULT
            .replace("python = \"\"", "python = \"/tmp/evil.sh\" # mine")
            .replace("args = []", "args = [\"-p\", \"evil\"]")
            .replace("depth = 2", "depth = 4");
        let parsed = parse(&stored).unwrap();
        assert!(parsed.runs_something());
        let kept = without_what_runs(&stored);
        let settings = parse(&kept).unwrap();
        assert!(!settings.runs_something(), "{kept}");
        assert_eq!(settings.nav.depth, 4, "the rest is kept");
        assert!(
            kept.contains("python = \"\" # mine"),
            "comments kept: {kept}"
        );
        assert_eq!(without_what_runs(DEFAULT), DEFAULT);
    }

    #[test]
    fn test_arguments_from_a_file_are_refused() {
        let error = parse("[tests]\nargs = [\"--tb=short\", \"@more\"]\n").unwrap_err();
        assert!(
            error
                .message
                .contains("tests.args: `@more` (pytest would read more arguments"),
            "{}",
            error.message
        );
    }

    #[test]
    fn the_default_parses() {
        let settings = parse(DEFAULT).unwrap();
        assert!(settings.import_check);
        assert_eq!(settings.python, None);
        assert_eq!(settings.import_timeout, Duration::from_secs(10));
        assert_eq!(settings.nav, NavShape::default());
        assert_eq!(settings.ignore, IgnoreLines::default());
    }

    #[test]
    fn nav_and_ignore_are_read_and_checked() {
        let settings = parse(
            "[nav]\ndepth = 3\ncollapse = 20\n[project]\nignore = [\"docs/\", \"*.gen.py\"]\n",
        )
        .unwrap();
        assert_eq!(
            settings.nav,
            NavShape {
                depth: 3,
                collapse: 20
            }
        );
        assert_eq!(
            settings.ignore,
            IgnoreLines::new(vec!["docs/".into(), "*.gen.py".into()])
        );
        let error = parse("[nav]\ndepth = 9\n[project]\nignore = [\"{a\", 3]\n").unwrap_err();
        assert!(
            error
                .message
                .contains("nav.depth must be a whole number from 1 to 5, got 9"),
            "{}",
            error.message
        );
        assert!(
            error
                .message
                .contains("project.ignore must be an array of .gitignore lines"),
            "{}",
            error.message
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let error =
            parse("[import_check]\nenabeld = true\ntimeout_secs = \"ten\"\n[testz]\n").unwrap_err();
        assert!(
            error
                .message
                .contains("unknown key in [import_check] `enabeld` (did you mean `enabled`?)"),
            "{}",
            error.message
        );
        assert!(
            error
                .message
                .contains("timeout_secs must be a whole number"),
            "{}",
            error.message
        );
        assert!(
            error
                .message
                .contains("unknown table `testz` (did you mean `tests`?)"),
            "{}",
            error.message
        );
        let syntax = parse("[import_check\n").unwrap_err();
        assert!(
            syntax.message.contains("line 1, column"),
            "{}",
            syntax.message
        );
        assert!(
            !parse("[import_check]\nenabled = false\n")
                .unwrap()
                .import_check
        );
    }

    #[test]
    fn a_known_table_given_a_plain_value_is_refused_with_the_other_problems() {
        let error = parse("import_check = \"maybe\"\nfoo = 1\n").unwrap_err();
        assert!(
            error.message.contains(
                "import_check must be a table ([import_check] with enabled, python, timeout_secs), got a string"
            ),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("unknown key `foo`"),
            "{}",
            error.message
        );
        let array = parse("[[import_check]]\nenabled = true\n").unwrap_err();
        assert!(
            array.message.contains("got an array of tables"),
            "{}",
            array.message
        );
        let inline = parse("import_check = { enabled = false }\n").unwrap();
        assert!(!inline.import_check);
    }
}
