//! Edits of a module's text, as pure functions: check a symbol file an agent wrote, put it
//! in place of the symbol (re-indented to where it lives), append a new symbol to a module
//! or class, remove one, rename one. Nothing here touches the disk; `write.rs` locates,
//! locks and saves.

use crate::error::{Error, Result};
use crate::python::{
    ModuleIndex, Symbol, SymbolKind, Version, index_module, reindent, validate, with_indent_unit,
};

/// The name a symbol file stands for: `balance@2` → `balance`.
pub fn stem_name(stem: &str) -> &str {
    stem.split_once('@').map_or(stem, |(name, _)| name)
}

/// Whether `name` can name a Python class or function.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
        && !KEYWORDS.contains(&name)
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Check `content` as the file `file` (`debit.py`) that must define exactly the symbol
/// `name`: UTF-8, valid Python, one class or function called `name`, nothing else but
/// comments. Every problem is listed, with line and column in this file; the file compiles
/// on its own for Python `target`.
pub fn check_symbol_file<'c>(
    file: &str,
    content: &'c [u8],
    name: &str,
    target: Version,
) -> Result<&'c str> {
    definitions_file(file, content, name, target, false).map(|(text, _)| text)
}

/// A new file's definitions, checked: the text from the first to the end of the last,
/// their names, and the import statements the file opened with.
pub struct NewSymbols<'c> {
    pub text: &'c str,
    pub names: Vec<String>,
    pub imports: Vec<&'c str>,
}

/// Check `content` as a new file `file` (`name.py`) in a module's or class's folder: as
/// [`check_symbol_file`], but it may define several classes and functions, added in order
/// as one edit — `name` one of them, so the file is there once written — and it may open
/// with the imports they need, which go to the module's imports ([`add_imports`]).
pub fn check_new_symbols_file<'c>(
    file: &str,
    content: &'c [u8],
    name: &str,
    target: Version,
) -> Result<NewSymbols<'c>> {
    let text = utf8(file, content)?;
    let imports: Vec<&str> = opening_imports(text)
        .into_iter()
        .filter_map(|span| text.get(span))
        .collect();
    let (text, names) = definitions_file(file, content, name, target, true)?;
    Ok(NewSymbols {
        text,
        names,
        imports,
    })
}

/// The import statements a new file opens with: at its very start (a docstring or a
/// comment before them would be lost, so then there are none).
fn opening_imports(text: &str) -> Vec<std::ops::Range<usize>> {
    let spans = crate::python::leading_imports(text);
    match spans.first() {
        Some(first) if text[..first.start].trim().is_empty() => spans,
        _ => Vec::new(),
    }
}

/// `module` with each of `imports` (whole import statements) that it does not hold yet
/// (the same statement at its top level) put after its last top-level import — after its
/// docstring when it has none — with the module's line endings. What a new symbol needs
/// is imported where the module imports, never in the middle of its code.
pub fn add_imports(module: &str, imports: &[&str]) -> String {
    let held: std::collections::HashSet<&str> = module.lines().map(str::trim_end).collect();
    let nl = newline_of(module);
    let missing: Vec<String> = imports
        .iter()
        .map(|import| with_newlines(import.trim(), nl))
        .filter(|import| {
            !import.is_empty() && !import.lines().all(|line| held.contains(line.trim_end()))
        })
        .collect();
    if missing.is_empty() {
        return module.to_string();
    }
    let at = imports_end(module);
    let prefix = &module[..at];
    let lead = if prefix.is_empty() || prefix.ends_with(['\n', '\r']) {
        ""
    } else {
        nl
    };
    let block: String = missing
        .iter()
        .map(|import| format!("{import}{nl}"))
        .collect();
    // A module without imports gets them after its docstring, set apart by a blank line.
    let gap = if crate::python::leading_imports(module).is_empty() && at > 0 {
        nl
    } else {
        ""
    };
    format!("{prefix}{lead}{gap}{block}{}", &module[at..])
}

