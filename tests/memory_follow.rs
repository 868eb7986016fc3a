//! Memory keeping itself on a real mount: the agents' transcript folders are followed, so a
//! session being written shows in `memory/` line by line without any command, a new file
//! becomes a session, a malformed line is reported once, a restart imports only what is
//! new, and the setting turns it off. Waited for by polling the mount, never by sleeping a
//! set time.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use homespace_testkit::grow::append;

use common::Mount;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/transcripts");
const ROLLOUT: &str = "rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl";

/// A mount of the example whose daemon's home folder is `dir/home`.
fn mount(args: &[&str]) -> (Mount, PathBuf) {
    let home = tempfile::tempdir().unwrap().keep();
    let env = [
        ("HOME", home.clone()),
        ("CLAUDE_CONFIG_DIR", home.join(".claude")),
        ("CODEX_HOME", home.join(".codex")),
    ];
    (
        common::Setup::copy_of(&common::example())
            .args(args)
            .env(&env)
            .mount(),
        home,
    )
}

/// Claude Code's folder for the mounted project.
fn claude_folder(mount: &Mount, home: &Path) -> PathBuf {
    let project = mount.project.canonicalize().unwrap();
    let key: String = project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    home.join(".claude/projects").join(key)
}

/// `(sessions, entries)` as `memory/_entry.md` says them.
fn counts(mount: &Mount) -> (usize, usize) {
    let entry = mount.read("memory/_entry.md");
    // `2 sessions, 1,234 entries, ...`
    let Some(line) = entry
        .lines()
        .find(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" session"))
    else {
        return (0, 0);
    };
    let numbers: Vec<usize> = line
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .windows(1)
        .filter_map(|w| w[0].parse().ok())
        .collect();
    let entries = line
        .split(", ")
        .find(|part| part.contains("entr"))
        .and_then(|part| part.split(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or(0);
    (numbers[0], entries)
}

fn wait_for(mount: &Mount, what: &str, done: impl FnMut() -> bool) {
    mount.wait_for(what, Duration::from_secs(20), done);
}

#[test]
fn a_session_being_written_shows_line_by_line_and_a_restart_adds_nothing_twice() {
    let (mut mount, home) = mount(&[]);
    assert_eq!(counts(&mount), (0, 0));
    // Claude Code makes the project's folder at its first session.
    let folder = claude_folder(&mount, &home);
    std::fs::create_dir_all(&folder).unwrap();
    let session = folder.join("7c1e0f52-3b8e-4d7a-9f61-2a5c8e4b9d10.jsonl");
    let lines: Vec<String> =
        std::fs::read_to_string(format!("{FIXTURES}/claude-code-session.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.contains("\"type\":\"summary\""))
            .map(|l| format!("{l}\n"))
            .collect();
    let mut last = 0;
    for (n, line) in lines.iter().enumerate() {
        append(&session, line);
        if n == 4 {
            append(&session, "{\"type\": \"user\", oops\n");
        }
        // Every few lines, the entries so far show without any command.
        if n % 4 == 3 {
            wait_for(&mount, "the appended lines", || counts(&mount).1 > last);
            last = counts(&mount).1;
        }
    }
    // The same lines imported whole (without the bad one) give the entries to wait for.
    let clean = mount.dir.path().join("clean.jsonl");
    std::fs::write(&clean, lines.concat()).unwrap();
    let out = common::succeed(
        std::process::Command::new(env!("CARGO_BIN_EXE_homespace"))
            .args(["import", "--store"])
            .arg(mount.dir.path().join("whole.db"))
            .arg(&clean),
    );
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let whole: usize = said
        .split(" entries")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no entry count in {said:?}"));
    wait_for(&mount, "every line", || counts(&mount).1 == whole);
    let entry = mount.read("memory/_entry.md");
    assert!(
        entry.contains("Following transcripts as agents write: `")
            && entry.contains(&format!("{}`", folder.display())),
        "memory/_entry.md says what it follows:\n{entry}"
    );
    assert!(entry.contains("; last import "), "{entry}");
    // The session changed src/ledger/accounts.py: a search for it is a file name, `:` for `/`.
    let found = mount.read("search/memory:file:src:ledger:accounts.py balance");
    assert!(
        found.contains("7c1e0f52-3b8e-4d7a-9f61-2a5c8e4b9d10"),
        "file: with : for / finds the session that changed the file:\n{found}"
    );
    wait_for(&mount, "the bad line in _errors.md", || {
        mount.read("_errors.md").contains("line 6")
    });
    let errors = mount.read("_errors.md");
    assert_eq!(
        errors.matches("oops").count() + errors.matches("line 6:").count(),
        1,
        "the bad line is reported once:\n{errors}"
    );
    // A new file in a dated folder of Codex, run in this project, is a new session; one
    // run elsewhere is not.
    let project = mount.project.canonicalize().unwrap();
    let rollout = std::fs::read_to_string(format!("{FIXTURES}/{ROLLOUT}")).unwrap();
    let dated = home.join(".codex/sessions/2025/09/14");
    std::fs::create_dir_all(&dated).unwrap();
    std::fs::write(dated.join("rollout-elsewhere.jsonl"), &rollout).unwrap();
    std::fs::write(
        dated.join(ROLLOUT),
        rollout.replace("/home/dev/ledger", &project.to_string_lossy()),
    )
    .unwrap();
    wait_for(&mount, "the new rollout", || counts(&mount).0 == 2);
    let settled = counts(&mount);
    // Restarted: everything is read again and nothing is stored twice; new lines still come.
    mount.restart(&[]);
    wait_for(&mount, "the restarted mount's look", || {
        mount.log_text().matches("memory: following").count() >= 2
    });
    assert_eq!(
        counts(&mount),
        settled,
        "a restart imports only what is new"
    );
    let message = lines
        .iter()
        .rfind(|l| l.contains("\"type\":\"user\"") && l.contains("\"content\":\""))
        .expect("a user message with text");
    append(
        &session,
        &message.replace("\"uuid\":\"", "\"uuid\":\"after-restart-"),
    );
    wait_for(&mount, "a line after the restart", || {
        counts(&mount).1 == settled.1 + 1
    });
}

#[test]
fn the_setting_names_the_folders_followed_and_off_follows_none() {
    let (mount, home) = mount(&[]);
    let logs = home.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    mount.follow_only(&logs);
    let settings = mount.path("source/meta/settings.toml");
    std::fs::copy(format!("{FIXTURES}/generic.jsonl"), logs.join("chat.jsonl")).unwrap();
    wait_for(&mount, "the folder named in the settings", || {
        counts(&mount).0 == 1
    });
    // Off: the log says following started over with nothing; a file written now stays
    // out until following is on again.
    let text = std::fs::read_to_string(&settings).unwrap();
    let off = text
        .lines()
        .map(|l| {
            if l.starts_with("watch = ") {
                "watch = \"off\""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&settings, off + "\n").unwrap();
    wait_for(&mount, "following to start over with nothing", || {
        mount.log_text().contains("following 0 transcript folders")
    });
    std::fs::copy(
        format!("{FIXTURES}/claude-code-session.jsonl"),
        logs.join("later.jsonl"),
    )
    .unwrap();
    // A refused setting says why and changes nothing.
    let staged = mount.dir.path().join("settings.toml");
    std::fs::write(&staged, "[memory]\nwatch = [\"relative/path\"]\n").unwrap();
    // cp reports what the mount says on close; a shell's `>` does not.
    let (written, said) = mount.sh(&format!("cp {} {}", staged.display(), settings.display()));
    assert!(!written, "a relative path is refused: {said}");
    assert!(
        mount.read("_errors.md").contains("not an absolute path"),
        "{}",
        mount.read("_errors.md")
    );
    assert_eq!(counts(&mount).0, 1, "nothing is followed when off");
    // Followed again, the file written meanwhile is read.
    std::fs::write(
        &settings,
        format!("[memory]\nwatch = [{:?}]\n", logs.to_string_lossy()),
    )
    .unwrap();
    wait_for(&mount, "the file written while off", || {
        counts(&mount).0 == 2
    });
}
