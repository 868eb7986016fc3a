//! Every view of the whole tree fits the budget — the default one and a mount-wide
//! `--budget` override — walked through the core without a mount, over the example
//! project with tasks in the store.

use homespace::app::{Options, build};
use homespace::model::{Kind, TreePath};
use homespace::render::budget::tokens;
use homespace::store::location::Location;
use homespace::tree::Space;
use homespace::tree::resource::ResourceExt;

fn walk(space: &Space, dir: Vec<String>, views: &mut Vec<(String, String)>) {
    for child in space.list(&TreePath::from_names(&dir)).unwrap() {
        let mut path = dir.clone();
        path.push(child.name.clone());
        match child.kind {
            // A link leads to a module's members: their views are checked through it.
            Kind::Dir | Kind::Link => walk(space, path, views),
            Kind::View => {
                let text = String::from_utf8(space.content(&TreePath::from_names(&path)).unwrap())
                    .unwrap();
                views.push((path.join("/"), text));
            }
            Kind::Document => {}
        }
    }
}

fn check(budget: usize) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("ledger");
    copy(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ledger"),
        &project,
    );
    let mut options = Options::new(project);
    options.store = Some(Location::File(dir.path().join("store.db")));
    options.budget = budget;
    let space = build(&options, "/mnt/hs").unwrap();
    let tasks = space.resource_named("tasks").unwrap();
    for n in 0..40 {
        let json = format!(
            r#"{{"title": "Task number {n} with a rather long title to fill the views", "priority": {}, "tags": ["t{}"]}}"#,
            n % 5,
            n % 7
        );
        tasks
            .write(&["open", &format!("task-{n}.json")], json.as_bytes(), None)
            .unwrap();
    }
    let mut views = Vec::new();
    walk(&space, Vec::new(), &mut views);
    assert!(views.len() > 50, "only {} views", views.len());
    let mut pruned = 0;
    for (path, text) in &views {
        assert!(
            tokens(text) <= budget,
            "{path} is {} tokens, budget {budget}:\n{text}",
            tokens(text)
        );
        if text.contains("[pruned:") {
            pruned += 1;
        }
    }
    assert!(pruned > 0, "with 40 tasks something must have been pruned");
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn every_view_fits_the_default_budget() {
    check(500);
}

#[test]
fn every_view_fits_a_mount_wide_override() {
    check(150);
}
