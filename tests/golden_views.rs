//! Golden views: the whole text of every kind of view, for a fixture project, compared with
//! the files under `tests/golden/`.
//!
//! The fixture is a copy of `examples/ledger` with a few tasks seeded through the library
//! (the same validated writes a mount makes) and two refused operations for the error log.
//! The tree is built without FUSE, as `homespace render` does, with links under `/mnt/hs`.
//! Each view is compared whole, after one normalisation of what varies between runs (see
//! [`normalise`]); a mismatch fails with a line diff. `HOMESPACE_BLESS=1 cargo test --test
//! golden_views` (re)writes the golden files instead — read them before committing: they
//! are what an agent sees.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use homespace::app::{Options, build};
use homespace::model::TreePath;
use homespace::tree::access::Caller;
use homespace::tree::inodes::ROOT;
use homespace::tree::resource::ResourceExt;
use homespace::tree::{
    CreateRequest, FlushRequest, LookupRequest, OpenFlags, OpenRequest, Opened, Space,
};
use homespace_testkit::copy::copy_dir;
use homespace_testkit::poll::poll_true;
use regex::Regex;

/// Where links point, as in the README's tour.
const MOUNTPOINT: &str = "/mnt/hs";

/// The directories whose `_entry.md` and `_nav.txt` are checked: one of every kind.
const DIRECTORIES: &[&str] = &[
    "",                                              // the root dashboard
    "source",                                        // the project's map
    "source/ledger",                                 // a package
    "source/ledger/io",                              // a subpackage
    "source/ledger/accounts",                        // a module's members
    "source/ledger/accounts/Account",                // a class's members
    "source/ledger/templates",                       // package data
    "source/tests",                                  // the test folder
    "source/history",                                // routed edits
    "source/meta",                                   // settings
    "tasks",                                         // outstanding work
    "tasks/open",                                    // a status directory
    "tasks/ready",                                   // a view of tasks
    "tasks/tags/bug",                                // a tag
    "memory",                                        // past sessions
    "memory/sessions",                               // sessions by day
    "memory/sessions/2025-11-03",                    // one day's sessions
    "memory/sessions/2025-11-03/pairing-2025-11-03", // a session
    "memory/tags",                                   // entries by tag
    "memory/tags/export",                            // one tag
    "memory/import",                                 // where transcripts are copied
    "search",                                        // search everything
];

/// The search whose result is checked: it finds code and tasks.
const QUERY: &str = "amount";

/// The failing test of [`Fixture::fail_a_test`], as its failure file is named.
const FAILING: &str = "tests.test_halves.test_halves_round_down";

/// Tasks seeded into the store, as an agent would write them to `tasks/open/<name>.json`.
const TASKS: &[(&str, &str)] = &[
    (
        "fix-rounding",
        r#"{"title": "Fix rounding of negative amounts", "priority": 0, "tags": ["bug"]}"#,
    ),
    (
        "multi-currency",
        r#"{"title": "Support multi-currency accounts", "priority": 1, "tags": ["feature"], "depends_on": ["fix-rounding"]}"#,
    ),
    (
        "csv-export",
        r#"{"title": "Export the journal as CSV", "tags": ["feature", "io"], "description": "Mirror ledger.io.csv_import: one row per posting, amounts as strings."}"#,
    ),
];

