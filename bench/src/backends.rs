//! The two stores the tasks and sessions sections measure side by side: SQLite (a file in
//! a temp dir) and PostgreSQL (a database on a private scratch server, started once for the
//! run and stopped when the run ends). Every measured store is new and empty, and removed
//! when dropped: a file with its WAL, a database dropped, so that stores of 1,000,000
//! entries do not pile up on the disk. Also how big a store is (the file and its WAL;
//! `pg_database_size`) and the side-by-side rows both sections print.

use std::path::{Path, PathBuf};
use std::time::Duration;

use homespace::store::Store;
use homespace::store::location::Location;
use homespace_testkit::postgres::ScratchServer;

/// A kind of store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Both, in the order their columns are printed.
pub const BOTH: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }

    /// Its column: 0 for SQLite, 1 for PostgreSQL.
    pub fn index(self) -> usize {
        match self {
            Backend::Sqlite => 0,
            Backend::Postgres => 1,
        }
    }
}

/// What makes new stores: PostgreSQL's when its scratch server started.
pub struct Backends {
    server: Option<ScratchServer>,
    /// Databases made so far, for new names.
    made: std::cell::Cell<usize>,
}

impl Backends {
    /// Starts the scratch server; when it cannot start, says why and measures SQLite
    /// alone (its columns then show `—`).
    pub fn start() -> Backends {
        let server = match ScratchServer::start() {
            Ok(server) => Some(server),
            Err(why) => {
                println!("PostgreSQL is left out: its scratch server did not start: {why}\n");
                None
            }
        };
        let backends = Backends {
            server,
            made: std::cell::Cell::new(0),
        };
        if let Some(server) = &backends.server {
            let version = backends
                .admin()
                .and_then(|mut client| {
                    client
                        .query_one("SHOW server_version", &[])
                        .map(|row| row.get::<_, String>(0))
                        .map_err(|e| e.to_string())
                })
                .unwrap_or_else(|why| format!("version unknown: {why}"));
            // Said, since it matters to every write figure: SQLite's store runs WAL with
            // synchronous=NORMAL, which does not flush each commit either.
            println!(
                "PostgreSQL {version}: a scratch server on 127.0.0.1:{} started for this run \
                 (initdb, fsync=off — SQLite's store, WAL with synchronous=NORMAL, does not \
                 flush each commit either), over TCP on this machine\n",
                server.port()
            );
        }
        backends
    }

    /// The backends measured in this run.
    pub fn available(&self) -> Vec<Backend> {
        BOTH.into_iter()
            .filter(|b| *b == Backend::Sqlite || self.server.is_some())
            .collect()
    }

    /// A new, empty store of `backend`: a file under `dir`, or a new database.
    pub fn new_store(&self, backend: Backend, dir: &Path) -> Result<BenchStore<'_>, String> {
        let n = self.made.get() + 1;
        self.made.set(n);
        match backend {
            Backend::Sqlite => {
                let file = dir.join(format!("store-{n}.db"));
                Ok(BenchStore {
                    backend,
                    location: file.display().to_string(),
                    place: Place::File(file),
                })
            }
            Backend::Postgres => {
                let server = self
                    .server
                    .as_ref()
                    .ok_or("PostgreSQL's scratch server is not running")?;
                let name = format!("bench_{n}");
                let url = server.database(&name)?;
                Ok(BenchStore {
                    backend,
                    location: url,
                    place: Place::Database {
                        backends: self,
                        name,
                    },
                })
            }
        }
    }

    /// CPU seconds the scratch server has used so far: its postmaster with the children it
    /// reaped (the connections' backends that ended), and the children alive now
    /// (checkpointer, WAL writer, open connections). `None` without a server, or when
    /// `/proc` does not tell.
    pub fn server_cpu(&self) -> Option<f64> {
        let mut client = self.admin().ok()?;
        let backend: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .ok()?
            .get(0);
        let postmaster = proc_stat(backend)?.parent;
        drop(client);
        let mut ticks = proc_stat(postmaster).map(|s| s.own + s.reaped)?;
        for entry in std::fs::read_dir("/proc").ok()?.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
                continue;
            };
            if let Some(stat) = proc_stat(pid).filter(|s| s.parent == postmaster) {
                ticks += stat.own;
            }
        }
        // SAFETY: sysconf takes no pointers.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        (per_second > 0).then(|| ticks as f64 / per_second as f64)
    }

    /// A connection to the scratch server's `postgres` database, to size and drop others.
    fn admin(&self) -> Result<postgres::Client, String> {
        let server = self.server.as_ref().ok_or("no scratch server")?;
        let url = server.database("postgres")?;
        postgres::Client::connect(&url, postgres::NoTls)
            .map_err(|e| format!("cannot reach the scratch server: {e}"))
    }
}

/// One measured store; removed when dropped (its mount must be gone by then).
pub struct BenchStore<'a> {
    pub backend: Backend,
    /// What `--store` takes: the file or the URL.
    pub location: String,
    place: Place<'a>,
}

