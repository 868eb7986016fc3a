//! A real mount for integration tests: a project (usually a fresh copy in a temp dir)
//! mounted by the daemon (`homespace mount --foreground`) as a child of the test, waited
//! for by the mountpoint's `st_dev` ([`homespace_testkit::mount`]), and always unmounted
//! in `Drop` — on success, failure or panic — by that mountpoint and device alone. A killed
//! test leaves at worst a stale mount (its daemon dies with it), which the next mount at
//! that place replaces.
//!
//! Each daemon runs with a test clock ([`TEST_CLOCK_VARIABLE`]) that a script steps with
//! `clock_forward` (tests/shell/lib.sh) instead of sleeping past a second.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use homespace::model::clock::TEST_CLOCK_VARIABLE;
use homespace_testkit::mount::{self as mountpoint, MountPoint};
use homespace_testkit::poll::poll_true;

use super::{BIN, OtherUser, copy_dir, example, said};

/// How long a daemon may take to answer its first request.
const MOUNT_TIMEOUT: Duration = Duration::from_secs(20);

/// What to mount: a project in a temp dir, its store, `mount` arguments and variables for
/// the daemon. [`Setup::mount`] mounts it at `<dir>/mnt`.
pub struct Setup {
    dir: tempfile::TempDir,
    project: PathBuf,
    store: PathBuf,
    args: Vec<String>,
    env: Vec<(String, PathBuf)>,
}

