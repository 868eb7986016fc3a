//! Walk (d): answer "what was decided about X, and why" from past sessions.
//! Bare: `grep -ic` over the JSONL transcripts for the files that mention X, then `jq` for
//! the user and assistant text of those files, `grep -n -B2 -A4` around X (the decision
//! and the turns beside it, where its reason is). Mount: a memory search for X, then the
//! entries of the decision's hit and the three after it. When memory hits carry their
//! neighbouring turns, or a session gets a conversation view, only `mount_steps` changes.

use std::path::Path;

use super::script::{Record, Step, path_in};
use super::{Place, Walk};

pub struct Recall {
    /// The words of the question, as typed into grep and the search.
    pub words: &'static str,
    /// What the answer must hold: the decision and its reason.
    pub facts: &'static [&'static str],
    /// The id of the session where it was decided (see `mount_steps`).
    pub session: String,
}

/// The user and assistant text of a Claude Code transcript, one turn a line (tool calls,
/// results and thinking left out) — what a capable agent asks `jq` for.
const TEXT_TURNS: &str = r#"jq -r 'select(.type=="user" or .type=="assistant") | .message.content | if type=="string" then . else (map(select(.type=="text") | .text) | join(" ")) end | select(length > 0) | gsub("\n"; " ")'"#;

impl Walk for Recall {
    fn name(&self) -> String {
        format!("(d) recall what was decided about {}", self.words)
    }

    fn reads_memory(&self) -> bool {
        true
    }

    fn bare(&self, _at: &Place) -> Result<Vec<Step>, String> {
        let words = self.words;
        Ok(vec![
            Step::run(format!("grep -ic \"{words}\" $T/*.jsonl | grep -v ':0$'")),
            Step::then(move |done| {
                let files = hit_files(&done[0].output)?;
                Ok(format!(
                    "{TEXT_TURNS} {files} | grep -n -i -B2 -A4 \"{words}\""
                ))
            }),
        ])
    }

    fn mount(&self, at: &Place) -> Result<Vec<Step>, String> {
        mount_steps(
            self.words,
            &self.session,
            self.facts,
            &at.mountpoint()?.join("memory"),
        )
    }

    fn check(&self, _at: &Place, records: &[Record]) -> Result<(), String> {
        let read: String = records.iter().map(|r| r.output.to_lowercase()).collect();
        match self
            .facts
            .iter()
            .find(|f| !read.contains(&f.to_lowercase()))
        {
            None => Ok(()),
            Some(missing) => Err(format!("the answer lacks {missing:?}")),
        }
    }
}

/// The mount's walk: search memory, turning pages (as the view's `Next page:` line says)
/// until a hit of the session where the decision was taken shows; hits come with their
/// neighbouring turns, so when what was read holds the decision and its reason, that is
/// all. Otherwise read the hit with the three entries after it — a window, as the bare
/// side's `grep -A4`.
///
/// Which hit is the agent's judgment, on both sides: the bare agent reads every matching
/// line, and tells the decision from a chore that only names X; here the agent is granted
/// the same eye — it picks the decision's session among the hits shown — but only if the
/// view shows it: a hit pruned away is not picked.
fn mount_steps(
    words: &str,
    session: &str,
    facts: &'static [&'static str],
    memory: &Path,
) -> Result<Vec<Step>, String> {
    let memory = memory.to_path_buf();
    let session = session.to_string();
    let shown = {
        let session = session.clone();
        move |done: &[Record]| done.iter().any(|r| r.output.contains(&session))
    };
    let answered = move |done: &[Record]| {
        let read: String = done.iter().map(|r| r.output.to_lowercase()).collect();
        facts.iter().all(|f| read.contains(&f.to_lowercase()))
    };
    let mut steps = vec![Step::run(format!("cat \"$M/search/memory:{words}\""))];
    for page in 2..=PAGES {
        let shown = shown.clone();
        let words = words.to_string();
        steps.push(Step::maybe(move |done| {
            Ok((!shown(done)).then(|| format!("cat \"$M/search/memory:{words} page:{page}\"")))
        }));
    }
    steps.push(Step::maybe(move |done| {
        if answered(done) {
            return Ok(None);
        }
        let hit = done
            .iter()
            .flat_map(|r| r.output.lines())
            .filter(|l| l.contains(&session))
            .find_map(|l| path_in(l, &memory, ".json"))
            .ok_or("the hits shown name no entry of the session where it was decided")?;
        let mut window = vec![hit];
        for _ in 0..3 {
            let next = next_entry(window.last().map_or("", String::as_str))?;
            window.push(next);
        }
        Ok(Some(format!("cat {}", window.join(" "))))
    }));
    Ok(steps)
}

/// Pages of hits an agent turns before giving up on the search.
const PAGES: usize = 3;

/// The entry after `…/0012.json`: `…/0013.json`.
fn next_entry(hit: &str) -> Result<String, String> {
    let (dir, name) = hit
        .rsplit_once('/')
        .ok_or("an entry path without a folder")?;
    let seq: u32 = name
        .trim_end_matches(".json")
        .parse()
        .map_err(|_| format!("{name} is not a numbered entry"))?;
    Ok(format!("{dir}/{:04}.json", seq + 1))
}

/// The files of `grep -c` output (`path:count` lines) with hits, most hits first,
/// separated by spaces.
fn hit_files(output: &str) -> Result<String, String> {
    let mut hits: Vec<(u64, &str)> = output
        .lines()
        .filter_map(|l| l.rsplit_once(':'))
        .filter_map(|(file, n)| n.trim().parse::<u64>().ok().map(|n| (n, file)))
        .filter(|(n, _)| *n > 0)
        .collect();
    if hits.is_empty() {
        return Err(format!("grep found no file: {output:?}"));
    }
    hits.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    Ok(hits.iter().map(|(_, f)| *f).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_after_a_hit_keeps_its_folder_and_width() {
        assert_eq!(next_entry("/m/s/0009.json").unwrap(), "/m/s/0010.json");
        assert!(next_entry("/m/s/summary.json").is_err());
    }

    #[test]
    fn the_files_with_hits_come_most_hits_first() {
        assert_eq!(
            hit_files("/t/a.jsonl:2\n/t/b.jsonl:7\n/t/c.jsonl:0\n").unwrap(),
            "/t/b.jsonl /t/a.jsonl"
        );
        assert!(hit_files("").is_err());
    }
}
