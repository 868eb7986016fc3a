//! Hostile and careless input on a real mount (SPEC §10): modes that cannot be changed,
//! empty writes, editors' temp files that would eat the daemon's memory, and a seeded
//! storm of random operations with odd names and contents.

mod common;

use common::Mount;

#[test]
fn chmod_and_chown_are_applied_or_refused_never_pretended() {
    Mount::example().run_script("modes.sh");
}
