//! Hostile and careless input on a real mount (SPEC §10): modes that cannot be changed,
//! empty writes, editors' temp files that would eat the daemon's memory, and a seeded
//! storm of random operations with odd names and contents.

mod common;

use common::Mount;

#[test]
fn chmod_and_chown_are_applied_or_refused_never_pretended() {
    Mount::example().run_script("modes.sh");
}

#[test]
fn names_that_would_save_nothing_or_hide_are_refused_at_the_call() {
    Mount::example().run_script("hostile_names.sh");
}

#[test]
fn emptying_a_document_is_refused_at_the_call() {
    Mount::example().run_script("empty_writes.sh");
}

/// Resident memory the daemon may use while editors' temp files pile up (the goal of
/// SPEC §9: bounded; the benchmark prints the figures for 256 files of 8 MiB).
const RSS_CEILING_KIB: u64 = 150 * 1024;

#[test]
fn large_temp_files_live_on_disk_not_in_the_daemons_memory() {
    let mount = Mount::example();
    let files = 40;
    let (ok, out) = mount.sh(&format!(
        "head -c 8388608 /dev/urandom > big.bin && \
         for i in $(seq 1 {files}); do cp big.bin \"$HS/tasks/open/.big$i.swp\" || exit 1; done"
    ));
    assert!(ok, "{out}\n{}", mount.log_text());
    let full = mount.daemon_rss_kib();
    assert!(
        full < RSS_CEILING_KIB,
        "{files} temp files of 8 MiB: daemon RSS {full} KiB"
    );
    // What was written reads back whole, from disk.
    let (ok, out) = mount.sh("cmp big.bin \"$HS/tasks/open/.big7.swp\" && echo same");
    assert!(ok && out.contains("same"), "{out}");
    let (ok, out) = mount.sh("rm \"$HS\"/tasks/open/.big*.swp && ls -A \"$HS/tasks/open\"");
    assert!(ok && !out.contains(".big"), "{out}");
    let after = mount.daemon_rss_kib();
    assert!(after < RSS_CEILING_KIB, "after rm: daemon RSS {after} KiB");
    // The room on disk came back: as many files again fit.
    let (ok, out) = mount.sh(&format!(
        "for i in $(seq 1 {files}); do cp big.bin \"$HS/tasks/open/.again$i.swp\" || exit 1; done"
    ));
    assert!(ok, "{out}");
}
