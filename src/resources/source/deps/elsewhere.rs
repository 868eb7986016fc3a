//! Dependencies declared outside `[project]`, shown read-only in `source/deps/` where they
//! can be read without running anything: pip requirements files (`requirements*.txt`),
//! `setup.cfg`'s `install_requires` and extras, Poetry's tables. Each source is a directory named
//! after where it is (`requirements-dev.txt/`, `tool.poetry.dependencies/`): a name with a
//! dot, which no normalised package name has. setup.py is code: it is named, not read,
//! and only when it passes `install_requires`.

use std::path::Path;

use toml_edit::{Document, Item};

use crate::pyproject::requirement;

/// One place declaring dependencies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Declared {
    /// The directory name under `source/deps/`.
    pub name: String,
    /// What it is, for the entry views.
    pub about: String,
    /// Each package (normalised name) with the line declaring it, in order.
    pub packages: Vec<(String, String)>,
    /// Lines that name no package (options, includes, bare URLs).
    pub other: Vec<String>,
}

impl Declared {
    /// The lines declaring package `name`, one per line, or `None`.
    pub fn text(&self, name: &str) -> Option<String> {
        let lines: Vec<&str> = self
            .packages
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, line)| line.as_str())
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n") + "\n")
    }

    /// The packages, each once, in order.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in &self.packages {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }
}

/// Every readable place in the project at `root` that declares dependencies.
pub(super) fn declared(root: &Path) -> Vec<Declared> {
    let mut found = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("requirements") && n.ends_with(".txt"))
        .collect();
    names.sort();
    for name in names {
        if let Ok(text) = std::fs::read_to_string(root.join(&name)) {
            let lines = text.lines().map(|l| strip_comment(l).to_string());
            found.push(of_lines(&name, "pip requirements file", lines));
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("setup.cfg"))
        && let Some(lines) = install_requires(&text)
    {
        found.push(of_lines(
            "setup.cfg",
            "`install_requires` under `[options]` of setup.cfg",
            lines.into_iter(),
        ));
    }
    if let Ok(text) = std::fs::read_to_string(root.join("pyproject.toml")) {
        found.extend(poetry(&text));
    }
    found
}

/// Every place [`declared`] finds, then each extra of setup.cfg's
/// `[options.extras_require]` (`setup.cfg.extras_require.testing/`): what pip installs
/// with `pip install '.[testing]'`.
pub(super) fn places(root: &Path) -> Vec<Declared> {
    let mut found = declared(root);
    if let Ok(text) = std::fs::read_to_string(root.join("setup.cfg")) {
        for (extra, lines) in setup_cfg_section(&text, "options.extras_require") {
            found.push(of_lines(
                &format!("setup.cfg.extras_require.{extra}"),
                &format!("extra `{extra}` under `[options.extras_require]` of setup.cfg"),
                lines.into_iter(),
            ));
        }
    }
    found
}

/// Whether the project's setup.py passes `install_requires`, whose value only running it
/// can tell; a setup.py without it (pluggy's, which leaves everything to setup.cfg) is not
/// where the project's requirements are.
pub(super) fn setup_py_requires(root: &Path) -> bool {
    std::fs::read_to_string(root.join("setup.py")).is_ok_and(|t| t.contains("install_requires"))
}

fn of_lines(name: &str, about: &str, lines: impl Iterator<Item = String>) -> Declared {
    let mut declared = Declared {
        name: name.to_string(),
        about: about.to_string(),
        packages: Vec::new(),
        other: Vec::new(),
    };
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match requirement::parse(line) {
            Ok(r) if !line.starts_with('-') => declared.packages.push((r.name, r.text)),
            _ => declared.other.push(line.to_string()),
        }
    }
    declared
}

