//! Import check: after an edit lands in the project, import the edited module in a separate
//! Python process (project paths first on `sys.path`, under a timeout) and report whether
//! that worked, so the caller can restore the previous content when it did not.
//!
//! Guarantees:
//! - Every check starts from a pristine interpreter: a long-lived Python "fork server" that
//!   never imports the project forks one child per check, so nothing (`sys.modules`, import
//!   caches, bytecode of a file edited moments ago) carries over between checks.
//! - A failure comes back as [`ImportFailure::Failed`] with the traceback's last lines (at most
//!   [`MAX_LINES`], the exception line last): ImportError, NameError, SyntaxError, circular
//!   imports, any exception or `sys.exit` at import, a crash or `os._exit`, or a hang past the
//!   timeout (the child's whole process group is killed).
//! - Problems of the checker itself (no interpreter, spawn failed, server died twice) are
//!   [`ImportFailure::Unavailable`], so the caller can skip the check and say so.
//! - A check never blocks longer than the timeout plus [`MARGIN`]: a wedged server is killed
//!   and restarted on the next check. The server exits when its stdin closes, `Drop` kills it,
//!   and its children kill themselves by alarm shortly after the timeout should it be gone.
//! - Checks are serialized on one mutex (one request in flight): a check costs a few
//!   milliseconds, the single-threaded server forks one child at a time anyway, and one
//!   request in flight keeps the protocol free of request ids and lets a deadline miss kill
//!   the server without hurting anybody else's check. The price: a hanging import delays
//!   queued checks by up to the timeout.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use std::{fmt, thread};

use serde::Deserialize;

/// At most this many lines of traceback in a failure message.
pub const MAX_LINES: usize = 12;
/// Lines longer than this are cut (an exception message can hold a whole data structure).
const MAX_LINE_CHARS: usize = 400;
/// Slack on top of the import timeout before the server itself counts as wedged.
pub const MARGIN: Duration = Duration::from_secs(5);
/// How long a fresh server may take to start (cold disk caches, big site-packages).
const STARTUP: Duration = Duration::from_secs(30);
/// Bytes of the server's own stderr kept for an `Unavailable` message.
const STDERR_TAIL: usize = 4096;

/// The fork server. Protocol: one JSON object a line each way; first a `{"ready": ...}` line,
/// then one answer per request `{"module", "paths", "timeout"}`.
const SERVER: &str = r##"
import faulthandler, gc, importlib, json, os, select, signal, sys, tempfile, time, traceback
from importlib.machinery import SourceFileLoader

PRELOAD = ("abc", "collections", "contextlib", "dataclasses", "datetime", "enum", "functools",
           "itertools", "json", "logging", "pathlib", "re", "typing")
NOISE = ('  File "<frozen ', '  File "<string>"', '  File "%s"' % importlib.__file__,
         "Extension modules:")
PRELOADED = set()

def fresh_stats(base):
    # A .pyc written by another run for an earlier version of the same size, edited within the
    # same second, passes Python's (whole second, size) check: never trust one for a file
    # changed in the last 2 s.
    def path_stats(self, path):
        st = base(self, path)
        return dict(st, mtime=-1) if st["mtime"] > time.time() - 2.0 else st
    return path_stats

def quietly(f, *args):
    try:
        f(*args)
    except OSError:
        pass

def tail(fd, limit=16384):
    size = os.fstat(fd).st_size
    text = os.pread(fd, limit, max(0, size - limit)).decode("utf-8", "replace")
    return [l for l in text.splitlines() if l.strip() and not l.startswith(NOISE)]

def child(module, paths, timeout, w, errfd, private):
    for fd in private:
        os.close(fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd, to in ((null, 0), (null, 1), (errfd, 2)):
        os.dup2(fd, to)
    quietly(os.setpgid, 0, 0)
    # Backstop: the kernel ends this child even if the server that should kill it is gone.
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, timeout + 2.0)
    faulthandler.enable()  # a crash or a hang shows where it happened
    # Where a hang is, dumped shortly before the kill (needs CPU while the machine is busy).
    faulthandler.dump_traceback_later(max(timeout - min(timeout / 4, 0.5), 0.001))
    if paths and os.path.isdir(paths[0]):
        os.chdir(paths[0])
    sys.path[:0] = paths
    top = module.partition(".")[0]
    if top in PRELOADED:  # a project module shadowing what we preloaded must be its own
        for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
            del sys.modules[name]
    importlib.invalidate_caches()
    try:
        importlib.import_module(module)
        reply = b"K"
    except BaseException:
        parts = traceback.format_exception(*sys.exc_info())
        text = "".join(p for p in parts if not p.startswith(NOISE))
        reply = b"E" + text.encode("utf-8", "replace").replace(b"\0", b"?")
    faulthandler.cancel_dump_traceback_later()
    reply += b"\0"  # the terminator, not EOF, ends a reply: a grandchild may hold the pipe
    while reply:
        reply = reply[os.write(w, reply):]