/// Where a new import of `module` goes: after its last top-level import statement (of
/// those before its first definition), else after its docstring, else at its start.
fn imports_end(module: &str) -> usize {
    let index = index_module(module);
    let first_definition = index
        .symbols
        .first()
        .map_or(module.len(), |s| s.range.start);
    let top = crate::python::leading_imports(module);
    let end = top
        .iter()
        .filter(|span| span.end <= first_definition)
        .map(|span| span.end)
        .next_back();
    let end = end.or_else(|| {
        // After the docstring: the end of the first statement when it is a string.
        let trimmed = module.trim_start();
        (trimmed.starts_with("\"\"\"") || trimmed.starts_with("'''")).then(|| {
            let quote = &trimmed[..3];
            let start = module.len() - trimmed.len();
            trimmed[3..]
                .find(quote)
                .map_or(module.len(), |close| start + 3 + close + 3)
        })
    });
    match end {
        // To the end of that line.
        Some(end) => module[end..]
            .find('\n')
            .map_or(module.len(), |n| end + n + 1),
        None => 0,
    }
}

fn definitions_file<'c>(
    file: &str,
    content: &'c [u8],
    name: &str,
    target: Version,
    several: bool,
) -> Result<(&'c str, Vec<String>)> {
    let text = utf8(file, content)?;
    if text.trim().is_empty() {
        return Err(Error::invalid(format!(
            "{file} was not saved: it is empty. To delete the symbol use `rm {file}`"
        )));
    }
    let problems = validate(text, target);
    if !problems.is_empty() {
        return Err(syntax_error(file, &problems));
    }
    let index = index_module(text);
    let top: Vec<&Symbol> = index
        .symbols
        .iter()
        .filter(|s| s.parent.is_none())
        .collect();
    let mut problems = Vec::new();
    match top.as_slice() {
        [] => problems.push(format!("it defines no class or function; it must define `{name}`")),
        [only] if only.qualname.last().map(String::as_str) != Some(name) => {
            let found = only.qualname.last().cloned().unwrap_or_default();
            problems.push(format!(
                "it defines `{found}`, but this file is `{name}`: to rename, `mv {file} {found}.py`; \
                 to add `{found}`, create {found}.py beside it"
            ));
        }
        [_] => {}
        many if several => {
            let names: Vec<&str> = many.iter().filter_map(|s| s.qualname.last()).map(String::as_str).collect();
            let mut seen = std::collections::HashSet::new();
            if let Some(twice) = names.iter().find(|n| !seen.insert(**n)) {
                problems.push(format!("it defines `{twice}` twice; a new name each"));
            }
            if !names.contains(&name) {
                problems.push(format!(
                    "it defines {}, but this file is `{name}`: name the file after one of them ({})",
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                    names.iter().map(|n| format!("{n}.py")).collect::<Vec<_>>().join(" or ")
                ));
            }
        }
        many => problems.push(format!(
            "it defines {} symbols ({}); a symbol file holds exactly one — create a new file for each other one",
            many.len(),
            many.iter().filter_map(|s| s.qualname.last().cloned()).collect::<Vec<_>>().join(", ")
        )),
    }
    // A new file may open with imports (see `check_new_symbols_file`).
    let imports_end = match several {
        true => opening_imports(text).last().map_or(0, |span| span.end),
        false => 0,
    };
    if let Some(line) = stray_statement(text, &index, imports_end) {
        problems.push(stray_problem(text, &index, line));
    }
    if problems.is_empty() {
        // Blank lines around the definitions are dropped: they would not read back either.
        let names = top
            .iter()
            .filter_map(|s| s.qualname.last().cloned())
            .collect();
        let kept = match (top.first(), top.last()) {
            (Some(first), Some(last)) => &text[first.range.start..last.range.end],
            _ => text,
        };
        Ok((kept, names))
    } else {
        Err(Error::invalid(format!(
            "{file} was not saved:\n- {}",
            problems.join("\n- ")
        )))
    }
}

/// Check `content` as a whole module file: UTF-8 and valid Python for `target`.
pub fn check_module_file<'c>(file: &str, content: &'c [u8], target: Version) -> Result<&'c str> {
    let text = utf8(file, content)?;
    let problems = validate(text, target);
    if problems.is_empty() {
        Ok(text)
    } else {
        Err(syntax_error(file, &problems))
    }
}

fn utf8<'c>(file: &str, content: &'c [u8]) -> Result<&'c str> {
    std::str::from_utf8(content).map_err(|e| {
        let at = e.valid_up_to();
        let line = content[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::invalid(format!(
            "{file} was not saved: it is not UTF-8 (byte 0x{:02x} on line {line}). Python source here must be UTF-8",
            content.get(at).copied().unwrap_or(0)
        ))
    })
}

