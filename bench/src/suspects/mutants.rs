//! One-token mutants of a module's functions and methods, found by Ruff's tokenizer: an
//! operator swapped (`==`/`!=`, `<`/`<=`, `>`/`>=`, `+`/`-`, `and`/`or`, `is`/`is not`,
//! `in`/`not in`), a constant changed (a decimal integer n → n+1, `True`/`False`) or a
//! condition negated (`if x:` → `if not x:`, and back). Pure: text in, mutants out.
//!
//! Guarantees: a mutant changes one token (or one operator of two keywords, `is not`,
//! `not in`) on one line, inside the body of one function or method as homespace's symbol
//! index knows it — never its `def` line, its decorators or its signature, never a string,
//! a comment or an f-string (a docstring is a string) — so the module keeps its lines and
//! every symbol its line range. A nested function's tokens belong to the function the
//! index holds it in, since the index (like the runner's suspects) stops at functions.
//! Whether the mutant still parses is checked when it is applied ([`Mutant::apply`]):
//! `for x in y` must not become `for x not in y`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use homespace::python::{SymbolKind, check_syntax, index_module};
use ruff_python_ast::token::{Token, TokenKind};
use ruff_text_size::Ranged;

/// One mutant: `before` at `span` of the module becomes `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// The module, from the project's folder: `src/cachetools/keys.py`.
    pub module: PathBuf,
    /// The mutated function's qualified name in its module: `Cache.__setitem__`.
    pub qualname: String,
    /// The function's lines as the symbol index has them (1-based, inclusive): from its
    /// comment block or decorators to its end, as the runner's suspects give them.
    pub lines: (usize, usize),
    /// The 1-based line changed.
    pub line: usize,
    /// The byte span of the module replaced.
    pub span: Range<usize>,
    pub before: String,
    pub after: String,
}

impl Mutant {
    /// The module's text with this mutant in it; `None` when that is no valid Python.
    pub fn apply(&self, source: &str) -> Option<String> {
        let mut text = String::with_capacity(source.len() + 8);
        text.push_str(source.get(..self.span.start)?);
        text.push_str(&self.after);
        text.push_str(source.get(self.span.end..)?);
        check_syntax(&text).is_empty().then_some(text)
    }
}

/// Every mutant of `source`, module `module` (from the project's folder), in source order;
/// none when the module does not parse.
pub fn mutants(module: &Path, source: &str) -> Vec<Mutant> {
    let index = index_module(source);
    if !index.problems.is_empty() {
        return Vec::new();
    }
    let Ok(parsed) = ruff_python_parser::parse_module(source) else {
        return Vec::new();
    };
    let tokens: &[Token] = parsed.tokens();
    let lines = LineStarts::new(source);
    let mut found = Vec::new();
    for symbol in &index.symbols {
        let function = matches!(
            symbol.kind,
            SymbolKind::Function | SymbolKind::AsyncFunction
        );
        if !function || symbol.overload {
            continue;
        }
        let Some(body) = body_tokens(tokens, &lines, symbol.def_line, symbol.range.end) else {
            continue;
        };
        let first = symbol.first_line;
        let last = first + symbol.lines.saturating_sub(1);
        let qualname = symbol.qualname.join(".");
        for (span, before, after) in changes(source, &tokens[body]) {
            let line = lines.line_of(span.start);
            if line == symbol.def_line {
                continue;
            }
            found.push(Mutant {
                module: module.to_path_buf(),
                qualname: qualname.clone(),
                lines: (first, last),
                line,
                span,
                before,
                after,
            });
        }
    }
    found
}

/// The indexes of the tokens of a function's body: after the colon that ends the
/// signature of the `def` on line `def_line`, up to byte `end` (the end of its range).
fn body_tokens(
    tokens: &[Token],
    lines: &LineStarts,
    def_line: usize,
    end: usize,
) -> Option<Range<usize>> {
    let line_start = lines.start_of(def_line)?;
    let def = tokens
        .iter()
        .position(|t| t.kind() == TokenKind::Def && t.start().to_usize() >= line_start)?;
    // The signature's colon is the first at bracket depth 0: annotations and defaults
    // with colons (`dict[str, int]`, `lambda x: x`) sit inside brackets.
    let mut depth = 0usize;
    let mut colon = None;
    for (at, token) in tokens.iter().enumerate().skip(def) {
        match token.kind() {
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Colon if depth == 0 => {
                colon = Some(at);
                break;
            }
            _ => {}
        }
    }
    let start = colon? + 1;
    let stop = tokens[start..]
        .iter()
        .position(|t| t.start().to_usize() >= end)
        .map_or(tokens.len(), |n| start + n);
    Some(start..stop)
}

