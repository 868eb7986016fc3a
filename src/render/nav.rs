//! `_nav.txt`: the whole tree seen from one directory. The path from the root is expanded
//! with its siblings, the current directory is marked `<- you are here` and shows its
//! children to depth 2; long member lists collapse to `+N more`. The collapse threshold
//! shrinks until the view fits the budget, so the marked line always survives.

use crate::error::Result;
use crate::render::budget;
use crate::tree::Space;
use crate::tree::names::{ENTRY, NAV};
use crate::tree::resource::{Child, Kind};

/// Members shown per directory before collapsing, tried in order until the view fits.
const THRESHOLDS: [usize; 5] = [8, 5, 3, 2, 1];
const HERE: &str = "  <- you are here";

/// Render `_nav.txt` for directory `dir`.
pub fn render(space: &Space, dir: &[String]) -> Result<String> {
    let mut last = String::new();
    for threshold in THRESHOLDS {
        let text = tree(space, dir, threshold)?;
        if budget::fits(&text, space.budget) {
            return Ok(text);
        }
        last = text;
    }
    let more = format!("cat {}", space.links().to(&rel(dir, ENTRY)));
    Ok(budget::prune(&last, space.budget, &more))
}

fn tree(space: &Space, dir: &[String], threshold: usize) -> Result<String> {
    let mut out = format!("{}\n", space.links().mountpoint());
    if dir.is_empty() {
        out.truncate(out.len() - 1);
        out.push_str(HERE);
        out.push('\n');
    }
    walk(space, &[], dir, 1, threshold, &mut out)?;
    out.push_str(&format!(
        "\nEvery directory has {ENTRY} (what you can do there) and {NAV} (this tree).\n"
    ));
    Ok(out)
}

/// Write the members of `at` (depth `depth`), expanding the next step toward `here`.
fn walk(
    space: &Space,
    at: &[String],
    here: &[String],
    depth: usize,
    threshold: usize,
    out: &mut String,
) -> Result<()> {
    let members = visible(space.list(at)?);
    let on_path = here.get(at.len()).filter(|_| here.starts_with(at));
    let below_here = at.len() >= here.len() && at.starts_with(here);
    let levels_below = at.len().saturating_sub(here.len());
    let mut shown = 0;
    let total = members.len();
    for child in &members {
        let is_next = on_path.is_some_and(|n| *n == child.name);
        if shown >= threshold && !is_next {
            continue;
        }
        shown += 1;
        let slash = if child.kind == Kind::Dir { "/" } else { "" };
        let mut path = at.to_vec();
        path.push(child.name.clone());
        let mark = if is_next && path.len() == here.len() {
            HERE
        } else {
            ""
        };
        out.push_str(&format!(
            "{}{}{slash}{mark}\n",
            "  ".repeat(depth),
            child.name
        ));
        let expand = child.kind == Kind::Dir && (is_next || (below_here && levels_below < 1));
        if expand {
            walk(space, &path, here, depth + 1, threshold, out)?;
        }
    }
    if total > shown {
        out.push_str(&format!("{}+{} more\n", "  ".repeat(depth), total - shown));
    }
    Ok(())
}

/// Members worth a line: the generated files are everywhere, so the footer says it once.
fn visible(children: Vec<Child>) -> Vec<Child> {
    children
        .into_iter()
        .filter(|c| c.name != ENTRY && c.name != NAV)
        .collect()
}

fn rel(dir: &[String], name: &str) -> String {
    format!("{}{name}", crate::tree::dir_prefix(dir))
}
