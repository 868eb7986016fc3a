//! What runs is pinned (SPEC §10, issue 42): another user who may write a shared folder
//! around the project — a sticky one, as shared scratch folders are — cannot choose what
//! runs as the mount's owner by a link swapped after the check, a venv's `home`, a
//! `.python-version` or a pytest configuration above the project; nor can a selector
//! smuggle pytest options in from a file. Each test plants a program that leaves a mark
//! if it runs; the owner edits (the import check runs) and runs the tests.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use common::planted::{assert_never_ran, chmod, owners_edit_and_run, plant, user_folder};
use common::{Mount, OtherUser, example, succeed};

/// A temp dir others may enter, with the example project at `<dir>/<path>` (its folders
/// the owner's, 0755), and `<dir>/shared`, sticky and writable by everyone.
fn placed(path: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o1777);
    let project = dir.path().join(path);
    common::copy_dir(&example(), &project);
    (dir, project)
}

/// The interpreter every test runs, by its real path (`python3` may be a pyenv shim).
fn real_python() -> PathBuf {
    let out = succeed(Command::new("python3").args([
        "-c",
        "import os, sys; print(os.path.realpath(sys.executable))",
    ]));
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// A venv of the owner's at `at` that the check accepts: its `bin/python` a link to the
/// real interpreter, the packages of that interpreter (pytest) shared.
fn good_venv(at: &Path) {
    let python = real_python();
    std::fs::create_dir_all(at.join("bin")).unwrap();
    std::os::unix::fs::symlink(&python, at.join("bin/python")).unwrap();
    std::fs::write(
        at.join("pyvenv.cfg"),
        format!(
            "home = {}\ninclude-system-site-packages = true\n",
            python.parent().unwrap().display()
        ),
    )
    .unwrap();
}

/// A process of `user`'s, killed (by its id) when dropped.
struct Theirs(Child);

impl Drop for Theirs {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `user` exchanging their links `a` and `b` in `dir` (`renameat2(RENAME_EXCHANGE)`) as
/// fast as they can for two minutes, until the returned process is dropped.
fn swapping(user: &OtherUser, dir: &Path, a: &str, b: &str) -> Theirs {
    let swapping = format!(
        "import ctypes, time\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         end = time.time() + 120\n\
         while time.time() < end:\n\
         \x20   for _ in range(1000):\n\
         \x20       libc.renameat2(-100, b'{a}', -100, b'{b}', 2)\n"
    );
    Theirs(
        Command::new("setpriv")
            .arg(format!("--reuid={}", user.uid))
            .arg(format!("--regid={}", user.uid))
            .args(["--clear-groups", "/usr/bin/python3", "-c", &swapping])
            .current_dir(dir)
            .spawn()
            .unwrap(),
    )
}

/// The owner's edits, each import-checked (a new interpreter starts whenever the one found
/// changes), 30 of them or until `mark` appears.
fn edit_until_marked(mount: &Mount, mark: &Path) -> (bool, String) {
    mount.sh(&format!(
        "for i in $(seq 30); do \
           printf 'def hs_probe():\\n    return %s\\n' $i > probe.py; \
           cp probe.py \"$HS/source/ledger/report/hs_probe.py\"; \
           [ -e {} ] && break; \
         done; true",
        mark.display()
    ))
}

#[test]
fn a_venv_link_another_user_swaps_after_the_check_never_runs_their_program() {
    // Here the `.venv` link is theirs and refused outright, so a run by the unresolved
    // name would pass this test too: the next test covers an owner's link whose target
    // chain they change between check and run.
    let user = OtherUser::new("race");
    let (dir, project) = placed("project");
    // The project folder is a shared scratch folder: sticky, anyone may add names.
    chmod(&project, 0o1777);
    let good = dir.path().join("good-venv");
    good_venv(&good);
    let mount = Mount::at(dir, project.clone(), &[]);
    let (evil, mark) = plant(&mount, &user);
    let theirs = user_folder(&mount, &user).join("venv");
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "mkdir -p {theirs}/bin && cp {evil} {theirs}/bin/python \
             && cp {good}/pyvenv.cfg {theirs}/ \
             && cd \"$PROJECT\" && ln -s {good} .venv && ln -s {theirs} .venv-swap",
            theirs = theirs.display(),
            evil = evil.display(),
            good = good.display()
        ),
    );
    assert!(ok, "{out}");
    // They exchange their two links as fast as they can: the check may see the owner's
    // venv and the run, a moment later, theirs.
    let _swapper = swapping(&user, &project, ".venv", ".venv-swap");
    let (ok, out) = edit_until_marked(&mount, &mark);
    assert!(ok, "{out}");
    assert_never_ran(&mark, &mount);
    let log = mount.log_text();
    assert!(
        log.contains(&format!(
            ".venv is a symbolic link owned by uid {} ({})",
            user.uid, user.name
        )),
        "the refusal names the link and whose it is:\n{log}"
    );
}

