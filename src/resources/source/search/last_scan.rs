//! The matching lines of the last `search/source:` query, kept for the next search of the
//! same query: one `cat` of a search view asks for it several times (its size, its open,
//! its read after the kernel drops a view that was read), and each would read the whole
//! project again. Kept only while nothing it read can have changed: the same file list
//! (`searched.rs` checks its folders) and no file's status changed since a moment before
//! the scan began — the change time, which no tool sets back, and with the same margin
//! for a file system's ticks as the list.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::resources::source::search::scan::Found;
use crate::resources::source::search::searched::{Files, RACY};
use crate::tree::lock;

/// The matching lines of one query.
#[derive(Clone)]
pub struct Scanned {
    /// The first `limit` in rank order.
    pub found: Vec<Found>,
    /// Every matching line.
    pub total: usize,
}

struct Kept {
    query: String,
    limit: usize,
    files: Arc<Files>,
    /// When the scan began, less the margin: a file changed after it makes this stale.
    since: SystemTime,
    scanned: Scanned,
}

/// The last query's matching lines.
#[derive(Default)]
pub struct LastScan(Mutex<Option<Kept>>);

impl LastScan {
    /// The ranked matching lines of `query` (the first `limit`) in `files`: kept, or
    /// scanned by `scan`.
    pub fn get(
        &self,
        query: &str,
        limit: usize,
        files: &Arc<Files>,
        scan: impl FnOnce() -> Scanned,
    ) -> Scanned {
        let kept = lock(&self.0).take();
        if let Some(kept) = kept
            && kept.query == query
            && limit <= kept.limit
            && Arc::ptr_eq(&kept.files, files)
            && unchanged_since(&files.paths, kept.since)
        {
            let mut scanned = kept.scanned.clone();
            scanned.found.truncate(limit);
            *lock(&self.0) = Some(kept);
            return scanned;
        }
        let since = SystemTime::now() - RACY;
        let scanned = scan();
        *lock(&self.0) = Some(Kept {
            query: query.to_string(),
            limit,
            files: Arc::clone(files),
            since,
            scanned: scanned.clone(),
        });
        scanned
    }
}

/// Whether no file of `paths` that still exists changed status after `since`.
fn unchanged_since(paths: &[PathBuf], since: SystemTime) -> bool {
    let Ok(since) = since.duration_since(UNIX_EPOCH) else {
        return false;
    };
    paths.iter().all(|path| match std::fs::metadata(path) {
        Ok(meta) => {
            let changed = Duration::new(
                u64::try_from(meta.ctime()).unwrap_or(0),
                u32::try_from(meta.ctime_nsec()).unwrap_or(0),
            );
            changed < since
        }
        // Gone since it was listed: its folder's time says so to the list.
        Err(_) => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: usize) -> Found {
        Found {
            file: 0,
            line,
            offset: 0,
            text: format!("line {line}"),
            definition: false,
            terms: 1,
        }
    }

    fn files(paths: Vec<PathBuf>) -> Arc<Files> {
        Arc::new(Files { paths, python: 0 })
    }

    #[test]
    fn the_same_query_is_read_once_until_a_file_changes() {
        let last = LastScan::default();
        let scans = std::cell::Cell::new(0);
        let scan = |limit: usize| {
            scans.set(scans.get() + 1);
            Scanned {
                found: (1..=limit).map(found).collect(),
                total: 100,
            }
        };
        let none = files(Vec::new());
        assert_eq!(last.get("debit", 20, &none, || scan(20)).found.len(), 20);
        let again = last.get("debit", 10, &none, || scan(10));
        assert_eq!((scans.get(), again.found.len(), again.total), (1, 10, 100));
        last.get("debit", 40, &none, || scan(40));
        last.get("credit", 20, &none, || scan(20));
        assert_eq!(scans.get(), 3, "a deeper page and another query are read");
        let other = files(Vec::new());
        last.get("credit", 20, &other, || scan(20));
        assert_eq!(scans.get(), 4, "another file list is read");

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ledger.py");
        std::fs::write(&file, "debit = 1\n").unwrap();
        let written = files(vec![file]);
        last.get("debit", 20, &written, || scan(20));
        last.get("debit", 20, &written, || scan(20));
        assert_eq!(scans.get(), 6, "a file changed a moment ago is read again");
    }
}
