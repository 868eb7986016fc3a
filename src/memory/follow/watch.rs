//! The inotify loop of live import: every folder under the places followed is watched, a
//! burst of events is gathered for a moment ([`SETTLE`]), and each transcript file that
//! changed is looked at once by the [`Follower`]. A place that does not exist yet is
//! waited for by watching the nearest folder above it that does; a folder made under a
//! place is watched and read at once (its files may be written before the watch is on).
//! An overflowing event queue makes every place read again, which stores nothing twice.
//!
//! Bound: what an agent appends is stored within [`SETTLE`] plus the time to read and
//! store it, and a change of the places ([`Watch::run`]'s `places`) applies within
//! [`RECHECK`].

use std::collections::{BTreeSet, HashMap};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::{Caught, Follower, WHOLE_AGAIN};
use crate::transcripts::opencode;
use crate::transcripts::places::Place;
use crate::transcripts::walk::is_transcript_name;

/// How long a burst of events is gathered before the files are read.
pub const SETTLE: Duration = Duration::from_millis(5);
/// How often the places are asked for again when nothing happens.
pub const RECHECK: Duration = Duration::from_secs(1);

/// What the loop tells its owner.
pub enum Event<'a> {
    /// The places are followed: `folders` watched, `files` read.
    Started { folders: usize, files: usize },
    /// `path` was looked at.
    Looked { path: &'a Path, caught: &'a Caught },
    /// A look at `path` failed (the store refused, the disk failed).
    Failed {
        path: &'a Path,
        error: &'a crate::error::Error,
    },
    /// Watching cannot go on.
    Stopped { why: String },
}

/// Following some places with one inotify instance.
pub struct Watch {
    follower: Follower,
    places: Vec<Place>,
    inotify: Option<Inotify>,
    /// Watched folders: under a place, or above a place that does not exist yet.
    folders: HashMap<WatchDescriptor, (PathBuf, Role)>,
    /// Files read whole that changed again too soon: looked at again shortly.
    deferred: BTreeSet<PathBuf>,
}

impl Watch {
    pub fn new(follower: Follower) -> Watch {
        Watch {
            follower,
            places: Vec::new(),
            inotify: None,
            folders: HashMap::new(),
            deferred: BTreeSet::new(),
        }
    }

    /// Follows what `places` says until it says nothing (`None`: stop) or watching
    /// fails; `places` is asked again every [`RECHECK`] and after every burst.
    pub fn run(
        &mut self,
        places: &mut dyn FnMut() -> Option<Vec<Place>>,
        report: &mut dyn FnMut(Event<'_>),
    ) {
        let mut buffer = vec![0u8; 64 * 1024];
        while let Some(wanted) = places() {
            if (wanted != self.places || self.inotify.is_none())
                && let Err(why) = self.start(wanted, report)
            {
                report(Event::Stopped { why });
                return;
            }
            let Some(inotify) = self.inotify.as_mut() else {
                return;
            };
            let wait = match self.deferred.is_empty() {
                true => RECHECK,
                false => WHOLE_AGAIN / 2,
            };
            if !readable(inotify, wait) {
                let again = std::mem::take(&mut self.deferred);
                self.look_all(again.into_iter().collect(), report);
                continue;
            }
            let mut burst = Burst::default();
            match inotify.read_events(&mut buffer) {
                Ok(events) => {
                    let events: Vec<Noted> = events.map(noted).collect();
                    self.gather(events, &mut burst);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => {
                    report(Event::Stopped {
                        why: format!("reading inotify events failed: {e}"),
                    });
                    return;
                }
            }
            std::thread::sleep(SETTLE);
            if let Some(inotify) = self.inotify.as_mut()
                && let Ok(events) = inotify.read_events(&mut buffer)
            {
                let events: Vec<Noted> = events.map(noted).collect();
                self.gather(events, &mut burst);
            }
            if burst.everything {
                let places = std::mem::take(&mut self.places);
                if let Err(why) = self.start(places, report) {
                    report(Event::Stopped { why });
                    return;
                }
                continue;
            }
            for folder in burst.new_folders {
                let files = self.add_tree(&folder);
                self.look_all(files, report);
            }
            let mut changed: Vec<PathBuf> = burst.changed.into_iter().collect();
            changed.extend(std::mem::take(&mut self.deferred));
            self.look_all(changed, report);
        }
    }

    /// Starts over with `places`: a new inotify instance, every folder watched, every
    /// file read.
    fn start(
        &mut self,
        places: Vec<Place>,
        report: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), String> {
        self.inotify = Some(Inotify::init().map_err(|e| format!("cannot start inotify: {e}"))?);
        self.folders.clear();
        self.places = places;
        let mut files = Vec::new();
        for place in self.places.clone() {
            if place.path.exists() {
                let watched = match place.path.is_dir() {
                    true => place.path.clone(),
                    false => place
                        .path
                        .parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_default(),
                };
                files.extend(
                    self.add_tree(&watched)
                        .into_iter()
                        .filter(|f| place.path.is_dir() || *f == place.path),
                );
            } else if let Some(above) = place.path.ancestors().skip(1).find(|a| a.is_dir()) {
                self.add_folder(above, Role::Above);
            }
        }
        report(Event::Started {
            folders: self.folders.len(),
            files: files.len(),
        });
        self.look_all(files, report);
        Ok(())
    }

    /// Watches `folder` and every folder under it (symbolic links are not followed);
    /// returns the transcript files found, in name order.
    fn add_tree(&mut self, folder: &Path) -> Vec<PathBuf> {
        self.add_folder(folder, Role::Inside);
        let mut files = Vec::new();
        let Ok(entries) = std::fs::read_dir(folder) else {
            return files;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && opencode::is_piece_folder(&entry.path()) {
                // OpenCode's messages and parts: watched, not read one by one (each reads
                // as its whole session, which its session file gives once).
                self.watch_tree(&entry.path());
            } else if kind.is_dir() {
                files.extend(self.add_tree(&entry.path()));
            } else if kind.is_file() && followed_name(&entry.path()) {
                files.push(entry.path());
            }
        }
        files
    }

    /// Watches `folder` and every folder under it, reading nothing.
    fn watch_tree(&mut self, folder: &Path) {
        self.add_folder(folder, Role::Inside);
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                self.watch_tree(&entry.path());
            }
        }
    }

