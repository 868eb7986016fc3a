//! Snippets of PostgreSQL search hits: about a dozen words of a text around the best
//! place where a query's words and phrases occur, each occurrence marked `**...**`, `…`
//! where the text was cut — what FTS5's `snippet()` gives the SQLite backend.
//!
//! Cut here, in Rust, rather than by `ts_headline`: `ts_headline` parses the stored text
//! with the default parser, which reads `deploy/billing` as one file-name token and
//! `x.org` as a host, so the words the index holds (cut at every non-alphanumeric
//! character, see `schema.sql`) would go unmarked in them; run over the cut text instead,
//! it would show the user text without its punctuation. Words are cut here as the index
//! cuts them (runs of letters and digits) and compared in lowercase, as the `simple`
//! configuration compares them.

use std::ops::Range;

use crate::store::memory::query::Phrase;

/// Words in a snippet.
pub(super) const TOKENS: usize = 12;

/// The snippet of `text` for `phrases`, and how many distinct phrases it shows (to pick
/// the best of several texts); `None` when none of them occurs in `text`.
pub(super) fn snippet(text: &str, phrases: &[Phrase]) -> Option<(usize, String)> {
    let words = words(text);
    // Each occurrence as the range of words it covers, and which phrase it is.
    let mut found: Vec<(Range<usize>, usize)> = Vec::new();
    for (which, phrase) in phrases.iter().enumerate() {
        let n = phrase.words.len();
        for start in 0..words.len().saturating_sub(n - 1) {
            if occurs(phrase, &words[start..start + n]) {
                found.push((start..start + n, which));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    // The window of TOKENS words showing the most distinct phrases, then the most
    // occurrences; the first such. Windows are tried around each occurrence, centred.
    let last_start = words.len().saturating_sub(TOKENS);
    let mut best: Option<(usize, usize, usize)> = None;
    for (range, _) in &found {
        let lead = TOKENS.saturating_sub(range.len()) / 2;
        let start = range.start.saturating_sub(lead).min(last_start);
        let inside = |r: &Range<usize>| r.start >= start && r.end <= start + TOKENS;
        let mut shown: Vec<usize> = found
            .iter()
            .filter(|(r, _)| inside(r))
            .map(|(_, w)| *w)
            .collect();
        let occurrences = shown.len();
        shown.sort_unstable();
        shown.dedup();
        let score = (shown.len(), occurrences);
        if best.is_none_or(|(_, d, o)| score > (d, o)) {
            best = Some((start, score.0, score.1));
        }
    }
    let (start, distinct, _) = best?;
    let end = (start + TOKENS).min(words.len());
    // The marked byte ranges inside the window, overlapping ones joined.
    let mut marks: Vec<Range<usize>> = found
        .iter()
        .filter(|(r, _)| r.start >= start && r.end <= end)
        .map(|(r, _)| words[r.start].0.start..words[r.end - 1].0.end)
        .collect();
    marks.sort_by_key(|r| r.start);
    let mut joined: Vec<Range<usize>> = Vec::new();
    for mark in marks {
        match joined.last_mut() {
            Some(last) if mark.start <= last.end => last.end = last.end.max(mark.end),
            _ => joined.push(mark),
        }
    }
    let from = if start == 0 { 0 } else { words[start].0.start };
    let to = if end == words.len() {
        text.len()
    } else {
        words[end - 1].0.end
    };
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = from;
    for mark in joined {
        out.push_str(&text[at..mark.start]);
        out.push_str("**");
        out.push_str(&text[mark.clone()]);
        out.push_str("**");
        at = mark.end;
    }
    out.push_str(&text[at..to]);
    if end < words.len() {
        out.push('…');
    }
    Some((distinct, out))
}

/// The runs of letters and digits of `text`, each with its byte range and in lowercase.
fn words(text: &str) -> Vec<(Range<usize>, String)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from..at, text[from..at].to_lowercase()));
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// Whether `words` (as many as the phrase has) are the phrase; the last as a prefix when
/// the phrase is one.
fn occurs(phrase: &Phrase, words: &[(Range<usize>, String)]) -> bool {
    let last = phrase.words.len() - 1;
    phrase
        .words
        .iter()
        .zip(words)
        .enumerate()
        .all(|(i, (want, (_, word)))| {
            if phrase.prefix && i == last {
                word.starts_with(want.as_str())
            } else {
                word == want
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrase(words: &[&str], prefix: bool) -> Phrase {
        Phrase {
            words: words.iter().map(|w| w.to_string()).collect(),
            prefix,
        }
    }

    fn cut(text: &str, phrases: &[Phrase]) -> Option<String> {
        snippet(text, phrases).map(|(_, s)| s)
    }

    #[test]
    fn occurrences_are_marked_with_their_punctuation() {
        let billing = [phrase(&["billing"], false)];
        assert_eq!(
            cut("kubectl rollout status deploy/billing", &billing).as_deref(),
            Some("kubectl rollout status deploy/**billing**")
        );
        assert_eq!(
            cut("Deploy the Billing service.", &billing).as_deref(),
            Some("Deploy the **Billing** service.")
        );
        assert_eq!(
            cut(
                "see check_password() now",
                &[phrase(&["check", "password"], false)]
            )
            .as_deref(),
            Some("see **check_password**() now")
        );
        assert_eq!(
            cut("Migrations ran", &[phrase(&["migrat"], true)]).as_deref(),
            Some("**Migrations** ran")
        );
        assert_eq!(cut("nothing here", &billing), None);
        assert_eq!(cut("", &billing), None);
    }

    #[test]
    fn long_texts_are_cut_around_the_most_phrases() {
        let text = (0..40)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let (distinct, s) = snippet(
            &text,
            &[
                phrase(&["w3"], false),
                phrase(&["w20"], false),
                phrase(&["w25"], false),
            ],
        )
        .unwrap();
        assert_eq!(distinct, 2);
        assert_eq!(
            s,
            "…w15 w16 w17 w18 w19 **w20** w21 w22 w23 w24 **w25** w26…"
        );
        let (_, s) = snippet(&text, &[phrase(&["w0"], false)]).unwrap();
        assert_eq!(s, "**w0** w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11…");
        let (_, s) = snippet(&text, &[phrase(&["w39"], false)]).unwrap();
        assert_eq!(s, "…w28 w29 w30 w31 w32 w33 w34 w35 w36 w37 w38 **w39**");
    }
}
