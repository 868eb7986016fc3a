//! The token budget and the deterministic pruning every generated view goes through.
//!
//! A view (`_entry.md`, `_nav.txt`, search results, ...) never exceeds its budget, estimated
//! as ceil(chars / 4) tokens. [`prune`] cuts an oversized view structure first, without any
//! model call:
//!
//! - The text is split into lines and *units*. Protected units are the first two lines
//!   (breadcrumb and summary), headings, blank lines between blocks, and table header and
//!   separator rows. Everything else is an *item* of a *block*: a list item with its indented
//!   continuation lines, a table row, one line of a text block (e.g. a nav tree), or a whole
//!   fenced code block.
//! - Whole items are cut, never part of a line: repeatedly the last kept item of the block
//!   that keeps the most items (ties: the later block), so every block keeps its first items
//!   for as long as possible. One marker line, `[pruned: 42 -> 10 items; more: <hint>]`, goes
//!   right after the last kept item of each block that lost items; markers are paid for out
//!   of the budget. Because a marker may cost more than what it replaces, cut items are then
//!   offered back, last cut first, wherever they still fit. A unit too big to ever fit next to
//!   a marker (a giant line) is dropped before anything else.
//! - Only if the protected lines and markers alone do not fit, the view becomes the longest
//!   prefix of its protected lines that fits with one final `[pruned: T -> K lines; more: ..]`.
//!
//! Guarantees, for any input, budget and hint: `tokens(prune(v, b, m)) <= b`; the result is
//! `v` itself when `v` fits; every other output line is a whole line of `v`, in `v`'s order;
//! a trailing newline of `v` is kept; the same input gives the same output. A marker is
//! present whenever anything was cut, provided the budget holds one marker line (always
//! the case from [`MIN_BUDGET`] with a hint under ~100 characters); below that the result is
//! the empty string, the only text guaranteed to fit.
//!
//! For example, with a budget of 30 tokens and the hint `ls /mnt/hs/tasks/open/`:
//!
//! ```text
//! /mnt/hs/tasks/open/                  /mnt/hs/tasks/open/
//! 12 open tasks                        12 open tasks
//!                                ->
//! - task 01                            - task 01
//! - task 02                            - task 02
//! ...                                  - task 03
//! - task 12                            [pruned: 12 -> 3 items; more: ls /mnt/hs/tasks/open/]
//! ```

use std::borrow::Cow;
use std::collections::BinaryHeap;
use std::ops::Range;

/// The budget of every view, in tokens: a protocol-level constant (SPEC §3).
pub const BUDGET_TOKENS: usize = 500;

/// The smallest budget for which a pruned view always carries its marker, given a short hint.
pub const MIN_BUDGET: usize = 40;

const CHARS_PER_TOKEN: usize = 4;

/// Estimated tokens of `text`: ceil(chars / 4), chars being Unicode scalar values.
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(CHARS_PER_TOKEN)
}

/// Whether `text` fits in `budget` tokens.
pub fn fits(text: &str, budget: usize) -> bool {
    tokens(text) <= budget
}

/// Returns `view` if it fits in `budget` tokens, otherwise a pruned view that does.
///
/// `more` tells the reader where the rest is (`ls /mnt/hs/tasks/open/`); it is appended to
/// every marker, and left out when empty. Line breaks in it become spaces, so a marker stays
/// one line.
pub fn prune(view: &str, budget: usize, more: &str) -> String {
    if fits(view, budget) {
        return view.to_owned();
    }
    let limit = budget.saturating_mul(CHARS_PER_TOKEN);
    let hint = more.replace(['\n', '\r'], " ");
    let marker = Marker { more: hint.trim() };
    let mut layout = Layout::parse(view);
    layout.isolate_oversized(limit, marker.cost(1, 0, "items"));
    layout.cut_items(limit, &marker);
    let mut lines = layout.lines_out(&marker);
    if lines.iter().map(|line| line_cost(line)).sum::<usize>() > limit {
        lines = keep_prefix(layout.protected_lines(), limit, layout.lines.len(), &marker);
    }
    let mut out = lines.join("\n");
    if view.ends_with('\n') && !lines.is_empty() {
        out.push('\n');
    }
    out
}

/// Output lines: borrowed ones are whole input lines, owned ones are markers.
type Lines<'a> = Vec<Cow<'a, str>>;