fn syntax_error(file: &str, problems: &[crate::python::SyntaxProblem]) -> Error {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("- line {}, column {}: {}", p.line, p.column, p.message))
        .collect();
    Error::invalid(format!(
        "{file} was not saved: it is not valid Python:\n{}",
        lines.join("\n")
    ))
}

/// The first line (1-based) from byte `imports_end` on that is not blank and lies outside
/// every top-level symbol —
/// code, or a comment that would not be part of the symbol when read back (a comment
/// belongs to a symbol only directly above it or inside it, which includes indented after
/// its body's last statement).
fn stray_statement(text: &str, index: &ModuleIndex, imports_end: usize) -> Option<usize> {
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        if start < imports_end {
            continue;
        }
        let inside = index
            .symbols
            .iter()
            .any(|s| s.parent.is_none() && s.range.contains(&start));
        if !inside && !line.trim().is_empty() {
            return Some(number + 1);
        }
    }
    None
}

/// Why line `line` (1-based) of a symbol file, outside every definition, cannot be kept. A
/// comment after the definition at its indentation would land in the module outside the
/// symbol and vanish from this file on the next read; indented, it is the body's.
fn stray_problem(text: &str, index: &ModuleIndex, line: usize) -> String {
    let is_comment = text
        .lines()
        .nth(line - 1)
        .is_some_and(|l| l.trim_start().starts_with('#'));
    let after_all = index.symbols.iter().all(|s| s.first_line + s.lines <= line);
    if is_comment && after_all {
        return format!(
            "line {line}: a comment after the definition at its indentation would land in \
             the module outside the symbol: indent it to keep it in the body, or put it in the \
             module file (a symbol file keeps the definition, its decorators, the comment \
             lines directly above it and comments indented in its body)"
        );
    }
    format!(
        "line {line}: only the definition may be here, with its decorators, the comment lines \
         directly above it and comments indented in its body; put other statements and \
         comments in the module file"
    )
}

/// The line break `module` uses (its first one; `\n` when it has none).
fn newline_of(module: &str) -> &'static str {
    match module.find(['\n', '\r']).map(|at| &module.as_bytes()[at..]) {
        Some([b'\r', b'\n', ..]) => "\r\n",
        Some([b'\r', ..]) => "\r",
        _ => "\n",
    }
}

/// Whether `module` ends its lines in more than one way (`\r\n` and `\n`, say).
fn mixes_newlines(module: &str) -> bool {
    let crlf = module.matches("\r\n").count();
    let cr = module.matches('\r').count() - crlf;
    let lf = module.matches('\n').count() - crlf;
    [crlf, cr, lf].iter().filter(|&&n| n > 0).count() > 1
}

/// `file` with every line break made `newline`: a written symbol takes its module's line
/// endings, so a module never mixes them. Strings keep their value: Python reads every line
/// break of a source file as `\n`.
fn with_newlines(file: &str, newline: &str) -> String {
    let mut out = String::with_capacity(file.len());
    let mut rest = file;
    while let Some(at) = rest.find(['\n', '\r']) {
        out.push_str(&rest[..at]);
        out.push_str(newline);
        let width = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[at + width..];
    }
    out.push_str(rest);
    out
}

/// One level of indentation in `source` (`"    "`, `"\t"`): what a class's member adds to
/// the class's indent, else what the first function's body adds to the `def`'s.
fn indent_unit(source: &str, index: &ModuleIndex) -> Option<String> {
    let nested = index.symbols.iter().find_map(|s| {
        let parent = index.symbols.get(s.parent?)?;
        s.indent
            .strip_prefix(parent.indent.as_str())
            .map(str::to_string)
    });
    nested
        .or_else(|| {
            let def = index.symbols.iter().find(|s| s.kind != SymbolKind::Class)?;
            let body = source.get(def.range.clone())?;
            // The lines after the `def` line (comments and decorators come before it).
            let head = def
                .def_line
                .saturating_sub(source[..def.range.start].matches('\n').count() + 1);
            body.lines()
                .skip(head + 1)
                .map(|line| {
                    let code = line.trim_start_matches([' ', '\t']);
                    (&line[..line.len() - code.len()], code)
                })
                .find(|(_, code)| !code.is_empty() && !code.starts_with('#'))
                .and_then(|(lead, _)| lead.strip_prefix(def.indent.as_str()).map(str::to_string))
        })
        .filter(|unit| !unit.is_empty())
}

