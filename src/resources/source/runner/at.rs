//! The runner's paths, from `source/tests/`: `run`, `runs/`, `runs/<n>/` (or `latest/`)
//! and the files in it.

use crate::model::{Child, Kind};

/// A path of the runner under `source/tests/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum At {
    Run,
    Runs,
    /// `runs/<n>/` or `runs/latest/` (`None`).
    RunDir(Option<i64>),
    Result(Option<i64>),
    Output(Option<i64>),
    Failures(Option<i64>),
    Failure(Option<i64>, String),
}

/// The runner's place for `path` (under `source/tests/`), if it is one.
pub(crate) fn at(path: &[&str]) -> Option<At> {
    let which = |name: &str| match name {
        "latest" => Some(None),
        n => n.parse::<i64>().ok().filter(|n| *n > 0).map(Some),
    };
    Some(match path {
        ["run"] => At::Run,
        ["runs"] => At::Runs,
        ["runs", n] => At::RunDir(which(n)?),
        ["runs", n, "output.txt"] => At::Output(which(n)?),
        ["runs", n, "result.md"] => At::Result(which(n)?),
        ["runs", n, "failures"] => At::Failures(which(n)?),
        ["runs", n, "failures", test] => {
            At::Failure(which(n)?, test.strip_suffix(".txt")?.to_string())
        }
        _ => return None,
    })
}

/// The runner's members of `source/tests/`.
pub(crate) fn members() -> Vec<Child> {
    vec![
        Child::new(
            "run",
            Kind::Document,
            "write a pytest selector (or nothing) to run the tests",
        ),
        Child::new(
            "runs",
            Kind::Dir,
            "test runs and their results; latest/ is the newest",
        ),
    ]
}
