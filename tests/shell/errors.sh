# Failures say what failed and where to go instead; probes stay out of the error log.

expect_fails "No such file or directory" "lookup of a typo" -- ls "$HS/sourc"
errors=$(cat "$HS/_errors.md")
expect_contains "$errors" "Did you mean $HS/source/?" "the typo is answered with a suggestion"

before=$(cat "$HS/_errors.md")
expect_fails "No such file" "a dotfile probe" -- ls "$HS/.hidden"
expect_fails "No such file" "a .git probe" -- ls "$HS/source/.git"
expect_fails "No such file" "a file manager's probe" -- stat "$HS/autorun.inf"
expect_eq "$(cat "$HS/_errors.md")" "$before" "probes add nothing to _errors.md"

expect_fails "Read-only file system" "writing a view" -- sh -c "echo hi > '$HS/_entry.md'"
expect_contains "$(cat "$HS/_errors.md")" "is a view" "the rejected write is explained"
expect_fails "Read-only file system" "removing a view" -- rm "$HS/source/_nav.txt"
expect_fails "Read-only file system" "creating at the root" -- sh -c "echo hi > '$HS/notes.txt'"

head -n 3 "$HS/_entry.md" >/dev/null
first=$(head -n 1 "$HS/_entry.md")
expect_contains "$first" "> Last error here" "the root entry starts with the fresh error"

# The same failure again a moment later (an agent retrying, perhaps with `echo >`, which
# hides the refusal) is counted and shown at its latest time, not folded into the first.
expect_fails "Read-only file system" "a write to a view" -- sh -c "echo a > '$HS/source/_nav.txt'"
clock_forward 2  # a second later: not a tool echoing one call (the daemon's test clock)
expect_fails "Read-only file system" "the same write again" -- sh -c "echo a > '$HS/source/_nav.txt'"
expect_contains "$(cat "$HS/_errors.md")" "$HS/source/_nav.txt (×2, first at" "the repeat is counted"
