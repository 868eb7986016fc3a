//! What the section does through a mount, as an agent would: write a module's whole new
//! bytes to `source/<module>`, change `source/meta/settings.toml`, start the suite with
//! `echo > source/tests/run` and read `source/tests/runs/latest/result.md` (which waits
//! for the run's end), then the run's failure file, `_entry.md` and `output.txt`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::views::{self, RunLine, Suspect};

/// A mounted project's `source/`.
pub struct Source {
    pub dir: PathBuf,
}

/// One run of the suite through the mount, read once it ended.
pub struct Run {
    pub line: RunLine,
    /// From the write to `tests/run` to the end of reading `result.md`: what an agent waits.
    pub wall: Duration,
    /// The first detailed failure's suspects in rank order: those of its failure file (all
    /// the runner names), else those of `result.md` (its first two).
    pub suspects: Vec<Suspect>,
    /// The traced second pass's seconds, when the runner says it made one.
    pub traced: Option<f64>,
    /// Its probe's seconds, when the runner says it probed.
    pub probe: Option<f64>,
    /// Whether `output.txt` came out cut to the view budget (`[pruned: …]`), so that the
    /// runner's note at its end may be lost: no note then does not mean no traced pass.
    pub output_cut: bool,
    /// `result.md`'s first detailed failure: `FAILED <test id>: <message>`.
    pub failure: Option<String>,
    /// The command the runner ran (from the run's `_entry.md`).
    pub command: Option<String>,
}

impl Source {
    pub fn new(mountpoint: &Path) -> Source {
        Source {
            dir: mountpoint.join("source"),
        }
    }

    /// Write `bytes` over `source/<rel>` and check they took: a write the mount refuses
    /// (an import check that fails, an unknown setting) is `Err` with why.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> Result<(), String> {
        let path = self.dir.join(rel);
        let written = std::fs::File::create(&path).and_then(|mut file| {
            file.write_all(bytes)?;
            // Errors a mount reports when the file is flushed come back here.
            file.sync_all()
        });
        if let Err(why) = written {
            return Err(format!("{}: refused: {why}", path.display()));
        }
        match std::fs::read(&path) {
            Ok(now) if now == bytes => Ok(()),
            Ok(_) => Err(format!(
                "{}: written, but reads back otherwise",
                path.display()
            )),
            Err(why) => Err(format!(
                "{}: unreadable after the write: {why}",
                path.display()
            )),
        }
    }

    /// Run the whole suite and read its result: status, suspects, traced pass.
    pub fn run(&self) -> Result<Run, String> {
        let tests = self.dir.join("tests");
        let started = Instant::now();
        std::fs::write(tests.join("run"), b"\n")
            .map_err(|e| format!("echo > {}/run: {e}", tests.display()))?;
        let latest = tests.join("runs/latest/result.md");
        let result = std::fs::read_to_string(&latest)
            .map_err(|e| format!("cat {}: {e}", latest.display()))?;
        let wall = started.elapsed();
        let line = views::run_line(&result).ok_or_else(|| {
            format!(
                "{}: no run line: {:?}",
                latest.display(),
                result.lines().next()
            )
        })?;
        let run_dir = tests.join(format!("runs/{}", line.id));
        let failure = views::first_failure(&result)
            .and_then(|id| read_failure(&run_dir.join("failures"), id));
        let suspects = match failure.as_deref().map(views::suspects) {
            Some(found) if !found.is_empty() => found,
            _ => views::suspects(&result),
        };
        let read = |name: &str| std::fs::read_to_string(run_dir.join(name)).ok();
        let output = read("output.txt").unwrap_or_default();
        Ok(Run {
            traced: views::traced_seconds(&output),
            probe: views::probe_seconds(&output),
            output_cut: output.contains("\n[pruned: "),
            command: read("_entry.md")
                .as_deref()
                .and_then(views::command)
                .map(str::to_string),
            failure: result
                .lines()
                .find(|l| l.starts_with("FAILED ") || l.starts_with("ERROR "))
                .map(str::to_string),
            line,
            wall,
            suspects,
        })
    }

    /// Set `[tests]` key `key` to `value` (a TOML value) in `meta/settings.toml`, or remove
    /// it (`None`), keeping the rest of the file; `Err` when the mount refuses the text.
    pub fn set_test_setting(&self, key: &str, value: Option<&str>) -> Result<(), String> {
        let rel = Path::new("meta/settings.toml");
        let path = self.dir.join(rel);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cat {}: {e}", path.display()))?;
        let changed = with_test_setting(&text, key, value)
            .ok_or_else(|| format!("{} has no [tests] table", path.display()))?;
        if changed == text {
            return Ok(());
        }
        self.write(rel, changed.as_bytes())
    }
}

/// The failure file of test `id` in `failures`: `<id>.txt`, else the one whose first line
/// names the test (a name the runner had to change to make a file name of it).
fn read_failure(failures: &Path, id: &str) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string(failures.join(format!("{id}.txt"))) {
        return Some(text);
    }
    std::fs::read_dir(failures)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".txt"))
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .find(|text| text.starts_with(&format!("{id} ")))
}

/// `text` (a settings file) with `key = value` as the first line of its `[tests]` table,
/// any earlier line of that key in the table removed; `None` without such a table.
fn with_test_setting(text: &str, key: &str, value: Option<&str>) -> Option<String> {
    let mut out = Vec::new();
    let mut in_tests = false;
    let mut found = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_tests = trimmed == "[tests]";
            if in_tests {
                found = true;
                out.push(line.to_string());
                if let Some(value) = value {
                    out.push(format!("{key} = {value}"));
                }
                continue;
            }
        }
        let this_key = trimmed
            .split_once('=')
            .is_some_and(|(name, _)| name.trim() == key);
        if !(in_tests && this_key) {
            out.push(line.to_string());
        }
    }
    found.then(|| out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_setting_is_set_in_the_tests_table_alone_and_removed_again() {
        let text = "[nav]\ntrace = 1\n\n[tests]\n# Arguments\nargs = []\ntimeout_secs = 600\n";
        let off = with_test_setting(text, "trace", Some("false")).unwrap();
        assert_eq!(
            off,
            "[nav]\ntrace = 1\n\n[tests]\ntrace = false\n# Arguments\nargs = []\ntimeout_secs = 600\n"
        );
        assert_eq!(
            with_test_setting(&off, "trace", None).as_deref(),
            Some(text)
        );
        let shorter = with_test_setting(text, "timeout_secs", Some("30")).unwrap();
        assert_eq!(
            shorter,
            "[nav]\ntrace = 1\n\n[tests]\ntimeout_secs = 30\n# Arguments\nargs = []\n"
        );
        assert_eq!(with_test_setting("[nav]\n", "trace", None), None);
    }
}