/// A copy of the example project, the store beside it with the tasks of [`TASKS`], and the
/// tree over them.
struct Fixture {
    dir: tempfile::TempDir,
    space: Arc<Space>,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::within(homespace::render::budget::BUDGET_TOKENS)
    }

    /// The fixture with views of at most `budget` tokens.
    fn within(budget: usize) -> Fixture {
        // Always under /tmp, whatever TMPDIR says: paths in views have the same length on
        // every machine, so pruning to the budget cuts the same items everywhere.
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let project = dir.path().join("ledger");
        copy_dir(&example(), &project).expect("copy the project");
        // The project's own store, as most mounts have: the dashboard names no --store.
        let mut options = Options::new(project);
        options.budget = budget;
        let space = build(&options, MOUNTPOINT).unwrap();
        let fixture = Fixture { dir, space };
        fixture.seed_tasks();
        fixture.seed_memory();
        fixture
    }

    /// The text of `path` (components joined by `/`; a directory gives its `_entry.md`).
    fn render(&self, path: &str) -> String {
        let components: Vec<String> = path
            .split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        let bytes = self
            .space
            .render_path(&TreePath::from_names(&components))
            .unwrap_or_else(|e| panic!("render {path}: {}", e.message));
        String::from_utf8(bytes).unwrap_or_else(|e| panic!("{path} is not UTF-8: {e}"))
    }

    /// The tasks of [`TASKS`], through the tasks resourcespace's validated write.
    fn seed_tasks(&self) {
        let tasks = self.space.resource_named("tasks").unwrap();
        for (name, json) in TASKS {
            tasks
                .write(&["open", &format!("{name}.json")], json.as_bytes(), None)
                .unwrap_or_else(|e| panic!("seed {name}: {}", e.message));
        }
    }

    /// Two transcripts (plain JSONL and Codex), copied into `memory/import/` as an agent would.
    fn seed_memory(&self) {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
        for file in [
            "generic.jsonl",
            "rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl",
        ] {
            let bytes = std::fs::read(fixtures.join(file)).unwrap();
            import(&self.space, file, &bytes);
        }
    }

    /// A test run with one failure (a test of the example's rounding that expects the
    /// wrong half), waited for: its result, its failure file and the dashboard show it.
    fn fail_a_test(&self) {
        let project = self.dir.path().join("ledger");
        std::fs::write(
            project.join("tests/test_halves.py"),
            "from decimal import Decimal\n\nfrom ledger.accounts import parse_amount\n\n\ndef test_halves_round_down():\n    assert parse_amount(\"0.135\") == Decimal(\"0.13\")\n",
        )
        .unwrap();
        // As the mount's owner writes it, through the tree: only the owner runs tests.
        let space = &self.space;
        let source = space
            .lookup(LookupRequest::new(ROOT, "source"))
            .unwrap()
            .ino;
        let tests = space
            .lookup(LookupRequest::new(source, "tests"))
            .unwrap()
            .ino;
        let run = space.lookup(LookupRequest::new(tests, "run")).unwrap().ino;
        let flags = OpenFlags {
            write: true,
            truncate: true,
            append: false,
        };
        let fh = space
            .open(OpenRequest::new(run, flags, Caller::this_process()))
            .and_then(Opened::fh)
            .unwrap();
        space
            .flush(FlushRequest::new(fh))
            .unwrap_or_else(|e| panic!("start a run: {}", e.message));
        space.release(fh);
        let ended = poll_true(Duration::from_secs(20), Duration::from_millis(50), || {
            !self
                .render("source/tests/runs/1/_entry.md")
                .contains("— running since")
        });
        assert!(
            ended,
            "run 1 never ended:\n{}",
            self.render("source/tests/runs/1/_entry.md")
        );
    }

    /// Two refused operations, made as a mount makes them, so that the error log has
    /// entries: a task with an unknown field and a bad priority (rejected when the file is
    /// flushed), and a write to a view (refused at open).
    fn fail_twice(&self) {
        let space = &self.space;
        let tasks = space.lookup(LookupRequest::new(ROOT, "tasks")).unwrap().ino;
        let open = space.lookup(LookupRequest::new(tasks, "open")).unwrap().ino;
        let (_, fh) = space
            .create(CreateRequest::new(open, "bad-task.json", Caller::this_process()).exclusive())
            .unwrap();
        space
            .write(fh, 0, br#"{"titel": "Typo", "priority": 7}"#)
            .unwrap();
        assert!(
            space.flush(FlushRequest::new(fh)).is_err(),
            "the bad task is refused"
        );
        space.release(fh);
        let entry = space
            .lookup(LookupRequest::new(ROOT, "_entry.md"))
            .unwrap()
            .ino;
        let flags = OpenFlags {
            write: true,
            truncate: true,
            append: false,
        };
        assert!(
            space
                .open(OpenRequest::new(entry, flags, Caller::this_process()))
                .and_then(Opened::fh)
                .is_err(),
            "a view is read-only"
        );
    }
}

