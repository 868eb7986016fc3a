//! What may be written to `source/tests/run`: test paths or ids and pytest's options that
//! choose which tests run — nothing that changes where pytest writes, what it loads or how
//! its report reads. Other options (`-p plugin` loads code, `--basetemp` empties a folder,
//! `--junitxml` moves the report the run is read from) belong in `tests.args` of the
//! owner's settings file. `--collect-only` runs nothing: such a run reads as collected,
//! never as passed.
//!
//! The text is split as a shell splits words, so `-k "parse and not slow"` is one
//! expression.
//!
//! No word may start with `@`, wherever it stands (as a value of `-k` too): pytest's
//! parser is argparse with `@` as its fromfile prefix, so `@ARGS` is replaced by the
//! words of the file `ARGS`, unchecked. [`fromfile`] is that rule, which the settings'
//! `tests.args` follow as well.
//!
//! A test path must stay in the project (`inside.rs`): pytest imports test files wherever
//! they are.

use crate::model::count::one_or_many;
use std::path::Path;

/// What an option's value must be.
#[derive(Clone, Copy)]
enum Value {
    /// An expression or text pytest reads as such (`-k`, `-m`, `-W`, `-r`).
    Text,
    /// A whole number (`--maxfail`, `--durations`).
    Count,
    /// A number, fractions allowed (`--durations-min`).
    Number,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A whole number or one of these words (`-n 4`, `-n auto`).
    CountOr(&'static [&'static str]),
    /// A path, node id or glob of the project, which must stay inside it.
    Inside,
}

/// Options that take a value, given as the next word or joined (`-kEXPR`, `--maxfail=2`).
const WITH_VALUE: &[(&str, Value)] = &[
    ("-k", Value::Text),
    ("-m", Value::Text),
    ("--maxfail", Value::Count),
    ("--doctest-glob", Value::Text),
    ("-r", Value::Text),
    (
        "--tb",
        Value::Choice(&["auto", "long", "short", "line", "native", "no"]),
    ),
    ("-W", Value::Text),
    ("--pythonwarnings", Value::Text),
    ("--durations", Value::Count),
    ("--durations-min", Value::Number),
    ("--deselect", Value::Inside),
    ("--ignore", Value::Inside),
    ("--ignore-glob", Value::Inside),
    // pytest-xdist's: where it is not installed, pytest says the option is unknown.
    ("-n", Value::CountOr(&["auto", "logical"])),
    ("--numprocesses", Value::CountOr(&["auto", "logical"])),
];

/// Options that stand alone.
const FLAGS: &[&str] = &[
    "-x",
    "--exitfirst",
    "--lf",
    "--last-failed",
    "--ff",
    "--failed-first",
    "--nf",
    "--new-first",
    "--sw",
    "--stepwise",
    "--sw-skip",
    "--stepwise-skip",
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "-l",
    "--showlocals",
    "--doctest-modules",
    "--runxfail",
    "--strict-markers",
    "--collect-only",
    "--co",
];

/// The allowed options, as a message lists them.
pub const ALLOWED: &str = "-k EXPR, -m MARKEXPR, --lf, --ff, --nf, --sw, --sw-skip, -x, \
    --maxfail N, -q, -v, -l, -r CHARS, --tb STYLE, -W FILTER, --durations N, \
    --durations-min S, --doctest-modules, --doctest-glob PAT, --deselect ID, --ignore PATH, \
    --ignore-glob PAT, --runxfail, --strict-markers, --collect-only, -n N (pytest-xdist)";

