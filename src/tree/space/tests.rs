//! The tree without FUSE: a small writable resource (notes that must not be empty) under a
//! `Space`, driven through the same calls the kernel makes for `echo >`, `sed -i`, vim and
//! friends. Checks validation at close, temp files in memory, renames, and panics.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, ErrorKind, Result};
use crate::model::links::Links;
use crate::model::{Child, Fh, Ino, Kind, Node, TreePath};
use crate::model::{Entry, Section};
use crate::tree::access::Caller;
use crate::tree::glance::Glance;
use crate::tree::glance::Memo;
use crate::tree::inodes::ROOT;
use crate::tree::kernel_cache::CacheMode;
use crate::tree::resource::ReadNow;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};
use crate::tree::{
    AccessRequest, AttrRequest, CreateRequest, DirEntry, FlushRequest, LookupRequest, OpenFlags,
    OpenRequest, Opened, ProjectInfo, ReadDirRequest, ReadRequest, RemoveRequest, RenameRequest,
    SetattrRequest, Space, guarded, lock,
};

/// The mount's owner: this process's user, as the tests call in-process.
fn me() -> Caller {
    Caller::this_process()
}

/// The owner calling from process `pid`.
fn by(pid: u32) -> Caller {
    Caller {
        pid,
        ..Caller::this_process()
    }
}

/// `notes/`: text files that must be non-empty and must not contain "bad".
#[derive(Default)]
struct Notes {
    files: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl Resource for Notes {
    fn name(&self) -> &'static str {
        "notes"
    }