/// Every view checked, as (golden file name, text): the directories' views, then the
/// search result and the error log (made last, so that the other views are free of
/// errors).
fn views(fixture: &Fixture) -> Vec<(String, String)> {
    fixture.fail_a_test();
    let mut views = Vec::new();
    for dir in DIRECTORIES {
        for view in ["_entry.md", "_nav.txt"] {
            let path = format!("{dir}/{view}");
            views.push((golden_name(&path), fixture.render(&path)));
        }
    }
    for file in [
        format!("search/{QUERY}"),
        "search/memory:channel:tool_call pytest".to_string(),
        // A name defined once (a static method) and one defined in several modules.
        "search/def:validate_name".to_string(),
        "search/def:Account.debit".to_string(),
        "search/def:__init__".to_string(),
        "search/def:no_such_thing".to_string(),
        // Who calls a function and a method: through imports, a re-export, `self`.
        "search/refs:parse_amount".to_string(),
        "search/refs:Account.debit".to_string(),
        "memory/recall".to_string(),
        "memory/sessions/2025-11-03/pairing-2025-11-03/related.md".to_string(),
        "memory/sessions/2025-11-03/pairing-2025-11-03/0002.json".to_string(),
        "memory/sessions/2025-11-03/pairing-2025-11-03/summary.md".to_string(),
        "source/tests/runs/1/result.md".to_string(),
        format!("source/tests/runs/1/failures/{FAILING}.txt"),
    ] {
        views.push((golden_name(&file), fixture.render(&file)));
    }
    fixture.fail_twice();
    views.push((golden_name("_errors.md"), fixture.render("_errors.md")));
    views
}

/// Imports transcript `bytes` as file `name`, copied into `memory/import/` as an agent would.
fn import(space: &Space, name: &str, bytes: &[u8]) {
    let memory = space.resource_named("memory").unwrap();
    let import = memory
        .children()
        .iter()
        .find(|child| child.name() == "import")
        .unwrap()
        .clone();
    import
        .write(&[name], bytes, None)
        .unwrap_or_else(|e| panic!("import {name}: {}", e.message));
}

/// `source/ledger/_entry.md` -> `source.ledger._entry.md`; the root's views are `root.*`.
fn golden_name(path: &str) -> String {
    let path = path.trim_start_matches('/');
    if path.starts_with('_') {
        format!("root.{path}")
    } else {
        path.replace('/', ".")
    }
}

/// What varies between runs, replaced by fixed placeholders; everything else is compared
/// exactly. The one place that decides what a golden file may leave open:
/// - the temp directory holding the project and the store -> `<tmp>`;
/// - times (RFC 3339 to the second, as views show them) -> `<time>`;
/// - durations (`12 ms`, `1.5 s`) -> `<duration>`.
fn normalise(text: &str, tmp: &Path) -> String {
    let mut text = text.to_string();
    // The canonical form first: the tree shows the project's canonical path.
    let canonical = tmp.canonicalize().unwrap_or_else(|_| tmp.to_path_buf());
    for form in [canonical.as_path(), tmp] {
        text = text.replace(&form.display().to_string(), "<tmp>");
    }
    let time = Regex::new("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z").unwrap();
    let text = time.replace_all(&text, "<time>");
    let duration = Regex::new(r"\b[0-9]+(\.[0-9]+)? ?(µs|ms|s)\b").unwrap();
    duration.replace_all(&text, "<duration>").into_owned()
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger")
}

/// `None` if `actual` is the golden file `name`, else a readable report: a line diff, then
/// both texts whole.
fn compare(name: &str, actual: &str) -> Option<String> {
    let path = golden_dir().join(name);
    let expected = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return Some(format!("{name}: no golden file ({e}); actual:\n{actual}")),
    };
    if expected == actual {
        return None;
    }
    let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
        .unified_diff()
        .header(&format!("golden/{name}"), "actual")
        .to_string();
    Some(format!(
        "{name} differs from its golden file:\n{diff}\n--- expected ---\n{expected}\n\
         --- actual ---\n{actual}\n--- (end of {name})"
    ))
}

