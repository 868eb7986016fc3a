//! Task search: words and quoted phrases ranked by the store (tasks with every term first,
//! then those with some), narrowed by the filters `tag:<tag>` (all of them) and
//! `status:<status>` (any of them). Any other `name:value` is refused with the filters it
//! knows, as memory search does, rather than searched as two words that match nothing.

use crate::error::{Error, Result};
use crate::store::tasks::{Filter, Status, Task, TaskRecords};

/// The filters a task search knows, as messages list them.
const FILTERS: &str = "tag:<tag>, status:<open|in_progress|blocked|done>";

/// A parsed task query.
#[derive(Debug, Default, PartialEq, Eq)]
struct TaskQuery {
    /// The words and phrases, as written (the store cuts them).
    text: String,
    tags: Vec<String>,
    statuses: Vec<Status>,
}

impl TaskQuery {
    fn parse(query: &str) -> Result<TaskQuery> {
        let mut parsed = TaskQuery::default();
        let mut words = Vec::new();
        for token in query.split_whitespace() {
            let Some((name, value)) = token.split_once(':') else {
                words.push(token);
                continue;
            };
            // `fix:` or `http://x` in prose is text; only `name:value` reads as a filter.
            if !value.starts_with(char::is_alphanumeric)
                || name.is_empty()
                || !name.chars().all(|c| c.is_ascii_lowercase())
            {
                words.push(token);
                continue;
            }
            match name {
                "tag" => parsed.tags.push(value.to_string()),
                "status" => parsed.statuses.push(Status::parse(value).ok_or_else(|| {
                    Error::invalid(format!(
                        "status:{value} is not a status; a task search knows {FILTERS}"
                    ))
                })?),
                _ => {
                    return Err(Error::invalid(format!(
                        "{name}: is not a filter of a task search; it knows {FILTERS}, and \
                         words search titles, descriptions and tags (write `{name} {value}` \
                         to search both words)"
                    )));
                }
            }
        }
        parsed.text = words.join(" ");
        Ok(parsed)
    }

    fn passes(&self, task: &Task) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&task.fields.status))
            && self.tags.iter().all(|t| task.fields.tags.contains(t))
    }
}

/// The tasks `query` finds, best first, at most `limit`; how many in all; and, when
/// filters let nothing through, a note naming the tags in use and the filters known.
pub fn search(
    tasks: &dyn TaskRecords,
    query: &str,
    limit: usize,
) -> Result<(Vec<Task>, usize, Option<String>)> {
    let query = TaskQuery::parse(query)?;
    if query.tags.is_empty() && query.statuses.is_empty() {
        let (found, total) = tasks.search(&query.text, limit)?;
        return Ok((found, total, None));
    }
    // Filters are checked here, on every candidate: a store holds hundreds of tasks, not
    // millions.
    let candidates = if !query.text.trim().is_empty() {
        tasks.search(&query.text, usize::MAX)?.0
    } else if let Some(tag) = query.tags.first() {
        tasks.list(Filter::Tag(tag), None)?
    } else {
        let mut all = Vec::new();
        for status in &query.statuses {
            all.extend(tasks.list(Filter::Status(*status), None)?);
        }
        all.sort_by(|a, b| (a.fields.priority, &a.slug).cmp(&(b.fields.priority, &b.slug)));
        all
    };
    let found: Vec<Task> = candidates.into_iter().filter(|t| query.passes(t)).collect();
    let total = found.len();
    let note = match total {
        0 => {
            let tags: Vec<String> = tasks.tags()?.into_iter().map(|(tag, _)| tag).collect();
            let tags = match tags.is_empty() {
                true => "no task has a tag".to_string(),
                false => format!("tags in use: {}", tags.join(", ")),
            };
            Some(format!("{tags}; a task search knows {FILTERS}"))
        }
        _ => None,
    };
    Ok((found.into_iter().take(limit).collect(), total, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_read_and_unknown_ones_explained() {
        let query = TaskQuery::parse("login tag:ui status:open fix: http://x").unwrap();
        assert_eq!(query.text, "login fix: http://x");
        assert_eq!(query.tags, ["ui"]);
        assert_eq!(query.statuses, [Status::Open]);
        let error = TaskQuery::parse("labels:bug").unwrap_err();
        assert!(
            error.message.contains("labels: is not a filter"),
            "{}",
            error.message
        );
        assert!(error.message.contains("tag:<tag>"), "{}", error.message);
        let error = TaskQuery::parse("status:later").unwrap_err();
        assert!(
            error.message.contains("knows tag:<tag>, status:"),
            "{}",
            error.message
        );
    }
}