enum Place<'a> {
    File(PathBuf),
    Database {
        backends: &'a Backends,
        name: String,
    },
}

impl BenchStore<'_> {
    /// Opens it in this process, as the mount and `homespace import` do.
    pub fn open(&self) -> Result<Store, String> {
        Location::parse(&self.location)
            .open()
            .map_err(|e| e.message)
    }

    /// Its size in bytes, and how that was measured.
    pub fn size(&self) -> Result<(u64, String), String> {
        match &self.place {
            Place::File(file) => {
                let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
                let (main, wal) = (len(file), len(&wal(file)));
                Ok((
                    main + wal,
                    format!("file {:.1} MiB + WAL {:.1} MiB", mib(main), mib(wal)),
                ))
            }
            Place::Database { backends, name } => {
                let mut client = backends.admin()?;
                let row = client
                    .query_one("SELECT pg_database_size($1::text)", &[name])
                    .map_err(|e| format!("pg_database_size: {e}"))?;
                let bytes: i64 = row.get(0);
                Ok((bytes.max(0) as u64, "pg_database_size".to_string()))
            }
        }
    }
}

impl Drop for BenchStore<'_> {
    fn drop(&mut self) {
        let removed = match &self.place {
            Place::File(file) => {
                for path in [file.clone(), wal(file), with_suffix(file, "-shm")] {
                    let _ = std::fs::remove_file(path);
                }
                Ok(())
            }
            // FORCE: a connection the mount's daemon left would otherwise keep it.
            Place::Database { backends, name } => backends.admin().and_then(|mut client| {
                client
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .map_err(|e| e.to_string())
            }),
        };
        if let Err(why) = removed {
            eprintln!(
                "homespace-bench: could not remove the store {}: {why}",
                self.location
            );
        }
    }
}

/// From `/proc/<pid>/stat`: the parent, CPU ticks of the process (user + system) and of
/// its children it waited for.
struct ProcStat {
    parent: i32,
    own: u64,
    reaped: u64,
}

fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let fields: Vec<&str> = text.get(text.rfind(')')? + 2..)?.split(' ').collect();
    // Field 3 (state) is index 0: ppid is field 4, utime..cstime are fields 14 to 17.
    let number = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some(ProcStat {
        parent: fields.get(1)?.parse().ok()?,
        own: number(11)? + number(12)?,
        reaped: number(13)? + number(14)?,
    })
}

fn wal(file: &Path) -> PathBuf {
    with_suffix(file, "-wal")
}

fn with_suffix(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Width of a side-by-side row's label.
const LABEL: usize = 44;

/// The header of side-by-side rows: a column per backend, the plain disk, and a ratio to
/// the plain disk per backend.
pub fn header(first: &str) {
    println!(
        "  {first:<LABEL$} {:>12} {:>12} {:>12} {:>9} {:>9}",
        "SQLite", "PostgreSQL", "plain disk", "SQLite÷", "PG÷"
    );
}

/// One side-by-side row: the figure on each backend's mount (`—` where not measured), on
/// the plain disk, and each ratio.
pub fn row(name: &str, mounts: [Option<Duration>; 2], plain: Option<Duration>) {
    let cell = |d: Option<Duration>| d.map_or("—".to_string(), fmt);
    let ratio = |d: Option<Duration>| match (d, plain) {
        (Some(d), Some(p)) => ratio(d, p),
        _ => String::new(),
    };
    println!(
        "  {name:<LABEL$} {:>12} {:>12} {:>12} {:>9} {:>9}",
        cell(mounts[0]),
        cell(mounts[1]),
        plain.map_or(String::new(), fmt),
        ratio(mounts[0]),
        ratio(mounts[1])
    );
}

/// A row of other figures, one per backend (sizes, rates, memory).
pub fn text_row(name: &str, figures: [Option<String>; 2], plain: Option<String>) {
    let cell = |f: Option<String>| f.unwrap_or_else(|| "—".to_string());
    println!(
        "  {name:<LABEL$} {:>12} {:>12} {:>12}",
        cell(figures[0].clone()),
        cell(figures[1].clone()),
        plain.unwrap_or_default()
    );
}

/// A duration as the tables show it: µs below a millisecond, ms below ten seconds.
pub fn fmt(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.1} µs", d.as_secs_f64() * 1e6)
    } else if d < Duration::from_secs(10) {
        format!("{:.2} ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `mount / plain` as the tables show it: two decimals below 1 (a mount faster than the
/// plain disk's grep would otherwise read 0.0x).
pub fn ratio(mount: Duration, plain: Duration) -> String {
    let r = mount.as_secs_f64() / plain.as_secs_f64().max(1e-9);
    if r < 1.0 {
        format!("{r:.2}x")
    } else {
        format!("{r:.1}x")
    }
}

/// Where two views first differ: `; line N: "…" vs "…"`.
pub fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let Some((n, (x, y))) = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    else {
        return String::new();
    };
    let cut = |l: &str| l.chars().take(60).collect::<String>();
    format!("; line {}: {:?} vs {:?}", n + 1, cut(x), cut(y))
}