/// Every line is charged its newline, even the last one of a text without a final newline:
/// the estimate may exceed the real size by one char, never fall below it.
fn line_cost(line: &str) -> usize {
    line.chars().count() + 1
}

/// Formats marker lines; `more` is already reduced to one line.
struct Marker<'m> {
    more: &'m str,
}

impl Marker<'_> {
    fn text(&self, before: usize, after: usize, what: &str) -> String {
        match self.more {
            "" => format!("[pruned: {before} -> {after} {what}]"),
            more => format!("[pruned: {before} -> {after} {what}; more: {more}]"),
        }
    }

    /// The shortest marker is `cost(1, 0, _)`: both counts have at least one digit.
    fn cost(&self, before: usize, after: usize, what: &str) -> usize {
        line_cost(&self.text(before, after, what))
    }

    /// What a block pays for its marker: nothing while it is whole.
    fn block_cost(&self, block: &Block) -> usize {
        if !block.is_cut() {
            return 0;
        }
        self.cost(block.items.len(), block.kept.len(), "items")
    }
}

/// The last resort, when protected lines and markers alone exceed the budget: the longest
/// prefix of the protected lines that fits with one marker saying how many lines of the input
/// are left. Block markers go first because headings map the document better than a row of
/// `-> 0 items`. Empty when not even the one marker fits.
fn keep_prefix<'a>(mut lines: Lines<'a>, limit: usize, total: usize, marker: &Marker) -> Lines<'a> {
    // Priced with the input line count on both sides: the kept count has no more digits.
    let mut used = marker.cost(total, total, "lines");
    if used > limit {
        return Vec::new();
    }
    let keep = lines
        .iter()
        .take_while(|line| {
            used += line_cost(line);
            used <= limit
        })
        .count();
    lines.truncate(keep);
    lines.push(Cow::Owned(marker.text(total, keep, "lines")));
    lines
}

/// Consecutive input lines that are kept or cut together.
struct Unit {
    lines: Range<usize>,
    cost: usize,
    /// `None` for protected lines, else the block this item belongs to.
    block: Option<usize>,
}

/// Items that are cut from the end; `items` and `kept` are unit indices in document order.
#[derive(Default)]
struct Block {
    items: Vec<usize>,
    kept: Vec<usize>,
}

impl Block {
    fn is_cut(&self) -> bool {
        self.kept.len() < self.items.len()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Table,
    Text,
    Fence,
}

struct Layout<'a> {
    lines: Vec<&'a str>,
    units: Vec<Unit>,
    blocks: Vec<Block>,
    /// While parsing: the block that the next item of the same kind joins.
    open: Option<(Kind, usize)>,
    /// While parsing: the start of blank lines inside a loose list. They lead the next list
    /// item, so a cut list ends at its marker instead of a dangling blank line.
    pending: Option<usize>,
}

impl<'a> Layout<'a> {
    fn parse(text: &'a str) -> Self {
        let mut layout = Layout {
            lines: text.split_terminator('\n').collect(),
            units: Vec::new(),
            blocks: Vec::new(),
            open: None,
            pending: None,
        };
        let mut at = 0;
        while at < layout.lines.len() {
            at = layout.step(at);
        }
        for unit in &mut layout.units {
            unit.cost = layout.lines[unit.lines.clone()]
                .iter()
                .map(|l| line_cost(l))
                .sum();
        }
        for block in &mut layout.blocks {
            block.kept.clone_from(&block.items);
        }
        layout
    }

    /// Consumes the line at `at` (and any lines it owns); returns the next line to look at.
    fn step(&mut self, at: usize) -> usize {
        let line = self.lines[at];
        if at < 2 || is_heading(line) {
            self.push(at..at + 1, None);
            self.open = None;
            return at + 1;
        }
        if let Some(end) = fence_end(&self.lines, at) {
            if self.in_list() && is_indented(line) {
                self.extend(end);
            } else {
                self.item(Kind::Fence, at..end);
            }
            return end;
        }
        if is_blank(line) {
            return self.blank(at);
        }
        if is_table_row(line) {
            let header = !matches!(self.open, Some((Kind::Table, _)))
                && self
                    .lines
                    .get(at + 1)
                    .is_some_and(|l| is_table_separator(l));
            if header {
                self.blocks.push(Block::default());
                self.open = Some((Kind::Table, self.blocks.len() - 1));
                self.push(at..at + 1, None);
                self.push(at + 1..at + 2, None);
                return at + 2;
            }
            self.item(Kind::Table, at..at + 1);
        } else if is_list_item(line) {
            self.item(Kind::List, at..at + 1);
        } else if self.in_list() && is_indented(line) {
            self.extend(at + 1);
        } else {
            self.item(Kind::Text, at..at + 1);
        }
        at + 1
    }

