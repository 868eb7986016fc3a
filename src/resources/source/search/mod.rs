//! Search in the project's files: every `.py` file of the code and the tests, then the
//! project's other text files (pyproject.toml, README, docs, configs, package data; binary
//! files and files past `project::LARGEST_TEXT` are skipped), listed once and kept
//! (`searched.rs`), read several at a time (`scan.rs`); the last query's matches are kept
//! for the several renders of one `cat` (`last_scan.rs`).
//!
//! A query is words and `"quoted phrases"`, each taken literally and smart-case like
//! ripgrep: a query all in lower case matches any case, one upper-case letter makes it exact.
//! A line matches when it holds any term; lines holding more of the terms rank first (every
//! term first), then definitions, then Python before other files, in path order — so a query
//! with one word too many ranks what it finds instead of answering nothing. `re:` makes the
//! whole query one regular expression.
//!
//! Python hits read `ledger.accounts:42: def debit(self, amount)` with the path of the
//! symbol file that holds the line (every matching line is counted, but only the modules
//! of the hits kept are parsed, on every core); other files read
//! `README.md:3: …` with their place in the tree — `source/config/<table>.toml` for
//! pyproject.toml, every other file at its place under `source/`. The
//! first hit in a file that past sessions changed says so (`— changed in 2 past sessions,
//! latest 2026-11-20`).

mod definitions;
mod last_scan;
mod references;
mod scan;
mod searched;

use std::path::{Path, PathBuf};

use regex::bytes::{RegexBuilder, RegexSet, RegexSetBuilder};

use crate::error::{Error, Result};
use crate::model::{Hit, Hits};
use crate::resources::source::places::paths::spelled_at_top;
use last_scan::Scanned;
use scan::{Found, Pattern};
use std::sync::Arc;

use crate::model::links::Links;
use crate::resources::source::changed_in;
use crate::resources::source::modules::Modules;
use crate::resources::source::places::Places;
use crate::resources::source::places::in_tree::tree_path;
use crate::resources::source::project::Project;
use crate::store::Store;
use last_scan::LastScan;
use searched::Searched;

/// What searches the files of one project, and what it keeps between searches.
pub(crate) struct Searcher {
    places: Arc<Places>,
    project: Arc<Project>,
    /// The parses that name a Python hit's symbol file.
    modules: Arc<Modules>,
    links: Links,
    /// What memory knows of the files: which sessions changed one.
    store: Arc<Store>,
    /// The files searched, kept between searches.
    searched: Searched,
    /// The last query's matching lines, for the several renders of one `cat`.
    last_scan: LastScan,
}

impl Searcher {
    pub(crate) fn new(
        places: Arc<Places>,
        project: Arc<Project>,
        modules: Arc<Modules>,
        links: Links,
        store: Arc<Store>,
    ) -> Self {
        Searcher {
            places,
            project,
            modules,
            links,
            store,
            searched: Searched::default(),
            last_scan: LastScan::default(),
        }
    }

    /// Search `query`; at most `limit` hits, `total` counts every matching line.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Result<Hits> {
        search(self, query, limit)
    }

    /// Who calls or names the symbol `name` names (see `references.rs`).
    pub(crate) fn references(&self, name: &str) -> Result<Hits> {
        references::references(self, name)
    }

    /// Where the classes and functions called `name` are defined (see `definitions.rs`).
    pub(crate) fn definitions(&self, name: &str) -> Result<Vec<crate::model::Definition>> {
        definitions::definitions(self, name)
    }
}