def check(module, paths, timeout, errfd, private):
    os.ftruncate(errfd, 0)
    os.lseek(errfd, 0, os.SEEK_SET)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            child(module, paths, timeout, w, errfd, private)
        finally:
            os._exit(70)
    os.close(w)
    quietly(os.setpgid, pid, pid)  # here too: the child may not have run when we kill it
    deadline = time.monotonic() + timeout
    data, late, status = b"", False, None
    while not data.endswith(b"\0"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            late = True
            break
        part = os.read(r, 65536)
        if not part:
            break
        data += part
    os.close(r)
    if not late and not data.endswith(b"\0"):
        # EOF without a reply: the child is exiting (or closed every fd and carries on).
        while status is None and time.monotonic() < deadline:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            else:
                time.sleep(0.001)
        late = status is None
    for kill in (os.killpg, os.kill):  # the group: nothing the import started outlives it
        quietly(kill, pid, signal.SIGKILL)
    if status is None:
        status = os.waitpid(pid, 0)[1]
    if data.endswith(b"\0"):
        error = data[1:-1].decode("utf-8", "replace")
        return {"ok": True} if data[:1] == b"K" else {"ok": False, "error": error}
    lines = tail(errfd)
    if late:
        msg = "importing %s took longer than %g s" % (module, timeout)
        starts = [i for i, l in enumerate(lines) if l.startswith("Timeout (")]
        frames = [l for l in lines[starts[-1]:] if l.startswith("  File")] if starts else []
        if frames:
            msg += "; it was at (most recent call first):\n" + "\n".join(frames[:8])
        return {"ok": False, "error": msg}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in set(signal.Signals) else "unknown"
        msg = "importing %s crashed the Python process (signal %d, %s)" % (module, sig, name)
    else:
        msg = "importing %s ended the Python process with exit status %d" % (
            module, os.WEXITSTATUS(status))
    if lines:
        msg += ":\n" + "\n".join(lines[-8:])
    return {"ok": False, "error": msg}

def send(fd, obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]

def main():
    global PRELOADED
    sys.path[:] = [p for p in sys.path if p not in ("", ".")]
    sys.dont_write_bytecode = True  # checking must not write into the project
    SourceFileLoader.path_stats = fresh_stats(SourceFileLoader.path_stats)
    startup = set(sys.modules)
    for name in PRELOAD:  # common stdlib, imported once here instead of in every child
        try:
            importlib.import_module(name)
        except Exception:
            pass
    PRELOADED = set(sys.modules) - startup
    errfile = tempfile.TemporaryFile()
    # The protocol moves to private fds; fds 0 and 1 become /dev/null for the children.
    fin, out, null = os.fdopen(os.dup(0), "rb"), os.dup(1), os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    if hasattr(gc, "freeze"):
        gc.freeze()
    send(out, {"ready": True, "python": sys.version.split()[0]})
    for line in fin:
        try:
            req = json.loads(line.decode("utf-8"))
            reply = check(str(req["module"]), [str(p) for p in req["paths"]],
                          float(req["timeout"]), errfile.fileno(), (fin.fileno(), out))
        except Exception as e:
            reply = {"ok": False, "unavailable": True, "error": "%s: %s" % (type(e).__name__, e)}
        send(out, reply)

try:
    main()
except BrokenPipeError:
    pass
"##;

/// Why a module did not pass the import check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportFailure {
    /// Importing the module failed; the message ends with the exception line.
    Failed(String),
    /// The check could not run (no interpreter, spawn failed, server died): skip it.
    Unavailable(String),
}

impl fmt::Display for ImportFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportFailure::Failed(m) => f.write_str(m),
            ImportFailure::Unavailable(m) => write!(f, "import check unavailable: {m}"),
        }
    }
}

impl std::error::Error for ImportFailure {}

/// Imports modules of a project in a fresh interpreter fork; see the module documentation.
pub struct ImportChecker {
    python: PathBuf,
    timeout: Duration,
    margin: Duration,
    server: Mutex<Option<Server>>,
}

#[derive(Deserialize)]
struct Answer {
    ok: bool,
    #[serde(default)]
    unavailable: bool,
    #[serde(default)]
    error: String,
}

