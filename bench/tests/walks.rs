//! The walks section of the benchmark, run as a user runs it on the example project
//! (`homespace-bench --only walks --project-only example`): every walk reaches its end on
//! both sides — the bare checkout and the mount — and the table names each walk with its
//! counts. Whether the mount meets its goal is measured, not asserted here.

use std::process::Command;

#[test]
fn every_walk_on_the_example_reaches_its_end_on_the_bare_checkout_and_on_the_mount() {
    let out = Command::new(env!("CARGO_BIN_EXE_homespace-bench"))
        .args(["--only", "walks", "--project-only", "example", "--verbose"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| (") && l.contains(") "))
        .collect();
    let walks = [
        "(a) fix",
        "(b) find and read",
        "(c) add a keyword",
        "(d) recall",
        "(e) add a feature",
        "(f) who calls",
    ];
    for walk in walks {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| {walk}")))
            .unwrap_or_else(|| panic!("no row for {walk}:\n{stdout}"));
        assert!(row.ends_with("| both |"), "{row}\n{stdout}");
        // Both sides ran commands and read something: a row of zeros would be a walk
        // that never started.
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        for cell in [cells[2], cells[3], cells[4], cells[5]] {
            assert!(cell.parse::<u64>().is_ok_and(|n| n > 0), "{row}");
        }
    }
    assert_eq!(rows.len(), walks.len(), "{stdout}");
    // The verbose list shows each side's commands, the mount's with `$M`.
    assert!(stdout.contains("echo > $M/source/tests/run"), "{stdout}");
    // (e) reviews its change as git sees it on both sides.
    assert!(stdout.contains("] git diff --stat"), "{stdout}");
    assert!(
        stdout.contains("cat $M/source/changes/status.txt"),
        "{stdout}"
    );
    assert!(
        stdout.contains("python -m pytest -q -x 2>&1 | tail -30"),
        "{stdout}"
    );
    // (f) asks the mount for references where the checkout greps.
    assert!(stdout.contains("cat \"$M/search/refs:"), "{stdout}");
}
