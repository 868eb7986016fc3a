//! The kernel's cache on real mounts: a seeded random sequence of changes (writes through
//! the mount, edits of project files on disk, a second process on the store) interleaved
//! with reads, compared step by step with a second mount that caches nothing
//! (`tests/differential/cache_differential.py`); and the figures the cache must keep.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use homespace_testkit::poll::poll_true;

use common::{BIN, Mount};

/// Run the differential driver over a cached mount and an uncached one of the same
/// project and store (and, with `read_only`, a `--read-only` mount against a
/// `--read-only --no-cache` one).
fn differential(seed: u64, steps: u32, read_only: bool) {
    let cached = Mount::example();
    let fresh = cached.beside(&["--no-cache"]);
    let unwritable = read_only.then(|| {
        (
            cached.beside(&["--read-only"]),
            cached.beside(&["--read-only", "--no-cache"]),
        )
    });
    // Each daemon indexes the project in the background at its own pace and says how far
    // in source/_entry.md: the comparison starts once none of them is indexing.
    let mut mounts = vec![&cached, &fresh];
    if let Some((kept, fresh)) = &unwritable {
        mounts.extend([kept, fresh]);
    }
    for mount in mounts {
        mount.wait_for("the background indexing", Duration::from_secs(120), || {
            !mount.read("source/_entry.md").contains("in the background")
        });
    }
    let driver =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/cache_differential.py");
    let mut command = Command::new("python3");
    command
        .arg(&driver)
        .arg(&cached.at)
        .arg(&fresh.at)
        .arg(&cached.project)
        .arg(&cached.store)
        .arg(BIN)
        .arg(seed.to_string())
        .arg(steps.to_string());
    if let Some((kept, fresh)) = &unwritable {
        command.arg(&kept.at).arg(&fresh.at);
    }
    let out = command.output().unwrap();
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
    differential(1, 1500, false);
}

#[test]
fn every_cached_read_equals_a_fresh_render_seed_2() {
    differential(2, 1500, false);
}

/// A read-only mount's kernel answers opens itself: its pages outlive every open, so
/// invalidation alone keeps them right.
#[test]
fn every_read_only_read_equals_a_fresh_render_seed_3() {
    differential(3, 1000, true);
}

#[test]
fn a_read_only_mount_refuses_changes_and_its_kernel_answers_opens() {
    let writable = Mount::example();
    let mount = writable.beside(&["--read-only"]);
    let module = mount.path("source/ledger/report.py");
    let before = std::fs::read(&module).unwrap();
    for refused in [
        std::fs::write(&module, "x = 1\n"),
        std::fs::write(mount.path("tasks/open/new.json"), "{\"title\": \"t\"}"),
        std::fs::create_dir(mount.path("tasks/later")),
        std::fs::remove_file(mount.path("source/ledger/report/totals.py")),
    ] {
        assert_eq!(refused.unwrap_err().raw_os_error(), Some(libc::EROFS));
    }
    assert_eq!(std::fs::read(&module).unwrap(), before);
    assert!(mount.read("_entry.md").contains("Read-only mount"));
    // Changes made elsewhere still show: here through the writable mount.
    std::fs::write(
        writable.path("tasks/open/seen.json"),
        "{\"title\": \"Seen from the read-only mount\"}",
    )
    .unwrap();
    let seen = mount.path("tasks/open/seen.json");
    assert!(poll_true(
        Duration::from_secs(5),
        Duration::from_millis(10),
        || { std::fs::read_to_string(&seen).is_ok_and(|t| t.contains("Seen from")) }
    ));
    let log = mount.log_text();
    assert!(
        log.contains("read-only: the kernel refuses changes"),
        "{log}"
    );
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
    let mut last = (0, 0);
    let showed = poll_true(Duration::from_secs(5), Duration::from_millis(10), || {
        let now = std::fs::read(&shown).unwrap();
        let size = std::fs::metadata(&shown).unwrap().len();
        last = (now.len(), size);
        now == second && size == second.len() as u64
    });
    let (read, size) = last;
    assert!(
        showed,
        "the edit on disk never showed: {read} bytes read, stat says {size}"
    );
}
