//! The log of routed edits, this checkout's in the store: every change homespace makes to
//! a project file is recorded with the file's content before and after, shown as a unified
//! diff (`source/history/<n>.diff`, served by `history.rs`) and taken back by undo — where
//! the file still holds what the edit wrote, or at least the lines it changed; otherwise
//! undo refuses and says why, since reverting over later changes would lose them.
//!
//! A change is numbered 1, 2, 3 … in its checkout's history, whatever rows it took in
//! the store (one per file it touched, among other checkouts' rows): `<n>.diff`, `undo`
//! and the counts all speak of these numbers.

use std::path::PathBuf;
use std::sync::Arc;

use similar::TextDiff;

use crate::error::{Error, Result};
use crate::model::count::plural;
use crate::model::links::Links;
use crate::model::time::Time;
use crate::model::{Entry, Function, Ownership, Section};
use crate::python::index_module;
use crate::render::budget;
use crate::resources::source::edit::Editor;
use crate::resources::source::edit::change::ProjectChange;
use crate::resources::source::edit::importers::removed_names;
use crate::resources::source::edit::take_back::take_back;
use crate::store::Store;
use crate::store::edits::{Edit, EditLine};

/// Edits listed in the entry view (the rest are reachable by number).
const LISTED: usize = 30;

/// One checkout's log of routed edits: its records in the store, and what showing them
/// needs (where the project is, how links read, the size a view may have).
pub(crate) struct EditLog {
    store: Arc<Store>,
    /// Whose edits of the store are this checkout's (see [`crate::resources::source::checkout::key`]).
    checkout: String,
    root: PathBuf,
    links: Links,
    budget: usize,
}

impl EditLog {
    pub(crate) fn new(
        store: Arc<Store>,
        checkout: String,
        root: PathBuf,
        links: Links,
        budget: usize,
    ) -> Self {
        EditLog {
            store,
            checkout,
            root,
            links,
            budget,
        }
    }

    /// Whether this checkout has a change numbered `number`.
    pub(crate) fn exists(&self, number: i64) -> bool {
        self.id_of(number).is_ok()
    }

    /// Who may read the diff of change `number`: whoever may read the file it changed
    /// first, as that file is now; the owner alone when it is gone or the change is (its
    /// content may have been private).
    pub(crate) fn ownership(&self, number: i64) -> Ownership {
        match self.id_of(number).and_then(|id| self.edit(id)) {
            Ok(edit) => {
                crate::resources::source::disk::ownership(None, &self.root.join(&edit.path))
            }
            Err(_) => Ownership::OwnerOnly,
        }
    }

    /// The store's id of the edit that stands for this checkout's change `number`. The
    /// history numbers changes 1, 2, 3 … per checkout: the store's ids skip the other
    /// files of a change and other checkouts' edits.
    fn id_of(&self, number: i64) -> Result<i64> {
        self.store
            .records(|db| db.edits().change_numbered(&self.checkout, number))?
            .ok_or_else(|| {
                Error::not_found(format!(
                    "there is no edit {number}: {} lists them",
                    self.links.to("source/history/_entry.md")
                ))
            })
    }

    fn edit(&self, id: i64) -> Result<Edit> {
        self.store
            .records(|db| db.edits().get(&self.checkout, id))?
            .ok_or_else(|| {
                Error::not_found(format!(
                    "there is no edit {id}: {} lists them",
                    self.links.to("source/history/_entry.md")
                ))
            })
    }

    /// Record that homespace changed `file` (inside the project) from `before` to `after`.
    pub(crate) fn record(
        &self,
        file: &std::path::Path,
        what: &str,
        before: Option<&[u8]>,
        after: Option<&[u8]>,
        part_of: Option<i64>,
    ) -> Result<i64> {
        let rel = file
            .strip_prefix(&self.root)
            .unwrap_or(file)
            .display()
            .to_string();
        let at = Time::now();
        self.store.change_records(|db| {
            db.edits()
                .record(&self.checkout, at, &rel, what, before, after, part_of)
        })
    }

