//! The cost of a session's digest at the million-entry store: for a sample of sessions
//! spread over the store, the median time to read a session's entries (the one statement a
//! digest makes) and to read them and compute the digest, in milliseconds per session —
//! the plain read is the baseline, the difference what the digest itself costs.

use std::time::Instant;

use homespace::resources::memory::digest::Digest;
use homespace::store::Store;

/// Sessions sampled, spread evenly over the store.
const SAMPLE: u64 = 21;

/// Prints the median of the plain read and of the read with the digest over [`SAMPLE`]
/// sessions `gen-0` … of a store of `sessions` generated sessions.
pub fn digest_cost(store: &Store, sessions: u64) -> Result<(), String> {
    let step = (sessions / SAMPLE).max(1);
    let (mut read, mut digested) = (Vec::new(), Vec::new());
    let mut entries = 0;
    for n in (0..sessions).step_by(step as usize).take(SAMPLE as usize) {
        let id = format!("gen-{n}");
        let Some(row) = store.memory(|m| m.session(&id)).map_err(|e| e.message)? else {
            return Err(format!("no session {id} was stored"));
        };
        let start = Instant::now();
        let rows = store
            .memory(|m| m.entries(row.rowid, 0, row.entries))
            .map_err(|e| e.message)?;
        read.push(start.elapsed().as_secs_f64() * 1000.0);
        entries = rows.len();
        let start = Instant::now();
        let rows = store
            .memory(|m| m.entries(row.rowid, 0, row.entries))
            .map_err(|e| e.message)?;
        let digest = Digest::of(&rows, row.record.cwd.as_deref());
        digested.push(start.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box(digest);
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (read, digested) = (median(&mut read), median(&mut digested));
    println!(
        "  {:28} p50 {digested:7.2} ms per session of {entries} entries ({} sessions); reading them alone {read:7.2} ms",
        "digest",
        SAMPLE.min(sessions)
    );
    Ok(())
}
