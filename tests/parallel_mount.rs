//! Parallel readers and writers never lock the mount up (issue 42): many `cat`s of every
//! kind of view run at once while tasks are created, symbols edited and memory entries
//! appended. Each command has a timeout; the test fails when any of them reaches it (a
//! request thread stuck in a kernel invalidation, waiting on a page a reader holds while
//! that reader waits for a request thread), when a read or write fails, or when a change
//! is missing afterwards.
//!
//! The CI form is sized for two cores; `HOMESPACE_STRESS_FULL=1` runs the audit's form
//! (1,000 readers, 200 writers) and prints its figures.

mod common;

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Mount;
use homespace_testkit::poll::poll_until;

/// How long one command may take before it counts as hung. Far beyond any honest answer
/// on a loaded machine; a locked-up mount never answers at all. Once one command hung, no
/// new one starts, so a locked-up mount fails the test in about this long rather than in
/// one such wait per command.
const HUNG_AFTER: Duration = Duration::from_secs(30);

/// The views readers read, one of each kind (paths that exist all along).
const VIEWS: &[&str] = &[
    "_entry.md",
    "_nav.txt",
    "_errors.md",
    "tasks/_entry.md",
    "tasks/open/_entry.md",
    "tasks/ready/_entry.md",
    "tasks/_nav.txt",
    "source/_entry.md",
    "source/ledger/_entry.md",
    "source/ledger/accounts/_entry.md",
    "source/ledger/accounts/Account/_entry.md",
    "source/ledger/accounts/Account/debit.py",
    "source/ledger.accounts.Account.credit.py",
    "source/ledger/accounts.py",
    "source/history/_entry.md",
    "memory/_entry.md",
    "memory/recall",
    "search/rounding",
    "search/balance",
];

/// Methods of `ledger.accounts.Account` (each on one line) that writers edit.
const METHODS: &[&str] = &[
    "debit",
    "credit",
    "apply",
    "__repr__",
    "from_path",
    "validate_name",
    "__init__",
];

/// One command's end.
#[derive(Debug, PartialEq)]
enum Outcome {
    Done,
    Failed(String),
    Hung,
}

/// Run `argv`, its output thrown away; past [`HUNG_AFTER`] it is killed and counted as hung
/// without being waited for (a process stuck on a locked-up mount cannot even die).
fn run(argv: &[String]) -> Outcome {
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return Outcome::Failed(format!("{argv:?}: {e}")),
    };
    let ended = poll_until(HUNG_AFTER, Duration::from_millis(2), || {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => Some(Outcome::Done),
            Ok(Some(_)) => {
                let mut why = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    let _ = stderr.read_to_string(&mut why);
                }
                Some(Outcome::Failed(format!("{argv:?}: {}", why.trim())))
            }
            Ok(None) => None,
            Err(e) => Some(Outcome::Failed(format!("{argv:?}: {e}"))),
        }
    });
    ended.unwrap_or_else(|| {
        let _ = child.kill();
        Outcome::Hung
    })
}

/// Until disarmed, aborts the FUSE connection of the mount whose device is `dev` when
/// dropped (through fusectl): on a locked-up mount the daemon's threads wait in the kernel,
/// so even killing it frees nothing, and the mount's `Drop` would wait for it for ever.
struct AbortWhenLockedUp {
    dev: u64,
    armed: bool,
}

impl Drop for AbortWhenLockedUp {
    fn drop(&mut self) {
        if self.armed {
            abort_connection(self.dev);
        }
    }
}

fn abort_connection(dev: u64) {
    let connections = Path::new("/sys/fs/fuse/connections");
    if std::fs::read_dir(connections).is_ok_and(|mut d| d.next().is_none()) {
        let _ = Command::new("mount")
            .args(["-t", "fusectl", "none"])
            .arg(connections)
            .status();
    }
    let abort = connections.join(libc::minor(dev).to_string()).join("abort");
    if let Err(e) = std::fs::write(&abort, "1") {
        eprintln!(
            "cannot abort the locked-up connection ({}): {e}",
            abort.display()
        );
    }
}

fn sh(script: String) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script]
}

/// The commands of one stress run: `readers` reads, then writes of every kind, shuffled
/// together so that changes land while reads are under way.
fn commands(mount: &Mount, session: &str, readers: usize, writers: usize) -> Vec<Vec<String>> {
    let at = |rel: &str| mount.path(rel).to_string_lossy().into_owned();
    let mut reads: Vec<Vec<String>> = (0..readers)
        .map(|n| vec!["cat".into(), at(VIEWS[n % VIEWS.len()])])
        .collect();
    let mut writes = Vec::new();
    for n in 0..writers {
        writes.push(sh(format!(
            "echo '{{\"title\": \"Stress task {n}\", \"priority\": {}}}' > '{}'",
            n % 4,
            at(&format!("tasks/open/stress-{n}.json"))
        )));
        if n % 10 == 0
            && let Some(method) = METHODS.get(n / 10)
        {
            // A symbol edit: imported and checked before it lands, the slowest change.
            // Each method once: two `sed -i` of one file at once would race each other.
            writes.push(vec![
                "sed".into(),
                "-i".into(),
                format!("s/^def .*/&\\n    # stress {n}/"),
                at(&format!("source/ledger/accounts/Account/{method}.py")),
            ]);
        }
        if n % 5 == 0 {
            writes.push(sh(format!(
                "echo '{{\"channel\": \"assistant\", \"content\": \"stress note {n}\"}}' > '{}/note-{n}.json'",
                session
            )));
        }
    }
    // Interleave: a write after every few reads.
    let every = (reads.len() / writes.len().max(1)).max(1);
    let mut all = Vec::new();
    let mut writes = writes.into_iter();
    for (n, read) in reads.drain(..).enumerate() {
        all.push(read);
        if n % every == every - 1
            && let Some(write) = writes.next()
        {
            all.push(write);
        }
    }
    all.extend(writes);
    all
}