    /// The edits of change `number`: its first file's, then the other files it touched
    /// together, in order.
    pub(crate) fn change_of(&self, number: i64) -> Result<Vec<Edit>> {
        let first = self.edit(self.id_of(number)?)?;
        let parts = self
            .store
            .records(|db| db.edits().parts(&self.checkout, first.id))?;
        Ok(std::iter::once(first).chain(parts).collect())
    }

    /// The diff view of change `number`: one unified diff per file it touched.
    pub(crate) fn diff_view(&self, number: i64) -> Result<String> {
        let edits = self.change_of(number)?;
        let first = &edits[0];
        let paths: Vec<&str> = edits.iter().map(|e| e.path.as_str()).collect();
        let mut out = format!(
            "home > source > history > {number}.diff\n# edit {number} — {} ({}), {}\n",
            first.what,
            paths.join(", "),
            first.at
        );
        out.push_str(&format!(
            "Undo: echo {number} > {}\n\n",
            self.links.to("source/history/undo")
        ));
        for edit in &edits {
            let text = |bytes: &Option<Vec<u8>>| {
                String::from_utf8_lossy(bytes.as_deref().unwrap_or_default()).into_owned()
            };
            let (before, after) = (text(&edit.before), text(&edit.after));
            let diff = TextDiff::from_lines(&before, &after);
            let side = |held: bool, prefix: &str| match held {
                true => format!("{prefix}/{}", edit.path),
                false => "/dev/null".into(),
            };
            out.push_str(
                &diff
                    .unified_diff()
                    .context_radius(3)
                    .header(
                        &side(edit.before.is_some(), "a"),
                        &side(edit.after.is_some(), "b"),
                    )
                    .to_string(),
            );
        }
        let more = format!("cat {}", self.root.join(&first.path).display());
        Ok(budget::prune(&out, self.budget, &more))
    }

    /// The newest `n` changes as (number, time, files, what), and how many there are.
    pub(crate) fn newest(&self, n: usize) -> Result<(Vec<EditLine>, usize)> {
        self.store.records(|db| {
            let (rows, total) = db.edits().newest(&self.checkout, n)?;
            // Numbered from the newest's own number down: an edit recorded between the two
            // reads (another process on the store) cannot shift them.
            let newest = match rows.first() {
                Some(row) => db.edits().number_of_change(&self.checkout, row.0)?,
                None => 0,
            };
            let rows = rows
                .into_iter()
                .zip((1..=newest).rev())
                .map(|((_, at, path, what), number)| (number, at, path, what))
                .collect();
            Ok((rows, total))
        })
    }

    pub(crate) fn entry(&self) -> Result<Entry> {
        let (rows, total) = self.newest(LISTED)?;
        let undo = self.links.to("source/history/undo");
        Ok(Entry {
            title: format!(
                "source/history — {total} routed edit{} of the project",
                plural(total)
            ),
            about: vec!["Every change homespace made to the project's files, newest first.".into()],
            functions: vec![
                Function::new(
                    format!("cat {}", self.links.to("source/history/<n>.diff")),
                    "see one edit",
                    "its unified diff",
                ),
                Function::new(
                    format!("echo <n> > {undo}"),
                    "take edit n back",
                    "its lines as before n, later edits elsewhere kept (as `patch -R`)",
                ),
            ],
            sections: vec![Section {
                heading: "Edits".into(),
                table_header: Some("| n | time | file | what |".into()),
                items: rows
                    .iter()
                    .map(|(id, at, path, what)| format!("| `{id}.diff` | {at} | {path} | {what} |"))
                    .collect(),
                empty:
                    "No edits yet: write a module or symbol file under source/ and it shows here."
                        .into(),
                ..Section::default()
            }],
            advanced: vec!["Undo is itself an edit, so it can be undone too.".into()],
        })
    }
}

