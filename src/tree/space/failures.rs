//! Failures the user must hear of: changes refused to other users, failed operations
//! (logged to `_errors.md`, their directory's entry view and the daemon log), and lookups of
//! missing names turned into "Did you mean" once the log is read.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::model::clock::Clock as SystemTime;
use crate::model::names;
use crate::model::{Child, Failure, Kind, TreePath};
use crate::tree::Space;
use crate::tree::access::{Admission, Caller};
use crate::tree::glance::Glance;
use crate::tree::resource::ResourceExt;

impl Space {
    /// Admit a change by `caller` to `path`, or refuse it (logged) when only the owner may
    /// change things; see [`crate::tree::access`].
    pub(crate) fn admit(&self, caller: Caller, op: &str, path: &TreePath) -> Result<Admission> {
        let admitted = self.access.admit(caller, &self.links.to(path.as_str()));
        match &admitted {
            // Another user refused: logged once per user and operation, counted, at the
            // root — an `rm -rf` of theirs must not push the owner's own failures out of
            // `_errors.md` (the caller still hears which path was refused, and why).
            Err(refused) if caller.uid != self.access.owner => {
                let coalesced = Error::new(
                    refused.kind,
                    format!(
                        "uid {} tried to {op} here and was refused: only the mount's owner (uid \
                         {}) may change files (--allow-other-write would let others)",
                        caller.uid, self.access.owner
                    ),
                );
                let now = SystemTime::now();
                self.errors.record_folded(Failure {
                    at: now,
                    op: op.to_string(),
                    path: self.links.to(""),
                    dir: String::new(),
                    message: coalesced.message,
                    repeats: 0,
                    first: now,
                    quotes: Vec::new(),
                });
                self.failed_in("");
                admitted
            }
            _ => self.logged(op, path, admitted),
        }
    }

    /// Note a lookup of a missing `path` for a later "Did you mean", unless the name is a
    /// probe that tools make on their own.
    pub(super) fn suggest(&self, path: &TreePath, missing: Error) -> Error {
        if path.name().is_some_and(|name| !names::is_probe(name)) {
            self.errors.missed(path.clone());
            // Examined when the error log or an entry view is rendered next.
            if let Some(dir) = path.parent() {
                self.failed_in(dir.as_str());
            }
        }
        missing
    }

    /// Turn the lookups of missing names noted since last time into "Did you mean" errors
    /// where a name close to the missing one exists (and the missing one still does not).
    /// Called before the error log is shown.
    pub(crate) fn examine_misses(&self, glance: &Glance) {
        let mut listings: HashMap<TreePath, Vec<Child>> = HashMap::new();
        let misses = self.errors.take_misses();
        if misses.is_empty() {
            return;
        }
        let failures = self.errors.newest_first();
        for miss in misses {
            let (Some(name), Some(parent)) = (miss.path.name(), miss.path.parent()) else {
                continue;
            };
            if self.stat_in(glance, &miss.path).is_ok() {
                continue;
            }
            // A tool's look around its own failed operation on the same path (mv looks the
            // target up before renaming) is no typo, and must not hide the real failure.
            let shown = self.links.to(self.shown(glance, &miss.path).as_str());
            let after_failure = failures.iter().any(|f| {
                f.op != "lookup"
                    && f.path == shown
                    && miss
                        .at
                        .duration_since(f.at)
                        .or_else(|e| Ok::<_, ()>(e.duration()))
                        .is_ok_and(|d| d.as_secs() < 5)
            });
            if after_failure {
                continue;
            }
            let meant = self
                .place_in_resource(&miss.path)
                .ok()
                .and_then(|(resource, rest)| resource.meant(&rest))
                .and_then(|meant| {
                    let kind = self.stat_in(glance, &parent.join(&meant)).ok()?.kind;
                    Some((meant, kind))
                });
            let closest = || {
                let children = listings
                    .entry(parent.clone())
                    .or_insert_with(|| self.list_in(glance, &parent).unwrap_or_default());
                children
                    .iter()
                    .map(|c| (strsim::jaro_winkler(name, &c.name), c))
                    .filter(|(score, _)| *score >= 0.85)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    // The name itself listed: it was made between the miss and this look
                    // (another mount's create arriving), so there was no typo.
                    .filter(|(_, child)| child.name != *name)
                    .map(|(_, child)| (child.name.clone(), child.kind))
            };
            let Some((meant, kind)) = meant.or_else(closest) else {
                continue;
            };
            // Named as listed: `ledger/accounts/x`, not where its link leads.
            let target = self.shown(glance, &parent).join(&meant);
            let suggestion = if matches!(kind, Kind::Dir | Kind::Link) {
                self.links.dir(&target.names().collect::<Vec<_>>())
            } else {
                self.links.to(target.as_str())
            };
            self.errors.record(Failure {
                at: miss.at,
                op: "lookup".into(),
                path: shown.clone(),
                dir: parent.to_string(),
                message: format!("{shown} does not exist. Did you mean {suggestion}?"),
                repeats: 0,
                first: miss.at,
                quotes: Vec::new(),
            });
            self.failed_in(parent.as_str());
        }
    }

    /// `path` was just made (created, renamed to): a lookup of it before is no typo, and
    /// a "did you mean" logged for it is void.
    pub(crate) fn made(&self, path: &TreePath) {
        self.errors.forget_misses(path);
        self.errors.forget_lookup(&self.links.to(path.as_str()));
    }

    /// Log a failed operation on `path` (to `_errors.md`, its directory's entry view, and
    /// the daemon log).
    pub(crate) fn record(&self, op: &str, path: &TreePath, error: &Error) {
        let dir = path.parent().map(|p| p.to_string()).unwrap_or_default();
        let now = SystemTime::now();
        self.errors.record(Failure {
            at: now,
            op: op.to_string(),
            // A failure is recorded from writes as from reads: a look of its own.
            path: (self.links).to(self.shown(&Glance::new(), path).as_str()),
            dir: dir.clone(),
            message: error.message.clone(),
            repeats: 0,
            first: now,
            quotes: self.quoted(path, &error.message),
        });
        self.failed_in(&dir);
    }

    /// Log that a read of `path` failed because the store cannot be reached (its message
    /// names the store and what to expect); repeats of it are folded as any repeated failure.
    pub(crate) fn record_unavailable(&self, path: &TreePath, error: &Error) {
        self.record("read", path, error);
    }

    /// Run `op` on `path`, logging a failure.
    pub(crate) fn logged<T>(&self, op: &str, path: &TreePath, result: Result<T>) -> Result<T> {
        if let Err(error) = &result {
            self.record(op, path, error);
        }
        result
    }
}
