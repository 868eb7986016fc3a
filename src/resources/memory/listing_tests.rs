//! `memory/sessions/` within a glance (see `tree/glance.rs`). In a listing with
//! attributes, a session and a run of its entries are read from the store once for all
//! the entries the listing shows, as they were at its first look; in a lookup, the one
//! entry asked for is read with its session once for the stat and the read that sizes it.

use std::path::Path;
use std::sync::Arc;

use super::digest::SourcePlaces;
use super::sessions::Sessions;
use crate::model::Links;
use crate::model::transcript::{Channel, Transcript};
use crate::store::Store;
use crate::store::memory::testing::{entry, session};
use crate::store::testing::for_each_backend;
use crate::tree::glance::Glance;
use crate::tree::resource::ReadNow;
use crate::tree::resource::Resource;

/// `memory/sessions/` over `store`, holding session s1 of 2026-11-20 with an entry of each
/// of `texts`: the resource, the session's number and its entry files' names in order.
fn sessions_holding(store: &Arc<Store>, texts: &[&str]) -> (Sessions, i64, Vec<String>) {
    let entries = (texts.iter())
        .map(|text| entry(text, Channel::User, text))
        .collect();
    let sessions = vec![(session("s1", Some("2026-11-20T09:00:00Z"), "t"), entries)];
    store
        .change_memory(|m| m.import(&Transcript { sessions }))
        .unwrap();
    let rowid = store.memory(|m| m.session("s1")).unwrap().unwrap().rowid;
    let memory = Sessions::new(
        Arc::clone(store),
        Links::new("/mnt/hs"),
        500,
        SourcePlaces::of(Path::new("/no-project")),
    );
    let names = (memory.names_now(&["2026-11-20", "s1"]).unwrap().into_iter())
        .map(|n| n.0)
        .filter(|n| n.ends_with(".json"))
        .collect();
    (memory, rowid, names)
}

#[test]
fn a_listing_reads_a_sessions_entries_once() {
    for_each_backend(|store| {
        let (memory, rowid, names) = sessions_holding(&store, &["first", "second", "third"]);
        let dir = ["2026-11-20", "s1"];
        let read_in =
            |glance: &Glance, n: usize| memory.read(glance, &[dir[0], dir[1], &names[n]]).unwrap();
        let read = |n: usize| read_in(&Glance::new(), n);
        let second = read(1);

        let listed = Glance::listing();
        read_in(&listed, 0);
        // Another mount tags the second entry meanwhile.
        store
            .change_memory(|m| m.set_tags(rowid, 2, &["seen".into()]))
            .unwrap();
        assert_eq!(read_in(&listed, 1), second, "as the listing first found it");
        drop(listed);
        assert_ne!(read(1), second, "outside a glance, as it is");
        let next = Glance::listing();
        assert_ne!(read_in(&next, 1), second, "the next glance looks again");
        assert!(
            memory.read_now(&[dir[0], dir[1], "9.json"]).is_err(),
            "no entry beyond the session's"
        );
    });
}

#[test]
fn a_lookup_reads_the_entry_it_asks_for_once_and_no_other() {
    for_each_backend(|store| {
        let (memory, rowid, names) = sessions_holding(&store, &["first", "second"]);
        let path = |n: usize| ["2026-11-20", "s1", names[n].as_str()];
        let first = memory.read_now(&path(0)).unwrap();

        let lookup = Glance::new();
        assert!(memory.stat(&lookup, &path(0)).is_ok());
        // Another mount tags both entries between the lookup's stat and its read.
        store
            .change_memory(|m| {
                m.set_tags(rowid, 1, &["seen".into()])?;
                m.set_tags(rowid, 2, &["seen".into()])
            })
            .unwrap();
        assert_eq!(
            memory.read(&lookup, &path(0)).unwrap(),
            first,
            "read as its stat found it"
        );
        let now = String::from_utf8(memory.read(&lookup, &path(1)).unwrap()).unwrap();
        assert!(
            now.contains("\"seq\": 2") && now.contains("second") && now.contains("seen"),
            "no other entry kept from the first one's read: {now}"
        );
        assert!(
            memory
                .stat(&lookup, &["2026-11-20", "s1", &names[1].replace('2', "3")])
                .is_err(),
            "no entry beyond the session's"
        );
        assert!(
            memory
                .stat(&lookup, &["2026-11-21", "s1", &names[0]])
                .is_err(),
            "nor on another day"
        );
        drop(lookup);
        assert_ne!(
            memory.read_now(&path(0)).unwrap(),
            first,
            "outside a glance, as it is"
        );
    });
}
