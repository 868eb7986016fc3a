//! A storm of hostile operations through a real mount (SPEC §10): a seeded generator makes
//! a few thousand creates, writes, renames, removals, truncations, chmods, mkdirs, reads and
//! searches with odd names (newlines, escapes, quotes, very long, not UTF-8, reserved) and
//! odd contents (invalid JSON and Python, deep nesting, binary, empty). After every
//! operation that failed, the project's files and the store must be exactly as before; all
//! along, the daemon lives and `_errors.md` stays a well-formed list within the budget.
//! A failure prints the seed and the operation; `HOMESPACE_STORM_SEED` replays it.

mod common;

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::IntoRawFd;
use std::path::{Path, PathBuf};

use common::{Mount, Random as Rng};

/// Directories the storm works in (relative to the mount).
const DIRS: &[&str] = &[
    "",
    "tasks",
    "tasks/open",
    "tasks/done",
    "tasks/blocked",
    "tasks/ready",
    "source",
    "source/ledger",
    "source/ledger/accounts",
    "source/ledger/accounts/Account",
    "source/ledger/journal",
    "source/meta",
    "source/history",
    "memory",
    "search",
];

fn name(rng: &mut Rng) -> OsString {
    let stems = [
        "fix-login",
        "a\nb",
        "tab\there",
        "esc\x1b[31mred",
        "quote'\"$(id)",
        "$'x'",
        "space name",
        "ünïcødé-✓",
        "_entry.md",
        "_nav.txt",
        "_errors.md",
        "..",
        "debit",
        "credit",
        "Account",
        "parse_amount",
        "newmod",
        "run",
        "settings",
        "-rf",
    ];
    let suffixes = [
        ".json", ".py", ".toml", "", ".swp", "~", ".tmp", ".md", ".diff",
    ];
    match rng.below(12) {
        0 => OsString::from("x".repeat(200 + rng.below(100))),
        1 => OsString::from_vec(vec![b'n', 0xff, 0xfe, b'.', b'j', b's', b'o', b'n']),
        _ => {
            let mut name = rng.pick(&stems).to_string();
            name.push_str(rng.pick(&suffixes));
            OsString::from(name)
        }
    }
}

fn content(rng: &mut Rng, name: &str) -> Vec<u8> {
    let stem = name.split('.').next().unwrap_or("x").to_string();
    match rng.below(12) {
        0 => Vec::new(),
        1 => br#"{"title": "A task from the storm", "priority": 1, "tags": ["storm"]}"#.to_vec(),
        2 => br#"{"title": "", "status": "someday", "priority": 9, "bogus": 1}"#.to_vec(),
        3 => b"{\"title\": \"unclosed".to_vec(),
        4 => format!("{}{}", "[".repeat(5000), "]".repeat(5000)).into_bytes(),
        5 => format!("def {stem}(self, amount):\n    return amount\n").into_bytes(),
        6 => b"def broken(:\n    pass\n".to_vec(),
        7 => (0..300).map(|_| rng.next() as u8).collect(),
        8 => format!(
            "{{\"title\": \"{}\"}}",
            "long ".repeat(200 + rng.below(3000))
        )
        .into_bytes(),
        9 => b"import nonexistent_module_from_the_storm\n".to_vec(),
        10 => b"[import_check]\nenabled = \"maybe\"\n".to_vec(),
        _ => b"class Kind:\n    pass\n".to_vec(),
    }
}

