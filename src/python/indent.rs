//! Dedent and re-indent: turning a symbol's lines into a standalone file and back, exactly.
//!
//! The rule is an editor's block indent, one line at a time (a line ends after `\n`, `\r\n`
//! or a lone `\r`, like Python): a whitespace-only line is kept verbatim; so is a line that
//! continues a multi-line string which is no docstring — it is part of a value, and moving
//! it would change what the program computes; every other line loses (dedent) or gains
//! (re-indent) exactly the symbol's indentation — a docstring's body too, so it moves with
//! its code, as `inspect.getsource` and `textwrap.dedent` show it. Which lines are values
//! is read from the parse: of the module when dedenting, of the symbol file itself when
//! re-indenting (the same strings, at the same places).
//!
//! If some other non-blank line does not start with the indentation (a comment or a
//! bracket continuation further left than the `def`), stripping cannot be undone from the
//! text alone. Such a symbol is not dedented at all: its file is the range verbatim, still
//! indented, and [`reindent`] recognises that form (its first code line already starts with
//! the indentation) and leaves it alone. So `reindent(&symbol_text(source, sym), &sym.indent)`
//! is `source[sym.range]` byte for byte, for every symbol `index_module` returns.

use super::index::Symbol;
use super::lines::LineTable;
use super::parse;

/// The symbol's file: `source[sym.range]` dedented by `sym.indent`, or verbatim when
/// `sym.exact_dedent` is false. `sym` must come from `index_module(source)`; for anything
/// else the result is unspecified (but this never panics).
pub fn symbol_text(source: &str, sym: &Symbol) -> String {
    let text = source.get(sym.range.clone()).unwrap_or("");
    if !sym.exact_dedent {
        return text.to_string();
    }
    dedent(text, &sym.indent, &sym.value_lines).unwrap_or_else(|| text.to_string())
}

/// The inverse of [`symbol_text`]: prefixes `indent` to every line that is not
/// whitespace-only and does not continue a string's value. Text whose first code line
/// already starts with `indent` is returned unchanged.
pub fn reindent(text: &str, indent: &str) -> String {
    if indent.is_empty() || first_code_line(text).is_some_and(|line| line.starts_with(indent)) {
        return text.to_string();
    }
    let table = LineTable::new(text);
    let values = table.lines_in_strings(&parse::outline(text).value_strings);
    let mut out = String::with_capacity(text.len() + indent.len() * table.len());
    for (n, line) in table.lines(text).enumerate() {
        if !is_blank(line) && !values.get(n).copied().unwrap_or(false) {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

/// `text` (valid Python) indented by the unit `to` where it is indented by `from` (`"  "`
/// to `"    "`, `"\t"` to `"    "` and back): each statement's line and each comment on a
/// line of its own that is indented by whole units of `from` takes as many of `to`; the
/// other lines of a statement (in brackets, after a `\`, a docstring's) follow their
/// statement's first line, keeping what they add to it; a line that continues a string
/// which is no docstring keeps its bytes, as Python reads them into the value. `None` when
/// the text is not valid Python or a statement is indented by no whole number of units:
/// then there is no one unit to change.
pub fn with_indent_unit(text: &str, from: &str, to: &str) -> Option<String> {
    if from.is_empty() || to.is_empty() {
        return None;
    }
    let (statements, comments) = parse::line_starts(text)?;
    let table = LineTable::new(text);
    let values = table.lines_in_strings(&parse::outline(text).value_strings);
    let mut starts = vec![None; table.len()];
    for (offsets, statement) in [(&statements, true), (&comments, false)] {
        for &at in offsets {
            if let Some(slot) = starts.get_mut(table.line_of(at)) {
                *slot = Some(statement);
            }
        }
    }
    let units = |lead: &str| {
        let count = lead.len() / from.len();
        (from.repeat(count) == lead).then_some(count)
    };
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    // The current statement's indentation, before and after.
    let (mut old, mut new) = (String::new(), String::new());
    for (n, line) in table.lines(text).enumerate() {
        if is_blank(line) || values.get(n).copied().unwrap_or(false) {
            out.push_str(line);
            continue;
        }
        let lead = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        match (starts.get(n).copied().flatten(), units(lead)) {
            (Some(_), Some(count)) => {
                (old, new) = (lead.to_string(), to.repeat(count));
                out.push_str(&new);
                out.push_str(&line[lead.len()..]);
            }
            // A statement off the grid: the text has no one unit.
            (Some(true), None) => return None,
            // A comment off the grid, where its writer put it.
            (Some(false), None) => out.push_str(line),
            (None, _) => match line.strip_prefix(old.as_str()) {
                Some(rest) => {
                    out.push_str(&new);
                    out.push_str(rest);
                }
                None => out.push_str(line),
            },
        }
    }
    Some(out)
}

/// Strips `indent` from every line that is not blank and not one of `values` (sorted line
/// numbers, kept as they are); `None` if one of the others does not start with it.
fn dedent(text: &str, indent: &str, values: &[usize]) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for (n, line) in LineTable::new(text).lines(text).enumerate() {
        if values.binary_search(&n).is_ok() {
            out.push_str(line);
        } else {
            out.push_str(dedent_line(line, indent)?);
        }
    }
    Some(out)
}

/// One line of [`dedent`]: itself if blank, else without `indent`, else `None`.
pub(super) fn dedent_line<'l>(line: &'l str, indent: &str) -> Option<&'l str> {
    if is_blank(line) {
        return Some(line);
    }
    // A byte loop, not `strip_prefix`: indents are a few bytes, and this runs for every line
    // of every symbol, where a `memcmp` call costs more than the comparison.
    let (bytes, prefix) = (line.as_bytes(), indent.as_bytes());
    let matches = bytes.len() >= prefix.len() && bytes.iter().zip(prefix).all(|(a, b)| a == b);
    if matches {
        line.get(prefix.len()..)
    } else {
        None
    }
}

