//! `summary.md`: a session's summary, the unit of recall (seed 004, "Shared Thread
//! Memory"). A document with exactly five sections — what was done, what is left, the
//! decisions and their context, what tools returned that matters, and how working together
//! went — so every summary can be read, searched and carried forward the same way.

use crate::error::{Error, ErrorKind, Result};

/// The sections, in order.
pub const SECTIONS: [&str; 5] = [
    "Completed Work",
    "Pending Work",
    "Key Decisions & Context",
    "Tool Results",
    "How It Went",
];

/// What `summary.md` holds before anyone wrote it: the five sections, empty.
pub fn template(session: &str) -> String {
    let mut text = format!("# Summary of {session}\n");
    for section in SECTIONS {
        text.push_str(&format!("\n## {section}\n\n"));
    }
    text
}

/// Check a summary a writer sent: UTF-8, every section present once, in any order, and no
/// other top-level (`## `) section. Every problem is listed.
pub fn check(shown: &str, content: &[u8]) -> Result<String> {
    let text = std::str::from_utf8(content)
        .map_err(|_| Error::invalid(format!("{shown} was not saved: it is not UTF-8 text")))?;
    let mut seen: Vec<&str> = Vec::new();
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let Some(heading) = line.strip_prefix("## ") else {
            continue;
        };
        let heading = heading.trim();
        match SECTIONS.iter().find(|s| s.eq_ignore_ascii_case(heading)) {
            Some(section) if seen.contains(section) => problems.push(format!(
                "line {}: \"## {section}\" appears twice; merge the two",
                number + 1
            )),
            Some(section) => seen.push(section),
            None => problems.push(format!(
                "line {}: \"## {heading}\" is not a section of a summary (they are: {}); \
                 use ### for a sub-heading",
                number + 1,
                SECTIONS.join(", ")
            )),
        }
    }
    for section in SECTIONS.iter().filter(|s| !seen.contains(s)) {
        problems.push(format!("\"## {section}\" is missing (it may be empty)"));
    }
    if problems.is_empty() {
        Ok(text.to_string())
    } else {
        Err(Error::new(
            ErrorKind::Invalid,
            format!("{shown} was not saved:\n- {}", problems.join("\n- ")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_passes_and_every_problem_is_listed() {
        let template = template("s1");
        assert!(check("summary.md", template.as_bytes()).is_ok());
        let bad = template
            .replace("## Tool Results\n", "## Results\n")
            .replace("## How It Went\n", "## Completed Work\n");
        let error = check("summary.md", bad.as_bytes()).unwrap_err();
        let problems: Vec<&str> = error.message.lines().skip(1).collect();
        assert_eq!(problems.len(), 4, "{}", error.message);
        assert!(error.message.contains("\"## Results\" is not a section"));
        assert!(error.message.contains("appears twice"));
        assert!(error.message.contains("\"## Tool Results\" is missing"));
        assert!(error.message.contains("\"## How It Went\" is missing"));
    }
}