/// Golden files that no view is compared with any more (a renamed or dropped view).
fn orphans(names: &[String]) -> Vec<String> {
    let mut orphans: Vec<String> = std::fs::read_dir(golden_dir())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| !names.contains(name))
                .collect()
        })
        .unwrap_or_default();
    orphans.sort();
    orphans
}

fn bless(views: &[(String, String)]) {
    std::fs::create_dir_all(golden_dir()).unwrap();
    let names: Vec<String> = views.iter().map(|(name, _)| name.clone()).collect();
    for orphan in orphans(&names) {
        std::fs::remove_file(golden_dir().join(orphan)).unwrap();
    }
    for (name, text) in views {
        std::fs::write(golden_dir().join(name), text).unwrap();
    }
}

/// A second project, `tests/fixtures/outline`, for outlines under pressure: a class of 26
/// members with long signatures and docstrings, overloads before and after their
/// implementation, a class of 70 short members (as pyflakes' `Checker`), a module of
/// constants (as sqlparse's `keywords`), a package of 35 modules beside two data files.
struct Outline {
    dir: tempfile::TempDir,
    space: Arc<Space>,
}

/// The outline fixture's views that are checked, as paths under `source/`.
const OUTLINE_VIEWS: &[&str] = &[
    "source/plugbox/_entry.md",
    "source/plugbox/manager/_entry.md",
    "source/plugbox/manager/PluginManager/_entry.md",
    "source/plugbox/keywords/_entry.md",
    "source/plugbox/checker/Checker/_entry.md",
    // A method called from three modules: through an alias, a re-export, a module alias.
    "search/refs:PluginManager.register",
];

impl Outline {
    fn new() -> Outline {
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let project = dir.path().join("plugbox");
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outline");
        copy_dir(&fixture, &project).expect("copy the project");
        let space = build(&Options::new(project), MOUNTPOINT).unwrap();
        Outline { dir, space }
    }

    fn render(&self, path: &str) -> String {
        let components: Vec<String> = path.split('/').map(str::to_string).collect();
        let bytes = self
            .space
            .render_path(&TreePath::from_names(&components))
            .unwrap_or_else(|e| panic!("render {path}: {}", e.message));
        String::from_utf8(bytes).unwrap()
    }

    /// The views of [`OUTLINE_VIEWS`], named `outline.<path>`, normalised.
    fn views(&self) -> Vec<(String, String)> {
        OUTLINE_VIEWS
            .iter()
            .map(|path| {
                let text = normalise(&self.render(path), self.dir.path());
                (format!("outline.{}", golden_name(path)), text)
            })
            .collect()
    }
}

/// A third mount, of `examples/ledger` with two Claude Code sessions imported that edited
/// its files (`src/ledger/accounts.py`, `tests/test_rounding.py`): the code names the
/// sessions that changed it, and `memory/files/` lists them. The transcripts ran in
/// `/home/dev/ledger`; that folder is the mounted project's here, as if they ran in it.
struct Codelinks {
    dir: tempfile::TempDir,
    space: Arc<Space>,
}

/// The views of [`Codelinks`] that are checked.
const CODELINKS_VIEWS: &[&str] = &[
    "source/ledger/accounts/_entry.md",
    "source/ledger/accounts/Account/_entry.md",
    "memory/files/_entry.md",
    "memory/files/src/ledger/accounts.py/_entry.md",
    "search/parse_amount",
    // A question that names a file leads to the sessions that changed it.
    "search/memory:accounts.py rounding",
    "search/accounts.py rounding",
];

impl Codelinks {
    fn new() -> Codelinks {
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let project = dir.path().join("ledger");
        copy_dir(&example(), &project).expect("copy the project");
        let root = project.canonicalize().unwrap();
        let space = build(&Options::new(project), MOUNTPOINT).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for file in [
            "transcripts/claude-code-session.jsonl",
            "codelinks/rounding.jsonl",
        ] {
            let text = std::fs::read_to_string(fixtures.join(file)).unwrap();
            let text = text.replace("/home/dev/ledger", &root.display().to_string());
            import(&space, file.rsplit('/').next().unwrap(), text.as_bytes());
        }
        Codelinks { dir, space }
    }