impl ImportChecker {
    /// A checker running `python`, each import limited to `timeout`. Starts nothing yet.
    pub fn new(python: PathBuf, timeout: Duration) -> Self {
        let server = Mutex::new(None);
        ImportChecker {
            python,
            timeout,
            margin: MARGIN,
            server,
        }
    }

    /// Import `module` (dotted) with `sys_path` first on `sys.path` (the first entry is also
    /// the working directory). Ok when it imports.
    pub fn check(&self, module: &str, sys_path: &[PathBuf]) -> Result<(), ImportFailure> {
        let paths: Vec<_> = sys_path.iter().map(|p| p.to_string_lossy()).collect();
        let timeout = self.timeout.as_secs_f64();
        let request = serde_json::json!({"module": module, "paths": paths, "timeout": timeout});
        let request = request.to_string();
        let mut slot = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        let mut fresh = false;
        loop {
            let server = match slot.as_mut() {
                Some(server) => server,
                None => {
                    fresh = true;
                    slot.insert(Server::start(&self.python)?)
                }
            };
            match server.ask(&request, Instant::now() + self.timeout + self.margin) {
                Ok(answer) if answer.ok => return Ok(()),
                Ok(answer) if answer.unavailable => {
                    return Err(ImportFailure::Unavailable(answer.error));
                }
                Ok(answer) => return Err(ImportFailure::Failed(last_lines(&answer.error))),
                Err(Lost::Deadline) => {
                    // Wedged: dropping kills it; the next check starts a new one.
                    *slot = None;
                    let message = format!("importing {module} took longer than {timeout} s");
                    return Err(ImportFailure::Failed(message));
                }
                Err(Lost::Gone(why)) => {
                    let why = slot.take().map_or(why.clone(), |s| s.finish(&why));
                    // A server that was running may have died of anything: restart it once.
                    if fresh {
                        return Err(ImportFailure::Unavailable(why));
                    }
                }
            }
        }
    }
}

/// The message of a failure: the last [`MAX_LINES`] lines, each cut to a sane length.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let cut = |line: &&str| match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    };
    let start = lines.len().saturating_sub(MAX_LINES);
    lines[start..]
        .iter()
        .map(cut)
        .collect::<Vec<_>>()
        .join("\n")
}

enum Lost {
    Deadline,
    Gone(String),
}

/// A running fork server: its stdin, its stdout lines and, once it has ended, the tail of its
/// stderr (each read by a thread, so that waiting for them can time out).
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Receiver<String>,
}

impl Server {
    fn start(python: &Path) -> Result<Server, ImportFailure> {
        let shown = python.display();
        let unavailable = |e: io::Error| ImportFailure::Unavailable(format!("{shown}: {e}"));
        let mut child = Command::new(python)
            .args(["-u", "-c", SERVER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .current_dir("/")
            // Its own process group: a Ctrl-C meant for the daemon's terminal is not for it.
            .process_group(0)
            .spawn()
            .map_err(unavailable)?;
        let (Some(stdin), Some(out), Some(mut err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ImportFailure::Unavailable(format!("{shown}: no pipes")));
        };
        let (lines_tx, lines) = mpsc::channel();
        let (stderr_tx, stderr) = mpsc::channel();
        // From here on, dropping `server` kills the process.
        let server = Server {
            child,
            stdin,
            lines,
            stderr,
        };
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            thread::Builder::new().name(name.into()).spawn(f).map(drop)
        };
        let read_lines = move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        };
        let read_stderr = move || {
            let (mut buf, mut tail) = ([0u8; 4096], Vec::new());
            while let Ok(n @ 1..) = err.read(&mut buf) {
                tail.extend_from_slice(&buf[..n]);
                tail.drain(..tail.len().saturating_sub(STDERR_TAIL));
            }
            let _ = stderr_tx.send(String::from_utf8_lossy(&tail).into_owned());
        };
        spawn("import-check-out", Box::new(read_lines)).map_err(unavailable)?;
        spawn("import-check-err", Box::new(read_stderr)).map_err(unavailable)?;
        let why = match server.receive(Instant::now() + STARTUP) {
            Ok(line) if line.contains("\"ready\"") => return Ok(server),
            Ok(line) => format!("unexpected greeting {line:?}"),
            Err(Lost::Deadline) => format!("no greeting within {} s", STARTUP.as_secs()),
            Err(Lost::Gone(why)) => why,
        };
        let why = format!("{shown} could not run the import checker: {why}");
        Err(ImportFailure::Unavailable(server.finish(&why)))
    }

