//! `search/`: one query across every area. `cat "search/<query>"` returns hits grouped by
//! area (at most 5 each, ranked, with paths) and `+N more: cat "search/<area>:<query>"`;
//! a scope prefix (`source:`, `tasks:`, `memory:`) searches one area more deeply; `re:`
//! makes the query a regular expression where the area supports it; `page:2` anywhere in
//! the query reads the next page (each full page links the next) instead of asking for a
//! narrower query. `def:<name>` answers where a class or function is defined, with its
//! code, and so does `def <name>` (`class <name>`) when there is such a definition;
//! `refs:<name>` who calls or names it.
//! `ls search/` lists the queries read recently.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::model::Ownership;
use crate::model::count::plural;
use crate::model::links::Links;
use crate::model::names;
use crate::model::{Child, Kind, Node};
use crate::model::{Entry, Function, Hit, Hits, RootPart, Section, Verb};
use crate::render::budget;
use crate::tree::glance::Glance;
use crate::tree::lock;
use crate::tree::resource::Resource;
use crate::tree::resource::ResourceExt;
use crate::tree::resource::{Capabilities, Live};

/// The most hits a page of a scoped search shows; fewer when they fill the budget first.
pub const SCOPED: usize = 20;
/// Characters of a context line in a search of every area.
const GLANCE_CONTEXT: usize = 90;
/// The form that asks where a class or function is defined: `def:<name>`.
const DEFINITIONS: &str = "def:";
/// The form that asks who calls or names a class or function: `refs:<name>`.
const REFERENCES: &str = "refs:";
/// Recent queries remembered for `ls search/`.
const RECENT: usize = 20;
/// The deepest page served: a page past it would rank more matches than any area looks at.
const LAST_PAGE: usize = 50;
/// Characters kept free on a scoped page for its header, the area's heading and note, and
/// the link to the next page.
const PAGE_FRAME: usize = 480;

/// The search resourcespace over `areas`.
pub struct Search {
    areas: Vec<Arc<dyn Resource>>,
    links: Links,
    budget: usize,
    recent: Mutex<VecDeque<String>>,
}

/// A query as written, split into its scope, its words and the page asked for.
struct Asked<'q> {
    scope: Option<&'q Arc<dyn Resource>>,
    /// `refs:`: the references of the symbol the words name, in the scope's area.
    references: bool,
    /// The query without scope and page: what the areas search.
    terms: String,
    page: usize,
}

impl Search {
    pub fn new(areas: Vec<Arc<dyn Resource>>, links: Links, budget: usize) -> Self {
        Search {
            areas,
            links,
            budget,
            recent: Mutex::new(VecDeque::new()),
        }
    }

