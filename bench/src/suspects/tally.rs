//! What the suspects section counts per project, and how it prints it: the table of rates
//! (three rankings side by side), the table of times, and with `--verbose` each mutant with
//! the suspects each ranking named.

use std::path::Path;
use std::time::Duration;

use super::mutants::Mutant;
use super::projects::Sdist;
use super::through::Run;
use super::views::Suspect;

/// One ranking's counts: killed mutants whose first, first three or any suspect named the
/// mutated function.
#[derive(Default)]
pub struct Column {
    top1: usize,
    top3: usize,
    named: usize,
}

impl Column {
    /// Count one killed mutant whose function the `rank`th suspect named (from 0).
    pub fn add(&mut self, rank: Option<usize>) {
        self.top1 += usize::from(rank == Some(0));
        self.top3 += usize::from(rank.is_some_and(|r| r < 3));
        self.named += usize::from(rank.is_some());
    }

    /// `top-1 top-3 named` in percent of `killed`, 17 characters.
    fn shown(&self, killed: usize) -> String {
        let percent = |n: usize| {
            if killed == 0 {
                "-".to_string()
            } else {
                format!("{:.0}%", 100.0 * n as f64 / killed as f64)
            }
        };
        format!(
            "{:>5} {:>5} {:>5}",
            percent(self.top1),
            percent(self.top3),
            percent(self.named)
        )
    }
}

/// What one project measured.
#[derive(Default)]
pub struct Tally {
    pub tried: usize,
    pub killed: usize,
    /// Mutants the mount refused to write (its import check failed).
    pub skipped: usize,
    /// The runner by default, the mutant written through the mount after a green run.
    pub edited: Column,
    /// The runner by default, the mutant on disk before a new mount's first run.
    pub cold: Column,
    /// As `cold` with `tests.probe_secs = 0`: the spectrum and the traceback alone.
    pub spectrum: Column,
    /// The runner with `trace = false`: its text heuristics alone.
    pub text: Column,
    /// Whether the runner took `trace = false` (else it has one ranking, in every column).
    pub has_trace_setting: bool,
    pub passing_mount: Vec<Duration>,
    pub passing_plain: Vec<Duration>,
    /// Killed mutants' runs: as the runner times them, and what the agent waited for
    /// the default run and for the one with `trace = false`.
    pub failing: Vec<f64>,
    pub failing_wall: Vec<Duration>,
    pub failing_wall_text: Vec<Duration>,
    pub traced_pass: Vec<f64>,
    /// Cold runs' probes for one-token fixes, as `output.txt` tells their seconds.
    pub probe: Vec<f64>,
    /// Killed mutants' runs with no note of a traced pass in an `output.txt` cut short.
    pub note_lost: usize,
    /// What happened that the table does not say.
    pub notes: Vec<String>,
    /// What went wrong, if the project could not be measured to its end.
    pub problem: Option<String>,
}

/// The runs of one killed mutant, for `--verbose`: the default run on the project's mount
/// (`None` when the runner has one ranking), the one on a new mount, the untraced one.
pub struct Runs<'a> {
    pub edited: Option<&'a Run>,
    pub cold: Option<&'a Run>,
    pub spectrum: Option<&'a Run>,
    pub text: &'a Run,
}

/// `module:line qualname `before` -> `after``, as the verbose lines name a mutant.
pub fn shown(mutant: &Mutant) -> String {
    format!(
        "{}:{} {} `{}` -> `{}`",
        mutant.module.display(),
        mutant.line,
        mutant.qualname,
        mutant.before.trim_end(),
        mutant.after.trim_end()
    )
}

/// One mutant as `--verbose` shows it: killed or not, the first failure, and each
/// ranking's suspects with a ✓ on those that name the mutated function.
pub fn print_mutant(mutant: &Mutant, runs: &Runs<'_>, names: impl Fn(&Suspect) -> bool) {
    let killed = runs.text.line.status == "failed";
    let verdict = if killed {
        "killed".to_string()
    } else {
        format!("not killed ({})", runs.text.line.status)
    };
    println!("  {}: {verdict}", shown(mutant));
    if !killed {
        return;
    }
    if let Some(failure) = &runs.text.failure {
        println!("      {}", failure.chars().take(160).collect::<String>());
    }
    let list = |run: &Run| -> String {
        let shown: Vec<String> = run
            .suspects
            .iter()
            .map(|s| {
                let file = Path::new(&s.file);
                // From the package down: the mountpoints differ from mount to mount.
                let short = s
                    .file
                    .find("/source/")
                    .map_or(file, |at| Path::new(&s.file[at + 8..]));
                let hit = if names(s) { " ✓" } else { "" };
                format!("{}{hit}", short.display())
            })
            .collect();
        if shown.is_empty() {
            "none".to_string()
        } else {
            shown.join(", ")
        }
    };
    if let Some(edited) = runs.edited {
        println!("      edited: {}", list(edited));
    }
    if let Some(cold) = runs.cold {
        println!("      cold:   {}", list(cold));
    }
    if let Some(spectrum) = runs.spectrum {
        println!("      no probe: {}", list(spectrum));
    }
    println!("      text:   {}", list(runs.text));
}

