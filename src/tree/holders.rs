//! Whether a process still holds a file of the mount open, read from `/proc/<pid>/fd`.
//!
//! FUSE sends a flush for every `close`, but says nothing of whether it was the process's
//! last descriptor of the file. Shells open a file, duplicate the descriptor and close the
//! original before writing (`echo x > f`), so a flush with nothing written may be followed
//! by the content — or may be all there is (`: > f`, `cp /dev/null f`, Python's
//! `open(f, "w").close()`). Looking at the closing process's descriptors tells the two
//! apart: if none of them is the file any more, the content is complete, and saving (or
//! refusing) it now lets the `close` report the outcome. Reading a descriptor's link asks
//! the kernel for a path, never this file system, so it cannot wait on the mount.

use std::path::Path;

/// Whether process `pid` holds a descriptor of the file at `path` (absolute, as the
/// process sees the mount). `None` when it cannot be told (no such process, or its
/// descriptors are not ours to read): callers then assume it may.
pub fn holds(pid: u32, path: &str) -> Option<bool> {
    let fds = std::fs::read_dir(Path::new("/proc").join(pid.to_string()).join("fd")).ok()?;
    let mut held = false;
    for fd in fds {
        let fd = fd.ok()?;
        if std::fs::read_link(fd.path()).is_ok_and(|target| target == Path::new(path)) {
            held = true;
            break;
        }
    }
    Some(held)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_this_process_holding_a_file_and_letting_it_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.txt");
        let file = std::fs::File::create(&path).unwrap();
        let me = std::process::id();
        let name = path.to_str().unwrap();
        assert_eq!(holds(me, name), Some(true));
        drop(file);
        assert_eq!(holds(me, name), Some(false));
        assert_eq!(holds(u32::MAX, name), None, "no such process");
    }
}
