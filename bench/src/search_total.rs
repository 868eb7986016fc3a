//! The matching lines a search view says it counted, read from its heading (`# Search:
//! <query> — N hits`, `— 1 hit`, `— 1,234 hits, page 2`): the one scraper of that heading,
//! for every section that reads a search.

/// What the heading of `view` says after its last ` — ` (`1,234 hits`), as shown.
pub fn heading_count(view: &str) -> Option<&str> {
    let heading = view.lines().find(|l| l.starts_with("# Search:"))?;
    heading.rsplit_once(" — ").map(|(_, tail)| tail)
}

/// The count in the heading of `view`; `None` when there is no heading or it holds no count
/// (an error in place of hits).
pub fn mount_total(view: &str) -> Option<usize> {
    let tail = heading_count(view)?;
    let mut words = tail.split([' ', ',']).filter(|w| !w.is_empty());
    // The number may have thousands separators, which split it into several words.
    let mut digits = String::new();
    for word in words.by_ref() {
        if word.bytes().all(|b| b.is_ascii_digit()) {
            digits.push_str(word);
        } else if word == "hit" || word == "hits" {
            return digits.parse().ok();
        } else {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hit_many_hits_and_thousands_are_all_read() {
        let heading = |tail: &str| {
            format!("home > search > source:x\n# Search: source:x — {tail}\n\n- a:1: x\n")
        };
        assert_eq!(mount_total(&heading("1 hit")), Some(1));
        assert_eq!(mount_total(&heading("12 hits")), Some(12));
        assert_eq!(mount_total(&heading("1,234 hits")), Some(1234));
        assert_eq!(mount_total(&heading("0 hits")), Some(0));
        assert_eq!(mount_total(&heading("1,234 hits, page 2")), Some(1234));
        // A query holding the separator: the count is after the last one.
        assert_eq!(mount_total("# Search: source:a — b — 3 hits\n"), Some(3));
        assert_eq!(heading_count(&heading("1 hit")), Some("1 hit"));
    }

    #[test]
    fn a_heading_without_a_count_reads_as_none() {
        assert_eq!(mount_total("# Search: source:x\n\nno such area\n"), None);
        assert_eq!(mount_total("# Search: source:x — soon\n"), None);
        assert_eq!(mount_total("no heading\n"), None);
    }
}
