//! The symbol index figure of the source section: every module the mount shows, indexed with
//! the library's `homespace::python::index_module` (what a mount does the first time a
//! module's symbols are asked for) — files, bytes, symbols, time, MB/s — beside reading the
//! same files with `read_to_string` in the same run, so the cost of indexing shows apart
//! from the cost of reading.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use homespace::python::index_module;
use homespace::render::thousands;

use super::median;

/// Timed passes over all the files; the median is printed. Few: one pass over the stdlib
/// indexes millions of lines.
const PASSES: usize = 3;

/// What one pass saw.
#[derive(Default)]
struct Pass {
    /// Modules read as UTF-8 text (the others are shown by a mount but have no symbols).
    modules: usize,
    not_utf8: usize,
    bytes: usize,
    symbols: usize,
}

/// Read every file of `files` as text and, when `index`, index it.
fn pass(files: &[PathBuf], index: bool) -> Pass {
    let mut seen = Pass::default();
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            // A mount indexes only UTF-8 modules; the rest are skipped by both passes alike.
            seen.not_utf8 += 1;
            continue;
        };
        seen.modules += 1;
        seen.bytes += text.len();
        if index {
            seen.symbols += index_module(&text).symbols.len();
        }
    }
    seen
}

/// The median of [`PASSES`] timed passes, after one untimed one (so both figures read
/// from the page cache), and what the last pass saw.
fn timed(files: &[PathBuf], index: bool) -> (Duration, Pass) {
    let mut seen = pass(files, index);
    let times = (0..PASSES)
        .map(|_| {
            let started = Instant::now();
            seen = pass(files, index);
            started.elapsed()
        })
        .collect();
    (median(times), seen)
}

/// One line of the figure: `name`, the median, and the throughput over `bytes`.
fn line(name: &str, took: Duration, bytes: usize) {
    let mb_s = bytes as f64 / 1e6 / took.as_secs_f64().max(1e-9);
    println!(
        "  {name:<44} {:>10.1} ms {:>10.1} MB/s",
        took.as_secs_f64() * 1e3,
        mb_s
    );
}

/// The symbol index figure over `files` (the `.py` files the mount shows).
pub fn figure(files: &[PathBuf]) {
    println!("### symbol index (homespace::python::index_module; medians of {PASSES} passes)");
    let (read, _) = timed(files, false);
    let (indexed, seen) = timed(files, true);
    println!(
        "  {} files: {} modules, {} bytes ({:.1} MB), {} symbols{}",
        thousands(files.len() as u64),
        thousands(seen.modules as u64),
        thousands(seen.bytes as u64),
        seen.bytes as f64 / 1e6,
        thousands(seen.symbols as u64),
        if seen.not_utf8 > 0 {
            format!(
                "; {} not UTF-8 or unreadable, skipped",
                thousands(seen.not_utf8 as u64)
            )
        } else {
            String::new()
        }
    );
    line("read_to_string of every file", read, seen.bytes);
    line(
        "read_to_string + index_module of every file",
        indexed,
        seen.bytes,
    );
    let index_only = indexed.saturating_sub(read);
    line(
        "index_module alone (the difference)",
        index_only,
        seen.bytes,
    );
    println!(
        "  indexing costs {:.1}x the read\n",
        index_only.as_secs_f64() / read.as_secs_f64().max(1e-9)
    );
}
