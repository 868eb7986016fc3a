# rmdir of a full directory says "Directory not empty" (what rm -r and file managers expect)
# and what is inside; an empty one that can never go keeps its own refusal.
T="$HS/tasks"
echo '{"title": "Keep me"}' > "$T/open/keep.json"

expect_fails "Directory not empty" "rmdir tasks/open with a task" -- rmdir "$T/open"
expect_contains "$(cat "$HS/_errors.md")" "$T/open/ is not empty: it holds keep.json" \
  "the refusal names what is inside"
[ -f "$T/open/keep.json" ] || fail "the task is still there"
expect_fails "Directory not empty" "rmdir tasks/" -- rmdir "$T"
expect_fails "Operation not permitted" "rmdir an empty status directory" -- rmdir "$T/blocked"
expect_fails "File exists" "mkdir of an existing status directory" -- mkdir "$T/open"

expect_fails "Directory not empty" "rmdir a package" -- rmdir "$HS/source/ledger"
expect_contains "$(cat "$HS/_errors.md")" "$HS/source/ledger/ is not empty: it holds" \
  "the package's refusal names what is inside"
# A module's members are reached through a link (so `grep -r` does not read every symbol
# twice): rmdir says it is none, and rm of the link says where the module is.
expect_fails "Not a directory" "rmdir of the link to a module's members" -- rmdir "$HS/source/ledger/accounts"
expect_fails "Operation not permitted" "rm of the link to a module's members" -- rm "$HS/source/ledger/accounts"
expect_contains "$(cat "$HS/_errors.md")" "to delete the module, rm $HS/source/ledger/accounts.py" \
  "the refusal says how to delete the module"
expect_fails "Directory not empty" "rmdir a class's members" -- rmdir "$HS/source/ledger/accounts/Account"
[ -f "$PROJECT/src/ledger/accounts.py" ] || fail "the module is still there"
# An `rm -r` the import check stops half-way (the tests import accounts.py) unlinked the
# package's views and the links of its modules: another `rm` of a link is refused as ever,
# not taken for part of that emptying.
if rm -r "$HS/source/ledger" 2> /dev/null; then fail "rm -r of a package the tests import"; fi
[ -f "$PROJECT/src/ledger/accounts.py" ] || fail "the imported module is kept"
expect_fails "Operation not permitted" "rm of a link after a refused rm -r" -- rm "$HS/source/ledger/accounts"


# homespace unmount of a directory with no mount fails and says so, in its own words.
mkdir -p empty-dir
if out=$("$HOMESPACE" unmount "$PWD/empty-dir" 2>&1); then fail "unmount of an empty directory succeeded"; fi
expect_contains "$out" "is not mounted" "unmount of an empty directory"
expect_absent "$out" "Invalid argument" "no raw fusermount3 message"
expect_fails "does not exist" "unmount of a missing directory" -- "$HOMESPACE" unmount "$PWD/missing-dir"
