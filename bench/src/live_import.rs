//! Live import measured: how fast memory keeps up with a transcript an agent is writing.
//!
//! 1. Entries per second, in-process on each backend: a Claude Code session file of 20,000
//!    generated entries written 100 lines and then 1 line at a time, the follower looking
//!    after each write (what the mount's watcher does per burst), against `homespace
//!    import`'s load of the same finished file into a new store (the same entries, read
//!    whole).
//! 2. Delay from append to visible, on a mount of the example project whose settings
//!    follow a folder: one user message appended at a time, then `memory/_entry.md` read
//!    until its entry count grew; the p50 and p90 over 40 appends, against reading the
//!    appended line back from the plain file.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use homespace::memory::follow::Follower;
use homespace_testkit::poll::poll_true;

use super::backends::Backends;

/// Entries of the generated session.
const ENTRIES: usize = 20_000;
/// Appends timed on the mount.
const APPENDS: usize = 40;

/// One Claude Code message line, number `n`, with about 40 words of text.
fn line(n: usize) -> String {
    let kind = if n.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    let text: Vec<String> = (0..40)
        .map(|w| format!("w{}", (n * 7 + w * 13) % 5000))
        .collect();
    let seconds = n % 60;
    let minutes = (n / 60) % 60;
    format!(
        "{{\"type\":\"{kind}\",\"uuid\":\"u-{n}\",\"parentUuid\":{},\"sessionId\":\"live-bench\",\
         \"timestamp\":\"2026-11-20T10:{minutes:02}:{seconds:02}.000Z\",\"cwd\":\"/bench\",\
         \"message\":{{\"role\":\"{kind}\",\"content\":\"{} message {n}\"}}}}\n",
        if n == 0 {
            "null".to_string()
        } else {
            format!("\"u-{}\"", n - 1)
        },
        text.join(" ")
    )
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// Entries per second of the follower on each backend, beside a whole import.
pub fn bench_live_import(backends: &Backends) {
    let Ok(dir) = tempfile::tempdir() else {
        println!("no temp dir for the live import section");
        return;
    };
    println!("\n## memory: live import of a growing transcript ({ENTRIES} entries)");
    println!(
        "  {:<44} {:>14} {:>14} {:>8}",
        "", "following", "whole import", "ratio"
    );
    for backend in backends.available() {
        for per_look in [100, 1] {
            let lines = if per_look == 1 { 2_000 } else { ENTRIES };
            let file = dir
                .path()
                .join(format!("{}-{per_look}.jsonl", backend.name()));
            let followed = backends.new_store(backend, dir.path()).and_then(|made| {
                let store = Arc::new(made.open()?);
                let mut follower = Follower::new(store);
                let start = Instant::now();
                for first in (0..lines).step_by(per_look) {
                    let text: String = (first..first + per_look).map(line).collect();
                    append(&file, &text).map_err(|e| e.to_string())?;
                    follower.look(&file, None).map_err(|e| e.message)?;
                }
                Ok(start.elapsed())
            });
            let whole = backends.new_store(backend, dir.path()).and_then(|made| {
                let store = made.open()?;
                let start = Instant::now();
                homespace::memory::import_paths(&store, std::slice::from_ref(&file), &mut |_| {})
                    .map_err(|e| e.message)?;
                Ok(start.elapsed())
            });
            let rate = |took: Duration| lines as f64 / took.as_secs_f64().max(1e-9);
            let name = format!("{}, {per_look} line(s) per look ({lines})", backend.name());
            match (followed, whole) {
                (Ok(followed), Ok(whole)) => println!(
                    "  {name:<44} {:>10.0} e/s {:>10.0} e/s {:>7.2}x",
                    rate(followed),
                    rate(whole),
                    followed.as_secs_f64() / whole.as_secs_f64().max(1e-9)
                ),
                (Err(why), _) | (_, Err(why)) => println!("  {name:<44} failed: {why}"),
            }
        }
    }
}

/// The delay from an append to the mount showing it, beside the plain file.
pub fn bench_live_delay(example: &Path) {
    println!("\n## memory: delay from append to visible on the mount ({APPENDS} appends)");
    let Ok((_dir, project)) = super::copy_project(example) else {
        println!("  no copy of the example project");
        return;
    };
    let agent = project.with_file_name("agent-transcripts");
    let settings = project.join(".homespace/settings.toml");
    let written = std::fs::create_dir_all(&agent)
        .and_then(|()| std::fs::create_dir_all(project.join(".homespace")))
        .and_then(|()| {
            std::fs::write(
                &settings,
                format!("[memory]\nwatch = [{:?}]\n", agent.to_string_lossy()),
            )
        });
    if let Err(e) = written {
        println!("  cannot set the example up: {e}");
        return;
    }
    let (mounted, _) = super::mount(&project);
    let entry = mounted.at.join("memory/_entry.md");
    let file = agent.join("session.jsonl");
    let entries = || {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        text.lines()
            .find(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" session"))
            .and_then(|l| l.split(", ").nth(1))
            .and_then(|part| part.split(' ').next())
            .and_then(|n| n.replace(',', "").parse::<usize>().ok())
            .unwrap_or(0)
    };
    let mut delays = Vec::new();
    let mut plain = Vec::new();
    for n in 0..APPENDS {
        let before = entries();
        let start = Instant::now();
        if append(&file, &line(n * 2)).is_err() {
            println!("  cannot append to {}", file.display());
            break;
        }
        // Asked without a pause: the delay is the figure measured.
        let seen = poll_true(Duration::from_secs(10), Duration::ZERO, || {
            entries() > before
        });
        if !seen {
            println!("  append {n} did not show within 10 s");
            break;
        }
        delays.push(start.elapsed());
        // The plain disk: the appended line read back from the file.
        let start = Instant::now();
        let _ = std::fs::read(&file);
        plain.push(start.elapsed());
    }
    drop(mounted);
    if delays.is_empty() {
        return;
    }
    delays.sort();
    let p90 = delays[delays.len() * 9 / 10];
    super::row(
        "append → memory/_entry.md counts it (p50)",
        super::median(delays),
        Some(super::median(plain)),
    );
    super::row("append → memory/_entry.md counts it (p90)", p90, None);
}