/// The words of `selector` for pytest, run in the project at `root`, or why it is refused
/// (every refused word named). A test path or id is first given to `in_project`, which
/// returns the project's path for one written as the mount shows it (`source/tests/…`,
/// the test folder `tests/` that is `test/` on disk, a dotted test name), or `None` to
/// leave it to pytest as it stands.
pub fn parse(
    selector: &str,
    root: &Path,
    in_project: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let words = shlex::split(selector)
        .ok_or_else(|| "the selector has an unclosed quote or a trailing backslash".to_string())?;
    let mut refused: Vec<String> = words.iter().filter_map(|w| fromfile(w)).collect();
    let mut chosen: Vec<String> = Vec::with_capacity(words.len());
    let mut words_iter = words.into_iter();
    while let Some(word) = words_iter.next() {
        if word.starts_with('@') {
            continue;
        }
        if !word.starts_with('-') {
            let word = translated(word, in_project, &mut refused);
            refused.extend(super::inside::outside(&word, root));
            chosen.push(word);
            continue;
        }
        if FLAGS.contains(&word.as_str()) || short_flags(&word) {
            chosen.push(word);
            continue;
        }
        if let Some((option, kind)) = WITH_VALUE.iter().find(|(o, _)| *o == word.as_str()) {
            chosen.push(word.clone());
            match words_iter.next() {
                // Refused above, as any word starting with `@` is.
                Some(value) if value.starts_with('@') => {}
                Some(value) => {
                    let value = option_value(option, *kind, value, in_project, &mut refused);
                    refused.extend(wrong_value(option, *kind, &value, root));
                    chosen.push(value);
                }
                None => refused.push(format!("`{word}` without its value")),
            }
            continue;
        }
        match joined(&word) {
            Some((option, kind, value)) => {
                let value = option_value(option, kind, value.to_string(), in_project, &mut refused);
                refused.extend(wrong_value(option, kind, &value, root));
                let sep = if option.starts_with("--") { "=" } else { "" };
                chosen.push(format!("{option}{sep}{value}"));
            }
            None => refused.push(format!("`{word}`")),
        }
    }
    if refused.is_empty() {
        Ok(chosen)
    } else {
        Err(format!(
            "{} {} not a test selection: a selector takes test paths or ids and {ALLOWED}",
            refused.join(", "),
            one_or_many(refused.len(), "is", "are")
        ))
    }
}

/// The value pytest is given for `option` (of `kind`): a path as the mount names it
/// becomes the project's, not a glob (its brackets are pytest's).
fn option_value(
    option: &str,
    kind: Value,
    value: String,
    in_project: &dyn Fn(&str) -> Option<String>,
    refused: &mut Vec<String>,
) -> String {
    match kind {
        Value::Inside if option != "--ignore-glob" => translated(value, in_project, refused),
        _ => value,
    }
}

/// `word`, or the project's path `in_project` gives for it. One that would read as an
/// option or a file of arguments is refused: a word must not become one on the way to
/// pytest.
fn translated(
    word: String,
    in_project: &dyn Fn(&str) -> Option<String>,
    refused: &mut Vec<String>,
) -> String {
    match in_project(&word) {
        Some(path) if path.starts_with(['-', '@']) => {
            refused.push(format!(
                "`{word}` (it names `{path}`, which pytest would read as an option or a \
                 file of arguments)"
            ));
            path
        }
        Some(path) => path,
        None => word,
    }
}

/// An option with its value in the same word: `--maxfail=2`, `-kparse`, `-rA`, `-n4`.
fn joined(word: &str) -> Option<(&'static str, Value, &str)> {
    WITH_VALUE.iter().find_map(|(option, kind)| {
        let rest = word.strip_prefix(option)?;
        let value = if option.starts_with("--") {
            rest.strip_prefix('=')?
        } else {
            rest
        };
        (!value.is_empty()).then_some((*option, *kind, value))
    })
}