/// The one-token changes of `tokens` (a body): span, text before, text after. Nothing
/// inside an f-string or t-string is touched, not even the code of its replacement fields.
fn changes(source: &str, tokens: &[Token]) -> Vec<(Range<usize>, String, String)> {
    let code: Vec<&Token> = tokens.iter().filter(|t| !is_trivia(t.kind())).collect();
    let mut found = Vec::new();
    let mut in_fstring = 0usize;
    for (at, token) in code.iter().enumerate() {
        let kind = token.kind();
        match kind {
            TokenKind::FStringStart | TokenKind::TStringStart => in_fstring += 1,
            TokenKind::FStringEnd | TokenKind::TStringEnd => {
                in_fstring = in_fstring.saturating_sub(1)
            }
            _ => {}
        }
        if in_fstring > 0 {
            continue;
        }
        let span = token.start().to_usize()..token.end().to_usize();
        let text = &source[span.clone()];
        let next = code.get(at + 1).map(|t| t.kind());
        let previous = at
            .checked_sub(1)
            .and_then(|p| code.get(p))
            .map(|t| t.kind());
        let swap = |to: &str| Some((span.clone(), text.to_string(), to.to_string()));
        let change = match kind {
            TokenKind::EqEqual => swap("!="),
            TokenKind::NotEqual => swap("=="),
            TokenKind::Less => swap("<="),
            TokenKind::LessEqual => swap("<"),
            TokenKind::Greater => swap(">="),
            TokenKind::GreaterEqual => swap(">"),
            TokenKind::Plus => swap("-"),
            TokenKind::Minus => swap("+"),
            TokenKind::And => swap("or"),
            TokenKind::Or => swap("and"),
            TokenKind::True => swap("False"),
            TokenKind::False => swap("True"),
            TokenKind::Is if next == Some(TokenKind::Not) => {
                let end = code[at + 1].end().to_usize();
                Some((
                    span.start..end,
                    source[span.start..end].to_string(),
                    "is".into(),
                ))
            }
            TokenKind::Is => swap("is not"),
            TokenKind::Not if next == Some(TokenKind::In) => {
                let end = code[at + 1].end().to_usize();
                Some((
                    span.start..end,
                    source[span.start..end].to_string(),
                    "in".into(),
                ))
            }
            TokenKind::In if previous != Some(TokenKind::Not) => swap("not in"),
            TokenKind::Int => increment(text).and_then(|n| swap(&n)),
            TokenKind::If | TokenKind::Elif => match next {
                // `if not x:` → `if x:`: the `not` and the space after it go.
                Some(TokenKind::Not) => {
                    let end = code[at + 1].end().to_usize();
                    let after_not = source[end..].len() - source[end..].trim_start().len();
                    let span = span.start..end + after_not;
                    let before = source[span.clone()].to_string();
                    Some((span, before, format!("{text} ")))
                }
                _ => swap(&format!("{text} not")),
            },
            _ => None,
        };
        found.extend(change);
    }
    found
}

/// `all` in the order they are tried: shuffled with a fixed seed (no clock, so every run
/// tries the same mutants), then one per function before any function's second, so a few
/// busy functions do not fill the sample.
pub fn in_trial_order(mut all: Vec<Mutant>, seed: u64) -> Vec<Mutant> {
    let mut state = seed;
    for i in (1..all.len()).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    let mut seen: std::collections::HashMap<(PathBuf, String), usize> = Default::default();
    let mut ranked: Vec<(usize, Mutant)> = all
        .into_iter()
        .map(|m| {
            let count = seen
                .entry((m.module.clone(), m.qualname.clone()))
                .or_default();
            *count += 1;
            (*count, m)
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.into_iter().map(|(_, m)| m).collect()
}

/// The next number of SplitMix64 (Steele, Lea and Flood 2014): small and good enough to
/// shuffle a list; no crate needed.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn is_trivia(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Comment
            | TokenKind::NonLogicalNewline
            | TokenKind::Newline
            | TokenKind::Indent
            | TokenKind::Dedent
    )
}

/// A plain decimal integer plus one (`0` → `1`, `41` → `42`); `None` for hex, octal,
/// binary, underscores or leading zeros, which are rarer and read differently.
fn increment(text: &str) -> Option<String> {
    let plain =
        text.bytes().all(|b| b.is_ascii_digit()) && !(text.len() > 1 && text.starts_with('0'));
    if !plain {
        return None;
    }
    text.parse::<u128>()
        .ok()?
        .checked_add(1)
        .map(|n| n.to_string())
}

