//! The suspects section (`--only suspects`, issue 44): how often the test runner's suspects
//! name the function where a bug is. Into the package of each of three real projects
//! (`projects.rs`: boltons, sqlparse, cachetools, fetched as sdists) it puts one-token
//! mutants (`mutants.rs`), one at a time, written through the mount as an agent writes a
//! module; runs the suite through the mount (`through.rs`); keeps the mutants the suite
//! kills (the run `failed`, not `error` or `timed out`); reads the first failure's suspects
//! (`views.rs`) and restores the module through the mount before the next mutant.
//!
//! A suspect names the mutated function when it is in the mutated module, its lines hold
//! the mutated line and lie within the function's lines (as homespace's symbol index has
//! them, which is where the runner's come from): the function itself, or a function nested
//! in it if a ranking ever names one; never the class around a method. A mutant in a nested
//! function counts as one in the function the index holds it in (the index, like the
//! runner, stops at functions). Per project: top-1 (the first suspect names it), top-3 and
//! named (any suspect of the first failure's file does), in percent of the killed mutants.
//!
//! Two columns: the runner as it is by default ("traced": its ranking from what the
//! failing tests ran, once it has one) and its text heuristics alone ("text": `[tests]
//! trace = false` in `source/meta/settings.toml`). Each killed mutant is run with the
//! setting, then without it (the runner's default). A runner that refuses the key has
//! only the heuristics: the mutant is run once, and both columns show that one ranking
//! (the table says so). A runner whose suspects do not use the traces yet shows the same
//! figures in both columns while tracing.
//!
//! Then the time: the median of a passing run through the mount (from the write to
//! `tests/run` to the end of reading `result.md`) beside the run's own command (its
//! `_entry.md`'s) on the plain disk, and for killed mutants the median of the failing run
//! beside that of the traced second pass the runner reports at the end of `output.txt`
//! ("not traced" without one; "note cut" when `output.txt` came out cut to the view budget
//! without it).
//!
//! Options: `--mutants N` killed mutants per project (default 12; at most 4N are tried),
//! `--sdist-only NAME` one project, `--verbose` each mutant with its suspects. The order
//! mutants are tried in is fixed (a seeded shuffle, no clock), so runs are comparable.

mod mutants;
mod projects;
mod through;
mod views;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mutants::Mutant;
use projects::Sdist;
use through::Source;
use views::Suspect;

/// What the command line chose for this section.
pub struct Options {
    /// Killed mutants wanted per project.
    pub mutants: usize,
    /// Only the project of this name.
    pub only: Option<String>,
    pub verbose: bool,
}

/// Killed mutants per project unless `--mutants` says otherwise.
pub const MUTANTS: usize = 12;
/// Tries per killed mutant wanted, at most: survivors cost a run each too.
const TRIES_PER_KILL: usize = 4;
/// The seed of the order mutants are tried in (the number).
const SEED: u64 = 44;
/// Passing runs timed on each side.
const PASSING_RUNS: usize = 5;

/// One column's counts: killed mutants whose first, first three or any suspect named the
/// mutated function.
#[derive(Default)]
struct Column {
    top1: usize,
    top3: usize,
    named: usize,
}

impl Column {
    fn add(&mut self, rank: Option<usize>) {
        self.top1 += usize::from(rank == Some(0));
        self.top3 += usize::from(rank.is_some_and(|r| r < 3));
        self.named += usize::from(rank.is_some());
    }
}

/// What one project measured.
#[derive(Default)]
struct Tally {
    tried: usize,
    killed: usize,
    /// Mutants the mount refused to write (its import check failed).
    skipped: usize,
    traced: Column,
    text: Column,
    /// Whether the runner took `trace = false` (else both columns are one ranking).
    has_trace_setting: bool,
    passing_mount: Vec<Duration>,
    passing_plain: Vec<Duration>,
    /// Killed mutants' runs: as the runner times them, and what the agent waited for
    /// the default run and for the one with `trace = false`.
    failing: Vec<f64>,
    failing_wall: Vec<Duration>,
    failing_wall_text: Vec<Duration>,
    traced_pass: Vec<f64>,
    /// Killed mutants' runs with no note of a traced pass in an `output.txt` cut short.
    note_lost: usize,
    /// What happened that the table does not say.
    notes: Vec<String>,
    /// What went wrong, if the project could not be measured to its end.
    problem: Option<String>,
}