/// Search `query` with `searcher`; at most `limit` hits, `total` counts every matching line.
fn search(searcher: &Searcher, query: &str, limit: usize) -> Result<Hits> {
    let pattern = compile(query)?;
    let listed = searcher.searched.files(&searcher.project);
    let (files, python) = (&listed.paths, listed.python);
    let named = files_named(&pattern, files);
    let Scanned { found, total } = searcher.last_scan.get(query, limit, &listed, || {
        let (mut found, total) = scan::scan(&pattern, files, &named, python, limit);
        found.sort_by_key(|f| (std::cmp::Reverse(f.terms), !f.definition, f.file, f.line));
        found.truncate(limit);
        Scanned { found, total }
    });
    let terms = pattern.each.len();
    let note = (terms > 1 && found.first().is_some_and(|f| f.terms < terms))
        .then(|| format!("no line holds all {terms} terms: lines holding most of them come first"));
    let every = (terms > 1).then(|| found.iter().take_while(|f| f.terms == terms).count());
    let note = note.or_else(|| {
        every.filter(|n| *n > 0 && *n < found.len()).map(|_| {
            "lines with every term first; lines with some of them on the pages after".to_string()
        })
    });
    // A term that names a file in a hit is said so, as the file's path.
    let shown_named: Vec<String> = {
        let mut paths: Vec<String> = Vec::new();
        for f in found
            .iter()
            .filter(|f| named.get(f.file).is_some_and(|&m| m != 0))
        {
            let file = &files[f.file];
            let rel = file.strip_prefix(&searcher.project.root).unwrap_or(file);
            let rel = format!("`{}`", rel.display());
            if !paths.contains(&rel) {
                paths.push(rel);
            }
        }
        paths
    };
    let note = match (shown_named.is_empty(), note) {
        (true, note) => note,
        (false, note) => {
            let named = format!(
                "a term that names a file is held by each of its lines: {}",
                shown_named.join(", ")
            );
            Some(match note {
                Some(note) => format!("{named}; {note}"),
                None => named,
            })
        }
    };
    name_modules(
        searcher,
        found
            .iter()
            .filter(|f| f.file < python)
            .map(|f| &files[f.file]),
    );
    let mut hits: Vec<Hit> = found
        .iter()
        .map(|f| match f.file < python {
            true => hit(searcher, &files[f.file], f),
            false => text_hit(searcher, &files[f.file], f),
        })
        .collect();
    // The first hit in a file says when past sessions changed it: a few words, once.
    let mut noted = std::collections::HashSet::new();
    for (hit, f) in hits.iter_mut().zip(&found) {
        if !noted.insert(f.file) {
            continue;
        }
        let file = &files[f.file];
        let rel = file.strip_prefix(&searcher.project.root).unwrap_or(file);
        if let Some(note) = changed_in::hit_note(&searcher.store, &rel.to_string_lossy()) {
            hit.line = format!("{} — {note}", hit.line);
        }
    }
    // The definition of a name the query names (`def validate_name`) comes with its code,
    // when short: reading it is what the search was for.
    let asked = self::terms(query);
    let named = |hit: &Hit| {
        let stem = hit.path.rsplit('/').next().unwrap_or("");
        let stem = stem.strip_suffix(".py").unwrap_or(stem);
        let stem = stem.split('@').next().unwrap_or(stem);
        asked.contains(&stem)
    };
    let prefix = searcher.links.to("source/");
    if let Some((hit, _)) = hits
        .iter_mut()
        .zip(&found)
        .find(|(hit, f)| f.definition && f.file < python && named(hit))
        && let Some(file) = hit.path.strip_prefix(&prefix)
        && let Some(code) = searcher.places.short_symbol(file)
    {
        hit.after = code.lines().map(str::to_string).collect();
    }
    Ok(Hits {
        hits,
        total,
        note,
        breaks: every.into_iter().collect(),
        ..Hits::default()
    })
}

/// The project's Python files, the code's before the tests', each part in path order: the
/// order `def:` and `refs:` answer in.
fn python_files_code_first(searcher: &Searcher) -> Vec<PathBuf> {
    let listed = searcher.searched.files(&searcher.project);
    let test_dirs = searcher.project.test_dirs();
    let mut files: Vec<PathBuf> = listed.paths[..listed.python].to_vec();
    files.sort_by_cached_key(|file| (test_dirs.iter().any(|t| file.starts_with(t)), file.clone()));
    files
}

/// Parse the modules of `files` (the Python files of the hits kept), on every core, so
/// that naming each hit's symbol finds its module parsed.
fn name_modules<'f>(searcher: &Searcher, files: impl Iterator<Item = &'f PathBuf>) {
    let mut distinct: Vec<&PathBuf> = Vec::new();
    for file in files {
        if !distinct.contains(&file) {
            distinct.push(file);
        }
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min(distinct.len());
    if cores < 2 {
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| {
                while let Some(file) =
                    distinct.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    // A module that cannot be parsed is named by its path alone, later.
                    let _ = searcher.modules.get(None, file);
                }
            });
        }
    });
}

/// The terms of `query`: whitespace-separated words and `"quoted phrases"` (an unclosed
/// quote runs to the end).
fn terms(query: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    for (n, part) in query.split('"').enumerate() {
        if n % 2 == 1 {
            if !part.trim().is_empty() {
                terms.push(part);
            }
        } else {
            terms.extend(part.split_whitespace());
        }
    }
    terms
}