impl Setup {
    /// A fresh copy of `project` in a new temp dir, with a new store beside it.
    pub fn copy_of(project: &Path) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("project");
        copy_dir(project, &copy);
        Setup::at(dir, copy)
    }

    /// `project`, already in place inside `dir`, with a new store in `dir`.
    pub fn at(dir: tempfile::TempDir, project: PathBuf) -> Setup {
        let store = dir.path().join("store.db");
        Setup {
            dir,
            project,
            store,
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Over `store` instead: a file or a `postgres://` URL, which `$STORE` holds in
    /// scripts as it was given.
    pub fn store(mut self, store: impl Into<PathBuf>) -> Setup {
        self.store = store.into();
        self
    }

    /// With extra `mount` arguments.
    pub fn args(mut self, args: &[&str]) -> Setup {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// With variables set for the daemon (`HOME`, where the agents' transcripts are).
    pub fn env(mut self, env: &[(&str, PathBuf)]) -> Setup {
        self.env
            .extend(env.iter().map(|(k, v)| (k.to_string(), v.clone())));
        self
    }

    /// Mount it, and wait until the mount answers.
    pub fn mount(mut self) -> Mount {
        let at = self.dir.path().join("mnt");
        std::fs::create_dir_all(&at).unwrap();
        let clock = self.dir.path().join("clock");
        self.env
            .push((TEST_CLOCK_VARIABLE.to_string(), clock.clone()));
        let log = self.dir.path().join("daemon.log");
        std::fs::File::create(&log).unwrap();
        let mut mount = Mount {
            point: MountPoint::on(at.clone(), mountpoint::device(&at).unwrap()),
            dir: self.dir,
            project: self.project,
            at,
            store: self.store,
            log,
            clock,
            daemon: None,
            args: self.args,
            env: self.env,
        };
        mount.start();
        mount
    }
}

/// A mounted project.
pub struct Mount {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub at: PathBuf,
    pub store: PathBuf,
    pub log: PathBuf,
    /// The test clock's file (see the module's doc).
    pub clock: PathBuf,
    point: MountPoint,
    daemon: Option<Child>,
    /// The `mount` arguments of the last start.
    args: Vec<String>,
    /// Variables set for the daemon.
    env: Vec<(String, PathBuf)>,
}

impl Mount {
    /// Mount a fresh copy of the example project.
    pub fn example() -> Mount {
        Self::of(&example(), &[])
    }

    /// Mount a fresh copy of `project` with extra `mount` arguments.
    pub fn of(project: &Path, args: &[&str]) -> Mount {
        Setup::copy_of(project).args(args).mount()
    }

    /// Mount `project` (already in place inside `dir`).
    pub fn at(dir: tempfile::TempDir, project: PathBuf, args: &[&str]) -> Mount {
        Setup::at(dir, project).args(args).mount()
    }

    /// Mount a fresh copy of `project` over `store` (see [`Setup::store`]).
    pub fn on_store(project: &Path, store: &str, args: &[&str]) -> Mount {
        Setup::copy_of(project).store(store).args(args).mount()
    }

    /// A second mount of this one's project and store (a second daemon), with `args`.
    pub fn beside(&self, args: &[&str]) -> Mount {
        Setup::at(tempfile::tempdir().unwrap(), self.project.clone())
            .store(self.store.clone())
            .args(args)
            .mount()
    }

    /// Start the daemon (its log appended to [`Mount::log`]) and wait until the mount
    /// answers; fails the test with the log if the daemon exits first.
    fn start(&mut self) {
        let before = mountpoint::device(&self.at).unwrap();
        let log_file = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.log)
            .unwrap();
        let daemon = Command::new(BIN)
            .arg("mount")
            .arg("--foreground")
            .arg("--project")
            .arg(&self.project)
            .arg("--store")
            .arg(&self.store)
            .args(&self.args)
            .arg(&self.at)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .unwrap();
        let daemon = self.daemon.insert(daemon);
        let waited = mountpoint::wait_mounted(
            &self.at,
            before,
            MOUNT_TIMEOUT,
            Duration::from_millis(5),
            || match daemon.try_wait() {
                Ok(Some(status)) => Err(format!("the daemon exited ({status})")),
                _ => Ok(()),
            },
        );
        match waited {
            Ok(point) => self.point = point,
            Err(why) => panic!("{why}: {}", self.log_text()),
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
        self.daemon_status("VmRSS:")
    }

    /// The daemon's peak resident memory so far in KiB (VmHWM).
    pub fn daemon_peak_rss_kib(&self) -> u64 {
        self.daemon_status("VmHWM:")
    }

    fn daemon_status(&self, field: &str) -> u64 {
        let pid = self.daemon_pid().expect("the daemon runs");
        homespace_testkit::daemon::status_kib(pid, field)
            .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
    }

    /// The daemon's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Wait until `done` holds (a bound on waiting, not a speed claim); fails the test
    /// with `what` and the daemon's log after `limit`.
    pub fn wait_for(&self, what: &str, limit: Duration, done: impl FnMut() -> bool) {
        let came = poll_true(limit, Duration::from_millis(10), done);
        assert!(
            came,
            "waited too long for {what}; daemon log:\n{}",
            self.log_text()
        );
    }

    /// Run `script` with bash in the mount's environment: `$HS` the mountpoint, `$PROJECT`
    /// the project copy, `$STORE` the store's file, `$HOMESPACE` the binary, `$CLOCK` the
    /// test clock's file, and the helpers of `tests/shell/lib.sh`. Strict mode (`set -euo
    /// pipefail`): a command that fails where nobody checks it ends the script as a
    /// failure, so a script never passes by stumbling past a broken step. Returns
    /// (success, output).
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
            .env("CLOCK", &self.clock)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        said(&out)
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

    /// Start the daemon again over the same project, store and mountpoint (after
    /// [`Mount::kill_daemon`], or to replace a running one): a crash, then a new mount.
    /// The log goes on in the same file. `args` are extra `mount` arguments.
    pub fn restart(&mut self, args: &[&str]) {
        self.kill_daemon();
        // The stale mount the killed daemon left, detached by its path.
        let _ = Command::new("fusermount3")
            .arg("-uz")
            .arg(&self.at)
            .output();
        self.args = args.iter().map(|a| a.to_string()).collect();
        self.start();
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // `homespace unmount` (normal, else lazy) works without fusermount3 too (a machine
        // without fuse3 would otherwise keep every test's mount); checked by the device.
        if let Err(why) = self.point.unmount(Path::new(BIN)) {
            eprintln!("{}: {why}", self.at.display());
        }
        if let Some(mut daemon) = self.daemon.take() {
            let exited = poll_true(Duration::from_secs(5), Duration::from_millis(10), || {
                matches!(daemon.try_wait(), Ok(Some(_)))
            });
            if !exited {
                let _ = daemon.kill();
            }
            let _ = daemon.wait();
        }
    }
}
