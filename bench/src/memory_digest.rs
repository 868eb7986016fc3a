//! The cost of a session's digest at the million-entry store: for a sample of sessions
//! spread over the store, the median time to read a session's entries (the one statement a
//! digest makes) and to read them and compute the digest, in milliseconds per session —
//! the plain read is the baseline, the difference what the digest itself costs. Each
//! session is read once untimed first, so both figures are of cached pages.

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
        let read_once = || {
            let start = Instant::now();
            store
                .memory(|m| m.entries(row.rowid, 0, row.entries))
                .map_err(|e| e.message)
                .map(|rows| (rows, start.elapsed().as_secs_f64() * 1000.0))
        };
        // Read once before timing, so that both figures are of pages the store has cached.
        read_once()?;
        let (rows, reading) = read_once()?;
        let start = Instant::now();
        let digest = Digest::of(&rows, row.record.cwd.as_deref());
        let computing = start.elapsed().as_secs_f64() * 1000.0;
        std::hint::black_box(digest);
        entries = rows.len();
        read.push(reading);
        digested.push(reading + computing);
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
