//! Choosing tests by what they ran, from the newest trace of each test: `affected` (written
//! to `source/tests/run`) runs the tests that ran what changed since the last run, and
//! `covering <symbol>` the tests that ran one symbol; a module's and a symbol's views say
//! how many tests ran them.
//!
//! What `affected` runs:
//! - the tests whose newest trace ran a function, method or class whose own lines changed
//!   (or that is gone) since the last run;
//! - for a change in a module's own lines (an import, a constant) or a new symbol, which no
//!   trace can have run yet, the tests that ran anything of that module;
//! - every test of a test module that changed or that no trace has seen (the traces came
//!   from the second pass over some failing files only, or it is new), so a partial trace
//!   never hides a test;
//! - the tests that failed in the last run.
//!
//! With no trace at all, it runs every test instead, traced, and says so; runs it chooses
//! are traced whole too, so what it chooses by stays as new as the tests it ran.
//! Traces are told as symbols by the code of the run that made them (its snapshot), so
//! edits since that moved lines do not mislead it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::python::Dotted;
use crate::resources::source::runner::Runner;
use crate::resources::source::runner::ranked::{junit_id_of, snapshot};
use crate::testrun::snapshot::Snapshot;

/// Changed symbols named in a run's note before the rest are counted.
const NAMED: usize = 3;
/// Members named with their counts in a view's line on tests, before the rest are counted.
const MEMBERS: usize = 4;

/// Which tests ran what, from the newest trace of each test.
#[derive(Debug, Default)]
pub(crate) struct Ran {
    /// `(file, qualname)` to the node ids of the tests that ran its own lines.
    by_symbol: BTreeMap<(String, String), BTreeSet<String>>,
    /// Every traced test's node id.
    tests: BTreeSet<String>,
}

impl Ran {
    /// The tests that ran symbol `qualname` of `file`, or a symbol inside it.
    pub(crate) fn tests_of(&self, file: &str, qualname: &str) -> BTreeSet<&str> {
        let inside = format!("{qualname}.");
        self.by_symbol
            .range((file.to_string(), qualname.to_string())..)
            .take_while(|((f, q), _)| f == file && (q == qualname || q.starts_with(&inside)))
            .flat_map(|(_, tests)| tests.iter().map(String::as_str))
            .collect()
    }

    /// The tests that ran anything of `file`.
    pub(crate) fn tests_of_file(&self, file: &str) -> BTreeSet<&str> {
        self.by_symbol
            .range((file.to_string(), String::new())..)
            .take_while(|((f, _), _)| f == file)
            .flat_map(|(_, tests)| tests.iter().map(String::as_str))
            .collect()
    }

    /// Traced tests of test module `file`.
    fn tests_in(&self, file: &str) -> impl Iterator<Item = &str> {
        let prefix = format!("{file}::");
        self.tests
            .iter()
            .filter(move |t| t.starts_with(&prefix))
            .map(String::as_str)
    }
}

/// [`Ran`] as of the newest run, by its number and status.
pub(crate) type RanAsOf = ((i64, String), Arc<Ran>);

/// The tests a selector word chose, and what the run says about the choice.
#[derive(Debug)]
pub(crate) struct Chosen {
    /// pytest's words: node ids and test files; empty for every test.
    pub(crate) words: Vec<String>,
    /// Said first in the run's output: what was chosen and why.
    pub(crate) note: String,
}

impl Runner {
    /// Which tests ran what, from the newest trace of each test of this checkout.
    fn ran(&self) -> Result<Ran> {
        let checkout = &self.runs.checkout;
        let traces = self
            .runs
            .store
            .records(|db| db.runs().latest_traces(checkout))?;
        let mut snapshots: BTreeMap<i64, Option<Snapshot>> = BTreeMap::new();
        let mut ran = Ran::default();
        for (run, test) in traces {
            let code = match snapshots.get(&run) {
                Some(code) => code,
                None => {
                    let code = self
                        .runs
                        .store
                        .records(|db| db.runs().snapshot(checkout, run))?;
                    snapshots.entry(run).or_insert(code)
                }
            };
            if let Some(code) = code {
                for (file, lines) in &test.files {
                    let spans: Vec<(&str, u32, u32)> = code
                        .symbols_of(file)
                        .map(|(q, p)| (q, p.first, p.last))
                        .collect();
                    for line in lines {
                        let innermost = spans
                            .iter()
                            .filter(|(_, first, last)| first <= line && line <= last)
                            .min_by_key(|(_, first, last)| last - first);
                        if let Some((qualname, _, _)) = innermost {
                            ran.by_symbol
                                .entry((file.clone(), qualname.to_string()))
                                .or_default()
                                .insert(test.test.clone());
                        }
                    }
                }
            }
            ran.tests.insert(test.test);
        }
        Ok(ran)
    }

