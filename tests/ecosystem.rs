//! homespace started the ways Linux starts file systems and services, and the command line's
//! conventions: `mount -t fuse.homespace` and fstab lines through the helper in
//! `mount-scripts/`, the systemd user unit (checked by `systemd-analyze verify`, readiness
//! told over `NOTIFY_SOCKET`), completions, man pages, `status` and `prompt`.

mod common;

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{BIN, Mount, succeed};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// mount(8) looks for helpers in /sbin only: install this checkout's, atomically (other
/// test processes may be running it).
fn install_helper() {
    let staged = PathBuf::from(format!(
        "/usr/sbin/.mount.fuse.homespace.{}",
        std::process::id()
    ));
    std::fs::copy(repo().join("mount-scripts/mount.fuse.homespace"), &staged).unwrap();
    std::fs::rename(&staged, "/usr/sbin/mount.fuse.homespace").unwrap();
}

/// A copy of the example project with a mountpoint and a store path beside it.
struct Place {
    dir: tempfile::TempDir,
    project: PathBuf,
    at: PathBuf,
    store: PathBuf,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("ledger");
        common::copy_dir(&common::example(), &project);
        let at = dir.path().join("mnt");
        std::fs::create_dir_all(&at).unwrap();
        let store = dir.path().join("team.db");
        Place {
            dir,
            project,
            at,
            store,
        }
    }

    /// `mount ARGS` with the helper pointed at this build.
    fn mount(&self, args: &[&str]) -> std::process::Output {
        Command::new("mount")
            .args(args)
            .env("HOMESPACE_BIN", BIN)
            .output()
            .unwrap()
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if homespace::daemon::mount::is_mounted(&self.at) {
            let _ = Command::new("umount").arg("-l").arg(&self.at).output();
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn store_equals_a_postgres_url_mounts_and_its_password_is_never_shown() {
    install_helper();
    let server = homespace_testkit::postgres::ScratchServer::start().unwrap();
    // The scratch server trusts local connections: the password travels but is not needed.
    let plain = server.database("fstab").unwrap();
    let (user, host) = plain.split_once('@').unwrap();
    let url = format!("{user}:s3cret@{host}");
    let place = Place::new();
    let (project, at) = (place.project.to_str().unwrap(), place.at.to_str().unwrap());
    let out = place.mount(&[
        "-t",
        "fuse.homespace",
        project,
        at,
        "-o",
        &format!("store={url}"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(
        place.at.join("tasks/open/shared.json"),
        r#"{"title": "In the database"}"#,
    )
    .unwrap();
    let pid = homespace::daemon::mount::daemon_pid(&place.at).expect("the daemon runs");
    let cmdline = text(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap());
    assert!(
        !cmdline.contains("s3cret"),
        "ps shows the password: {cmdline}"
    );
    assert!(cmdline.contains(&plain), "{cmdline}");
    let environ = text(&std::fs::read(format!("/proc/{pid}/environ")).unwrap());
    assert!(
        environ.contains("PGPASSWORD=s3cret"),
        "the daemon has the password"
    );
    let status = text(&succeed(Command::new(BIN).arg("status").arg(at)).stdout);
    assert!(
        status.contains(&format!("store    {plain}")) && !status.contains("s3cret"),
        "{status}"
    );
    succeed(Command::new("umount").arg(at));
    // The task is in the database, not in a file beside the project.
    let out = Command::new("psql")
        .args([&url, "-tAc", "SELECT title FROM tasks"])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).trim(), "In the database");
    assert!(!place.project.join(".homespace/store.db").exists());
}

#[test]
fn mount_t_fuse_homespace_and_fstab_lines_work_through_the_helper() {
    install_helper();
    let place = Place::new();
    let (project, at) = (place.project.to_str().unwrap(), place.at.to_str().unwrap());
    let options = format!("store={},noauto,_netdev,nofail", place.store.display());
    let out = place.mount(&["-t", "fuse.homespace", project, at, "-o", &options]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let entry = std::fs::read_to_string(place.at.join("_entry.md")).unwrap();
    assert!(entry.contains("homespace — ledger"), "{entry}");
    assert!(place.store.exists(), "store= chose the store");
    succeed(Command::new("umount").arg(at));
    assert!(
        !homespace::daemon::mount::is_mounted(&place.at),
        "umount ends it"
    );

    // An fstab line, through mount(8)'s own reading of an fstab (-T).
    let fstab = place.dir.path().join("fstab");
    std::fs::write(
        &fstab,
        format!(
            "# homespace\n{project} {at} fuse.homespace noauto,user,store={},no_cache 0 0\n",
            place.store.display()
        ),
    )
    .unwrap();
    let out = place.mount(&["-T", fstab.to_str().unwrap(), at]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let status = succeed(Command::new(BIN).arg("status").arg(at));
    let status = text(&status.stdout);
    assert!(
        status.contains("cache    off (--no-cache)") && status.contains(project),
        "{status}"
    );
    succeed(Command::new("umount").arg(at));

    // Every option reaches the daemon as its flag.
    let log = place.dir.path().join("hs.log");
    let options = format!(
        "store={},log={},budget=300,allow_other,no_cache",
        place.store.display(),
        log.display()
    );
    let out = place.mount(&["-t", "fuse.homespace", project, at, "-o", &options]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pid = homespace::daemon::mount::daemon_pid(&place.at).expect("the daemon runs");
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args: Vec<String> = cmdline.split(|&b| b == 0).map(text).collect();
    for flag in ["--allow-other", "--no-cache"] {
        assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
    }
    let after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    assert_eq!(after("--budget").as_deref(), Some("300"), "{args:?}");
    assert!(log.is_file(), "log= chose the log file");
    succeed(Command::new("umount").arg(at));

    // `mount -r` (ro) makes a read-only mount: the kernel refuses writes, status says so.
    let out = place.mount(&["-r", "-t", "fuse.homespace", project, at]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let task = place.at.join("tasks/open/ro.json");
    let refused = std::fs::write(&task, "{\"title\": \"no\"}").unwrap_err();
    assert_eq!(refused.raw_os_error(), Some(libc::EROFS), "{refused}");
    let status = text(&succeed(Command::new(BIN).arg("status").arg(at)).stdout);
    assert!(
        status.contains("writes   refused (--read-only)"),
        "{status}"
    );
    succeed(Command::new("umount").arg(at));

    // A mistyped option is refused, not ignored.
    let out = place.mount(&["-t", "fuse.homespace", project, at, "-o", "stroe=/x.db"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("unknown option 'stroe=/x.db'"),
        "{}",
        text(&out.stderr)
    );
    assert!(!homespace::daemon::mount::is_mounted(&place.at));
}

/// mount(8) and systemd run helpers without HOME and with a short PATH or none: the helper
/// finds the program on the PATH it is given, and says what to do when there is none.
#[test]
fn the_helper_finds_the_program_without_home_or_path() {
    let place = Place::new();
    // The helper and the program apart, as installed: neither finds the other by place.
    let helper_dir = tempfile::tempdir().unwrap();
    let helper = helper_dir.path().join("mount.fuse.homespace");
    std::fs::copy(repo().join("mount-scripts/mount.fuse.homespace"), &helper).unwrap();
    let bin_dir = tempfile::tempdir().unwrap();
    std::fs::copy(BIN, bin_dir.path().join("homespace")).unwrap();
    let helper_run = |env: &[(&str, &std::ffi::OsStr)]| {
        let mut command = Command::new("/usr/bin/env");
        command.arg("-i");
        for (name, value) in env {
            command.arg(format!("{name}={}", value.to_string_lossy()));
        }
        command
            .args(["/bin/sh", helper.to_str().unwrap()])
            .arg(&place.project)
            .arg(&place.at)
            .arg("-o")
            .arg(format!("store={}", place.store.display()))
            .output()
            .unwrap()
    };
    let out = helper_run(&[("PATH", bin_dir.path().as_os_str())]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let entry = std::fs::read_to_string(place.at.join("_entry.md")).unwrap();
    assert!(entry.contains("homespace — ledger"), "{entry}");
    succeed(Command::new(BIN).arg("unmount").arg(&place.at));
    // No PATH, no HOME, no program in the usual places: said plainly, nothing mounted.
    if !Path::new("/usr/local/bin/homespace").exists() && !Path::new("/usr/bin/homespace").exists()
    {
        let out = helper_run(&[]);
        assert!(!out.status.success());
        let said = text(&out.stderr);
        assert!(said.contains("cannot find the homespace program"), "{said}");
        assert!(!said.contains("parameter not set"), "{said}");
        assert!(!homespace::daemon::mount::is_mounted(&place.at));

        // Installed as the README says — the program in /usr/local/bin (put there by this
        // test alone, and taken away after), the helper in /sbin — mount(8)'s empty
        // environment finds it.
        struct Installed(PathBuf);
        impl Drop for Installed {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
        let staged = PathBuf::from(format!("/usr/local/bin/.homespace.{}", std::process::id()));
        std::fs::copy(BIN, &staged).unwrap();
        std::fs::rename(&staged, "/usr/local/bin/homespace").unwrap();
        let _installed = Installed(PathBuf::from("/usr/local/bin/homespace"));
        install_helper();
        let out = Command::new("/usr/bin/env")
            .args(["-i", "/usr/sbin/mount.fuse.homespace"])
            .arg(&place.project)
            .arg(&place.at)
            .arg("-o")
            .arg(format!("store={}", place.store.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let entry = std::fs::read_to_string(place.at.join("_entry.md")).unwrap();
        assert!(entry.contains("homespace — ledger"), "{entry}");
        succeed(Command::new(BIN).arg("unmount").arg(&place.at));
    }
}

#[test]
fn the_systemd_unit_passes_systemd_analyze_verify() {
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man");
    succeed(Command::new(BIN).arg("man").arg(man.join("man1")));
    let unit = std::fs::read_to_string(repo().join("mount-scripts/homespace@.service")).unwrap();
    // The unit names the installed program; verify checks that it exists.
    let unit = unit.replace("/usr/local/bin/homespace", BIN);
    let instance = dir.path().join("homespace@ledger.service");
    std::fs::write(&instance, unit).unwrap();
    let runtime = dir.path().join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    let out = Command::new("systemd-analyze")
        .args(["verify", "--user"])
        .arg(&instance)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("MANPATH", &man)
        .output()
        .expect("systemd-analyze (package systemd) is installed");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_daemon_tells_systemd_when_it_is_ready_and_when_it_stops() {
    let place = Place::new();
    let socket_path = place.dir.path().join("notify");
    let socket = UnixDatagram::bind(&socket_path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut daemon = Command::new(BIN)
        .args(["mount", "--foreground", "--project"])
        .arg(&place.project)
        .arg("--store")
        .arg(&place.store)
        .arg(&place.at)
        .env("NOTIFY_SOCKET", &socket_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut buffer = [0u8; 512];
    let received = socket.recv(&mut buffer);
    let ready = received.map(|n| text(&buffer[..n]));
    // Ready means answering: a listing works right after the message.
    let listed = std::fs::read_dir(&place.at).map(|entries| entries.count());
    // SAFETY: signalling the child we started has no memory effects.
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let stopping = socket.recv(&mut buffer).map(|n| text(&buffer[..n]));
    let ended = homespace_testkit::poll::poll_true(
        Duration::from_secs(20),
        Duration::from_millis(20),
        || daemon.try_wait().unwrap().is_some(),
    );
    if !ended {
        let _ = daemon.kill();
        panic!("SIGTERM did not end the daemon");
    }
    let ready = ready.expect("READY=1 arrives");
    assert!(ready.contains("READY=1"), "{ready}");
    assert!(listed.is_ok_and(|n| n > 0), "the mount answers once ready");
    assert!(stopping.is_ok_and(|s| s.contains("STOPPING=1")));
    assert!(
        !homespace::daemon::mount::is_mounted(&place.at),
        "SIGTERM unmounted"
    );
}

#[test]
fn completions_and_man_pages_are_generated_from_the_command_line() {
    let version = succeed(Command::new(BIN).arg("--version"));
    assert!(text(&version.stdout).starts_with("homespace "));
    for command in [
        "mount",
        "unmount",
        "render",
        "import",
        "forget",
        "status",
        "prompt",
        "completions",
        "man",
    ] {
        let help = succeed(Command::new(BIN).args([command, "--help"]));
        assert!(
            text(&help.stdout).contains("Example"),
            "{command} --help shows examples"
        );
    }
    for shell in ["bash", "zsh", "fish"] {
        let out = succeed(Command::new(BIN).args(["completions", shell]));
        let script = text(&out.stdout);
        assert!(
            script.contains("mount") && script.contains("unmount") && script.contains("prompt"),
            "{shell}: {script}"
        );
    }
    let out = succeed(Command::new("bash").arg("-c").arg(format!(
        "source <('{BIN}' completions bash) && complete -p homespace"
    )));
    assert!(text(&out.stdout).contains("homespace"));

    let dir = tempfile::tempdir().unwrap();
    succeed(Command::new(BIN).arg("man").arg(dir.path()));
    for page in ["homespace.1", "homespace-mount.1", "homespace-status.1"] {
        assert!(dir.path().join(page).is_file(), "{page} written");
    }
    let page = succeed(Command::new(BIN).arg("man"));
    assert!(
        text(&page.stdout).starts_with(".ie") || text(&page.stdout).contains(".TH homespace 1")
    );
    let rendered = Command::new("man")
        .arg("-l")
        .arg(dir.path().join("homespace-mount.1"))
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .expect("man (package man-db) is installed");
    let rendered = text(&rendered.stdout);
    assert!(rendered.contains("--allow-other"), "{rendered}");
}

#[test]
fn status_lists_the_mount_and_prompt_gives_an_agent_its_bearings() {
    let mount = Mount::example();
    let out = succeed(Command::new(BIN).arg("status"));
    let status = text(&out.stdout);
    let at = mount.at.canonicalize().unwrap();
    let (_, ours) = status
        .split_once(&format!("{}\n", at.display()))
        .unwrap_or_else(|| panic!("{} not listed:\n{status}", at.display()));
    let pid = mount.daemon_pid().unwrap();
    assert!(
        ours.contains(&format!("pid {pid}, up "))
            && ours.contains("MiB resident")
            && ours.contains(&format!("project  {}", mount.project.display()))
            && ours.contains("cache    kept by the kernel"),
        "{ours}"
    );
    let none = Command::new(BIN).args(["status", "/"]).output().unwrap();
    assert!(!none.status.success());
    assert!(text(&none.stderr).contains("is not a homespace mount"));

    let out = succeed(Command::new(BIN).arg("prompt").arg(&mount.at));
    let block = text(&out.stdout);
    assert!(block.chars().count().div_ceil(4) <= 280, "{block}");
    let entry = format!("cat {}/_entry.md", at.display());
    assert!(block.contains(&entry), "{block}");
    // The loop's verbs, as the mount's dashboard gives them.
    let run_and_wait = format!(
        "echo > {at}/source/tests/run; cat {at}/source/tests/runs/latest/result.md",
        at = at.display()
    );
    assert!(block.contains(&run_and_wait), "{block}");
    // What it tells the agent to read is there.
    assert!(std::fs::read_to_string(at.join("_entry.md")).is_ok());
    assert!(
        block.contains(&format!("{}/_errors.md", at.display())),
        "{block}"
    );
}

#[test]
fn a_user_mounts_reads_writes_and_unmounts_with_fusermount3_and_root_is_kept_out() {
    use std::os::unix::fs::PermissionsExt;
    // The kernel makes /dev/fuse crw-rw-rw-; some containers restrict it, and then no FUSE
    // file system can be mounted by a user. Give this machine the kernel's default.
    let device = std::fs::metadata("/dev/fuse").unwrap().permissions();
    if device.mode() & 0o666 != 0o666 {
        std::fs::set_permissions("/dev/fuse", std::fs::Permissions::from_mode(0o666)).unwrap();
    }
    let user = common::OtherUser::new("mnt");
    let place = Place::new();
    std::fs::set_permissions(place.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // The program where the user may run it (the checkout may be private to root).
    let bin = place.dir.path().join("homespace");
    std::fs::copy(BIN, &bin).unwrap();
    succeed(
        Command::new("chown")
            .arg("-R")
            .arg(&user.name)
            .arg(&place.project)
            .arg(&place.at),
    );
    let as_user = |args: &[&str]| {
        Command::new("runuser")
            .args(["-u", &user.name, "--"])
            .args(args)
            .current_dir("/")
            .output()
            .unwrap()
    };
    let (bin, project, at) = (
        bin.to_str().unwrap(),
        place.project.to_str().unwrap(),
        place.at.to_str().unwrap(),
    );
    let out = as_user(&[bin, "mount", "--project", project, at]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = format!("{at} fuse");
    let table = std::fs::read_to_string("/proc/mounts").unwrap();
    let entry = table
        .lines()
        .find(|l| l.contains(&line))
        .unwrap_or_default();
    assert!(
        entry.contains(&format!("user_id={}", user.uid)),
        "mounted as the user: {entry}"
    );
    let out = as_user(&["cat", &format!("{at}/_entry.md")]);
    assert!(text(&out.stdout).contains("homespace — ledger"));
    let task = format!("{at}/tasks/open/from-a-user.json");
    let out = as_user(&[
        "sh",
        "-c",
        &format!("echo '{{\"title\": \"Written by a user\"}}' > {task} && cat {task}"),
    ]);
    assert!(
        text(&out.stdout).contains("Written by a user"),
        "{}",
        text(&out.stderr)
    );
    // Root without --allow-other is kept out by the kernel.
    let root = std::fs::read_dir(&place.at).map(|_| ()).unwrap_err();
    assert_eq!(root.raw_os_error(), Some(libc::EACCES));
    // --allow-other needs root's consent in /etc/fuse.conf, and the refusal says so.
    let conf = std::fs::read_to_string("/etc/fuse.conf").unwrap_or_default();
    if !conf.lines().any(|l| l.trim() == "user_allow_other") {
        let other = place.dir.path().join("shared");
        std::fs::create_dir_all(&other).unwrap();
        succeed(Command::new("chown").arg(&user.name).arg(&other));
        let other = other.to_str().unwrap();
        let out = as_user(&[bin, "mount", "--allow-other", "--project", project, other]);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains("needs the line `user_allow_other` in /etc/fuse.conf"),
            "{}",
            text(&out.stderr)
        );
    }
    let out = as_user(&[bin, "unmount", at]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!homespace::daemon::mount::is_mounted(&place.at));
}

#[test]
fn a_file_manager_lists_copies_drags_and_is_refused_the_trash() {
    Mount::example().run_script("gio.sh");
}