    fn receive(&self, deadline: Instant) -> Result<String, Lost> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Lost::Deadline),
            Err(RecvTimeoutError::Disconnected) => Err(Lost::Gone("its process ended".into())),
        }
    }

    fn ask(&mut self, request: &str, deadline: Instant) -> Result<Answer, Lost> {
        writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Lost::Gone(format!("cannot send it a request: {e}")))?;
        let line = self.receive(deadline)?;
        serde_json::from_str(&line).map_err(|e| Lost::Gone(format!("garbled answer ({e})")))
    }

    /// Kill and reap the server; `why` with the last of what it said on stderr.
    fn finish(mut self, why: &str) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Dead, its stderr reaches EOF at once; the wait is bounded all the same.
        let tail = self.stderr.recv_timeout(Duration::from_millis(200));
        match last_lines(&tail.unwrap_or_default()) {
            t if t.trim().is_empty() => why.to_string(),
            t => format!("{why}:\n{t}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::Arc;

    /// A checker with `python3` from PATH, or None (the test is skipped) where there is none.
    fn checker(timeout: f64) -> Option<ImportChecker> {
        let python = crate::python::interpreter::find(Path::new("/nonexistent"), None)
            .ok()
            .map(|found| found.path);
        if python.is_none() {
            eprintln!("no python3 on PATH: import check test skipped");
        }
        python.map(|p| ImportChecker::new(p, Duration::from_secs_f64(timeout)))
    }

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, [PathBuf; 1]) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let paths = [dir.path().to_path_buf()];
        (dir, paths)
    }

    fn failure(c: &ImportChecker, module: &str, paths: &[PathBuf]) -> String {
        match c.check(module, paths) {
            Err(ImportFailure::Failed(m)) => m,
            other => panic!("{module}: expected a failure, got {other:?}"),
        }
    }

    /// (file, source, the message's last line starts with, the message contains).
    #[rustfmt::skip]
    const FAILING: &[(&str, &str, &str, &str)] = &[
        ("missing.py", "import os\nimport nonexistent_module\n",
            "ModuleNotFoundError: No module named 'nonexistent_module'", "missing.py\", line 2"),
        ("name.py", "x = 1\ny = undefined_name\n", "NameError: name 'undefined_name'", ""),
        ("syntax.py", "def f(:\n    pass\n", "SyntaxError", "syntax.py\", line 1"),
        ("a.py", "from b import g\ndef f(): pass\n", "ImportError: cannot import name 'f'", ""),
        ("deep.py", "def f(n):\n    if n == 0:\n        raise ValueError('bottom')\n    f(n - 1)\nf(40)\n",
            "ValueError: bottom", ""),
        ("exits.py", "import sys\nsys.exit(0)\n", "SystemExit: 0", ""),
        ("exit3.py", "import os, sys\nsys.stderr.write('bye\\n')\nsys.stderr.flush()\nos._exit(3)\n",
            "bye", "exit status 3"),
        ("crash.py", "import ctypes\nctypes.string_at(0)\n", "  File", "signal 11, SIGSEGV"),
    ];

    /// Modules that import fine, some of them noisy or hostile to the checker.
    #[rustfmt::skip]
    const PASSING: &[(&str, &str)] = &[
        ("b.py", "from a import f\ndef g(): pass\n"),
        ("pkg/__init__.py", ""),
        ("pkg/helper.py", "import json\nVALUE = 1\n"),
        ("pkg/mod.py", "from . import helper\nfrom .helper import VALUE\n"),
        ("loud.py", "import sys\nfor i in range(20000):\n    print('x' * 100)\n    sys.stderr.write('y' * 100 + '\\n')\n"),
        ("reader.py", "import sys\nDATA = sys.stdin.read()\n"),
        ("forks.py", "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n"),
    ];

    #[test]
    fn reports_failures_and_survives_them() {
        let Some(c) = checker(10.0) else { return };
        let failing = FAILING.iter().map(|(file, src, ..)| (*file, *src));
        let (_dir, paths) = project(&failing.chain(PASSING.iter().copied()).collect::<Vec<_>>());
        for (file, _, last, contains) in FAILING {
            let m = failure(&c, file.trim_end_matches(".py"), &paths);
            assert!(m.lines().last().unwrap().starts_with(last), "{file}: {m}");
            assert!(
                m.contains(contains) && !m.contains("<frozen"),
                "{file}: {m}"
            );
            assert!(m.lines().count() <= MAX_LINES, "{file}: {m}");
        }
        for module in ["pkg.mod", "loud", "reader", "forks"] {
            assert_eq!(c.check(module, &paths), Ok(()), "{module}");
        }
    }

    #[test]
    fn hang_times_out_and_the_next_check_is_fast() {
        let Some(c) = checker(1.0) else { return };
        let (_dir, paths) = project(&[
            ("hang.py", "x = 0\nwhile True:\n    x += 1\n"),
            ("ok.py", ""),
        ]);
        let start = Instant::now();
        let m = failure(&c, "hang", &paths);
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        assert!(m.starts_with("importing hang took longer than 1 s"), "{m}");
        assert!(m.contains("hang.py\", line "), "where it hung: {m}");
        let start = Instant::now();
        assert_eq!(c.check("ok", &paths), Ok(()));
        assert!(
            start.elapsed() < Duration::from_millis(500),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn no_state_leaks_between_checks() {
        let Some(c) = checker(10.0) else { return };
        let (dir, paths) = project(&[("a.py", "x = 1\n")]);
        let file = dir.path().join("a.py");
        assert_eq!(c.check("a", &paths), Ok(()));
        // Bytecode of the old version, as a test run in between would leave, and a new version
        // of the same size in the same mtime second: Python itself would run the stale .pyc.
        let now = std::time::UNIX_EPOCH.elapsed().unwrap();
        let second = std::time::UNIX_EPOCH + Duration::from_secs(now.as_secs());
        let touch = |f: &Path| {
            fs::File::options()
                .write(true)
                .open(f)?
                .set_modified(second)
        };
        touch(&file).unwrap();
        let compiled = Command::new(
            crate::python::interpreter::find(dir.path(), None)
                .unwrap()
                .path,
        )
        .args(["-m", "py_compile", "a.py"])
        .current_dir(dir.path())
        .status();
        assert!(compiled.unwrap().success());
        fs::write(&file, "x = y\n").unwrap();
        touch(&file).unwrap();
        assert!(failure(&c, "a", &paths).ends_with("NameError: name 'y' is not defined"));
        fs::write(&file, "x = 2\n").unwrap();
        assert_eq!(c.check("a", &paths), Ok(()));
    }

    #[test]
    fn concurrent_checks_restart_and_drop() {
        let Some(c) = checker(10.0) else { return };
        let c = Arc::new(c);
        let (_dir, paths) = project(&[("good.py", "import json\n"), ("bad.py", "import nope\n")]);
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let (c, paths) = (Arc::clone(&c), paths.clone());
                thread::spawn(move || {
                    for j in 0..5 {
                        let result = c.check(["good", "bad"][(i + j) % 2], &paths);
                        assert_eq!(result.is_ok(), (i + j) % 2 == 0, "{result:?}");
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let server_pid = || c.server.lock().unwrap().as_ref().unwrap().child.id();
        let old = server_pid();
        // A server that died between checks is restarted transparently.
        (c.server.lock().unwrap().as_mut().unwrap().child.kill()).unwrap();
        assert_eq!(c.check("good", &paths), Ok(()));
        let new = server_pid();
        assert_ne!(old, new);
        drop(Arc::into_inner(c));
        assert!(
            !Path::new(&format!("/proc/{new}")).exists(),
            "Drop kills the server"
        );
    }

    #[test]
    fn wedged_server_is_replaced_after_the_deadline() {
        let Some(mut c) = checker(0.5) else { return };
        c.margin = Duration::from_millis(300);
        let (_dir, paths) = project(&[("ok.py", "")]);
        assert_eq!(c.check("ok", &paths), Ok(()));
        let pid = c.server.lock().unwrap().as_ref().unwrap().child.id();
        // SAFETY: plain kill(2) on the server we started and still own.
        assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
        let start = Instant::now();
        let m = failure(&c, "ok", &paths);
        assert!(m.starts_with("importing ok took longer than 0.5 s"), "{m}");
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(c.check("ok", &paths), Ok(()));
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "the wedged one is gone"
        );
    }

    #[test]
    fn unavailable_interpreters_are_said_to_be() {
        for python in ["/nonexistent/python", "/bin/false"] {
            let c = ImportChecker::new(python.into(), Duration::from_secs(1));
            let result = c.check("x", &[]);
            assert!(
                matches!(result, Err(ImportFailure::Unavailable(_))),
                "{result:?}"
            );
        }
    }

    #[test]
    fn cost_per_check() {
        let Some(c) = checker(10.0) else { return };
        let (_dir, paths) = project(&[("trivial.py", "X = 1\n")]);
        let time = || {
            let start = Instant::now();
            assert_eq!(c.check("trivial", &paths), Ok(()));
            start.elapsed()
        };
        let first = time();
        let mut times: Vec<Duration> = (0..20).map(|_| time()).collect();
        times.sort();
        eprintln!(
            "import check: first (with server start) {first:?}, median {:?}",
            times[10]
        );
    }
}
