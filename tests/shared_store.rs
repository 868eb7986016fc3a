//! Many mounts on one PostgreSQL store (SPEC §11), on real mounts over a private server
//! each test starts (initdb, pg_ctl, a free port; never a system service):
//! - the tasks and memory shell suites pass on a PostgreSQL store as on SQLite;
//! - two mounts of two checkouts see each other's task and memory changes at once, through
//!   the kernel's cache, and keep their source/ to themselves;
//! - 2 mounts x 4 writers x 25 task creates lose nothing; a write from a stale copy made on
//!   the other mount is refused (EBUSY);
//! - a database outage fails store-backed requests clearly (EAGAIN, the store named in
//!   `_errors.md`) while source/ keeps working and both mounts stay up, and service comes
//!   back by itself;
//! - `homespace store copy` SQLite -> PostgreSQL -> SQLite keeps everything, counted.
//!
//! Waits for another mount are bounded (30 s) so a missing notification fails instead of
//! hanging; how long each took is printed, never asserted.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Mount, example, succeed};
use homespace_testkit::poll::poll_true;
use homespace_testkit::postgres::ScratchServer;

const BIN: &str = env!("CARGO_BIN_EXE_homespace");

/// How long another mount may take to show a change before the test fails.
const SHOWS_WITHIN: Duration = Duration::from_secs(30);

fn server() -> ScratchServer {
    ScratchServer::start().expect("a scratch PostgreSQL server (is postgresql installed?)")
}