    fn scope<'q>(&self, query: &'q str) -> (Option<&Arc<dyn Resource>>, &'q str) {
        for area in &self.areas {
            if let Some(rest) = query
                .strip_prefix(area.name())
                .and_then(|r| r.strip_prefix(':'))
            {
                return (Some(area), rest);
            }
        }
        (None, query)
    }

    /// Splits `query` into scope, terms and page (`page:2`, anywhere in the query).
    fn asked<'s>(&'s self, query: &str) -> Result<Asked<'s>> {
        let (scope, rest, references) = match query.strip_prefix(REFERENCES) {
            // The references of a symbol are the code's.
            Some(rest) => (self.areas.iter().find(|a| a.name() == "source"), rest, true),
            None => {
                let (scope, rest) = self.scope(query);
                (scope, rest, false)
            }
        };
        let mut page = 1;
        let mut words = Vec::new();
        for word in rest.split(' ') {
            match word.strip_prefix("page:") {
                Some(n) => {
                    page = n
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=LAST_PAGE).contains(n))
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "page:{n} is not a page: pages are numbered 1 to {LAST_PAGE}, \
                                 e.g. {}",
                                self.links.to("search/<query> page:2")
                            ))
                        })?;
                }
                None => words.push(word),
            }
        }
        Ok(Asked {
            scope,
            references,
            terms: words.join(" ").trim().to_string(),
            page,
        })
    }

    /// The path of `terms` (in `area`, if scoped, or another form: `refs`) at `page`.
    fn page_link(&self, area: Option<&str>, terms: &str, page: usize) -> String {
        let scope = area.map(|a| format!("{a}:")).unwrap_or_default();
        let page = if page > 1 {
            format!(" page:{page}")
        } else {
            String::new()
        };
        self.links.to(&format!("search/{scope}{terms}{page}"))
    }

    /// The result view of `query`.
    pub fn results(&self, query: &str) -> Result<String> {
        if let Some(name) = query.strip_prefix(DEFINITIONS) {
            return self
                .definitions(name.trim(), true)
                .map(Option::unwrap_or_default);
        }
        // `def name` asks for a definition as `grep "def name"` finds it, not for every
        // line holding `def`: answered as `def:name` is, when there is one.
        if let Some(name) = definition_asked(query)
            && let Some(answer) = self.definitions(name, false)?
        {
            return Ok(answer);
        }
        let asked = match self.asked(query) {
            Ok(asked) => asked,
            // A malformed query gets a message, not a failure.
            Err(e) => {
                let out = format!("# Search: {query}\n\n{}\n", e.message);
                return Ok(budget::prune(&out, self.budget, ""));
            }
        };
        if asked.terms.is_empty() {
            return Err(Error::invalid(
                "the query is empty: write what to look for after the scope, e.g. search/tasks:login",
            ));
        }
        // The title names the query, without its page: a result is read for its hits, and
        // a breadcrumb would only repeat the query.
        let form = match (asked.references, asked.scope) {
            (true, _) => Some("refs"),
            (false, Some(area)) => Some(area.name()),
            (false, None) => None,
        };
        let title = match form {
            Some(form) => format!("{form}:{}", asked.terms),
            None => asked.terms.clone(),
        };
        let mut out = String::new();
        let body = match (asked.scope, form) {
            (Some(area), Some(form)) => {
                let hits = |limit| match asked.references {
                    true => area
                        .references(&asked.terms)
                        .unwrap_or_else(|| Ok(Hits::default())),
                    false => area.search(&asked.terms, limit),
                };
                self.scoped(&title, form, hits, &asked.terms, asked.page)
            }
            _ => self.everywhere(&title, &asked.terms, asked.page),
        };
        out.push_str(&body);
        let more = match form {
            Some(form) => format!(
                "cat {}",
                quoted(&self.page_link(Some(form), &asked.terms, asked.page + 1))
            ),
            None => "a scope (source:, tasks:, memory:) for more of one area".to_string(),
        };
        Ok(budget::prune(&out, self.budget, &more))
    }

    /// Every area at a glance: its best few hits on `page`, and where the rest are.
    fn everywhere(&self, title: &str, terms: &str, page: usize) -> String {
        let mut blocks = String::new();
        let (mut total, mut more) = (0, false);
        for area in &self.areas {
            let size = area.glance_hits();
            let skip = (page - 1) * size;
            let hits = match area.search(terms, skip + size) {
                Ok(hits) => hits,
                Err(e) => {
                    blocks.push_str(&format!("\n## {}\n{}\n", area.name(), e.message));
                    continue;
                }
            };
            total += hits.total;
            blocks.push_str(&format!("\n## {} — {}\n", area.name(), hits_of(hits.total)));
            if let Some(note) = &hits.note {
                blocks.push_str(&format!("({note})\n"));
            }
            let shown: Vec<&Hit> = hits.hits.iter().skip(skip).collect();
            if shown.is_empty() {
                blocks.push_str(match skip {
                    0 => "No match.\n",
                    _ => "No more hits.\n",
                });
            }
            for hit in &shown {
                blocks.push_str(&render_hit(&glance(hit)));
            }
            let after = match hits.all_read {
                true => hits.hits.len(),
                false => hits.total,
            }
            .saturating_sub(skip + shown.len());
            if after > 0 {
                more |= shown.len() == size;
                blocks.push_str(&format!(
                    "+{after} more: cat {}\n",
                    quoted(&self.page_link(Some(area.name()), terms, 1))
                ));
            }
        }
        let mut out = format!(
            "# Search: {title} — {}{}\n",
            hits_of(total),
            page_label(page)
        );
        out.push_str(&blocks);
        if more && page < LAST_PAGE {
            out.push_str(&format!(
                "\nNext page: cat {}\n",
                quoted(&self.page_link(None, terms, page + 1))
            ));
        }
        out
    }

    /// One area in depth: page `page` of its hits, as many as fit the budget, and the link to
    /// the next page. Pages are cut the same way every time, so page 2 starts where page 1
    /// stopped.
    fn scoped(
        &self,
        title: &str,
        form: &str,
        hits: impl Fn(usize) -> Result<Hits>,
        terms: &str,
        page: usize,
    ) -> String {
        let hits = match hits(page * SCOPED) {
            Ok(hits) => hits,
            Err(e) => return format!("# Search: {title}\n\n{}\n", e.message),
        };
        let mut out = String::new();
        let room = (self.budget * budget::CHARS_PER_TOKEN).saturating_sub(PAGE_FRAME);
        let rendered: Vec<String> = hits.hits.iter().map(render_hit).collect();
        let lengths: Vec<usize> = rendered.iter().map(|r| r.chars().count()).collect();
        // Some groups of hits end a page of their own (see `Hits::breaks`).
        let most = hits.per_page.unwrap_or(SCOPED).min(SCOPED);
        let pages = pages(&lengths, &hits.breaks, room, most);
        let shown = pages.get(page - 1).cloned().unwrap_or_default();
        out.push_str(&format!(
            "# Search: {title} — {}{}\n",
            hits_of(hits.total),
            page_label(page)
        ));
        // One area: the title says which and how many; no heading repeats it.
        if let Some(note) = &hits.note {
            out.push_str(&format!("({note})\n"));
        }
        if shown.is_empty() {
            out.push_str(match page {
                1 => "No match.\n",
                _ => "No more hits.\n",
            });
        }
        for n in shown.clone() {
            out.push_str(&rendered[n]);
        }
        let more_unread = !hits.all_read && hits.total > rendered.len();
        let next = !shown.is_empty() && (shown.end < rendered.len() || more_unread);
        if next && page < LAST_PAGE {
            out.push_str(&format!(
                "\nNext page: cat {}\n",
                quoted(&self.page_link(Some(form), terms, page + 1))
            ));
        }
        out
    }
}

