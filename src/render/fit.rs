//! Fitting an entry view into its budget by detail before items: a section that says how
//! its items get lighter ([`Detail`]) gives up the least useful detail first, so that an
//! outline keeps every name while any name fits.
//!
//! Over budget, in steps, each taking the items from least to most useful (by the
//! section's rank; a later section before an earlier one, as a module's names come after
//! its classes and functions) until the view fits:
//! 1. every item takes its first lighter form (a row without its doc), then every item its
//!    next (without its signature too), and so on;
//! 2. items leave the table for one line that names them (`By name only: a.py b.py`);
//! 3. names leave that line.
//!
//! Whatever was taken is said on a marker line after the section, as pruning does:
//! `[pruned: 26 symbols: 12 without doc, 4 by name only; more: ls …]`. The cost of the
//! view is kept up to date by differences (chars of the forms swapped), so fitting is
//! linear in the items, not one render per step. What still does not fit (a view with no
//! [`Detail`], or one too large even by names) is left to [`crate::render::budget`]'s
//! pruning, which the caller applies afterwards.

use std::borrow::Cow;

use crate::model::{Detail, Entry, Section};

/// `entry`, with its detailed sections lightened until `render(entry)` fits in `budget`
/// tokens, or as light as they go. `more` is where a marker sends the reader, unless the
/// section has its own place ([`Section::more`]).
pub fn fit<'e>(
    entry: &'e Entry,
    budget: usize,
    more: &str,
    render: impl Fn(&Entry) -> String,
) -> Cow<'e, Entry> {
    if entry.sections.iter().all(|s| s.detail.is_none()) {
        return Cow::Borrowed(entry);
    }
    let limit = budget.saturating_mul(4);
    let full = render(entry);
    if full.chars().count() <= limit {
        return Cow::Borrowed(entry);
    }
    let mut fitting: Vec<Fitting> = entry
        .sections
        .iter()
        .enumerate()
        .filter_map(|(index, section)| Fitting::new(index, section, more))
        .collect();
    let mut cost = full.chars().count() as isize;
    let limit = limit as isize;
    let deepest = fitting.iter().map(Fitting::depth).max().unwrap_or(0);
    'steps: for level in 1..=deepest {
        // A later section tells less of the folder than an earlier one (a module's names
        // after its classes and functions): it gives up each level first.
        for section in fitting.iter_mut().rev() {
            let order: Vec<usize> = section.order.iter().rev().copied().collect();
            for item in order {
                if cost <= limit {
                    break 'steps;
                }
                cost += section.lower(item, level);
            }
        }
    }
    let mut fitted = entry.clone();
    for section in &fitting {
        section.apply(&mut fitted.sections[section.index]);
    }
    Cow::Owned(fitted)
}

/// One detailed section while it is being fitted. Its cost is kept as running sums, so a
/// step costs the same whatever the number of items.
struct Fitting<'s> {
    index: usize,
    section: &'s Section,
    detail: &'s Detail,
    /// Item indices, most useful first, every item once.
    order: Vec<usize>,
    /// For each item: 0 in full, `1..=forms` a lighter form, then by name only, then gone.
    level: Vec<usize>,
    /// Chars each item costs in the rendered view besides its text (`- ` and a newline).
    overhead: isize,
    more: String,
    /// Chars of the items still shown as rows, with their overhead.
    rows: isize,
    /// Chars of the names shown by name only, each with the space after it.
    names: isize,
    named: usize,
    gone: usize,
    /// How many items are in each lighter form, by what it leaves out, in the order met.
    lighter: Vec<(&'s str, usize)>,
}

