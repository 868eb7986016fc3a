//! `memory/tags/<tag>/` on a real mount: the folder lists the tagged entries as files an
//! agent can `cat` (the same bytes as the entry in its session, read-only there), and a tag
//! on more entries than are listed says how many are and where the rest are.

mod common;

use std::path::Path;
use std::process::Command;

use common::{BIN, Mount, succeed};

/// The example transcript: session `pairing-2025-11-03`, entries 1 (`export`, `csv`), 5
/// and 6 (`export`).
fn imported() -> Mount {
    let mount = Mount::example();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    succeed(
        Command::new(BIN)
            .arg("import")
            .arg("--store")
            .arg(&mount.store)
            .arg(fixture.join("generic.jsonl")),
    );
    mount
}

fn listed(mount: &Mount, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(mount.path(dir))
        .unwrap_or_else(|e| panic!("ls {dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('_'))
        .collect();
    names.sort();
    names
}

#[test]
fn a_tag_folder_lists_its_entries_as_files_that_read_as_the_entry() {
    let mount = imported();
    assert_eq!(
        listed(&mount, "memory/tags/export"),
        [
            "pairing-2025-11-03--0001.json",
            "pairing-2025-11-03--0005.json",
            "pairing-2025-11-03--0006.json"
        ]
    );
    assert_eq!(
        listed(&mount, "memory/tags/csv"),
        ["pairing-2025-11-03--0001.json"]
    );
    let (ok, out) = mount.sh(r#"S=$(echo "$HS"/memory/sessions/*/pairing-2025-11-03)
        cmp "$HS/memory/tags/csv/pairing-2025-11-03--0001.json" "$S/0001.json" && echo same"#);
    assert!(ok && out.contains("same"), "{out}");
    let read = mount.read("memory/tags/csv/pairing-2025-11-03--0001.json");
    assert!(read.contains("Add a CSV export"), "{read}");
    // An entry without the tag is not in its folder, by any name.
    assert!(
        !mount
            .path("memory/tags/csv/pairing-2025-11-03--0005.json")
            .exists()
    );
    // Retagging happens in the session: the tag folder's file is read-only.
    let (ok, out) = mount
        .sh(r#"echo '{}' > "$HS/memory/tags/csv/pairing-2025-11-03--0001.json" && echo written"#);
    assert!(!ok && !out.contains("written"), "{out}");
    // A tag taken off an entry in its session takes the file out of the tag's folder.
    let (ok, out) = mount.sh(
        r#"E=$(echo "$HS"/memory/sessions/*/pairing-2025-11-03/0005.json)
        sed -i -z 's/"tags": \[[^]]*\]/"tags": []/' "$E""#,
    );
    assert!(ok, "{out}");
    assert_eq!(
        listed(&mount, "memory/tags/export"),
        [
            "pairing-2025-11-03--0001.json",
            "pairing-2025-11-03--0006.json"
        ]
    );
}

#[test]
fn a_tag_on_many_entries_lists_the_newest_and_says_where_the_rest_are() {
    let mount = Mount::example();
    let transcript = mount.dir.path().join("many.jsonl");
    let lines: String = (1..=120)
        .map(|n| {
            format!(
                "{{\"session\": \"many\", \"role\": \"user\", \"content\": \"note {n}\", \
                 \"tags\": [\"bulk\"]}}\n"
            )
        })
        .collect();
    std::fs::write(&transcript, lines).unwrap();
    succeed(
        Command::new(BIN)
            .arg("import")
            .arg("--store")
            .arg(&mount.store)
            .arg(&transcript),
    );
    let names = listed(&mount, "memory/tags/bulk");
    assert_eq!(names.len(), 50, "{names:?}");
    assert!(names.contains(&"many--0120.json".to_string()), "{names:?}");
    let entry = mount.read("memory/tags/bulk/_entry.md");
    assert!(entry.contains("120 entries"), "{entry}");
    assert!(entry.contains("newest 50"), "{entry}");
    assert!(entry.contains("search/memory:tag:bulk"), "{entry}");
    // One listed no longer is still there to read.
    let oldest = mount.read("memory/tags/bulk/many--0001.json");
    assert!(oldest.contains("note 1\""), "{oldest}");
}
