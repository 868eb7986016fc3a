use super::*;

/// A PEP 621 project the way people write them: comments, a marker, extras, a group.
const PEP621: &str = r#"# The ledger project
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "ledger"
version = "0.3.0"
dependencies = [
    "requests>=2.31",  # http
    # parsing
    'tomli>=2; python_version < "3.11"',
    "click",
]

[project.optional-dependencies]
dev = ["pytest>=8", "ruff"]
docs = [
  "sphinx",
]

[project.urls]
Home = "https://example.com"

[dependency-groups]
test = ["pytest", {include-group = "lint"}]
lint = ["ruff"]

[tool.ruff]
line-length = 100
"#;

fn req(text: &str) -> Requirement {
    requirement::parse(text).unwrap()
}

fn names(text: &str, id: &ListId) -> Vec<String> {
    let manifest = Manifest::read(text).unwrap();
    manifest
        .list(id)
        .unwrap()
        .names()
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn lists_are_read_with_their_requirements_and_other_elements() {
    let m = Manifest::read(PEP621).unwrap();
    let ids: Vec<String> = m.lists.iter().map(|l| l.id.to_string()).collect();
    assert_eq!(
        ids,
        [
            "[project].dependencies",
            "[project.optional-dependencies].dev",
            "[project.optional-dependencies].docs",
            "[dependency-groups].test",
            "[dependency-groups].lint"
        ]
    );
    let main = m.list(&ListId::Main).unwrap();
    assert_eq!(main.names(), ["requests", "tomli", "click"]);
    assert_eq!(
        main.requirements("tomli")[0].text,
        "tomli>=2; python_version < \"3.11\""
    );
    let test = m.list(&ListId::Group("test".into())).unwrap();
    assert_eq!(
        test.elements[1],
        Element::Other("{include-group = \"lint\"}".into())
    );
}

#[test]
fn adding_then_removing_a_requirement_gives_the_file_back_in_every_list() {
    for id in [
        ListId::Main,
        ListId::Extra("dev".into()),
        ListId::Extra("docs".into()),
        ListId::Group("test".into()),
    ] {
        let added = set(PEP621, &id, "httpx", &[req("httpx>=0.27")]).unwrap();
        assert!(names(&added, &id).contains(&"httpx".to_string()), "{added}");
        assert_eq!(remove(&added, &id, "httpx").unwrap(), PEP621, "{id}");
    }
}

#[test]
fn removing_the_only_requirement_takes_away_the_dependencies_adding_it_made() {
    let bare = "[project]\nname = \"x\"\nversion = \"1\"\n\n[tool.x]\na = 1\n";
    let added = set(bare, &ListId::Main, "httpx", &[req("httpx>=0.27")]).unwrap();
    assert!(
        added.contains("dependencies = [\n    \"httpx>=0.27\",\n]\n"),
        "{added}"
    );
    assert_eq!(remove(&added, &ListId::Main, "httpx").unwrap(), bare);
    // A list the project wrote itself stays, empty, as written.
    let own = "[project]\nname = \"x\"\ndependencies = [\"httpx\"]\n";
    assert_eq!(
        remove(own, &ListId::Main, "httpx").unwrap(),
        "[project]\nname = \"x\"\ndependencies = []\n"
    );
}

#[test]
fn a_change_touches_only_its_own_bytes() {
    let changed = set(PEP621, &ListId::Main, "requests", &[req("requests>=2.32")]).unwrap();
    assert_eq!(
        changed,
        PEP621.replace("\"requests>=2.31\",  # http", "\"requests>=2.32\",  # http")
    );
    let changed = set(PEP621, &ListId::Main, "tomli", &[req("tomli>=2.1")]).unwrap();
    assert_eq!(
        changed,
        PEP621.replace("'tomli>=2; python_version < \"3.11\"'", "'tomli>=2.1'"),
        "a literal string stays literal"
    );
    let removed = remove(PEP621, &ListId::Main, "tomli").unwrap();
    assert_eq!(
        removed,
        PEP621.replace(
            "    # parsing\n    'tomli>=2; python_version < \"3.11\"',\n",
            ""
        ),
        "the comment above goes with it"
    );
}

#[test]
fn a_package_required_twice_with_markers_is_one_file_of_two_lines() {
    let two = [
        req("numpy>=1.26; python_version < '3.12'"),
        req("numpy>=2; python_version >= '3.12'"),
    ];
    let text = set(PEP621, &ListId::Main, "numpy", &two).unwrap();
    let m = Manifest::read(&text).unwrap();
    let texts: Vec<&str> = m
        .list(&ListId::Main)
        .unwrap()
        .requirements("numpy")
        .iter()
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(texts, [two[0].text.as_str(), two[1].text.as_str()]);
    let one = set(&text, &ListId::Main, "numpy", &[req("numpy>=2")]).unwrap();
    assert_eq!(
        one,
        set(PEP621, &ListId::Main, "numpy", &[req("numpy>=2")]).unwrap()
    );
    assert_eq!(remove(&one, &ListId::Main, "numpy").unwrap(), PEP621);
}

#[test]
fn new_lists_go_into_their_tables_or_new_ones() {
    let text = add_list(PEP621, &ListId::Extra("gui".into())).unwrap();
    assert_eq!(
        text,
        PEP621.replace(
            "docs = [\n  \"sphinx\",\n]\n",
            "docs = [\n  \"sphinx\",\n]\ngui = []\n"
        )
    );
    let text = add_list(PEP621, &ListId::Group("bench".into())).unwrap();
    assert_eq!(
        text,
        PEP621.replace("lint = [\"ruff\"]\n", "lint = [\"ruff\"]\nbench = []\n")
    );
    assert!(
        add_list(PEP621, &ListId::Extra("dev".into())).is_err(),
        "exists"
    );

    let bare = "[project]\nname = \"x\"\nversion = \"1\"\n\n[tool.black]\nline-length = 88\n";
    let text = add_list(bare, &ListId::Extra("dev".into())).unwrap();
    assert_eq!(
        text,
        "[project]\nname = \"x\"\nversion = \"1\"\n\n[project.optional-dependencies]\ndev = []\n\n[tool.black]\nline-length = 88\n"
    );
    let text = add_list(bare, &ListId::Group("test".into())).unwrap();
    assert!(
        text.ends_with("line-length = 88\n\n[dependency-groups]\ntest = []\n"),
        "{text}"
    );
    let text = set(bare, &ListId::Main, "attrs", &[req("attrs")]).unwrap();
    assert_eq!(
        text,
        "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\n    \"attrs\",\n]\n\n[tool.black]\nline-length = 88\n"
    );
}

#[test]
fn without_a_project_table_writing_is_refused() {
    let poetry = "[tool.poetry]\nname = \"x\"\n\n[tool.poetry.dependencies]\npython = \"^3.9\"\n";
    let err = set(poetry, &ListId::Main, "attrs", &[req("attrs")]).unwrap_err();
    assert!(err.contains("no [project] table"), "{err}");
    assert!(Manifest::read(poetry).unwrap().lists.is_empty());
    assert!(Manifest::read("[project\n").is_err());
}

#[test]
fn the_last_list_removed_takes_its_table_and_nothing_else() {
    let bare = "[project]\nname = \"x\"\nversion = \"1\"\n\n[tool.black]\nline-length = 88\n";
    for id in [ListId::Extra("dev".into()), ListId::Group("test".into())] {
        let added = add_list(bare, &id).unwrap();
        assert_eq!(remove_list(&added, &id).unwrap(), bare, "{id}");
    }

    let mut text = PEP621.to_string();
    for extra in ["dev", "docs"] {
        let id = ListId::Extra(extra.into());
        for name in names(&text, &id) {
            text = remove(&text, &id, &name).unwrap();
        }
        text = remove_list(&text, &id).unwrap();
    }
    assert_eq!(
        text,
        PEP621.replace(
            "[project.optional-dependencies]\ndev = [\"pytest>=8\", \"ruff\"]\ndocs = [\n  \"sphinx\",\n]\n\n",
            ""
        )
    );
    let mut text = PEP621.to_string();
    for group in ["test", "lint"] {
        let id = ListId::Group(group.into());
        text = set(&text, &id, "pytest", &[]).unwrap();
        text = set(&text, &id, "ruff", &[]).unwrap();
        // What is no package (an include) is removed by hand, as the entry says.
        text = text.replace("test = [{include-group = \"lint\"}]", "test = []");
        text = remove_list(&text, &id).unwrap();
    }
    assert_eq!(
        text,
        PEP621.replace(
            "[dependency-groups]\ntest = [\"pytest\", {include-group = \"lint\"}]\nlint = [\"ruff\"]\n\n",
            ""
        )
    );
}

#[test]
fn an_emptied_table_takes_its_own_comments_and_leaves_the_next_ones() {
    let text = "[project]\nname = \"x\"\n\n# Optional features\n[project.optional-dependencies]\n# for developers\ndev = []\n\n# formatting\n[tool.black]\nline-length = 88\n";
    assert_eq!(
        remove_list(text, &ListId::Extra("dev".into())).unwrap(),
        "[project]\nname = \"x\"\n\n# formatting\n[tool.black]\nline-length = 88\n"
    );
    let text = "[dependency-groups]\ndev = []\n# tools\n[tool.black]\n";
    assert_eq!(
        remove_list(text, &ListId::Group("dev".into())).unwrap(),
        "# tools\n[tool.black]\n"
    );
    let kept = "[dependency-groups]\ndev = []\nlint = [\"ruff\"]\n";
    assert_eq!(
        remove_list(kept, &ListId::Group("dev".into())).unwrap(),
        "[dependency-groups]\nlint = [\"ruff\"]\n",
        "a table with a list left stays"
    );
}

#[test]
fn a_removed_group_takes_its_includes_in_other_groups_with_it() {
    let text = "[project]\nname = \"x\"\nversion = \"1\"\n\n[dependency-groups]\ntest = []\ndev = [\n  \"ruff\",\n  {include-group = \"test\"},\n]\nci = [{ include-group = \"Test\" }, \"tox\"]\n";
    let out = remove_list(text, &ListId::Group("test".into())).unwrap();
    assert_eq!(
        out,
        "[project]\nname = \"x\"\nversion = \"1\"\n\n[dependency-groups]\ndev = [\n  \"ruff\",\n]\nci = [\"tox\"]\n"
    );
    // Another group's include stays.
    let other = "[dependency-groups]\nlint = []\ntest = []\ndev = [{include-group = \"lint\"}]\n";
    assert_eq!(
        remove_list(other, &ListId::Group("test".into())).unwrap(),
        "[dependency-groups]\nlint = []\ndev = [{include-group = \"lint\"}]\n"
    );
}
