# Every file of the project is at its path under source/ (issue 45): root files such as the
# README and a CHANGELOG, dotfolders such as .github/, data files, each exact; written with
# sed -i, cp, mv and echo through the same atomic change as a module (mode kept, one
# history entry each, undo); created with mkdir and cp, removed with rm. What is hidden
# follows .gitignore, also after the mount changes it. A TOML file that parses is never
# left unparseable.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

# lists DIR NAME: `ls -A DIR` has a line NAME (no pipe: grep -q ending first would fail it).
lists() { [[ $'\n'$(ls -A "$1")$'\n' == *$'\n'"$2"$'\n'* ]]; }

# Reading: the root's files byte for byte, dotfiles listed, the project's caches not.
cmp -s "$S/README.md" "$PROJECT/README.md" || fail "source/README.md is not the README's bytes"
cmp -s "$S/pyproject.toml" "$PROJECT/pyproject.toml" || fail "pyproject.toml is not exact"
for name in README.md pyproject.toml .gitignore ledger; do
  lists "$S" "$name" || fail "$name is not listed in source/: $(ls -A "$S")"
done
for name in .homespace src; do
  lists "$S" "$name" && fail "$name is listed in source/: $(ls -A "$S")"
done

# A CHANGELOG made outside the mount shows, and sed -i edits it in place, mode kept.
printf 'Changes\n=======\n\n1.0\n---\n- First.\n' > "$PROJECT/CHANGELOG"
chmod 640 "$PROJECT/CHANGELOG"
poll_until 5 0.1 test -e "$S/CHANGELOG" || fail "a CHANGELOG made on disk does not show"
before=$(edits)
sed -i '4i 1.1\n---\n- Added `max_len`.\n' "$S/CHANGELOG" || fail "sed -i of source/CHANGELOG"
expect_eq "$(sed -n 4,6p "$PROJECT/CHANGELOG")" $'1.1\n---\n- Added `max_len`.' "the CHANGELOG on disk"
expect_eq "$(stat -c %a "$PROJECT/CHANGELOG")" "640" "the CHANGELOG's mode"
expect_eq "$(edits)" "$((before + 1))" "one history entry for the sed -i"
changelog_edit=$(last_edit)
expect_contains "$(cat "$S/history/$changelog_edit.diff")" "+- Added \`max_len\`." "the entry's diff"
expect_no_temp_files "$S"

# cp onto a workflow in a dotfolder made with mkdir -p: exact bytes, a new file in history.
mkdir -p "$S/.github/workflows" || fail "mkdir -p source/.github/workflows"
[ -d "$PROJECT/.github/workflows" ] || fail "the folders were not made on disk"
[ -e "$PROJECT/src/.github" ] && fail ".github went into src/, not the project's top"
printf 'name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n' > ci.yml
cp ci.yml "$S/.github/workflows/ci.yml" || fail "cp onto .github/workflows/ci.yml"
cmp -s ci.yml "$PROJECT/.github/workflows/ci.yml" || fail "the workflow is not byte for byte"
expect_contains "$(grep 'ci.yml' "$S/history/_entry.md")" ".github/workflows/ci.yml" "its history entry"
lists "$S" .github || fail ".github is not listed"

# Binary data lands byte for byte.
head -c 3000 /dev/urandom > blob.bin
cp blob.bin "$S/ledger/blob.bin" || fail "cp of binary data"
cmp -s blob.bin "$PROJECT/src/ledger/blob.bin" || fail "binary data is not byte for byte"

# rm of a data file, then undo: back with its bytes.
rm "$S/ledger/blob.bin" || fail "rm of a data file"
[ -e "$PROJECT/src/ledger/blob.bin" ] && fail "rm left the file on disk"
removal=$(last_edit)
echo "$removal" > "$S/history/undo" || fail "undo of the rm"
cmp -s blob.bin "$PROJECT/src/ledger/blob.bin" || fail "the undo did not bring the bytes back"

