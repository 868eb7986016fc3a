//! The symbol index of one Python module: which classes, functions and methods it defines,
//! each with the exact byte range that its symbol file stands for.
//!
//! Guarantees, for `index_module(source)` on any input (it never panics):
//! - symbols are in source order, parents before children, ranges nested like the code;
//! - every range starts at a line start and ends at a line end (after its line break, if
//!   any), on char boundaries, so `source[range]` is whole lines;
//! - ranges of siblings never overlap: a leading comment block is taken only from lines at
//!   exactly the symbol's indentation, which no body can end with, and the comments after
//!   a body only from lines indented deeper than the symbol, which no sibling starts with;
//! - with syntax errors, `problems` is non-empty and `symbols` keeps only the top-level
//!   definitions (with everything inside them) that end before the line of the first error.

use std::collections::HashMap;

use super::indent::dedent_line;
use super::index::{ModuleIndex, ModuleName, Symbol, SyntaxProblem, TextSize};
use super::lines::LineTable;
use super::parse::{self, Definition, Problem};

/// Indexes a module's source. Never panics; see the module docs for what holds.
pub fn index_module(source: &str) -> ModuleIndex {
    let outline = parse::outline(source);
    let table = LineTable::new(source);
    let in_string = table.lines_in_strings(&outline.multiline_strings);
    let in_value = table.lines_in_strings(&outline.value_strings);
    let reliable = reliable_prefix(&outline.definitions, &outline.problems, &table);
    // Trailing comments never reach the line of the first error: the prefix ends before it.
    let last_line = outline
        .problems
        .first()
        .map_or(table.len(), |p| table.line_of(p.offset));
    let definitions = &outline.definitions[..reliable];
    let stems = file_stems(definitions);
    let mut symbols: Vec<Symbol> = Vec::with_capacity(reliable);
    for (definition, stem) in definitions.iter().zip(stems) {
        let mut qualname = definition
            .parent
            .and_then(|parent| symbols.get(parent))
            .map_or_else(Vec::new, |parent| parent.qualname.clone());
        qualname.push(definition.name.clone());
        let lines = Lines {
            source,
            table: &table,
            in_string: &in_string,
            in_value: &in_value,
            last_line,
        };
        symbols.push(symbol(&lines, definition, qualname, stem));
    }
    let names = outline
        .bindings
        .into_iter()
        .map(|binding| ModuleName {
            name: binding.name,
            kind: binding.kind,
            line: table.line_of(binding.offset) + 1,
            value: binding.value,
            guarded: binding.guarded,
        })
        .filter(|name| name.line <= last_line)
        .collect();
    ModuleIndex {
        docstring: outline.docstring,
        symbols,
        names,
        problems: locate(source, &table, &outline.problems),
        lines: table.len(),
        size: TextSize::of(source),
    }
}

/// All syntax errors of `source`, each with line, column and what was expected.
pub fn check_syntax(source: &str) -> Vec<SyntaxProblem> {
    let problems = parse::syntax_problems(source);
    if problems.is_empty() {
        return Vec::new();
    }
    locate(source, &LineTable::new(source), &problems)
}

/// The file stem of each definition: its name, or `name@N` when its container defines the
/// name more than once. The plain name goes to the definition that runs when called: in a
/// group with `@overload` stubs, the first definition without `@overload` (the
/// implementation, before or after its stubs); otherwise the first one. The others are
/// `name@2`, `name@3`, ... in source order.
fn file_stems(definitions: &[Definition]) -> Vec<String> {
    let mut groups: HashMap<(Option<usize>, &str), Vec<usize>> = HashMap::new();
    for (index, definition) in definitions.iter().enumerate() {
        groups
            .entry((definition.parent, definition.name.as_str()))
            .or_default()
            .push(index);
    }
    let mut stems: Vec<String> = definitions.iter().map(|d| d.name.clone()).collect();
    for members in groups.values().filter(|members| members.len() > 1) {
        let overloaded = members.iter().any(|&m| definitions[m].overload);
        let plain = members
            .iter()
            .copied()
            .find(|&m| overloaded && !definitions[m].overload)
            .unwrap_or(members[0]);
        let others = members.iter().filter(|&&m| m != plain);
        for (n, &member) in others.enumerate() {
            stems[member] = format!("{}@{}", definitions[member].name, n + 2);
        }
    }
    stems
}

