# Run as another user on a mount made with --allow-other (without --allow-other-write) over
# a project and store that are world-writable: the kernel lets the change through, so
# homespace itself must refuse it, and say why.
S="$HS/source"
expect_fails "Permission denied" "tee over a function" -- sh -c "echo 'def total(): return 0' | tee '$S/ledger/journal/total.py'"
expect_fails "Permission denied" "rm of a method" -- rm "$S/ledger/journal/Journal/post.py"
pwn_module /tmp/pwn-$$.py "$MARKER"
expect_fails "Permission denied" "cp of a new module" -- cp /tmp/pwn-$$.py "$S/ledger/pwn.py"
rm -f /tmp/pwn-$$.py
expect_fails "Permission denied" "a new task" -- sh -c "echo '{\"title\": \"x\"}' > '$HS/tasks/open/x.json'"
expect_fails "Permission denied" "mkdir" -- mkdir "$HS/tasks/later"
expect_fails "Permission denied" "truncate" -- truncate -s 0 "$S/ledger/journal.py"
expect_contains "$(cat "$HS/_errors.md")" "only the mount's owner" "_errors.md says who may change"
expect_contains "$(cat "$HS/_errors.md")" "--allow-other-write" "_errors.md says how to allow it"
expect_missing "$MARKER" "the project's code never runs for another user"