/// Run the section; false when a project could not be measured (said above the table).
pub fn bench_suspects(options: &Options) -> bool {
    println!("## suspects: does the first suspect name the mutated function? (issue 44)\n");
    let started = Instant::now();
    let chosen: Vec<&Sdist> = projects::ALL
        .iter()
        .filter(|p| options.only.as_deref().is_none_or(|only| only == p.name))
        .collect();
    if chosen.is_empty() {
        println!("no project is called {:?}", options.only);
        return false;
    }
    let mut tallies = Vec::new();
    for sdist in chosen {
        let project_started = Instant::now();
        let tally = measure(sdist, options);
        println!(
            "{}: {} tried, {} killed, {} skipped ({:.0} s){}",
            sdist.title(),
            tally.tried,
            tally.killed,
            tally.skipped,
            project_started.elapsed().as_secs_f64(),
            tally
                .problem
                .as_ref()
                .map_or(String::new(), |p| format!(" — {p}"))
        );
        for note in &tally.notes {
            println!("  note: {note}");
        }
        tallies.push((sdist, tally));
    }
    report(&tallies);
    println!("(section took {:.0} s)\n", started.elapsed().as_secs_f64());
    tallies.iter().all(|(_, t)| t.problem.is_none())
}

fn measure(sdist: &Sdist, options: &Options) -> Tally {
    let mut tally = Tally::default();
    if let Err(why) = measure_into(sdist, options, &mut tally) {
        tally.problem = Some(why);
    }
    tally
}

fn measure_into(sdist: &Sdist, options: &Options, tally: &mut Tally) -> Result<(), String> {
    let (_dir, project) = sdist.copy()?;
    let mut candidates = Vec::new();
    for module in sdist.modules(&project)? {
        let path = project.join(&module);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        candidates.extend(mutants::mutants(&module, &text));
    }
    let order = mutants::in_trial_order(candidates, SEED);
    // Unmounted when dropped, on every return below; a mount that will not go is named
    // and makes the benchmark exit with 1.
    let (mounted, _) = super::mount(&project);
    let source = Source::new(&mounted.at);
    // A suite may fail now and then by itself (seen once in boltons, not again in 30
    // runs): a second failure in a row ends the project, a single one is said.
    let mut first = source.run()?;
    if first.line.status != "passed" {
        tally
            .notes
            .push(format!("a run failed before any mutant: {}", about(&first)));
        first = source.run()?;
        if first.line.status != "passed" {
            return Err(format!(
                "the suite does not pass through the mount: {}",
                about(&first)
            ));
        }
    }
    let command = first
        .command
        .clone()
        .ok_or("the run's _entry.md names no command")?;
    for _ in 0..PASSING_RUNS {
        tally.passing_mount.push(source.run()?.wall);
        tally.passing_plain.push(plain_run(&project, &command)?);
    }
    // A mutant can loop forever: a run that takes far longer than the plain one is stopped
    // (and is no kill).
    let timeout = (super::median(tally.passing_mount.clone()).as_secs_f64() * 6.0).max(20.0);
    source.set_test_setting("timeout_secs", Some(&format!("{}", timeout.ceil())))?;
    tally.has_trace_setting = source.set_test_setting("trace", Some("false")).is_ok();
    source.set_test_setting("trace", None)?;
    let wanted = options.mutants;
    for mutant in order {
        if tally.killed >= wanted || tally.tried >= wanted * TRIES_PER_KILL {
            break;
        }
        try_mutant(sdist, &project, &source, &mutant, options, tally)?;
    }
    source.set_test_setting("trace", None)?;
    let last = source.run()?;
    if last.line.status != "passed" {
        return Err(format!(
            "the suite does not pass after the mutants were undone: {}",
            about(&last)
        ));
    }
    drop(mounted);
    Ok(())
}

