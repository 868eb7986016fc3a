//! The runner's side of ranked suspects: the project's symbols as the ranking
//! ([`crate::testrun::ranking`]) takes them, a snapshot of the project's code taken when a
//! run starts, and ranked symbols turned into suspects that name their symbol files.

use std::collections::BTreeSet;
use std::path::Path;

use crate::python::Dotted;
use crate::resources::source::modules::Modules;
use crate::resources::source::project::Project;
use crate::resources::source::resolve::{Found, stems};
use crate::resources::source::runner::Runner;
use crate::resources::source::runner::suspects::Suspect;
use crate::store::runs;
use crate::testrun::coverage::Traced;
use crate::testrun::junit::Problem;
use crate::testrun::probe::Fix;
use crate::testrun::ranking::{self, Evidence, Ranked, Reason, Span};
use crate::testrun::snapshot::Snapshot;
use crate::testrun::traceback::Frame;

/// Suspects a failure file lists; `result.md` shows the first of them.
pub(crate) const MOST: usize = 5;

/// What a run's suspects are ranked from, read from the store once per view.
pub(crate) struct RunEvidence {
    run: i64,
    /// The run's traced pass; `None` when it had none (tracing off, nothing to trace, a
    /// pass that did not end).
    traced: Option<Traced>,
    /// The code when the run started.
    code: Option<Snapshot>,
    /// Each failure's traceback frames (file from the project's folder, line), by test.
    frames: Vec<(String, Vec<(String, u32)>)>,
}

/// The frames of a failure's traceback and of the run's other failures (file from the
/// project's folder, line; outermost first).
struct Tracebacks<'a> {
    own: &'a [(String, u32)],
    others: &'a [Vec<(String, u32)>],
}

/// `frames` as the ranking takes them.
fn places(frames: &[Frame]) -> Vec<(String, u32)> {
    frames
        .iter()
        .map(|f| (f.file.clone(), u32::try_from(f.line).unwrap_or(u32::MAX)))
        .collect()
}

/// A failure's suspects, and whether they were ranked or guessed from the text.
pub(crate) struct Suspects {
    pub(crate) found: Vec<Suspect>,
    ranked: bool,
}

impl Suspects {
    /// The line that says a traced failure has no ranked suspect, rather than guessing;
    /// empty otherwise.
    pub(crate) fn none_said(&self) -> String {
        if self.ranked && self.found.is_empty() {
            "No ranked suspect: the failing test ran no project code outside the tests.\n".into()
        } else {
            String::new()
        }
    }
}

impl Runner {
    /// What the suspects of `run`'s failures are ranked from.
    pub(crate) fn evidence(&self, run: &runs::Run) -> RunEvidence {
        let (traced, code, problems) = self
            .runs
            .store
            .records(|db| {
                let runs = db.runs();
                Ok((
                    runs.traced(&self.runs.checkout, run.id)?,
                    runs.snapshot(&self.runs.checkout, run.id)?,
                    runs.problems(&self.runs.checkout, run.id)?,
                ))
            })
            .unwrap_or_default();
        let frames = problems
            .into_iter()
            .map(|p| {
                let frames = places(&crate::testrun::traceback::read(&p.traceback).frames);
                (p.id, frames)
            })
            .collect();
        RunEvidence {
            run: run.id,
            traced,
            code,
            frames,
        }
    }

    /// The suspects of `problem`, whose traceback has `frames`: ranked when its test was
    /// traced, else guessed from the traceback and the test's text.
    pub(crate) fn suspects_of(
        &self,
        evidence: &RunEvidence,
        problem: &Problem,
        frames: &[Frame],
    ) -> Suspects {
        // The failing test's node id in the traced pass, found once.
        let traced_failing = evidence.traced.as_ref().and_then(|traced| {
            let test = traced
                .coverage
                .tests
                .iter()
                .find(|t| junit_id_of(&t.test) == problem.id)?;
            Some((traced, test.test.as_str()))
        });
        let Some((traced, nodeid)) = traced_failing else {
            return Suspects {
                found: self.suspects(frames),
                ranked: false,
            };
        };
        let changed = self.changed_for(evidence, &problem.id);
        let others: Vec<Vec<(String, u32)>> = evidence
            .frames
            .iter()
            .filter(|(test, _)| *test != problem.id)
            .map(|(_, frames)| frames.clone())
            .collect();
        let tracebacks = Tracebacks {
            own: &places(frames),
            others: &others,
        };
        Suspects {
            found: self.ranked_suspects(traced, nodeid, &changed, &tracebacks),
            ranked: true,
        }
    }