    fn summary(&self) -> Result<String> {
        Ok(format!("{} notes", lock(&self.files).len()))
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(true)),
            ["boom"] => panic!("a bug in a resource"),
            // A view over the clock, as a search with `since:7d` is.
            ["this-week"] => Ok(Node::view().dated(true)),
            ["everything", _] => Ok(Node::view()),
            [name] if lock(&self.files).contains_key(*name) => Ok(Node::document(true)),
            _ => Err(Error::not_found(format!("no note {}", path.join("/")))),
        }
    }

    fn list(&self, _glance: &Glance, _path: &[&str]) -> Result<Vec<Child>> {
        Ok(lock(&self.files)
            .keys()
            .map(|k| Child::new(k, Kind::Document, "a note"))
            .collect())
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        if path == ["this-week"] {
            return Ok(b"what was said this week\n".to_vec());
        }
        // A view, and a document, of 400 items: far over any budget.
        if let ["everything", _] = path {
            let items: String = (1..=400).map(|n| format!("- note {n}\n")).collect();
            return Ok(format!("notes\nall of them\n\n{items}").into_bytes());
        }
        lock(&self.files)
            .get(path.join("/").as_str())
            .cloned()
            .ok_or_else(|| Error::not_found("gone"))
    }

    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry> {
        Ok(Entry {
            title: "notes".into(),
            sections: vec![Section::children(
                "Notes",
                &self.list(glance, path)?,
                "none",
            )],
            ..Entry::default()
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for Notes {
    fn can_create(&self, path: &[&str]) -> Result<()> {
        match path {
            [name] if name.ends_with(".txt") => Ok(()),
            _ => Err(Error::invalid("notes are called <name>.txt")),
        }
    }

    fn write(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        let mut problems = Vec::new();
        if content.is_empty() {
            problems.push("- the note is empty");
        }
        if content.windows(3).any(|w| w == b"bad") {
            problems.push("- the note says bad");
        }
        if !problems.is_empty() {
            return Err(Error::invalid(format!(
                "{} was not saved:\n{}",
                path.join("/"),
                problems.join("\n")
            )));
        }
        lock(&self.files).insert(path.join("/"), content.to_vec());
        Ok(())
    }

    fn remove(&self, path: &[&str]) -> Result<()> {
        lock(&self.files)
            .remove(path.join("/").as_str())
            .map(|_| ())
            .ok_or_else(|| Error::not_found("gone"))
    }

    fn rename(&self, from: &[&str], to: &[&str]) -> Result<()> {
        if !to.last().is_some_and(|name| name.ends_with(".txt")) {
            return Err(Error::invalid("notes are called <name>.txt"));
        }
        let mut files = lock(&self.files);
        let content = files
            .remove(from.join("/").as_str())
            .ok_or_else(|| Error::not_found("gone"))?;
        files.insert(to.join("/"), content);
        Ok(())
    }
}

fn space() -> (Space, Arc<Notes>) {
    let notes = Arc::new(Notes::default());
    notes.write(&["a.txt"], b"first\n", None).unwrap();
    (space_of(notes.clone()), notes)
}

/// A space of project `demo` with one resource of notes: for the tests of its parts.
pub(super) fn plain_space() -> Space {
    space().0
}

/// A space of project `demo` whose one resource is `resource`.
fn space_of(resource: Arc<dyn Resource>) -> Space {
    let project = ProjectInfo {
        name: "demo".into(),
        path: "/demo".into(),
        store: None,
    };
    Space::new(Links::new("/mnt/hs"), 500, project, vec![resource])
}

const WRITE: OpenFlags = OpenFlags {
    write: true,
    truncate: true,
    append: false,
};

fn dir(space: &Space) -> Ino {
    space.lookup(LookupRequest::new(ROOT, "notes")).unwrap().ino
}

/// Note `name` looked up and opened with `flags` by the owner, as a shell opens it.
fn open_note(space: &Space, name: &str, flags: OpenFlags) -> Fh {
    let ino = space
        .lookup(LookupRequest::new(dir(space), name))
        .unwrap()
        .ino;
    space
        .open(OpenRequest::new(ino, flags, me()))
        .and_then(Opened::fh)
        .unwrap()
}

#[test]
fn a_view_over_the_clock_is_never_kept_by_the_kernel() {
    let (space, _) = space();
    let notes = dir(&space);
    assert!(
        space
            .lookup(LookupRequest::new(notes, "a.txt"))
            .unwrap()
            .cacheable
    );
    // No change announces midnight: what `since:7d` finds must be asked for every time.
    assert!(
        !space
            .lookup(LookupRequest::new(notes, "this-week"))
            .unwrap()
            .cacheable
    );
}

#[test]
fn echo_into_a_new_file_saves_at_close() {
    let (space, notes) = space();
    let (attr, fh) = space
        .create(CreateRequest::new(dir(&space), "b.txt", me()))
        .unwrap();
    assert_eq!(attr.kind, Kind::Document);
    space.write(fh, 0, b"hello ").unwrap();
    space.write(fh, 6, b"world\n").unwrap();
    assert!(
        notes.read_now(&["b.txt"]).is_err(),
        "nothing is saved before close"
    );
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    assert_eq!(notes.read_now(&["b.txt"]).unwrap(), b"hello world\n");
}

#[test]
fn a_rejected_write_keeps_the_old_content_and_says_why() {
    let (space, notes) = space();
    let fh = open_note(&space, "a.txt", WRITE);
    space.write(fh, 0, b"this is bad").unwrap();
    let error = space.flush(FlushRequest::new(fh)).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
    space.release(fh);
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"first\n");
    let log = String::from_utf8(space.content(&TreePath::parse("_errors.md")).unwrap()).unwrap();
    assert!(
        log.contains("write /mnt/hs/notes/a.txt: a.txt was not saved:"),
        "{log}"
    );
    assert!(log.contains("the note says bad"), "{log}");
    let entry = String::from_utf8(space.render_path(&TreePath::parse("notes")).unwrap()).unwrap();
    assert!(entry.starts_with("> Last error here"), "{entry}");
}

#[test]
fn a_new_document_that_is_rejected_vanishes() {
    let (space, notes) = space();
    let (_, fh) = space
        .create(CreateRequest::new(dir(&space), "c.txt", me()))
        .unwrap();
    assert!(
        space
            .lookup(LookupRequest::new(dir(&space), "c.txt"))
            .is_ok(),
        "visible while being written"
    );
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    assert!(
        space
            .lookup(LookupRequest::new(dir(&space), "c.txt"))
            .is_err()
    );
    assert!(notes.read_now(&["c.txt"]).is_err());
    let log = space.errors.newest_first();
    assert!(
        log.iter()
            .any(|f| f.op == "write" && f.message.contains("the note is empty")),
        "touch of a new note says why it vanished: {log:?}"
    );
}

#[test]
fn a_shell_closing_a_duplicate_before_writing_saves_once() {
    // bash: open(O_CREAT|O_TRUNC), dup2 to stdout, close the original, write, close.
    let (space, notes) = space();
    let fh = open_note(&space, "a.txt", WRITE);
    space.flush(FlushRequest::new(fh)).unwrap();
    space.write(fh, 0, b"replaced\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"replaced\n");
    assert!(
        space.errors.newest_first().is_empty(),
        "{:?}",
        space.errors.newest_first()
    );
}

#[test]
fn truncating_to_empty_without_writing_is_validated_at_release() {
    let (space, notes) = space();
    let fh = open_note(&space, "a.txt", WRITE);
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    assert_eq!(
        notes.read_now(&["a.txt"]).unwrap(),
        b"first\n",
        ": > a.txt is refused"
    );
    assert!(
        space.errors.newest_first()[0]
            .message
            .contains("the note is empty")
    );
}

#[test]
fn sed_writes_a_temp_file_and_renames_it_over_the_document() {
    let (space, notes) = space();
    let notes_dir = dir(&space);
    let (_, fh) = space
        .create(CreateRequest::new(notes_dir, "sedX1y2Z3", me()).exclusive())
        .unwrap();
    space.write(fh, 0, b"second\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    assert_eq!(
        notes.read_now(&["a.txt"]).unwrap(),
        b"first\n",
        "temp files never reach the resource"
    );
    space
        .rename(RenameRequest::within(notes_dir, "sedX1y2Z3", "a.txt", me()))
        .unwrap();
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"second\n");
    assert!(
        space
            .lookup(LookupRequest::new(notes_dir, "sedX1y2Z3"))
            .is_err(),
        "the temp file is gone"
    );
}

#[test]
fn renaming_an_invalid_temp_file_over_a_document_is_refused() {
    let (space, notes) = space();
    let notes_dir = dir(&space);
    let (_, fh) = space
        .create(CreateRequest::new(notes_dir, "sedAAAAAA", me()).exclusive())
        .unwrap();
    space.write(fh, 0, b"bad\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    let error = space
        .rename(RenameRequest::within(notes_dir, "sedAAAAAA", "a.txt", me()))
        .unwrap_err();
    assert_eq!(error.errno(), libc::EINVAL);
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"first\n");
}

#[test]
fn a_refused_move_of_a_document_is_not_permitted_never_invalid() {
    // mv prints EINVAL from rename(2) as "cannot move … to a subdirectory of itself".
    let (space, notes) = space();
    let notes_dir = dir(&space);
    let error = space
        .rename(RenameRequest::within(notes_dir, "a.txt", "a.md", me()))
        .unwrap_err();
    assert_eq!(error.errno(), libc::EPERM);
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"first\n");
    let log = String::from_utf8(space.content(&TreePath::parse("_errors.md")).unwrap()).unwrap();
    assert!(log.contains("notes are called <name>.txt"), "{log}");
}

#[test]
fn vim_backup_by_rename_keeps_the_document() {
    let (space, notes) = space();
    let notes_dir = dir(&space);
    space
        .rename(RenameRequest::within(notes_dir, "a.txt", "a.txt~", me()))
        .unwrap();
    assert_eq!(
        notes.read_now(&["a.txt"]).unwrap(),
        b"first\n",
        "the document stays for the rewrite"
    );
    let (_, fh) = space
        .create(CreateRequest::new(notes_dir, "a.txt", me()))
        .unwrap();
    space.write(fh, 0, b"edited\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    space
        .remove(RemoveRequest::file(notes_dir, "a.txt~", me()))
        .unwrap();
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"edited\n");
    let names: Vec<String> = space
        .read_dir(ReadDirRequest::new(notes_dir))
        .unwrap()
        .into_iter()
        .map(|(_, e)| e.name)
        .collect();
    assert!(!names.contains(&"a.txt~".to_string()), "{names:?}");
}

#[test]
fn append_adds_to_the_end() {
    let (space, notes) = space();
    let ino = space
        .lookup(LookupRequest::new(dir(&space), "a.txt"))
        .unwrap()
        .ino;
    let fh = space
        .open(OpenRequest::new(
            ino,
            OpenFlags {
                write: true,
                truncate: false,
                append: true,
            },
            me(),
        ))
        .and_then(Opened::fh)
        .unwrap();
    space.write(fh, 0, b"second\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"first\nsecond\n");
}

#[test]
fn truncate_without_open_is_validated() {
    let (space, notes) = space();
    let ino = space
        .lookup(LookupRequest::new(dir(&space), "a.txt"))
        .unwrap()
        .ino;
    assert_eq!(
        space
            .setattr(SetattrRequest::new(ino, me()).size(0))
            .unwrap_err()
            .kind,
        ErrorKind::Invalid
    );
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"first\n");
    assert_eq!(
        space
            .setattr(SetattrRequest::new(ino, me()).size(3))
            .unwrap()
            .size,
        3
    );
    assert_eq!(notes.read_now(&["a.txt"]).unwrap(), b"fir");
}

#[test]
fn names_that_cannot_be_documents_are_refused_at_create() {
    let (space, _) = space();
    let error = space
        .create(CreateRequest::new(dir(&space), "notes.md", me()))
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
    assert!(
        space.errors.newest_first()[0]
            .message
            .contains("<name>.txt")
    );
}

#[test]
fn views_cannot_be_written_or_removed() {
    let (space, _) = space();
    let entry = space
        .lookup(LookupRequest::new(dir(&space), "_entry.md"))
        .unwrap();
    assert_eq!(
        space
            .open(OpenRequest::new(entry.ino, WRITE, me()))
            .and_then(Opened::fh)
            .unwrap_err()
            .errno(),
        libc::EROFS
    );
    assert_eq!(
        space
            .remove(RemoveRequest::file(dir(&space), "_nav.txt", me()))
            .unwrap_err()
            .errno(),
        libc::EROFS
    );
}

#[test]
fn stat_size_matches_what_a_read_returns() {
    let (space, _) = space();
    for name in ["_entry.md", "_nav.txt", "a.txt"] {
        let attr = space.lookup(LookupRequest::new(dir(&space), name)).unwrap();
        let fh = space
            .open(OpenRequest::new(attr.ino, OpenFlags::default(), me()))
            .and_then(Opened::fh)
            .unwrap();
        let read = space
            .read(ReadRequest::new(attr.ino, 0, 1 << 20).through(fh))
            .unwrap();
        assert_eq!(attr.size as usize, read.len(), "{name}");
    }
}

#[test]
fn a_typo_gets_a_suggestion_and_probes_do_not() {
    let (space, _) = space();
    assert_eq!(
        space
            .lookup(LookupRequest::new(ROOT, "note"))
            .unwrap_err()
            .kind,
        ErrorKind::NotFound
    );
    space.examine_misses(&Glance::new());
    let log = space.errors.newest_first();
    assert_eq!(log.len(), 1);
    assert!(
        log[0].message.contains("Did you mean /mnt/hs/notes/?"),
        "{}",
        log[0].message
    );
    assert!(space.lookup(LookupRequest::new(ROOT, ".notes")).is_err());
    assert!(
        space
            .lookup(LookupRequest::new(dir(&space), "a.txt.swp"))
            .is_err()
    );
    space.examine_misses(&Glance::new());
    assert_eq!(
        space.errors.newest_first().len(),
        1,
        "probes are not logged"
    );
}

#[test]
fn a_panic_fails_one_request_and_the_tree_keeps_working() {
    let (space, _) = space();
    let notes_dir = dir(&space);
    let result = guarded("lookup", || {
        space.lookup(LookupRequest::new(notes_dir, "boom"))
    });
    assert_eq!(result.unwrap_err().errno(), libc::EIO);
    assert!(
        space.lookup(LookupRequest::new(notes_dir, "a.txt")).is_ok(),
        "later requests still work"
    );
}

#[test]
fn inode_numbers_are_stable_per_path() {
    let (space, _) = space();
    let a = space
        .lookup(LookupRequest::new(dir(&space), "a.txt"))
        .unwrap()
        .ino;
    let listed: Vec<DirEntry> = (space.read_dir(ReadDirRequest::new(dir(&space))).unwrap())
        .into_iter()
        .map(|(_, entry)| entry)
        .collect();
    assert_eq!(
        listed.iter().find(|e| e.name == "a.txt").map(|e| e.ino),
        Some(a)
    );
    assert_eq!(
        space
            .lookup(LookupRequest::new(dir(&space), "a.txt"))
            .unwrap()
            .ino,
        a
    );
}

#[test]
fn a_miss_before_a_create_is_no_typo() {
    let (space, _) = space();
    assert!(
        space
            .lookup(LookupRequest::new(dir(&space), "b.txt"))
            .is_err(),
        "the shell looks the name up first"
    );
    let (_, fh) = space
        .create(CreateRequest::new(dir(&space), "b.txt", me()))
        .unwrap();
    space.write(fh, 0, b"new\n").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    space.release(fh);
    let log = String::from_utf8(space.content(&TreePath::parse("_errors.md")).unwrap()).unwrap();
    assert!(!log.contains("Did you mean"), "{log}");
}

/// Process 1 opens `a.txt` ("first\n") to read; process 2 then saves "a longer note\n"
/// over it. Returns the file's inode and the reader's handle, still open.
fn read_while_another_writes(space: &Space) -> (Ino, Fh) {
    let ino = space
        .lookup(LookupRequest::new(dir(space), "a.txt"))
        .unwrap()
        .ino;
    let reader = space
        .open(OpenRequest::new(ino, OpenFlags::default(), by(1)))
        .and_then(Opened::fh)
        .unwrap();
    let writer = space
        .open(OpenRequest::new(ino, WRITE, by(2)))
        .and_then(Opened::fh)
        .unwrap();
    space.write(writer, 0, b"a longer note\n").unwrap();
    space.flush(FlushRequest::new(writer)).unwrap();
    space.release(writer);
    (ino, reader)
}

#[test]
fn without_cache_a_reader_holding_a_file_open_does_not_change_what_others_stat() {
    let (space, _) = space();
    let space = space.with_cache(CacheMode::Off);
    let (ino, reader) = read_while_another_writes(&space);
    assert_eq!(
        space.getattr(AttrRequest::new(ino).by(1)).unwrap().size,
        6,
        "the reader's own stat matches its read"
    );
    assert_eq!(
        space.getattr(AttrRequest::new(ino).by(3)).unwrap().size,
        14,
        "another process sees the file as it is"
    );
    space.release(reader);
}

#[test]
fn with_cache_a_reader_stats_the_file_as_the_kernel_keeps_it() {
    // The kernel answers `stat` from what it keeps, for every process alike; the reader's
    // `fstat` must not disagree with it (editors compare the two).
    let (space, _) = space();
    let (ino, reader) = read_while_another_writes(&space);
    let path = space.getattr(AttrRequest::new(ino).by(3)).unwrap();
    assert_eq!(path.size, 14);
    assert_eq!(
        space
            .getattr(AttrRequest::new(ino).through(reader).by(1))
            .unwrap(),
        path
    );
    space.release(reader);
}

#[test]
fn files_held_in_memory_are_bounded() {
    let (space, _) = space();
    let notes_dir = dir(&space);
    let mut made = 0;
    let refused = loop {
        match space
            .create(CreateRequest::new(notes_dir, &format!(".tmp{made}.swp"), me()).exclusive())
        {
            Ok((_, fh)) => space.release(fh),
            Err(e) => break e,
        }
        made += 1;
        assert!(made < 10_000, "no limit");
    };
    assert_eq!(refused.errno(), libc::ENOSPC);
    space
        .remove(RemoveRequest::file(notes_dir, ".tmp0.swp", me()))
        .unwrap();
    assert!(
        space
            .create(CreateRequest::new(notes_dir, "again.swp", me()).exclusive())
            .is_ok(),
        "room again after a remove"
    );
}

#[test]
fn a_temp_file_whose_write_failed_does_not_stay_to_count_toward_the_limit() {
    let (space, _) = space();
    let notes_dir = dir(&space);
    let (_, fh) = space
        .create(CreateRequest::new(notes_dir, ".big.swp", me()).exclusive())
        .unwrap();
    let too_far = crate::tree::open_files::MAX_DOCUMENT as u64;
    assert_eq!(
        space.write(fh, too_far, b"x").unwrap_err().errno(),
        libc::EFBIG
    );
    assert_eq!(
        space.flush(FlushRequest::new(fh)).unwrap_err().errno(),
        libc::EFBIG
    );
    space.release(fh);
    assert!(
        !space
            .names(&TreePath::parse("notes"))
            .unwrap()
            .iter()
            .any(|(n, _)| n == ".big.swp"),
        "the failed temp file is gone"
    );
    // One that holds what was written before stays, as on any file system.
    let (_, fh) = space
        .create(CreateRequest::new(notes_dir, ".kept.swp", me()).exclusive())
        .unwrap();
    space.write(fh, 0, b"draft").unwrap();
    space.flush(FlushRequest::new(fh)).unwrap();
    let _ = space.write(fh, too_far, b"x");
    space.release(fh);
    assert!(
        space
            .names(&TreePath::parse("notes"))
            .unwrap()
            .iter()
            .any(|(n, _)| n == ".kept.swp")
    );
}

#[test]
fn test_w_says_no_on_views_and_yes_on_documents() {
    let (space, _) = space();
    let entry = space
        .lookup(LookupRequest::new(dir(&space), "_entry.md"))
        .unwrap();
    let note = space
        .lookup(LookupRequest::new(dir(&space), "a.txt"))
        .unwrap();
    assert_eq!(
        space
            .access(AccessRequest::write(entry.ino))
            .unwrap_err()
            .errno(),
        libc::EACCES
    );
    assert!(space.access(AccessRequest::new(entry.ino)).is_ok());
    assert!(space.access(AccessRequest::write(note.ino)).is_ok());
}

#[test]
fn an_open_file_reports_what_it_holds_and_others_see_the_path() {
    let (space, _) = space();
    let note = space
        .lookup(LookupRequest::new(dir(&space), "a.txt"))
        .unwrap();
    let fh = space
        .open(OpenRequest::new(note.ino, WRITE, me()))
        .and_then(Opened::fh)
        .unwrap();
    space.write(fh, 0, b"a longer note than before\n").unwrap();
    let through_handle = space
        .getattr(AttrRequest::new(note.ino).through(fh))
        .unwrap();
    let by_path = space.getattr(AttrRequest::new(note.ino)).unwrap();
    assert_eq!(through_handle.size, 26, "the handle's own buffer");
    assert_eq!(by_path.size, 6, "the saved note, \"first\\n\"");
    space.release(fh);
}

/// `rows/`: files a store holds, each looked at once per glance (a round trip each to a
/// remote store), counting the looks.
#[derive(Default)]
struct Rows {
    looks: AtomicUsize,
    looked: Memo<String, Vec<u8>>,
}

impl Rows {
    fn look(&self, glance: &Glance, name: &str) -> Result<Arc<Vec<u8>>> {
        self.looked.get(glance, name.to_string(), || {
            self.looks.fetch_add(1, Ordering::SeqCst);
            Ok(format!("row {name}\n").into_bytes())
        })
    }
}

impl Resource for Rows {
    fn name(&self) -> &'static str {
        "rows"
    }
    fn summary(&self) -> Result<String> {
        Ok("rows".into())
    }
    fn stat(&self, glance: &Glance, path: &[&str]) -> Result<Node> {
        match path {
            [] => Ok(Node::dir(false)),
            // Never kept by the kernel: every open asks again.
            [name] => (self.look(glance, name)).map(|_| Node::document(false).dated(true)),
            _ => Err(Error::not_found("no such row")),
        }
    }
    fn list(&self, _glance: &Glance, _path: &[&str]) -> Result<Vec<Child>> {
        Ok(vec![Child::new("r1", Kind::Document, "a row")])
    }
    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        Ok(self.look(glance, &path.join("/"))?.to_vec())
    }
    fn entry(&self, glance: &Glance, path: &[&str]) -> Result<Entry> {
        Ok(Entry {
            title: "rows".into(),
            sections: vec![Section::children("Rows", &self.list(glance, path)?, "none")],
            ..Entry::default()
        })
    }
}