/// Write one mutant through the mount, run the suite (twice when it kills the mutant and
/// the runner has the trace setting), tally its suspects, and restore the module.
fn try_mutant(
    sdist: &Sdist,
    project: &Path,
    source: &Source,
    mutant: &Mutant,
    options: &Options,
    tally: &mut Tally,
) -> Result<(), String> {
    let on_disk = project.join(&mutant.module);
    let original = std::fs::read(&on_disk).map_err(|e| format!("{}: {e}", on_disk.display()))?;
    let text = String::from_utf8_lossy(&original);
    // Not a mutant at all (`for x not in xs`): passed over, not counted.
    let Some(mutated) = mutant.apply(&text) else {
        return Ok(());
    };
    let rel = sdist.in_source(&mutant.module);
    if let Err(why) = source.write(rel, mutated.as_bytes()) {
        tally.skipped += 1;
        if options.verbose {
            println!("  {}: skipped: {why}", shown(mutant));
        }
        return restore(source, rel, &on_disk, &original);
    }
    if tally.has_trace_setting {
        source.set_test_setting("trace", Some("false"))?;
    }
    let plain = source.run();
    let outcome = plain.and_then(|text_run| {
        tally.tried += 1;
        // Only a killed mutant is run again, and only when the two rankings differ.
        if text_run.line.status != "failed" || !tally.has_trace_setting {
            return Ok((text_run, None));
        }
        source.set_test_setting("trace", None)?;
        let traced = source.run()?;
        Ok((text_run, Some(traced)))
    });
    // Restored whatever happened, before any error is passed on.
    restore(source, rel, &on_disk, &original)?;
    let (text_run, traced_run) = outcome?;
    let killed = text_run.line.status == "failed";
    let traced_run = traced_run.as_ref().unwrap_or(&text_run);
    let text_rank = rank(mutant, &text_run.suspects);
    let traced_rank = if traced_run.line.status == "failed" {
        rank(mutant, &traced_run.suspects)
    } else {
        None
    };
    if killed {
        tally.killed += 1;
        tally.text.add(text_rank);
        tally.traced.add(traced_rank);
        tally.failing.extend(traced_run.line.seconds);
        tally.failing_wall.push(traced_run.wall);
        tally.failing_wall_text.push(text_run.wall);
        tally.traced_pass.extend(traced_run.traced);
        tally.note_lost += usize::from(traced_run.traced.is_none() && traced_run.output_cut);
    }
    if options.verbose {
        print_mutant(
            source,
            mutant,
            &text_run,
            killed,
            traced_run,
            tally.has_trace_setting,
        );
    }
    Ok(())
}

/// A run in a few words: `run 3 failed, first FAILED tests.test_x.test_y: …`.
fn about(run: &through::Run) -> String {
    let first = run.failure.as_ref().map_or(String::new(), |f| {
        format!(", first {}", f.chars().take(160).collect::<String>())
    });
    format!("run {} {}{first}", run.line.id, run.line.status)
}

/// Write `original` back through the mount and check the disk holds it byte for byte.
fn restore(source: &Source, rel: &Path, on_disk: &Path, original: &[u8]) -> Result<(), String> {
    let now = std::fs::read(on_disk).map_err(|e| format!("{}: {e}", on_disk.display()))?;
    if now != original {
        source.write(rel, original)?;
    }
    match std::fs::read(on_disk) {
        Ok(now) if now == original => Ok(()),
        Ok(_) => Err(format!("{} was not restored", on_disk.display())),
        Err(why) => Err(format!("{}: {why}", on_disk.display())),
    }
}

/// The rank of the first suspect naming the mutated function (see the module's doc).
fn rank(mutant: &Mutant, suspects: &[Suspect]) -> Option<usize> {
    suspects.iter().position(|s| names(mutant, s))
}