    fn blank(&mut self, at: usize) -> usize {
        // Only inside a list is the next line looked for, so runs of blanks stay linear.
        let next = self
            .in_list()
            .then(|| (at..self.lines.len()).find(|&i| !is_blank(self.lines[i])));
        if let Some(next) = next.flatten() {
            if is_list_item(self.lines[next]) {
                self.pending = Some(at);
                return next;
            }
            if is_indented(self.lines[next]) {
                self.extend(next);
                return next;
            }
        }
        self.push(at..at + 1, None);
        self.open = None;
        at + 1
    }

    fn in_list(&self) -> bool {
        matches!(self.open, Some((Kind::List, _)))
    }

    fn push(&mut self, lines: Range<usize>, block: Option<usize>) {
        let cost = 0; // known once all lines are assigned
        self.units.push(Unit { lines, cost, block });
    }

    fn item(&mut self, kind: Kind, lines: Range<usize>) {
        let block = match self.open {
            Some((open, index)) if open == kind => index,
            _ => {
                self.blocks.push(Block::default());
                self.open = Some((kind, self.blocks.len() - 1));
                self.blocks.len() - 1
            }
        };
        let start = self.pending.take().unwrap_or(lines.start);
        self.blocks[block].items.push(self.units.len());
        self.push(start..lines.end, Some(block));
    }

    /// Continuation lines join the open list's last item, which is the last unit pushed:
    /// nothing else is pushed while a list is open.
    fn extend(&mut self, end: usize) {
        if let Some(unit) = self.units.last_mut() {
            unit.lines.end = end;
        }
    }

    /// Drops up front every unit that could not share the budget even with the shortest
    /// marker: it can never be shown, and keeping it would make its block give up all the
    /// items after it first. A protected line becomes a block of its own, so its marker
    /// stands where it was.
    fn isolate_oversized(&mut self, limit: usize, min_marker: usize) {
        let oversized: Vec<bool> = self
            .units
            .iter()
            .map(|unit| unit.cost.saturating_add(min_marker) > limit)
            .collect();
        for (index, unit) in self.units.iter_mut().enumerate() {
            if oversized[index] && unit.block.is_none() {
                unit.block = Some(self.blocks.len());
                let items = vec![index];
                self.blocks.push(Block {
                    items,
                    kept: Vec::new(),
                });
            }
        }
        for block in &mut self.blocks {
            block.kept.retain(|&unit| !oversized[unit]);
        }
    }

    fn is_kept(&self, block: usize, unit: usize) -> bool {
        self.blocks[block].kept.binary_search(&unit).is_ok()
    }