/// A requirements line without its comment (pip: `#` after whitespace, or at the start).
fn strip_comment(line: &str) -> &str {
    if line.trim_start().starts_with('#') {
        return "";
    }
    match line.find(" #").or_else(|| line.find("\t#")) {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The lines of `install_requires` in setup.cfg's `[options]`, if it has any.
fn install_requires(text: &str) -> Option<Vec<String>> {
    setup_cfg_section(text, "options")
        .into_iter()
        .find_map(|(key, lines)| (key == "install_requires").then_some(lines))
}

/// Each key of setup.cfg's `[section]` with its value's lines: the first after `=`, then
/// the indented continuation lines, comments left out.
fn setup_cfg_section(text: &str, section: &str) -> Vec<(String, Vec<String>)> {
    let header = format!("[{section}]");
    let mut found = Vec::new();
    let mut inside = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            inside = trimmed == header;
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            continue;
        };
        if !inside || line.starts_with([' ', '\t']) {
            continue;
        }
        let mut values = vec![strip_comment(value).trim().to_string()];
        while let Some(next) = lines.peek() {
            // Continuation lines are indented; blank ones may sit between them.
            if !next.starts_with([' ', '\t']) && !next.trim().is_empty() {
                break;
            }
            values.push(strip_comment(next).trim().to_string());
            lines.next();
        }
        found.push((key.trim().to_string(), values));
    }
    found
}

/// Poetry's `[tool.poetry.dependencies]` and each `[tool.poetry.group.<g>.dependencies]`.
fn poetry(text: &str) -> Vec<Declared> {
    let Ok(doc) = Document::parse(text) else {
        return Vec::new();
    };
    let Some(poetry) = doc.get("tool").and_then(|t| t.get("poetry")) else {
        return Vec::new();
    };
    let mut tables = vec![(
        "tool.poetry.dependencies".to_string(),
        poetry.get("dependencies"),
    )];
    if let Some(groups) = poetry.get("group").and_then(Item::as_table_like) {
        for (group, item) in groups.iter() {
            tables.push((
                format!("tool.poetry.group.{group}.dependencies"),
                item.get("dependencies"),
            ));
        }
    }
    tables
        .into_iter()
        .filter_map(|(name, table)| {
            let table = table?.as_table_like()?;
            let mut declared = Declared {
                about: format!("Poetry's [{name}] in pyproject.toml"),
                name,
                packages: Vec::new(),
                other: Vec::new(),
            };
            for (key, item) in table.iter() {
                let line = item
                    .span()
                    .and_then(|value| {
                        let start = table.key(key)?.span()?.start;
                        text.get(start..value.end)
                    })
                    .map_or_else(
                        || format!("{key} = {}", item.to_string().trim()),
                        str::to_string,
                    );
                match requirement::normalize(key) {
                    Ok(name) if key != "python" => declared.packages.push((name, line)),
                    _ => declared.other.push(line),
                }
            }
            Some(declared)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_files_setup_cfg_and_poetry_are_read_without_running_anything() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("requirements.txt"),
            "# pinned\nRequests==2.31.0  # http\n-r requirements-dev.txt\n\nnumpy>=1.26; python_version<'3.12'\nnumpy>=2; python_version>='3.12'\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("setup.cfg"),
            "[metadata]\nname = x\n\n[options]\npackages = find:\ninstall_requires =\n    attrs>=22\n    click\n\n[options.extras_require]\ndev = pytest\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.poetry.dependencies]\npython = \"^3.10\"\nhttpx = { version = \"^0.27\", extras = [\"http2\"] }\n\n[tool.poetry.group.dev.dependencies]\npytest = \"^8\"\n",
        )
        .unwrap();
        let found = declared(dir.path());
        let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "requirements.txt",
                "setup.cfg",
                "tool.poetry.dependencies",
                "tool.poetry.group.dev.dependencies"
            ]
        );
        let pip = &found[0];
        assert_eq!(pip.names(), ["requests", "numpy"]);
        assert_eq!(pip.text("requests").unwrap(), "Requests==2.31.0\n");
        assert_eq!(pip.text("numpy").unwrap().lines().count(), 2);
        assert_eq!(pip.other, ["-r requirements-dev.txt"]);
        assert_eq!(found[1].names(), ["attrs", "click"]);
        assert_eq!(
            found[2].text("httpx").unwrap(),
            "httpx = { version = \"^0.27\", extras = [\"http2\"] }\n"
        );
        assert_eq!(found[2].other, ["python = \"^3.10\""]);
        assert_eq!(found[3].text("pytest").unwrap(), "pytest = \"^8\"\n");
    }
}
