//! Paths under `source/` as the tree has them, made in one place: views, errors and links
//! name a place of source/ by what is inside it, and this puts source/ in front.

use crate::model::TreePath;

/// The name of source/ under the root.
pub(crate) const SOURCE: &str = "source";

/// `source/` with `rel` inside it (names joined by `/`, as a symbol file's place is kept;
/// empty: source/ itself).
pub(crate) fn tree_path(rel: impl AsRef<str>) -> TreePath {
    let mut path = TreePath::parse(SOURCE);
    let rel = rel.as_ref().trim_matches('/');
    if !rel.is_empty() {
        path.push(rel);
    }
    path
}

/// `source/` with the names `path` inside it.
pub(crate) fn tree_path_of<S: AsRef<str>>(path: impl IntoIterator<Item = S>) -> TreePath {
    TreePath::from_names(
        std::iter::once(SOURCE.to_string())
            .chain(path.into_iter().map(|name| name.as_ref().to_string())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_spelled_under_source_however_it_is_given() {
        assert_eq!(tree_path("").as_str(), "source");
        assert_eq!(tree_path("tests/runs/").as_str(), "source/tests/runs");
        assert_eq!(
            tree_path("ledger/accounts/Account/debit.py").as_str(),
            "source/ledger/accounts/Account/debit.py"
        );
        assert_eq!(tree_path_of(["deps", "dev"]).as_str(), "source/deps/dev");
        assert_eq!(tree_path_of(Vec::<&str>::new()).as_str(), "source");
    }
}
