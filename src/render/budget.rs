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

/// The budget of every view, in tokens: agents rely on no view costing more (the README
/// promises it), so it is a constant of the protocol, not a tuning knob.
pub const BUDGET_TOKENS: usize = 500;

/// The smallest budget for which a pruned view always carries its marker, given a short hint.
pub const MIN_BUDGET: usize = 40;

pub const CHARS_PER_TOKEN: usize = 4;

/// Estimated tokens of `text`: ceil(chars / 4), chars being Unicode scalar values.
pub fn tokens(text: &str) -> usize {
    tokens_of_chars(text.chars().count())
}

/// [`tokens`] of a text of `chars` characters.
pub fn tokens_of_chars(chars: usize) -> usize {
    chars.div_ceil(CHARS_PER_TOKEN)
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
    prune_with(view, budget, more, &[])
}

/// [`prune`], where the blocks under some headings have a place of their own to look for
/// the rest: `hints` pairs a heading line (`## Now`) with the hint its blocks' markers give
/// instead of `more` (a dashboard's task list points to `tasks/`, not to the dashboard's
/// own directory).
pub fn prune_with(view: &str, budget: usize, more: &str, hints: &[(String, String)]) -> String {
    if fits(view, budget) {
        return view.to_owned();
    }
    let limit = budget.saturating_mul(CHARS_PER_TOKEN);
    let one_line = |hint: &str| hint.replace(['\n', '\r'], " ").trim().to_string();
    let marker = Marker {
        more: one_line(more),
    };
    let mut layout = Layout::parse(view);
    for block in &mut layout.blocks {
        let heading = block.heading.map(|line| layout.lines[line].trim_end());
        block.more = hints
            .iter()
            .find(|(wanted, _)| Some(wanted.as_str()) == heading)
            .map(|(_, hint)| one_line(hint));
    }
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
struct Marker {
    more: String,
}

impl Marker {
    fn text(&self, before: usize, after: usize, what: &str) -> String {
        Self::text_with(&self.more, before, after, what)
    }

    fn text_with(more: &str, before: usize, after: usize, what: &str) -> String {
        match more {
            "" => format!("[pruned: {before} -> {after} {what}]"),
            more => format!("[pruned: {before} -> {after} {what}; more: {more}]"),
        }
    }

    /// The shortest marker is `cost(1, 0, _)`: both counts have at least one digit.
    fn cost(&self, before: usize, after: usize, what: &str) -> usize {
        line_cost(&self.text(before, after, what))
    }

    /// The marker of a cut `block`, with its own hint when it has one.
    fn block_text(&self, block: &Block) -> String {
        let more = block.more.as_deref().unwrap_or(&self.more);
        Self::text_with(more, block.items.len(), block.kept.len(), "items")
    }

    /// What a block pays for its marker: nothing while it is whole.
    fn block_cost(&self, block: &Block) -> usize {
        if !block.is_cut() {
            return 0;
        }
        line_cost(&self.block_text(block))
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
    /// The line of the nearest heading above the block, if any.
    heading: Option<usize>,
    /// Where the rest of this block is, when not where the rest of the view is.
    more: Option<String>,
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
    /// While parsing: the line of the last heading seen.
    heading: Option<usize>,
}

impl<'a> Layout<'a> {
    fn parse(text: &'a str) -> Self {
        let mut layout = Layout {
            lines: text.split_terminator('\n').collect(),
            units: Vec::new(),
            blocks: Vec::new(),
            open: None,
            pending: None,
            heading: None,
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
            if at >= 2 {
                self.heading = Some(at);
            }
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
                self.blocks.push(self.new_block());
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

    fn new_block(&self) -> Block {
        Block {
            heading: self.heading,
            ..Block::default()
        }
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
                self.blocks.push(self.new_block());
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
                    ..Block::default()
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
            let text = || Cow::Owned(marker.block_text(block));
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
mod tests;
