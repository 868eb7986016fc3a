//! The past sessions walk (d) reads: Claude Code session files (the JSONL an agent's
//! history is kept in) generated for a project — chores on its code, each with tool calls
//! reading the project's real files and running its tests (the noise a plain `grep` over
//! transcripts wades through) — and one session, in the middle, where a decision is taken
//! and its reason given in the turn after it.

use std::path::Path;

use serde_json::{Value, json};

/// What a project's sessions are about.
pub struct Memory {
    /// The project's folder as the sessions recorded it.
    pub cwd: &'static str,
    /// The user's first message of each chore session (cycled).
    pub chores: &'static [&'static str],
    /// Project files (from its root) the chores read with the Read tool (cycled).
    pub reads: &'static [&'static str],
    /// The decision session's four turns: the user's question, the decision, the user's
    /// "why", the reason.
    pub decision: [&'static str; 4],
    /// How many sessions in all.
    pub sessions: usize,
}

impl Memory {
    /// The id of the session where the decision is taken.
    pub fn decision_session(&self) -> String {
        Session::id(self.sessions / 2)
    }
}

/// Write the sessions of `memory` as `<dir>/<session id>.jsonl`, reading `project`'s files.
pub fn write(dir: &Path, memory: &Memory, project: &Path) -> Result<(), String> {
    for n in 0..memory.sessions {
        let mut session = Session::new(memory.cwd, n);
        let chore = memory.chores[n % memory.chores.len()];
        session.user(chore);
        session.assistant_text(&format!("I'll look at the code first: {chore}"));
        for k in 0..3 {
            let file = memory.reads[(n + k) % memory.reads.len()];
            let text = std::fs::read_to_string(project.join(file))
                .map_err(|e| format!("{}: {e}", project.join(file).display()))?;
            session.tool(
                "Read",
                json!({"file_path": format!("{}/{file}", memory.cwd)}),
                &text,
            );
        }
        if session.id == memory.decision_session() {
            let [ask, decided, why, reason] = memory.decision;
            session.user(ask);
            session.assistant_text(decided);
            session.user(why);
            session.assistant_text(reason);
        }
        session.tool(
            "Bash",
            json!({"command": "python -m pytest -q", "description": "Run the tests"}),
            &format!("{} passed in 0.{:02}s", 20 + n, n % 100),
        );
        session.assistant_text(&format!("Done: {chore} The tests pass."));
        let path = dir.join(format!("{}.jsonl", session.id));
        std::fs::write(&path, session.lines.join("\n") + "\n")
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// A session being written, record by record, as Claude Code writes them.
struct Session {
    id: String,
    cwd: &'static str,
    day: usize,
    turn: usize,
    lines: Vec<String>,
}

impl Session {
    fn new(cwd: &'static str, n: usize) -> Session {
        Session {
            id: Session::id(n),
            cwd,
            day: n,
            turn: 0,
            lines: Vec::new(),
        }
    }

    fn id(n: usize) -> String {
        format!("5e551{n:03}-0000-4000-8000-{n:012}")
    }

    fn uuid(&self, turn: usize) -> String {
        format!("{:08x}-1111-4222-8333-{:012x}", self.day, turn)
    }

    fn push(&mut self, kind: &str, message: Value, extra: Option<(&str, Value)>) {
        self.turn += 1;
        let parent = (self.turn > 1).then(|| self.uuid(self.turn - 1));
        // Sessions a day apart from 2025-09-01, turns a few seconds apart.
        let (month, day) = if self.day < 30 {
            (9, self.day + 1)
        } else {
            (10, self.day - 29)
        };
        let mut record = json!({
            "parentUuid": parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.id,
            "version": "2.0.31",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": self.uuid(self.turn),
            "timestamp": format!("2025-{month:02}-{day:02}T10:{:02}:{:02}.000Z", self.turn / 12, self.turn * 5 % 60),
        });
        if let (Some((key, value)), Some(map)) = (extra, record.as_object_mut()) {
            map.insert(key.to_string(), value);
        }
        self.lines.push(record.to_string());
    }

    fn user(&mut self, text: &str) {
        self.push("user", json!({"role": "user", "content": text}), None);
    }

    fn assistant(&mut self, content: Value) {
        let message = json!({
            "id": format!("msg_{}", self.uuid(self.turn + 1)),
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": content,
            "stop_reason": null,
            "usage": {"input_tokens": 1200 + self.turn * 37, "output_tokens": 90 + self.turn},
        });
        self.push(
            "assistant",
            message,
            Some(("requestId", json!(format!("req_{}", self.turn)))),
        );
    }

    fn assistant_text(&mut self, text: &str) {
        self.assistant(json!([{"type": "text", "text": text}]));
    }

    /// A tool call and its result; Claude Code keeps the result twice (in the message and
    /// in `toolUseResult`).
    fn tool(&mut self, name: &str, input: Value, result: &str) {
        let id = format!("toolu_{}", self.uuid(self.turn + 1));
        self.assistant(json!([{"type": "tool_use", "id": id, "name": name, "input": input}]));
        let message = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": result}
        ]});
        self.push(
            "user",
            message,
            Some(("toolUseResult", json!({"stdout": result, "stderr": ""}))),
        );
    }
}
