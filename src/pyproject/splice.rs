//! Editing one TOML array inside a file's text so that every byte outside the edit stays
//! as it was: elements are replaced, appended and removed by splicing the text, never by
//! printing a parsed document again.
//!
//! The layout of an array is `[ P0 v0 S0 , P1 v1 S1 , ... [,] T ]`: each value `v` has the
//! text before it (`P`, after the previous comma) and after it (`S`, before the next comma),
//! and `T` runs from the last comma (or value) to `]`. A `P` or `T` that spans lines reads as
//! three parts: the *same-line* part up to its first newline (a comment ending the previous
//! element's line), the *middle* (whole comment lines), and the *last line* (the newline and
//! indentation of what follows). With that:
//! - an appended element takes the last element's indentation, and `T`'s same-line part
//!   (the last element's comment) stays on the last element's line;
//! - a removed element takes its line with it: its own comment, and the comment lines
//!   directly above it (as a symbol file of `source/` takes the comments above it);
//! - appending an element and removing it again gives back the text exactly.

use std::ops::Range;

/// One array as found in the text: its span (from `[` to `]` inclusive) and its values'
/// spans, in order.
#[derive(Debug, Clone)]
pub struct ArrayAt {
    pub span: Range<usize>,
    pub values: Vec<Range<usize>>,
}

/// One edit of the text: replace `range` with `with`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub range: Range<usize>,
    pub with: String,
}

impl Splice {
    /// `text` with this edit made.
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.with.len());
        out.push_str(&text[..self.range.start]);
        out.push_str(&self.with);
        out.push_str(&text[self.range.end..]);
        out
    }
}

/// Indentation of the first element of a multi-line array that has none to copy.
const INDENT: &str = "    ";

/// Replaces value `index` of `array` with `value` (a TOML value as written).
pub fn replace(array: &ArrayAt, index: usize, value: &str) -> Splice {
    Splice {
        range: array.values[index].clone(),
        with: value.to_string(),
    }
}

/// Appends `value` (a TOML value as written) to `array` in `text`.
pub fn append(text: &str, array: &ArrayAt, value: &str) -> Splice {
    let close = array.span.end - 1;
    let Some(last) = array.values.last() else {
        // `[]` stays on one line; `[` newline `]` gets an indented element and a comma.
        let inside = &text[array.span.start + 1..close];
        let trailing = Parts::of(inside);
        let with = if inside.contains('\n') {
            format!(
                "{}\n{INDENT}{value},{}{}",
                trailing.same_line, trailing.middle, trailing.last_line
            )
        } else {
            format!("{inside}{value}")
        };
        return Splice {
            range: array.span.start + 1..close,
            with,
        };
    };
    let (comma, trailing_start) = match comma_after(text, last.end, close) {
        Some(comma) => (true, comma + 1),
        None => (false, last.end),
    };
    let trailing = Parts::of(&text[trailing_start..close]);
    let before_last = match array.values.len() {
        1 => array.span.start + 1,
        n => comma_after(text, array.values[n - 2].end, last.start).map_or(last.start, |c| c + 1),
    };
    let indent = match Parts::of(&text[before_last..last.start]).last_line {
        // `["a"]` has no separator to copy.
        "" if array.values.len() == 1 => " ",
        indent => indent,
    };
    // The text after the last value up to its comma (`S`) stays where it is.
    let suffix_end = if comma {
        trailing_start - 1
    } else {
        trailing_start
    };
    let mut with = String::from(",");
    with.push_str(trailing.same_line);
    with.push_str(indent);
    with.push_str(value);
    if comma {
        with.push(',');
    }
    with.push_str(trailing.middle);
    with.push_str(trailing.last_line);
    Splice {
        range: suffix_end..close,
        with,
    }
}

/// Removes value `index` of `array` in `text`, with its line's comment and the comment
/// lines directly above it.
pub fn remove(text: &str, array: &ArrayAt, index: usize) -> Splice {
    let close = array.span.end - 1;
    let values = &array.values;
    let value = &values[index];
    // Where this element's `P` starts: after `[` or after the previous comma.
    let prefix_start = match index {
        0 => array.span.start + 1,
        _ => comma_after(text, values[index - 1].end, value.start).map_or(value.start, |c| c + 1),
    };
    let prefix = Parts::of(&text[prefix_start..value.start]);
    if let Some(next) = values.get(index + 1) {
        let comma = comma_after(text, value.end, next.start).unwrap_or(value.end);
        let next_prefix = Parts::of(&text[comma + 1..next.start]);
        return Splice {
            range: prefix_start..next.start,
            with: format!(
                "{}{}{}",
                prefix.same_line, next_prefix.middle, prefix.last_line
            ),
        };
    }
    // The last element: its `T` follows, after a trailing comma if there is one.
    let trailing_comma = comma_after(text, value.end, close);
    let trailing = Parts::of(&text[trailing_comma.map_or(value.end, |c| c + 1)..close]);
    if values.len() == 1 && !text[prefix_start..close].contains('\n') {
        // `[ "a" ]` on one line: the spaces around it stay, as appending it left them.
        return Splice {
            range: prefix_start..close,
            with: format!("{}{}", prefix.last_line, trailing.last_line),
        };
    }
    let start = match (index, trailing_comma) {
        // No trailing comma: the comma before this element goes with it.
        (1.., None) => prefix_start - 1,
        _ => prefix_start,
    };
    Splice {
        range: start..close,
        with: format!(
            "{}{}{}",
            prefix.same_line, trailing.middle, trailing.last_line
        ),
    }
}