    /// What `affected` runs (see the file's doc).
    pub(crate) fn affected(&self) -> Result<Chosen> {
        let ran = self.ran_now()?;
        if ran.tests.is_empty() {
            return Ok(Chosen {
                words: Vec::new(),
                note: "homespace: affected: no test has been traced yet, so every test ran, \
                       traced; the next `affected` chooses"
                    .into(),
            });
        }
        let checkout = &self.runs.checkout;
        let last = self.runs.store.records(|db| {
            let runs = db.runs();
            for run in runs.newest(checkout, 20)? {
                if run.status == "running" {
                    continue;
                }
                if let Some(code) = runs.snapshot(checkout, run.id)? {
                    let failed = runs.problems(checkout, run.id)?;
                    return Ok(Some((run, code, failed)));
                }
            }
            Ok(None)
        })?;
        let Some((last, before, failed)) = last else {
            return Ok(Chosen {
                words: Vec::new(),
                note: "homespace: affected: no earlier run to compare the code with, so every \
                       test ran, traced"
                    .into(),
            });
        };
        let now = snapshot(&self.project, &self.modules);
        let mut changed: Vec<&str> = now.changed_since(&before);
        changed.extend(
            before
                .symbols
                .keys()
                .filter(|key| !now.symbols.contains_key(*key))
                .map(String::as_str),
        );
        let mut tests: BTreeSet<&str> = BTreeSet::new();
        let mut files: BTreeSet<String> = BTreeSet::new();
        let mut named: Vec<String> = Vec::new();
        for key in &changed {
            let Some((file, qualname)) = key.split_once("::") else {
                continue;
            };
            // A test module that changed runs whole, its new tests among it; a conftest.py
            // or a helper of the tests is code like any other.
            if self.is_test_module(file) {
                files.insert(file.to_string());
                continue;
            }
            let known = before.symbols.contains_key(*key) && !qualname.is_empty();
            if known {
                tests.extend(ran.tests_of(file, qualname));
            } else {
                tests.extend(ran.tests_of_file(file));
            }
            named.push(if qualname.is_empty() {
                format!("{file} (its own lines)")
            } else {
                format!("{file}::{qualname}")
            });
        }
        // Test modules no trace has seen (the traces came from a pass over some files only,
        // or the module is new): run whole, so no test that ran the change is missed.
        let untraced: BTreeSet<&str> = now
            .symbols
            .keys()
            .filter_map(|key| key.split_once("::").map(|(file, _)| file))
            .filter(|file| self.is_test_module(file) && ran.tests_in(file).next().is_none())
            .collect();
        let never_traced = untraced.iter().filter(|f| !files.contains(**f)).count();
        files.extend(untraced.into_iter().map(str::to_string));
        for problem in &failed {
            tests.extend(
                ran.tests
                    .iter()
                    .filter(|t| junit_id_of(t) == problem.id)
                    .map(String::as_str),
            );
        }
        // A test of a file run whole needs no id of its own.
        tests.retain(|t| !files.iter().any(|f| t.starts_with(&format!("{f}::"))));
        if tests.is_empty() && files.is_empty() {
            return Err(Error::invalid(format!(
                "source/tests/run: no run was started: nothing the traced tests ran changed \
                 since run {}, and none of its tests failed; `echo > {}` runs every test",
                last.id,
                self.links.to("source/tests/run")
            )));
        }
        let mut words: Vec<String> = files.iter().cloned().collect();
        words.extend(tests.iter().map(|t| t.to_string()));
        let more = named.len().saturating_sub(NAMED);
        named.truncate(NAMED);
        let what = if named.is_empty() {
            "test files that changed or were never traced".to_string()
        } else if more > 0 {
            format!("{} and {more} more", named.join(", "))
        } else {
            named.join(", ")
        };
        let note = format!(
            "homespace: affected: {} of {} traced test{}{}, for what changed since run {}: {what}",
            tests.len(),
            ran.tests.len(),
            crate::model::count::plural(ran.tests.len()),
            match (files.len(), never_traced) {
                (0, _) => String::new(),
                (n, 0) => format!(
                    " and {n} changed test file{}",
                    crate::model::count::plural(n)
                ),
                (n, never) => format!(
                    " and {n} test file{} ({never} never traced, run whole to be)",
                    crate::model::count::plural(n)
                ),
            },
            last.id
        );
        Ok(Chosen { words, note })
    }

