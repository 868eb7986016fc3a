//! `homespace status [MOUNTPOINT]`: the running mounts, each with its project, store,
//! daemon (pid, uptime, resident memory) and cache mode.

use std::path::Path;
use std::time::Duration;

use homespace::daemon::mounts::{self, RunningMount};

/// Print every running mount, or only the one at `mountpoint` (an error if there is none).
pub fn status(mountpoint: Option<&Path>) -> Result<(), String> {
    let mut all = mounts::running();
    if let Some(wanted) = mountpoint {
        let wanted = wanted
            .canonicalize()
            .unwrap_or_else(|_| wanted.to_path_buf());
        all.retain(|mount| mount.mountpoint == wanted);
        if all.is_empty() {
            return Err(format!(
                "{} is not a homespace mount; `homespace status` lists the running ones",
                wanted.display()
            ));
        }
    }
    if all.is_empty() {
        println!(
            "no homespace mounts are running; `homespace mount --project DIR MOUNTPOINT` starts one"
        );
    }
    for mount in &all {
        print!("{}", describe(mount));
    }
    Ok(())
}

fn describe(mount: &RunningMount) -> String {
    let mut text = format!("{}\n", mount.mountpoint.display());
    let Some(daemon) = &mount.daemon else {
        text.push_str(
            "  daemon   none: the mount is stale (its daemon died); `homespace mount` over it \
             replaces it, `homespace unmount` removes it\n",
        );
        return text;
    };
    let path = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map_or_else(|| "?".to_string(), |p| p.display().to_string())
    };
    text.push_str(&format!("  project  {}\n", path(&daemon.project)));
    text.push_str(&format!("  store    {}\n", path(&daemon.store)));
    let uptime = daemon.uptime.map_or_else(|| "?".to_string(), since);
    let rss = daemon.rss_kib.map_or_else(
        || "?".to_string(),
        |kib| format!("{:.1} MiB", kib as f64 / 1024.0),
    );
    text.push_str(&format!(
        "  daemon   pid {}, up {uptime}, {rss} resident\n",
        daemon.pid
    ));
    text.push_str(if daemon.cached {
        "  cache    kept by the kernel, invalidated on every change\n"
    } else {
        "  cache    off (--no-cache)\n"
    });
    if daemon.read_only {
        text.push_str("  writes   refused (--read-only)\n");
    }
    text
}

/// `42 s`, `17 min`, `3 h 5 min`, `2 days 4 h`.
fn since(elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..86400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        _ => format!("{} days {} h", s / 86400, s % 86400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptimes_read_as_a_person_says_them() {
        assert_eq!(since(Duration::from_secs(42)), "42 s");
        assert_eq!(since(Duration::from_secs(17 * 60 + 5)), "17 min");
        assert_eq!(since(Duration::from_secs(3 * 3600 + 5 * 60)), "3 h 5 min");
        assert_eq!(
            since(Duration::from_secs(2 * 86400 + 4 * 3600)),
            "2 days 4 h"
        );
    }
}
