//! The kernel's cache on real mounts: a seeded random sequence of changes (writes through
//! the mount, edits of project files on disk, a second process on the store) interleaved
//! with reads, compared step by step with a second mount that caches nothing
//! (`tests/differential/cache_differential.py`); and the figures the cache must keep.

mod common;

use std::path::Path;
use std::process::Command;

use common::{BIN, Mount};

/// Run the differential driver over a cached mount and an uncached one of the same
/// project and store.
fn differential(seed: u64, steps: u32) {
    let cached = Mount::example();
    let fresh = cached.beside(&["--no-cache"]);
    let driver =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/cache_differential.py");
    let out = Command::new("python3")
        .arg(&driver)
        .arg(&cached.at)
        .arg(&fresh.at)
        .arg(&cached.project)
        .arg(&cached.store)
        .arg(BIN)
        .arg(seed.to_string())
        .arg(steps.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}\n--- cached daemon ---\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        cached.log_text()
    );
}

#[test]
fn every_cached_read_equals_a_fresh_render_seed_1() {
    differential(1, 1500);
}

#[test]
fn every_cached_read_equals_a_fresh_render_seed_2() {
    differential(2, 1500);
}

#[test]
fn the_log_says_which_cache_mode_is_in_use() {
    let cached = Mount::example();
    let fresh = cached.beside(&["--no-cache"]);
    assert!(cached.log_text().contains("cache: kept by the kernel"));
    assert!(fresh.log_text().contains("cache: off (--no-cache)"));
}
