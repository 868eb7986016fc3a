//! `source/meta/` as a resourcespace of its own inside `source/`: `settings.toml`, the
//! document that says how `source/` behaves (validated and kept by [`SettingsFile`], the
//! part of `source/` it is handed), and an entry view that explains each setting with its value now.

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::model::links::Links;
use crate::model::{Child, Entry, Function, Kind, Node, Section};
use crate::resources::source::places::in_tree::tree_path_of;
use crate::resources::source::places::paths::META;
use crate::resources::source::settings::file::SettingsFile;
use crate::tree::glance::Glance;
use crate::tree::resource::Resource;
use crate::tree::resource::{Capabilities, Edit};

/// The settings document's name.
const SETTINGS: &str = "settings.toml";

/// `source/meta/`.
pub struct MetaDir {
    settings: Arc<SettingsFile>,
    links: Links,
}

impl MetaDir {
    pub fn new(settings: Arc<SettingsFile>, links: Links) -> Self {
        MetaDir { settings, links }
    }

    fn missing(path: &[&str]) -> Error {
        Error::not_found(format!(
            "source/{META}/{} does not exist: source/{META}/ holds {SETTINGS}",
            path.join("/")
        ))
    }
}

impl Resource for MetaDir {
    fn name(&self) -> &'static str {
        META
    }

    fn summary(&self) -> Result<String> {
        Ok("settings of source/: the import check, _nav.txt, paths left out, test runs".into())
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        let root = self.settings.ownership();
        match path {
            [] => Ok(Node::dir(true).owned(root)),
            [SETTINGS] => Ok(Node::document(true).owned(root)),
            _ => Err(Self::missing(path)),
        }
    }

    fn list(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        match path {
            [] => Ok(vec![Child::new(
                SETTINGS,
                Kind::Document,
                "how source/ behaves; write to change",
            )]),
            _ => Err(Error::new(
                ErrorKind::NotADirectory,
                format!("{} is a file", tree_path_of([META].iter().chain(path))),
            )),
        }
    }

    fn read(&self, _glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        match path {
            [SETTINGS] => Ok(self.settings.shown_text()?.into_bytes()),
            [] => Err(Error::new(
                ErrorKind::IsADirectory,
                format!(
                    "{} is a directory: read its _entry.md",
                    tree_path_of([META])
                ),
            )),
            _ => Err(Self::missing(path)),
        }
    }

    fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<Entry> {
        Ok(entry(&self.settings, &self.links))
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            edit: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Edit for MetaDir {
    fn write(&self, path: &[&str], content: &[u8], _base: Option<&[u8]>) -> Result<()> {
        match path {
            [SETTINGS] => self.settings.write(content),
            _ => Err(Error::read_only(format!(
                "source/{META}/{} cannot be written: only {SETTINGS} can",
                path.join("/")
            ))),
        }
    }
}

fn entry(kept: &SettingsFile, links: &Links) -> Entry {
    let settings = kept.current();
    let file = links.to("source/meta/settings.toml");
    // Said first: the owner expects these settings to apply, and they do not.
    let set_aside = settings.set_aside.iter().map(|why| {
        format!(
            "**Not in force:** {why}. The file applies again once no one but you can change it."
        )
    });
    Entry {
        title: format!(
            "source/meta — settings: import check {}",
            if settings.import_check { "on" } else { "off" }
        ),
        functions: vec![
            Function::new(
                format!("cat {file}"),
                "read the settings",
                "TOML with a comment on each setting",
            ),
            Function::new(
                format!("sed -i 's/enabled = true/enabled = false/' {file}"),
                "change one",
                "applied to the next edit; refused with reasons if invalid",
            ),
        ],
        sections: vec![Section {
            heading: "Settings".into(),
            items: set_aside.chain([
                format!(
                    "`import_check.enabled` = {} — after each routed edit, import the module in a separate Python process and undo the edit if that fails",
                    settings.import_check
                ),
                format!(
                    "`import_check.python` = {} — the interpreter (empty: the project's .venv, else python3)",
                    settings
                        .python
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| "\"\"".into())
                ),
                format!(
                    "`import_check.timeout_secs` = {} — how long an import may take",
                    settings.import_timeout.as_secs()
                ),
                format!(
                    "`nav.depth` = {} — levels below the current directory that _nav.txt shows",
                    settings.nav.depth
                ),
                format!(
                    "`nav.collapse` = {} — members per directory in _nav.txt before `+N more`",
                    settings.nav.collapse
                ),
                format!(
                    "`project.ignore` = {:?} — more paths source/ leaves out (.gitignore lines)",
                    settings.ignore
                ),
                format!(
                    "`source.expose_new_modules` = {} — a new module is imported in its package's __init__.py",
                    settings.expose_new_modules
                ),
                format!(
                    "`tests.args` = {:?} — pytest arguments before every selector written to source/tests/run",
                    settings.test_args
                ),
                format!(
                    "`tests.timeout_secs` = {} — how long a test run may take before it is stopped",
                    settings.test_timeout.as_secs()
                ),
                format!(
                    "`tests.trace` = {} — a failing run's test files run again traced, to rank the suspects by what the failing tests ran",
                    settings.test_trace
                ),
                format!(
                    "`tests.probe_secs` = {} — seconds the traced pass may try one-token changes that make the first failing test pass (0: none)",
                    settings.test_probe.as_secs()
                ),
            ])
            .collect(),
            ..Section::default()
        }],
        advanced: vec![format!(
            "Kept in `{}`, yours alone (never in the store): `import_check.python` and `tests.args` choose what runs as you, so the file applies only while it and its folders are writable by no one else — all of it, or none.",
            kept.path().display()
        )],
        ..Entry::default()
    }
}
