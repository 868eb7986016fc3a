//! Memory under a pile of editors' temp files: 256 files of 8 MiB (the most the mount
//! holds at once) written into `tasks/open/`, then removed. Prints the daemon's resident
//! memory every 32 files, its peak (`VmHWM`) and what is left after the removal, beside the
//! goal (under 150 MB at every point), and the median time to write one such file on the
//! mount and on the plain disk.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{daemon_status, median, mount, row};

/// Temp files written, and their size.
const FILES: usize = 256;
const SIZE: usize = 8 * 1024 * 1024;

pub fn bench_temp_files(example: &Path) {
    println!("\n## memory: {FILES} editors' temp files of 8 MiB, then rm (goal: RSS < 150 MB)");
    let (mounted, _) = mount(example);
    let plain = tempfile::tempdir().expect("temp dir");
    let dir = mounted.at.join("tasks/open");
    let content: Vec<u8> = (0..SIZE).map(|i| (i * 31 % 251) as u8).collect();
    let mib = |kib: u64| kib as f64 / 1024.0;
    let rss = || daemon_status(&mounted.at, "VmRSS:").unwrap_or(0);
    println!(
        "  daemon RSS at the start                      {:>10.1} MiB",
        mib(rss())
    );
    let (mut on_mount, mut on_disk) = (Vec::new(), Vec::new());
    for i in 1..=FILES {
        let name = format!(".scratch{i}.swp");
        on_mount.push(timed(|| std::fs::write(dir.join(&name), &content)));
        on_disk.push(timed(|| std::fs::write(plain.path().join(&name), &content)));
        if i % 32 == 0 {
            println!(
                "  daemon RSS after {i:>3} temp files              {:>10.1} MiB",
                mib(rss())
            );
        }
    }
    for i in 1..=FILES {
        let name = format!(".scratch{i}.swp");
        let _ = std::fs::remove_file(dir.join(&name));
    }
    println!(
        "  daemon RSS after removing them               {:>10.1} MiB",
        mib(rss())
    );
    let peak = daemon_status(&mounted.at, "VmHWM:").unwrap_or(0);
    println!(
        "  daemon peak RSS (VmHWM) over the whole run   {:>10.1} MiB",
        mib(peak)
    );
    row(
        "write one 8 MiB temp file",
        median(on_mount),
        Some(median(on_disk)),
    );
}

/// How long `op` took; a failure is reported and counted as it came.
fn timed(op: impl FnOnce() -> std::io::Result<()>) -> Duration {
    let started = Instant::now();
    if let Err(e) = op() {
        println!("  (a write failed: {e})");
    }
    started.elapsed()
}
