//! A walk's script and what running it printed. A step is one command line, handed to
//! `bash -c` as an agent's shell tool would, with its standard error folded into its
//! standard output (`exec 2>&1`, so the two arrive interleaved, as an agent reads them);
//! what is counted is that output's bytes — what the agent had to read — and one command
//! per step, however many `;`/`&&`/pipes it holds (both sides may chain alike).
//!
//! A step may be fixed text, or built from what the earlier steps printed (the suspect a
//! run names, the path a search gives): then the script reads what the agent would read,
//! rather than knowing the answer beforehand.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One command line of a walk.
pub enum Step {
    /// The command as written.
    Run(String),
    /// The command built from the output of the steps before it; `Err` when that output
    /// does not hold what the agent needed (the walk then fails, saying why).
    Then(Box<Build>),
    /// As `Then`, or no command at all when the earlier output already gave the agent
    /// what this one would read (`None`).
    Maybe(Box<MaybeBuild>),
}

type Build = dyn Fn(&[Record]) -> Result<String, String>;
type MaybeBuild = dyn Fn(&[Record]) -> Result<Option<String>, String>;

impl Step {
    pub fn run(command: impl Into<String>) -> Step {
        Step::Run(command.into())
    }

    pub fn then(build: impl Fn(&[Record]) -> Result<String, String> + 'static) -> Step {
        Step::Then(Box::new(build))
    }

    pub fn maybe(build: impl Fn(&[Record]) -> Result<Option<String>, String> + 'static) -> Step {
        Step::Maybe(Box::new(build))
    }
}

/// One command as run, with what it printed.
pub struct Record {
    /// The command with the values of the shell's variables written as `$M`, `$T`.
    pub shown: String,
    pub output: String,
    /// The number of bytes printed (stdout and stderr), before any lossy decoding.
    pub bytes: usize,
    pub success: bool,
}

/// Where a side's commands run: the working directory and the variables they may use
/// (`M`, the mountpoint; `T`, the folder of transcripts).
pub struct Shell {
    pub cwd: PathBuf,
    pub env: Vec<(&'static str, PathBuf)>,
}

impl Shell {
    /// Run every step in order; stops at the first step that cannot be built, but not at
    /// a command that fails (an agent reads the failure too; the walk's check judges).
    pub fn run_all(&self, steps: &[Step]) -> Result<Vec<Record>, (Vec<Record>, String)> {
        let mut records: Vec<Record> = Vec::new();
        for step in steps {
            let command = match step {
                Step::Run(command) => command.clone(),
                Step::Then(build) => match build(&records) {
                    Ok(command) => command,
                    Err(why) => return Err((records, why)),
                },
                Step::Maybe(build) => match build(&records) {
                    Ok(Some(command)) => command,
                    Ok(None) => continue,
                    Err(why) => return Err((records, why)),
                },
            };
            match self.run(&command) {
                Ok(record) => records.push(record),
                Err(why) => return Err((records, why)),
            }
        }
        Ok(records)
    }

    fn run(&self, command: &str) -> Result<Record, String> {
        let mut bash = Command::new("bash");
        bash.arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(&self.cwd)
            .stdin(Stdio::null());
        for (name, value) in &self.env {
            bash.env(name, value);
        }
        let out = bash
            .output()
            .map_err(|e| format!("bash could not run `{command}`: {e}"))?;
        let mut shown = command.to_string();
        for (name, value) in &self.env {
            shown = shown.replace(&*value.to_string_lossy(), &format!("${name}"));
        }
        Ok(Record {
            shown,
            bytes: out.stdout.len(),
            output: String::from_utf8_lossy(&out.stdout).into_owned(),
            success: out.status.success(),
        })
    }
}

/// The first absolute path in `text` that starts with `prefix` and ends with `suffix`
/// (paths in views are absolute and stop at a space, a backquote or a parenthesis).
pub fn path_in(text: &str, prefix: &Path, suffix: &str) -> Option<String> {
    let prefix = prefix.to_string_lossy();
    let mut rest = text;
    while let Some(at) = rest.find(&*prefix) {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | '"' | '\''))
            .unwrap_or(tail.len());
        let path = &tail[..end];
        if path.ends_with(suffix) {
            return Some(path.to_string());
        }
        rest = &tail[end.max(1)..];
    }
    None
}

/// The lines `first..=last` (1-based) that `def name` spans in `file`: from the last
/// `def name(` (an overloaded function's implementation comes after its stubs) to the last
/// line indented deeper than it, before the next line that is not — what `grep -n` shows
/// an agent and the range it then gives `sed -n`.
pub fn def_range(file: &Path, name: &str) -> Result<(usize, usize), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let pattern = format!("def {name}(");
    let start = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with(&pattern))
        .ok_or_else(|| format!("no `def {name}(` in {}", file.display()))?;
    let depth = indent(lines[start]);
    let mut last = start;
    // The signature may span lines; the body is what follows, indented deeper.
    let mut open =
        lines[start].matches('(').count() as i64 - lines[start].matches(')').count() as i64;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if open > 0 {
            open += line.matches('(').count() as i64 - line.matches(')').count() as i64;
            last = i;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) <= depth {
            break;
        }
        last = i;
    }
    Ok((start + 1, last + 1))
}

/// The last line `command` (a pytest run) prints, run by bash in `project` in `project` says (`{pytest} -q …`),
/// outside the walk and not counted: how a walk checks its end on disk.
pub fn pytest_says(project: &Path, command: &str) -> Result<String, String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{command} 2>&1 | tail -1"))
        .current_dir(project)
        .output()
        .map_err(|e| format!("pytest: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_def_range_runs_from_the_implementation_to_its_last_indented_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(
            &file,
            "@overload\ndef f(a: int) -> int: ...\ndef f(\n    a,\n):\n    x = 1\n\n    return x\n\n\ndef g():\n    pass\n",
        )
        .unwrap();
        assert_eq!(def_range(&file, "f").unwrap(), (3, 8));
        assert_eq!(def_range(&file, "g").unwrap(), (11, 12));
        assert!(def_range(&file, "h").is_err());
    }

    #[test]
    fn a_path_is_found_by_its_prefix_and_suffix_between_backquotes() {
        let text = "suspect: /m/source/a/b.py (src/a.py:1-3)\n- x — `/m/source/c/d.py`\n";
        assert_eq!(
            path_in(text, Path::new("/m/source/"), "d.py").as_deref(),
            Some("/m/source/c/d.py")
        );
        assert_eq!(
            path_in(text, Path::new("/m/source/"), ".py").as_deref(),
            Some("/m/source/a/b.py")
        );
        assert_eq!(path_in(text, Path::new("/x/"), ".py"), None);
    }

    #[test]
    fn a_step_counts_stdout_and_stderr_and_sees_its_variables() {
        let dir = tempfile::tempdir().unwrap();
        let shell = Shell {
            cwd: dir.path().to_path_buf(),
            env: vec![("M", PathBuf::from("/mnt/x"))],
        };
        let records = shell
            .run_all(&[
                Step::run("echo $M; echo oops >&2; false"),
                Step::then(|done| Ok(format!("printf %s {}", done[0].output.len()))),
            ])
            .map_err(|(_, why)| why)
            .unwrap();
        assert_eq!(records[0].output, "/mnt/x\noops\n");
        assert_eq!(records[0].bytes, 12);
        assert!(!records[0].success);
        assert_eq!(records[1].output, "12");
    }
}