/// Run `commands` on `at_once` threads; each command's outcome, in order.
fn run_all(commands: Vec<Vec<String>>, at_once: usize) -> Vec<(Vec<String>, Outcome)> {
    let commands = Arc::new(commands);
    let next = Arc::new(AtomicUsize::new(0));
    let hung = Arc::new(AtomicBool::new(false));
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..at_once)
        .map(|_| {
            let (commands, next, hung, outcomes) = (
                Arc::clone(&commands),
                Arc::clone(&next),
                Arc::clone(&hung),
                Arc::clone(&outcomes),
            );
            std::thread::spawn(move || {
                while !hung.load(Ordering::SeqCst) {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    let Some(argv) = commands.get(n) else { break };
                    let outcome = run(argv);
                    if outcome == Outcome::Hung {
                        hung.store(true, Ordering::SeqCst);
                    }
                    outcomes.lock().unwrap().push((n, outcome));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let mut outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    outcomes.sort_by_key(|(n, _)| *n);
    outcomes
        .into_iter()
        .map(|(n, outcome)| (commands[n].clone(), outcome))
        .collect()
}

fn stress(readers: usize, writers: usize, at_once: usize) {
    let mount = Mount::example();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    let (ok, out) = mount.sh(&format!(
        "\"$HOMESPACE\" import --store \"$STORE\" {}/generic.jsonl > /dev/null && \
         for i in $(seq 200); do \
           ls -d \"$HS\"/memory/sessions/*/pairing-2025-11-03 2>/dev/null && break; sleep 0.05; \
         done",
        fixtures.display()
    ));
    assert!(ok, "{out}");
    let session = out.trim().to_string();
    assert!(session.ends_with("pairing-2025-11-03"), "{out}");
    // Every view read once before: the kernel then keeps their pages, which the
    // changes below must have it drop.
    for view in VIEWS {
        mount.read(view);
    }

    // Dropped before the mount, on success or failure alike.
    let mut guard = AbortWhenLockedUp {
        dev: std::fs::metadata(&mount.at).unwrap().dev(),
        armed: true,
    };
    let started = Instant::now();
    let outcomes = run_all(commands(&mount, &session, readers, writers), at_once);
    let took = started.elapsed();

    let hung: Vec<_> = outcomes
        .iter()
        .filter(|(_, o)| *o == Outcome::Hung)
        .map(|(argv, _)| argv.join(" "))
        .collect();
    let failed: Vec<_> = outcomes
        .iter()
        .filter_map(|(_, o)| match o {
            Outcome::Failed(why) => Some(why.clone()),
            _ => None,
        })
        .collect();
    // A fresh look at the mountpoint answers too (the audit's hung `stat`).
    let stat = run(&["stat".into(), mount.at.to_string_lossy().into_owned()]);
    let reads = outcomes.iter().filter(|(argv, _)| argv[0] == "cat").count();
    eprintln!(
        "{} commands ({reads} reads, {} writes) on {at_once} threads in {:.1} s: \
         {} hung, {} failed; stat of the mountpoint: {stat:?}",
        outcomes.len(),
        outcomes.len() - reads,
        took.as_secs_f64(),
        hung.len(),
        failed.len(),
    );
    assert!(
        hung.is_empty() && stat == Outcome::Done,
        "{} commands never answered (the mount locked up), first: {:?}; stat: {stat:?}\n{}",
        hung.len(),
        hung.first(),
        mount.log_text()
    );
    guard.armed = false;
    assert!(failed.is_empty(), "{} failed: {failed:#?}", failed.len());

    // Every change landed, and the views say so.
    let open = std::fs::read_dir(mount.path("tasks/open"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("stress-")
        })
        .count();
    assert_eq!(open, writers, "every task written is there");
    let module = mount.read("source/ledger/accounts.py");
    assert_eq!(
        module.matches("# stress ").count(),
        writers.div_ceil(10).min(METHODS.len()),
        "every symbol edit landed:\n{module}"
    );
    let notes = std::fs::read_dir(&session).unwrap().count();
    assert!(
        notes > writers / 5,
        "the notes were appended ({notes} files)"
    );
    let tasks = mount.read("tasks/_entry.md");
    assert!(
        tasks.contains(&format!("# tasks — {writers} outstanding ({writers} open)")),
        "tasks/_entry.md counts every new task:\n{tasks}"
    );
}

#[test]
fn parallel_reads_of_every_view_never_lock_up_while_tasks_symbols_and_memory_change() {
    if std::env::var_os("HOMESPACE_STRESS_FULL").is_some() {
        stress(1000, 200, 96);
    } else {
        stress(300, 60, 48);
    }
}