/// The answer to `def:<name>`: one definition is its symbol file's path and its exact
/// code, as a read of that file gives it (not cut to the budget: it is that file); several are
/// listed with their code while all of it fits the budget, else with their first line.
impl Search {
    /// The answer to `def:<name>` (`asked`), or to `def <name>` when it finds a definition
    /// (`None` when it finds none: the words are searched as words then).
    fn definitions(&self, name: &str, asked: bool) -> Result<Option<String>> {
        if name.is_empty() {
            return Err(Error::invalid(
                "the name is empty: write a class or function after def:, e.g. search/def:parse_amount",
            ));
        }
        let found = self
            .areas
            .iter()
            .find_map(|area| area.definitions(name))
            .unwrap_or_else(|| Ok(Vec::new()))?;
        let every_line = || format!("cat {}", quoted(&self.page_link(Some("source"), name, 1)));
        let answer = match found.as_slice() {
            [] if !asked => return Ok(None),
            [] => format!(
                "# def:{name} — no definition\nNo class or function named `{name}` in the \
                 project's Python files. Every line that names it: {}\n",
                every_line()
            ),
            // Its path says its module and class; its lines are in the module's view.
            [one] => self.one_definition(&one.path, &one.code),
            several => {
                let title = format!("# def:{name} — {} definitions\n", several.len());
                let with_code: String = several
                    .iter()
                    .map(|d| {
                        let code: String = d.code.lines().map(|l| format!("  {l}\n")).collect();
                        format!("- {} — `{}`\n{code}", d.place, d.path)
                    })
                    .collect();
                let whole = format!("{title}{with_code}");
                if budget::fits(&whole, self.budget) {
                    return Ok(Some(whole));
                }
                let listed: String = several
                    .iter()
                    .map(|d| format!("- {} — `{}`\n  {}\n", d.place, d.path, def_line(&d.code)))
                    .collect();
                let out = format!("{title}(cat a path to read that one)\n{listed}");
                budget::prune(&out, self.budget, &every_line())
            }
        };
        Ok(Some(answer))
    }
}

