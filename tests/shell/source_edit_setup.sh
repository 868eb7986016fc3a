# setup.py is edited like any Python file (its syntax checked) but never imported to check
# it: importing it runs setuptools' build, which exits without a command, so every edit was
# judged against a failure and its view said "Import fails" (issue 47, item 5).
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

printf 'from setuptools import setup\n\nsetup(name="ledger", version="0.1.0")\n' > "$PROJECT/setup.py"
poll_until 10 0.1 test -e "$S/setup.py" || fail "setup.py shows under source/"
sed -i 's/version="0.1.0"/version="0.2.0"/' "$S/setup.py" || fail "sed -i of setup.py"
expect_contains "$(cat "$PROJECT/setup.py")" 'version="0.2.0"' "the edit reached setup.py"
expect_absent "$(cat "$S/setup/_entry.md")" "Import fails" "its view says nothing failed to import"
printf 'setup(\n' > bad_setup.py
expect_fails "Invalid argument" "a setup.py that is not Python" -- cp bad_setup.py "$S/setup.py"
expect_contains "$(cat "$PROJECT/setup.py")" 'version="0.2.0"' "a refused write changes nothing"

# A project whose metadata is in setup.cfg is told to edit its dependencies there, never
# to add a [project] table (setuptools refuses to build with both), and deps/ is read-only
# saying so (issue 47, item 5).
cp "$PROJECT/pyproject.toml" pyproject_before.toml
printf '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n' > "$PROJECT/pyproject.toml"
printf '[metadata]\nname = ledger\nversion = 3.2.0\n\n[options]\ninstall_requires =\n    python-dateutil>=2.8\n' > "$PROJECT/setup.cfg"
poll_until 10 0.1 grep -q "metadata is in setup.cfg" "$S/deps/_entry.md" ||
  fail "deps/_entry.md says where the metadata is: $(cat "$S/deps/_entry.md")"
deps=$(cat "$S/deps/_entry.md")
expect_contains "$deps" "install_requires" "it names the key to edit"
expect_absent "$deps" 'version = "0.1.0"' "it never advises a [project] table with a made-up version"
expect_fails "Read-only file system" "adding a dependency in deps/" -- sh -c "echo 'requests' > '$S/deps/requests'"
expect_contains "$(newest_error)" "metadata is in setup.cfg" "the refusal says where to edit instead"
cp pyproject_before.toml "$PROJECT/pyproject.toml"
rm "$PROJECT/setup.cfg"

# A script in a folder that is no package (scripts/, docs/) is checked by the parser, never
# imported: importing it would run it (issue 47, item 5).
mkdir -p "$PROJECT/scripts"
printf 'open("%s/ran.txt", "w").write("ran")\n' "$PROJECT" > "$PROJECT/scripts/release.py"
poll_until 10 0.1 test -e "$S/scripts/release.py" || fail "scripts/ shows under source/"
printf 'open("%s/ran.txt", "w").write("ran again")\n' "$PROJECT" > release.py
cp release.py "$S/scripts/release.py" || fail "an edit of a script"
expect_file "$PROJECT/scripts/release.py" release.py "the edit landed"
expect_missing "$PROJECT/ran.txt" "the script was not run by an import check"
expect_absent "$(cat "$HS/_errors.md" 2>/dev/null)" "scripts.release" "and nothing failed"
printf 'open(\n' > broken_script.py
expect_fails "Invalid argument" "a script that is not Python" -- cp broken_script.py "$S/scripts/release.py"
