//! What a running daemon uses, read from `/proc/<pid>/status`.

/// A figure in KiB from the status of process `pid`: `VmRSS:` (resident memory now) or
/// `VmHWM:` (its peak so far).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_resident_memory() {
        assert!(status_kib(std::process::id(), "VmRSS:").is_some_and(|kib| kib > 0));
        assert_eq!(status_kib(std::process::id(), "NoSuchField:"), None);
    }
}
