//! The bytes of a task file. A task file is pretty JSON (2-space
//! indent, fields in a fixed order, trailing newline) made only from stored fields, so the
//! same task always reads as the same bytes — which is what lets a writer send them back
//! unchanged without changing anything.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::store::tasks::Task;

/// Field order of a task file: what it is, its state, then the long text, then the times.
#[derive(Serialize)]
struct TaskFile<'a> {
    id: i64,
    title: &'a str,
    status: &'a str,
    priority: u8,
    tags: &'a [String],
    depends_on: &'a [String],
    description: &'a str,
    created: &'a str,
    updated: &'a str,
}

/// The exact content of `task`'s file.
pub fn render(task: &Task) -> Result<Vec<u8>> {
    let (created, updated) = (task.created.to_string(), task.updated.to_string());
    let file = TaskFile {
        id: task.id,
        title: &task.fields.title,
        status: task.fields.status.as_str(),
        priority: task.fields.priority,
        tags: &task.fields.tags,
        depends_on: &task.fields.depends_on,
        description: &task.fields.description,
        created: &created,
        updated: &updated,
    };
    let mut bytes = serde_json::to_vec_pretty(&file)
        .map_err(|e| Error::internal(format!("cannot write task {} as JSON: {e}", task.slug)))?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tasks::{Fields, Status};

    #[test]
    fn a_task_file_has_a_fixed_shape() {
        let task = Task {
            id: 7,
            slug: "fix-login".into(),
            fields: Fields {
                title: "Fix the login form".into(),
                status: Status::InProgress,
                priority: 1,
                tags: vec!["ui".into(), "auth".into()],
                depends_on: vec![],
                description: "Submitting with \"enter\" fails.\nSee #12.".into(),
            },
            created: "2025-03-01T12:30:05Z".parse().unwrap(),
            updated: "2025-03-02T08:00:00Z".parse().unwrap(),
        };
        let expected = r#"{
  "id": 7,
  "title": "Fix the login form",
  "status": "in_progress",
  "priority": 1,
  "tags": [
    "ui",
    "auth"
  ],
  "depends_on": [],
  "description": "Submitting with \"enter\" fails.\nSee #12.",
  "created": "2025-03-01T12:30:05Z",
  "updated": "2025-03-02T08:00:00Z"
}
"#;
        assert_eq!(String::from_utf8(render(&task).unwrap()).unwrap(), expected);
    }
}
