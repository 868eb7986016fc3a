# Run as another user on a mount made with --allow-other over a project the owner keeps at
# the usual modes (files 644, folders 755, one module 600): reading goes as far as the
# modes allow, and every change is refused by the kernel before it reaches homespace.
# $MARKER is the file pwn.py would create if the project's code ever ran for this user.
S="$HS/source"

# Readable as on disk.
cat "$S/ledger/journal.py" > /dev/null || fail "a 644 module is readable by others"
cat "$S/ledger/journal/Journal.py" > /dev/null || fail "its symbols are readable too"
cat "$HS/_entry.md" > /dev/null || fail "the dashboard is readable"
cat "$HS/tasks/_entry.md" > /dev/null || fail "tasks follow the store's modes (644)"
ls "$S/ledger" > /dev/null || fail "a 755 package lists"

# The 600 module, its symbols and its members directory are the owner's alone.
expect_fails "Permission denied" "cat of a 600 module" -- cat "$S/ledger/accounts.py"
expect_fails "Permission denied" "cat of a symbol of a 600 module" -- cat "$S/ledger/accounts/Account/debit.py"
expect_fails "Permission denied" "ls of a 600 module's symbols" -- ls "$S/ledger/accounts/Account"
# Views derived from it say nothing of its content: its package's view names it only, and
# the diff of the owner's edit to it (history/1.diff) is as private as the file.
package=$(cat "$S/ledger/_entry.md")
expect_absent "$package" "named buckets" "the 600 module's docstring in its package's view"
expect_contains "$package" "more private than its folder" "the package's view says why"
cat "$S/ledger/journal/_entry.md" > /dev/null || fail "a 644 module's view is readable"
expect_fails "Permission denied" "the diff of an edit to a 600 module" -- cat "$S/history/1.diff"
expect_contains "$(ls "$S/history")" "1.diff" "its name still lists"

# Test runs quote whatever the tests touched: the owner's alone, as search is.
expect_fails "Permission denied" "a run's output" -- cat "$S/tests/runs/latest/output.txt"
expect_fails "Permission denied" "a run's view" -- cat "$S/tests/runs/latest/_entry.md"

# Search quotes lines of every file: the owner's alone.
expect_fails "Permission denied" "search" -- cat "$HS/search/debit"

# No change of any kind.
expect_fails "Permission denied" "tee over a function" -- sh -c "echo 'def total(): return 0' | tee '$S/ledger/journal/total.py'"
expect_fails "Permission denied" "rm of a method" -- rm "$S/ledger/journal/Journal/post.py"
pwn_module /tmp/pwn-$$.py "$MARKER"
expect_fails "Permission denied" "cp of a new module" -- cp /tmp/pwn-$$.py "$S/ledger/pwn.py"
rm -f /tmp/pwn-$$.py
expect_fails "Permission denied" "a new task" -- sh -c "echo '{\"title\": \"x\"}' > '$HS/tasks/open/x.json'"
expect_fails "Permission denied" "settings" -- sh -c "echo 'x' > '$S/meta/settings.toml'"
expect_missing "$MARKER" "the project's code never runs for another user"