/// A `cat` of a file the kernel may not keep (a row that changes with the clock, or any
/// file with `--no-cache`): the lookup stats it and reads it to size it, the open that
/// follows takes what the lookup read, a later open finds it and reads it again. Each
/// looks at the row once: one round trip to a remote store, not two.
#[test]
fn a_lookup_and_an_open_each_look_at_a_file_once() {
    let rows = Arc::new(Rows::default());
    let space = space_of(rows.clone());
    let dir = space.lookup(LookupRequest::new(ROOT, "rows")).unwrap().ino;
    let looks = || rows.looks.load(Ordering::SeqCst);
    let ino = space.lookup(LookupRequest::new(dir, "r1")).unwrap().ino;
    assert_eq!(looks(), 1, "the lookup's stat and size share one look");
    let fh = space
        .open(OpenRequest::new(ino, OpenFlags::default(), me()))
        .and_then(Opened::fh)
        .unwrap();
    assert_eq!(looks(), 1, "the open just after takes what the lookup read");
    space.release(fh);
    let fh = space
        .open(OpenRequest::new(ino, OpenFlags::default(), me()))
        .and_then(Opened::fh)
        .unwrap();
    assert_eq!(
        looks(),
        2,
        "a later open's place and content share one look"
    );
    assert_eq!(
        space
            .read(ReadRequest::new(ino, 0, 100).through(fh))
            .unwrap(),
        b"row r1\n"
    );
    space.release(fh);
    assert_eq!(space.getattr(AttrRequest::new(ino)).unwrap().size, 7);
    assert_eq!(looks(), 3, "a stat looks once");
}

