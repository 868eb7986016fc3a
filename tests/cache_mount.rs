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

#[test]
fn a_large_project_file_is_read_from_the_file_itself_and_follows_edits_on_disk() {
    let mount = Mount::example();
    let on_disk = mount.project.join("src/ledger/templates/large.txt");
    let first: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(&on_disk, &first).unwrap();
    let shown = mount.path("source/ledger/templates/large.txt");
    assert_eq!(std::fs::read(&shown).unwrap(), first);
    assert!(
        mount.log_text().contains("passthrough: on"),
        "the log says the mode: {}",
        mount.log_text()
    );
    // Replaced on disk, as an editor saves: the next read is the new file, whole.
    let second = vec![b'z'; 200_000];
    let temp = on_disk.with_extension("tmp");
    std::fs::write(&temp, &second).unwrap();
    std::fs::rename(&temp, &on_disk).unwrap();
    let started = std::time::Instant::now();
    loop {
        let now = std::fs::read(&shown).unwrap();
        let size = std::fs::metadata(&shown).unwrap().len();
        if now == second && size == second.len() as u64 {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "the edit on disk never showed: {} bytes read, stat says {size}",
            now.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
