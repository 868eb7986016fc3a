//! How deep a syntax tree can be, judged from its tokens before anything walks or drops it.
//!
//! Ruff's parser grows its own stack while parsing, but dropping the tree is plain recursive
//! `Drop`: a 100,000-term `1+1+…` nests 100,000 boxes, and freeing that on a small thread
//! stack aborts the process (a stack overflow cannot be caught). `parse.rs` uses
//! [`depth_bound`] to decide where to drop a tree: on the caller's stack, or on a thread whose
//! stack fits it.
//!
//! Guarantee: the tree's depth is at most a small constant times the bound (each node on a
//! root-to-leaf path owns a token that its child on the path does not span). The bound
//! stays small for wide-but-shallow code such as a 100,000-element data table: elements
//! separated by commas are siblings, so only the deepest element of a bracket counts.

/// What a token means for nesting. `parse.rs` maps the parser's tokens to these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Nesting {
    /// `(`, `[`, `{` (also the braces of f-string replacement fields).
    Open,
    /// `)`, `]`, `}`.
    Close,
    Comma,
    /// `lambda`: its parameters, up to its `:`, are a group of their own, because their
    /// commas do not separate siblings of the lambda.
    Lambda,
    Colon,
    /// End of a logical line (or of the file).
    LineEnd,
    Indent,
    Dedent,
    /// Comments and line breaks inside brackets.
    Trivia,
    Other,
}

/// A bracket group (or a lambda's parameters) being read.
#[derive(Default)]
struct Group {
    lambda: bool,
    /// Tokens of the current element that are not inside a nested group.
    own: usize,
    /// Deepest nested group closed in the current element.
    inner: usize,
    /// Deepest element seen before the current one.
    widest: usize,
}

impl Group {
    fn depth(&self) -> usize {
        self.widest.max(self.own + self.inner)
    }
}

/// An upper bound (up to a constant factor) on the depth of the tree parsed from `tokens`.
///
/// A line whose brackets do not balance (a syntax error; recovery may build any tree) counts
/// all its tokens instead, which bounds the depth of any tree built from them.
pub(super) fn depth_bound(tokens: impl IntoIterator<Item = Nesting>) -> usize {
    let (mut indent, mut max_indent, mut max_line) = (0usize, 0usize, 0usize);
    let mut line = Line::default();
    for token in tokens {
        if !matches!(token, Nesting::Trivia | Nesting::Indent | Nesting::Dedent) {
            line.tokens += 1;
        }
        let open = &mut line.open;
        match token {
            Nesting::Indent => {
                indent += 1;
                max_indent = max_indent.max(indent);
            }
            Nesting::Dedent => indent = indent.saturating_sub(1),
            Nesting::Trivia => {}
            Nesting::Open => open.push(Group::default()),
            Nesting::Lambda => {
                count(open);
                open.push(Group {
                    lambda: true,
                    ..Group::default()
                });
            }
            Nesting::Close => {
                let closes_bracket = open.len() > 1 && open.last().is_some_and(|g| !g.lambda);
                line.unbalanced |= !closes_bracket;
                close(open);
            }
            Nesting::Colon if open.last().is_some_and(|group| group.lambda) => close(open),
            Nesting::Comma => {
                if let Some(group) = open.last_mut() {
                    group.widest = group.depth();
                    group.own = 0;
                    group.inner = 0;
                }
            }
            Nesting::LineEnd => max_line = max_line.max(line.end()),
            Nesting::Colon | Nesting::Other => count(open),
        }
    }
    max_line = max_line.max(line.end());
    max_line + 2 * (max_indent + 1)
}

/// The logical line being read.
struct Line {
    /// Innermost last; the line itself is the first group.
    open: Vec<Group>,
    tokens: usize,
    unbalanced: bool,
}

impl Default for Line {
    fn default() -> Line {
        Line {
            open: vec![Group::default()],
            tokens: 0,
            unbalanced: false,
        }
    }
}