    /// Whether `file` (from the project's folder) is a test module pytest collects.
    fn is_test_module(&self, file: &str) -> bool {
        let path = self.project.root.join(file);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        self.project.is_test_file(&path) && self.project.is_test_module(&name)
    }

    /// What `covering <name>` runs: the tests that ran a function, method or class, or
    /// anything of a module (dotted, as `ledger.rates.interest` or `ledger.rates`).
    pub(crate) fn covering(&self, name: &str) -> Result<Chosen> {
        let (file, qualname) = self.named_code(name).ok_or_else(|| {
            Error::not_found(format!(
                "source/tests/run: no run was started: {name} is not a module, function, \
                 method or class of the project (write it dotted, as `covering \
                 package.module.name`)"
            ))
        })?;
        let ran = self.ran_now()?;
        let tests = match &qualname {
            Some(qualname) => ran.tests_of(&file, qualname),
            None => ran.tests_of_file(&file),
        };
        if tests.is_empty() {
            return Err(Error::not_found(format!(
                "source/tests/run: no run was started: no traced test ran {name}; `echo \
                 affected > {0}` or `echo > {0}` traces the tests that run",
                self.links.to("source/tests/run")
            )));
        }
        Ok(Chosen {
            note: format!(
                "homespace: covering {name}: the {} test{} whose newest trace ran it",
                tests.len(),
                crate::model::count::plural(tests.len())
            ),
            words: tests.into_iter().map(str::to_string).collect(),
        })
    }

    /// The file (from the project's folder) and qualified name (`None`: the whole module)
    /// of the project code `name` names, dotted.
    fn named_code(&self, name: &str) -> Option<(String, Option<String>)> {
        let parts: Vec<String> = name.split('.').map(str::to_string).collect();
        let dotted = Dotted::new(&parts);
        let from_root = |path: &std::path::Path| {
            path.strip_prefix(&self.project.root)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned()
        };
        if let Some(module) = self.resolver().module_file(dotted) {
            return Some((from_root(&module), None));
        }
        let found = self.resolver().locate_symbol(dotted)?;
        Some((
            from_root(&found.module),
            Some(Dotted::new(&found.symbol.qualname).to_string()),
        ))
    }

    /// Which tests ran what, as of the newest run.
    fn ran_now(&self) -> Result<Arc<Ran>> {
        let newest = self
            .newest_run()
            .map(|run| (run.id, run.status))
            .unwrap_or((0, String::new()));
        if let Some((key, ran)) = crate::tree::lock(&self.ran).as_ref()
            && *key == newest
        {
            return Ok(Arc::clone(ran));
        }
        let ran = Arc::new(self.ran()?);
        *crate::tree::lock(&self.ran) = Some((newest, Arc::clone(&ran)));
        Ok(ran)
    }

