//! The log of recent failures: what `/_errors.md` shows (newest first) and what the entry
//! view of the directory where a failure happened shows on top for a few minutes. Every
//! record also goes to the daemon log (stderr of the daemon).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::model::{Failure, TreePath};
use crate::tree::access::Perm;
use crate::tree::lock;

/// How many failures are kept.
const KEEP: usize = 200;
/// How long a failure stays on top of its directory's entry view.
pub const FRESH: Duration = Duration::from_secs(5 * 60);

impl Failure {
    /// This failure as it may be shown: a name is free text (`touch "$(printf 'a\nb')"`),
    /// and a raw line break or escape sequence in it would break the list of
    /// `_errors.md`, the entry views and the daemon log. The path is quoted as `ls` does,
    /// also where the message repeats it; any other control character in the message is
    /// escaped, so only the message's own line breaks remain.
    fn printable(mut self) -> Failure {
        if has_control(&self.path) {
            let quoted = quote_path(&self.path);
            self.message = self.message.replace(&self.path, &quoted);
            // Messages may name the path relative to its resourcespace, or just the name
            // in backticks; only those forms are replaced, since a bare name such as "a\n"
            // also occurs where the message merely breaks a line.
            if let Some(name) = self.path.rsplit('/').next().filter(|n| has_control(n)) {
                let quoted = quote_path(name);
                self.message = self
                    .message
                    .replace(&format!("/{name}"), &format!("/{quoted}"))
                    .replace(&format!("`{name}`"), &format!("`{quoted}`"));
            }
            self.path = quoted;
        }
        self.message = escape_controls(&self.message.replace("\r\n", "\n"), &['\n']);
        self
    }

    /// This failure as a view of modes `view` may show it: its message only when everyone
    /// who may read the view may read all the message may quote; else what failed and
    /// where, without the message (a refused edit of a private module quotes its lines).
    fn shown_in(mut self, view: Perm) -> Failure {
        if !self.quotes.iter().all(|q| q.readable_by_readers_of(view)) {
            self.message = "the message is not shown here: it quotes a file more private \
                            than this view. The program that made the change was told it in \
                            full, and so was the daemon log"
                .to_string();
        }
        self
    }

    /// The same failure: operation, path and message.
    fn same_as(&self, other: &Failure) -> bool {
        self.op == other.op && self.path == other.path && self.message == other.message
    }

    /// Whether `other`, the same failure, is a tool repeating one call (`ls` looks a name
    /// up twice) rather than a new attempt: within a second of this one.
    fn echoed_by(&self, other: &Failure) -> bool {
        other
            .at
            .duration_since(self.at)
            .map(|d| d < Duration::from_secs(1))
            .unwrap_or(true)
    }
}

/// A lookup of a missing name, kept until someone reads the log: whether it was a typo
/// (worth a "Did you mean") is decided then, off the request path — a shell looks a name up
/// before creating it, and listing a big directory on every such miss would make creating
/// slow; by the time the log is read, a created name simply exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    pub at: SystemTime,
    pub path: TreePath,
}

/// Misses kept before the oldest are dropped unexamined.
const KEEP_MISSES: usize = 64;

/// Recent failures, shared by all requests.
#[derive(Debug, Default)]
pub struct ErrorLog {
    failures: Mutex<VecDeque<Failure>>,
    misses: Mutex<VecDeque<Miss>>,
}

impl ErrorLog {
    pub fn record(&self, failure: Failure) {
        let failure = failure.printable();
        let mut failures = lock(&self.failures);
        if let Some(last) = failures.front_mut().filter(|last| last.same_as(&failure)) {
            // A tool repeating one call is one failure; the same failure again later is
            // counted, and shown at its latest time so a retry that failed is seen to.
            if !last.echoed_by(&failure) {
                last.repeats += 1;
                last.at = last.at.max(failure.at);
                crate::log::line(&format!(
                    "error again (×{}): {} {}",
                    last.repeats + 1,
                    failure.op,
                    failure.path
                ));
            }
            return;
        }
        crate::log::line(&format!(
            "error: {} {}: {}",
            failure.op,
            failure.path,
            failure.message.replace('\n', " | ")
        ));
        // Newest first; a miss examined late goes where its time puts it.
        let at = failures
            .iter()
            .position(|f| f.at <= failure.at)
            .unwrap_or(failures.len());
        failures.insert(at, failure);
        failures.truncate(KEEP);
    }