/// Only spaces, tabs, form feeds and the line break. Python ignores such lines' indentation.
fn is_blank(line: &str) -> bool {
    line.bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n'))
}

/// The first line that is neither blank nor a comment: the decorator or `def`/`class` line.
fn first_code_line(text: &str) -> Option<&str> {
    let table = LineTable::new(text);
    table
        .lines(text)
        .find(|line| !is_blank(line) && !line.trim_start().starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::super::index_module;
    use super::*;

    /// Every symbol of `source` round-trips; returns the symbol files in order.
    fn files(source: &str) -> Vec<String> {
        let index = index_module(source);
        index
            .symbols
            .iter()
            .map(|sym| {
                let text = symbol_text(source, sym);
                assert_eq!(
                    reindent(&text, &sym.indent),
                    source[sym.range.clone()],
                    "{:?}",
                    sym.qualname
                );
                text
            })
            .collect()
    }

    #[test]
    fn whitespace_only_lines_are_kept_verbatim_both_ways() {
        let source =
            "class A:\n    def f(self):\n        x = 1\n  \n\n        \t\n        return x\n";
        assert_eq!(
            files(source)[1],
            "def f(self):\n    x = 1\n  \n\n        \t\n    return x\n"
        );
        assert_eq!(
            reindent("def f(self):\n  \n    pass\n", "    "),
            "    def f(self):\n  \n        pass\n"
        );
    }

    #[test]
    fn a_docstring_body_moves_with_its_code() {
        // click's Context.close, as textwrap.dedent(inspect.getsource(...)) shows it.
        let source = "class Context:\n    def close(self) -> None:\n        \"\"\"Invoke all close callbacks.\n\n        :meth:`call_on_close`.\n        \"\"\"\n        self._exit_stack.close()\n";
        assert_eq!(
            files(source)[1],
            "def close(self) -> None:\n    \"\"\"Invoke all close callbacks.\n\n    :meth:`call_on_close`.\n    \"\"\"\n    self._exit_stack.close()\n"
        );
        // Written as the file shows it, it lands as it would have been written in place.
        let written = "def credit(self, amount):\n    \"\"\"Record a credit.\n\n    Amount must be positive.\n    \"\"\"\n    self.apply(-amount)\n";
        assert_eq!(
            reindent(written, "    "),
            "    def credit(self, amount):\n        \"\"\"Record a credit.\n\n        Amount must be positive.\n        \"\"\"\n        self.apply(-amount)\n"
        );
    }

    /// attrs 25.3.0 `_ClassBuilder._make_getstate_setstate`: the docstring of a function
    /// defined inside the method moves with it, as the method's other lines do.
    #[test]
    fn a_nested_functions_docstring_moves_with_its_code() {
        let source = "class B:\n    def make(self):\n        def slots_getstate(self):\n            \"\"\"\n            Automatically created by attrs.\n            \"\"\"\n            return 1\n\n        class Inner:\n            '''Inner.\n\n            More.\n            '''\n\n        return slots_getstate\n";
        assert_eq!(
            files(source)[1],
            "def make(self):\n    def slots_getstate(self):\n        \"\"\"\n        Automatically created by attrs.\n        \"\"\"\n        return 1\n\n    class Inner:\n        '''Inner.\n\n        More.\n        '''\n\n    return slots_getstate\n"
        );
    }

    #[test]
    fn a_new_indent_unit_rescales_blocks_and_keeps_what_continuations_add() {
        let two = "def f(x):\n  \"\"\"Doc.\n\n  More.\n  \"\"\"\n  if x:\n    # why\n    y = call(a,\n             b)\n  s = '''a\n  b'''\n  return y\n";
        assert_eq!(
            with_indent_unit(two, "  ", "    ").as_deref(),
            Some(
                "def f(x):\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    if x:\n        # why\n        y = call(a,\n                 b)\n    s = '''a\n  b'''\n    return y\n"
            )
        );
        let three = "def f():\n   for i in x:\n      pass\n";
        assert_eq!(
            with_indent_unit(three, "   ", "    ").as_deref(),
            Some("def f():\n    for i in x:\n        pass\n")
        );
        let tabs = "def f():\n\tif x:\n\t\treturn (1,\n\t\t        2)\n";
        let spaces = with_indent_unit(tabs, "\t", "    ").unwrap();
        assert_eq!(
            spaces,
            "def f():\n    if x:\n        return (1,\n                2)\n"
        );
        assert_eq!(
            with_indent_unit(&spaces, "    ", "\t").as_deref(),
            Some(tabs)
        );
        // No one unit (a statement at 5 in a text of 2), or no Python: nothing to rescale.
        assert_eq!(
            with_indent_unit("def f():\n  if x:\n     pass\n", "  ", "    "),
            None
        );
        assert_eq!(with_indent_unit("def f(:\n  pass\n", "  ", "    "), None);
    }

    #[test]
    fn code_lines_move_and_a_strings_value_lines_stay() {
        let written = "def f():\n    t = f'''{s}\n    {s!r}'''\n    x = 'a' \\\n        'b'\n";
        assert_eq!(
            reindent(written, "\t"),
            "\tdef f():\n\t    t = f'''{s}\n    {s!r}'''\n\t    x = 'a' \\\n\t        'b'\n"
        );
    }

    /// Repro 1 of issue 25: a method holding a multi-line string at column 0, written into
    /// a class, keeps the string's value.
    #[test]
    fn a_written_method_keeps_its_strings_value() {
        let written = "def usage(self):\n    text = \"\"\"\\\nUsage:\n  col-two line\n\"\"\"\n    return text\n";
        let placed = reindent(written, "    ");
        assert_eq!(
            placed,
            "    def usage(self):\n        text = \"\"\"\\\nUsage:\n  col-two line\n\"\"\"\n        return text\n"
        );
        let source = format!("class P:\n{placed}");
        let index = index_module(&source);
        assert!(index.symbols[1].exact_dedent);
        assert_eq!(symbol_text(&source, &index.symbols[1]), written);
    }

    #[test]
    fn a_string_line_left_of_the_def_is_kept_and_the_symbol_dedents() {
        let source = "class T:\n    def test(self):\n        self.check('''\\\nline one\n  line two\n''')\n\n    def other(self): pass\n";
        let index = index_module(source);
        assert!(index.symbols[1].exact_dedent);
        let files = files(source);
        assert_eq!(
            files[1],
            "def test(self):\n    self.check('''\\\nline one\n  line two\n''')\n"
        );
        assert_eq!(files[2], "def other(self): pass\n");
    }

    #[test]
    fn crlf_and_a_missing_final_newline_round_trip() {
        let source = "class A:\r\n    def f(self):\r\n        '''Doc\r\n\r\n        more\r\n        '''\r\n        return 1";
        assert_eq!(
            files(source)[1],
            "def f(self):\r\n    '''Doc\r\n\r\n    more\r\n    '''\r\n    return 1"
        );
        let old_mac = "class A:\r    def f(self):\r        return 1\r";
        assert_eq!(files(old_mac)[1], "def f(self):\r    return 1\r");
    }

    #[test]
    fn tabs_as_indentation() {
        let source = "class A:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn '''a\n\tb'''\n";
        assert_eq!(
            files(source)[1],
            "def f(self):\n\tif self:\n\t\treturn '''a\n\tb'''\n"
        );
    }

    #[test]
    fn inexact_symbols_are_verbatim_and_reindent_leaves_them_alone() {
        let source =
            "class A:\n    # about f\n    def f(self):\n## old code\n        return (1,\n  2)\n";
        let index = index_module(source);
        let f = &index.symbols[1];
        assert!(!f.exact_dedent);
        let text = symbol_text(source, f);
        assert_eq!(text, source[f.range.clone()]);
        assert!(text.starts_with("    # about f\n    def f"));
        assert_eq!(reindent(&text, "    "), text);
    }

    #[test]
    fn an_empty_indent_changes_nothing() {
        let source = "def f():\n#col 0\n    return 1\n";
        assert_eq!(files(source)[0], source);
        assert_eq!(reindent("anything\n  at all", ""), "anything\n  at all");
    }

    #[test]
    fn reindent_accepts_broken_text_without_panicking() {
        for text in [
            "def f(:\n  '''open\n",
            "",
            "\n\n",
            "@\n",
            "\"\"\"",
            "def f():\n\tx\n  y\n",
        ] {
            let out = reindent(text, "    ");
            assert!(out.len() >= text.len());
        }
    }
}
