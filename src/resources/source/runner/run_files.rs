//! A test run's files as a shell meets them: failure files named so a shell takes them
//! unquoted, and every file's text ending with a newline.

/// A test id as a file name a shell takes as one word unquoted (`tests.test_a.test_x`):
/// each run of other characters than letters, digits, `.`, `_` and `-` (parameters' spaces,
/// quotes, brackets, a `/`) becomes one `_`, and then a hash of the whole id keeps two ids
/// that read alike apart. The hash is the id's own, so a test's file has one name in
/// every run.
pub(super) fn file_name(id: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if id.chars().all(safe) && !id.is_empty() {
        return format!("{id}.txt");
    }
    let mut name = String::new();
    for c in id.chars() {
        if safe(c) {
            name.push(c);
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    format!("{name}-{:08x}.txt", fnv1a(id))
}

/// FNV-1a over `text`'s bytes: the same on every machine and release, unlike std's hasher.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |hash: u32, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// `text` ending with a newline, as every file of a run does (`cat` leaves the prompt
/// after it, `tail` and `wc -l` count its last line).
pub(super) fn with_final_newline(mut text: Vec<u8>) -> Vec<u8> {
    if text.last().is_some_and(|b| *b != b'\n') {
        text.push(b'\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parametrized_id_is_one_plain_word_of_its_own() {
        assert_eq!(file_name("tests.test_a.test_x"), "tests.test_a.test_x.txt");
        let odd = file_name("tests.test_a.test_x[it's a \"b\"]");
        assert!(odd.starts_with("tests.test_a.test_x_it_s_a_b-"), "{odd}");
        assert!(!odd.contains([' ', '\'', '"', '[', ']']), "{odd}");
        // Ids that read alike keep apart, and an id is named alike every time.
        assert_ne!(file_name("t.x[a b]"), file_name("t.x[a/b]"));
        assert_eq!(file_name("t.x[a b]"), file_name("t.x[a b]"));
    }
}