/// The three parts of the text between two elements (see the module doc).
#[derive(Debug, PartialEq, Eq)]
struct Parts<'t> {
    same_line: &'t str,
    middle: &'t str,
    last_line: &'t str,
}

impl<'t> Parts<'t> {
    fn of(between: &'t str) -> Parts<'t> {
        match (between.find('\n'), between.rfind('\n')) {
            (Some(first), Some(last)) => Parts {
                same_line: &between[..first],
                middle: &between[first..last],
                last_line: &between[last..],
            },
            _ => Parts {
                same_line: "",
                middle: "",
                last_line: between,
            },
        }
    }
}

/// The position of the comma between `from` and `to`, skipping comments.
fn comma_after(text: &str, from: usize, to: usize) -> Option<usize> {
    let mut in_comment = false;
    for (at, c) in text[from..to].char_indices() {
        match c {
            '\n' => in_comment = false,
            '#' => in_comment = true,
            ',' if !in_comment => return Some(from + at),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The array `key = [...]` in `text`, found by hand so these tests do not depend on
    /// the TOML parser: values are the double-quoted strings inside, ignoring comments.
    fn array_in(text: &str) -> ArrayAt {
        let start = text.find('[').unwrap();
        let end = text.rfind(']').unwrap() + 1;
        let mut values = Vec::new();
        let mut at = start + 1;
        let mut in_comment = false;
        while at < end {
            let c = text[at..].chars().next().unwrap();
            match c {
                '#' => in_comment = true,
                '\n' => in_comment = false,
                '"' if !in_comment => {
                    let close = text[at + 1..].find('"').unwrap() + at + 2;
                    values.push(at..close);
                    at = close;
                    continue;
                }
                _ => {}
            }
            at += c.len_utf8();
        }
        ArrayAt {
            span: start..end,
            values,
        }
    }

    fn appended(text: &str, value: &str) -> String {
        append(text, &array_in(text), value).apply(text)
    }

    fn removed(text: &str, index: usize) -> String {
        remove(text, &array_in(text), index).apply(text)
    }

    const SHAPES: &[&str] = &[
        "d = []\n",
        "d = [ ]\n",
        "d = [ \"a\" ]\n",
        "d = [\n]\n",
        "d = [\"a\"]\n",
        "d = [\"a\", \"b\"]\n",
        "d = [ \"a\" , \"b\" ]\n",
        "d = [\n    \"a\",\n    \"b\",\n]\n",
        "d = [\n    \"a\",\n    \"b\"\n]\n",
        "d = [\n  \"a\",  # first\n  \"b\",  # second\n]\n",
        "d = [  # deps\n    \"a\",\n    # pinned\n    \"b\",\n    # \"c\",\n]\n",
        "d = [\n\t\"a\" ,\n\t\"b\" , # tab\n]\n",
    ];

    #[test]
    fn appending_then_removing_gives_the_text_back() {
        for shape in SHAPES {
            let with = appended(shape, "\"new>=1\"");
            assert!(with.contains("\"new>=1\""), "{with}");
            let last = array_in(&with).values.len() - 1;
            assert_eq!(&removed(&with, last), shape, "via {with:?}");
        }
    }

    #[test]
    fn appended_elements_follow_the_layout() {
        assert_eq!(appended("d = []", "\"x\""), "d = [\"x\"]");
        assert_eq!(appended("d = [\n]", "\"x\""), "d = [\n    \"x\",\n]");
        assert_eq!(appended("d = [\"a\"]", "\"x\""), "d = [\"a\", \"x\"]");
        assert_eq!(
            appended("d = [\n  \"a\",  # first\n]", "\"x\""),
            "d = [\n  \"a\",  # first\n  \"x\",\n]"
        );
        assert_eq!(
            appended("d = [\n    \"a\"\n]", "\"x\""),
            "d = [\n    \"a\",\n    \"x\"\n]",
            "no trailing comma stays so"
        );
        assert_eq!(
            appended("d = [\n    \"a\",\n    # \"old\",\n]", "\"x\""),
            "d = [\n    \"a\",\n    \"x\",\n    # \"old\",\n]",
            "after the last element, before commented-out lines"
        );
    }

    #[test]
    fn a_removed_element_takes_its_comments_and_leaves_the_others() {
        let text = "d = [  # deps\n    \"a\",  # a\n    # pinned\n    \"b\",  # b\n    \"c\",\n]\n";
        assert_eq!(
            removed(text, 1),
            "d = [  # deps\n    \"a\",  # a\n    \"c\",\n]\n"
        );
        assert_eq!(
            removed(text, 0),
            "d = [  # deps\n    # pinned\n    \"b\",  # b\n    \"c\",\n]\n"
        );
        assert_eq!(
            removed(text, 2),
            "d = [  # deps\n    \"a\",  # a\n    # pinned\n    \"b\",  # b\n]\n"
        );
        assert_eq!(removed("d = [\"a\", \"b\"]", 0), "d = [\"b\"]");
        assert_eq!(removed("d = [\"a\", \"b\"]", 1), "d = [\"a\"]");
        assert_eq!(removed("d = [\"a\"]", 0), "d = []");
        assert_eq!(removed("d = [\n    \"a\",\n]", 0), "d = [\n]");
    }

    #[test]
    fn a_replaced_value_keeps_everything_around_it() {
        let text = "d = [\n    \"a\",  # keep\n]";
        let array = array_in(text);
        assert_eq!(
            replace(&array, 0, "'a>=2'").apply(text),
            "d = [\n    'a>=2',  # keep\n]"
        );
    }
}
