//! Counts as people read them, in views and in the store's messages alike: grouped
//! thousands, sizes, and the word that goes with a count (one place says when it is plural).

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The ending a regular noun takes after count `n`: `""` for one, `"s"` otherwise
/// (`3 test{}`).
pub fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    one_or_many(n, "", "s")
}

/// `one` after a count of one, `many` after any other: an irregular ending (`entr`+`y` /
/// `ies`), a whole word (`task` / `tasks`) or a verb's (`s` / ``).
pub fn one_or_many<'a, N: PartialEq + From<u8>>(n: N, one: &'a str, many: &'a str) -> &'a str {
    if n == N::from(1) { one } else { many }
}

/// `3.1 KiB`, `812 B`.
pub fn file_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(file_size(812), "812 B");
        assert_eq!(file_size(3174), "3.1 KiB");
        assert_eq!(format!("1 test{}", plural(1usize)), "1 test");
        assert_eq!(format!("0 test{}", plural(0u64)), "0 tests");
        assert_eq!(format!("2 test{}", plural(2i64)), "2 tests");
        assert_eq!(
            format!("1 entr{}", one_or_many(1usize, "y", "ies")),
            "1 entry"
        );
        assert_eq!(
            format!("5 entr{}", one_or_many(5usize, "y", "ies")),
            "5 entries"
        );
    }
}