#[test]
fn a_link_another_user_swaps_inside_the_owners_venv_link_never_runs_their_program() {
    // Unlike the test above, every link the project names is the owner's: `.venv/bin/python`
    // leads to `<dir>/shared/py311/bin/python3`, and only `py311`, met while following that
    // link's target, is another user's. Checked by where the owner's link ends up, the check
    // may see the good installation and the run, going through `py311` again, theirs.
    let user = OtherUser::new("deep");
    let (dir, project) = placed("project");
    let good = dir.path().join("good");
    std::fs::create_dir_all(good.join("bin")).unwrap();
    let python = real_python();
    std::os::unix::fs::symlink(&python, good.join("bin/python3")).unwrap();
    let shared = dir.path().join("shared");
    let venv = project.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::os::unix::fs::symlink(shared.join("py311/bin/python3"), venv.join("bin/python")).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!(
            "home = {}\ninclude-system-site-packages = true\n",
            python.parent().unwrap().display()
        ),
    )
    .unwrap();
    let mount = Mount::at(dir, project, &[]);
    let (evil, mark) = plant(&mount, &user);
    let theirs = user_folder(&mount, &user).join("py");
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "mkdir -p {theirs}/bin && cp {evil} {theirs}/bin/python3 \
             && ln -s {good} {shared}/py311 && ln -s {theirs} {shared}/py311-swap",
            theirs = theirs.display(),
            evil = evil.display(),
            good = good.display(),
            shared = shared.display()
        ),
    );
    assert!(ok, "{out}");
    // They exchange their two links (their own, so the sticky bit lets them) as fast as
    // they can.
    let _swapper = swapping(&user, &shared, "py311", "py311-swap");
    let (ok, out) = edit_until_marked(&mount, &mark);
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert_never_ran(&mark, &mount);
    assert!(result.contains("passed"), "{result}");
    let log = mount.log_text();
    assert!(
        log.contains(&format!(
            "shared/py311 is a symbolic link owned by uid {} ({})",
            user.uid, user.name
        )),
        "the refusal names the link and whose it is:\n{log}"
    );
}

#[test]
fn a_venv_whose_home_another_user_writes_never_loads_their_standard_library() {
    let user = OtherUser::new("home");
    let (dir, project) = placed("project");
    // The owner's venv, a copy of the interpreter (`--copies`): its standard library is
    // found from `home` in its pyvenv.cfg.
    succeed(
        Command::new("python3")
            .args(["-m", "venv", "--copies", "--without-pip"])
            .arg(project.join(".venv")),
    );
    let mount = Mount::at(dir, project.clone(), &[]);
    let mark = user_folder(&mount, &user).join("ran");
    // Their installation: the real standard library, but an `os.py` that leaves a mark.
    let python = real_python();
    let real_lib = python.parent().unwrap().parent().unwrap().join("lib");
    let stdlib = std::fs::read_dir(&real_lib)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("os.py").is_file())
        .unwrap();
    let theirs = user_folder(&mount, &user).join("python");
    let their_lib = theirs.join("lib").join(stdlib.file_name().unwrap());
    std::fs::create_dir_all(theirs.join("bin")).unwrap();
    std::fs::create_dir_all(&their_lib).unwrap();
    for entry in std::fs::read_dir(&stdlib).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "os.py" {
            std::os::unix::fs::symlink(entry.path(), their_lib.join(entry.file_name())).unwrap();
        }
    }
    let os_py = std::fs::read_to_string(stdlib.join("os.py")).unwrap();
    std::fs::write(
        their_lib.join("os.py"),
        format!(
            "import _io\n_io.open({:?}, 'w').close()\n{os_py}",
            mark.display().to_string()
        ),
    )
    .unwrap();
    succeed(Command::new("chown").args(["-R", &user.name]).arg(&theirs));
    let config = project.join(".venv/pyvenv.cfg");
    let text = std::fs::read_to_string(&config).unwrap();
    let text: String = text
        .lines()
        .map(|line| match line.starts_with("home") {
            true => format!("home = {}\n", theirs.join("bin").display()),
            false => format!("{line}\n"),
        })
        .collect();
    std::fs::write(&config, text).unwrap();
    let result = owners_edit_and_run(&mount);
    assert_never_ran(&mark, &mount);
    assert!(result.contains("passed"), "{result}");
    assert!(result.contains("says home = "), "{result}");
    assert!(
        result.contains(&format!(
            "python/bin is owned by uid {} ({})",
            user.uid, user.name
        )),
        "the refusal names the folder and whose it is: {result}"
    );
}