    /// The views of [`CODELINKS_VIEWS`], named `codelinks.<path>`, normalised.
    fn views(&self) -> Vec<(String, String)> {
        CODELINKS_VIEWS
            .iter()
            .map(|path| {
                let components: Vec<String> = path.split('/').map(str::to_string).collect();
                let bytes = self
                    .space
                    .render_path(&TreePath::from_names(&components))
                    .unwrap_or_else(|e| panic!("render {path}: {}", e.message));
                let text = normalise(&String::from_utf8(bytes).unwrap(), self.dir.path());
                (format!("codelinks.{}", golden_name(path)), text)
            })
            .collect()
    }
}

#[test]
fn a_module_names_the_sessions_that_edited_it() {
    let codelinks = Codelinks::new();
    let views = codelinks.views();
    let module = &views[0].1;
    for named in [
        "**Changed in 2 past sessions**: 2025-11-05 \"Round half amounts to even in parse_amou…\"",
        ", 2025-10-02 \"Fix negative amounts in credit account b…\"",
        ": `/mnt/hs/memory/files/src/ledger/accounts.py/`",
    ] {
        assert!(module.contains(named), "[{named}] missing:\n{module}");
    }
}

#[test]
fn a_memory_search_naming_a_changed_file_leads_to_its_sessions() {
    let codelinks = Codelinks::new();
    let views = codelinks.views();
    let (_, search) = views
        .iter()
        .find(|(name, _)| name.ends_with("memory:accounts.py rounding"))
        .unwrap();
    assert!(
        search.contains(
            "`accounts.py` is a file 2 past sessions changed: `/mnt/hs/memory/files/src/ledger/accounts.py/`"
        ),
        "{search}"
    );
}

#[test]
fn every_kind_of_view_matches_its_golden_file() {
    let fixture = Fixture::new();
    let outline = Outline::new();
    let codelinks = Codelinks::new();
    let views: Vec<(String, String)> = views(&fixture)
        .into_iter()
        .map(|(name, text)| (name, normalise(&text, fixture.dir.path())))
        .chain(outline.views())
        .chain(codelinks.views())
        .collect();
    if std::env::var_os("HOMESPACE_BLESS").is_some_and(|v| v == "1") {
        bless(&views);
        return;
    }
    let names: Vec<String> = views.iter().map(|(name, _)| name.clone()).collect();
    let mut failures: Vec<String> = views
        .iter()
        .filter_map(|(name, text)| compare(name, text))
        .collect();
    for orphan in orphans(&names) {
        failures.push(format!(
            "golden/{orphan} is compared with no view: remove it"
        ));
    }
    assert!(
        failures.is_empty(),
        "{} mismatches over {} golden views (HOMESPACE_BLESS=1 rewrites them):\n\n{}",
        failures.len(),
        views.len(),
        failures.join("\n\n")
    );
}

/// Every kind of view, listed or not (a search's result, a session's pages, a run's result,
/// the error log), fits a budget far below the default: each is held to it.
#[test]
fn every_kind_of_view_fits_a_small_budget() {
    const SMALL: usize = 120;
    let fixture = Fixture::within(SMALL);
    let mut pruned = Vec::new();
    let mut checked = 0;
    for (name, text) in views(&fixture) {
        // Documents (a session's entry as JSON, a failure's text, a session's summary —
        // extracted whole while nobody wrote one, so that it can be edited and written
        // back) are files, not views.
        if name.ends_with(".json") || name.contains(".failures.") || name.ends_with(".summary.md") {
            continue;
        }
        checked += 1;
        let tokens = homespace::render::budget::tokens(&text);
        assert!(tokens <= SMALL, "{name} is {tokens} tokens:\n{text}");
        if text.contains("[pruned:") {
            pruned.push(name);
        }
    }
    assert!(checked > 40, "only {checked} views checked");
    assert!(
        pruned.len() > 10,
        "with {SMALL} tokens most views are cut: {pruned:?}"
    );
}

