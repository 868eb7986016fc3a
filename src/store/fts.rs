//! Full-text queries from user text. A query string never reaches FTS5 as syntax: it is
//! cut into words, each quoted, so quotes, `*`, `NEAR`, `AND`, parentheses, `-` and column
//! filters are plain text and a hostile query cannot make `MATCH` fail; a `"quoted phrase"`
//! keeps its words together and in order. Shared by every FTS5 table of the store, and by
//! PostgreSQL's tsquery the same way.

/// Longest query we turn into terms; more words only slow the match down.
const MAX_TERMS: usize = 16;

/// The words of `text` as every full-text index here cuts them: runs of letters and
/// digits.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

/// `text`'s words joined by single spaces: what PostgreSQL indexes, so that its parser
/// sees the words SQLite's tokenizer sees.
pub fn word_text(text: &str) -> String {
    words(text).collect::<Vec<_>>().join(" ")
}

/// Which hits of a query of several terms a search asks for. A search asks for every term
/// first, then for the hits with some of them, so that a query with one word too many
/// ranks what it can find instead of answering nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Every term matches.
    Every,
    /// At least one term matches, but not all (nothing for a query of one term).
    Some,
}

/// The terms of `query`: each a word, or the words of a `"quoted phrase"` in order. An
/// unclosed quote is a phrase to the end; at most `MAX_TERMS` terms.
pub fn terms(query: &str) -> Vec<Vec<&str>> {
    let mut terms = Vec::new();
    for (n, part) in query.split('"').enumerate() {
        if n % 2 == 1 {
            let phrase: Vec<&str> = words(part).take(MAX_TERMS).collect();
            if !phrase.is_empty() {
                terms.push(phrase);
            }
        } else {
            terms.extend(words(part).map(|word| vec![word]));
        }
    }
    terms.truncate(MAX_TERMS);
    terms
}

/// `fix the "login form"` → `"fix"* AND "the"* AND "login form"*` (every term must match), or for
/// [`Tier::Some`] `("fix"* OR …) NOT ("fix"* AND …)`. `None` when the query has no words,
/// or only one term and `tier` asks for some.
pub fn match_expression(query: &str, tier: Tier) -> Option<String> {
    let terms: Vec<String> = terms(query)
        .iter()
        .map(|term| format!("\"{}\"*", term.join(" ")))
        .collect();
    tiered(&terms, tier, " OR ", " AND ", " NOT ")
}

/// The same for PostgreSQL's `to_tsquery`: `fix:* & the:* & (login <-> form:*)`. Words
/// hold only letters and digits, so none is an operator.
pub fn prefix_query(query: &str, tier: Tier) -> Option<String> {
    let terms: Vec<String> = terms(query)
        .iter()
        .map(|term| match term.as_slice() {
            [word] => format!("{word}:*"),
            phrase => format!("({}:*)", phrase.join(" <-> ")),
        })
        .collect();
    tiered(&terms, tier, " | ", " & ", " & !")
}

/// `terms` joined for `tier`: all with `and`, or `(any) NOT (all)` with `or` and `not`.
pub fn tiered(terms: &[String], tier: Tier, or: &str, and: &str, not: &str) -> Option<String> {
    match tier {
        Tier::Every if !terms.is_empty() => Some(terms.join(and)),
        Tier::Some if terms.len() > 1 => {
            Some(format!("({}){not}({})", terms.join(or), terms.join(and)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_and_operators_are_words() {
        let every = |q| match_expression(q, Tier::Every);
        assert_eq!(
            every("fix \"login*\" NEAR("),
            Some("\"fix\"* AND \"login\"* AND \"NEAR\"*".into())
        );
        assert_eq!(
            every("col:x -y"),
            Some("\"col\"* AND \"x\"* AND \"y\"*".into())
        );
        assert_eq!(every("été"), Some("\"été\"*".into()));
        assert_eq!(every("*()- \""), None);
        assert_eq!(
            prefix_query("fix \"login*\" NEAR(", Tier::Every).as_deref(),
            Some("fix:* & login:* & NEAR:*")
        );
        assert_eq!(prefix_query("*()- \"&|!", Tier::Every), None);
        assert_eq!(
            every(&"w ".repeat(100)).unwrap().matches('*').count(),
            MAX_TERMS
        );
    }

    #[test]
    fn some_words_are_any_term_but_not_all_and_phrases_stay_whole() {
        assert_eq!(
            match_expression("rounding \"money mode\"", Tier::Some).as_deref(),
            Some("(\"rounding\"* OR \"money mode\"*) NOT (\"rounding\"* AND \"money mode\"*)")
        );
        assert_eq!(
            prefix_query("rounding \"money mode\"", Tier::Some).as_deref(),
            Some("(rounding:* | (money <-> mode:*)) & !(rounding:* & (money <-> mode:*))")
        );
        // One term: every hit has it all.
        assert_eq!(match_expression("\"money mode\"", Tier::Some), None);
        assert_eq!(terms("a \"b c"), [vec!["a"], vec!["b", "c"]]);
    }
}
