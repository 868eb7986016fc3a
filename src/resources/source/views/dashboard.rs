//! What `source/` puts on the root dashboard: the test state with the command that runs the
//! tests and waits for their result, the verbs on code (read a symbol by its dotted path,
//! edit it), and the project's size. Counting modules walks the whole project: fine, as the
//! dashboard is rendered once per change.

use super::Views;
use crate::model::names::ERRORS;
use crate::model::{RootPart, Verb};
use crate::render::thousands;
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::project::EntryKind;
use crate::resources::source::runner::run_summary as summary;

impl Views {
    pub(in crate::resources::source) fn dashboard(&self) -> RootPart {
        let result = self.links.to("source/tests/runs/latest/result.md");
        let tests = match self.runner.newest_run() {
            None => "Tests: not run here yet.".to_string(),
            Some(run) if run.status == "running" => {
                format!(
                    "Tests: run {} is running — `cat {result}` waits for its end",
                    run.id
                )
            }
            Some(run) => format!("Tests: run {} {} — `cat {result}`", run.id, summary(&run)),
        };
        let (test_files, code): (Vec<_>, Vec<_>) = self
            .project
            .python_files()
            .into_iter()
            .partition(|file| self.project.is_test_file(file));
        // A real package name makes the dotted path recognisable at a glance.
        let packages: Vec<String> = self
            .project
            .top_level(None)
            .into_iter()
            .filter(|e| e.kind == EntryKind::Dir)
            .map(|e| e.name)
            .collect();
        let dotted = match packages.as_slice() {
            [one] => format!("{one}.<module>.<Class>.<method>"),
            _ => "<package>.<module>.<function>".to_string(),
        };
        let mut state = vec![tests];
        // While it runs, a first listing of symbols may still wait for its module's parse.
        state.extend(self.indexing.progress().map(|p| format!("Source: {p}")));
        RootPart {
            state,
            verbs: vec![
                Verb::new(
                    "run the tests and wait",
                    format!("echo > {}; cat {result}", self.links.to("source/tests/run")),
                )
                .changing(),
                Verb::new(
                    "read a symbol",
                    format!(
                        "cat {}",
                        self.links.file(&tree_path(format!("{dotted}.py")))
                    ),
                ),
                Verb::new(
                    "edit: sed -i or cp onto its file; why a write was refused",
                    format!("cat {}", self.links.to(ERRORS)),
                )
                .changing(),
            ],
            place: format!(
                "source/ ({} modules, {} test modules)",
                thousands(code.len() as u64),
                thousands(test_files.len() as u64)
            ),
        }
    }
}
