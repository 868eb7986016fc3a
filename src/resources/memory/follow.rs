//! Memory keeping itself: while the tree is mounted, the transcripts of the agents working
//! on the project are followed ([`crate::memory::follow`]) — the places
//! `source/meta/settings.toml`'s `[memory] watch` names, asked again as it changes — and
//! what they add shows in `memory/` without any command. A bad line or a file that cannot
//! be read is logged once in `_errors.md` (and `memory/_entry.md` for a few minutes); a
//! file set aside (not the owner's own regular file: a link, a fifo, another user's) is
//! logged so too, and `memory/_entry.md` counts those set aside and names the latest; files
//! passed over (other JSON, another project's rollouts) only in the daemon log.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::Error;
use crate::memory::follow::watch::{Event, Watch};
use crate::memory::follow::{Caught, Follower};
use crate::model::TreePath;
use crate::model::count::{one_or_many, plural};
use crate::model::time::Time;
use crate::store::Store;
use crate::transcripts::places::{Watching, places};
use crate::tree::lock;
use crate::tree::resource::Outside;

/// The setting in force: `None` once the tree is gone (following then stops).
pub type Setting = Arc<dyn Fn() -> Option<Watching> + Send + Sync>;

/// What memory follows for one project.
#[derive(Clone)]
pub struct Following {
    /// The project's folder (absolute): it names its agents' folders.
    pub project: PathBuf,
    pub setting: Setting,
    /// What following is doing, for `memory/_entry.md`.
    pub status: Arc<Mutex<Status>>,
}

/// What following is doing, as `memory/_entry.md` says it.
#[derive(Debug, Default)]
pub struct Status {
    /// Whether it runs (only a mount follows).
    pub running: bool,
    /// The places followed.
    pub places: Vec<PathBuf>,
    /// The latest look that stored something: when, how many entries, from which file.
    pub last: Option<(Time, usize, PathBuf)>,
    /// Files set aside (not the owner's own regular files, or unreadable), the latest
    /// last, at most `SET_ASIDE_KEPT`; one read again leaves the list.
    pub set_aside: Vec<PathBuf>,
}

/// Files set aside that [`Status`] keeps by name (the count says more).
const SET_ASIDE_KEPT: usize = 20;

impl Status {
    /// One line for `memory/_entry.md`.
    pub fn line(&self) -> String {
        if !self.running {
            return "Not following transcripts here: a mount follows its agents' folders as \
                    they write ([memory] watch in source/meta/settings.toml)."
                .into();
        }
        if self.places.is_empty() {
            return "Following no transcript folders ([memory] watch is off in \
                    source/meta/settings.toml)."
                .into();
        }
        // The places that exist, by name; the others (agents not used here) counted.
        let (here, waiting): (Vec<&PathBuf>, Vec<&PathBuf>) =
            self.places.iter().partition(|p| p.exists());
        let mut line = match here.len() {
            0 => "Following transcripts as agents write: no agent's folder for this project \
                  exists yet"
                .to_string(),
            _ => format!(
                "Following transcripts as agents write: {}",
                here.iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if !waiting.is_empty() {
            line.push_str(&format!(
                " ({} more place{} watched until made)",
                waiting.len(),
                plural(waiting.len())
            ));
        }
        if let Some((at, entries, _)) = &self.last {
            line.push_str(&format!("; last import {at}, {entries} entries"));
        }
        if let Some(latest) = self.set_aside.last() {
            let n = self.set_aside.len();
            line.push_str(&format!(
                "; {n}{} file{} set aside, not read (the latest: {}) — why in _errors.md",
                if n == SET_ASIDE_KEPT { "+" } else { "" },
                plural(n),
                shown(latest)
            ));
        }
        line.push('.');
        line
    }
}

/// Follow on a thread of its own until the setting says the tree is gone.
pub fn start(store: Arc<Store>, following: Following, outside: Outside) {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let spawned = std::thread::Builder::new()
        .name("follow transcripts".into())
        .spawn(move || {
            let mut watch = Watch::new(Follower::new(store));
            let Following {
                project,
                setting,
                status,
            } = following;
            lock(&status).running = true;
            watch.run(
                &mut || {
                    let places = places(&setting()?, &project, &home);
                    lock(&status).places = places.iter().map(|p| p.path.clone()).collect();
                    Some(places)
                },
                &mut |event| report(&outside, &status, event),
            );
        });
    if let Err(e) = spawned {
        crate::log::line(&format!("cannot follow the agents' transcripts: {e}"));
    }
}

/// Where failures of following are logged: memory's import folder.
fn logged_at() -> TreePath {
    TreePath::parse("memory/import")
}

fn report(outside: &Outside, status: &Mutex<Status>, event: Event<'_>) {
    match event {
        Event::Started { folders, files } => {
            crate::log::line(&format!(
                "memory: following {folders} transcript folder{} ({files} file{})",
                plural(folders),
                plural(files)
            ));
        }
        Event::Looked { path, caught } => {
            let mut status = lock(status);
            if caught.imported.entries > 0 {
                status.last = Some((Time::now(), caught.imported.entries, path.into()));
            }
            if caught.unreadable.is_some() {
                status.set_aside.retain(|p| p != path);
                if status.set_aside.len() == SET_ASIDE_KEPT {
                    status.set_aside.remove(0);
                }
                status.set_aside.push(path.into());
            } else if caught.imported.entries > 0 || caught.imported.skipped > 0 {
                status.set_aside.retain(|p| p != path);
            }
            drop(status);
            looked(outside, path, caught);
        }
        Event::Failed { path, error } => (outside.failed)(
            "import",
            &logged_at(),
            &Error::new(
                error.kind,
                format!("following {}: {}", shown(path), error.message),
            ),
        ),
        Event::Stopped { why } => {
            crate::log::line(&format!("memory: stopped following transcripts: {why}"))
        }
    }
}

fn looked(outside: &Outside, path: &Path, caught: &Caught) {
    let imported = caught.imported;
    if imported.entries > 0 || imported.sessions > 0 {
        crate::log::line(&format!(
            "memory: {} new entr{} from {}",
            imported.entries,
            one_or_many(imported.entries, "y", "ies"),
            shown(path)
        ));
        (outside.changes)(vec![TreePath::parse("memory")]);
    }
    if let Some(bad) = &caught.bad {
        (outside.failed)(
            "import",
            &logged_at(),
            &Error::invalid(format!(
                "{}: {bad}; the other lines were imported, and a bad line is not read again",
                shown(path)
            )),
        );
    }
    if let Some(why) = &caught.unreadable {
        (outside.failed)(
            "import",
            &logged_at(),
            &Error::invalid(format!("{} is set aside, not imported: {why}", shown(path))),
        );
    }
    if let Some(why) = &caught.passed_over {
        crate::log::line(&format!("memory: passed over {}: {why}", shown(path)));
    }
}

/// A followed file's path as views and the log show it: its name is whatever was written
/// in the folder, so it is inert like a transcript's text.
fn shown(path: &Path) -> String {
    format!("`{}`", crate::render::inert::code(&path.to_string_lossy()))
}
