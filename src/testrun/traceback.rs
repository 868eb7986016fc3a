//! A pytest traceback (the text of a JUnit `<failure>` or `<error>`) read back into frames:
//! where each frame is, the source lines pytest showed around its failing line, and the
//! `E` lines that explain the error (the assertion's diff among them). Both of pytest's
//! frame shapes are read: the long one (source first, `path:line: Error` last) and the short
//! one it uses between the first and the last frame (`path:line: in function`, then the
//! line). Text it does not recognise yields no frames, and callers show it as it is.

/// One frame of a traceback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The file as pytest printed it: relative to the project's folder, or absolute.
    pub file: String,
    pub line: usize,
    /// The function, when pytest named it (short frames).
    pub function: Option<String>,
    /// The source lines shown, as printed (`>` marks the failing one); caret lines
    /// (`^^^^`) left out.
    pub code: Vec<String>,
}

impl Frame {
    /// The failing line with up to `before` lines above it and the lines that continue its
    /// statement below it.
    pub fn around_failure(&self, before: usize) -> &[String] {
        let Some(at) = self.code.iter().position(|l| l.starts_with('>')) else {
            return &self.code;
        };
        &self.code[at.saturating_sub(before)..]
    }
}

/// A traceback read into frames, outermost first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traceback {
    pub frames: Vec<Frame>,
    /// The `E` lines, in order, once each block (what the error says, with an assertion's
    /// explanation and diff).
    pub explanation: Vec<String>,
}

/// Reads `text`; no frames when it is not pytest's long or auto traceback.
pub fn read(text: &str) -> Traceback {
    let mut traceback = Traceback::default();
    for section in sections(text) {
        if let Some(frame) = short_frame(&section).or_else(|| long_frame(&section)) {
            traceback.frames.push(frame);
        }
        traceback.explanation.extend(
            section
                .iter()
                .filter(|l| l.starts_with("E ") || **l == "E")
                .map(|l| l.to_string()),
        );
    }
    traceback
}

/// The text between pytest's frame separators (`_ _ _ _ …`), and before each short frame
/// that comes without one (a collection error's traceback lists its frames so: `Traceback:`,
/// then `path:line: in name` and the line, one after the other).
fn sections(text: &str) -> Vec<Vec<&str>> {
    let mut sections = vec![Vec::new()];
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.len() >= 3 && trimmed.chars().all(|c| c == '_' || c == ' ') {
            sections.push(Vec::new());
            continue;
        }
        let short = location(trimmed).is_some_and(|(_, _, rest)| rest.starts_with("in "));
        if short && sections.last().is_some_and(|s| !s.is_empty()) {
            sections.push(Vec::new());
        }
        if let Some(section) = sections.last_mut() {
            section.push(trimmed);
        }
    }
    sections.retain(|s| s.iter().any(|l| !l.is_empty()));
    sections
}