impl<'s> Fitting<'s> {
    fn new(index: usize, section: &'s Section, more: &str) -> Option<Fitting<'s>> {
        let detail = section.detail.as_ref()?;
        let count = section.items.len();
        let mut order: Vec<usize> = detail.rank.iter().copied().filter(|&i| i < count).collect();
        let mut seen = vec![false; count];
        order.retain(|&i| !std::mem::replace(&mut seen[i], true));
        order.extend((0..count).filter(|&i| !seen[i]));
        let overhead = if section.table_header.is_some() { 1 } else { 3 };
        let rows = section.items.iter().map(|row| chars(row) + overhead).sum();
        Some(Fitting {
            index,
            section,
            detail,
            order,
            level: vec![0; count],
            overhead,
            more: section.more.clone().unwrap_or_else(|| more.to_string()),
            rows,
            names: 0,
            named: 0,
            gone: 0,
            lighter: Vec::new(),
        })
    }

    /// The most levels any item has: its forms, by name only, gone.
    fn depth(&self) -> usize {
        self.detail
            .items
            .iter()
            .map(|item| item.forms.len())
            .max()
            .unwrap_or(0)
            + 2
    }

    fn forms(&self, item: usize) -> usize {
        self.detail.items.get(item).map_or(0, |i| i.forms.len())
    }

    /// Takes `item` to `level` (of the section's deepest, see [`Fitting::depth`]): a
    /// lighter form while the item has one, by name only after all forms of the deepest
    /// item, gone after that. Returns the change in the view's chars.
    fn lower(&mut self, item: usize, level: usize) -> isize {
        let deepest = self.depth() - 2;
        let forms = self.forms(item);
        let own = if level > deepest {
            forms + (level - deepest)
        } else {
            level.min(forms)
        };
        let was = self.level[item];
        if own <= was {
            return 0;
        }
        let before = self.cost();
        self.leave(item, was);
        self.level[item] = own;
        self.enter(item, own);
        self.cost() - before
    }

    /// Takes `item` out of the sums of `level`.
    fn leave(&mut self, item: usize, level: usize) {
        if let Some(row) = self.row_at(item, level) {
            self.rows -= chars(row) + self.overhead;
        }
        if let Some(label) = self.label_at(item, level)
            && let Some(count) = self.lighter.iter_mut().find(|(l, _)| *l == label)
        {
            count.1 -= 1;
        }
        if level == self.forms(item) + 1 {
            self.named -= 1;
            self.names -= chars(self.name(item)) + 1;
        }
    }

    /// Adds `item` to the sums of `level`.
    fn enter(&mut self, item: usize, level: usize) {
        if let Some(row) = self.row_at(item, level) {
            self.rows += chars(row) + self.overhead;
        }
        if let Some(label) = self.label_at(item, level) {
            match self.lighter.iter_mut().find(|(l, _)| *l == label) {
                Some(count) => count.1 += 1,
                None => self.lighter.push((label, 1)),
            }
        }
        let forms = self.forms(item);
        if level == forms + 1 {
            self.named += 1;
            self.names += chars(self.name(item)) + 1;
        } else if level > forms + 1 {
            self.gone += 1;
        }
    }

    /// What the section's items, names line and marker cost now, in chars.
    fn cost(&self) -> isize {
        let names = match self.named {
            0 => 0,
            _ => chars(NAMED) + self.names,
        };
        let marker = self.marker().map_or(0, |m| chars(&m) + 1);
        self.rows + names + marker
    }

    /// The item as shown in the table or list at `level`, if it is a row there.
    fn row_at(&self, item: usize, level: usize) -> Option<&'s str> {
        match level {
            0 => self.section.items.get(item).map(String::as_str),
            _ => self
                .detail
                .items
                .get(item)
                .and_then(|i| i.forms.get(level - 1))
                .map(|(_, row)| row.as_str()),
        }
    }

    /// What the item's form at `level` leaves out, if it is a lighter form.
    fn label_at(&self, item: usize, level: usize) -> Option<&'s str> {
        let forms = &self.detail.items.get(item)?.forms;
        forms
            .get(level.checked_sub(1)?)
            .map(|(label, _)| label.as_str())
    }

    fn name(&self, item: usize) -> &'s str {
        self.detail.items.get(item).map_or("", |i| i.name.as_str())
    }

    /// The line of items shown by name only (in the items' order) and the marker.
    fn notes(&self) -> Vec<String> {
        let named: Vec<&str> = (0..self.level.len())
            .filter(|&item| self.level[item] == self.forms(item) + 1)
            .map(|item| self.name(item))
            .collect();
        let mut notes = Vec::new();
        if !named.is_empty() {
            notes.push(format!("{NAMED}{}", named.join(" ")));
        }
        notes.extend(self.marker());
        notes
    }

    /// `[pruned: 26 symbols: 12 without doc, 4 by name only, 1 left out; more: …]`, or
    /// nothing when every item is whole.
    fn marker(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .lighter
            .iter()
            .filter(|(label, count)| *count > 0 && !label.is_empty())
            .map(|(label, count)| format!("{count} {label}"))
            .collect();
        if self.named > 0 {
            parts.push(format!("{} by name only", self.named));
        }
        if self.gone > 0 {
            parts.push(format!("{} left out", self.gone));
        }
        if parts.is_empty() {
            return None;
        }
        let total = self.level.len();
        let noun = &self.detail.noun;
        Some(match self.more.as_str() {
            "" => format!("[pruned: {total} {noun}: {}]", parts.join(", ")),
            more => format!(
                "[pruned: {total} {noun}: {}; more: {more}]",
                parts.join(", ")
            ),
        })
    }

    /// Writes the fitted items and notes into `section` (a copy of the one fitted).
    fn apply(&self, section: &mut Section) {
        section.items = (0..self.level.len())
            .filter_map(|item| self.row_at(item, self.level[item]).map(str::to_string))
            .collect();
        section.notes = self.notes();
        section.detail = None;
    }
}

