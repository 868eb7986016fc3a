//! The resourcespaces mounted under the root, each implementing
//! [`crate::tree::resource::Resource`], registered in one place ([`all`]), and what they
//! share. Adding a resourcespace is its own folder and one line in [`all`].

pub mod json;
pub mod memory;
pub mod search_results;
pub mod source;
pub mod tasks;

use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, ErrorKind};
use crate::model::Kind;
use crate::model::Links;
use crate::render::nav::NavSetting;
use crate::store::Store;
use crate::tree::resource::Resource;

/// What every resourcespace is built from.
pub struct Context {
    /// The project's directory (canonical).
    pub project: PathBuf,
    /// The project's name (from pyproject.toml, else its directory).
    pub name: String,
    pub links: Links,
    pub store: Arc<Store>,
    /// The token budget of views.
    pub budget: usize,
    /// Where parses are kept across mounts (see `source/parse_index.rs`); none: not kept.
    pub parse_index: Option<PathBuf>,
}

/// Every resourcespace, in the order the root lists them, and how `_nav.txt` is drawn.
pub struct Resources {
    pub all: Vec<Arc<dyn Resource>>,
    /// What source/meta/settings.toml says of `_nav.txt`, asked at each draw.
    pub nav: NavSetting,
}

/// Every resourcespace, in the order the root lists them (search covers all the others),
/// and the nav setting of source/, which the tree draws every `_nav.txt` by.
pub fn all(ctx: &Context) -> Resources {
    let source = source::Source::new(
        &ctx.project,
        ctx.name.clone(),
        ctx.links.clone(),
        ctx.store.clone(),
        ctx.budget,
    );
    if let Some(file) = &ctx.parse_index {
        source.keep_parses_in(file.clone());
    }
    // Memory follows what source/meta/settings.toml says, for as long as source/ is there.
    let settings = Arc::downgrade(&source);
    let nav_of = Arc::downgrade(&source);
    let nav: NavSetting = Arc::new(move || {
        nav_of
            .upgrade()
            .map(|source| source.kept_settings().nav)
            .unwrap_or_default()
    });
    let following = memory::follow::Following {
        project: ctx.project.clone(),
        setting: Arc::new(move || settings.upgrade().map(|source| source.memory_watch())),
        status: Default::default(),
    };
    let mut all: Vec<Arc<dyn Resource>> = vec![
        source,
        Arc::new(tasks::Tasks::new(ctx.store.clone(), ctx.links.clone())),
        Arc::new(
            memory::Memory::new(
                ctx.store.clone(),
                ctx.links.clone(),
                ctx.budget,
                &ctx.project,
            )
            .following(following),
        ),
    ];
    let areas = all.clone();
    all.push(Arc::new(search_results::Search::new(
        areas,
        ctx.links.clone(),
        ctx.budget,
    )));
    Resources { all, nav }
}

/// How many members a "not empty" message names before it counts the rest.
const NAMED_MEMBERS: usize = 5;

/// The refusal of `rmdir` on the directory `shown` holding `members`: ENOTEMPTY, which is
/// what `rm -r` and file managers expect of a full directory (EPERM would read as "this
/// can never be done"), naming what is inside and, in `then`, what to do instead.
pub(crate) fn not_empty(shown: &str, members: &[(String, Kind)], then: &str) -> Error {
    let mut names: Vec<String> = members
        .iter()
        .take(NAMED_MEMBERS)
        .map(|(name, kind)| match kind {
            Kind::Dir => format!("{name}/"),
            _ => name.clone(),
        })
        .collect();
    if members.len() > NAMED_MEMBERS {
        names.push(format!("{} more", members.len() - NAMED_MEMBERS));
    }
    Error::new(
        ErrorKind::NotEmpty,
        format!(
            "{shown} is not empty: it holds {}; {then}",
            names.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_directory_is_refused_with_enotempty_naming_what_it_holds() {
        let members: Vec<(String, Kind)> = (1..=7)
            .map(|i| (format!("t{i}.json"), Kind::Document))
            .chain([("sub".to_string(), Kind::Dir)])
            .collect();
        let error = not_empty("/hs/tasks/open/", &members[..2], "rm the tasks first");
        assert_eq!(error.kind, ErrorKind::NotEmpty);
        assert_eq!(
            error.message,
            "/hs/tasks/open/ is not empty: it holds t1.json, t2.json; rm the tasks first"
        );
        let many = not_empty("/hs/x/", &members, "then");
        assert!(
            many.message.contains("t5.json, 3 more; then"),
            "{}",
            many.message
        );
        assert!(!many.message.contains("t6.json"), "{}", many.message);
    }
}