pub fn report(tallies: &[(&Sdist, Tally)]) {
    println!("\nsuspects (killed mutants; first suspect is the mutated function)");
    println!(
        "{:<18} {:>5} {:>6} | {:<17} | {:<17} | {:<17} | {:<17}",
        "", "", "", "traced, edited", "traced, cold", "cold, no probe", "text only"
    );
    let heads = format!("{:>5} {:>5} {:>5}", "top-1", "top-3", "named");
    println!(
        "{:<18} {:>5} {:>6} | {heads} | {heads} | {heads} | {heads}",
        "project", "tried", "killed"
    );
    for (sdist, t) in tallies {
        println!(
            "{:<18} {:>5} {:>6} | {} | {} | {} | {}",
            sdist.title(),
            t.tried,
            t.killed,
            t.edited.shown(t.killed),
            t.cold.shown(t.killed),
            t.spectrum.shown(t.killed),
            t.text.shown(t.killed)
        );
    }
    println!(
        "(edited: the bug written through the mount after a green run, so the runner knows \
         the change; cold: the bug on disk before a new mount and store's first run, so only \
         the traced pass, its probe for one-token fixes and the traceback rank; no probe: \
         cold with `tests.probe_secs = 0`; text: `[tests] trace = false`. The probe tries \
         the standard one-token mutation operators, the families these mutants come from: \
         on them it is at its best, on a bug no one token repairs it finds nothing)"
    );
    if tallies.iter().any(|(_, t)| !t.has_trace_setting) {
        println!(
            "(the runner refused `[tests] trace = false`: it has one ranking, its text \
             heuristics, and every column shows it)"
        );
    }
    println!(
        "\ntime (medians): a passing run through the mount (write to reading result.md) and its \
         command on the plain disk;\nkilled mutants' runs as the runner times them, their \
         traced second pass (its probe within it, cold), and the write to reading result.md \
         by default and untraced"
    );
    println!(
        "{:<18} {:>8} {:>8} {:>6} | {:>8} {:>12} {:>8} {:>8} {:>8}",
        "project",
        "mount",
        "plain",
        "ratio",
        "failing",
        "traced pass",
        "probe",
        "waited",
        "untraced"
    );
    for (sdist, t) in tallies {
        let mount = median_secs(t.passing_mount.iter().map(Duration::as_secs_f64));
        let plain = median_secs(t.passing_plain.iter().map(Duration::as_secs_f64));
        let ratio = match (mount, plain) {
            (Some(m), Some(p)) if p > 0.0 => format!("{:.2}x", m / p),
            _ => "-".into(),
        };
        let secs = |s: Option<f64>| s.map_or("-".into(), |s| format!("{s:.2} s"));
        let traced = match median_secs(t.traced_pass.iter().copied()) {
            Some(s) => format!("{s:.2} s"),
            None if t.note_lost > 0 => "note cut".into(),
            None => "not traced".into(),
        };
        let wall =
            |samples: &[Duration]| secs(median_secs(samples.iter().map(Duration::as_secs_f64)));
        println!(
            "{:<18} {:>8} {:>8} {:>6} | {:>8} {:>12} {:>8} {:>8} {:>8}",
            sdist.title(),
            secs(mount),
            secs(plain),
            ratio,
            secs(median_secs(t.failing.iter().copied())),
            traced,
            secs(median_secs(t.probe.iter().copied())),
            wall(&t.failing_wall),
            if t.has_trace_setting {
                wall(&t.failing_wall_text)
            } else {
                "-".into()
            }
        );
    }
    for (sdist, t) in tallies.iter().filter(|(_, t)| t.note_lost > 0) {
        println!(
            "({}: in {} of {} killed mutants' runs, output.txt came out cut to the view \
             budget without the runner's note of its traced pass)",
            sdist.title(),
            t.note_lost,
            t.killed
        );
    }
    println!();
}

fn median_secs(samples: impl Iterator<Item = f64>) -> Option<f64> {
    let mut all: Vec<f64> = samples.collect();
    all.sort_by(f64::total_cmp);
    all.get(all.len() / 2).copied()
}