/// `file` indented with `module`'s unit where it uses another (two spaces in a module of
/// four, spaces in a module indented with tabs, or the other way round), so a module keeps
/// one unit; strings' values are left alone (see [`with_indent_unit`]). `replacing` is the
/// symbol the file replaces, if any: a file in the unit that symbol already has is written
/// back as read (old code mixes widths, and a symbol read and written back must not
/// change). The module's unit comes from its index; the texts are parsed only when the
/// units may differ.
fn with_module_indent(
    file: &str,
    module: &str,
    index: &ModuleIndex,
    replacing: Option<&Symbol>,
) -> String {
    let unit_of = |text: &str| indent_unit(text, &index_module(text));
    let Some(theirs) = indent_unit(module, index) else {
        return file.to_string();
    };
    let Some(ours) = unit_of(file).filter(|ours| *ours != theirs) else {
        return file.to_string();
    };
    let as_read = replacing.is_some_and(|symbol| {
        unit_of(&crate::python::symbol_text(module, symbol)).as_deref() == Some(ours.as_str())
    });
    if as_read {
        return file.to_string();
    }
    with_indent_unit(file, &ours, &theirs).unwrap_or_else(|| file.to_string())
}

/// `module` with `symbol`'s range replaced by `file` (a symbol file's content) re-indented
/// to the symbol's place, with the module's line endings and indentation unit.
pub fn replace_symbol(module: &str, index: &ModuleIndex, symbol: &Symbol, file: &str) -> String {
    let newline = newline_of(module);
    let file = with_module_indent(file, module, index, Some(symbol));
    // A module that already mixes line endings has no one style to follow, and its symbol
    // written back as read must stay as it was.
    let file = match mixes_newlines(module) {
        true => file,
        false => with_newlines(&file, newline),
    };
    let mut new = reindent(&file, &symbol.indent);
    if module[..symbol.range.end].ends_with(['\n', '\r']) && !new.ends_with(['\n', '\r']) {
        new.push_str(newline);
    }
    format!(
        "{}{new}{}",
        &module[..symbol.range.start],
        &module[symbol.range.end..]
    )
}

/// `module` with `file` appended as a new top-level symbol (after two blank lines), or as
/// the last member of class `parent`, with the module's line endings.
pub fn append_symbol(
    module: &str,
    index: &ModuleIndex,
    parent: Option<usize>,
    file: &str,
) -> String {
    let nl = newline_of(module);
    let mut file = with_newlines(&with_module_indent(file, module, index, None), nl);
    if !file.ends_with(['\n', '\r']) {
        file.push_str(nl);
    }
    match parent.and_then(|p| index.symbols.get(p).map(|s| (p, s))) {
        None => {
            let body = module.trim_end_matches(['\n', '\r', ' ', '\t']);
            if body.is_empty() {
                return file;
            }
            format!("{body}{nl}{nl}{nl}{file}")
        }
        Some((at, class)) => {
            let indent = index
                .symbols
                .iter()
                .find(|s| s.parent == Some(at))
                .map(|s| s.indent.clone())
                .unwrap_or_else(|| format!("{}    ", class.indent));
            let end = class.range.end;
            let head = &module[..end];
            let newline = if head.ends_with(['\n', '\r']) { "" } else { nl };
            format!(
                "{head}{newline}{nl}{}{}",
                reindent(&file, &indent),
                &module[end..]
            )
        }
    }
}

/// `module` without `symbol` and the blank lines directly above it (so the gap before the
/// next definition stays what it was); at the very top, without the blank lines below it.
pub fn remove_symbol(module: &str, symbol: &Symbol) -> String {
    let (mut start, mut end) = (symbol.range.start, symbol.range.end);
    if start == 0 {
        while module[end..].starts_with('\n') || module[end..].starts_with("\r\n") {
            end += if module[end..].starts_with('\n') {
                1
            } else {
                2
            };
        }
    } else {
        // Step back over whole blank lines (a line break preceded by only spaces and tabs).
        loop {
            let head = &module[..start];
            let Some(line) = head.strip_suffix('\n').map(|h| h.trim_end_matches('\r')) else {
                break;
            };
            let blank_from = line.trim_end_matches([' ', '\t']).len();
            if blank_from == 0 || line[..blank_from].ends_with('\n') {
                start = blank_from;
            } else {
                break;
            }
        }
    }
    format!("{}{}", &module[..start], &module[end..])
}

