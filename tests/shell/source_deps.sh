# source/deps/ over real-world pyproject.toml shapes this script writes (PEP 621 with
# extras and comments, PEP 735 groups with include-group, Poetry, a hatch project with many
# tool tables, none at all, a broken one). Every change touches only its own bytes: the
# file after it is compared (cmp) with one computed here by hand; adding a requirement and
# removing it gives the file back byte for byte; every refusal leaves it as it was.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

D="$S/deps"
PY="$PROJECT/pyproject.toml"

# put TEXT FILE: write TEXT (printf format) into the mount's FILE with cp, which reports
# a refused close.
put() { printf "$1" > req.txt; cp req.txt "$2"; }

# --- The example project: PEP 621, a comment on a requirement, one extra.
cp "$PY" original.toml
expect_eq "$(ls "$D")" "$(printf '_entry.md\n_nav.txt\ngroups\noptional\npython-dateutil\ntabulate')" "ls deps/"
expect_eq "$(cat "$D/python-dateutil")" "python-dateutil>=2.8" "a requirement as written"
entry=$(cat "$D/_entry.md")
expect_contains "$entry" "2 packages required by [project].dependencies" "the entry's title"
expect_contains "$entry" "\`tabulate\` — tabulate~=0.9" "the entry lists each package"

# Change one: its string changes, its comment and every other byte stay.
put 'python-dateutil>=2.9\n' "$D/python-dateutil"
sed 's/"python-dateutil>=2.8",  # flexible/"python-dateutil>=2.9",  # flexible/' original.toml > expected.toml
same_pyproject expected.toml "a changed requirement"
put 'python-dateutil>=2.8\n' "$D/python-dateutil"
same_pyproject original.toml "changed back"

# Add one, then remove it: the file comes back exactly.
put 'httpx[http2] >= 0.27 ; python_version >= "3.9"\n' "$D/httpx"
replaced original.toml expected.toml $'    "tabulate~=0.9",\n' \
  $'    "tabulate~=0.9",\n    \'httpx[http2] >= 0.27 ; python_version >= "3.9"\',\n'
same_pyproject expected.toml "an added requirement"
expect_eq "$(cat "$D/httpx")" 'httpx[http2] >= 0.27 ; python_version >= "3.9"' "it reads back"
rm "$D/httpx"
same_pyproject original.toml "added then removed"
expect_missing "$D/httpx" "the removed package"

# The same in an extra, made by mkdir and removed by rmdir.
mkdir "$D/optional/gui"
sed 's/^dev = \["pytest>=7"\]$/dev = ["pytest>=7"]\ngui = []/' original.toml > expected.toml
same_pyproject expected.toml "mkdir of an extra"
put 'pyside6\n' "$D/optional/gui/pyside6"
sed 's/^gui = \[\]$/gui = ["pyside6"]/' expected.toml > expected2.toml
same_pyproject expected2.toml "a package in the new extra"
rm "$D/optional/gui/pyside6"
rmdir "$D/optional/gui"
same_pyproject original.toml "the extra added and removed"
refused_pyproject 'pytest>=7\npytest-cov\n' "$D/optional/dev/pytest" "requires pytest-cov, but this file is pytest"

# A package required under two markers is one file of two lines.
put 'numpy>=1.26; python_version < "3.12"\nnumpy>=2; python_version >= "3.12"\n' "$D/numpy"
expect_eq "$(cat "$D/numpy" | wc -l)" "2" "two requirements, two lines"
rm "$D/numpy"
same_pyproject original.toml "both lines removed"

# Refusals: each says why, none changes a byte.
refused_pyproject 'python-dateutil>=\n' "$D/python-dateutil" "not a PEP 508 requirement" "column 16"
refused_pyproject 'requests>=2\n' "$D/python-dateutil" "requires requests, but this file is python-dateutil"
refused_pyproject '\n\n' "$D/tabulate" "it is empty" "rm the file"
refused_pyproject 'tabulate~=0.9\ntabulate>=\n' "$D/tabulate" "line 2"
expect_fails "Invalid argument" "a file not named by the normalised name" -- touch "$D/Python_Dateutil"
expect_contains "$(newest_error)" "use python-dateutil" "the normalised name is suggested"
expect_fails "No such file" "a package in an extra that does not exist" -- cp req.txt "$D/optional/nope/x"
same_pyproject original.toml "after the refusals"

# Every change is an edit in history/, undone like any other.
put 'tabulate>=0.9.0\n' "$D/tabulate"
diff=$(newest_diff)
expect_contains "$(cat "$diff")" "+    \"tabulate>=0.9.0\"," "the diff of the change"
undo_edit "$diff"
same_pyproject original.toml "undone"

# --- PEP 735 groups, with include-group entries that are no package.
cat > "$PY" <<'EOF'
[project]
name = "ledger"
version = "0.3.1"
dependencies = []