/// How the line of items shown by name only starts.
const NAMED: &str = "By name only: ";

fn chars(text: &str) -> isize {
    text.chars().count() as isize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lighter;

    /// A table of `n` rows `| name | kind | a long description |`, ranked by index, with a
    /// lighter form without the description; rendered as rows under a heading.
    fn entry(n: usize) -> Entry {
        let rows: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "| `m{i:02}.py` | module | {} |",
                    "a long description ".repeat(3)
                )
            })
            .collect();
        let lighter = (0..n)
            .map(|i| Lighter {
                forms: vec![(
                    "without description".into(),
                    format!("| `m{i:02}.py` | module | |"),
                )],
                name: format!("`m{i:02}.py`"),
            })
            .collect();
        Entry {
            title: "pkg".into(),
            sections: vec![Section {
                heading: "Contents".into(),
                table_header: Some("| name | kind | about |".into()),
                items: rows,
                detail: Some(Detail {
                    items: lighter,
                    rank: (0..n).collect(),
                    noun: "entries".into(),
                }),
                ..Section::default()
            }],
            ..Entry::default()
        }
    }

    fn text(entry: &Entry) -> String {
        let mut out = format!("# {}\n", entry.title);
        for section in &entry.sections {
            out.push_str(&format!("## {}\n", section.heading));
            for item in section.items.iter().chain(&section.notes) {
                out.push_str(item);
                out.push('\n');
            }
        }
        out
    }

    /// Each of the first `n` items of [`entry`] is named in `out`.
    fn assert_every_module_named(out: &str, n: usize) {
        for i in 0..n {
            assert!(
                out.contains(&format!("`m{i:02}.py`")),
                "m{i:02} missing:\n{out}"
            );
        }
    }

    #[test]
    fn a_view_that_fits_is_left_whole() {
        let small = entry(3);
        assert_eq!(*fit(&small, 500, "ls pkg/", text), small);
    }

    #[test]
    fn the_least_useful_lose_their_description_first_and_the_marker_says_so() {
        let view = entry(10);
        let budget = crate::render::budget::tokens(&text(&view)) - 20;
        let fitted = fit(&view, budget, "ls pkg/", text);
        let out = text(&fitted);
        assert!(crate::render::budget::tokens(&out) <= budget, "{out}");
        assert!(out.contains("| `m00.py` | module | a long"), "{out}");
        assert!(out.contains("| `m09.py` | module | |"), "{out}");
        let marker = fitted.sections[0].notes.last().cloned().unwrap_or_default();
        assert!(
            marker.starts_with("[pruned: 10 entries: ")
                && marker.contains(" without description")
                && marker.ends_with("; more: ls pkg/]"),
            "{marker}"
        );
    }

    #[test]
    fn names_stay_on_one_line_before_any_is_left_out() {
        let view = entry(40);
        let fitted = fit(&view, 150, "ls pkg/", text);
        let out = text(&fitted);
        assert!(crate::render::budget::tokens(&out) <= 150, "{out}");
        assert_every_module_named(&out, 40);
        assert!(out.contains("By name only: "), "{out}");
        // The most useful keep their rows.
        assert!(out.contains("| `m00.py` | module |"), "{out}");
    }

    #[test]
    fn names_go_last_and_least_useful_first() {
        let view = entry(40);
        let fitted = fit(&view, 60, "ls pkg/", text);
        let out = text(&fitted);
        assert!(crate::render::budget::tokens(&out) <= 60, "{out}");
        assert!(out.contains("`m00.py`"), "{out}");
        assert!(!out.contains("`m39.py`"), "{out}");
        assert!(out.contains("left out; more: ls pkg/]"), "{out}");
    }

    #[test]
    fn a_later_section_gives_up_each_level_before_an_earlier_one() {
        // six: 40 functions, then 40 module-level names; the names go before any
        // function is left out.
        let mut view = entry(40);
        let mut names = entry(40).sections.remove(0);
        names.heading = "Names".into();
        for (row, lighter) in names
            .items
            .iter_mut()
            .zip(&mut names.detail.as_mut().unwrap().items)
        {
            *row = row.replace("`m", "`N_");
            lighter.name = lighter.name.replace("`m", "`N_");
            lighter.forms[0].1 = lighter.forms[0].1.replace("`m", "`N_");
        }
        view.sections.push(names);
        let fitted = fit(&view, 150, "ls pkg/", text);
        let out = text(&fitted);
        assert!(crate::render::budget::tokens(&out) <= 150, "{out}");
        assert_every_module_named(&out, 40);
        assert!(!out.contains("`N_39.py`"), "{out}");
    }
}
