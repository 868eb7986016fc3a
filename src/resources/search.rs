//! `search/`: one query across every area. `cat "search/<query>"` returns hits grouped by
//! area (at most 5 each, ranked, with paths) and `+N more: cat "search/<area>:<query>"`;
//! a scope prefix (`source:`, `tasks:`, `memory:`) searches one area more deeply; `re:`
//! makes the query a regular expression where the area supports it. `ls search/` lists
//! the queries read recently.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::model::Ownership;
use crate::model::links::Links;
use crate::model::names;
use crate::model::{Child, Kind, Node};
use crate::model::{Entry, Function, RootPart, Section, Verb};
use crate::render::budget;
use crate::tree::lock;
use crate::tree::resource::Resource;

/// Hits shown per area in an unscoped search.
const PER_AREA: usize = 5;
/// Hits fetched for a scoped search (pruned to the budget afterwards). A view of 500 tokens
/// shows about ten; fetching many more only costs their snippets (a fifth of a millisecond
/// each in memory/ at a million entries) to be cut away.
pub const SCOPED: usize = 20;
/// Recent queries remembered for `ls search/`.
const RECENT: usize = 20;

/// The search resourcespace over `areas`.
pub struct Search {
    areas: Vec<Arc<dyn Resource>>,
    links: Links,
    budget: usize,
    recent: Mutex<VecDeque<String>>,
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

    /// The result view of `query`.
    pub fn results(&self, query: &str) -> Result<String> {
        let (scope, terms) = self.scope(query);
        if terms.trim().is_empty() {
            return Err(Error::invalid(
                "the query is empty: write what to look for after the scope, e.g. search/tasks:login",
            ));
        }
        let mut out = format!("home > search > {query}\n");
        let areas: Vec<&Arc<dyn Resource>> = match scope {
            Some(area) => vec![area],
            None => self.areas.iter().collect(),
        };
        let limit = if scope.is_some() { SCOPED } else { PER_AREA };
        let mut blocks = String::new();
        let mut total = 0;
        for area in areas {
            let hits = match area.search(terms, limit) {
                Ok(hits) => hits,
                Err(e) => {
                    blocks.push_str(&format!("\n## {}\n{}\n", area.name(), e.message));
                    continue;
                }
            };
            total += hits.total;
            blocks.push_str(&format!("\n## {} — {} hits\n", area.name(), hits.total));
            if let Some(note) = &hits.note {
                blocks.push_str(&format!("({note})\n"));
            }
            if hits.hits.is_empty() {
                blocks.push_str("No match.\n");
            }
            for hit in &hits.hits {
                blocks.push_str(&format!("- {} — `{}`\n", hit.line, hit.path));
            }
            if scope.is_none() && hits.total > hits.hits.len() {
                blocks.push_str(&format!(
                    "+{} more: cat \"{}\"\n",
                    hits.total - hits.hits.len(),
                    self.links.to(&format!("search/{}:{terms}", area.name()))
                ));
            }
        }
        out.push_str(&format!("# Search: {query} — {total} hits\n"));
        out.push_str(&blocks);
        let more = "a narrower query or a scope (source:, tasks:, memory:)";
        Ok(budget::prune(&out, self.budget, more))
    }
}

impl Resource for Search {
    fn name(&self) -> &'static str {
        "search"
    }

    fn shows_everything(&self) -> bool {
        true
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

    fn stat(&self, path: &[&str]) -> Result<Node> {
        // The owner's alone: results quote files whose modes may not let others read them.
        match path {
            [] => Ok(Node::dir(false).owned(Ownership::OwnerOnly)),
            [query] if !names::is_probe(query) => Ok(Node::view().owned(Ownership::OwnerOnly)),
            _ => Err(Error::not_found(format!(
                "{} is not a search: a query is one file name under {}",
                self.links.to(&format!("search/{}", path.join("/"))),
                self.links.dir(&["search"])
            ))),
        }
    }

    fn list(&self, path: &[&str]) -> Result<Vec<Child>> {
        if !path.is_empty() {
            return Err(self
                .stat(path)
                .err()
                .unwrap_or_else(|| Error::not_found("not a directory")));
        }
        Ok(lock(&self.recent)
            .iter()
            .map(|q| Child::new(q.clone(), Kind::View, "a recent query"))
            .collect())
    }

    fn read(&self, path: &[&str]) -> Result<Vec<u8>> {
        let [query] = path else {
            return Err(self
                .stat(path)
                .err()
                .unwrap_or_else(|| Error::not_found("no such search")));
        };
        Ok(self.results(query)?.into_bytes())
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

    fn entry(&self, _path: &[&str]) -> Result<Entry> {
        let names: Vec<String> = self
            .areas
            .iter()
            .map(|a| format!("`{}:`", a.name()))
            .collect();
        Ok(Entry {
            title: format!("search — one query across {}", names.join(", ")),
            about: vec![
                "A query is a file name, so it cannot contain `/`. Quote it in the shell.".into(),
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
                &self.list(&[])?,
                "No query read yet.",
            )],
            ..Entry::default()
        })
    }
}