/// Write `bytes` to `path` as `cat > path` does, and report the close's outcome too
/// (where validation answers).
fn write_file(path: &Path, bytes: &[u8], append: bool) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(!append)
        .append(append)
        .open(path)?;
    file.write_all(bytes)?;
    let fd = file.into_raw_fd();
    // SAFETY: `fd` was just taken from the File, which no longer owns it.
    if unsafe { libc::close(fd) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Every file of the project (but the store's folder) with its bytes, in order.
fn project_state(project: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    let mut files = Vec::new();
    let mut todo = vec![project.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path
                .file_name()
                .is_some_and(|n| n == ".homespace" || n == "__pycache__")
            {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                files.push((path, bytes, meta.permissions().mode()));
            }
        }
    }
    files.sort();
    files
}

/// What the store holds: tasks, their tags and dependencies, edits and settings.
fn store_state(store: &Path) -> String {
    let db =
        rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut out = String::new();
    for query in [
        "SELECT id || slug || title || status || priority || description || updated FROM tasks ORDER BY id",
        "SELECT task || ':' || pos || ':' || tag FROM task_tags ORDER BY task, pos",
        "SELECT task || ':' || pos || ':' || depends_on FROM task_deps ORDER BY task, pos",
        "SELECT count(*) FROM source_edits",
        "SELECT coalesce(group_concat(checkout || ':' || name || '=' || text, '|'), '') FROM settings",
    ] {
        // A query the schema no longer answers must fail the test, not skip its check.
        let mut statement = db.prepare(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let rows = statement
            .query_map([], |row| {
                row.get::<_, String>(0)
                    .or_else(|_| row.get::<_, i64>(0).map(|n| n.to_string()))
            })
            .unwrap();
        for row in rows {
            out.push_str(&row.unwrap());
            out.push('\n');
        }
    }
    out
}

/// `_errors.md` is a heading and a list of entries (each `- ` then indented lines), within
/// the budget of 500 tokens.
fn check_error_log(mount: &Mount, step: usize, seed: u64) {
    let text = std::fs::read_to_string(mount.path("_errors.md"))
        .unwrap_or_else(|e| panic!("seed {seed}, step {step}: _errors.md unreadable: {e}"));
    let tokens = text.chars().count().div_ceil(4);
    assert!(
        tokens <= 500,
        "seed {seed}, step {step}: _errors.md has {tokens} tokens"
    );
    for line in text.lines().skip(2) {
        let well_formed = line.is_empty()
            || line.starts_with("- ")
            || line.starts_with("  ")
            || line.starts_with("[pruned:")
            || line.starts_with("No operation has failed");
        assert!(
            well_formed,
            "seed {seed}, step {step}: stray line in _errors.md: {line:?}\n{text}"
        );
        assert!(
            !line.chars().any(|c| c.is_control()),
            "seed {seed}, step {step}: a control character in _errors.md: {line:?}"
        );
    }
}

#[test]
fn a_storm_of_hostile_operations_changes_only_what_was_accepted() {
    let seed: u64 = std::env::var("HOMESPACE_STORM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2026_1123);
    let steps: usize = std::env::var("HOMESPACE_STORM_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2500);
    let mut rng = Rng(seed);
    let mount = Mount::example();
    let mut accepted = 0;
    for step in 0..steps {
        let dir = mount.path(rng.pick(DIRS));
        let name = name(&mut rng);
        let target = dir.join(&name);
        let text_name = name.to_string_lossy().into_owned();
        let before = (project_state(&mount.project), store_state(&mount.store));
        let op = rng.below(14);
        let (what, outcome): (&str, std::io::Result<()>) = match op {
            0..=3 => (
                "write",
                write_file(&target, &content(&mut rng, &text_name), false),
            ),
            4 => (
                "append",
                write_file(&target, &content(&mut rng, &text_name), true),
            ),
            5 => {
                let other = dir.join(self::name(&mut rng));
                ("rename", std::fs::rename(&target, &other))
            }
            6 => {
                let elsewhere = mount.path(rng.pick(DIRS)).join(self::name(&mut rng));
                ("move", std::fs::rename(&target, &elsewhere))
            }
            7 => ("rm", std::fs::remove_file(&target)),
            8 => ("mkdir", std::fs::create_dir(&target)),
            9 => ("rmdir", std::fs::remove_dir(&target)),
            10 => (
                "truncate",
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .and_then(|f| f.set_len(rng.below(3) as u64)),
            ),
            11 => (
                "chmod",
                std::fs::set_permissions(
                    &target,
                    std::fs::Permissions::from_mode(rng.pick(&[0o600, 0o644, 0o777, 0o4755])),
                ),
            ),
            12 => {
                let query = mount.path("search").join(&name);
                ("search", std::fs::read(&query).map(|_| ()))
            }
            _ => (
                "read",
                std::fs::read(&target)
                    .map(|_| ())
                    .or_else(|_| std::fs::read_dir(&target).map(|_| ())),
            ),
        };
        let context = || {
            format!(
                "seed {seed}, step {step}: {what} {}\n--- daemon log ---\n{}",
                target.display(),
                mount.log_text()
            )
        };
        assert!(
            mount
                .daemon_pid()
                .is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists()),
            "the daemon died: {}",
            context()
        );
        match outcome {
            Ok(()) => accepted += 1,
            Err(_) if what == "read" || what == "search" => {}
            Err(_) => {
                let after = (project_state(&mount.project), store_state(&mount.store));
                assert!(
                    before.0 == after.0,
                    "a refused operation changed the project: {}",
                    context()
                );
                assert_eq!(
                    before.1,
                    after.1,
                    "a refused operation changed the store: {}",
                    context()
                );
            }
        }
        if step % 250 == 0 {
            check_error_log(&mount, step, seed);
        }
    }
    check_error_log(&mount, steps, seed);
    assert!(
        accepted > steps / 20,
        "the storm should also make changes that land ({accepted})"
    );
    // Every module of the project still parses.
    let (ok, out) = mount.sh(
        "find \"$PROJECT\" -name '*.py' -not -path '*/.homespace/*' -print0 \
         | xargs -0 python3 -c 'import ast, sys; [ast.parse(open(f, \"rb\").read(), f) for f in sys.argv[1:]]'",
    );
    assert!(ok, "a module no longer parses: {out}");
    assert!(
        std::fs::read_dir(&mount.at).is_ok(),
        "the mount still answers"
    );
}