impl Line {
    /// The line's depth bound; starts the next line.
    fn end(&mut self) -> usize {
        let unbalanced = self.unbalanced || self.open.len() > 1;
        while self.open.len() > 1 {
            close(&mut self.open);
        }
        let depth = if unbalanced {
            self.tokens
        } else {
            self.open.first().map_or(0, Group::depth)
        };
        // Reuse the allocation: this runs once per logical line.
        self.open.clear();
        self.open.push(Group::default());
        self.tokens = 0;
        self.unbalanced = false;
        depth + 1
    }
}

fn count(open: &mut [Group]) {
    if let Some(group) = open.last_mut() {
        group.own += 1;
    }
}

/// Closes the innermost group into its parent; at the outermost level a stray closing
/// bracket (a syntax error) is just a token.
fn close(open: &mut Vec<Group>) {
    if open.len() < 2 {
        count(open);
        return;
    }
    let depth = open.pop().map_or(0, |group| group.depth() + 1);
    if let Some(parent) = open.last_mut() {
        parent.own += 2;
        parent.inner = parent.inner.max(depth);
    }
}

#[cfg(test)]
mod tests {
    use super::Nesting::{self, *};
    use super::*;

    fn line(tokens: &[Nesting]) -> usize {
        depth_bound(tokens.iter().copied())
    }

    #[test]
    fn commas_make_siblings_and_brackets_nest() {
        let flat: Vec<Nesting> = std::iter::once(Open)
            .chain((0..10_000).flat_map(|_| [Other, Comma]))
            .chain([Close, LineEnd])
            .collect();
        assert!(line(&flat) < 10);
        let nested: Vec<Nesting> = (0..1_000)
            .map(|_| Open)
            .chain((0..1_000).map(|_| Close))
            .collect();
        assert!(line(&nested) > 1_000);
        let chain: Vec<Nesting> = (0..1_000).flat_map(|_| [Other, Other]).collect();
        assert!(line(&chain) > 2_000);
    }

    #[test]
    fn lambda_parameters_do_not_hide_a_lambda_chain() {
        // `lambda a, b: lambda a, b: … x`
        let chain: Vec<Nesting> = (0..1_000)
            .flat_map(|_| [Lambda, Other, Comma, Other, Colon])
            .chain([Other, LineEnd])
            .collect();
        assert!(line(&chain) >= 1_000, "{}", line(&chain));
    }

    #[test]
    fn unbalanced_brackets_and_deep_blocks_still_count() {
        assert!(line(&[Close, Close, Open, Open, Open]) >= 3);
        let blocks: Vec<Nesting> = (0..50).flat_map(|_| [Other, LineEnd, Indent]).collect();
        assert!(line(&blocks) >= 100);
    }

    /// The real thing: deep shapes indexed on a small worker-thread stack neither overflow
    /// while dropped nor take the caller down.
    #[test]
    fn deep_nesting_is_survived_on_a_small_stack() {
        let levels = 30_000;
        let shapes = [
            format!("x = {}1\n", "1+".repeat(levels)),
            format!("x = {}1\n", "-".repeat(levels)),
            format!("x = {}{}\n", "[".repeat(levels), "]".repeat(levels)),
            format!("x = {}1{}\n", "f(1, ".repeat(levels), ")".repeat(levels)),
            format!("x = {}1{}\n", "f'{".repeat(levels), "}'".repeat(levels)),
            format!("x = {}1\n", "lambda a, b=2: ".repeat(levels)),
            format!("x = {}1\n", "1 if 1 else ".repeat(levels)),
            format!("x = {}1{}\n", "{1: ".repeat(levels), "}".repeat(levels)),
            format!("x = a{}\n", ".b[0]()".repeat(levels)),
            format!("x = {}\n", "1, ".repeat(levels)),
        ];
        let outcomes = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                shapes
                    .iter()
                    .map(|source| super::super::index_module(source).symbols.len())
                    .collect::<Vec<_>>()
            })
            .expect("spawn")
            .join()
            .expect("no panic");
        assert!(outcomes.iter().all(|&symbols| symbols == 0));
    }
}
