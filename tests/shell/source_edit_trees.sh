# Copying a whole package into source/ and taking it out again with the shell's usual tools
# (issue 47, item 2). `cp -r`, `cp -a`, `tar x` and `rsync -a` give exactly the copied files:
# the empty __init__.py mkdir makes never collides with the copied one (cp creates with
# O_EXCL), and a copied __init__.py that imports a module not copied yet is kept. `rm -r`
# of a package holding modules, a subpackage and data removes it in one go, and undoing the
# creation of a package takes its folder away too.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

mkdir -p extras/sub
printf '"""Extras."""\nfrom .helper import twice\n\n__all__ = ["twice"]\n' > extras/__init__.py
printf 'def twice(x):\n    return 2 * x\n' > extras/helper.py
: > extras/sub/__init__.py
printf 'X = 1\n' > extras/sub/data.py
echo 'some notes' > extras/notes.txt
INIT_BEFORE=$(checksum "$PROJECT/src/ledger/__init__.py")

# copied_exactly TOOL: the package on disk is exactly extras/, and the package imports.
copied_exactly() {
  diff -r extras "$PROJECT/src/ledger/extras" > copy.diff || fail "$1: the copy differs: $(cat copy.diff)"
  (cd "$PROJECT/src" && python3 -c 'import ledger.extras; assert ledger.extras.twice(2) == 4') 2> import.err ||
    fail "$1: the copied package does not import: $(tail -n 1 import.err)"
  expect_eq "$(checksum "$PROJECT/src/ledger/__init__.py")" "$INIT_BEFORE" "$1: ledger/__init__.py untouched"
}

# removed_whole TOOL: one `rm -r` takes the whole package away.
removed_whole() {
  rm -r "$S/ledger/extras" 2> rm.err || fail "$1: rm -r of the package failed: $(cat rm.err)"
  expect_missing "$PROJECT/src/ledger/extras" "$1: rm -r removed the folder"
  expect_absent "$(ls "$S/ledger")" "extras" "$1: and the tree no longer shows it"
}

cp -r extras "$S/ledger/" 2> cp.err || fail "cp -r of a package: $(cat cp.err)"
copied_exactly "cp -r"
expect_contains "$(ls "$S/ledger/extras")" "__init__.py" "the copied __init__.py shows"
removed_whole "cp -r"

cp -a extras "$S/ledger/" 2> cp.err || fail "cp -a of a package: $(cat cp.err)"
copied_exactly "cp -a"
removed_whole "cp -a"

tar cf extras.tar extras
(cd "$S/ledger" && tar xf "$OLDPWD/extras.tar") 2> tar.err || fail "tar x of a package: $(cat tar.err)"
copied_exactly "tar x"
removed_whole "tar x"

rsync -a extras "$S/ledger/" 2> rsync.err || fail "rsync -a of a package: $(cat rsync.err)"
copied_exactly "rsync -a"
removed_whole "rsync -a"

# An __init__.py written before the module it imports is kept; the package's view says
# the import fails until the module comes, and no longer once it has.
mkdir "$S/ledger/later" || fail "mkdir of a package"
printf 'from .helper import twice\n' > "$S/ledger/later/__init__.py" ||
  fail "an __init__.py importing a module not written yet"
expect_contains "$(cat "$S/ledger/later/_entry.md")" "No module named 'ledger.later.helper'" \
  "the package's view says what its import lacks"
printf 'def twice(x):\n    return 2 * x\n' > "$S/ledger/later/helper.py" || fail "the module it imports"
expect_absent "$(cat "$S/ledger/later/_entry.md")" "No module named" "the failure is gone once the module is there"
expect_eq "$(cat "$PROJECT/src/ledger/later/__init__.py")" "from .helper import twice" \
  "__init__.py already imported it: nothing added"
removed_whole_later() { rm -r "$S/ledger/later" || fail "rm -r of later/"; }
removed_whole_later
expect_missing "$PROJECT/src/ledger/later" "later/ is gone"

# Undoing the creation of a package removes the folder it made.
mkdir "$S/ledger/undone" || fail "mkdir of a package to undo"
[ -d "$PROJECT/src/ledger/undone" ] || fail "the package's folder is made"
n=$(grep 'create package ledger.undone' "$S/history/_entry.md" | sed -n 's/^| `\([0-9]*\)\.diff`.*/\1/p')
[ -n "$n" ] || fail "the package's creation is in the history: $(cat "$S/history/_entry.md")"
echo "$n" > "$S/history/undo" || fail "undo of the package's creation"
expect_missing "$PROJECT/src/ledger/undone" "the undo removed the folder too"