#[test]
fn normalise_leaves_only_what_varies_between_runs_open() {
    let tmp = Path::new("/tmp/.tmpAbC123");
    let text = "Project at `/tmp/.tmpAbC123/ledger`, 2026-11-23T12:00:00Z, took 12 ms and 1.5 s; \
                3 items, 40 tokens";
    assert_eq!(
        normalise(text, tmp),
        "Project at `<tmp>/ledger`, <time>, took <duration> and <duration>; 3 items, 40 tokens"
    );
}

#[test]
fn the_dashboard_opens_with_what_an_agent_acts_on_within_300_tokens() {
    let fixture = Fixture::new();
    fixture.fail_a_test();
    let tasks = fixture.space.resource_named("tasks").unwrap();
    for n in 0..12 {
        let json = format!(
            r#"{{"title": "Reconcile the imported statements of account number {n} against the journal", "priority": 0}}"#
        );
        tasks
            .write(
                &["open", &format!("reconcile-{n}.json")],
                json.as_bytes(),
                None,
            )
            .unwrap_or_else(|e| panic!("task {n}: {}", e.message));
    }
    let root = fixture.render("/");
    let tokens = root.chars().count().div_ceil(4);
    assert!(tokens <= 300, "{tokens} tokens:\n{root}");
    assert!(!root.contains("[pruned"), "nothing is cut:\n{root}");
    let lines: Vec<&str> = root.lines().collect();
    // Before any list of verbs: the test state, the tasks, the latest session.
    let first_heading = lines.iter().position(|l| l.starts_with("## ")).unwrap();
    let head = lines[..first_heading].join("\n");
    for expected in [
        "Tests: run 1 failed: 1 failed, 13 passed",
        "runs/latest/result.md",
        "Tasks: 15 outstanding, top 3 (`/mnt/hs/tasks/<name>.json`; all: `cat /mnt/hs/tasks/_entry.md`):",
        "- P0 fix-rounding — Fix rounding of negative amounts",
        "Latest session: `/mnt/hs/memory/sessions/",
    ] {
        assert!(
            head.contains(expected),
            "[{expected}] not at the top:\n{root}"
        );
    }
    for verb in [
        "echo > /mnt/hs/source/tests/run; cat /mnt/hs/source/tests/runs/latest/result.md",
        "cat /mnt/hs/source/ledger.",
        "cat \"/mnt/hs/search/<words>\"",
        "/mnt/hs/tasks/open/<name>.json",
        "cat /mnt/hs/memory/recall",
    ] {
        assert!(root.contains(verb), "the verb [{verb}] is missing:\n{root}");
    }
}

/// The names of the public methods `PluginManager` of the outline fixture defines, with
/// its dunder and private ones: 26 in all.
const PLUGIN_MANAGER: &[&str] = &[
    "__init__",
    "register",
    "parse_hookimpl_opts",
    "unregister",
    "set_blocked",
    "is_blocked",
    "unblock",
    "add_hookspecs",
    "parse_hookspec_opts",
    "get_plugins",
    "is_registered",
    "get_canonical_name",
    "get_plugin",
    "has_plugin",
    "get_name",
    "_verify_hook",
    "check_pending",
    "load_setuptools_entrypoints",
    "list_plugin_distinfo",
    "list_name_plugin",
    "get_hookcallers",
    "add_hookcall_monitoring",
    "enable_tracing",
    "subset_hook_caller",
    "_hookexec",
    "__repr__",
];