    /// The symbols changed between the last run in which test `junit_id` passed and
    /// `evidence`'s run; none when it never passed before or a snapshot is missing.
    fn changed_for(&self, evidence: &RunEvidence, junit_id: &str) -> BTreeSet<(String, String)> {
        let Some(now) = &evidence.code else {
            return BTreeSet::new();
        };
        let checkout = &self.runs.checkout;
        let before = self.runs.store.records(|db| {
            let runs = db.runs();
            match runs.last_passed(checkout, junit_id, evidence.run)? {
                Some(green) => runs.snapshot(checkout, green),
                None => Ok(None),
            }
        });
        match before {
            Ok(Some(before)) => changed_symbols(now, &before),
            _ => BTreeSet::new(),
        }
    }

    /// The lines of `suspect`'s module that ranked highest, with their code.
    pub(crate) fn hot_lines(&self, suspect: &Suspect) -> Vec<(u32, String)> {
        let Some((file, _)) = suspect.lines.rsplit_once(':') else {
            return Vec::new();
        };
        let Ok(module) = self.modules.get(None, &self.project.root.join(file)) else {
            return Vec::new();
        };
        let Ok(text) = module.text() else {
            return Vec::new();
        };
        let lines: Vec<&str> = text.lines().collect();
        suspect
            .hot
            .iter()
            .filter_map(|&n| {
                let code = lines.get(usize::try_from(n).ok()?.checked_sub(1)?)?;
                Some((n, crate::render::one_line(code.trim(), 100)))
            })
            .collect()
    }

    /// The ranked suspects of the failure of the traced test `nodeid`,
    /// from the run's traced pass, the symbols `changed` since its tests last passed and
    /// the run's `tracebacks`; empty when the test was not traced failing.
    fn ranked_suspects(
        &self,
        traced: &Traced,
        nodeid: &str,
        changed: &BTreeSet<(String, String)>,
        tracebacks: &Tracebacks<'_>,
    ) -> Vec<Suspect> {
        let spans = |file: &str| self.spans(file);
        let fixes: Vec<&Fix> = traced
            .probing
            .iter()
            .flat_map(|p| p.fixes_of(nodeid))
            .collect();
        let ranked = ranking::rank(
            &Evidence {
                coverage: &traced.coverage,
                test: nodeid,
                spans: &spans,
                changed,
                frames: tracebacks.own,
                others: tracebacks.others,
                fixes: &fixes,
            },
            MOST,
        );
        ranked
            .iter()
            .filter_map(|r| self.ranked_suspect(r))
            .collect()
    }

    /// The symbols of project file `file` (from the project's folder); `None` for a test
    /// file, a hidden one or one that does not parse.
    fn spans(&self, file: &str) -> Option<Vec<Span>> {
        let path = self.project.root.join(file);
        if self.project.is_test_file(&path) || self.project.is_hidden(&path, false) {
            return None;
        }
        let module = self.modules.get(None, &path).ok()?;
        let lines: Vec<&str> = module.text().ok()?.lines().collect();
        Some(
            module
                .index
                .symbols
                .iter()
                .map(|s| {
                    let body = lines
                        .get(s.first_line.saturating_sub(1)..)
                        .unwrap_or_default()
                        .iter()
                        .take(s.lines);
                    Span {
                        qualname: Dotted::new(&s.qualname).to_string(),
                        first: u32::try_from(s.first_line).unwrap_or(u32::MAX),
                        last: u32::try_from(s.first_line + s.lines.saturating_sub(1))
                            .unwrap_or(u32::MAX),
                        mentions: body.flat_map(|line| names_in(line)).collect(),
                    }
                })
                .collect(),
        )
    }

    fn ranked_suspect(&self, ranked: &Ranked) -> Option<Suspect> {
        let module = self.project.root.join(&ranked.file);
        let parsed = self.modules.get(None, &module).ok()?;
        let symbols = &parsed.index.symbols;
        let at = symbols.iter().position(|s| {
            s.first_line == ranked.span.first as usize
                && Dotted::new(&s.qualname).to_string() == ranked.span.qualname
        })?;
        let found = Found {
            module,
            stems: stems(symbols, at),
            symbol: symbols[at].clone(),
        };
        // The fix's own line says what a one-token change did, when there are other
        // reasons to give here.
        let said_below =
            |r: &&Reason| **r == Reason::Fixed && ranked.fix.is_some() && ranked.why.len() > 1;
        let mut why = ranked
            .why
            .iter()
            .filter(|r| !said_below(r))
            .map(|r| r.label())
            .collect::<Vec<_>>()
            .join(", ");
        if why.is_empty() {
            use crate::model::count::plural;
            why = format!(
                "ran by {} failing and {} passing test{}",
                ranked.failing,
                ranked.passing,
                plural(ranked.passing)
            );
        }
        let mut suspect = self.suspect_of(&found, why)?;
        suspect.score = Some(ranked.score);
        suspect.hot = ranked.hot.clone();
        suspect.fix = ranked.fix.clone();
        suspect.reasoned = !ranked.why.is_empty();
        Some(suspect)
    }
}

