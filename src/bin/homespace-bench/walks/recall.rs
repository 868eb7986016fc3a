//! Walk (d): answer "what was decided about X, and why" from past sessions.
//! Bare: `grep -ic` over the JSONL transcripts for the files that mention X, then `jq` for
//! the user and assistant text of the file with the most hits, `grep -n -B2 -A4` around X
//! (the decision and the turns beside it, where its reason is). Mount: a memory search for
//! X, then the entry of the best hit and the one after it (the reason follows the
//! decision). When memory hits carry their neighbouring turns, or a session gets a
//! conversation view, only `mount_steps` changes.

use std::path::Path;

use super::script::{Record, Step, path_in};
use super::{Place, Walk};

pub struct Recall {
    /// The words of the question, as typed into grep and the search.
    pub words: &'static str,
    /// What the answer must hold: the decision and its reason.
    pub facts: &'static [&'static str],
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
                let file = most_hits(&done[0].output)?;
                Ok(format!(
                    "{TEXT_TURNS} {file} | grep -n -i -B2 -A4 \"{words}\""
                ))
            }),
        ])
    }

    fn mount(&self, at: &Place) -> Result<Vec<Step>, String> {
        mount_steps(self.words, &at.mountpoint()?.join("memory"))
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

/// The mount's walk: search memory, read the assistant's hit (the decision) with the turn
/// after it, and one more when that turn is the user asking (the answer comes next).
fn mount_steps(words: &str, memory: &Path) -> Result<Vec<Step>, String> {
    let memory = memory.to_path_buf();
    let decision = move |done: &[Record]| -> Result<String, String> {
        let hits = &done[0].output;
        let line = hits
            .lines()
            .find(|l| l.contains(" assistant: "))
            .or_else(|| hits.lines().find(|l| l.contains(".json")))
            .ok_or("the search named no entry")?;
        path_in(line, &memory, ".json").ok_or_else(|| "a hit without its path".to_string())
    };
    let again = decision.clone();
    Ok(vec![
        Step::run(format!("cat \"$M/search/memory:{words}\"")),
        Step::then(move |done| {
            let hit = decision(done)?;
            Ok(format!("cat {hit} {}", next_entry(&hit)?))
        }),
        Step::maybe(move |done| {
            let asked = done[1]
                .output
                .rsplit("\"channel\"")
                .next()
                .unwrap_or_default();
            if !asked.trim_start().starts_with(": \"user\"") {
                return Ok(None);
            }
            Ok(Some(format!(
                "cat {}",
                next_entry(&next_entry(&again(done)?)?)?
            )))
        }),
    ])
}

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

/// The file with the most hits in `grep -c` output (`path:count` lines).
fn most_hits(output: &str) -> Result<String, String> {
    output
        .lines()
        .filter_map(|l| l.rsplit_once(':'))
        .filter_map(|(file, n)| n.trim().parse::<u64>().ok().map(|n| (n, file)))
        .max_by_key(|(n, _)| *n)
        .map(|(_, file)| file.to_string())
        .ok_or_else(|| format!("grep found no file: {output:?}"))
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
    fn the_file_with_most_hits_wins() {
        assert_eq!(
            most_hits("/t/a.jsonl:2\n/t/b.jsonl:7\n").unwrap(),
            "/t/b.jsonl"
        );
        assert!(most_hits("").is_err());
    }
}