    /// Cuts the last item of the block keeping the most items (ties: the later block) until
    /// the view fits or no item is left. A marker can cost more than the items it stands
    /// for, so this can overshoot; the cut items are then offered back, last cut first (they
    /// are the first items of their blocks), and each one that still fits returns.
    fn cut_items(&mut self, limit: usize, marker: &Marker) {
        let units = self.units.iter().enumerate();
        let kept = units.filter(|(i, unit)| unit.block.is_none_or(|b| self.is_kept(b, *i)));
        let markers = self.blocks.iter().map(|block| marker.block_cost(block));
        let mut total = kept
            .map(|(_, unit)| unit.cost)
            .chain(markers)
            .sum::<usize>();
        let mut queue: BinaryHeap<(usize, usize)> = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, block)| !block.kept.is_empty())
            .map(|(index, block)| (block.kept.len(), index))
            .collect();
        let mut cut = Vec::new();
        while total > limit {
            let Some((_, index)) = queue.pop() else { break };
            let block = &mut self.blocks[index];
            let marker_before = marker.block_cost(block);
            let Some(unit) = block.kept.pop() else {
                continue;
            };
            // `total` includes both the item and the old marker, so this cannot underflow.
            total = total + marker.block_cost(block) - (marker_before + self.units[unit].cost);
            cut.push((index, unit));
            if !block.kept.is_empty() {
                queue.push((block.kept.len(), index));
            }
        }
        // A block whose next item does not fit takes nothing more back, so what it keeps
        // stays a prefix of what it had.
        let mut closed = vec![false; self.blocks.len()];
        for &(index, unit) in cut.iter().rev() {
            if closed[index] {
                continue;
            }
            let block = &mut self.blocks[index];
            let marker_before = marker.block_cost(block);
            block.kept.push(unit);
            let grown = total + marker.block_cost(block) + self.units[unit].cost - marker_before;
            if grown <= limit {
                total = grown;
            } else {
                block.kept.pop();
                closed[index] = true;
            }
        }
    }

    /// The kept lines in input order, each cut block's marker after its last kept item (or
    /// where its first item was, if none is kept).
    fn lines_out(&self, marker: &Marker) -> Lines<'a> {
        let mut out = Vec::new();
        for (index, unit) in self.units.iter().enumerate() {
            let lines = self.lines[unit.lines.clone()]
                .iter()
                .map(|&l| Cow::Borrowed(l));
            let Some(b) = unit.block else {
                out.extend(lines);
                continue;
            };
            let block = &self.blocks[b];
            let text = || Cow::Owned(marker.text(block.items.len(), block.kept.len(), "items"));
            if block.kept.is_empty() && block.items.first() == Some(&index) {
                out.push(text());
            }
            if self.is_kept(b, index) {
                out.extend(lines);
                if block.is_cut() && block.kept.last() == Some(&index) {
                    out.push(text());
                }
            }
        }
        out
    }

    /// The protected lines, without the runs of blank lines left where blocks are gone.
    fn protected_lines(&self) -> Lines<'a> {
        let mut out: Lines<'a> = Vec::new();
        let protected = self.units.iter().filter(|unit| unit.block.is_none());
        for &line in protected.flat_map(|unit| &self.lines[unit.lines.clone()]) {
            if !(is_blank(line) && out.last().is_some_and(|last| is_blank(last))) {
                out.push(Cow::Borrowed(line));
            }
        }
        out
    }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn is_indented(line: &str) -> bool {
    line.starts_with([' ', '\t'])
}