#[test]
fn every_view_is_held_to_the_budget_by_the_tree_whoever_made_it() {
    let (space, notes) = space();
    let long: String = (1..=400).map(|n| format!("- note {n}\n")).collect();
    notes.write(&["long.txt"], long.as_bytes(), None).unwrap();
    let view = space
        .content(&TreePath::parse("notes/everything/list"))
        .unwrap();
    let view = String::from_utf8(view).unwrap();
    assert!(
        crate::render::budget::tokens(&view) <= 500,
        "{} tokens",
        crate::render::budget::tokens(&view)
    );
    assert!(
        view.starts_with("notes\nall of them\n\n- note 1\n"),
        "{view}"
    );
    assert!(
        view.contains("[pruned: 400 -> ") && view.contains("more: ls /mnt/hs/notes/everything/"),
        "{view}"
    );
    // A document is the file itself, however long; a view read through an open file is
    // held to the budget as well.
    assert_eq!(
        space.content(&TreePath::parse("notes/long.txt")).unwrap(),
        long.as_bytes()
    );
    let read = |path: &str| {
        let ino = space.ino_of(&TreePath::parse(path));
        let fh = space
            .open(OpenRequest::new(ino, OpenFlags::default(), me()))
            .and_then(Opened::fh)
            .unwrap();
        let bytes = space
            .read(ReadRequest::new(ino, 0, 1 << 20).through(fh))
            .unwrap();
        space.release(fh);
        bytes
    };
    assert!(
        String::from_utf8(read("notes/everything/list"))
            .unwrap()
            .contains("[pruned:")
    );
    assert_eq!(read("notes/long.txt"), long.as_bytes());
}
