use super::*;

const HATCH: &str = r#"# Project metadata and every tool's settings.
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "ledger"
dynamic = ["version"]
urls.Home = "https://example.com"  # dotted: part of [project]

# Ruff, the linter
[tool.ruff]
line-length = 100
doc = """
# not a comment: inside a string
"""

[tool.ruff.lint]
select = ["E", "F"]
# ignore the long lines
ignore = ["E501"]

[[tool.mypy.overrides]]
module = "a.*"
strict = true

[[tool.mypy.overrides]]
module = "b.*"

[tool."weird.name"]
x = 1
"#;

fn names(text: &str) -> Vec<String> {
    tables(text).unwrap().into_iter().map(|t| t.name).collect()
}

fn table<'t>(text: &'t str, name: &str) -> &'t str {
    let t = tables(text)
        .unwrap()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap();
    &text[t.span]
}

#[test]
fn every_table_with_a_header_is_a_document_of_its_exact_text() {
    assert_eq!(
        names(HATCH),
        [
            "build-system",
            "project",
            "tool.ruff",
            "tool.ruff.lint",
            "tool.mypy.overrides@1",
            "tool.mypy.overrides@2",
            "tool.\"weird.name\""
        ]
    );
    assert_eq!(
        table(HATCH, "project"),
        "[project]\nname = \"ledger\"\ndynamic = [\"version\"]\nurls.Home = \"https://example.com\"  # dotted: part of [project]\n"
    );
    assert_eq!(
        table(HATCH, "tool.ruff"),
        "[tool.ruff]\nline-length = 100\ndoc = \"\"\"\n# not a comment: inside a string\n\"\"\"\n",
        "a `#` line inside a string is the table's; the comment above the next header is not"
    );
    assert_eq!(
        table(HATCH, "tool.ruff.lint"),
        "[tool.ruff.lint]\nselect = [\"E\", \"F\"]\n# ignore the long lines\nignore = [\"E501\"]\n"
    );
    assert_eq!(
        table(HATCH, "tool.mypy.overrides@2"),
        "[[tool.mypy.overrides]]\nmodule = \"b.*\"\n"
    );
}

#[test]
fn writing_a_table_replaces_only_its_text() {
    let new = "[tool.ruff.lint]\nselect = [\"E\", \"F\", \"I\"]\n";
    let written = write(HATCH, "tool.ruff.lint", new).unwrap();
    assert_eq!(
        written,
        HATCH.replace(
            "select = [\"E\", \"F\"]\n# ignore the long lines\nignore = [\"E501\"]\n",
            "select = [\"E\", \"F\", \"I\"]\n"
        )
    );
    // Reading and writing back each table changes nothing.
    for name in names(HATCH) {
        let own = table(HATCH, &name).to_string();
        assert_eq!(write(HATCH, &name, &own).unwrap(), HATCH, "{name}");
    }
}

#[test]
fn a_new_table_is_added_at_the_end_and_removing_it_gives_the_file_back() {
    let black = "[tool.black]\nline-length = 88\n";
    let added = write(HATCH, "tool.black", black).unwrap();
    assert_eq!(added, format!("{HATCH}\n{black}"));
    assert_eq!(remove(&added, "tool.black").unwrap(), HATCH);
    let third = "[[tool.mypy.overrides]]\nmodule = \"c.*\"\n";
    let added = write(HATCH, "tool.mypy.overrides@3", third).unwrap();
    assert_eq!(remove(&added, "tool.mypy.overrides@3").unwrap(), HATCH);
    let err = write(HATCH, "tool.mypy.overrides@5", third).unwrap_err();
    assert!(err.contains("tool.mypy.overrides@3.toml"), "{err}");
}

#[test]
fn removing_a_table_in_the_middle_takes_the_blank_lines_after_it() {
    let removed = remove(HATCH, "tool.ruff.lint").unwrap();
    assert_eq!(
        removed,
        HATCH.replace(
            "[tool.ruff.lint]\nselect = [\"E\", \"F\"]\n# ignore the long lines\nignore = [\"E501\"]\n\n",
            ""
        )
    );
}

#[test]
fn bad_writes_say_what_and_where_in_the_written_text() {
    let err = write(HATCH, "tool.ruff", "[tool.ruff]\nline-length = \n").unwrap_err();
    assert!(err.starts_with("line 2, column 15"), "{err}");
    let err = write(HATCH, "tool.ruff", "[tool.black]\nx = 1\n").unwrap_err();
    assert!(
        err.contains("its header is [tool.black]") && err.contains("tool.black.toml"),
        "{err}"
    );
    let err = write(HATCH, "tool.ruff", "line-length = 1\n").unwrap_err();
    assert!(
        err.contains("no table header: start it with [tool.ruff]"),
        "{err}"
    );
    let err = write(
        HATCH,
        "tool.ruff",
        "[tool.ruff]\nx = 1\n[tool.ruff.format]\ny = 2\n",
    )
    .unwrap_err();
    assert!(err.contains("2 tables"), "{err}");
    let err = write(HATCH, "tool.ruff", "x = 1\n[tool.ruff]\n").unwrap_err();
    assert!(err.contains("values before [tool.ruff]"), "{err}");
    // Valid alone, but [tool.ruff.lint] exists as its own table already.
    let err = write(HATCH, "tool.ruff", "[tool.ruff]\nlint.select = [\"E\"]\n").unwrap_err();
    assert!(err.contains("would not be valid TOML"), "{err}");
}