/// ATX headings at the start of the line: an indented `#` is tree or code text.
fn is_heading(line: &str) -> bool {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = line[level..].trim_end_matches('\r');
    (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t']))
}

fn is_list_item(line: &str) -> bool {
    let rest = line.trim_start();
    let number = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let numbered =
        number.len() < rest.len() && (number.starts_with(". ") || number.starts_with(") "));
    rest.starts_with("- ") || rest.starts_with("* ") || rest.starts_with("+ ") || numbered
}

fn is_table_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

fn is_table_separator(line: &str) -> bool {
    let row = line.trim();
    row.starts_with('|') && row.contains('-') && row.chars().all(|c| "|-: \t".contains(c))
}

/// If a fence opens at `at`, the index after its closing line (or the end of the text when
/// it is never closed): the whole fenced block is one item.
fn fence_end(lines: &[&str], at: usize) -> Option<usize> {
    let open = lines[at].trim_start();
    let mark = open.chars().next().filter(|&c| c == '`' || c == '~')?;
    let width = open.chars().take_while(|&c| c == mark).count();
    if width < 3 {
        return None;
    }
    let closes = |line: &&str| {
        let close = line.trim();
        close.chars().count() >= width && close.chars().all(|c| c == mark)
    };
    let close = lines[at + 1..].iter().position(closes);
    Some(close.map_or(lines.len(), |offset| at + offset + 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// Compares whole texts and shows both as blocks, which a `{:?}` diff of a view is not.
    macro_rules! assert_text {
        ($expected:expr, $actual:expr $(,)?) => {{
            let (expected, actual): (&str, &str) = (&$expected, &$actual);
            if expected != actual {
                panic!(
                    "texts differ\n==== expected ({} tokens) ====\n{expected}\n\
                     ==== actual ({} tokens) ====\n{actual}\n==== end ====",
                    tokens(expected),
                    tokens(actual),
                );
            }
        }};
    }

    fn list(prefix: &str, count: usize) -> String {
        (1..=count)
            .map(|i| format!("- {prefix} {i:02}\n"))
            .collect()
    }

    #[test]
    fn tokens_count_unicode_scalars_rounded_up() {
        assert_eq!(tokens("abcde"), 2);
        assert_eq!(tokens("日本語🦀"), 1);
        assert!(fits("abcdefgh", 2) && !fits("abcdefghi", 2));
    }

    #[test]
    fn short_view_is_unchanged() {
        let view = "/mnt/hs/tasks/\n3 open tasks\n\n- one\n- two\n- three\n";
        assert_text!(view, prune(view, BUDGET_TOKENS, "ls /mnt/hs/tasks/open/"));
    }

    #[test]
    fn long_list_keeps_first_items_and_marks_the_cut() {
        let view = format!("/mnt/hs/tasks/open/\n12 open tasks\n\n{}", list("task", 12));
        let expected = "\
/mnt/hs/tasks/open/
12 open tasks

- task 01
- task 02
- task 03
[pruned: 12 -> 3 items; more: ls /mnt/hs/tasks/open/]
";
        assert_text!(expected, prune(&view, 30, "ls /mnt/hs/tasks/open/"));
    }

    #[test]
    fn table_keeps_header_separator_and_first_rows() {
        let view = "\
/mnt/hs/source/bae/ai/Agent/
class Agent: 4 methods
| name | kind | lines |
|---|---|---|
| send | method | 40 |
| recv | method | 12 |
| close | method | 3 |
| open | method | 9 |
";
        let expected = "\
/mnt/hs/source/bae/ai/Agent/
class Agent: 4 methods
| name | kind | lines |
|---|---|---|
| send | method | 40 |
| recv | method | 12 |
[pruned: 4 -> 2 items]
";
        assert_text!(expected, prune(view, 40, ""));
    }

    #[test]
    fn two_blocks_are_cut_fairly() {
        let (open, done) = (list("open", 5), list("done", 9));
        let view = format!("/mnt/hs/tasks/\n5 open, 9 done\n## Open\n{open}## Done\n{done}");
        let expected = "\
/mnt/hs/tasks/
5 open, 9 done
## Open
- open 01
- open 02
- open 03
[pruned: 5 -> 3 items]
## Done
- done 01
- done 02
- done 03
[pruned: 9 -> 3 items]
";
        assert_text!(expected, prune(&view, 38, ""));
    }

    #[test]
    fn headings_survive_while_every_block_keeps_its_first_item() {
        let view = format!(
            "/mnt/hs/memory/\n3 topics\n# Topics\n## alpha\n{}## beta\n{}## gamma\n{}",
            list("a", 5),
            list("b", 5),
            list("c", 5)
        );
        let expected = "\
/mnt/hs/memory/
3 topics
# Topics
## alpha
- a 01
[pruned: 5 -> 1 items]
## beta
- b 01
[pruned: 5 -> 1 items]
## gamma
- c 01
[pruned: 5 -> 1 items]
";
        assert_text!(expected, prune(&view, 38, ""));
    }

    #[test]
    fn marker_carries_the_more_hint_on_one_line() {
        let view = format!("/mnt/hs/search/\n12 hits\n{}", list("hit", 12));
        let expected = "/mnt/hs/search/\n12 hits\n- hit 01\n- hit 02\n\
                        [pruned: 12 -> 2 items; more: cat \"/mnt/hs/search/source:foo\"]\n";
        assert_text!(
            expected,
            prune(&view, 27, "cat \"/mnt/hs/search/source:foo\"")
        );
        let expected = "/mnt/hs/search/\n12 hits\n- hit 01\n[pruned: 12 -> 1 items; more: a b]\n";
        assert_text!(expected, prune(&view, 17, "a\nb\n"));
        let expected = "/mnt/hs/search/\n12 hits\n- hit 01\n- hit 02\n[pruned: 12 -> 2 items]\n";
        assert_text!(expected, prune(&view, 17, ""));
    }

    #[test]
    fn protected_lines_alone_over_budget_keep_the_longest_prefix() {
        let modules: String = (1..=20)
            .map(|i| format!("## module_{i:02}\n- one\n"))
            .collect();
        let view = format!("/mnt/hs/source/\n20 modules\n{modules}");
        let expected = "\
/mnt/hs/source/
20 modules
## module_01
## module_02
## module_03
## module_04
## module_05
## module_06
[pruned: 42 -> 8 lines; more: ls /mnt/hs/source/]
";
        assert_text!(expected, prune(&view, 40, "ls /mnt/hs/source/"));
    }

    #[test]
    fn single_giant_line_is_dropped_whole() {
        let view = format!(
            "/mnt/hs/search/\n3 hits\nfirst hit\n{}\nthird\n",
            "x".repeat(1000)
        );
        let expected = "/mnt/hs/search/\n3 hits\nfirst hit\nthird\n[pruned: 3 -> 2 items]\n";
        assert_text!(expected, prune(&view, 40, ""));
        let view = format!("/mnt/hs/\nsummary\n# {}\n- kept\n", "h".repeat(400));
        let expected = "/mnt/hs/\nsummary\n[pruned: 1 -> 0 items]\n- kept\n";
        assert_text!(expected, prune(&view, 40, ""));
    }

    #[test]
    fn continuation_lines_and_fences_are_cut_as_one_item() {
        let view =
            "/x/\nsummary\n- one\n  more one\n  and more\n- two\n  more two\n- three\n  more\n";
        let expected = "/x/\nsummary\n- one\n  more one\n  and more\n[pruned: 3 -> 1 items]\n";
        assert_text!(expected, prune(view, 16, ""));
        let view = format!("/x/\nsummary\n```\n# one\n# two\n```\n{}", list("item", 6));
        let expected = "/x/\nsummary\n```\n# one\n# two\n```\n[pruned: 6 -> 0 items]\n";
        assert_text!(expected, prune(&view, 16, ""));
        assert_text!(
            "/x/\nsummary\n[pruned: 12 -> 2 lines]\n",
            prune(&view, 13, "")
        );
    }

    #[test]
    fn loose_list_ends_at_its_marker() {
        let view = "/l\nsum\n\n- a\n\n- b\n\n  b para\n\n- c\n\n- d\n\n- e\n\n- f\n\nafter\n";
        assert_text!(
            "/l\nsum\n\n- a\n[pruned: 6 -> 1 items]\n\nafter\n",
            prune(view, 12, "")
        );
    }

    #[test]
    fn missing_trailing_newline_stays_missing() {
        let view = "/a\nsum\n- 1\n- 2\n- 3\n- 4\n- 5\n- 6\n- 7\n- 8\n- 9";
        assert_text!(
            "/a\nsum\n- 1\n- 2\n[pruned: 9 -> 2 items]",
            prune(view, 10, "")
        );
    }

    #[test]
    fn budget_too_small_for_a_marker_gives_empty_text() {
        let view = format!("/mnt/hs/tasks/open/\n12 open tasks\n{}", list("task", 12));
        assert_text!("", prune(&view, 5, "ls /mnt/hs/tasks/open/"));
        assert_text!("", prune(&view, 0, ""));
    }

    /// Generated markdown: its lines, how many of them the pruner protects, from the first.
    #[derive(Debug, Clone)]
    struct Section {
        lines: Vec<String>,
        protected: usize,
        heading: bool,
    }

    /// Only a heading protects exactly one line.
    fn section(lines: Vec<String>, protected: usize) -> Section {
        let heading = protected == 1;
        Section {
            lines,
            protected,
            heading,
        }
    }

    fn words(max: usize) -> impl Strategy<Value = String> {
        const WORDS: &[&str] = &["alpha", "délta", "日本語", "🦀", "naïve", "x", "Agent.send"];
        vec(prop::sample::select(WORDS), 1..max).prop_map(|words| words.join(" "))
    }

    fn sections() -> impl Strategy<Value = Section> {
        let continuation = prop_oneof![words(12), words(6).prop_map(|w| format!("- {w}"))];
        let bullet = prop::sample::select(&["- ", "* ", "1. "][..]);
        let item = (bullet, words(12), vec(continuation, 0..3)).prop_map(|(b, text, more)| {
            let more = more.into_iter().map(|line| format!("  {line}"));
            std::iter::once(format!("{b}{text}"))
                .chain(more)
                .collect::<Vec<_>>()
        });
        let line = prop_oneof![words(15), words(90)];
        let code = prop_oneof![words(8), words(4).prop_map(|w| format!("# {w}"))];
        prop_oneof![
            (1..=3usize, words(5)).prop_map(|(level, text)| section(
                vec![format!("{} {text}", "#".repeat(level))],
                1
            )),
            (any::<bool>(), vec(item, 1..12)).prop_map(|(loose, items)| {
                section(items.join(&vec![String::new(); usize::from(loose)][..]), 0)
            }),
            vec(words(6), 0..10).prop_map(|rows| {
                let rows = rows.iter().map(|row| format!("| {row} | ok |"));
                let header = ["| name | what |".to_owned(), "|---|---|".to_owned()];
                section(header.into_iter().chain(rows).collect(), 2)
            }),
            vec((prop::sample::select(&["", "  "][..]), line), 1..10).prop_map(|lines| {
                section(
                    lines
                        .into_iter()
                        .map(|(indent, l)| indent.to_owned() + &l)
                        .collect(),
                    0,
                )
            }),
            vec(code, 0..6).prop_map(|body| {
                let fence = vec!["```".to_owned()];
                section([fence.clone(), body, fence].concat(), 0)
            }),
        ]
    }

    /// A view: breadcrumb, summary, then sections, some after a blank line.
    fn view() -> impl Strategy<Value = (String, Vec<Section>)> {
        let body = vec((sections(), any::<bool>()), 0..14);
        (words(4), words(6), body, any::<bool>()).prop_map(|(crumb, summary, body, trailing)| {
            let mut lines = vec![format!("/mnt/hs/{crumb}"), summary];
            for (section, blank) in &body {
                lines.extend(blank.then(String::new));
                lines.extend(section.lines.iter().cloned());
            }
            let newline = if trailing { "\n" } else { "" };
            (
                lines.join("\n") + newline,
                body.into_iter().map(|(section, _)| section).collect(),
            )
        })
    }

    fn is_marker(line: &str) -> bool {
        line.starts_with("[pruned: ")
    }

    /// Whether the non-marker lines of `part` are a subsequence of the lines of `whole`.
    fn in_order(part: &str, whole: &str) -> bool {
        let mut rest = whole.split_terminator('\n');
        let mut part = part.split_terminator('\n').filter(|line| !is_marker(line));
        part.all(|line| rest.any(|candidate| candidate == line))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn pruned_view_keeps_the_contract(
            (input, sections) in view(),
            budget in prop_oneof![MIN_BUDGET..200usize, MIN_BUDGET..2000usize],
            more in prop::sample::select(&["", "ls /mnt/hs/", "cat \"/mnt/hs/search/source:foo\""][..]),
        ) {
            let output = prune(&input, budget, more);
            prop_assert!(tokens(&output) <= budget, "{} > {budget} tokens:\n{output}", tokens(&output));
            prop_assert_eq!(output.contains("[pruned:"), output != input, "\n{}", output);
            prop_assert_eq!(&output, &prune(&input, budget, more));
            prop_assert!(output.is_empty() || output.ends_with('\n') == input.ends_with('\n'));
            prop_assert!(in_order(&output, &input), "lines out of order or changed:\n{output}");

            // While the protected lines and one marker per block fit, no heading is cut and
            // the view never falls back to a prefix.
            let lines = input.split_terminator('\n').count();
            let marker = line_cost(&format!("[pruned: {lines} -> {lines} items; more: {more}]"));
            let protected = sections.iter().flat_map(|s| &s.lines[..s.protected]);
            let floor = input.split_terminator('\n').take(2).map(line_cost).sum::<usize>()
                + input.split_terminator('\n').filter(|line| line.is_empty()).count()
                + protected.map(|line| line_cost(line)).sum::<usize>()
                + sections.iter().filter(|s| !s.heading).count() * marker;
            if floor <= budget * CHARS_PER_TOKEN {
                let headings = sections.iter().filter(|s| s.heading).map(|s| s.lines[0].as_str());
                prop_assert!(in_order(&headings.collect::<Vec<_>>().join("\n"), &output),
                    "a heading was cut:\n{output}");
                prop_assert!(!output.contains(" lines]") && !output.contains(" lines; more:"),
                    "fell back to a prefix:\n{output}");
            }
        }

        /// Arbitrary text, heavy in the characters that steer the parser, never panics and
        /// never exceeds the budget, however small.
        #[test]
        fn any_text_fits_any_budget(input in "[#|`~ \\-*+0-9.)a-zé日🦀\n\r\t]{0,400}", budget in 0..120usize) {
            let output = prune(&input, budget, "ls /mnt/hs/");
            prop_assert!(tokens(&output) <= budget);
            prop_assert!(in_order(&output, &input));
        }
    }
}
