# chmod and chown are applied to the project's own files and refused everywhere else, with a
# message; asking for what a file already shows succeeds. Never a silent no-op.
S="$HS/source"
mode() { stat -c %a "$1"; }

expect_fails "Operation not permitted" "chmod of a view" -- chmod 777 "$HS/_entry.md"
expect_eq "$(mode "$HS/_entry.md")" "400" "the view's mode (the private store's, read-only)"
expect_contains "$(cat "$HS/_errors.md")" "cannot be changed: it is not a file of the project" "why, in _errors.md"

echo '{"title": "Check modes"}' > "$HS/tasks/open/modes.json"
expect_fails "Operation not permitted" "chmod of a task" -- chmod 644 "$HS/tasks/open/modes.json"
expect_fails "Operation not permitted" "chown of a task" -- chown 12345 "$HS/tasks/open/modes.json"
chmod "$(mode "$HS/tasks/open/modes.json")" "$HS/tasks/open/modes.json" || fail "chmod to the mode it has"

# A module is a project file: chmod reaches it, and its symbols show the new modes.
chmod 640 "$S/ledger/journal.py" || fail "chmod of a module"
expect_eq "$(mode "$PROJECT/src/ledger/journal.py")" "640" "the project file's mode"
expect_eq "$(mode "$S/ledger/journal.py")" "640" "the module's mode in the mount"
expect_eq "$(mode "$S/ledger/journal/total.py")" "640" "a symbol shows its module's mode"
# `journal` is a link to the members folder: its own modes are a link's; the folder's,
# through it, follow the module's.
expect_eq "$(mode "$S/ledger/journal/")" "750" "the members folder is enterable where readable"
expect_fails "Operation not permitted" "chmod of a symbol" -- chmod 600 "$S/ledger/journal/total.py"
expect_contains "$(cat "$HS/_errors.md")" "chmod or chown of the module's .py file" "where to go instead"
chown 4321:4321 "$S/ledger/journal.py" || fail "chown of a module (as root)"
expect_eq "$(stat -c %u:%g "$PROJECT/src/ledger/journal.py")" "4321:4321" "the project file's owner"

# Tools that copy modes keep working.
printf '{"title": "Copied with modes"}\n' > copied.json
chmod 644 copied.json
cp -p copied.json "$HS/tasks/open/copied.json" || fail "cp -p of a task"
sed -i 's/Copied/Copied again/' "$HS/tasks/open/copied.json" || fail "sed -i sets its temp file's modes"
expect_contains "$(cat "$HS/tasks/open/copied.json")" "Copied again" "sed -i landed"