#[test]
fn a_python_version_another_user_puts_above_the_project_chooses_nothing() {
    let user = OtherUser::new("pyenv");
    let (dir, project) = placed("shared/project");
    // A pyenv of the owner's with two versions; the global one is `mine`, and `old`
    // leaves a mark when it runs. Its `pyenv exec` looks for `.python-version` as pyenv
    // does: in the working folder, then in each folder above it.
    let root = dir.path().join("pyenv");
    let mark = dir.path().join("old-ran");
    let python = real_python();
    for folder in ["shims", "libexec", "versions/mine/bin", "versions/old/bin"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    std::os::unix::fs::symlink(&python, root.join("versions/mine/bin/python3")).unwrap();
    let old = root.join("versions/old/bin/python3");
    std::fs::write(
        &old,
        format!(
            "#!/bin/sh\ntouch {}\nexec {} \"$@\"\n",
            mark.display(),
            python.display()
        ),
    )
    .unwrap();
    std::fs::write(root.join("version"), "mine\n").unwrap();
    std::fs::write(
        root.join("libexec/pyenv"),
        "#!/usr/bin/env bash\nset -e\n[ \"$1\" = exec ]\nprogram=$2; shift 2\n\
         version=${PYENV_VERSION:-}\ndir=$PWD\n\
         while [ -z \"$version\" ]; do\n\
           if [ -f \"$dir/.python-version\" ]; then version=$(head -n1 \"$dir/.python-version\"); break; fi\n\
           [ \"$dir\" = / ] && break\n\
           dir=$(dirname \"$dir\")\n\
         done\n\
         [ -n \"$version\" ] || version=$(cat \"$PYENV_ROOT/version\")\n\
         exec \"$PYENV_ROOT/versions/$version/bin/$program\" \"$@\"\n",
    )
    .unwrap();
    // The shim, as pyenv writes it.
    std::fs::write(
        root.join("shims/python3"),
        format!(
            "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\n\
             program=\"${{0##*/}}\"\n\nexport PYENV_ROOT=\"{root}\"\n\
             exec \"{root}/libexec/pyenv\" exec \"$program\" \"$@\"\n",
            root = root.display()
        ),
    )
    .unwrap();
    for script in ["shims/python3", "libexec/pyenv"] {
        chmod(&root.join(script), 0o755);
    }
    chmod(&old, 0o755);
    let path = format!(
        "{}:{}",
        root.join("shims").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mount = common::Setup::at(dir, project)
        .env(&[
            ("PATH", PathBuf::from(path)),
            ("PYENV_VERSION", PathBuf::new()),
        ])
        .mount();
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "echo old > {}",
            mount.dir.path().join("shared/.python-version").display()
        ),
    );
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert!(
        !mark.exists(),
        "the version another user chose ran:\n{result}"
    );
    assert!(result.contains("passed"), "{result}");
}