#[test]
fn an_outline_over_budget_drops_docs_then_rows_but_keeps_every_name_and_signature_shown() {
    let outline = Outline::new();
    let view = outline.render("source/plugbox/manager/PluginManager/_entry.md");
    assert!(
        view.chars().count().div_ceil(4) <= 500,
        "over budget:\n{view}"
    );
    assert_eq!(PLUGIN_MANAGER.len(), 26);
    for name in PLUGIN_MANAGER {
        assert!(
            view.contains(&format!("`{name}.py`")),
            "{name} missing:\n{view}"
        );
    }
    assert!(view.contains("[pruned: 26 symbols: "), "{view}");
    // Content before instructions: the instructions are down to the one way to act here,
    // and no Advanced block, before any member loses its row.
    assert!(!view.contains("| command | does | you get |"), "{view}");
    assert!(!view.contains("## Advanced"), "{view}");
    // A row that stays keeps its signature: a row without one costs twice a name and
    // tells little more.
    let rows: Vec<&str> = view
        .lines()
        .filter(|line| line.starts_with("| `") && line.contains("| method |"))
        .collect();
    assert!(rows.len() >= 10, "{view}");
    for row in &rows {
        assert!(
            row.contains("| method | `("),
            "a row without its signature: {row}"
        );
    }
    // The methods the module itself calls (`unload` calls these two) keep their rows
    // longest; private ones are named first.
    let signed = |name: &str| {
        view.lines()
            .any(|line| line.starts_with(&format!("| `{name}.py` | method | `(")))
    };
    assert!(signed("get_plugins") && signed("unregister"), "{view}");
    assert!(!signed("_hookexec") && !signed("_verify_hook"), "{view}");
}

#[test]
fn a_class_of_seventy_members_names_each_and_keeps_the_signatures_that_fit() {
    let outline = Outline::new();
    let view = outline.render("source/plugbox/checker/Checker/_entry.md");
    assert!(
        view.chars().count().div_ceil(4) <= 500,
        "over budget:\n{view}"
    );
    let source =
        std::fs::read_to_string(outline.dir.path().join("plugbox/plugbox/checker.py")).unwrap();
    let members: Vec<&str> = source
        .lines()
        .filter_map(|line| line.strip_prefix("    def "))
        .filter_map(|rest| rest.split('(').next())
        .collect();
    assert_eq!(members.len(), 70);
    for name in &members {
        assert!(
            view.contains(&format!("`{name}.py`")),
            "{name} missing:\n{view}"
        );
    }
    let signed = view
        .lines()
        .filter(|line| line.starts_with("| `") && line.contains("| method | `("))
        .count();
    assert!(signed >= 5, "{signed} signatures:\n{view}");
    assert!(!view.contains("| command | does | you get |"), "{view}");
    assert!(!view.contains("## Advanced"), "{view}");
}

#[test]
fn the_references_of_a_method_resolve_aliases_and_re_exports_and_say_what_does_not() {
    let outline = Outline::new();
    let view = outline.render("search/refs:PluginManager.register");
    let resolved = [
        // `Manager("auth").register(…)`, Manager an alias of the class.
        "plugbox.hooks_auth.install_auth:13: return Manager(\"auth\").register(plugin, name=\"auth\")",
        // `manager = PluginManager(…)` through the package's re-export, then a call on it.
        "plugbox.hooks_cache.install_cache:14: manager.register(plugin)",
        // The class through a module alias.
        "plugbox.hooks_cli.install_cli:13: mgr.PluginManager.register(manager, plugin)",
        // A function the class decorates is an instance of it, at the top level and
        // inside a function.
        "plugbox.hooks_cli.install_default_cli:24: cli_manager.register(plugin, name=\"default-cli\")",
        "plugbox.hooks_cli.install_local_cli:34: local_manager.register(plugin)",
        // A test's parameter naming a conftest fixture that returns a PluginManager.
        "tests.test_manager.test_register_returns_the_name:3: assert manager.register(object(), name=\"p\") == \"p\"",
    ];
    // A parameter annotated with the class (a string here) is an instance of it.
    assert!(
        view.contains("- plugbox.hooks_cli.install_cli:13: mgr.PluginManager.register(manager, plugin)\n  14: manager.register(plugin, name=\"cli\")"),
        "{view}"
    );
    let mut at = 0;
    for line in resolved {
        let found = view[at..]
            .find(line)
            .unwrap_or_else(|| panic!("[{line}] not in:\n{view}"));
        at += found;
    }
    // A call on a parameter whose type the code does not say comes after, said as such;
    // a further line of the same definition is given by its number alone.
    let unresolved = view
        .find("plugbox.hooks_cli.install_any:39: manager.register(plugin)")
        .unwrap_or_else(|| panic!("the unresolved call is missing:\n{view}"));
    assert!(unresolved > at, "{view}");
    assert!(view.contains("not resolved statically"), "{view}");
    // Its own definition is no reference.
    assert!(!view.contains("def register"), "{view}");
    // Each line names the definition it is in, and that name read as the view says reads
    // the caller.
    assert!(
        view.contains("`cat /mnt/hs/source/<name>.py` reads a line's definition"),
        "{view}"
    );
    let caller = outline.render("source/plugbox.hooks_cache.install_cache.py");
    assert!(caller.contains("manager.register(plugin)"), "{caller}");

    // Asked for by a name only a re-export binds: the definition it leads to, said so.
    let public = outline.render("search/refs:plugbox.keywords.PluginManager.register");
    assert!(
        public.contains(
            "`plugbox.manager.PluginManager.register`, re-exported as \
             `plugbox.keywords.PluginManager.register`"
        ),
        "{public}"
    );
    assert!(public.contains(resolved[0]), "{public}");
    let defined = outline.render("search/def:plugbox.keywords.PluginManager.register");
    assert!(
        defined.contains("/source/plugbox/manager/PluginManager/register.py"),
        "{defined}"
    );
}