/// Waits until `done` holds, failing with `what` after [`SHOWS_WITHIN`]; how long it took.
fn wait_until(what: &str, done: impl Fn() -> bool) -> Duration {
    let started = Instant::now();
    assert!(
        poll_true(SHOWS_WITHIN, Duration::from_millis(2), done),
        "{what}: not within {SHOWS_WITHIN:?}"
    );
    let took = started.elapsed();
    eprintln!("{what}: {took:?}");
    took
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn run_scripts_on_postgres(scripts: &[&str]) {
    let server = server();
    for (n, script) in scripts.iter().enumerate() {
        let url = server.database(&format!("suite{n}")).unwrap();
        Mount::on_store(&example(), &url, &[]).run_script(script);
    }
}

#[test]
fn the_tasks_suite_passes_on_postgres() {
    run_scripts_on_postgres(&[
        "tasks_create.sh",
        "tasks_edit.sh",
        "tasks_move.sh",
        "tasks_reject.sh",
        "tasks_views.sh",
        "tasks_stale_writers.sh",
    ]);
}

#[test]
fn the_memory_suite_passes_on_postgres() {
    run_scripts_on_postgres(&["memory_import.sh", "memory_edit.sh", "memory_search.sh"]);
}

#[test]
fn two_checkouts_see_each_others_tasks_and_memory_at_once() {
    let server = server();
    let url = server.database("team").unwrap();
    let (a, b) = (
        Mount::on_store(&example(), &url, &[]),
        Mount::on_store(&example(), &url, &[]),
    );
    // B has read its views before the change, so the kernel keeps them: what B sees next
    // is there only if the change invalidated them.
    assert!(read(&b.path("_entry.md")).contains("homespace — ledger"));
    assert!(!read(&b.path("tasks/_entry.md")).contains("Work both agents see"));
    assert!(!b.path("tasks/open/shared-work.json").exists());

    std::fs::write(
        a.path("tasks/open/shared-work.json"),
        r#"{"title": "Work both agents see", "priority": 1}"#,
    )
    .unwrap();
    wait_until("a task made on A shows on B", || {
        b.path("tasks/open/shared-work.json").exists()
            && read(&b.path("tasks/_entry.md")).contains("Work both agents see")
    });
    // Taken by A: in progress for B at once.
    std::fs::rename(
        a.path("tasks/open/shared-work.json"),
        a.path("tasks/in_progress/shared-work.json"),
    )
    .unwrap();
    wait_until("A's move shows on B", || {
        b.path("tasks/in_progress/shared-work.json").exists()
            && !b.path("tasks/open/shared-work.json").exists()
    });

    // A session recorded on A is browsable, searchable and counted on B.
    let today = String::from_utf8(succeed(Command::new("date").args(["-u", "+%F"])).stdout)
        .unwrap()
        .trim()
        .to_string();
    let session = a.path(&format!("memory/sessions/{today}/pairing-on-a"));
    std::fs::create_dir(&session).unwrap();
    std::fs::write(
        session.join("0001.json"),
        r#"{"channel": "user", "content": "the flamingo parser drops trailing commas"}"#,
    )
    .unwrap();
    let on_b = b.path(&format!("memory/sessions/{today}/pairing-on-a"));
    wait_until("A's session shows on B", || on_b.join("0001.json").exists());
    assert!(read(&on_b.join("0001.json")).contains("flamingo parser"));
    let search = read(&b.path("search/memory:flamingo"));
    assert!(search.contains("pairing-on-a"), "{search}");
    wait_until("B's memory view counts it", || {
        read(&b.path("memory/_entry.md")).contains("1 session")
    });

    // The project's files stay local to each checkout.
    let module = "source/ledger/accounts/Account/debit.py";
    let (ok, out) = a.sh(&format!(
        "sed -i 's/amount = parse_amount(amount)/amount = abs(parse_amount(amount))/' $HS/{module}"
    ));
    assert!(ok, "{out}");
    assert!(read(&a.path(module)).contains("abs(parse_amount"));
    assert!(!read(&b.path(module)).contains("abs(parse_amount"));
    let history = read(&b.path("source/history/_entry.md"));
    assert!(
        !history.contains("Account.debit"),
        "B's history shows A's edit: {history}"
    );
}

#[test]
fn writers_on_two_mounts_lose_nothing() {
    let server = server();
    let url = server.database("writers").unwrap();
    let mounts = [
        Mount::on_store(&example(), &url, &[]),
        Mount::on_store(&example(), &url, &[]),
    ];
    std::thread::scope(|scope| {
        for (m, mount) in mounts.iter().enumerate() {
            for w in 0..4 {
                scope.spawn(move || {
                    for i in 0..25 {
                        let path = mount.path(&format!("tasks/open/m{m}-w{w}-{i}.json"));
                        let task = format!(r#"{{"title": "Task {i} of writer {w} on mount {m}"}}"#);
                        std::fs::write(&path, task)
                            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    }
                });
            }
        }
    });
    for mount in &mounts {
        wait_until("every mount lists all 200 tasks", || {
            mount
                .path("tasks/open")
                .read_dir()
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .count()
                == 200
        });
        let dashboard = read(&mount.path("tasks/_entry.md"));
        assert!(dashboard.contains("200 open"), "{dashboard}");
    }
}

#[test]
fn a_write_from_a_copy_another_mount_changed_is_refused() {
    let server = server();
    let url = server.database("conflict").unwrap();
    let (a, b) = (
        Mount::on_store(&example(), &url, &[]),
        Mount::on_store(&example(), &url, &[]),
    );
    let task = "tasks/open/shared.json";
    std::fs::write(a.path(task), r#"{"title": "Shared task", "priority": 2}"#).unwrap();
    wait_until("B sees the task", || b.path(task).exists());
    // B opens and reads the task; A changes it; then B writes what it read, changed.
    let mut writer = Command::new("python3")
        .arg("-c")
        .arg(
            r#"
import sys
f = open(sys.argv[1], "r+")
seen = f.read()
print("opened", flush=True)
sys.stdin.readline()
f.seek(0)
f.write(seen.replace("Shared task", "Shared task (from B)"))
f.truncate()
try:
    f.close()
    print("saved")
except OSError as e:
    print(f"refused: {e}")
"#,
        )
        .arg(b.path(task))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(writer.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "opened");
    let (ok, said) = a.sh(&format!(
        "sed -i 's/\"priority\": 2/\"priority\": 0/' $HS/{task}"
    ));
    assert!(ok, "{said}");
    writer.stdin.take().unwrap().write_all(b"go\n").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    writer.wait().unwrap();
    assert_eq!(
        line.trim(),
        "refused: [Errno 16] Device or resource busy",
        "B's stale write must be refused"
    );
    let kept = read(&a.path(task));
    assert!(
        kept.contains("\"priority\": 0") && !kept.contains("from B"),
        "{kept}"
    );
    let errors = read(&b.path("_errors.md"));
    assert!(errors.contains("changed by another writer"), "{errors}");
}

#[test]
fn an_outage_fails_store_requests_clearly_and_service_comes_back() {
    let server = server();
    let url = server.database("outage").unwrap();
    let (a, b) = (
        Mount::on_store(&example(), &url, &[]),
        Mount::on_store(&example(), &url, &[]),
    );
    std::fs::write(a.path("tasks/open/before.json"), r#"{"title": "Before"}"#).unwrap();
    // As an administrator stops it: the mounts' connections hear it is shutting down.
    server.shut_down().unwrap();

    // Nothing of tasks/open/ was read yet on A, so the kernel has nothing to answer with.
    let started = Instant::now();
    let (ok, said) = a.sh("cat $HS/tasks/open/_entry.md");
    eprintln!(
        "a store read in the outage failed after {:?}",
        started.elapsed()
    );
    assert!(
        !ok,
        "a store read must fail while the database is down: {said}"
    );
    assert!(said.contains("Resource temporarily unavailable"), "{said}");
    // The failed read is logged on what was read, not on the mount's root.
    let errors = read(&a.path("_errors.md"));
    assert!(errors.contains("tasks/open"), "{errors}");
    let (ok, said) = a.sh("echo '{\"title\": \"During\"}' | tee $HS/tasks/open/during.json");
    assert!(
        !ok && said.contains("Resource temporarily unavailable"),
        "{said}"
    );
    let errors = read(&a.path("_errors.md"));
    assert!(errors.contains("cannot be reached"), "{errors}");
    assert!(errors.contains("postgres://"), "{errors}");
    // source/ is the checkout's own: it keeps working.
    assert!(read(&a.path("source/ledger/accounts/Account/debit.py")).contains("def debit"));
    assert!(read(&b.path("source/_entry.md")).contains("ledger"));
    assert!(
        homespace::daemon::mount::is_mounted(&a.at) && homespace::daemon::mount::is_mounted(&b.at)
    );

    server.resume().unwrap();
    wait_until("A reads tasks again once the database is back", || {
        read(&a.path("tasks/open/_entry.md")).contains("Before")
    });
    assert!(
        !a.path("tasks/open/during.json").exists(),
        "the refused write left nothing"
    );
    std::fs::write(b.path("tasks/open/after.json"), r#"{"title": "After"}"#).unwrap();
    wait_until("A hears B's changes again", || {
        a.path("tasks/open/after.json").exists()
    });
}

#[test]
fn store_copy_goes_to_postgres_and_back_keeping_everything() {
    let server = server();
    let url = server.database("moved").unwrap();
    let original = Mount::example();
    let (ok, out) = original.sh(
        &r#"
        echo '{"title": "Design the schema", "status": "done"}' > $HS/tasks/done/schema.json
        echo '{"title": "Fix rounding", "priority": 0, "tags": ["bug"], "depends_on": ["schema"]}' > $HS/tasks/open/fix-rounding.json
        fixtures="@FIXTURES@"
        $HOMESPACE import --store "$STORE" "$fixtures/claude-code-session.jsonl" "$fixtures/generic.jsonl" > /dev/null
        sed -i 's/amount = parse_amount(amount)/amount = abs(parse_amount(amount))/' $HS/source/ledger/accounts/Account/debit.py
        "#
        // From the checkout, not from the binary: CARGO_TARGET_DIR may be anywhere.
        .replace(
            "@FIXTURES@",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/transcripts"),
        ),
    );
    assert!(ok, "{out}");
    let task = read(&original.path("tasks/open/fix-rounding.json"));
    let sessions = read(&original.path("memory/_entry.md"));
    let file = original.store.clone();

    let copied = |from: &str, to: &str| {
        let out = Command::new(BIN)
            .args(["store", "copy", "--from", from, "--to", to])
            .output()
            .unwrap();
        common::said(&out)
    };
    let (ok, there) = copied(file.to_str().unwrap(), &url);
    assert!(ok, "{there}");
    assert!(there.contains("tasks 2, sessions "), "{there}");
    assert!(
        !there.contains("postgres://postgres:"),
        "no password shown: {there}"
    );
    // A second copy would merge into work already there: refused.
    let (ok, again) = copied(file.to_str().unwrap(), &url);
    assert!(!ok && again.contains("not empty"), "{again}");

    let elsewhere = tempfile::tempdir().unwrap();
    let back = elsewhere.path().join("back.db");
    let (ok, home) = copied(&url, back.to_str().unwrap());
    assert!(ok, "{home}");
    let counts = |text: &str| text.split(": ").nth(1).map(str::to_string);
    assert_eq!(counts(&there), counts(&home), "the same counts both ways");

    // What a mount shows of the copy is what it showed of the original.
    drop(original);
    for store in [url.as_str(), back.to_str().unwrap()] {
        let mount = Mount::on_store(&example(), store, &[]);
        assert_eq!(
            read(&mount.path("tasks/open/fix-rounding.json")),
            task,
            "{store}"
        );
        let copied_sessions = read(&mount.path("memory/_entry.md"));
        assert_eq!(
            copied_sessions.lines().nth(2),
            sessions.lines().nth(2),
            "{store}"
        );
    }
}