impl Search {
    /// One definition: its symbol file's path, then its code — cut at a whole line when it
    /// does not fit the budget, saying where the whole of it is.
    fn one_definition(&self, path: &str, code: &str) -> String {
        let whole = format!("{path}\n{code}");
        if budget::fits(&whole, self.budget) {
            return whole;
        }
        let total = code.lines().count();
        let marker = |shown: usize| {
            format!("[pruned: lines 1-{shown} of {total} shown; the whole: cat {path}]\n")
        };
        let mut out = format!("{path}\n");
        let mut shown = 0;
        for line in code.lines() {
            let longer = format!("{out}{line}\n");
            if !budget::fits(&format!("{longer}{}", marker(shown + 1)), self.budget) {
                break;
            }
            out = longer;
            shown += 1;
        }
        out + &marker(shown)
    }
}

/// The name a query of the form `def name`, `async def name` or `class name` asks for
/// (scoped to `source:` or not), if it is one.
fn definition_asked(query: &str) -> Option<&str> {
    let query = query.strip_prefix("source:").unwrap_or(query).trim();
    let rest = ["def ", "async def ", "class "]
        .iter()
        .find_map(|keyword| query.strip_prefix(keyword))?
        .trim();
    let dotted = !rest.is_empty()
        && rest
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c == '_' || c.is_alphanumeric()));
    dotted.then_some(rest)
}

/// The `def` or `class` line of a definition's code (after its decorators and comments).
fn def_line(code: &str) -> &str {
    code.lines()
        .map(str::trim)
        .find(|l| l.starts_with("def ") || l.starts_with("class ") || l.starts_with("async def "))
        .unwrap_or("")
}

/// `path` quoted for a shell: in double quotes (as every view writes a search), unless the
/// query holds what double quotes do not keep (`"`, `$`, `` ` ``, `\`): then in single
/// quotes, a single quote written `'\''`.
fn quoted(path: &str) -> String {
    if !path.contains(['"', '$', '`', '\\']) {
        return format!("\"{path}\"");
    }
    format!("'{}'", path.replace('\'', "'\\''"))
}

/// ` — page 2` past the first page.
fn page_label(page: usize) -> String {
    match page {
        1 => String::new(),
        n => format!(", page {n}"),
    }
}

/// A hit as a search of every area shows it: one line of context on each side, short.
fn glance(hit: &Hit) -> Hit {
    let mut hit = hit.narrowed(1, 1);
    for line in hit.before.iter_mut().chain(hit.after.iter_mut()) {
        if line.chars().count() > GLANCE_CONTEXT {
            let head: String = line.chars().take(GLANCE_CONTEXT - 1).collect();
            *line = format!("{}…", head.trim_end_matches('…'));
        }
    }
    hit
}

