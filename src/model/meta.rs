//! An entry's meta: what a reader kept of the source beside the entry's text. The fields
//! that readers, the store and the views share (the tool of a call, the id pairing a call
//! with its result, whether a result failed, a system line's level) are read and written
//! here by name, and nowhere else; a source's own fields (Claude Code's `uuid`, Codex's
//! `phase`, a chat export's extra fields) are kept as the source gave them.
//!
//! Stored and shown as one JSON object with its keys in byte order, exactly as before it
//! had a type: existing stores read back the same, and entry files stay byte for byte.

use std::fmt;
use std::ops::Index;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An entry's meta: a JSON object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meta(Map<String, Value>);

impl Meta {
    /// The tool a call ran, or whose result this is: `Bash`, `shell`, `edit`.
    pub const TOOL: &'static str = "tool";
    /// What pairs a call with its result (Codex, Gemini CLI, OpenCode, Aider, chat exports).
    pub const CALL_ID: &'static str = "call_id";
    /// Claude Code's name for [`Meta::CALL_ID`].
    pub const TOOL_USE_ID: &'static str = "tool_use_id";
    /// Whether a tool's result says it failed.
    pub const IS_ERROR: &'static str = "is_error";
    /// A system line's level (`error`, ...).
    pub const LEVEL: &'static str = "level";
    /// A command's exit code, as Codex and Gemini CLI name it.
    const EXIT_CODES: [&'static str; 2] = ["exit_code", "exitCode"];

    /// The meta of a tool call (or of its result): its tool and the id pairing the two.
    pub fn call(tool: impl Into<String>, call_id: impl Into<String>) -> Meta {
        let mut meta = Meta::default();
        meta.set_tool(tool);
        meta.set_call_id(call_id);
        meta
    }

    /// The tool named, when it is named by a string.
    pub fn tool(&self) -> Option<&str> {
        self.text(Meta::TOOL)
    }

    /// The id pairing a call with its result, whichever name its source gives it.
    pub fn call_id(&self) -> Option<&str> {
        self.text(Meta::TOOL_USE_ID)
            .or_else(|| self.text(Meta::CALL_ID))
    }

    /// Whether the result says it failed, when it says.
    pub fn is_error(&self) -> Option<bool> {
        self.0.get(Meta::IS_ERROR).and_then(Value::as_bool)
    }

    /// A system line's level, when it has one.
    pub fn level(&self) -> Option<&str> {
        self.text(Meta::LEVEL)
    }

    /// The exit codes noted, under either name.
    pub fn exit_codes(&self) -> impl Iterator<Item = i64> + '_ {
        Meta::EXIT_CODES
            .iter()
            .filter_map(|name| self.0.get(*name).and_then(Value::as_i64))
    }

    pub fn set_tool(&mut self, tool: impl Into<String>) {
        self.0.insert(Meta::TOOL.into(), Value::String(tool.into()));
    }

    /// Names the tool unless the source named one already.
    pub fn default_tool(&mut self, tool: impl Into<String>) {
        self.0
            .entry(Meta::TOOL)
            .or_insert_with(|| Value::String(tool.into()));
    }

    pub fn set_call_id(&mut self, id: impl Into<String>) {
        self.0
            .insert(Meta::CALL_ID.into(), Value::String(id.into()));
    }

    pub fn set_tool_use_id(&mut self, id: impl Into<String>) {
        self.0
            .insert(Meta::TOOL_USE_ID.into(), Value::String(id.into()));
    }

    /// Notes a command's exit code, under the name Codex gives it.
    pub fn set_exit_code(&mut self, code: i64) {
        self.0.insert(Meta::EXIT_CODES[0].into(), Value::from(code));
    }

    pub fn set_is_error(&mut self, failed: bool) {
        self.0.insert(Meta::IS_ERROR.into(), Value::Bool(failed));
    }

    /// Keeps a field of the source's own under `name`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<Value>) {
        self.0.insert(name.into(), value.into());
    }

    /// Keeps a field of the source's own under `name`, unless one is kept there already.
    pub fn insert_new(&mut self, name: impl Into<String>, value: impl Into<Value>) {
        self.0.entry(name).or_insert_with(|| value.into());
    }

    /// The field `name`, as the source gave it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }
}

/// A source's meta object, kept whole.
impl From<Map<String, Value>> for Meta {
    fn from(object: Map<String, Value>) -> Meta {
        Meta(object)
    }
}

/// Meta from JSON: only an object is meta.
impl TryFrom<Value> for Meta {
    type Error = String;

    fn try_from(value: Value) -> Result<Meta, String> {
        match value {
            Value::Object(object) => Ok(Meta(object)),
            other => Err(format!(
                "an entry's meta must be a JSON object, not {other}"
            )),
        }
    }
}

/// The JSON text the store keeps.
impl fmt::Display for Meta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(&self.0).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// `meta["tool"]`: the field as the source gave it, `null` when there is none (as a JSON
/// object indexes).
impl Index<&str> for Meta {
    type Output = Value;

    fn index(&self, name: &str) -> &Value {
        static NONE: Value = Value::Null;
        self.0.get(name).unwrap_or(&NONE)
    }
}

/// The same meta as a JSON object: tests compare with `json!`.
impl PartialEq<Value> for Meta {
    fn eq(&self, other: &Value) -> bool {
        matches!(other, Value::Object(object) if *object == self.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Meta;

    #[test]
    fn meta_is_stored_as_the_object_it_was_before_it_had_a_type() {
        let mut meta = Meta::call("Bash", "call_1");
        meta.set_is_error(false);
        meta.insert("uuid", "u-1");
        let text = serde_json::to_string(&meta).unwrap();
        let untyped =
            json!({"uuid": "u-1", "tool": "Bash", "call_id": "call_1", "is_error": false});
        assert_eq!(text, untyped.to_string());
        assert_eq!(serde_json::from_str::<Meta>(&text).unwrap(), meta);
        assert_eq!(serde_json::to_string(&Meta::default()).unwrap(), "{}");
        assert!(serde_json::from_str::<Meta>("[1, 2]").is_err());
    }

    #[test]
    fn shared_fields_are_read_by_name_whichever_source_wrote_them() {
        let claude: Meta = json!({"tool_use_id": "t1", "tool": "Bash"})
            .try_into()
            .unwrap();
        assert_eq!(
            (claude.tool(), claude.call_id()),
            (Some("Bash"), Some("t1"))
        );
        let codex: Meta = json!({"call_id": "c1", "exit_code": 1}).try_into().unwrap();
        assert_eq!(codex.call_id(), Some("c1"));
        assert_eq!(codex.exit_codes().collect::<Vec<_>>(), [1]);
        assert_eq!(codex["tool"], serde_json::Value::Null);
        let mut named = Meta::call("grep", "c2");
        named.default_tool("Bash");
        assert_eq!(named.tool(), Some("grep"));
    }
}
