//! The running homespace mounts, as `homespace status` shows them: each mount in the mount
//! table with the daemon serving it (found by its command line) and what that daemon was
//! asked (project, store, cache mode) and costs (uptime, resident memory).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// One mount of the mount table whose file system is homespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningMount {
    pub mountpoint: PathBuf,
    /// `None` when no process serves it any more (a stale mount).
    pub daemon: Option<Daemon>,
}

/// The process serving a mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Daemon {
    pub pid: i32,
    pub project: Option<PathBuf>,
    pub store: Option<PathBuf>,
    /// Whether the kernel keeps what it reads (no `--no-cache`).
    pub cached: bool,
    /// Mounted with `--read-only`.
    pub read_only: bool,
    pub uptime: Option<Duration>,
    pub rss_kib: Option<u64>,
}

/// Every homespace mount of this mount namespace, in mount-table order.
pub fn running() -> Vec<RunningMount> {
    let table = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let source = fields.next()?;
            let at = fields.next()?;
            let kind = fields.next()?;
            (source == "homespace" && kind.starts_with("fuse"))
                .then(|| crate::daemon::mount::unescape(at))
        })
        .map(|mountpoint| RunningMount {
            daemon: daemon_of(&mountpoint),
            mountpoint,
        })
        .collect()
}

fn daemon_of(mountpoint: &Path) -> Option<Daemon> {
    let pid = crate::daemon::mount::daemon_pid(mountpoint)?;
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let args: Vec<String> = std::fs::read(proc.join("cmdline"))
        .ok()?
        .split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|at| args.get(at + 1))
            .map(PathBuf::from)
    };
    Some(Daemon {
        pid,
        project: value_of("--project"),
        store: value_of("--store"),
        cached: !args.iter().any(|a| a == "--no-cache"),
        read_only: args.iter().any(|a| a == "--read-only"),
        uptime: uptime(&proc),
        rss_kib: rss_kib(&proc),
    })
}

/// Since when the process runs: its start time (clock ticks after boot) against the
/// system's uptime.
fn uptime(proc: &Path) -> Option<Duration> {
    let stat = std::fs::read_to_string(proc.join("stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let start_ticks: u64 = after_name.split(' ').nth(19)?.parse().ok()?;
    // SAFETY: sysconf has no memory effects.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks_per_second = u64::try_from(ticks_per_second).ok().filter(|&t| t > 0)?;
    let boot = std::fs::read_to_string("/proc/uptime").ok()?;
    let since_boot: f64 = boot.split(' ').next()?.parse().ok()?;
    let started = start_ticks as f64 / ticks_per_second as f64;
    Some(Duration::from_secs_f64((since_boot - started).max(0.0)))
}

fn rss_kib(proc: &Path) -> Option<u64> {
    let status = std::fs::read_to_string(proc.join("status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_an_uptime_and_a_resident_size() {
        let me = Path::new("/proc/self");
        assert!(uptime(me).is_some_and(|u| u < Duration::from_secs(24 * 3600 * 365)));
        assert!(rss_kib(me).is_some_and(|kib| kib > 0));
    }
}
