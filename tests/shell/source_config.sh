# source/config/ over the example project's pyproject.toml and a hatch-style one with many
# tool tables and an array of tables: one file per table with its exact text; a write
# replaces that table in place (compared with cmp against a file computed here), a new file
# adds a table and rm removes it (byte for byte back); a refused write (bad TOML, another
# header, two tables) says where and changes nothing.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$S/config"
PY="$PROJECT/pyproject.toml"

cp "$PY" original.toml
expect_eq "$(ls "$C" | filter -v '^_')" "$(printf '%s\n' build-system.toml project.optional-dependencies.toml project.toml tool.pytest.ini_options.toml tool.ruff.toml tool.setuptools.package-data.toml tool.setuptools.packages.find.toml)" "one file per table"
expect_eq "$(cat "$C/tool.ruff.toml")" "$(printf '[tool.ruff]\nline-length = 88  # match black'"'"'s default\ntarget-version = "py310"')" "a table's exact text, comments kept"
expect_contains "$(cat "$C/_entry.md")" "pyproject.toml in 7 tables" "the entry"

# sed -i on one table: only that line changes.
sed -i 's/line-length = 88/line-length = 100/' "$C/tool.ruff.toml"
sed 's/^line-length = 88  # match/line-length = 100  # match/' original.toml > expected.toml
same_pyproject expected.toml "sed -i of tool.ruff.toml"
cp original.toml "$PY"

# A table rewritten whole, with a comment inside.
printf '[tool.pytest.ini_options]\n# quiet\naddopts = "-q"\n' > table.toml
cp table.toml "$C/tool.pytest.ini_options.toml"
replaced original.toml expected.toml \
  $'[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\naddopts = "-ra"\n' \
  $'[tool.pytest.ini_options]\n# quiet\naddopts = "-q"\n'
same_pyproject expected.toml "a table replaced in place"
cp original.toml "$PY"

# A new table, then rm: the file comes back.
printf '[tool.black]\nline-length = 88\n' > "$C/tool.black.toml"
{ cat original.toml; printf '\n[tool.black]\nline-length = 88\n'; } > expected.toml
same_pyproject expected.toml "a new table at the end"
rm "$C/tool.black.toml"
same_pyproject original.toml "added then removed"

# Refusals.
refused_pyproject '[tool.ruff]\nline-length = \n' "$C/tool.ruff.toml" "line 2, column 15"
refused_pyproject '[tool.black]\nx = 1\n' "$C/tool.ruff.toml" "its header is [tool.black]" "tool.black.toml"
refused_pyproject '[tool.ruff]\nx = 1\n[tool.ruff.lint]\ny = 1\n' "$C/tool.ruff.toml" "2 tables"
refused_pyproject 'line-length = 1\n' "$C/tool.ruff.toml" "start it with [tool.ruff]"
refused_pyproject '[project.optional-dependencies]\ndev = ["pytest>=7"]\n' "$C/project.toml" "its header is [project.optional-dependencies]"
same_pyproject original.toml "after the refusals"

# The edit is in history/ and undone like any other.
sed -i 's/py310/py311/' "$C/tool.ruff.toml"
diff=$(newest_diff)
expect_contains "$(cat "$diff")" '+target-version = "py311"' "the diff"
undo_edit "$diff"
same_pyproject original.toml "undone"

# A hatch project: nested tool tables, an array of tables, comments between tables.
cat > "$PY" <<'TOML'
[project]
name = "ledger"
version = "0.3.1"

# Type checking
[tool.mypy]
strict = true

[[tool.mypy.overrides]]
module = "tests.*"
disallow_untyped_defs = false

[[tool.mypy.overrides]]
module = "vendor.*"
ignore_errors = true

[tool.hatch.envs.default.scripts]
test = "pytest {args}"
TOML
cp "$PY" hatch.toml
expect_eq "$(cat "$C/tool.mypy.overrides@2.toml")" "$(printf '[[tool.mypy.overrides]]\nmodule = "vendor.*"\nignore_errors = true')" "the second table of an array"
printf '[[tool.mypy.overrides]]\nmodule = "vendor.*"\nignore_missing_imports = true\n' > table.toml
cp table.toml "$C/tool.mypy.overrides@2.toml"
sed 's/^ignore_errors = true$/ignore_missing_imports = true/' hatch.toml > expected.toml
same_pyproject expected.toml "one table of an array replaced"
printf '[[tool.mypy.overrides]]\nmodule = "docs.*"\n' > table.toml
cp table.toml "$C/tool.mypy.overrides@3.toml"
rm "$C/tool.mypy.overrides@3.toml"
same_pyproject expected.toml "a third table of the array added and removed"
printf '[tool.hatch.envs.default.scripts]\ntest = "pytest -x {args}"\n' > table.toml
cp table.toml "$C/tool.hatch.envs.default.scripts.toml"
sed 's/^test = "pytest {args}"$/test = "pytest -x {args}"/' expected.toml > expected2.toml
same_pyproject expected2.toml "a deeply nested table, last in the file"
expect_eq "$(cat "$C/tool.mypy.toml")" "$(printf '[tool.mypy]\nstrict = true')" "the comment above the next header is not the table's"
# A Poetry project, with PEP 735 groups beside it: its tool tables are documents like any.
cat > "$PY" <<'TOML'
[tool.poetry]
name = "ledger"
version = "0.3.1"
description = "Books"  # short

[tool.poetry.dependencies]
python = "^3.10"
requests = { version = "^2.31", extras = ["socks"] }

[tool.poetry.group.dev.dependencies]
pytest = "^8"

[dependency-groups]
lint = ["ruff>=0.6"]

[build-system]
requires = ["poetry-core"]
build-backend = "poetry.core.masonry.api"
TOML
cp "$PY" poetry.toml
expect_eq "$(ls "$C" | filter -v '^_')" "$(printf '%s\n' build-system.toml dependency-groups.toml tool.poetry.dependencies.toml tool.poetry.group.dev.dependencies.toml tool.poetry.toml)" "Poetry's tables"
sed -i 's/^pytest = "^8"$/pytest = "^8.2"/' "$C/tool.poetry.group.dev.dependencies.toml"
sed 's/^pytest = "^8"$/pytest = "^8.2"/' poetry.toml > expected.toml
same_pyproject expected.toml "a Poetry group changed"
printf '[dependency-groups]\nlint = ["ruff>=0.7"]\ntest = ["pytest"]\n' > table.toml
cp table.toml "$C/dependency-groups.toml"
sed 's/^lint = \["ruff>=0.6"\]$/lint = ["ruff>=0.7"]\ntest = ["pytest"]/' expected.toml > expected2.toml
same_pyproject expected2.toml "the PEP 735 groups table rewritten"
refused_pyproject '[tool.poetry]\nname = "ledger"\nversion = 0.3.1\n' "$C/tool.poetry.toml" "line 3, column"
same_pyproject expected2.toml "after the refused write"
cp original.toml "$PY"
echo "source_config.sh: ok"
