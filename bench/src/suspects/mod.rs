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
//! Three columns, each a ranking of the same killed mutants: "traced, edited" is the
//! runner as it is by default, the mutant written through the mount after a green run (a
//! ranking that puts what changed since the failing tests last passed first names it from
//! that); "traced, cold" is the runner by default on a new mount and store of a second copy
//! that holds the mutant on disk before its first run (`cold.rs`: no history, only the
//! traced pass and the traceback rank); "text only" is the runner with `[tests] trace =
//! false` in `source/meta/settings.toml`, its text heuristics. So a killed mutant runs
//! three times. A runner that refuses the key has one ranking, the heuristics: the mutant
//! runs once, and every column shows that ranking (the table says so).
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

mod cold;
mod mutants;
mod projects;
mod tally;
mod through;
mod views;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cold::Cold;
use mutants::Mutant;
use projects::Sdist;
use tally::{Runs, Tally};
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

/// Run the section; false when a project could not be measured (said above the table).
pub fn bench_suspects(options: &Options) -> bool {
    println!("## suspects: does the first suspect name the mutated function? (issue 44)\n");
    let started = Instant::now();
    let chosen: Vec<&Sdist> = projects::ALL
        .iter()
        .filter(|p| options.only.as_deref().is_none_or(|only| only == p.name))
        .collect();
    if chosen.is_empty() {
        let names: Vec<&str> = projects::ALL.iter().map(|p| p.name).collect();
        println!(
            "--sdist-only takes {}, not {:?}",
            names.join(", "),
            options.only.as_deref().unwrap_or_default()
        );
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
    tally::report(&tallies);
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
    let timeout = format!("{}", timeout.ceil());
    source.set_test_setting("timeout_secs", Some(&timeout))?;
    tally.has_trace_setting = source.set_test_setting("trace", Some("false")).is_ok();
    source.set_test_setting("trace", None)?;
    // Only a runner with a traced pass ranks differently without a history.
    let cold = if tally.has_trace_setting {
        Some(Cold::new(sdist, &timeout)?)
    } else {
        None
    };
    let wanted = options.mutants;
    for mutant in order {
        if tally.killed >= wanted || tally.tried >= wanted * TRIES_PER_KILL {
            break;
        }
        let at = Place {
            sdist,
            project: &project,
            source: &source,
            cold: cold.as_ref(),
        };
        try_mutant(&at, &mutant, options, tally)?;
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

/// Where a project's mutants are tried.
struct Place<'a> {
    sdist: &'a Sdist,
    /// The project's copy on disk, mounted at `source`.
    project: &'a Path,
    source: &'a Source,
    /// The second copy, for the runs without a history; `None` without a traced pass.
    cold: Option<&'a Cold>,
}

/// Write one mutant through the mount, run the suite (and when it kills the mutant and
/// the runner has the trace setting: again traced, then on a new mount of the second copy),
/// tally its suspects, and restore the module.
fn try_mutant(
    at: &Place<'_>,
    mutant: &Mutant,
    options: &Options,
    tally: &mut Tally,
) -> Result<(), String> {
    let (sdist, project, source) = (at.sdist, at.project, at.source);
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
            println!("  {}: skipped: {why}", tally::shown(mutant));
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
    let (text_run, edited_run) = outcome?;
    let killed = text_run.line.status == "failed";
    let (cold_run, spectrum_run) = match at.cold {
        Some(cold) if killed => (
            Some(cold.run(&mutant.module, mutated.as_bytes(), true)?),
            Some(cold.run(&mutant.module, mutated.as_bytes(), false)?),
        ),
        _ => (None, None),
    };
    // A ranking of a run the mutant did not fail names nothing.
    let ranked = |run: &through::Run| {
        (run.line.status == "failed")
            .then(|| rank(mutant, &run.suspects))
            .flatten()
    };
    // Without the trace setting the one ranking stands in every column.
    let traced_run = edited_run.as_ref().unwrap_or(&text_run);
    if killed {
        tally.killed += 1;
        tally.text.add(ranked(&text_run));
        tally.edited.add(ranked(traced_run));
        tally
            .cold
            .add(ranked(cold_run.as_ref().unwrap_or(traced_run)));
        tally
            .spectrum
            .add(ranked(spectrum_run.as_ref().unwrap_or(traced_run)));
        tally
            .probe
            .extend(cold_run.as_ref().and_then(|run| run.probe));
        tally.failing.extend(traced_run.line.seconds);
        tally.failing_wall.push(traced_run.wall);
        tally.failing_wall_text.push(text_run.wall);
        tally.traced_pass.extend(traced_run.traced);
        tally.note_lost += usize::from(traced_run.traced.is_none() && traced_run.output_cut);
    }
    if options.verbose {
        let runs = Runs {
            edited: edited_run.as_ref(),
            cold: cold_run.as_ref(),
            spectrum: spectrum_run.as_ref(),
            text: &text_run,
        };
        tally::print_mutant(mutant, &runs, |s| names(mutant, s));
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