/// How many definitions (a prefix, so whole top-level subtrees) end before the line of the
/// first syntax error. Error recovery may stretch or cut whatever the error touches, and
/// top-level definitions are in order and disjoint, so the first one that fails ends it.
fn reliable_prefix(definitions: &[Definition], problems: &[Problem], table: &LineTable) -> usize {
    let Some(first) = problems.first() else {
        return definitions.len();
    };
    let limit = table.line_start(table.line_of(first.offset));
    definitions
        .iter()
        .position(|definition| {
            definition.parent.is_none() && table.line_end_after(definition.end) > limit
        })
        .unwrap_or(definitions.len())
}

/// A module's lines as the index reads them: which begin inside a string, which continue
/// a value, and the line before which every line is reliable (no syntax error yet).
struct Lines<'s> {
    source: &'s str,
    table: &'s LineTable,
    in_string: &'s [bool],
    in_value: &'s [bool],
    last_line: usize,
}

fn symbol(
    module: &Lines<'_>,
    definition: &Definition,
    qualname: Vec<String>,
    file_stem: String,
) -> Symbol {
    let Lines {
        source,
        table,
        in_string,
        in_value,
        ..
    } = *module;
    let first_line = table.line_of(definition.start);
    let head_start = table.line_start(first_line);
    // Only the whitespace right before the keyword: a byte-order mark may precede it.
    let before = source.get(head_start..definition.start).unwrap_or("");
    let indent = before
        .get(before.trim_end_matches([' ', '\t', '\x0c']).len()..)
        .unwrap_or("")
        .to_string();
    let comment_lines = comment_block(source, table, in_string, first_line, &indent);
    let start_line = first_line - comment_lines;
    let body_end = table.line_end_after(definition.end).max(head_start);
    let line_after_body = match body_end < source.len() {
        true => table.line_of(body_end),
        false => table.len(),
    };
    let after_comments = trailing_comments(module, line_after_body, &indent);
    let range = table.line_start(start_line)..table.line_start(after_comments).max(body_end);
    let lines = if range.end > range.start {
        table.line_of(range.end - 1) + 1 - start_line
    } else {
        0
    };
    let value_lines: Vec<usize> = (start_line..start_line + lines)
        .filter(|&line| in_value.get(line).copied().unwrap_or(false))
        .map(|line| line - start_line)
        .collect();
    let exact_dedent = (start_line..start_line + lines).all(|line| {
        let text = source.get(table.line_range(line)).unwrap_or("");
        in_value.get(line).copied().unwrap_or(false) || dedent_line(text, &indent).is_some()
    });
    Symbol {
        file_stem,
        qualname,
        overload: definition.overload,
        kind: definition.kind,
        parent: definition.parent,
        range,
        def_line: table.line_of(definition.keyword) + 1,
        first_line: start_line + 1,
        comment_lines,
        trailing_comment_lines: after_comments - line_after_body,
        indent,
        signature: definition.signature.clone(),
        doc: definition.doc.clone(),
        lines,
        exact_dedent,
        value_lines,
    }
}

/// How many lines directly above `line` are comments at exactly `indent` (`indent` then `#`),
/// not inside a string.
fn comment_block(
    source: &str,
    table: &LineTable,
    in_string: &[bool],
    line: usize,
    indent: &str,
) -> usize {
    let mut count = 0;
    while count < line {
        let above = line - count - 1;
        let is_comment = !in_string.get(above).copied().unwrap_or(false)
            && source
                .get(table.line_range(above))
                .and_then(|text| text.strip_prefix(indent))
                .is_some_and(|rest| rest.starts_with('#'));
        if !is_comment {
            break;
        }
        count += 1;
    }
    count
}