/// A hit as a list item: its line and path, then its context indented under it.
fn render_hit(hit: &Hit) -> String {
    // A hit without a path names what to read in its line (`refs:`).
    let mut out = match hit.path.is_empty() {
        true => format!("- {}\n", hit.line),
        false => format!("- {} — `{}`\n", hit.line, hit.path),
    };
    for line in hit.before.iter().chain(&hit.after) {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

/// Rendered hits, by their `lengths` in characters, cut into pages of at most `most` hits
/// and `room` characters (at least one hit each), in order.
fn pages(
    lengths: &[usize],
    breaks: &[usize],
    room: usize,
    most: usize,
) -> Vec<std::ops::Range<usize>> {
    let mut pages = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (n, &cost) in lengths.iter().enumerate() {
        if n > start && (used + cost > room || n - start >= most || breaks.contains(&n)) {
            pages.push(start..n);
            (start, used) = (n, 0);
        }
        used += cost;
    }
    if start < lengths.len() {
        pages.push(start..lengths.len());
    }
    pages
}

impl Resource for Search {
    fn name(&self) -> &'static str {
        "search"
    }

    fn root_part(&self) -> Result<RootPart> {
        Ok(RootPart {
            verbs: vec![Verb::new(
                "search code, tasks and memory",
                format!("cat \"{}\"", self.links.to("search/<words>")),
            )],
            place: "search/".into(),
            ..RootPart::default()
        })
    }

    fn summary(&self) -> Result<String> {
        let names: Vec<&str> = self.areas.iter().map(|a| a.name()).collect();
        Ok(format!(
            "search {} at once: cat \"search/<query>\"",
            names.join(", ")
        ))
    }

    fn stat(&self, _glance: &Glance, path: &[&str]) -> Result<Node> {
        // The owner's alone: results quote files whose modes may not let others read them.
        match path {
            [] => Ok(Node::dir(false).owned(Ownership::OwnerOnly)),
            [query] if !names::is_probe(query) => Ok(Node::view()
                .owned(Ownership::OwnerOnly)
                .dated(crate::store::memory::counts_back_from_today(query))),
            _ => Err(Error::not_found(format!(
                "{} is not a search: a query is one file name under {}",
                self.links.to(&format!("search/{}", path.join("/"))),
                self.links.dir(&["search"])
            ))),
        }
    }

    fn list(&self, glance: &Glance, path: &[&str]) -> Result<Vec<Child>> {
        if !path.is_empty() {
            return Err(self
                .stat(glance, path)
                .err()
                .unwrap_or_else(|| Error::not_found("not a directory")));
        }
        Ok(lock(&self.recent)
            .iter()
            .map(|q| Child::new(q.clone(), Kind::View, "a recent query"))
            .collect())
    }

    fn read(&self, glance: &Glance, path: &[&str]) -> Result<Vec<u8>> {
        let [query] = path else {
            return Err(self
                .stat(glance, path)
                .err()
                .unwrap_or_else(|| Error::not_found("no such search")));
        };
        Ok(self.results(query)?.into_bytes())
    }

    fn entry(&self, glance: &Glance, _path: &[&str]) -> Result<Entry> {
        let names: Vec<String> = self
            .areas
            .iter()
            .map(|a| format!("`{}:`", a.name()))
            .collect();
        Ok(Entry {
            title: format!("search — one query across {}", names.join(", ")),
            about: vec![
                "A query is a file name, so it cannot contain `/`. Quote it in the shell.".into(),
                "Several words rank hits by how many they hold, every word first; \
                 \"a phrase\" stays exact. Source search is smart-case."
                    .into(),
            ],
            functions: vec![
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/<query>")),
                    "search every area",
                    "top 5 hits per area with paths",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/tasks:<query>")),
                    "search one area",
                    "more hits of that area",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/tasks:<query> page:2")),
                    "read the next page",
                    "the hits after those of page 1",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/def:<name>")),
                    "find a class or function by name",
                    "where it is defined, and its code",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/refs:<name>")),
                    "who calls or names a class or function",
                    "each line and the definition it is in, through imports and re-exports",
                ),
                Function::new(
                    format!("cat \"{}\"", self.links.to("search/source:re:<regex>")),
                    "search by regular expression",
                    "matching lines with paths",
                ),
                Function::new(
                    format!("ls {}", self.links.dir(&["search"])),
                    "list recent queries",
                    "file names to cat again",
                ),
            ],
            sections: vec![Section::children(
                "Recent queries",
                &self.list(glance, &[])?,
                "No query read yet.",
            )],
            ..Entry::default()
        })
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            live: Some(self),
            ..Capabilities::default()
        }
    }
}

impl Live for Search {
    fn shows_everything(&self) -> bool {
        true
    }

    fn opened(&self, path: &[&str]) {
        // Only a real read makes a query recent: `stat` and `ls -l` compute the view too.
        if let [query] = path {
            let mut recent = lock(&self.recent);
            recent.retain(|q| q != query);
            recent.push_front(query.to_string());
            recent.truncate(RECENT);
        }
    }
}