/// `module` with the name in `symbol`'s `def`/`class` line changed to `new_name`.
pub fn rename_symbol(module: &str, symbol: &Symbol, new_name: &str) -> Result<String> {
    let old = symbol.qualname.last().cloned().unwrap_or_default();
    let line_start = module[..symbol.range.end]
        .split_inclusive('\n')
        .take(symbol.def_line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    // The name follows `def`/`class` after any spaces, tabs or a line continuation.
    let pattern = format!(
        r"\b(?:def|class)(?:[ \t]|\\\r?\n)+({})\b",
        regex::escape(&old)
    );
    let found = regex::Regex::new(&pattern)
        .ok()
        .and_then(|re| re.captures(&module[line_start..symbol.range.end]))
        .and_then(|c| c.get(1));
    let Some(name) = found else {
        return Err(Error::invalid(format!(
            "cannot find the name `{old}` after def/class on line {}; rename it by writing the file",
            symbol.def_line
        )));
    };
    let at = name.start();
    let start = line_start + at;
    Ok(format!(
        "{}{new_name}{}",
        &module[..start],
        &module[start + old.len()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "import os\n\n\nclass A:\n    \"\"\"Doc.\"\"\"\n\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\ndef top():\n    pass\n";

    /// A symbol file checked for Python 3.10.
    fn check_symbol<'c>(file: &str, content: &'c [u8], name: &str) -> Result<&'c str> {
        check_symbol_file(file, content, name, Version::new(3, 10))
    }

    #[test]
    fn files_must_compile_on_the_target_version() {
        let method = check_symbol("f.py", b"# why\ndef f(self, a, a):\n    return 1\n", "f");
        let message = method.unwrap_err().message;
        assert!(
            message.contains("- line 2, column 16: Duplicate parameter \"a\""),
            "{message}"
        );
        let generic = b"def f[T](x: T) -> T:\n    return x\n";
        let old = check_symbol_file("f.py", generic, "f", Version::new(3, 11)).unwrap_err();
        assert!(
            old.message
                .contains("line 1, column 6: Cannot use type parameter lists on Python 3.11"),
            "{}",
            old.message
        );
        assert!(check_symbol_file("f.py", generic, "f", Version::new(3, 12)).is_ok());
        let module = check_module_file(
            "m.py",
            b"import os\nreturn os\nnonlocal x\n",
            Version::new(3, 12),
        );
        let message = module.unwrap_err().message;
        assert!(
            message.contains(
                "- line 2, column 1: `return` statement outside of a function\n\
                 - line 3, column 1: nonlocal declaration not allowed at module level"
            ),
            "{message}"
        );
    }

    fn symbol(index: &ModuleIndex, qual: &[&str]) -> Symbol {
        index
            .symbols
            .iter()
            .find(|s| s.qualname == qual)
            .cloned()
            .unwrap()
    }

    #[test]
    fn a_written_symbol_takes_the_modules_line_endings() {
        let module = "class A:\r\n    def f(self):\r\n        return 1\r\n";
        let index = index_module(module);
        let replaced = replace_symbol(
            module,
            &index,
            &index.symbols[1],
            "def f(self):\n    return 2\n",
        );
        assert_eq!(
            replaced,
            "class A:\r\n    def f(self):\r\n        return 2\r\n"
        );
        let added = append_symbol(module, &index, Some(0), "def g(self):\n    return 3\n");
        assert_eq!(
            added,
            "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n    def g(self):\r\n        return 3\r\n"
        );
        let top = append_symbol(module, &index, None, "def h():\n    pass");
        assert!(
            top.ends_with("return 1\r\n\r\n\r\ndef h():\r\n    pass\r\n"),
            "{top:?}"
        );
        assert!(
            !top.replace("\r\n", "").contains('\n'),
            "one style: {top:?}"
        );
    }

    #[test]
    fn a_written_symbol_takes_the_modules_indentation_unit() {
        let module = "class A:\n\tdef f(self):\n\t\treturn 1\n";
        let index = index_module(module);
        let written = "def g(self):\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    if self:\n        return '''a\n    b'''\n";
        let added = append_symbol(module, &index, Some(0), written);
        assert_eq!(
            added,
            "class A:\n\tdef f(self):\n\t\treturn 1\n\n\tdef g(self):\n\t\t\"\"\"Doc.\n\n\t\tMore.\n\t\t\"\"\"\n\t\tif self:\n\t\t\treturn '''a\n    b'''\n"
        );
        // A function indented by two in a module indented by four is written back as read.
        let mixed = "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n  return 2\n";
        let index = index_module(mixed);
        let file = crate::python::symbol_text(mixed, &index.symbols[2]);
        assert_eq!(
            replace_symbol(mixed, &index, &index.symbols[2], &file),
            mixed
        );
        // Spaces stay spaces in a module indented with spaces.
        let spaced = "class A:\n    def f(self):\n        return 1\n";
        let index = index_module(spaced);
        let replaced = replace_symbol(
            spaced,
            &index,
            &index.symbols[1],
            "def f(self):\n\treturn 2\n",
        );
        assert_eq!(replaced, "class A:\n    def f(self):\n        return 2\n");
    }

    #[test]
    fn a_method_is_replaced_in_place_reindented() {
        let index = index_module(MODULE);
        let f = symbol(&index, &["A", "f"]);
        let out = replace_symbol(MODULE, &index, &f, "def f(self):\n    return 10\n");
        assert_eq!(out, MODULE.replace("return 1\n", "return 10\n"));
        let no_newline = replace_symbol(MODULE, &index, &f, "def f(self):\n    return 10");
        assert_eq!(no_newline, out, "a missing final newline is added back");
    }

    #[test]
    fn symbol_files_are_checked_as_a_whole() {
        assert!(check_symbol("f.py", b"def f():\n    pass\n", "f").is_ok());
        let wrong = check_symbol("f.py", b"def g():\n    pass\n", "f").unwrap_err();
        assert!(wrong.message.contains("mv f.py g.py"), "{}", wrong.message);
        let two = check_symbol(
            "f.py",
            b"def f():\n    pass\ndef g():\n    pass\nx = 1\n",
            "f",
        )
        .unwrap_err();
        assert!(two.message.contains("defines 2 symbols"), "{}", two.message);
        assert!(two.message.contains("line 5"), "{}", two.message);
        let syntax = check_symbol("f.py", b"def f(:\n    pass\n", "f").unwrap_err();
        assert!(
            syntax.message.contains("line 1, column"),
            "{}",
            syntax.message
        );
        let empty = check_symbol("f.py", b"\n", "f").unwrap_err();
        assert!(empty.message.contains("rm f.py"), "{}", empty.message);
        let latin = check_symbol("f.py", b"def f():\n    return '\xe9'\n", "f").unwrap_err();
        assert!(
            latin.message.contains("not UTF-8 (byte 0xe9 on line 2)"),
            "{}",
            latin.message
        );
        assert_eq!(
            check_symbol("f.py", b"\n# why\n@dec\ndef f():\n    pass\n\n", "f").unwrap(),
            "# why\n@dec\ndef f():\n    pass\n",
            "blank lines around the definition are dropped"
        );
        let trailing = check_symbol("f.py", b"def f():\n    pass\n# trailing\n", "f").unwrap_err();
        assert!(
            trailing.message.contains("line 3"),
            "a trailing comment would not read back: {}",
            trailing.message
        );
        assert!(
            trailing
                .message
                .contains("indent it to keep it in the body"),
            "{}",
            trailing.message
        );
    }

    #[test]
    fn a_comment_appended_in_a_methods_body_lands_after_its_last_line_and_reads_back() {
        let index = index_module(MODULE);
        let f = symbol(&index, &["A", "f"]);
        let original = crate::python::symbol_text(MODULE, &f);
        // As `echo '    # appended' >> f.py` leaves the file, then a blank line and another.
        for (appended, in_module) in [
            ("    # appended\n", "        # appended\n"),
            (
                "\n    # after a blank line\n\n\n",
                "\n        # after a blank line\n",
            ),
        ] {
            let file = format!("{original}{appended}");
            let kept = check_symbol("f.py", file.as_bytes(), "f").unwrap();
            let module = replace_symbol(MODULE, &index, &f, kept);
            assert_eq!(
                module,
                MODULE.replace(
                    "        return 1\n",
                    &format!("        return 1\n{in_module}")
                ),
                "trailing blank lines are dropped; the gap before g stays"
            );
            let again = index_module(&module);
            let read = crate::python::symbol_text(&module, &symbol(&again, &["A", "f"]));
            assert_eq!(
                read,
                format!("{original}{}", appended.trim_end_matches('\n')) + "\n"
            );
            assert_eq!(symbol(&again, &["A", "g"]).comment_lines, 0);
        }
    }

    #[test]
    fn new_symbols_go_to_the_end_of_their_container() {
        let index = index_module(MODULE);
        let module = append_symbol(MODULE, &index, None, "def new():\n    pass\n");
        assert!(
            module.ends_with("def top():\n    pass\n\n\ndef new():\n    pass\n"),
            "{module}"
        );
        let a = index
            .symbols
            .iter()
            .position(|s| s.qualname == ["A"])
            .unwrap();
        let method = append_symbol(MODULE, &index, Some(a), "def h(self):\n    return 3\n");
        assert!(
            method.contains("        return 2\n\n    def h(self):\n        return 3\n\n\ndef top"),
            "{method}"
        );
    }

    #[test]
    fn removing_and_renaming() {
        let index = index_module(MODULE);
        let top = symbol(&index, &["top"]);
        assert_eq!(
            remove_symbol(MODULE, &top),
            MODULE.replace("\n\n\ndef top():\n    pass\n", "\n")
        );
        let g = symbol(&index, &["A", "g"]);
        assert_eq!(
            remove_symbol(MODULE, &g),
            MODULE.replace("\n    def g(self):\n        return 2\n", "")
        );
        assert_eq!(
            rename_symbol(MODULE, &g, "gee").unwrap(),
            MODULE.replace("def g(", "def gee(")
        );
        let a = symbol(&index, &["A"]);
        assert_eq!(
            rename_symbol(MODULE, &a, "B").unwrap(),
            MODULE.replace("class A:", "class B:")
        );
        let odd = "async  def\tspaced(x):\n    pass\n";
        let index = index_module(odd);
        assert_eq!(
            rename_symbol(odd, &index.symbols[0], "tidy").unwrap(),
            "async  def\ttidy(x):\n    pass\n"
        );
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("send") && is_identifier("_x1") && is_identifier("café"));
        assert!(
            !is_identifier("1x")
                && !is_identifier("class")
                && !is_identifier("a-b")
                && !is_identifier("")
        );
        assert_eq!(stem_name("balance@2"), "balance");
    }

    #[test]
    fn a_new_files_imports_join_the_modules_imports_once() {
        let module = "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport os\n\n\ndef f():\n    import re\n    return os\n";
        let added = add_imports(
            module,
            &["import os", "import re", "from math import (\n    pi,\n)"],
        );
        assert_eq!(
            added,
            "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport os\nimport re\nfrom math import (\n    pi,\n)\n\n\ndef f():\n    import re\n    return os\n"
        );
        assert_eq!(add_imports(module, &["import os"]), module, "held already");
    }

    #[test]
    fn a_module_without_imports_takes_them_after_its_docstring_or_at_its_start() {
        assert_eq!(
            add_imports("\"\"\"Doc.\"\"\"\n\ndef f():\n    pass\n", &["import re"]),
            "\"\"\"Doc.\"\"\"\n\nimport re\n\ndef f():\n    pass\n"
        );
        assert_eq!(
            add_imports("def f():\n    pass\n", &["import re"]),
            "import re\ndef f():\n    pass\n"
        );
        assert_eq!(
            add_imports("X = 1\r\n", &["import re"]),
            "import re\r\nX = 1\r\n"
        );
    }

    #[test]
    fn a_new_file_may_open_with_imports_and_they_are_returned_apart() {
        let content =
            b"import pytest\nfrom ledger import total\n\n\ndef test_x():\n    assert total\n";
        let new = check_new_symbols_file("t.py", content, "test_x", Version::new(3, 12)).unwrap();
        assert_eq!(new.imports, ["import pytest", "from ledger import total"]);
        assert_eq!(new.text, "def test_x():\n    assert total\n");
        // Elsewhere than at the top, a statement is still refused, as in a symbol file.
        let late = b"def test_x():\n    pass\n\nimport pytest\n";
        assert!(check_new_symbols_file("t.py", late, "test_x", Version::new(3, 12)).is_err());
        let after_a_docstring = b"\"\"\"Doc.\"\"\"\nimport pytest\n\ndef test_x():\n    pass\n";
        let refused =
            check_new_symbols_file("t.py", after_a_docstring, "test_x", Version::new(3, 12));
        assert!(refused.is_err(), "a docstring would be lost");
        let replaced = check_symbol_file("t.py", content, "test_x", Version::new(3, 12));
        assert!(
            replaced.is_err(),
            "a symbol file replaced holds its definition alone"
        );
    }
}