/// What the project's code and tests are now, symbol by symbol.
pub(crate) fn snapshot(project: &Project, modules: &Modules) -> Snapshot {
    let mut snapshot = Snapshot::default();
    for path in project.python_files() {
        let Ok(rel) = path.strip_prefix(&project.root) else {
            continue;
        };
        snapshot_module(modules, &path, &rel.to_string_lossy(), &mut snapshot);
    }
    snapshot
}

/// Adds each symbol's own lines of module `path` (`file` from the project's folder): a
/// class's without its methods', the module's without any symbol's.
fn snapshot_module(modules: &Modules, path: &Path, file: &str, snapshot: &mut Snapshot) {
    let Ok(module) = modules.get(None, path) else {
        return;
    };
    let Ok(text) = module.text() else { return };
    let lines: Vec<&str> = text.lines().collect();
    let symbols = &module.index.symbols;
    // The innermost symbol holding each line.
    let mut owner: Vec<Option<usize>> = vec![None; lines.len()];
    for (i, symbol) in symbols.iter().enumerate() {
        let end = (symbol.first_line + symbol.lines).min(lines.len() + 1);
        for line in symbol.first_line.max(1)..end {
            let slot = &mut owner[line - 1];
            if slot.is_none_or(|o| symbols[o].lines >= symbol.lines) {
                *slot = Some(i);
            }
        }
    }
    // Per symbol (by index; `None`: the module's own lines), its own lines' text.
    let mut own: std::collections::BTreeMap<Option<usize>, String> = Default::default();
    for (line, holder) in lines.iter().zip(&owner) {
        let text = own.entry(*holder).or_default();
        text.push_str(line);
        text.push('\n');
    }
    for (holder, text) in own {
        match holder {
            None => snapshot.add(Snapshot::key(file, ""), &text),
            Some(i) => {
                let symbol = &symbols[i];
                let line = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                snapshot.add_at(
                    Snapshot::key(file, &Dotted::new(&symbol.qualname).to_string()),
                    &text,
                    line(symbol.first_line),
                    line(symbol.first_line + symbol.lines.saturating_sub(1)),
                );
            }
        }
    }
}

/// The identifiers of a line of code (and of its strings and comments: a name there is
/// rarely a symbol's, and reading it right costs a parse).
fn names_in(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| {
            word.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_string)
}

/// The symbols of `now` changed since `before`, as the ranking takes them.
pub(crate) fn changed_symbols(now: &Snapshot, before: &Snapshot) -> BTreeSet<(String, String)> {
    now.changed_since(before)
        .into_iter()
        .filter_map(|key| key.split_once("::"))
        .filter(|(_, qualname)| !qualname.is_empty())
        .map(|(file, qualname)| (file.to_string(), qualname.to_string()))
        .collect()
}

/// The id a JUnit report gives the test of node id `nodeid`: `tests/test_ops.py::TestOps::
/// test_div[a::b]` is `tests.test_ops.TestOps.test_div[a::b]`.
pub(crate) fn junit_id_of(nodeid: &str) -> String {
    let (base, params) = match nodeid.find('[') {
        Some(at) => nodeid.split_at(at),
        None => (nodeid, ""),
    };
    let mut parts = base.split("::");
    let file = parts.next().unwrap_or_default();
    let module = file.strip_suffix(".py").unwrap_or(file).replace('/', ".");
    let mut id = module;
    for part in parts {
        id.push('.');
        id.push_str(part);
    }
    id.push_str(params);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_id_is_spelled_as_the_report_spells_it() {
        assert_eq!(
            junit_id_of("tests/unit/test_ops.py::TestOps::test_div[a::b/c]"),
            "tests.unit.test_ops.TestOps.test_div[a::b/c]"
        );
        assert_eq!(junit_id_of("test_x.py::test_y"), "test_x.test_y");
    }
}