    fn add_folder(&mut self, folder: &Path, role: Role) {
        let mask = WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::ONLYDIR;
        if let Some(inotify) = self.inotify.as_mut()
            && let Ok(wd) = inotify.watches().add(folder, mask)
        {
            self.folders.insert(wd, (folder.to_path_buf(), role));
        }
    }

    /// Notes what `events` say in `burst`.
    fn gather(&mut self, events: Vec<Noted>, burst: &mut Burst) {
        for (wd, mask, name) in events {
            if mask.contains(EventMask::Q_OVERFLOW) {
                burst.everything = true;
                continue;
            }
            let Some((folder, role)) = self.folders.get(&wd).cloned() else {
                continue;
            };
            if mask.contains(EventMask::IGNORED) {
                self.folders.remove(&wd);
                continue;
            }
            let Some(name) = name else {
                continue;
            };
            let path = folder.join(name);
            let on_the_way = self.places.iter().any(|p| p.path.starts_with(&path));
            if role == Role::Above || (mask.contains(EventMask::ISDIR) && on_the_way) {
                // A place, or a folder on the way to one, appeared or went.
                burst.everything |= on_the_way;
                continue;
            }
            if mask.contains(EventMask::ISDIR) {
                if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                    burst.new_folders.insert(path);
                }
                continue;
            }
            if mask.intersects(EventMask::DELETE | EventMask::MOVED_FROM) {
                self.follower.forget(&path);
                continue;
            }
            if self.place_of(&path).is_some() && followed_name(&path) {
                burst.changed.insert(path);
            }
        }
    }

    /// The place `path` is followed for.
    fn place_of(&self, path: &Path) -> Option<&Place> {
        self.places
            .iter()
            .find(|p| path == p.path || (path.starts_with(&p.path) && p.path.is_dir()))
    }

    /// Looks at each of `files`, reporting what each gave.
    fn look_all(&mut self, files: Vec<PathBuf>, report: &mut dyn FnMut(Event<'_>)) {
        for path in files {
            let place = self.place_of(&path);
            let only_under = place.and_then(|p| p.only_under.clone());
            // Read from below the place, never through a link put in one of its folders.
            let root = match place {
                Some(place) if place.path.is_dir() => place.path.clone(),
                _ => path.parent().map(Path::to_path_buf).unwrap_or_default(),
            };
            match self
                .follower
                .look_below(&root, &path, only_under.as_deref())
            {
                Ok(caught) => {
                    if caught.deferred {
                        self.deferred.insert(path.clone());
                    }
                    report(Event::Looked {
                        path: &path,
                        caught: &caught,
                    });
                }
                Err(error) => report(Event::Failed {
                    path: &path,
                    error: &error,
                }),
            }
        }
    }
}

/// Why a folder is watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// It is a place or lies under one: its transcripts are followed.
    Inside,
    /// It lies above a place that does not exist yet: only that place appearing matters.
    Above,
}

/// What one burst of events asks for.
#[derive(Default)]
struct Burst {
    changed: BTreeSet<PathBuf>,
    new_folders: BTreeSet<PathBuf>,
    /// Start over: the queue overflowed, or a place appeared or went.
    everything: bool,
}

/// Whether a file is one to look at: a transcript's name, or a piece of OpenCode's
/// storage (its database's log, a message or part file).
fn followed_name(path: &Path) -> bool {
    is_transcript_name(path) || opencode::reads(path)
}

/// Whether `inotify` has events within `timeout`.
fn readable(inotify: &Inotify, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd: inotify.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd, owned here, for the duration of the call.
    let ready = unsafe { libc::poll(&mut poll, 1, millis) };
    ready > 0
}

/// An event as read: its watch, what happened, and the name in the folder.
type Noted = (WatchDescriptor, EventMask, Option<std::ffi::OsString>);

fn noted(event: inotify::Event<&std::ffi::OsStr>) -> Noted {
    (event.wd, event.mask, event.name.map(ToOwned::to_owned))
}