[dependency-groups]
test = [
    "pytest>=8",
    { include-group = "lint" },
]
lint = ["ruff>=0.6"]  # the linter
EOF
cp "$PY" groups.toml
expect_eq "$(ls "$D/groups")" "$(printf '_entry.md\n_nav.txt\nlint\ntest')" "the groups"
expect_eq "$(ls "$D/groups/test")" "$(printf '_entry.md\n_nav.txt\npytest')" "a group's packages"
expect_contains "$(cat "$D/groups/test/_entry.md")" '`{ include-group = "lint" }`' "an include is shown, not a file"
put 'pytest-xdist\n' "$D/groups/test/pytest-xdist"
replaced groups.toml expected.toml $'    { include-group = "lint" },\n' \
  $'    { include-group = "lint" },\n    "pytest-xdist",\n'
same_pyproject expected.toml "a package added to a group"
rm "$D/groups/test/pytest-xdist"
same_pyproject groups.toml "and removed"
put 'ruff>=0.7\n' "$D/groups/lint/ruff"
sed 's/^lint = \["ruff>=0.6"\]  # the linter$/lint = ["ruff>=0.7"]  # the linter/' groups.toml > expected.toml
same_pyproject expected.toml "a one-line group changed in place"
put 'attrs\n' "$D/attrs"
sed 's/^dependencies = \[\]$/dependencies = ["attrs"]/' expected.toml > expected2.toml
same_pyproject expected2.toml "the first package of an empty list"

# --- A hatch project with many tool tables and no dependencies key yet.
cat > "$PY" <<'EOF'
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "ledger"
dynamic = ["version"]
description = "Books"

[tool.hatch.version]
path = "src/ledger/__about__.py"

[tool.hatch.envs.default]
dependencies = ["coverage[toml]>=6.5", "pytest"]

[tool.hatch.envs.types.scripts]
check = "mypy --install-types --non-interactive {args:src/ledger tests}"

[tool.coverage.run]
source_pkgs = ["ledger", "tests"]
branch = true
EOF
cp "$PY" hatch.toml
expect_eq "$(ls "$D" | filter -v '^_')" "$(printf 'groups\noptional')" "no dependencies yet"
put 'click>=8\n' "$D/click"
replaced hatch.toml expected.toml $'description = "Books"\n' \
  $'description = "Books"\ndependencies = [\n    "click>=8",\n]\n'
same_pyproject expected.toml "dependencies made in [project], the tool tables untouched"
python3 -c 'import sys, tomllib; d = tomllib.load(open(sys.argv[1], "rb")); assert d["project"]["dependencies"] == ["click>=8"], d; assert d["tool"]["hatch"]["envs"]["default"]["dependencies"] == ["coverage[toml]>=6.5", "pytest"]' "$PY" \
  || fail "the hatch project's TOML"

# --- Poetry: no [project] table. Nothing is writable; the entry says where they are.
cat > "$PY" <<'EOF'
[tool.poetry]
name = "ledger"
version = "0.3.1"

[tool.poetry.dependencies]
python = "^3.10"
requests = "^2.31"
EOF
printf 'tabulate~=0.9\n' > "$PROJECT/requirements-dev.txt"
cp "$PY" poetry.toml
# Changed outside the mount: the watcher tells the kernel, a moment later.
expect_seen "$D/_entry.md" "pyproject.toml has no [project] table" "why deps/ is empty"
entry=$(cat "$D/_entry.md")
expect_contains "$entry" "[tool.poetry.dependencies]" "Poetry's table is named"
expect_contains "$entry" "requirements-dev.txt" "the requirements file is named"
printf 'requests\n' > req.txt
expect_fails "Read-only file system" "a write without [project]" -- cp req.txt "$D/requests"
same_pyproject poetry.toml "the Poetry project after the refused write"
# What can be read without running anything is shown, read-only, under the place's name.
expect_eq "$(ls "$D" | filter -v '^_')" "$(printf 'requirements-dev.txt\ntool.poetry.dependencies')" "the places outside [project]"
expect_eq "$(cat "$D/tool.poetry.dependencies/requests")" 'requests = "^2.31"' "Poetry's line, as written"
expect_eq "$(cat "$D/requirements-dev.txt/tabulate")" 'tabulate~=0.9' "a requirements file's line"
expect_contains "$(cat "$D/tool.poetry.dependencies/_entry.md")" "read-only" "its entry says so"
expect_fails "Read-only file system" "a write in a place outside [project]" -- cp req.txt "$D/tool.poetry.dependencies/requests"
same_pyproject poetry.toml "after the refused write there"
rm "$PROJECT/requirements-dev.txt"

# --- Broken TOML: read and write both say so.
printf '[project\nname = "ledger"\n' > "$PY"
cp "$PY" broken.toml
expect_seen "$D/_entry.md" "does not parse" "a broken pyproject.toml"
same_pyproject broken.toml "reading a broken file"

# --- No pyproject.toml at all.
rm "$PY"
expect_seen "$D/_entry.md" "the project has no pyproject.toml" "no pyproject.toml"
expect_fails "Read-only file system" "a write without pyproject.toml" -- cp req.txt "$D/requests"
expect_missing "$PY" "no pyproject.toml is made behind the user's back"
cp original.toml "$PY"
echo "source_deps.sh: ok"