fn names(mutant: &Mutant, suspect: &Suspect) -> bool {
    let (first, last) = suspect.lines;
    Path::new(&suspect.module) == mutant.module
        && first <= mutant.line
        && mutant.line <= last
        && mutant.lines.0 <= first
        && last <= mutant.lines.1
}

/// The run's own command on the plain disk, in the project's folder: its wall time.
fn plain_run(project: &Path, command: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let status = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(project)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("sh -c {command:?}: {e}"))?;
    let took = started.elapsed();
    if status.success() {
        Ok(took)
    } else {
        Err(format!("on the plain disk, {command:?} failed: {status}"))
    }
}

fn print_mutant(
    source: &Source,
    mutant: &Mutant,
    text_run: &through::Run,
    killed: bool,
    traced_run: &through::Run,
    has_trace_setting: bool,
) {
    let verdict = if killed {
        "killed".to_string()
    } else {
        format!("not killed ({})", text_run.line.status)
    };
    println!("  {}: {verdict}", shown(mutant));
    if !killed {
        return;
    }
    if let Some(failure) = &text_run.failure {
        println!("      {}", failure.chars().take(160).collect::<String>());
    }
    let list = |run: &through::Run| -> String {
        let shown: Vec<String> = run
            .suspects
            .iter()
            .map(|s| {
                let file = Path::new(&s.file);
                let short = file.strip_prefix(&source.dir).unwrap_or(file);
                let hit = if names(mutant, s) { " ✓" } else { "" };
                format!("{}{hit}", short.display())
            })
            .collect();
        if shown.is_empty() {
            "none".to_string()
        } else {
            shown.join(", ")
        }
    };
    if has_trace_setting {
        println!("      traced: {}", list(traced_run));
        println!("      text:   {}", list(text_run));
    } else {
        println!("      suspects: {}", list(text_run));
    }
}

/// `module:line qualname `before` -> `after``, as the verbose lines name a mutant.
fn shown(mutant: &Mutant) -> String {
    format!(
        "{}:{} {} `{}` -> `{}`",
        mutant.module.display(),
        mutant.line,
        mutant.qualname,
        mutant.before.trim_end(),
        mutant.after.trim_end()
    )
}

fn report(tallies: &[(&Sdist, Tally)]) {
    let percent = |n: usize, of: usize| {
        if of == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * n as f64 / of as f64)
        }
    };
    println!("\nsuspects (killed mutants; first suspect is the mutated function)");
    println!(
        "{:<18} {:>5} {:>6} | traced {:>5} {:>5} {:>5} | text {:>5} {:>5} {:>5}",
        "project", "tried", "killed", "top-1", "top-3", "named", "top-1", "top-3", "named"
    );
    for (sdist, t) in tallies {
        let column = |c: &Column| {
            format!(
                "{:>5} {:>5} {:>5}",
                percent(c.top1, t.killed),
                percent(c.top3, t.killed),
                percent(c.named, t.killed)
            )
        };
        println!(
            "{:<18} {:>5} {:>6} | {:>6} {} | {:>4} {}",
            sdist.title(),
            t.tried,
            t.killed,
            "",
            column(&t.traced),
            "",
            column(&t.text)
        );
    }
    if tallies.iter().any(|(_, t)| !t.has_trace_setting) {
        println!(
            "(the runner refused `[tests] trace = false`: it has one ranking, today's text \
             heuristics, and both columns show it)"
        );
    }
    println!(
        "\ntime (medians): a passing run through the mount (write to reading result.md) and its \
         command on the plain disk;\nkilled mutants' runs as the runner times them, their \
         traced second pass, and the write to reading result.md by default and untraced"
    );
    println!(
        "{:<18} {:>8} {:>8} {:>6} | {:>8} {:>12} {:>8} {:>8}",
        "project", "mount", "plain", "ratio", "failing", "traced pass", "waited", "untraced"
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
            "{:<18} {:>8} {:>8} {:>6} | {:>8} {:>12} {:>8} {:>8}",
            sdist.title(),
            secs(mount),
            secs(plain),
            ratio,
            secs(median_secs(t.failing.iter().copied())),
            traced,
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