/// The line after the last comment from `line` on (the line after a body) indented
/// deeper than the symbol's `indent`, across blank lines; `line` itself when there is none. Python's AST ends a body at its last statement, but a comment indented inside the
/// body after it is the body's as its reader sees it (and as an editor appended it): the
/// symbol file must show it, and a write must put it back there. Blank lines after the last
/// such comment stay between the symbols.
fn trailing_comments(lines: &Lines<'_>, line: usize, indent: &str) -> usize {
    let mut end = line;
    for next in line..lines.last_line.min(lines.table.len()) {
        if lines.in_string.get(next).copied().unwrap_or(true) {
            break;
        }
        let text = lines.source.get(lines.table.line_range(next)).unwrap_or("");
        let code = text.trim_start_matches([' ', '\t', '\x0c']);
        if code.trim().is_empty() {
            continue;
        }
        let deeper = text
            .strip_prefix(indent)
            .is_some_and(|rest| rest.starts_with([' ', '\t', '\x0c']));
        if !deeper || !code.starts_with('#') {
            break;
        }
        end = next + 1;
    }
    end
}

/// `problems` with their byte offsets turned into 1-based lines and columns (in chars).
pub(super) fn locate(source: &str, table: &LineTable, problems: &[Problem]) -> Vec<SyntaxProblem> {
    problems
        .iter()
        .map(|problem| {
            let (line, column) = table.line_column(source, problem.offset);
            SyntaxProblem {
                line,
                column,
                message: problem.message.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{SymbolKind, reindent, symbol_text};
    use super::*;

    /// One line per symbol: `stem kind qualname def_line lines [inexact]`, easy to compare.
    fn outline(source: &str) -> String {
        let index = index_module(source);
        assert!(index.problems.is_empty(), "{:?}", index.problems);
        for sym in &index.symbols {
            let text = symbol_text(source, sym);
            assert_eq!(reindent(&text, &sym.indent), source[sym.range.clone()]);
        }
        index
            .symbols
            .iter()
            .map(|sym| {
                let kind = match sym.kind {
                    SymbolKind::Class => "class",
                    SymbolKind::Function => "def",
                    SymbolKind::AsyncFunction => "async",
                };
                let exact = if sym.exact_dedent { "" } else { " inexact" };
                // The range starts on its first line: comments, then a decorator or the def.
                let head = source.lines().nth(sym.first_line - 1 + sym.comment_lines);
                let head = head.unwrap_or_default().trim_start();
                assert!(
                    ["@", "def", "class", "async"]
                        .iter()
                        .any(|k| head.starts_with(k)),
                    "{} starts at line {}: {head}",
                    sym.file_stem,
                    sym.first_line
                );
                format!(
                    "{} {kind} {} line {} ({} lines){exact}\n",
                    sym.file_stem,
                    sym.qualname.join("."),
                    sym.def_line,
                    sym.lines
                )
            })
            .collect()
    }

    fn assert_text(actual: &str, expected: &str) {
        assert!(
            actual == expected,
            "\n--- expected ---\n{expected}--- actual ---\n{actual}--- (end)"
        );
    }

    fn text_of(source: &str, qualname: &str) -> String {
        let index = index_module(source);
        let sym = index
            .symbols
            .iter()
            .find(|sym| sym.qualname.join(".") == qualname)
            .expect("symbol exists");
        symbol_text(source, sym)
    }

    #[test]
    fn nested_classes_and_methods_in_source_order() {
        let source = "\
class Outer:
    class Inner:
        def deep(self):
            def local_helper():
                pass
            return local_helper

    def method(self):
        class Local:
            pass

def top():
    pass
";
        assert_text(
            &outline(source),
            "\
Outer class Outer line 1 (10 lines)
Inner class Outer.Inner line 2 (5 lines)
deep def Outer.Inner.deep line 3 (4 lines)
method def Outer.method line 8 (3 lines)
top def top line 12 (2 lines)
",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[2].parent, Some(1));
        assert_eq!(index.symbols[3].parent, Some(0));
        assert_eq!(index.lines, 13);
        assert_text(
            &text_of(source, "Outer.Inner.deep"),
            "def deep(self):\n    def local_helper():\n        pass\n    return local_helper\n",
        );
    }

    #[test]
    fn decorators_and_the_comment_block_directly_above() {
        let source = "\
import functools

# Not part of f: a blank line follows.

# Part of f.
#   (indented text inside the comment)
@functools.cache
# between decorator and def
def f(x):
    return x
class A:
    x = 1
    # about g
    @staticmethod
    def g():
        pass
# a module-level comment is not g's
    def h(self):
        pass
";
        assert_text(
            &outline(source),
            "\
f def f line 9 (6 lines)
A class A line 11 (9 lines)
g def A.g line 15 (4 lines)
h def A.h line 18 (2 lines)
",
        );
        assert_text(
            &text_of(source, "f"),
            "# Part of f.\n#   (indented text inside the comment)\n@functools.cache\n\
             # between decorator and def\ndef f(x):\n    return x\n",
        );
        assert_text(
            &text_of(source, "A.g"),
            "# about g\n@staticmethod\ndef g():\n    pass\n",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[0].comment_lines, 2);
        assert_eq!(index.symbols[3].comment_lines, 0);
    }

    #[test]
    fn second_definitions_get_numbered_stems() {
        let source = "\
from typing import overload, TYPE_CHECKING

class Account:
    @property
    def balance(self) -> int:
        return self._balance

    @balance.setter
    def balance(self, value: int) -> None:
        self._balance = value

@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x

if TYPE_CHECKING:
    class Proto: ...
else:
    Proto = object

try:
    from fast import speedup
except ImportError:
    def speedup(x):
        return x
else:
    pass
finally:
    def cleanup(): pass

with open(__file__) as f:
    def reader(): return f

class C:
    try:
        def f(self): return 1
    except NameError:
        async def f(self): return 2
";
        assert_text(
            &outline(source),
            "\
Account class Account line 3 (8 lines)
balance def Account.balance line 5 (3 lines)
balance@2 def Account.balance line 9 (3 lines)
parse@2 def parse line 13 (2 lines)
parse@3 def parse line 15 (2 lines)
parse def parse line 16 (2 lines)
Proto class Proto line 20 (1 lines)
speedup def speedup line 27 (2 lines)
cleanup def cleanup line 32 (1 lines)
reader def reader line 35 (1 lines)
C class C line 37 (5 lines)
f def C.f line 39 (1 lines)
f@2 async C.f line 41 (1 lines)
",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[12].indent, "        ");
        assert_text(&text_of(source, "C.f"), "def f(self): return 1\n");
        assert_text(
            &text_of(source, "speedup"),
            "def speedup(x):\n    return x\n",
        );
    }

    #[test]
    fn the_plain_name_of_an_overloaded_function_is_its_implementation() {
        let source = "\
import typing
import typing as t
import typing_extensions

class Environment:
    @typing.overload
    def compile(self, source: str, raw: typing.Literal[False] = False) -> CodeType: ...
    @t.overload
    def compile(self, source: str, raw: typing.Literal[True]) -> str: ...
    def compile(self, source, raw=False):
        return source

def later(x):
    return x
@typing_extensions.overload
def later(x: int) -> int: ...
@overload
def later(x: str) -> str: ...

@overload
def stub_only(x: int) -> int: ...
@overload
def stub_only(x: str) -> str: ...
";
        assert_text(
            &outline(source),
            "\
Environment class Environment line 5 (7 lines)
compile@2 def Environment.compile line 7 (2 lines)
compile@3 def Environment.compile line 9 (2 lines)
compile def Environment.compile line 10 (2 lines)
later def later line 13 (2 lines)
later@2 def later line 16 (2 lines)
later@3 def later line 18 (2 lines)
stub_only def stub_only line 21 (2 lines)
stub_only@2 def stub_only line 23 (2 lines)
",
        );
        let index = index_module(source);
        let overloads: Vec<bool> = index.symbols.iter().map(|s| s.overload).collect();
        assert_eq!(
            overloads,
            [false, true, true, false, false, true, true, true, true]
        );
        let implementation = index
            .symbols
            .iter()
            .find(|s| s.parent == Some(0) && s.file_stem == "compile")
            .expect("compile.py exists");
        assert_text(
            &symbol_text(source, implementation),
            "def compile(self, source, raw=False):\n    return source\n",
        );
    }

    #[test]
    fn pep_695_and_701_syntax() {
        let source = "\
type X = int
def first[T](xs: list[T]) -> T:
    return xs[0]
class Box[T: (int, str)](Base):
    def show(self, d):
        return f\"{d[\"k\"]} and {f'{d['k']}'}\"
";
        assert_text(
            &outline(source),
            "\
first def first line 2 (2 lines)
Box class Box line 4 (3 lines)
show def Box.show line 5 (2 lines)
",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[0].signature, "[T](xs: list[T]) -> T");
        assert_eq!(index.symbols[1].signature, "[T: (int, str)](Base)");
    }

    #[test]
    fn docstrings_and_signatures() {
        let source = "\
\"\"\"The module.

Details.\"\"\"

class Plain:
    '''
    Summary on the second line.
    '''

def long(self, alpha: int, beta: str = 'b',  # why beta
         *args: tuple[int, ...], gamma: dict[str, list[int]] | None = None, **kwargs) -> bool:
    b'bytes are no docstring'
";
        let index = index_module(source);
        assert_eq!(index.docstring.as_deref(), Some("The module."));
        let plain = &index.symbols[0];
        assert_eq!(plain.doc.as_deref(), Some("Summary on the second line."));
        assert_eq!(plain.signature, "");
        let long = &index.symbols[1];
        assert_eq!(long.doc, None);
        assert_eq!(long.signature.chars().count(), 80);
        assert_eq!(
            long.signature,
            "(self, alpha: int, beta: str = 'b', *args: tuple[int, ...], gamma: dict[str, li…"
        );
    }

    #[test]
    fn docstrings_move_with_the_code_and_other_strings_keep_their_lines() {
        let source = "\
class Report:
    def render(self):
        \"\"\"Render.

        Indented as the code.
        \"\"\"
        return f'''{self!r}
            {1 +
        2}'''

    def raw(self):
        return '''\\
col 0 continuation
'''
";
        assert_text(
            &outline(source),
            "Report class Report line 1 (14 lines)\nrender def Report.render line 2 (8 lines)\nraw def Report.raw line 11 (4 lines)\n",
        );
        // The docstring moves; the f-string's lines after its first are its value.
        assert_text(
            &text_of(source, "Report.render"),
            "\
def render(self):
    \"\"\"Render.

    Indented as the code.
    \"\"\"
    return f'''{self!r}
            {1 +
        2}'''
",
        );
        // A string line left of the def no longer makes the symbol verbatim.
        assert_text(
            &text_of(source, "Report.raw"),
            "def raw(self):\n    return '''\\\ncol 0 continuation\n'''\n",
        );
    }

    #[test]
    fn a_line_left_of_the_indent_makes_the_symbol_verbatim() {
        let source = "\
class A:
    def f(self):
        x = 1
#       x = 2   (commented out at column 0)
        return x

    def g(self):
        return (1,
2)
";
        assert_text(
            &outline(source),
            "\
A class A line 1 (9 lines)
f def A.f line 2 (4 lines) inexact
g def A.g line 7 (3 lines) inexact
",
        );
        assert_text(
            &text_of(source, "A.g"),
            "    def g(self):\n        return (1,\n2)\n",
        );
    }

    #[test]
    fn comments_indented_in_a_body_after_its_last_statement_are_the_symbols() {
        let source = "\
class A:
    def f(self):
        return 1
        # appended

        # after a blank line

    # A's, not f's
    def g(self):
        return 2
            # deeper still
# column 0: the module's


def h():
    pass
    # last line, no break";
        assert_text(
            &outline(source),
            "\
A class A line 1 (11 lines)
f def A.f line 2 (5 lines)
g def A.g line 9 (4 lines)
h def h line 15 (3 lines)
",
        );
        assert_text(
            &text_of(source, "A.f"),
            "def f(self):\n    return 1\n    # appended\n\n    # after a blank line\n",
        );
        let index = index_module(source);
        let f = &index.symbols[1];
        assert_eq!(f.trailing_comment_lines, 3);
        assert_eq!(index.symbols[2].comment_lines, 1, "g keeps its own comment");
        assert_eq!(index.symbols[3].range.end, source.len());
    }

    #[test]
    fn crlf_tabs_and_no_final_newline() {
        let source =
            "class A:\r\n\tdef f(self):\r\n\t\treturn 1\r\n\r\n\tdef g(self):\r\n\t\treturn 2";
        assert_text(
            &outline(source),
            "A class A line 1 (6 lines)\nf def A.f line 2 (2 lines)\ng def A.g line 5 (2 lines)\n",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[1].indent, "\t");
        assert_eq!(index.symbols[2].range.end, source.len());
        assert_text(&text_of(source, "A.f"), "def f(self):\r\n\treturn 1\r\n");
        assert_text(&text_of(source, "A.g"), "def g(self):\r\n\treturn 2");
        assert_eq!(index.lines, 6);
    }

    #[test]
    fn non_ascii_identifiers_and_text() {
        let source = "class Größe:\n    \"\"\"Maß für alles — ok.\"\"\"\n    def länge(self, ä='ü'):\n        return '日本'\n";
        assert_text(
            &outline(source),
            "Größe class Größe line 1 (4 lines)\nlänge def Größe.länge line 3 (2 lines)\n",
        );
        let index = index_module(source);
        assert_eq!(index.symbols[0].doc.as_deref(), Some("Maß für alles — ok."));
        assert_eq!(index.symbols[1].signature, "(self, ä='ü')");
    }

    #[test]
    fn a_byte_order_mark_is_not_indentation() {
        let source = "\u{feff}def f():\n    pass\n";
        let index = index_module(source);
        assert_eq!(index.symbols[0].indent, "");
        assert_eq!(index.symbols[0].range, 0..source.len());
        assert!(index.symbols[0].exact_dedent);
    }

    #[test]
    fn syntax_errors_are_located_and_keep_only_reliable_symbols() {
        let source = "\
def ok():
    pass

class Broken:
    def m(self:
        pass

def after():
    pass
";
        let index = index_module(source);
        assert!(!index.problems.is_empty());
        let first = &index.problems[0];
        assert_eq!((first.line, first.column), (5, 16));
        assert!(first.message.contains("Expected"), "{}", first.message);
        let names: Vec<_> = index
            .symbols
            .iter()
            .map(|sym| sym.file_stem.as_str())
            .collect();
        assert_eq!(names, ["ok"]);
        assert_eq!(check_syntax(source), index.problems);
    }

    #[test]
    fn syntax_error_columns_count_chars_and_end_of_file_is_the_next_line() {
        let problems = check_syntax("x = 'é' +\n");
        assert_eq!((problems[0].line, problems[0].column), (1, 10));
        let problems = check_syntax("def f(:\n");
        assert_eq!((problems[0].line, problems[0].column), (1, 7));
        let problems = check_syntax("x = (\n");
        assert_eq!((problems[0].line, problems[0].column), (2, 1));
        let problems = check_syntax("x = (");
        assert_eq!((problems[0].line, problems[0].column), (1, 6));
        assert!(check_syntax("").is_empty());
        assert!(index_module("").symbols.is_empty());
    }
}
