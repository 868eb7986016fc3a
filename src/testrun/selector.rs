//! What may be written to `source/tests/run`: test paths or ids and pytest's options that
//! choose which tests run — nothing that changes where pytest writes, what it loads or how
//! its report reads. Other options (`-p plugin` loads code, `--basetemp` empties a folder,
//! `--junitxml` moves the report the run is read from, `--collect-only` runs nothing yet
//! reads as passed) belong in `tests.args` of the owner's settings file.
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

/// Options that take a value, given as the next word or joined (`-kEXPR`, `--maxfail=2`).
const WITH_VALUE: &[&str] = &["-k", "-m", "--maxfail"];

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
];

/// The allowed options, as a message lists them.
pub const ALLOWED: &str =
    "-k EXPR, -m MARKEXPR, --lf, --ff, --nf, --sw, --sw-skip, -x, --maxfail N, -q, -v";

/// The words of `selector` for pytest, run in the project at `root`, or why it is refused
/// (every refused word named).
pub fn parse(selector: &str, root: &Path) -> Result<Vec<String>, String> {
    let words = shlex::split(selector)
        .ok_or_else(|| "the selector has an unclosed quote or a trailing backslash".to_string())?;
    let mut refused: Vec<String> = words.iter().filter_map(|w| fromfile(w)).collect();
    let mut words_iter = words.iter().peekable();
    while let Some(word) = words_iter.next() {
        if word.starts_with('@') {
            continue;
        }
        if !word.starts_with('-') {
            refused.extend(super::inside::outside(word, root));
            continue;
        }
        if FLAGS.contains(&word.as_str()) || short_flags(word) {
            continue;
        }
        if WITH_VALUE.contains(&word.as_str()) {
            match words_iter.next() {
                // Refused above, as any word starting with `@` is.
                Some(value) if value.starts_with('@') => continue,
                Some(value) if word != "--maxfail" || is_count(value) => continue,
                Some(value) => refused.push(format!("`--maxfail {value}` (a number is needed)")),
                None => refused.push(format!("`{word}` without its value")),
            }
            continue;
        }
        if let Some(count) = word.strip_prefix("--maxfail=") {
            if !is_count(count) {
                refused.push(format!("`{word}` (a number is needed)"));
            }
            continue;
        }
        if (word.starts_with("-k") || word.starts_with("-m")) && !word.starts_with("--") {
            continue;
        }
        refused.push(format!("`{word}`"));
    }
    if refused.is_empty() {
        Ok(words)
    } else {
        Err(format!(
            "{} {} not a test selection: a selector takes test paths or ids and {ALLOWED}",
            refused.join(", "),
            one_or_many(refused.len(), "is", "are")
        ))
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

/// `-xq`, `-vv`: short flags run together.
fn short_flags(word: &str) -> bool {
    word.len() > 1
        && !word.starts_with("--")
        && word[1..].chars().all(|c| matches!(c, 'x' | 'q' | 'v'))
}

fn is_count(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::parse`] for a project that does not exist: every relative path is in it.
    fn parse(selector: &str) -> Result<Vec<String>, String> {
        super::parse(selector, Path::new("/nonexistent/project"))
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
        ] {
            assert!(parse(fine).is_ok(), "{fine}: {:?}", parse(fine));
        }
    }

    #[test]
    fn every_other_option_is_refused_and_named() {
        for bad in [
            "--basetemp=/home/me",
            "--basetemp /home/me",
            "--junitxml=/tmp/x.xml",
            "--collect-only",
            "--co",
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
        let why = parse("--co --pdb -x").unwrap_err();
        assert!(why.starts_with("`--co`, `--pdb` are not"), "{why}");
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
            let why = super::parse(bad, root).unwrap_err();
            assert!(why.contains("outside the project"), "{bad}: {why}");
        }
        // The value of `-k` is an expression, not a path.
        assert!(super::parse("tests -k ../../x", root).is_ok());
    }
}
