//! Figures of time as the benchmark prints them, and the page cache dropped so a run can
//! start cold.

use std::process::Command;
use std::time::Duration;

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `d` to read: microseconds below one millisecond, else milliseconds to a tenth.
pub fn fmt_ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.0} µs", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.1} ms", ms(d))
    }
}

/// Whether this process may drop the page cache (root only).
pub fn can_drop_caches() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .is_ok()
}

/// Drop the page cache, dentries and inodes, written data first: what a cold run starts
/// from. Whether it was done.
pub fn drop_caches() -> bool {
    let synced = Command::new("sync").status().is_ok_and(|s| s.success());
    synced && std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_times_read_in_microseconds_and_longer_ones_in_milliseconds() {
        assert_eq!(fmt_ms(Duration::from_micros(250)), "250 µs");
        assert_eq!(fmt_ms(Duration::from_micros(12_340)), "12.3 ms");
        assert_eq!(ms(Duration::from_millis(3)), 3.0);
    }
}