    /// What a module's view (`qualname` `None`) or a class's says of the tests that ran it,
    /// its members' counts the highest first, and how to run just those; `None` when no
    /// traced test ran it. `dotted` is its dotted name.
    pub(crate) fn tests_line(
        &self,
        file: &str,
        qualname: Option<&str>,
        dotted: &str,
    ) -> Option<String> {
        let ran = self.ran_now().ok()?;
        let tests = match qualname {
            Some(qualname) => ran.tests_of(file, qualname),
            None => ran.tests_of_file(file),
        };
        if tests.is_empty() {
            return None;
        }
        // Its members' own counts: the module's top-level symbols, or the class's methods.
        let depth = qualname.map_or(0, |q| q.split('.').count());
        let mut members: Vec<(usize, &str)> = ran
            .by_symbol
            .keys()
            .filter(|(f, q)| {
                f == file
                    && q.split('.').count() == depth + 1
                    && qualname.is_none_or(|parent| q.starts_with(&format!("{parent}.")))
            })
            .map(|(_, q)| {
                (
                    ran.tests_of(file, q).len(),
                    q.rsplit('.').next().unwrap_or(q),
                )
            })
            .collect();
        members.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let more = members.len().saturating_sub(MEMBERS);
        let mut shown: Vec<String> = members
            .iter()
            .take(MEMBERS)
            .map(|(n, name)| format!("{name} {n}"))
            .collect();
        if more > 0 {
            shown.push(format!("{more} more"));
        }
        Some(format!(
            "**Tests**: {} traced test{} ran this ({}); just those: `echo 'covering {dotted}' > {}`",
            tests.len(),
            crate::model::count::plural(tests.len()),
            shown.join(", "),
            self.links.to("source/tests/run")
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use crate::resources::source::Source;
    use crate::resources::source::testing::{can_run_tests, source_over};
    use crate::store::Store;
    use crate::tree::access::Admission;

    const OPS: &str = "def half(n):\n    if n < 0:\n        raise ValueError(n)\n    return n // 2\n\n\ndef add(a, b):\n    return a + b\n\n\ndef scale(a, k):\n    return add(a, 0) * k\n";

    fn project() -> (tempfile::TempDir, std::path::PathBuf) {
        crate::resources::source::testing::project_with(&[
            ("calc/__init__.py", ""),
            ("calc/ops.py", OPS),
            (
                "tests/test_ops.py",
                "from calc.ops import add, half, scale\n\n\ndef test_half():\n    assert half(4) == 2\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_scale():\n    assert scale(2, 3) == 6\n",
            ),
            (
                "tests/test_more.py",
                "import pytest\n\nfrom calc import ops\n\n\ndef test_negative_half():\n    with pytest.raises(ValueError):\n        ops.half(-1)\n\n\ndef test_add_more():\n    assert ops.add(2, 2) == 4\n",
            ),
        ])
    }

    /// The project over a store, where the tests can run.
    struct Here {
        _dir: tempfile::TempDir,
        root: std::path::PathBuf,
        store: Arc<Store>,
        source: Arc<Source>,
    }

    /// [`Here`], or `None` (said) where no interpreter runs the tests.
    fn here() -> Option<Here> {
        let (_dir, root) = project();
        if !can_run_tests(&root) {
            return None;
        }
        let store = Arc::new(Store::in_memory().unwrap());
        let source = source_over(&root, &store);
        Some(Here {
            _dir,
            root,
            store,
            source,
        })
    }

    /// Waits for run `id` to end (a bound on waiting, not a speed claim).
    fn ended(store: &Store, checkout: &str, id: i64) -> crate::store::runs::Run {
        let started = Instant::now();
        loop {
            let run = store
                .records(|db| db.runs().get(checkout, Some(id)))
                .unwrap()
                .unwrap();
            if run.status != "running" {
                return run;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "run {id} ended"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn affected_runs_every_test_that_ran_an_edited_symbol_and_fewer_than_all() {
        let Some(Here {
            _dir,
            root,
            store,
            source,
        }) = here()
        else {
            return;
        };
        let runner = &source.runner;
        let checkout = runner.runs.checkout.clone();
        let _owner = Admission::enter(true);

        // Nothing traced yet: every test runs, traced.
        let first = runner.start_run(b"affected").unwrap();
        assert_eq!(ended(&store, &checkout, first).status, "passed");
        let output = store
            .records(|db| db.runs().output(&checkout, first))
            .unwrap()
            .unwrap();
        assert!(
            output.starts_with("homespace: affected: no test has been traced yet"),
            "{output}"
        );
        let traced = store
            .records(|db| db.runs().traced(&checkout, first))
            .unwrap()
            .expect("the run was traced");
        let all: BTreeSet<String> = traced
            .coverage
            .tests
            .iter()
            .map(|t| t.test.clone())
            .collect();
        assert_eq!(all.len(), 5);
        assert_eq!(
            runner.tests_line("calc/ops.py", None, "calc.ops").unwrap(),
            "**Tests**: 5 traced tests ran this (add 3, half 2, scale 1); just those: `echo \
             'covering calc.ops' > /mnt/hs/source/tests/run`"
        );
        // The truth, from the full traced run's own lines: who ran `half` (lines 1-4).
        let truth: BTreeSet<String> = traced
            .coverage
            .tests
            .iter()
            .filter(|t| {
                t.files
                    .get("calc/ops.py")
                    .is_some_and(|lines| lines.iter().any(|l| (1..=4).contains(l)))
            })
            .map(|t| t.test.clone())
            .collect();
        assert_eq!(
            truth,
            BTreeSet::from([
                "tests/test_more.py::test_negative_half".to_string(),
                "tests/test_ops.py::test_half".to_string()
            ])
        );

        // One symbol edited outside the mount, a line longer: what follows it moves down.
        let edited = OPS.replace(
            "    return n // 2\n",
            "    whole = n // 2\n    return whole\n",
        );
        std::fs::write(root.join("calc/ops.py"), edited).unwrap();
        let chosen = runner.affected().unwrap();
        let words: BTreeSet<String> = chosen.words.iter().cloned().collect();
        assert!(
            truth.is_subset(&words),
            "{words:?} misses some of {truth:?}"
        );
        assert!(words.len() < all.len(), "{words:?}");
        assert!(chosen.note.contains("calc/ops.py::half"), "{}", chosen.note);

        // Who ran `add`, told by the code the trace was made with though `add` moved.
        let covering = runner.covering("calc.ops.add").unwrap();
        assert_eq!(
            covering.words,
            [
                "tests/test_more.py::test_add_more",
                "tests/test_ops.py::test_add",
                "tests/test_ops.py::test_scale"
            ]
        );
        assert!(runner.covering("calc.ops.nothing").is_err());
        assert_eq!(runner.covering("calc.ops").unwrap().words.len(), 5);

        // The affected run passes; with nothing changed since, there is nothing to run.
        let second = runner.start_run(b"affected").unwrap();
        assert_eq!(ended(&store, &checkout, second).status, "passed");
        let again = runner.affected().unwrap_err();
        assert!(
            again
                .message
                .contains("nothing the traced tests ran changed"),
            "{}",
            again.message
        );
    }

    #[test]
    fn a_partial_trace_never_hides_a_test() {
        let Some(Here {
            _dir,
            root,
            store,
            source,
        }) = here()
        else {
            return;
        };
        let runner = &source.runner;
        let checkout = runner.runs.checkout.clone();
        let _owner = Admission::enter(true);
        // A failing run: only the failing test's file is traced again.
        let ops = root.join("calc/ops.py");
        std::fs::write(&ops, OPS.replace("n // 2", "n // 3")).unwrap();
        let first = runner.start_run(b"").unwrap();
        assert_eq!(ended(&store, &checkout, first).status, "failed");
        let traced = store
            .records(|db| db.runs().traced(&checkout, first))
            .unwrap()
            .expect("a traced pass");
        assert_eq!(traced.files, ["tests/test_ops.py"]);
        // Fixed, and `add` changed: test_more.py ran `add` but no trace saw it.
        std::fs::write(&ops, OPS.replace("return a + b", "return b + a")).unwrap();
        let chosen = runner.affected().unwrap();
        assert_eq!(
            chosen.words,
            [
                "tests/test_more.py",
                "tests/test_ops.py::test_add",
                "tests/test_ops.py::test_half",
                "tests/test_ops.py::test_scale"
            ],
            "{}",
            chosen.note
        );
        assert!(
            chosen.note.contains("(1 never traced, run whole to be)"),
            "{}",
            chosen.note
        );
    }
}