impl Editor {
    /// The modules to import before and after an undo takes Python file `file` from `now`
    /// back to `before` (`None`: the file goes): an undo is judged like any edit. The
    /// module itself when it stays, its package when it goes, and the modules that may
    /// import what it loses.
    fn undo_checks(
        &self,
        file: &std::path::Path,
        now: Option<&[u8]>,
        before: Option<&[u8]>,
    ) -> Vec<String> {
        if file.extension().is_none_or(|e| e != "py") {
            return Vec::new();
        }
        let Some(dotted) = self.dotted_of_file(file) else {
            return Vec::new();
        };
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let mut checks = Vec::new();
        let lost: std::collections::BTreeSet<String> = match (now, before) {
            (Some(now), Some(before)) => {
                checks.push(dotted.clone());
                removed_names(&index_module(&text(now)), &text(before))
            }
            (Some(_), None) => {
                let (package, stem) = match dotted.rsplit_once('.') {
                    Some((package, stem)) => (Some(package.to_string()), stem.to_string()),
                    None => (None, dotted.clone()),
                };
                checks.extend(package.filter(|_| stem != "__init__"));
                std::collections::BTreeSet::from([stem])
            }
            (None, _) => {
                checks.push(dotted.clone());
                std::collections::BTreeSet::new()
            }
        };
        checks.extend(self.importers_of(&dotted, file, &lost));
        checks
    }

    /// `echo <n> > source/history/undo`.
    pub(crate) fn undo(&self, content: &[u8]) -> Result<()> {
        let text = String::from_utf8_lossy(content);
        let id: i64 = text.trim().parse().map_err(|_| {
            Error::invalid(format!(
                "write the number of an edit to undo, e.g. `echo 3 > {}`; got {:?}",
                self.links.to("source/history/undo"),
                text.trim()
            ))
        })?;
        // Every file of the change, taken back in one change of its own.
        let edits = self.edits.change_of(id)?;
        let files: Vec<std::path::PathBuf> = edits
            .iter()
            .map(|e| self.project.root.join(&e.path))
            .collect();
        let paths: Vec<&std::path::Path> = files.iter().map(|f| f.as_path()).collect();
        let mut change = ProjectChange::begin(self, &paths)?;
        for (edit, file) in edits.iter().zip(&files) {
            let now = change.old(file)?.map(<[u8]>::to_vec);
            let what = format!("undo edit {id}");
            change.import_checks(self.undo_checks(file, now.as_deref(), edit.before.as_deref()));
            if now.as_deref() == edit.after.as_deref() {
                match &edit.before {
                    Some(before) => change.write(file, before.clone(), what)?,
                    None => change.delete(file, what)?,
                }
                continue;
            }
            // Changed since: the edit is taken back where it still applies, as
            // `git apply -R <n>.diff` would, keeping what came after it.
            let refused = |why: String| {
                Error::invalid(format!(
                    "edit {id} cannot be undone: {} {why}, and taking the edit back would lose \
                     that change. See {} for the later edits",
                    edit.path,
                    self.links.to("source/history/_entry.md")
                ))
            };
            let (Some(before), Some(after), Some(now)) = (&edit.before, &edit.after, &now) else {
                return Err(refused(
                    "changed since (by a later edit or outside homespace)".into(),
                ));
            };
            let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
            match take_back(&text(before), &text(after), &text(now)) {
                Ok(taken) => change.write(file, taken.into_bytes(), what)?,
                Err(lines) => {
                    let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    return Err(refused(format!(
                        "changed since at line{} {} (by a later edit or outside homespace), \
                         where the edit's lines are",
                        plural(lines.len()),
                        lines.join(", ")
                    )));
                }
            }
        }
        change.commit()?;
        // Undoing "create package" takes back the folder its __init__.py was made in, once
        // nothing else is in it.
        for (edit, file) in edits.iter().zip(&files) {
            if edit.before.is_none() && file.file_name().is_some_and(|n| n == "__init__.py") {
                self.remove_emptied_package(file);
            }
        }
        Ok(())
    }
}