/// `path:line: rest` with a path ending in `.py`.
fn location(line: &str) -> Option<(String, usize, &str)> {
    let (file, rest) = line.split_once(".py:")?;
    if file.is_empty() || file.starts_with(' ') || file.starts_with('>') || file.starts_with("E ") {
        return None;
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let number = digits.parse().ok()?;
    let after = rest[digits.len()..].strip_prefix(':')?;
    Some((format!("{file}.py"), number, after.trim()))
}

/// `pkg/core.py:13: in double` followed by the line.
fn short_frame(section: &[&str]) -> Option<Frame> {
    let first = section.iter().position(|l| !l.is_empty())?;
    let (file, line, rest) = location(section[first])?;
    let function = rest.strip_prefix("in ")?.to_string();
    let code = section[first + 1..]
        .iter()
        .filter(|l| is_code(l))
        .map(|l| format!(">{}", l.strip_prefix(' ').unwrap_or(l)))
        .take(1)
        .collect();
    Some(Frame {
        file,
        line,
        function: Some(function),
        code,
    })
}

/// Source lines, then `path:line: Error` (or `path:line: ` for a frame that called on).
fn long_frame(section: &[&str]) -> Option<Frame> {
    let at = section.iter().rposition(|l| location(l).is_some())?;
    let (file, line, _) = location(section[at])?;
    let shown = &section[..at];
    // The source starts after the arguments block (`v = -1`, then a blank line), if any.
    let start = match shown.iter().position(|l| l.is_empty()) {
        Some(blank)
            if shown[..blank]
                .iter()
                .all(|l| !is_code(l) && !l.starts_with('>')) =>
        {
            blank + 1
        }
        _ => 0,
    };
    let mut code: Vec<String> = Vec::new();
    for (n, line) in shown[start..].iter().enumerate() {
        if line.starts_with("E ") || *line == "E" || line.is_empty() {
            continue;
        }
        if is_caret_line(line) {
            continue;
        }
        // The first line of the whole failure text comes without pytest's indent.
        if n == 0 && !line.starts_with(' ') && !line.starts_with('>') {
            code.push(format!("    {line}"));
        } else if is_code(line) || line.starts_with('>') {
            code.push(line.to_string());
        }
    }
    Some(Frame {
        file,
        line,
        function: None,
        code,
    })
}

fn is_code(line: &str) -> bool {
    line.starts_with("    ") && !is_caret_line(line)
}

/// Python 3.11's position markers under a failing expression.
fn is_caret_line(line: &str) -> bool {
    let t = line.trim_start_matches(['>', ' ']);
    !t.is_empty() && t.chars().all(|c| c == '^' || c == '~' || c == ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_collection_error_s_frames_are_read_one_by_one() {
        let text = "ImportError while importing test module '/p/test/test_broken.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\n/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n           ^^^^^^^^^^^^^^^^^^^^\ntest/test_broken.py:1: in <module>\n    import nonexistent_module\nE   ModuleNotFoundError: No module named 'nonexistent_module'";
        let tb = read(text);
        let frames: Vec<(&str, usize, &[String])> = tb
            .frames
            .iter()
            .map(|f| (f.file.as_str(), f.line, f.code.as_slice()))
            .collect();
        assert_eq!(
            frames,
            [
                (
                    "/usr/lib/python3.11/importlib/__init__.py",
                    126,
                    &[
                        ">   return _bootstrap._gcd_import(name[level:], package, level)"
                            .to_string()
                    ][..]
                ),
                (
                    "test/test_broken.py",
                    1,
                    &[">   import nonexistent_module".to_string()][..]
                ),
            ]
        );
        assert_eq!(
            tb.explanation,
            ["E   ModuleNotFoundError: No module named 'nonexistent_module'"]
        );
    }

    /// A failure raised two frames into the project, as pytest 8 writes it in JUnit.
    const RAISED: &str = "def test_double():\n        box = Box(-1)\n>       assert box.double() == -2\n               ^^^^^^^^^^^^\n\ntests/test_core.py:19: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \npkg/core.py:13: in double\n    return helper(self.v)\n           ^^^^^^^^^^^^^^\n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n\nv = -1\n\n    def helper(v):\n        if v < 0:\n>           raise ValueError(f\"negative: {v}\")\nE           ValueError: negative: -1\n\npkg/core.py:18: ValueError";

    /// An assertion with pytest's explanation, on a statement of two lines.
    const ASSERTED: &str = "def test_windowed():\n        data = [1, 2, 3, 4]\n>       assert mi.windowed(data,\n                           2) == [(1, 2), (2, 3), (3, 4)]\nE       assert [(1, 2), (2, 3)] == [(1, 2), (2, 3), (3, 4)]\nE         \nE         Right contains one more item: (3, 4)\nE         Use -v to get more diff\n\ntests/test_core.py:13: AssertionError";

    #[test]
    fn every_frame_is_read_with_its_place_and_failing_line() {
        let tb = read(RAISED);
        let places: Vec<(&str, usize, Option<&str>)> = tb
            .frames
            .iter()
            .map(|f| (f.file.as_str(), f.line, f.function.as_deref()))
            .collect();
        assert_eq!(
            places,
            [
                ("tests/test_core.py", 19, None),
                ("pkg/core.py", 13, Some("double")),
                ("pkg/core.py", 18, None)
            ]
        );
        assert_eq!(
            tb.frames[0].code,
            [
                "    def test_double():",
                "        box = Box(-1)",
                ">       assert box.double() == -2"
            ]
        );
        assert_eq!(tb.frames[1].code, [">   return helper(self.v)"]);
        assert_eq!(
            tb.frames[2].around_failure(1),
            [
                "        if v < 0:",
                ">           raise ValueError(f\"negative: {v}\")"
            ]
        );
        assert_eq!(tb.explanation, ["E           ValueError: negative: -1"]);
    }

    #[test]
    fn an_assertion_keeps_its_whole_statement_and_explanation_once() {
        let tb = read(ASSERTED);
        assert_eq!(tb.frames.len(), 1);
        assert_eq!(
            tb.frames[0].around_failure(0),
            [
                ">       assert mi.windowed(data,",
                "                           2) == [(1, 2), (2, 3), (3, 4)]"
            ]
        );
        assert_eq!(tb.explanation.len(), 4);
        assert!(tb.explanation[2].contains("Right contains one more item"));
    }

    #[test]
    fn text_that_is_no_pytest_traceback_has_no_frames() {
        assert_eq!(
            read("Traceback (most recent call last):\n  oops\n").frames,
            []
        );
        assert_eq!(read("").frames, []);
    }
}
