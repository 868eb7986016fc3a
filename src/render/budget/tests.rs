//! Tests of the pruning: unit cases and properties (never over budget, a marker exactly
//! when something was cut, whole lines in order, deterministic).

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
    let view = "/x/\nsummary\n- one\n  more one\n  and more\n- two\n  more two\n- three\n  more\n";
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
        (1..=3usize, words(5))
            .prop_map(|(level, text)| section(vec![format!("{} {text}", "#".repeat(level))], 1)),
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

#[test]
fn a_block_under_a_hinted_heading_points_to_its_own_place() {
    let view = format!(
        "crumbs\n# Dashboard\n\n## Now\n{}\n## Recent\n{}",
        list("task", 20),
        list("session", 20)
    );
    let hints = [(
        "## Now".to_string(),
        "cat /mnt/hs/tasks/_entry.md".to_string(),
    )];
    let out = prune_with(&view, 60, "ls /mnt/hs/", &hints);
    assert!(tokens(&out) <= 60, "{out}");
    let markers: Vec<&str> = out.lines().filter(|l| l.starts_with("[pruned")).collect();
    assert_eq!(markers.len(), 2, "{out}");
    assert!(
        markers[0].ends_with("more: cat /mnt/hs/tasks/_entry.md]"),
        "{out}"
    );
    assert!(markers[1].ends_with("more: ls /mnt/hs/]"), "{out}");
}