/// Why `value` is no value of `option`, if it is not.
fn wrong_value(option: &str, kind: Value, value: &str, root: &Path) -> Option<String> {
    let words = |choices: &[&str]| choices.join(", ");
    match kind {
        Value::Text => None,
        Value::Count if is_count(value) => None,
        Value::Count => Some(format!("`{option} {value}` (a whole number is needed)")),
        Value::Number if value.parse::<f64>().is_ok_and(|n| n >= 0.0) => None,
        Value::Number => Some(format!("`{option} {value}` (a number is needed)")),
        Value::Choice(choices) if choices.contains(&value) => None,
        Value::Choice(choices) => Some(format!(
            "`{option} {value}` (one of {} is needed)",
            words(choices)
        )),
        Value::CountOr(choices) if is_count(value) || choices.contains(&value) => None,
        Value::CountOr(choices) => Some(format!(
            "`{option} {value}` (a whole number or one of {} is needed)",
            words(choices)
        )),
        Value::Inside => super::inside::outside(value, root).map(|why| format!("`{option}` {why}")),
    }
}

/// Why `word` is refused as an argument of pytest, if it starts with `@`: argparse (which
/// pytest's parser is, with `@` as its fromfile prefix) replaces it with the words of that
/// file, which no check here sees: `@ARGS` holding `--basetemp=<folder>` empties the folder.
pub fn fromfile(word: &str) -> Option<String> {
    let file = word.strip_prefix('@')?;
    Some(format!(
        "`{word}` (pytest would read more arguments from the file {file:?}, unchecked: \
         arguments from files are refused; a test file whose name starts with @ is \
         ./{word})"
    ))
}

/// `-xq`, `-vvl`: short flags run together.
fn short_flags(word: &str) -> bool {
    word.len() > 1
        && !word.starts_with("--")
        && word[1..]
            .chars()
            .all(|c| matches!(c, 'x' | 'q' | 'v' | 'l'))
}

