//! A private PostgreSQL server in a temporary directory, for the tests and the benchmark:
//! `initdb`, then `pg_ctl` on a free port of 127.0.0.1, as an unprivileged user (PostgreSQL
//! refuses to run as root; as root, the `postgres` user Debian's package makes is used).
//! Never a system service: each server is made, stopped, restarted and removed by its
//! owner, so a test can take the database away mid-run and bring it back.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The user a server runs as when this process is root.
const SERVER_USER: &str = "postgres";

/// Ports tried after the first when another server took it first.
const PORT_TRIES: usize = 5;

/// A running (or stopped) private server; removed, data and all, when dropped.
pub struct ScratchServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// `runuser -u postgres --` when root, nothing otherwise.
    as_user: Vec<String>,
}

impl ScratchServer {
    /// Make a new cluster and start it. Fails with what to install or what went wrong.
    pub fn start() -> Result<ScratchServer, String> {
        ScratchServer::start_on(free_port()?)
    }

    /// [`ScratchServer::start`], trying `port` first.
    fn start_on(port: u16) -> Result<ScratchServer, String> {
        let bin = binaries()?;
        let root = unsafe { libc::geteuid() } == 0;
        let dir = tempfile::Builder::new()
            .prefix("homespace-pg-")
            .tempdir()
            .map_err(|e| format!("cannot make a directory for PostgreSQL: {e}"))?;
        let as_user = if root {
            run(
                Command::new("chown").arg(SERVER_USER).arg(dir.path()),
                "chown",
            )?;
            vec![
                "runuser".into(),
                "-u".into(),
                SERVER_USER.into(),
                "--".into(),
            ]
        } else {
            Vec::new()
        };
        let mut server = ScratchServer {
            port,
            dir,
            bin,
            as_user,
        };
        server.command("initdb", |c| {
            c.arg("-D")
                .arg(server.data())
                .args(["-U", "homespace", "-A", "trust", "-E", "UTF8", "--no-sync"])
                .arg("--locale=C.UTF-8");
        })?;
        // The free port was let go for the server to take: another test's server starting
        // at the same moment may take it first. Then another port is tried.
        let mut tries = 0;
        loop {
            match server.resume() {
                Ok(()) => return Ok(server),
                Err(why) if tries < PORT_TRIES && why.contains("Address already in use") => {
                    tries += 1;
                    server.port = free_port()?;
                }
                Err(why) => return Err(why),
            }
        }
    }

    /// The URL of database `name` on this server (made if it does not exist yet).
    pub fn database(&self, name: &str) -> Result<String, String> {
        let admin = format!("postgres://homespace@127.0.0.1:{}/postgres", self.port);
        let mut client = postgres::Client::connect(&admin, postgres::NoTls)
            .map_err(|e| format!("cannot reach the scratch server: {e}"))?;
        let exists = client
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .map_err(|e| e.to_string())?
            .is_some();
        if !exists {
            // A database name is an identifier, not a parameter: quote it.
            let quoted = format!("\"{}\"", name.replace('"', "\"\""));
            client
                .batch_execute(&format!("CREATE DATABASE {quoted}"))
                .map_err(|e| format!("cannot create database {name}: {e}"))?;
        }
        Ok(format!(
            "postgres://homespace@127.0.0.1:{}/{name}",
            self.port
        ))
    }

    /// Stop the server now (connections are cut, as in an outage); [`Self::resume`]
    /// starts it again on the same port with the same data.
    pub fn stop(&self) -> Result<(), String> {
        self.stop_as("immediate")
    }

    /// Stop the server as an administrator does (`pg_ctl stop`'s default, fast mode): open
    /// connections are told it is shutting down (SQLSTATE 57P01) before they close.
    pub fn shut_down(&self) -> Result<(), String> {
        self.stop_as("fast")
    }

    fn stop_as(&self, mode: &str) -> Result<(), String> {
        self.command("pg_ctl", |c| {
            c.arg("-D")
                .arg(self.data())
                .args(["-m", mode, "-w", "stop"]);
        })
    }

    /// Start the stopped server again and wait until it accepts connections.
    pub fn resume(&self) -> Result<(), String> {
        let options = format!(
            // fsync off: a scratch server's data need not outlive the machine, only a
            // stop of the server (commits still reach the operating system).
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
            self.port,
            self.dir.path().display()
        );
        self.command("pg_ctl", |c| {
            c.arg("-D")
                .arg(self.data())
                .arg("-l")
                .arg(self.dir.path().join("server.log"))
                .args(["-o", &options, "-w", "start"]);
        })
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Run the server program `program` as the server's user.
    fn command(&self, program: &str, args: impl FnOnce(&mut Command)) -> Result<(), String> {
        let path = self.bin.join(program);
        let mut command = match self.as_user.split_first() {
            Some((runuser, rest)) => {
                let mut c = Command::new(runuser);
                c.args(rest).arg(&path);
                c
            }
            None => Command::new(&path),
        };
        // The server's user may not be allowed into this process's directory.
        command.current_dir(self.dir.path());
        args(&mut command);
        run(&mut command, program).map(drop).map_err(|e| {
            let log =
                std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
            format!("{e}\n{log}")
        })
    }
}

impl Drop for ScratchServer {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The directory with `initdb` and `pg_ctl`: on PATH, else the newest of Debian's
/// `/usr/lib/postgresql/<version>/bin`.
fn binaries() -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file());
    if let Some(dir) = on_path {
        // Debian links them into /usr/local/bin here and there; the real ones sit together.
        let real = std::fs::canonicalize(dir.join("initdb")).ok();
        return Ok(real
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed: \
         apt-get install postgresql"
            .to_string()
    })
}

/// A port of 127.0.0.1 nobody listens on now.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn run(command: &mut Command, what: &str) -> Result<Output, String> {
    let out = command
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_server_starts_stops_and_comes_back_with_its_data() {
        let server = ScratchServer::start().unwrap();
        let url = server.database("scratch_test").unwrap();
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .batch_execute("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
            .unwrap();
        server.stop().unwrap();
        assert!(
            client.query_one("SELECT 1", &[]).is_err(),
            "the server is down"
        );
        server.resume().unwrap();
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let x: i32 = client.query_one("SELECT x FROM kept", &[]).unwrap().get(0);
        assert_eq!(x, 7);
    }

    /// The race of two tests starting servers at once: the port one found free is taken
    /// by the other before its server binds it.
    #[test]
    fn a_port_taken_before_the_server_binds_it_is_exchanged_for_another() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let server = ScratchServer::start_on(port).unwrap();
        assert_ne!(server.port(), port);
        let url = server.database("moved_test").unwrap();
        assert!(postgres::Client::connect(&url, postgres::NoTls).is_ok());
    }
}