/// For each of `files`, a bit for each of `pattern`'s terms (numbered as
/// [`scan::Pattern::each`] numbers them) that is the file's own name with its extension
/// (`accounts.py`): asked with other words, such a term says where to look, and every line
/// of that file holds it. Empty when no term can name a file (one term, a `re:`, words
/// without a dot): the scan then counts what lines spell.
fn files_named(pattern: &Pattern, files: &[PathBuf]) -> Vec<u64> {
    let names_a_file = |term: &str| {
        term.rsplit_once('.')
            .is_some_and(|(stem, _)| !stem.is_empty())
    };
    if pattern.each.is_empty() || !pattern.words.iter().any(|w| names_a_file(w)) {
        return Vec::new();
    }
    files
        .iter()
        .map(|file| {
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            pattern
                .words
                .iter()
                .enumerate()
                .take(64)
                .filter(|(_, term)| {
                    names_a_file(term)
                        && (name == **term
                            || pattern.ignore_case && name.eq_ignore_ascii_case(term))
                })
                .fold(0, |bits, (n, _)| bits | 1 << n)
        })
        .collect()
}

fn compile(query: &str) -> Result<Pattern> {
    let build = |pattern: &str, ignore_case: bool| {
        RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
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
    };
    if let Some(pattern) = query.strip_prefix("re:") {
        return Ok(Pattern {
            any: build(pattern, false)?,
            each: RegexSet::empty(),
            words: Vec::new(),
            ignore_case: false,
        });
    }
    let smart_case = !query.chars().any(char::is_uppercase);
    let mut words: Vec<String> = Vec::new();
    for term in self::terms(query) {
        if !words.iter().any(|w| w == term) {
            words.push(term.to_string());
        }
    }
    if words.is_empty() {
        words.push(query.to_string());
    }
    let terms: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    let each = match terms.len() {
        1 => RegexSet::empty(),
        _ => RegexSetBuilder::new(&terms)
            .case_insensitive(smart_case)
            .multi_line(true)
            .size_limit(1 << 20)
            .dfa_size_limit(8 << 20)
            .build()
            .map_err(|e| Error::invalid(format!("the terms {terms:?} are too many: {e}")))?,
    };
    Ok(Pattern {
        any: build(&terms.join("|"), smart_case)?,
        each,
        words,
        ignore_case: smart_case,
    })
}

/// The hit for a line of a file that is not Python: its path in the project, and where to
/// read it — the table's file under `source/config/` for pyproject.toml, else the file's
/// place under `source/`, where every shown file of the project is.
fn text_hit(searcher: &Searcher, file: &Path, found: &Found) -> Hit {
    let project = &searcher.project;
    let rel = file
        .strip_prefix(&project.root)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned();
    let line = format!("{rel}:{}: {}", found.line, found.text);
    let table = match rel == "pyproject.toml" {
        true => config_table(file, found.offset),
        false => None,
    };
    let path = match table {
        Some(table) => tree_path(format!("config/{table}.toml")),
        None => tree_path(tree_location(searcher, file).0),
    };
    Hit {
        path: searcher.links.file(&path),
        line,
        ..Hit::default()
    }
}

/// The name of the pyproject.toml table (its `source/config/` file) holding `offset`.
fn config_table(file: &Path, offset: usize) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    crate::pyproject::config::tables(&text)
        .ok()?
        .into_iter()
        .find(|t| t.span.start <= offset && offset < t.span.end.max(t.span.start + 1))
        .map(|t| t.name)
}

/// The hit for one matching line: module path, line, and the innermost symbol file.
fn hit(searcher: &Searcher, file: &Path, found: &Found) -> Hit {
    let (tree_dir, dotted) = tree_location(searcher, file);
    let mut path = tree_path(&tree_dir);
    if let Ok(module) = searcher.modules.get(None, file) {
        let symbols = &module.index.symbols;
        if let Some(index) = innermost(symbols, found.offset) {
            path = symbol_file(searcher, file, &tree_dir, symbols, index);
        }
    }
    Hit {
        path: searcher.links.file(&path),
        line: format!("{dotted}:{}: {}", found.line, found.text),
        ..Hit::default()
    }
}

/// The index of the innermost of `symbols` whose range holds byte `offset` (the symbols
/// come outer before inner).
fn innermost(symbols: &[crate::python::Symbol], offset: usize) -> Option<usize> {
    symbols
        .iter()
        .rposition(|s| s.range.start <= offset && offset < s.range.end)
}