#[test]
fn a_pytest_configuration_another_user_puts_above_the_project_is_never_read() {
    let user = OtherUser::new("ini");
    let (dir, project) = placed("shared/project");
    // A project whose pyproject.toml has no pytest table: pytest would look further up.
    let pyproject = project.join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap();
    let table = text.find("[tool.pytest.ini_options]").unwrap();
    let rest = text[table..].find("\n\n").unwrap() + table;
    std::fs::write(&pyproject, format!("{}{}", &text[..table], &text[rest..])).unwrap();
    let mount = Mount::at(dir, project, &[]);
    let mark = user_folder(&mount, &user).join("ran");
    let shared = mount.dir.path().join("shared");
    let (ok, out) = mount.sh_as(
        &user,
        &format!(
            "printf '[pytest]\\n' > {shared}/pytest.ini \
             && printf 'open(%s, \"w\").close()\\n' \"'{mark}'\" > {shared}/conftest.py",
            shared = shared.display(),
            mark = mark.display()
        ),
    );
    assert!(ok, "{out}");
    let result = owners_edit_and_run(&mount);
    assert_never_ran(&mark, &mount);
    assert!(result.contains("passed"), "{result}");
    assert!(
        result.contains("--confcutdir=."),
        "the command says so: {result}"
    );
}

#[test]
fn arguments_from_a_file_never_reach_pytest() {
    let mount = Mount::example();
    // A folder of the owner's that `--basetemp` would empty.
    let kept = mount.dir.path().join("kept");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("precious.txt"), "mine\n").unwrap();
    std::fs::write(
        mount.project.join("ARGS"),
        format!("--basetemp={}\n", kept.display()),
    )
    .unwrap();
    // The same again, after a test path: old code passed such a word on as a test path.
    // (Another name: `_errors.md` keeps one entry for a message repeated at once.)
    std::fs::copy(mount.project.join("ARGS"), mount.project.join("MORE")).unwrap();
    // A plain keyword expression: `-k @KEYS` is a selection pytest would really run (as
    // `-k journal`) if the word reached it, so only the refusal tells the two apart.
    std::fs::write(mount.project.join("KEYS"), "journal\n").unwrap();
    for (selector, file) in [
        ("-k @KEYS", "KEYS"),
        ("@ARGS", "ARGS"),
        ("tests/test_journal.py @MORE", "MORE"),
    ] {
        // `_errors.md` keeps earlier refusals: this round's must be a new entry.
        let refusal =
            format!("`@{file}` (pytest would read more arguments from the file \"{file}\"");
        let before = mount.read("_errors.md").matches(&refusal).count();
        let (ok, out) = mount.sh(&format!(
            "echo '{selector}' > \"$HS/source/tests/run\" || true; \
             for i in $(seq 1200); do \
               [ -e \"$HS/source/tests/runs/latest/_entry.md\" ] || break; \
               grep -q 'still running' \"$HS/source/tests/runs/latest/_entry.md\" || break; \
               sleep 0.1; \
             done"
        ));
        assert!(ok, "{out}");
        assert!(
            kept.join("precious.txt").exists(),
            "{selector}: pytest took arguments from the file"
        );
        let errors = mount.read("_errors.md");
        assert!(
            errors.matches(&refusal).count() > before,
            "{selector}: no new refusal in _errors.md:\n{errors}"
        );
    }
}

#[test]
fn a_test_path_outside_the_project_is_never_imported() {
    let mount = Mount::example();
    // A test file beside the project, as one in a shared folder would be: importing it
    // leaves a mark.
    let elsewhere = mount.dir.path().join("elsewhere");
    let mark = elsewhere.join("ran");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("test_theirs.py"),
        format!(
            "open({:?}, 'w').close()\ndef test_x():\n    pass\n",
            mark.display().to_string()
        ),
    )
    .unwrap();
    let absolute = elsewhere.join("test_theirs.py").display().to_string();
    // The view shortens long paths: each round's refusal is counted by the file's name.
    let refusal = "test_theirs.py` (a test path outside the project";
    for selector in ["../elsewhere/test_theirs.py", absolute.as_str()] {
        let before = mount.read("_errors.md").matches(refusal).count();
        let (ok, out) = mount.sh(&format!(
            "echo '{selector}' > \"$HS/source/tests/run\" || true; \
             for i in $(seq 1200); do \
               [ -e \"$HS/source/tests/runs/latest/_entry.md\" ] || break; \
               grep -q 'still running' \"$HS/source/tests/runs/latest/_entry.md\" || break; \
               sleep 0.1; \
             done"
        ));
        assert!(ok, "{out}");
        assert!(!mark.exists(), "{selector}: pytest imported the file");
        let errors = mount.read("_errors.md");
        assert!(
            errors.matches(refusal).count() > before,
            "{selector}: {errors}"
        );
    }
}
