//! Full-text queries from user text. A query string never reaches FTS5 as syntax: it is
//! cut into words, each quoted, so quotes, `*`, `NEAR`, `AND`, parentheses, `-` and column
//! filters are plain text and a hostile query cannot make `MATCH` fail. Shared by every
//! FTS5 table of the store, and by PostgreSQL's tsquery the same way.

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

/// `fix the "login*"` → `"fix"* "the"* "login"*` (all terms must match). `None` when the
/// query has no words.
pub fn match_expression(query: &str) -> Option<String> {
    let terms: Vec<String> = words(query)
        .take(MAX_TERMS)
        .map(|word| format!("\"{word}\"*"))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

/// The same for PostgreSQL's `to_tsquery`: `fix:* & the:* & login:*`. Words hold only
/// letters and digits, so none is an operator.
pub fn prefix_query(query: &str) -> Option<String> {
    let terms: Vec<String> = words(query)
        .take(MAX_TERMS)
        .map(|word| format!("{word}:*"))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" & "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_and_operators_are_words() {
        assert_eq!(
            match_expression("fix \"login*\" NEAR("),
            Some("\"fix\"* \"login\"* \"NEAR\"*".into())
        );
        assert_eq!(
            match_expression("col:x -y"),
            Some("\"col\"* \"x\"* \"y\"*".into())
        );
        assert_eq!(match_expression("été"), Some("\"été\"*".into()));
        assert_eq!(match_expression("*()- \""), None);
        assert_eq!(
            prefix_query("fix \"login*\" NEAR(").as_deref(),
            Some("fix:* & login:* & NEAR:*")
        );
        assert_eq!(prefix_query("*()- \"&|!"), None);
        assert_eq!(
            match_expression(&"w ".repeat(100))
                .unwrap()
                .matches('*')
                .count(),
            MAX_TERMS
        );
    }
}
