//! Search in the project's code: every `.py` file of the code and the tests, scanned on
//! two threads, matches reported as `ledger.accounts:42: def debit(self, amount)` with the
//! path of the symbol file that holds the line. Plain queries are literal (case-insensitive
//! when all lowercase, like ripgrep's smart case); `re:` makes a regular expression.
//! Definitions rank first, then the rest in path order. Only the hits shown are parsed.

use std::path::{Path, PathBuf};

use regex::bytes::{Regex, RegexBuilder};

use crate::error::{Error, Result};
use crate::model::{Hit, Hits};
use crate::resources::source::Source;

/// One matching line.
#[derive(Debug)]
struct Found {
    file: usize,
    line: usize,
    offset: usize,
    text: String,
    definition: bool,
}

/// Search `query` in `source`; at most `limit` hits, `total` counts every matching line.
pub fn search(source: &Source, query: &str, limit: usize) -> Result<Hits> {
    let regex = compile(query)?;
    let files = source.project.python_files();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let chunk = files.len().div_ceil(threads).max(1);
    let (mut found, total) = std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .enumerate()
            .map(|(n, part)| {
                let regex = &regex;
                scope.spawn(move || scan(regex, part, n * chunk, limit))
            })
            .collect();
        let mut found: Vec<Found> = Vec::new();
        let mut total = 0;
        for worker in workers {
            let (hits, count) = worker.join().unwrap_or_default();
            found.extend(hits);
            total += count;
        }
        (found, total)
    });
    found.sort_by_key(|f| (!f.definition, f.file, f.line));
    found.truncate(limit);
    let hits = found
        .iter()
        .map(|f| hit(source, &files[f.file], f))
        .collect();
    Ok(Hits {
        hits,
        total,
        note: None,
    })
}

fn compile(query: &str) -> Result<Regex> {
    let (pattern, smart_case) = match query.strip_prefix("re:") {
        Some(pattern) => (pattern.to_string(), false),
        None => (regex::escape(query), !query.chars().any(char::is_uppercase)),
    };
    RegexBuilder::new(&pattern)
        .case_insensitive(smart_case)
        .multi_line(true)
        // A hostile pattern fails to compile instead of eating the daemon's memory.
        .size_limit(1 << 20)
        .dfa_size_limit(8 << 20)
        .build()
        .map_err(|e| {
            Error::invalid(format!(
                "the regular expression {pattern:?} is not valid: {e}"
            ))
        })
}

/// The first `limit` matching definition lines and the first `limit` other matching lines
/// of `files` (in order: all a ranking can show), and how many lines matched in all. Memory
/// stays bounded whatever the query (`re:^` matches every line of the project).
fn scan(regex: &Regex, files: &[PathBuf], first: usize, limit: usize) -> (Vec<Found>, usize) {
    let mut found = Vec::new();
    let (mut definitions, mut others, mut total) = (0, 0, 0);
    for (n, path) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let mut line = 1;
        let mut counted_to = 0;
        let mut last_line = 0;
        for m in regex.find_iter(&bytes) {
            line += bytes[counted_to..m.start()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted_to = m.start();
            if line == last_line {
                continue;
            }
            last_line = line;
            let start = bytes[..m.start()]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            let end = bytes[m.start()..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| m.start() + p);
            let text = String::from_utf8_lossy(&bytes[start..end])
                .trim()
                .to_string();
            let definition = ["def ", "class ", "async def "]
                .iter()
                .any(|k| text.starts_with(k));
            total += 1;
            let kept = if definition {
                &mut definitions
            } else {
                &mut others
            };
            if *kept >= limit {
                continue;
            }
            *kept += 1;
            found.push(Found {
                file: first + n,
                line,
                offset: start,
                text: cut(&text, 160),
                definition,
            });
        }
    }
    (found, total)
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// The hit for one matching line: module path, line, and the innermost symbol file.
fn hit(source: &Source, file: &Path, found: &Found) -> Hit {
    let (tree_dir, dotted) = tree_location(source, file);
    let mut path = format!("source/{tree_dir}");
    if let Ok(module) = source.modules.get(file) {
        let symbols = &module.index.symbols;
        let inner = symbols
            .iter()
            .enumerate()
            .rfind(|(_, s)| s.range.start <= found.offset && found.offset < s.range.end);
        if let Some((mut index, _)) = inner {
            let mut stems = vec![format!("{}.py", symbols[index].file_stem)];
            while let Some(parent) = symbols[index].parent {
                stems.push(symbols[parent].file_stem.clone());
                index = parent;
            }
            stems.reverse();
            path = format!(
                "source/{}/{}",
                tree_dir.trim_end_matches(".py"),
                stems.join("/")
            );
        }
    }
    Hit {
        path: source.links.to(&path),
        line: format!("{dotted}:{}: {}", found.line, found.text),
    }
}

/// Where a project file shows in the tree (`ledger/accounts.py`) and its dotted module name.
pub fn tree_location(source: &Source, file: &Path) -> (String, String) {
    let project = &source.project;
    let test_dir = project.test_dirs.iter().find(|t| file.starts_with(t));
    let (prefix, base) = match test_dir {
        Some(dir) if project.test_dirs.len() == 1 => ("tests/".to_string(), dir.as_path()),
        Some(dir) => (
            format!(
                "tests/{}/",
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
            dir.as_path(),
        ),
        None => (
            String::new(),
            project
                .code_roots
                .iter()
                .find(|r| file.starts_with(r))
                .map_or(project.root.as_path(), PathBuf::as_path),
        ),
    };
    let rel = file
        .strip_prefix(base)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned();
    let mut dotted = rel.trim_end_matches(".py").replace('/', ".");
    if let Some(package) = dotted.strip_suffix(".__init__") {
        dotted = package.to_string();
    }
    if test_dir.is_some() {
        let name = base
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        dotted = format!("{name}.{dotted}");
    }
    (format!("{prefix}{rel}"), dotted)
}
