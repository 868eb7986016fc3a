//! Reading what a test run's views say, leniently: `result.md`'s first line (the run, its
//! status, its duration), its first detailed failure, the `suspect:` lines of it and of a
//! failure file, the command of `_entry.md` and the runner's note of a traced second pass
//! in `output.txt`. Pure: text in, facts out; a line that does not read as expected is
//! skipped, never guessed at, and fields the formats may grow (`, score 0.71`) are ignored.

/// A suspect as a failure names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suspect {
    /// Its symbol file, as printed: `<mnt>/source/cachetools/keys/typedkey.py`.
    pub file: String,
    /// Its module, from the project's folder: `src/cachetools/keys.py`.
    pub module: String,
    /// Its lines in the module, 1-based, inclusive.
    pub lines: (usize, usize),
    /// Why it is suspected, in the runner's words.
    pub why: String,
}

/// `result.md`'s first line: `run 7 — failed: 2 passed, 1 failed (0.8 s)`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    pub id: u64,
    /// `passed`, `failed`, `error`, `timed out`, `running`, …
    pub status: String,
    /// The duration the runner gives, in seconds.
    pub seconds: Option<f64>,
}

pub fn run_line(result: &str) -> Option<RunLine> {
    let first = result.lines().next()?;
    let rest = first.strip_prefix("run ")?;
    let (id, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start_matches(['—', '-', ' ']);
    let status = rest
        .split(':')
        .next()
        .map(|s| s.split(" (").next().unwrap_or(s).trim().to_string())?;
    let seconds = rest
        .rfind('(')
        .and_then(|open| rest[open + 1..].strip_suffix(" s)"))
        .and_then(|s| s.trim().parse().ok());
    Some(RunLine {
        id: id.parse().ok()?,
        status,
        seconds,
    })
}

/// The test id of `result.md`'s first detailed failure (`FAILED <id>: …`, `ERROR <id>: …`).
pub fn first_failure(result: &str) -> Option<&str> {
    result.lines().find_map(|line| {
        let rest = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))?;
        Some(rest.split_once(": ").map_or(rest, |(id, _)| id).trim())
    })
}

/// The suspects `text` names in rank order: the `suspect:` lines of a failure file, or of
/// `result.md`'s first detailed failure (those before its second `FAILED`/`ERROR`).
pub fn suspects(text: &str) -> Vec<Suspect> {
    let mut found = Vec::new();
    let mut failures = 0;
    for line in text.lines() {
        if line.starts_with("FAILED ") || line.starts_with("ERROR ") {
            failures += 1;
            if failures > 1 {
                break;
            }
        }
        if let Some(suspect) = suspect_line(line) {
            found.push(suspect);
        }
    }
    found
}

/// `  suspect: <file> (<module>:<first>-<last>, <why>[, more fields])`.
pub fn suspect_line(line: &str) -> Option<Suspect> {
    let rest = line.trim_start().strip_prefix("suspect: ")?;
    // The file is a path without ` (`; the last `)` closes the parenthesis.
    let (file, inside) = rest.split_once(" (")?;
    let inside = &inside[..inside.rfind(')')?];
    let (place, why) = inside.split_once(", ").unwrap_or((inside, ""));
    let (module, range) = place.rsplit_once(':')?;
    let (first, last) = range.split_once('-').unwrap_or((range, range));
    Some(Suspect {
        file: file.trim().to_string(),
        module: module.to_string(),
        lines: (first.trim().parse().ok()?, last.trim().parse().ok()?),
        // A score may come before the words or after them: `score 0.82, ran only by …`.
        why: why
            .split(", ")
            .find(|field| !field.starts_with("score "))
            .unwrap_or_default()
            .to_string(),
    })
}

/// The command of a run's `_entry.md`: ``Command: `<command>` ``.
pub fn command(entry: &str) -> Option<&str> {
    entry.lines().find_map(|line| {
        let rest = line.strip_prefix("Command: `")?;
        Some(&rest[..rest.rfind('`')?])
    })
}

/// The seconds of the runner's traced second pass, from its note in `output.txt`:
/// `homespace: traced 37 tests of 2 files again in 1.2 s to rank the suspects`.
pub fn traced_seconds(output: &str) -> Option<f64> {
    seconds_after(output, "homespace: traced ", "again in ")
}

/// The seconds of the probe for one-token fixes, from the runner's note at the end of
/// `output.txt`: `homespace: probed t.py::t: 75 one-token changes on … it ran, in 1.4 s; …`.
pub fn probe_seconds(output: &str) -> Option<f64> {
    seconds_after(output, "homespace: probed ", "it ran, in ")
}