/// Where each line of a text starts, to turn byte offsets into 1-based lines.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(source: &str) -> LineStarts {
        let breaks = source.match_indices('\n').map(|(at, _)| at + 1);
        LineStarts(std::iter::once(0).chain(breaks).collect())
    }

    fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }

    fn start_of(&self, line: usize) -> Option<usize> {
        self.0.get(line.checked_sub(1)?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#""""Module doc: a == b and 1 + 2."""

X = 1 + 2  # not in a function


# Its comment: x > 0.
@decorate(3 > 2)
def f(a, b=1 + 2, *, c: dict[str, int] = {"k": 0}) -> bool:
    """Doc: if a == b or True."""
    # a comment: a != b
    s = "x < y and 7"
    t = f"{a + 1} is {b}"
    if a == b and c is not None:
        return s + t
    return a in b or 3 > 2


class C:
    flag = True

    def m(self, x):
        """One more doc: x <= 2."""
        def inner(y):
            return y - 4

        if not x:
            return inner(x) >= 0
        return x not in self.seen


def g(): return 1 == 2
"#;

    fn all() -> Vec<Mutant> {
        mutants(Path::new("pkg/mod.py"), MODULE)
    }

    #[test]
    fn mutants_change_only_code_in_function_bodies_never_strings_comments_or_signatures() {
        let found = all();
        let shown: Vec<String> = found
            .iter()
            .map(|m| {
                let (before, after) = (m.before.trim_end(), m.after.trim_end());
                format!("{}:{} {before} -> {after}", m.qualname, m.line)
            })
            .collect();
        assert_eq!(
            shown,
            [
                "f:13 if -> if not",
                "f:13 == -> !=",
                "f:13 and -> or",
                "f:13 is not -> is",
                "f:14 + -> -",
                "f:15 in -> not in",
                "f:15 or -> and",
                "f:15 3 -> 4",
                "f:15 > -> >=",
                "f:15 2 -> 3",
                "C.m:24 - -> +",
                "C.m:24 4 -> 5",
                "C.m:26 if not -> if",
                "C.m:27 >= -> >",
                "C.m:27 0 -> 1",
                "C.m:28 not in -> in",
            ],
            "{shown:#?}"
        );
        // Each keeps its line: the span is on the line named, and so the function's range.
        for m in &found {
            let text = m.apply(MODULE).expect("the mutant parses");
            assert_eq!(text.lines().count(), MODULE.lines().count());
            let changed: Vec<usize> = MODULE
                .lines()
                .zip(text.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(n, _)| n + 1)
                .collect();
            assert_eq!(changed, [m.line], "{m:?}");
        }
        let f = &found[0];
        assert_eq!(
            (f.module.as_path(), f.lines),
            (Path::new("pkg/mod.py"), (6, 15))
        );
        assert_eq!(
            found.last().unwrap().lines,
            (21, 28),
            "a method from its def"
        );
    }

    #[test]
    fn a_mutant_that_would_not_parse_is_not_applied() {
        let source = "def f(xs):\n    for x in xs:\n        return x\n";
        let found = mutants(Path::new("m.py"), source);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].after, "not in");
        assert_eq!(
            found[0].apply(source),
            None,
            "`for x not in xs` is no Python"
        );
    }

    #[test]
    fn the_trial_order_is_fixed_and_takes_each_function_once_before_any_twice() {
        let order = |seed| -> Vec<(String, usize, String)> {
            in_trial_order(all(), seed)
                .into_iter()
                .map(|m| (m.qualname, m.line, m.after))
                .collect()
        };
        assert_eq!(order(44), order(44), "no clock, no randomness from outside");
        assert_ne!(order(44), order(45));
        let tried = order(44);
        let first_two: Vec<&str> = tried[..2].iter().map(|(q, _, _)| q.as_str()).collect();
        assert!(
            first_two.contains(&"f") && first_two.contains(&"C.m"),
            "{first_two:?}"
        );
    }

    #[test]
    fn integers_grow_by_one_only_when_plainly_decimal() {
        assert_eq!(increment("0").as_deref(), Some("1"));
        assert_eq!(increment("41").as_deref(), Some("42"));
        assert_eq!(increment("0x10"), None);
        assert_eq!(increment("1_000"), None);
        assert_eq!(increment("007"), None);
    }
}
