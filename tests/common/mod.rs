//! A real mount for integration tests: copies the example project into a temp dir, starts
//! the daemon (`homespace mount --foreground`) as a child of the test, waits until the
//! mountpoint's `st_dev` changes, and always unmounts in `Drop` — on success, failure or
//! panic. A killed test leaves at worst a stale mount (its daemon dies with it), which the
//! next mount at that place replaces.

#![allow(dead_code)]

pub mod planted;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_homespace");

/// Run `command` and fail the test with its stderr unless it succeeds.
pub fn succeed(command: &mut Command) -> std::process::Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The example project of the repository.
pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger")
}

/// Copy directory `from` into `to` (recursively, files and folders only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "__pycache__" || name == ".homespace" || name == ".pytest_cache" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A mounted copy of a project.
pub struct Mount {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub at: PathBuf,
    pub store: PathBuf,
    pub log: PathBuf,
    daemon: Option<Child>,
    /// Variables set for the daemon (`HOME`, where the agents' transcripts are).
    env: Vec<(String, PathBuf)>,
}

impl Mount {
    /// Mount a fresh copy of the example project.
    pub fn example() -> Mount {
        Self::of(&example(), &[])
    }

    /// Mount a fresh copy of `project` with extra `mount` arguments.
    pub fn of(project: &Path, args: &[&str]) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("project");
        copy_dir(project, &copy);
        Self::at(dir, copy, args)
    }

    /// Mount `project` (already in place inside `dir`).
    pub fn at(dir: tempfile::TempDir, project: PathBuf, args: &[&str]) -> Mount {
        let store = dir.path().join("store.db");
        Self::over(dir, project, store, args)
    }

    /// Mount a fresh copy of `project` over `store` — a file or a `postgres://` URL, which
    /// `$STORE` holds in scripts as it was given.
    pub fn on_store(project: &Path, store: &str, args: &[&str]) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("project");
        copy_dir(project, &copy);
        Self::over(dir, copy, PathBuf::from(store), args)
    }

    /// A second mount of this one's project and store (a second daemon), with `args`.
    pub fn beside(&self, args: &[&str]) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        Self::over(dir, self.project.clone(), self.store.clone(), args)
    }

    /// Mount `project` with `store` at `dir/mnt`.
    pub fn over_store(
        dir: tempfile::TempDir,
        project: PathBuf,
        store: PathBuf,
        args: &[&str],
    ) -> Mount {
        Self::over(dir, project, store, args)
    }

    /// Mount a fresh copy of `project` with `env` set for the daemon.
    pub fn with_env(project: &Path, args: &[&str], env: &[(&str, PathBuf)]) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("project");
        copy_dir(project, &copy);
        let store = dir.path().join("store.db");
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Self::over_env(dir, copy, store, args, env)
    }

    /// Mount `project` (already in place inside `dir`) with `env` set for the daemon.
    pub fn at_with_env(
        dir: tempfile::TempDir,
        project: PathBuf,
        args: &[&str],
        env: &[(&str, PathBuf)],
    ) -> Mount {
        let store = dir.path().join("store.db");
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Self::over_env(dir, project, store, args, env)
    }

    fn over(dir: tempfile::TempDir, project: PathBuf, store: PathBuf, args: &[&str]) -> Mount {
        Self::over_env(dir, project, store, args, Vec::new())
    }

    fn over_env(
        dir: tempfile::TempDir,
        project: PathBuf,
        store: PathBuf,
        args: &[&str],
        env: Vec<(String, PathBuf)>,
    ) -> Mount {
        let at = dir.path().join("mnt");
        std::fs::create_dir_all(&at).unwrap();
        let log = dir.path().join("daemon.log");
        let before = std::fs::metadata(&at).unwrap().dev();
        let log_file = std::fs::File::create(&log).unwrap();
        let daemon = Command::new(BIN)
            .arg("mount")
            .arg("--foreground")
            .arg("--project")
            .arg(&project)
            .arg("--store")
            .arg(&store)
            .args(args)
            .arg(&at)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .unwrap();
        let mut mount = Mount {
            dir,
            project,
            at,
            store,
            log,
            daemon: Some(daemon),
            env,
        };
        let started = Instant::now();
        loop {
            if std::fs::metadata(&mount.at)
                .map(|m| m.dev())
                .unwrap_or(before)
                != before
            {
                return mount;
            }
            if let Some(daemon) = mount.daemon.as_mut()
                && let Ok(Some(status)) = daemon.try_wait()
            {
                panic!("the daemon exited ({status}): {}", mount.log_text());
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "mount did not answer: {}",
                mount.log_text()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The absolute path of `rel` inside the mount.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.at.join(rel.trim_start_matches('/'))
    }

    /// Read a file of the mount as text.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// The daemon's process id, while it runs.
    pub fn daemon_pid(&self) -> Option<u32> {
        self.daemon.as_ref().map(Child::id)
    }

    /// The daemon's resident memory in KiB (VmRSS).
    pub fn daemon_rss_kib(&self) -> u64 {
        let pid = self.daemon_pid().expect("the daemon runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// The daemon's peak resident memory so far in KiB (VmHWM).
    pub fn daemon_peak_rss_kib(&self) -> u64 {
        let pid = self.daemon_pid().expect("the daemon runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// The daemon's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Run `script` with bash in the mount's environment: `$HS` the mountpoint, `$PROJECT`
    /// the project copy, `$STORE` the store's file, `$HOMESPACE` the binary, and the helpers
    /// of `tests/shell/lib.sh`. Strict mode (`set -euo pipefail`): a command that fails
    /// where nobody checks it ends the script as a failure, so a script never passes by
    /// stumbling past a broken step. Returns (success, output).
    pub fn sh(&self, script: &str) -> (bool, String) {
        let mut bash = Command::new("bash");
        bash.current_dir(self.dir.path());
        self.run_bash(bash, script)
    }

    /// Like [`Mount::sh`], as `user` (made with [`OtherUser`]) instead of the owner.
    pub fn sh_as(&self, user: &OtherUser, script: &str) -> (bool, String) {
        let mut bash = Command::new("runuser");
        bash.args(["-u", &user.name, "--", "bash"]).current_dir("/");
        self.run_bash(bash, script)
    }

    /// Run `script` with `bash` (a command that ends in bash) in the mount's environment.
    fn run_bash(&self, mut bash: Command, script: &str) -> (bool, String) {
        let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shell/lib.sh");
        let out = bash
            .arg("-c")
            .arg(format!(
                "set -euo pipefail; source {}; {script}",
                lib.display()
            ))
            .env("HS", &self.at)
            .env("PROJECT", &self.project)
            .env("STORE", &self.store)
            .env("HOMESPACE", BIN)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    /// Run the shell test file `tests/shell/<name>` and fail with its output if it fails.
    pub fn run_script(&self, name: &str) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/shell")
            .join(name);
        let (ok, out) = self.sh(&format!("source {}", path.display()));
        assert!(
            ok,
            "{name} failed:\n{out}\n--- daemon log ---\n{}",
            self.log_text()
        );
    }

    /// Follow the transcripts in `folder` alone: the settings' `[memory] watch`, written
    /// through the mount, replaces the default folders.
    pub fn follow_only(&self, folder: &Path) {
        let settings = self.path("source/meta/settings.toml");
        let text = std::fs::read_to_string(&settings).unwrap();
        assert!(text.contains("watch = \"default\""), "{text}");
        std::fs::write(
            &settings,
            text.replace(
                "watch = \"default\"",
                &format!("watch = [{:?}]", folder.to_string_lossy()),
            ),
        )
        .unwrap();
    }

    /// Kill the daemon without unmounting (leaves a stale mount behind, as a crash would).
    pub fn kill_daemon(&mut self) {
        if let Some(mut daemon) = self.daemon.take() {
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
    }
}

impl Mount {
    /// Start the daemon again over the same project, store and mountpoint (after
    /// [`Mount::kill_daemon`], or to replace a running one): a crash, then a new mount.
    /// The log goes on in the same file. `args` are extra `mount` arguments.
    pub fn restart(&mut self, args: &[&str]) {
        self.kill_daemon();
        let _ = Command::new("fusermount3")
            .arg("-uz")
            .arg(&self.at)
            .output();
        let before = std::fs::metadata(&self.at).unwrap().dev();
        let log_file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&self.log)
            .unwrap();
        let daemon = Command::new(BIN)
            .arg("mount")
            .arg("--foreground")
            .arg("--project")
            .arg(&self.project)
            .arg("--store")
            .arg(&self.store)
            .args(args)
            .arg(&self.at)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .unwrap();
        self.daemon = Some(daemon);
        let started = Instant::now();
        while std::fs::metadata(&self.at)
            .map(|m| m.dev())
            .unwrap_or(before)
            == before
        {
            if let Some(daemon) = self.daemon.as_mut()
                && let Ok(Some(status)) = daemon.try_wait()
            {
                panic!("the daemon exited ({status}): {}", self.log_text());
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "mount did not answer: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// A small pseudo-random generator (xorshift): the same seed gives the same sequence, so a
/// failure that prints its seed can be replayed.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// An unprivileged user made for one test (with `useradd`) and removed when dropped.
pub struct OtherUser {
    pub name: String,
    pub uid: u32,
}

impl OtherUser {
    /// Make a user named `hs<tag><pid>` with no home and no login shell.
    pub fn new(tag: &str) -> OtherUser {
        let name = format!("hs{tag}{}", std::process::id());
        succeed(
            Command::new("useradd")
                .args(["--no-create-home", "--shell", "/usr/sbin/nologin"])
                .arg(&name),
        );
        let out = succeed(Command::new("id").arg("-u").arg(&name));
        let uid = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        OtherUser { name, uid }
    }
}

impl Drop for OtherUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).output();
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // `homespace unmount` works without fusermount3 too (a machine without fuse3
        // would otherwise keep every test's mount).
        let _ = Command::new(BIN).arg("unmount").arg(&self.at).output();
        if let Some(mut daemon) = self.daemon.take() {
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = daemon.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
        // Whatever happened above, leave no mount behind.
        if homespace::daemon::mount::is_mounted(&self.at) {
            let _ = Command::new(BIN)
                .args(["unmount", "--lazy"])
                .arg(&self.at)
                .output();
        }
    }
}