/// The number of seconds after `marker` on the first line starting with `start` that
/// holds one.
fn seconds_after(output: &str, start: &str, marker: &str) -> Option<f64> {
    output
        .lines()
        .filter(|l| l.starts_with(start))
        .find_map(|line| {
            let (_, after) = line.split_once(marker)?;
            let number: String = after
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let rest = after[number.len()..].trim_start();
            (rest.starts_with('s') && !number.is_empty())
                .then(|| number.parse().ok())
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESULT: &str = "run 2 — failed: 213 passed, 2 failed, 15 warnings (0.8 s)

FAILED tests.test_keys.CacheKeysTest.test_typedkey: AssertionError: (1, 2) == (1, 2)
  tests/test_keys.py:52: self.assertNotEqual(key(1, 2, 3, x=0), key(1, 2, 3, y=0))
  suspect: /m/source/cachetools/keys/typedkey.py (src/cachetools/keys.py:51-57, on the failing line)
  suspect: /m/source/cachetools/keys/hashkey.py (src/cachetools/keys.py:40-45, called before it, score 0.71)

cachetools.keys.typedkey, as it is now:
def typedkey(*args, **kwargs):

ERROR tests.test_other: boom
  suspect: /m/source/cachetools/other.py (src/cachetools/other.py:1-2, raised here)
";

    #[test]
    fn the_first_line_gives_the_run_its_status_and_duration() {
        assert_eq!(
            run_line(RESULT),
            Some(RunLine {
                id: 2,
                status: "failed".into(),
                seconds: Some(0.8)
            })
        );
        let running = run_line("run 12 — running (3.0 s so far)\n").unwrap();
        assert_eq!((running.id, running.status.as_str()), (12, "running"));
        assert_eq!(run_line("runs/2 — error"), None, "not a result.md");
    }

    #[test]
    fn suspects_are_read_in_rank_order_from_the_first_failure_only() {
        assert_eq!(
            first_failure(RESULT),
            Some("tests.test_keys.CacheKeysTest.test_typedkey")
        );
        let found = suspects(RESULT);
        assert_eq!(
            found,
            [
                Suspect {
                    file: "/m/source/cachetools/keys/typedkey.py".into(),
                    module: "src/cachetools/keys.py".into(),
                    lines: (51, 57),
                    why: "on the failing line".into(),
                },
                Suspect {
                    file: "/m/source/cachetools/keys/hashkey.py".into(),
                    module: "src/cachetools/keys.py".into(),
                    lines: (40, 45),
                    why: "called before it".into(),
                },
            ]
        );
    }

    #[test]
    fn a_suspect_line_may_grow_fields_or_lose_its_why() {
        let grown =
            suspect_line("suspect: /m/a/b.py (a.py:3-9, ran only by failing tests, score 0.9)");
        assert_eq!(
            grown.map(|s| (s.lines, s.why)),
            Some(((3, 9), "ran only by failing tests".into()))
        );
        let scored_first = suspect_line(
            "suspect: /m/a/b.py (src/a.py:1-2, score 0.82, changed since the last green run)",
        );
        assert_eq!(
            scored_first.map(|s| (s.module, s.lines, s.why)),
            Some((
                "src/a.py".into(),
                (1, 2),
                "changed since the last green run".into()
            ))
        );
        let bare = suspect_line("suspect: /m/a/b.py (a.py:3)").unwrap();
        assert_eq!((bare.module.as_str(), bare.lines), ("a.py", (3, 3)));
        assert_eq!(suspect_line("  no suspect here (a.py:1-2)"), None);
        assert_eq!(suspect_line("suspect: /m/a/b.py (a.py:x-2, why)"), None);
    }

    #[test]
    fn the_command_and_the_traced_pass_are_found_where_the_runner_writes_them() {
        let entry = "# source/tests/runs/1 — passed\nCommand: `PYTHONPATH=src:. python3 -m pytest '--rootdir=.'`\nStarted";
        assert_eq!(
            command(entry),
            Some("PYTHONPATH=src:. python3 -m pytest '--rootdir=.'")
        );
        let output = "== 1 failed ==\nhomespace: traced 37 tests of 2 files again in 1.25 s to rank the suspects\n";
        assert_eq!(traced_seconds(output), Some(1.25));
        assert_eq!(traced_seconds("again in a while\n"), None);
        let probed = format!(
            "{output}homespace: probed tests/test_tlru.py::T::test_ttu: 75 one-token changes \
             on all 116 project lines it ran, in 1.43 s; 2 made it pass\n"
        );
        assert_eq!(probe_seconds(&probed), Some(1.43));
        assert_eq!(traced_seconds(&probed), Some(1.25));
        assert_eq!(probe_seconds(output), None);
    }
}
