//! `_nav.txt`: the whole tree seen from one directory. The path from the root is expanded
//! with its siblings, the current directory is marked `<- you are here` and shows its
//! children to depth 2 (by default: [`NavShape`]); long member lists collapse to `+N more`. The collapse threshold
//! shrinks until the view fits the budget, so the marked line always survives.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Result;
use crate::model::names::{ENTRY, NAV};
use crate::model::{Kind, Links, TreePath};
use crate::render::budget;

/// What the navigation view needs of a tree: the names and kinds in a directory.
pub trait Listing {
    /// The members of directory `dir`, as `ls` shows them (shared: a tree may keep them).
    fn names(&self, dir: &TreePath) -> Result<Arc<Vec<(String, Kind)>>>;
}

/// Where the tree asks how `_nav.txt` is drawn now (source/'s settings, handed in by the
/// app: the tree knows no setting of any resourcespace).
pub type NavSetting = std::sync::Arc<dyn Fn() -> NavShape + Send + Sync>;

/// How the view is drawn: `source/meta/settings.toml`'s `[nav]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NavShape {
    /// Levels shown below the current directory.
    pub depth: usize,
    /// Members shown per directory before the rest collapse, at first.
    pub collapse: usize,
}

impl Default for NavShape {
    fn default() -> Self {
        NavShape {
            depth: 2,
            collapse: 8,
        }
    }
}

/// Members shown per directory before collapsing, tried after the shape's own in order
/// until the view fits.
const THRESHOLDS: [usize; 5] = [8, 5, 3, 2, 1];
const HERE: &str = "  <- you are here";

/// Render `_nav.txt` of directory `dir` of `tree`, linked under `links`, within `budget`,
/// drawn as `shape` says.
pub fn render(
    tree: &dyn Listing,
    links: &Links,
    dir: &TreePath,
    budget: usize,
    shape: NavShape,
) -> Result<String> {
    // Walked name by name: each step down compares and extends the list of names.
    let dir: Vec<String> = dir.names().map(str::to_string).collect();
    let dir = dir.as_slice();
    let mut last = String::new();
    // Each directory is listed once, whatever the number of thresholds tried.
    let mut listings = Listings::default();
    let smaller = THRESHOLDS.into_iter().filter(|t| *t < shape.collapse);
    for threshold in std::iter::once(shape.collapse.max(1)).chain(smaller) {
        let shape = NavShape {
            collapse: threshold,
            ..shape
        };
        let text = view(tree, links, &mut listings, dir, shape)?;
        if budget::fits(&text, budget) {
            return Ok(text);
        }
        last = text;
    }
    let more = format!("cat {}", links.to(&rel(dir, ENTRY)));
    Ok(budget::prune(&last, budget, &more))
}

/// Directory listings (names and kinds), each taken once.
#[derive(Default)]
struct Listings(HashMap<Vec<String>, Arc<Vec<(String, Kind)>>>);

impl Listings {
    fn of(&mut self, tree: &dyn Listing, dir: &[String]) -> Result<Arc<Vec<(String, Kind)>>> {
        if let Some(members) = self.0.get(dir) {
            return Ok(Arc::clone(members));
        }
        let members = tree.names(&TreePath::from_names(dir))?;
        self.0.insert(dir.to_vec(), Arc::clone(&members));
        Ok(members)
    }
}

/// Whether `name` is one of the views every directory has, which the view does not list.
fn generated(name: &str) -> bool {
    name == ENTRY || name == NAV
}

fn view(
    tree: &dyn Listing,
    links: &Links,
    listings: &mut Listings,
    dir: &[String],
    shape: NavShape,
) -> Result<String> {
    let mut out = format!("{}\n", links.mountpoint());
    if dir.is_empty() {
        out.truncate(out.len() - 1);
        out.push_str(HERE);
        out.push('\n');
    }
    walk(tree, listings, &[], dir, 1, shape, &mut out)?;
    out.push_str(&format!(
        "\nEvery directory has {ENTRY} (what you can do there) and {NAV} (this tree).\n"
    ));
    Ok(out)
}

/// Write the members of `at` (depth `depth`), expanding the next step toward `here`.
fn walk(
    tree: &dyn Listing,
    listings: &mut Listings,
    at: &[String],
    here: &[String],
    depth: usize,
    shape: NavShape,
    out: &mut String,
) -> Result<()> {
    let threshold = shape.collapse;
    let listed = listings.of(tree, at)?;
    let members: Vec<&(String, Kind)> = listed.iter().filter(|(n, _)| !generated(n)).collect();
    let on_path = here.get(at.len()).filter(|_| here.starts_with(at));
    let below_here = at.len() >= here.len() && at.starts_with(here);
    let levels_below = at.len().saturating_sub(here.len());
    let mut shown = 0;
    let total = members.len();
    for (name, kind) in members {
        let is_next = on_path.is_some_and(|n| n == name);
        if shown >= threshold && !is_next {
            continue;
        }
        shown += 1;
        // A link leads to a directory (source/'s module members): shown as one.
        let slash = if matches!(kind, Kind::Dir | Kind::Link) {
            "/"
        } else {
            ""
        };
        let mut path = at.to_vec();
        path.push(name.clone());
        let mark = if is_next && path.len() == here.len() {
            HERE
        } else {
            ""
        };
        out.push_str(&format!("{}{}{slash}{mark}\n", "  ".repeat(depth), name));
        // A link (to a module's members) is shown as the directory it leads to.
        let expand = matches!(kind, Kind::Dir | Kind::Link)
            && (is_next || (below_here && levels_below + 1 < shape.depth));
        if expand {
            walk(tree, listings, &path, here, depth + 1, shape, out)?;
        }
    }
    if total > shown {
        out.push_str(&format!("{}+{} more\n", "  ".repeat(depth), total - shown));
    }
    Ok(())
}

fn rel(dir: &[String], name: &str) -> String {
    format!("{}{name}", crate::model::links::dir_prefix(dir))
}
