//! The parse index on a real mount: a remount parses only the modules that changed on disk
//! since the last one, as the daemon's log line after warm-up counts — a changed module, one
//! rewritten with the same size and mtime, and one replaced by another file of the same size
//! and mtime (`touch -r`) — and serves their new symbols. Once parses are kept, a recursive
//! listing reads no module: every view it sizes is drawn from the kept parses.

mod common;

use std::path::Path;
use std::time::Duration;

use homespace_testkit::poll::poll_until;

use common::Mount;

/// The counts of the `round`-th warm-up of the daemon log: (modules, parsed, loaded).
fn indexed(mount: &Mount, round: usize) -> (usize, usize, usize) {
    let warm_up = |log: &str| {
        log.lines()
            .filter(|l| l.contains(" indexed ") && l.contains("from the parse index"))
            .nth(round - 1)
            .map(str::to_string)
    };
    let line = poll_until(Duration::from_secs(60), Duration::from_millis(20), || {
        warm_up(&mount.log_text())
    });
    let log = mount.log_text();
    assert!(line.is_some(), "no warm-up line {round} in the log:\n{log}");
    let line = line.unwrap_or_default();
    // "<time> indexed N modules: M parsed, K from the parse index (…)"
    let counts: Vec<usize> = line[line.find(" indexed ").unwrap_or(0)..]
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .take(3)
        .collect();
    assert_eq!(counts.len(), 3, "{line}");
    (counts[0], counts[1], counts[2])
}

/// A project of `packages` packages of five modules each.
fn project(dir: &Path, packages: usize) {
    for p in 0..packages {
        let package = dir.join(format!("pkg{p}"));
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(package.join("__init__.py"), "").unwrap();
        for m in 0..5 {
            std::fs::write(
                package.join(format!("mod{m}.py")),
                format!(
                    "\"\"\"Module {m}.\"\"\"\n\n\ndef alpha(x):\n    return x + {m}\n\n\nclass Box{m}:\n    def size(self):\n        return {p}\n"
                ),
            )
            .unwrap();
        }
    }
}

#[test]
fn a_remount_parses_only_the_modules_changed_since() {
    let made = tempfile::tempdir().unwrap();
    project(made.path(), 4);
    let mut mount = Mount::of(made.path(), &[]);
    let (modules, parsed, loaded) = indexed(&mount, 1);
    assert_eq!((parsed, loaded), (modules, 0), "{}", mount.log_text());
    assert!(modules >= 20, "{modules}");

    // One module changes while nothing is mounted.
    mount.kill_daemon();
    let changed = mount.project.join("pkg1/mod2.py");
    let mut text = std::fs::read_to_string(&changed).unwrap();
    text.push_str("\n\ndef added():\n    pass\n");
    std::fs::write(&changed, text).unwrap();
    mount.restart(&[]);
    let (again, parsed, loaded) = indexed(&mount, 2);
    assert_eq!(again, modules);
    assert_eq!((parsed, loaded), (1, modules - 1), "{}", mount.log_text());
    let (ok, listing) = mount.sh("ls $HS/source/pkg1/mod2/");
    assert!(ok && listing.contains("added.py"), "{listing}");

    // Two more change so that their size and mtime stay: one rewritten in place, its mtime
    // set back; one replaced by another file given its mtime with `touch -r`.
    mount.kill_daemon();
    let (ok, out) = mount.sh("cd $PROJECT/pkg2
         stamp=$(stat -c %y mod3.py)
         sed -i 's/def alpha/def gamma/' mod3.py
         touch -d \"$stamp\" mod3.py
         sed 's/def alpha/def delta/' mod4.py > other.tmp
         touch -r mod4.py other.tmp
         mv other.tmp mod4.py");
    assert!(ok, "{out}");
    mount.restart(&[]);
    let (_, parsed, loaded) = indexed(&mount, 3);
    assert_eq!((parsed, loaded), (2, modules - 2), "{}", mount.log_text());
    let (ok, listing) = mount.sh("ls $HS/source/pkg2/mod3/ $HS/source/pkg2/mod4/");
    assert!(ok, "{listing}");
    assert!(
        listing.contains("gamma.py") && listing.contains("delta.py"),
        "{listing}"
    );
    assert!(!listing.contains("alpha.py"), "{listing}");
}

#[test]
fn the_dashboards_say_nothing_of_indexing_once_it_is_done() {
    let made = tempfile::tempdir().unwrap();
    project(made.path(), 2);
    let mount = Mount::of(made.path(), &["--read-only"]);
    indexed(&mount, 1);
    for view in ["_entry.md", "source/_entry.md"] {
        let text = mount.read(view);
        assert!(!text.contains("indexing"), "{view}:\n{text}");
    }
}

#[test]
fn a_recursive_listing_after_a_remount_reads_no_module() {
    use inotify::{Inotify, WatchMask};
    let made = tempfile::tempdir().unwrap();
    project(made.path(), 3);
    std::fs::write(
        made.path().join("pkg0/__init__.py"),
        "\"\"\"The first.\"\"\"\n",
    )
    .unwrap();
    let mut mount = Mount::of(made.path(), &["--read-only"]);
    indexed(&mount, 1);
    mount.kill_daemon();
    mount.restart(&["--read-only"]);
    let (_, parsed, _) = indexed(&mount, 2);
    assert_eq!(parsed, 0, "{}", mount.log_text());

    let mut inotify = Inotify::init().unwrap();
    for p in 0..3 {
        let package = mount.project.join(format!("pkg{p}"));
        inotify.watches().add(&package, WatchMask::OPEN).unwrap();
    }
    let (ok, listing) = mount.sh("ls -lR $HS/source");
    assert!(ok, "{listing}");
    // The views were sized, and so drawn: each package's, with its modules' members.
    assert!(
        listing.contains("_nav.txt") && listing.contains("mod4"),
        "{listing}"
    );
    let (ok, nav) = mount.sh("cat $HS/source/pkg0/_nav.txt $HS/source/pkg0/_entry.md");
    assert!(
        ok && nav.contains("Box0") && nav.contains("The first."),
        "{nav}"
    );

    let mut buffer = [0; 4096];
    let mut opened = Vec::new();
    while let Ok(events) = inotify.read_events(&mut buffer) {
        let mut any = false;
        for event in events {
            any = true;
            if let Some(name) = event.name {
                opened.push(name.to_string_lossy().into_owned());
            }
        }
        if !any {
            break;
        }
    }
    let modules: Vec<&String> = opened.iter().filter(|n| n.ends_with(".py")).collect();
    assert!(modules.is_empty(), "modules read: {modules:?}");
}