#[test]
fn a_module_of_constants_is_outlined_with_its_names() {
    let outline = Outline::new();
    let view = outline.render("source/plugbox/keywords/_entry.md");
    assert!(view.contains("(9 other names, 86 lines"), "{view}");
    for row in [
        "| `__all__` | exports | `FLAGS, SQL_REGEX, KEYWORDS, KEYWORDS_COMMON, KEYWORDS_ORACLE, PluginManager` | 6 |",
        "| `FLAGS` | constant | `= re.IGNORECASE \\| re.UNICODE` | 9 |",
        "| `CASE_SENSITIVE` | constant | `: bool = False` | 77 |",
        "| `PluginManager` | re-export | `from plugbox.manager` | 4 |",
    ] {
        assert!(view.contains(row), "{row} missing:\n{view}");
    }
    // What the module only uses is not what it defines.
    assert!(!view.contains("| `re` |"), "{view}");
    assert!(!view.contains("_regex_engine"), "{view}");
}

/// Content first, in every golden view: a view that lightened its content (a row without
/// its signature or doc, a name without its row, a row left out) kept no instruction
/// table in full and no Advanced block.
#[test]
fn no_golden_view_lightens_its_content_while_it_keeps_boilerplate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut lightened = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        if !path.to_string_lossy().ends_with("_entry.md") {
            continue;
        }
        let view = std::fs::read_to_string(&path).unwrap();
        let content_cut = view.lines().any(|line| {
            line.starts_with("[pruned: ")
                && ["without", "by name only", "left out"]
                    .iter()
                    .any(|cut| line.contains(cut))
        }) || view.contains("\nBy name only: ");
        if content_cut {
            lightened += 1;
            assert!(
                !view.contains("| command | does | you get |") && !view.contains("## Advanced"),
                "{} lightened its content but kept its boilerplate:\n{view}",
                path.display()
            );
        }
    }
    assert!(
        lightened > 0,
        "no golden view is over budget: the test proves nothing"
    );
}

#[test]
fn a_package_over_budget_keeps_every_module_name_before_any_other_file() {
    let outline = Outline::new();
    let view = outline.render("source/plugbox/_entry.md");
    assert!(
        view.chars().count().div_ceil(4) <= 500,
        "over budget:\n{view}"
    );
    let modules = std::fs::read_dir(outline.dir.path().join("plugbox/plugbox"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".py"))
        .collect::<Vec<_>>();
    assert_eq!(modules.len(), 36);
    for module in &modules {
        assert!(
            view.contains(&format!("`{module}`")),
            "{module} missing:\n{view}"
        );
    }
    assert!(view.contains("[pruned: 38 entries: "), "{view}");
}