    /// Record `failure`, or count it on the same failure kept anywhere in the log (moved
    /// to the top at its latest time): for failures that come in floods interleaved with
    /// one another (another user's refused `rm -rf`), which would otherwise push every
    /// other failure out of the log.
    pub fn record_folded(&self, failure: Failure) {
        let failure = failure.printable();
        let mut failures = lock(&self.failures);
        if let Some(at) = failures.iter().position(|f| f.same_as(&failure))
            && let Some(mut kept) = failures.remove(at)
        {
            kept.repeats += 1;
            kept.at = kept.at.max(failure.at);
            failures.push_front(kept);
            return;
        }
        drop(failures);
        self.record(failure);
    }

    /// The directories of the failures that stopped being fresh after `since`, up to
    /// `now`: their entry views no longer show them.
    pub fn expired(&self, since: SystemTime, now: SystemTime) -> Vec<String> {
        lock(&self.failures)
            .iter()
            .filter(|f| {
                let end = f.at + FRESH;
                end > since && end <= now
            })
            .map(|f| f.dir.clone())
            .collect()
    }

    /// Note a lookup of a missing name (not a probe), to examine later.
    pub fn missed(&self, path: TreePath) {
        let mut misses = lock(&self.misses);
        if misses.back().is_some_and(|m| m.path == path) {
            return;
        }
        misses.push_back(Miss {
            at: SystemTime::now(),
            path,
        });
        while misses.len() > KEEP_MISSES {
            misses.pop_front();
        }
    }

    /// The misses noted since the last call, oldest first.
    pub fn take_misses(&self) -> Vec<Miss> {
        lock(&self.misses).drain(..).collect()
    }

    /// Drop the "Did you mean" of a lookup of `path` once that path was created: the shell
    /// looks a name up before creating it, and that miss was no mistake.
    /// Forget the lookups of `path` (the tree's path) not yet examined.
    pub fn forget_misses(&self, path: &TreePath) {
        lock(&self.misses).retain(|m| m.path != *path);
    }

    pub fn forget_lookup(&self, path: &str) {
        let path = quote_path(path);
        lock(&self.failures).retain(|f| !(f.op == "lookup" && f.path == path));
    }

    /// All kept failures, newest first.
    pub fn newest_first(&self) -> Vec<Failure> {
        lock(&self.failures).iter().cloned().collect()
    }

    /// All kept failures, newest first, as a view of modes `view` may show them (see
    /// [`Failure::quotes`]).
    pub fn shown_in(&self, view: Perm) -> Vec<Failure> {
        let failures = self.newest_first();
        failures.into_iter().map(|f| f.shown_in(view)).collect()
    }

    /// The newest failure in directory `dir` within the last few minutes, as the
    /// directory's view (of modes `view`) may show it.
    pub fn fresh_in(&self, dir: &str, now: SystemTime, view: Perm) -> Option<Failure> {
        lock(&self.failures)
            .iter()
            .take_while(|f| now.duration_since(f.at).map(|d| d <= FRESH).unwrap_or(true))
            .find(|f| f.dir == dir)
            .cloned()
            .map(|f| f.shown_in(view))
    }
}

fn has_control(text: &str) -> bool {
    text.chars().any(char::is_control)
}