# Undo of the sed -i: the CHANGELOG as it was.
echo "$changelog_edit" > "$S/history/undo" || fail "undo of the CHANGELOG edit"
expect_eq "$(cat "$PROJECT/CHANGELOG")" $'Changes\n=======\n\n1.0\n---\n- First.' "the CHANGELOG after undo"

# mv renames a file on disk, as one entry that undo takes back.
mv "$S/CHANGELOG" "$S/CHANGELOG.md" || fail "mv CHANGELOG CHANGELOG.md"
[ -e "$PROJECT/CHANGELOG" ] && fail "the old name is still on disk"
expect_contains "$(cat "$PROJECT/CHANGELOG.md")" "- First." "the moved file"
echo "$(last_edit)" > "$S/history/undo" || fail "undo of the mv"
[ -e "$PROJECT/CHANGELOG" ] && [ ! -e "$PROJECT/CHANGELOG.md" ] || fail "the undo did not move it back"

# echo > a new root file; a TOML file that parses is never left broken.
echo "Notes." > "$S/NOTES.txt" || fail "a new file at the top"
expect_eq "$(cat "$PROJECT/NOTES.txt")" "Notes." "a new root file lands at the project's top"
cp "$PROJECT/pyproject.toml" before.toml
echo '[project' > broken.toml
expect_fails "Invalid argument" "a broken pyproject.toml" -- cp broken.toml "$S/pyproject.toml"
cmp -s before.toml "$PROJECT/pyproject.toml" || fail "the refused write changed pyproject.toml"
expect_contains "$(newest_error)" "would not be valid TOML" "why the write was refused"
echo '[project' > "$S/broken.txt"
expect_fails "Operation not permitted" "mv of broken TOML onto pyproject.toml" -- mv "$S/broken.txt" "$S/pyproject.toml"
cmp -s before.toml "$PROJECT/pyproject.toml" || fail "the refused mv changed pyproject.toml"
rm "$S/broken.txt"

# What .gitignore hides goes from sight when the mount changes it, and comes back.
mkdir -p "$PROJECT/scratch" && echo x > "$PROJECT/scratch/x.txt"
poll_until 5 0.1 test -e "$S/scratch/x.txt" || fail "a new folder does not show"
cp "$S/.gitignore" gitignore.before
echo "scratch/" >> "$S/.gitignore" || fail "appending to .gitignore"
lists "$S" scratch && fail "scratch/ is still listed once .gitignore hides it"
[ -e "$S/scratch/x.txt" ] && fail "scratch/x.txt is still reachable"
cp gitignore.before "$S/.gitignore"
lists "$S" scratch || fail "scratch/ is not back after .gitignore was restored"

# A folder's own .gitignore hides too (docs/.gitignore with `_build/`), written outside the
# mount (seen by the watcher) or through it.
mkdir -p "$PROJECT/scratch/_build" && echo "<p/>" > "$PROJECT/scratch/_build/index.html"
echo "x" > "$PROJECT/scratch/run.log"
poll_until 5 0.1 test -e "$S/scratch/_build/index.html" || fail "scratch/_build/ shows at first"
printf '_build/\n' > "$PROJECT/scratch/.gitignore"
poll_until 5 0.1 sh -c "! ls -A '$S/scratch' | grep -qx _build" ||
  fail "scratch/_build/ is still listed once scratch/.gitignore hides it: $(ls -A "$S/scratch")"
[ -e "$S/scratch/_build/index.html" ] && fail "scratch/_build/index.html is still reachable"
lists "$S/scratch" x.txt || fail "what scratch/.gitignore does not name still shows"
printf '_build/\n*.log\n' > "$S/scratch/.gitignore" || fail "writing scratch/.gitignore"
lists "$S/scratch" run.log && fail "run.log is still listed once scratch/.gitignore names it"
rm -r "$PROJECT/scratch"
true