fn is_count(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::parse`] for a project that does not exist: every relative path is in it.
    fn parse(selector: &str) -> Result<Vec<String>, String> {
        super::parse(selector, Path::new("/nonexistent/project"), &|_| None)
    }

    #[test]
    fn test_ids_and_selection_options_pass_as_words() {
        assert_eq!(parse("").unwrap(), Vec::<String>::new());
        assert_eq!(
            parse("tests/test_a.py::test_x[1-2] -k \"parse and not slow\" -x --maxfail=2 -q")
                .unwrap(),
            [
                "tests/test_a.py::test_x[1-2]",
                "-k",
                "parse and not slow",
                "-x",
                "--maxfail=2",
                "-q"
            ]
        );
        for fine in [
            "--lf",
            "--ff",
            "-vv",
            "-xq",
            "-kparse",
            "-m slow",
            "--maxfail 3",
            "--last-failed",
            "--failed-first",
            "--exitfirst",
            "-v",
            "--sw",
            "--stepwise",
            "--sw-skip",
            "--nf",
            "--new-first",
            "--stepwise-skip",
            "-l",
            "--showlocals",
            "-vvl",
            "--doctest-modules",
            "--collect-only",
            "--co -q",
            "--doctest-glob '*.rst'",
            "--doctest-glob=*.txt",
            "-rA",
            "-r fE",
            "--tb=short",
            "--tb no",
            "-W error::DeprecationWarning",
            "-Wignore",
            "--pythonwarnings=ignore",
            "--durations=5",
            "--durations 0",
            "--durations-min=0.5",
            "--deselect tests/test_a.py::test_x",
            "--deselect=tests/test_a.py::test_x[1]",
            "--ignore tests/slow",
            "--ignore=docs",
            "--ignore-glob '*_slow.py'",
            "--runxfail",
            "--strict-markers",
            "-n 4",
            "-n auto",
            "-n4",
            "--numprocesses=logical",
        ] {
            assert!(parse(fine).is_ok(), "{fine}: {:?}", parse(fine));
        }
    }

    #[test]
    fn an_allowed_option_with_a_value_it_does_not_take_is_refused_and_says_why() {
        for (bad, why) in [
            ("--tb=verbose", "one of auto, long, short, line, native, no"),
            ("--durations=some", "a whole number is needed"),
            ("--durations-min=-1", "a number is needed"),
            ("-n many", "a whole number or one of auto, logical"),
            ("--deselect ../other/test_x.py::t", "outside the project"),
            ("--ignore /etc", "outside the project"),
            ("--ignore-glob=../*", "outside the project"),
            ("--doctest-glob", "without its value"),
        ] {
            let said = parse(bad).unwrap_err();
            assert!(said.contains(why), "{bad}: {said}");
        }
    }

    #[test]
    fn every_other_option_is_refused_and_named() {
        for bad in [
            "--basetemp=/home/me",
            "--basetemp /home/me",
            "--junitxml=/tmp/x.xml",
            "-p evil",
            "-pevil",
            "--rootdir=/",
            "-c /tmp/conf.ini",
            "--confcutdir=/",
            "-o addopts=-pevil",
            "--override-ini=x",
            "--import-mode=append",
            "--pdb",
            "-s",
            "--maxfail many",
            "--maxfail=",
            "-k",
            "--",
            "-",
        ] {
            let why = parse(&format!("tests/test_a.py {bad}")).unwrap_err();
            let first = bad.split(' ').next().unwrap();
            assert!(why.contains(&format!("`{first}")), "{bad}: {why}");
            assert!(why.contains("--maxfail N"), "{why}");
        }
        let why = parse("-s --pdb -x").unwrap_err();
        assert!(why.starts_with("`-s`, `--pdb` are not"), "{why}");
        assert!(parse("-k 'open").unwrap_err().contains("unclosed quote"));
    }

    #[test]
    fn arguments_from_a_file_are_refused_wherever_they_stand() {
        for bad in [
            "@ARGS",
            "tests/ @args.txt",
            "-k @ARGS",
            "-m @x",
            "--maxfail @n",
        ] {
            let why = parse(bad).unwrap_err();
            assert!(
                why.contains("read more arguments from the file"),
                "{bad}: {why}"
            );
            assert!(
                why.contains("arguments from files are refused"),
                "{bad}: {why}"
            );
        }
        // Not at the start of a word, `@` is only a character of it.
        assert!(parse("tests/test_a.py::test_x[a@b] -kfoo@bar").is_ok());
        assert!(parse("./@weird_test.py").is_ok());
    }

    #[test]
    fn a_test_path_outside_the_project_is_refused_but_not_an_expression() {
        let root = Path::new("/nonexistent/project");
        for bad in [
            "../x/test_a.py",
            "/tmp/shared/x",
            "tests/../../../x -k slow",
        ] {
            let why = super::parse(bad, root, &|_| None).unwrap_err();
            assert!(why.contains("outside the project"), "{bad}: {why}");
        }
        // The value of `-k` is an expression, not a path.
        assert!(super::parse("tests -k ../../x", root, &|_| None).is_ok());
    }

    #[test]
    fn paths_as_the_mount_shows_them_become_the_project_s_but_expressions_stay() {
        let root = Path::new("/nonexistent/project");
        let in_project = |word: &str| {
            word.strip_prefix("/mnt/hs/source/tests/")
                .or_else(|| word.strip_prefix("tests/"))
                .map(|rest| format!("test/{rest}"))
        };
        let why = super::parse("/mnt/hs/source/tests/@args", root, &|_| {
            Some("@args".into())
        });
        assert!(why.unwrap_err().contains("file of arguments"));
        assert_eq!(
            super::parse(
                "/mnt/hs/source/tests/test_a.py::test_x -k /mnt/hs/source/tests/x \
                 --deselect /mnt/hs/source/tests/test_b.py --ignore=/mnt/hs/source/tests/c \
                 --ignore-glob=tests/d*",
                root,
                &in_project
            )
            .unwrap(),
            [
                "test/test_a.py::test_x",
                "-k",
                "/mnt/hs/source/tests/x",
                "--deselect",
                "test/test_b.py",
                "--ignore=test/c",
                "--ignore-glob=tests/d*"
            ]
        );
    }
}