/// `path` as `ls` shows a name with control characters: bash's ANSI-C quoting
/// (`$'a\nb.json'`), which a shell reads back as the same name. Plain paths stay as they are.
pub fn quote_path(path: &str) -> String {
    if !has_control(path) {
        return path.to_string();
    }
    let mut out = String::from("$'");
    for c in path.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if c.is_control() => out.push_str(&escape_control(c)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `text` with every control character except those in `keep` written as an escape.
pub fn escape_controls(text: &str, keep: &[char]) -> String {
    if !text.chars().any(|c| c.is_control() && !keep.contains(&c)) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c {
            c if c.is_control() && !keep.contains(&c) => escape_control(c),
            c => c.to_string(),
        })
        .collect()
}

/// The escape bash's `$'...'` reads as control character `c`.
fn escape_control(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        '\u{1b}' => "\\e".into(),
        c if (c as u32) < 0x80 => format!("\\x{:02x}", c as u32),
        // C1 controls: `\xHH` would be a raw byte, not this character.
        c => format!("\\u{:04x}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(dir: &str, at: SystemTime) -> Failure {
        Failure {
            at,
            op: "write".into(),
            path: format!("/{dir}/x"),
            dir: dir.into(),
            message: format!("bad in {dir}"),
            repeats: 0,
            first: at,
            quotes: Vec::new(),
        }
    }

    #[test]
    fn a_failure_expires_from_its_entry_view_once_after_five_minutes() {
        let log = ErrorLog::default();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        log.record(failure("tasks", t0));
        log.record(failure("source", t0 + Duration::from_secs(60)));
        let at = |secs| t0 + Duration::from_secs(secs);
        assert!(log.expired(at(0), at(299)).is_empty(), "still fresh");
        assert_eq!(log.expired(at(299), at(300)), ["tasks"]);
        assert!(log.expired(at(300), at(301)).is_empty(), "announced once");
        assert_eq!(log.expired(at(301), at(400)), ["source"]);
    }

    #[test]
    fn the_same_failure_again_later_is_counted_at_its_latest_time() {
        let log = ErrorLog::default();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        log.record(failure("tasks", t0));
        // A tool repeating the call at once: still one failure.
        log.record(failure("tasks", t0 + Duration::from_millis(300)));
        assert_eq!(log.newest_first()[0].repeats, 0);
        // The agent tries again two seconds later, and again.
        log.record(failure("tasks", t0 + Duration::from_secs(2)));
        log.record(failure("tasks", t0 + Duration::from_secs(9)));
        let kept = log.newest_first();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].repeats, 2);
        assert_eq!(
            kept[0].at,
            t0 + Duration::from_secs(9),
            "shown at the latest time"
        );
        assert_eq!(kept[0].first, t0);
        let view = crate::render::errors::render(&kept, 500);
        assert!(
            view.contains("(×3, first at 1970-01-12T13:46:40Z)"),
            "{view}"
        );
        // Something else in between: the next one is a new entry.
        log.record(failure("source", t0 + Duration::from_secs(10)));
        log.record(failure("tasks", t0 + Duration::from_secs(11)));
        assert_eq!(log.newest_first().len(), 3);
    }

    #[test]
    fn fresh_failures_show_in_their_directory_only() {
        let log = ErrorLog::default();
        let now = SystemTime::now();
        log.record(failure("tasks/open", now - Duration::from_secs(600)));
        log.record(failure("tasks/done", now));
        assert_eq!(
            log.fresh_in("tasks/done", now, OPEN).map(|f| f.dir),
            Some("tasks/done".into())
        );
        assert_eq!(
            log.fresh_in("tasks/open", now, OPEN),
            None,
            "older than five minutes"
        );
        assert_eq!(log.newest_first()[0].dir, "tasks/done");
    }

    const OPEN: Perm = Perm {
        uid: 1000,
        gid: 1000,
        mode: 0o444,
    };

    #[test]
    fn a_view_others_may_read_never_quotes_a_more_private_file() {
        let log = ErrorLog::default();
        let now = SystemTime::now();
        log.record(Failure {
            message: "importing ledger.vault failed:\n    raise KeyError('PLANTED')".into(),
            quotes: vec![Perm {
                mode: 0o600,
                ..OPEN
            }],
            ..failure("source/ledger", now)
        });
        let shown = log.fresh_in("source/ledger", now, OPEN).unwrap();
        assert!(!shown.message.contains("PLANTED"), "{}", shown.message);
        assert!(shown.message.contains("more private than this view"));
        assert_eq!(
            shown.path, "/source/ledger/x",
            "what failed and where still show"
        );
        assert!(!log.shown_in(OPEN)[0].message.contains("PLANTED"));
        // The owner's own view (the store's modes by default) quotes it in full.
        let private = Perm {
            mode: 0o400,
            ..OPEN
        };
        assert!(log.shown_in(private)[0].message.contains("PLANTED"));
        let in_own = log.fresh_in("source/ledger", now, private).unwrap();
        assert!(in_own.message.contains("PLANTED"));
    }

    #[test]
    fn names_with_control_characters_are_quoted_like_ls_does() {
        assert_eq!(quote_path("/hs/tasks/open/a.json"), "/hs/tasks/open/a.json");
        assert_eq!(quote_path("/hs/a\nb.json"), "$'/hs/a\\nb.json'");
        assert_eq!(
            quote_path("it's\t\u{1b}[31m\\\u{7}\u{85}"),
            "$'it\\'s\\t\\e[31m\\\\\\x07\\u0085'"
        );
    }

    #[test]
    fn a_recorded_failure_keeps_only_its_own_line_breaks() {
        let log = ErrorLog::default();
        let path = "/hs/tasks/open/a\nb.json";
        log.record(Failure {
            at: SystemTime::now(),
            op: "create".into(),
            path: path.into(),
            dir: "tasks/open".into(),
            message: format!(
                "cannot create {path}:\n- tasks/open/a\nb.json is bad\r\n- \u{1b}[2J\there"
            ),
            repeats: 0,
            first: SystemTime::now(),
            quotes: Vec::new(),
        });
        let failure = &log.newest_first()[0];
        assert_eq!(failure.path, "$'/hs/tasks/open/a\\nb.json'");
        assert_eq!(
            failure.message,
            "cannot create $'/hs/tasks/open/a\\nb.json':\n- tasks/open/$'a\\nb.json' is bad\n- \\e[2J\\there"
        );
        log.forget_lookup(path);
        assert_eq!(log.newest_first().len(), 1, "only lookups are forgotten");
    }
}