/// The file stems from the outermost definition holding `symbols[index]` down to it
/// (`Account`, `balance@2`).
fn symbol_stems(symbols: &[crate::python::Symbol], mut index: usize) -> Vec<String> {
    let mut stems = vec![symbols[index].file_stem.clone()];
    while let Some(parent) = symbols[index].parent {
        stems.push(symbols[parent].file_stem.clone());
        index = parent;
    }
    stems.reverse();
    stems
}

/// The dotted name of the innermost definition of `file` holding `offset`, or of the
/// module outside any (`ledger.accounts.Account.debit`): a path too, as
/// `source/<name>.py` reads that definition.
fn definition_name(searcher: &Searcher, file: &Path, offset: usize) -> String {
    let (_, mut name) = tree_location(searcher, file);
    if let Ok(module) = searcher.modules.get(None, file) {
        let symbols = &module.index.symbols;
        if let Some(index) = innermost(symbols, offset) {
            for stem in symbol_stems(symbols, index) {
                name.push('.');
                name.push_str(&stem);
            }
        }
    }
    name
}

/// The tree path of the symbol file of `symbols[index]`, a symbol of `file`, which shows
/// at `tree_dir` (see [`tree_location`]).
fn symbol_file(
    searcher: &Searcher,
    file: &Path,
    tree_dir: &str,
    symbols: &[crate::python::Symbol],
    index: usize,
) -> crate::model::TreePath {
    let mut stems = symbol_stems(symbols, index);
    if let Some(last) = stems.last_mut() {
        last.push_str(".py");
    }
    let module = tree_dir.trim_end_matches(".py");
    // `history.py`'s members are `.history/` (see `spelled_at_top`).
    let members = match searcher
        .project
        .test_dirs()
        .iter()
        .any(|t| file.starts_with(t))
    {
        true => module.to_string(),
        false => spelled_at_top(module),
    };
    tree_path(format!("{members}/{}", stems.join("/")))
}

/// Where a project file shows in the tree (`ledger/accounts.py`) and its dotted module name.
pub fn tree_location(searcher: &Searcher, file: &Path) -> (String, String) {
    let project = &searcher.project;
    let test_dirs = project.test_dirs();
    let test_dir = test_dirs.iter().find(|t| file.starts_with(t));
    let (prefix, base) = match test_dir {
        Some(dir) if test_dirs.len() == 1 => ("tests/".to_string(), dir.as_path()),
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
        dotted = format!("{}.{dotted}", project.dotted_of_test_dir(base));
    }
    let shown = match test_dir {
        Some(_) => format!("{prefix}{rel}"),
        None => spelled_at_top(&rel),
    };
    (shown, dotted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_phrases_are_literal_smart_case_terms_counted_once() {
        assert_eq!(terms(r#"a.b( "c d" e"#), ["a.b(", "c d", "e"]);
        let pattern = compile("rounding mode rounding").unwrap();
        assert_eq!(pattern.each.len(), 2, "a repeated word is one term");
        assert_eq!(pattern.terms_in(b"ROUNDING MODE", 0), 2);
        assert_eq!(pattern.terms_in(b"rounding=x", 0), 1);
        // A term the file is named by is held by every line of it, and once.
        assert_eq!(pattern.terms_in(b"rounding=x", 0b10), 2);
        assert_eq!(pattern.terms_in(b"mode", 0b10), 1);
        assert!(pattern.any.is_match(b"x.Mode"));
        let exact = compile("Rounding").unwrap();
        assert!(!exact.any.is_match(b"rounding") && exact.any.is_match(b"Rounding"));
        assert!(compile("a.b(").unwrap().any.is_match(b"x = a.b(1)"));
        assert!(compile("re:(").is_err());
    }

    #[test]
    fn a_term_that_is_a_files_name_is_numbered_for_that_file_alone() {
        let files = [
            PathBuf::from("/p/src/ledger/accounts.py"),
            PathBuf::from("/p/tests/test_accounts.py"),
            PathBuf::from("/p/README.md"),
        ];
        let named = |query: &str| files_named(&compile(query).unwrap(), &files);
        assert_eq!(named("accounts.py rounding"), [0b1, 0, 0]);
        assert_eq!(named("rounding readme.md accounts.py"), [0b100, 0, 0b10]);
        // No bit set: nothing counts as held that a line does not spell.
        let none = |query: &str| named(query).iter().all(|&bits| bits == 0);
        assert!(none("README rounding"), "a name needs its extension");
        assert!(none("re:accounts.py"), "a pattern names no file");
        assert!(none("accounts.py"), "one term is held or not");
    }
}