/// `n hits`, or `1 hit`.
fn hits_of(n: usize) -> String {
    format!("{n} hit{}", plural(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Hits;
    use crate::tree::resource::ReadNow;

    #[test]
    fn pages_hold_what_fits_and_at_least_one_hit_each() {
        let items: Vec<usize> = ["aaaa", "bb", "cccccc", "d", "e"]
            .iter()
            .map(|s| s.chars().count())
            .collect();
        assert_eq!(pages(&items, &[], 6, 20), [0..2, 2..3, 3..5]);
        assert_eq!(pages(&items, &[], 100, 2), [0..2, 2..4, 4..5]);
        assert_eq!(pages(&items, &[], 1, 20), [0..1, 1..2, 2..3, 3..4, 4..5]);
        assert!(pages(&[], &[], 10, 20).is_empty());
        // A break ends a page whatever room is left; one at either end changes nothing.
        assert_eq!(pages(&items, &[0, 1, 3, 5], 100, 20), [0..1, 1..3, 3..5]);
    }

    /// An area whose three matches say the same thing: one hit shows them all.
    struct Folded;

    impl Resource for Folded {
        fn name(&self) -> &'static str {
            "memory"
        }
        fn summary(&self) -> Result<String> {
            Ok(String::new())
        }
        fn stat(&self, _glance: &Glance, _path: &[&str]) -> Result<Node> {
            Ok(Node::dir(false))
        }
        fn list(&self, _glance: &Glance, _path: &[&str]) -> Result<Vec<Child>> {
            Ok(Vec::new())
        }
        fn read(&self, _glance: &Glance, _path: &[&str]) -> Result<Vec<u8>> {
            Ok(Vec::new())
        }
        fn entry(&self, _glance: &Glance, _path: &[&str]) -> Result<crate::model::Entry> {
            Ok(crate::model::Entry::default())
        }
        fn capabilities(&self) -> crate::tree::resource::Capabilities<'_> {
            crate::tree::resource::Capabilities {
                search: Some(self),
                ..Default::default()
            }
        }
    }

    impl crate::tree::resource::Search for Folded {
        fn search(&self, _query: &str, _limit: usize) -> Result<Hits> {
            Ok(Hits {
                hits: vec![Hit::new(
                    "/mnt/hs/memory/a.json".to_string(),
                    "rounding half even (same text in 2 more hits)".to_string(),
                )],
                total: 3,
                all_read: true,
                ..Hits::default()
            })
        }
    }

    #[test]
    fn hits_folded_into_one_leave_no_page_to_turn() {
        let search = Search::new(vec![Arc::new(Folded)], Links::new("/mnt/hs"), 500);
        let text = |query: &str| String::from_utf8(search.read_now(&[query]).unwrap()).unwrap();
        for query in ["memory:rounding", "rounding"] {
            let view = text(query);
            assert!(view.contains("same text in 2 more hits"), "{view}");
            assert!(!view.contains("Next page"), "{query}: {view}");
            assert!(!view.contains("more: cat"), "{query}: {view}");
        }
    }

    #[test]
    fn def_and_class_with_a_name_ask_for_its_definition() {
        assert_eq!(definition_asked("def validate_name"), Some("validate_name"));
        assert_eq!(definition_asked("source:class Account"), Some("Account"));
        assert_eq!(definition_asked("async def post_all"), Some("post_all"));
        assert_eq!(definition_asked("def Account.debit"), Some("Account.debit"));
        assert_eq!(definition_asked("def rounding mode"), None);
        assert_eq!(definition_asked("default timer"), None);
        assert_eq!(definition_asked("tasks:def x"), None);
        assert_eq!(definition_asked("def a..b"), None);
    }

    #[test]
    fn links_to_a_query_paste_into_a_shell_whatever_it_holds() {
        assert_eq!(quoted("/mnt/hs/search/a b"), "\"/mnt/hs/search/a b\"");
        assert_eq!(
            quoted("/mnt/hs/search/\"a b\" it's page:2"),
            "'/mnt/hs/search/\"a b\" it'\\''s page:2'"
        );
    }
}
