//! `memory/sessions/` within a glance (a listing with attributes, see `tree/glance.rs`): a
//! session and a run of its entries are read from the store once for all the entries the
//! listing shows, as they were at its first look.

use std::path::Path;
use std::sync::Arc;

use super::digest::SourcePlaces;
use super::sessions::Sessions;
use crate::model::Links;
use crate::store::memory::record::{Channel, Transcript};
use crate::store::memory::testing::{entry, session};
use crate::store::testing::for_each_backend;
use crate::tree::glance::glance;
use crate::tree::resource::Resource;

#[test]
fn a_listing_reads_a_sessions_entries_once() {
    for_each_backend(|store| {
        let entries = ["first", "second", "third"]
            .iter()
            .map(|text| entry(text, Channel::User, text))
            .collect();
        let sessions = vec![(session("s1", Some("2026-11-20T09:00:00Z"), "t"), entries)];
        store
            .change_memory(|m| m.import(&Transcript { sessions }))
            .unwrap();
        let rowid = store.memory(|m| m.session("s1")).unwrap().unwrap().rowid;
        let memory = Sessions::new(
            Arc::clone(&store),
            Links::new("/mnt/hs"),
            500,
            SourcePlaces::of(Path::new("/no-project")),
        );
        let dir = ["2026-11-20", "s1"];
        let names: Vec<String> = memory
            .names(&dir)
            .unwrap()
            .into_iter()
            .map(|n| n.0)
            .collect();
        let file = |n: usize| {
            names
                .iter()
                .filter(|n| n.ends_with(".json"))
                .nth(n)
                .unwrap()
        };
        let read = |n: usize| memory.read(&[dir[0], dir[1], file(n)]).unwrap();
        let second = read(1);

        let listing = glance();
        read(0);
        // Another mount tags the second entry meanwhile.
        store
            .change_memory(|m| m.set_tags(rowid, 2, &["seen".into()]))
            .unwrap();
        assert_eq!(read(1), second, "as the listing first found it");
        drop(listing);
        assert_ne!(read(1), second, "outside a glance, as it is");
        let _next = glance();
        assert_ne!(read(1), second, "the next glance looks again");
        assert!(
            memory.read(&[dir[0], dir[1], "9.json"]).is_err(),
            "no entry beyond the session's"
        );
    });
}
