//! The views of `source/` as a user meets them, through the resourcespace.

use std::sync::Arc;

use crate::model::Links;
use crate::resources::source::Source;
use crate::store::Store;
use crate::tree::resource::ReadNow;
use crate::tree::resource::Resource;

#[test]
fn the_dashboards_say_how_far_indexing_is_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("calc.py"),
        "def add(a, b):\n    return a + b\n",
    )
    .unwrap();
    let store = Arc::new(Store::in_memory().unwrap());
    let source = Source::new(dir.path(), "demo".into(), Links::new("/mnt/hs"), store, 500);
    source.indexing.pretend(Some((1234, 3456)));
    let root = source.root_part().unwrap();
    assert!(
        root.state
            .contains(&"Source: indexing 1,234 of 3,456 modules".to_string())
    );
    let entry = source.entry_now(&[]).unwrap();
    let said = "Source: indexing 1,234 of 3,456 modules in the background.";
    assert!(
        entry.about.iter().any(|line| line == said),
        "{:?}",
        entry.about
    );

    source.indexing.pretend(None);
    assert!(
        !source
            .root_part()
            .unwrap()
            .state
            .iter()
            .any(|l| l.contains("indexing"))
    );
    let entry = source.entry_now(&[]).unwrap();
    assert!(!entry.about.iter().any(|line| line.contains("indexing")));
}
