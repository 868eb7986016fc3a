# Creating tasks with the usual tools: a new <slug>.json in tasks/ or in a status directory
# is a new task. The status comes from the directory (or the JSON, in tasks/ itself); the
# store adds id, created and updated. A task file reads back as exact JSON: stat's size is
# what a read returns, and writing back what was read changes nothing.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

expect_contains "$(cat "$T/_entry.md")" "no tasks yet" "a fresh store"

# echo > into a status directory: the status is the directory's.
echo '{"title": "Fix the login form", "priority": 1, "tags": ["auth", "ui"]}' > "$T/open/fix-login.json"
task=$(cat "$T/open/fix-login.json")
expect_contains "$task" '"title": "Fix the login form"' "echo > created the task"
expect_contains "$task" '"status": "open"' "status from the directory"
expect_contains "$task" '"priority": 1' "the priority as written"
expect_contains "$task" '"id": 1' "the store numbers tasks"
expect_contains "$task" '"created": "20' "created is set"
expect_contains "$task" '"depends_on": []' "missing fields get their defaults"

# cat > with a here-document, into in_progress/.
cat > "$T/in_progress/write-docs.json" <<'EOF'
{
  "title": "Write the user guide",
  "description": "Cover install, first mount and the tasks/ directory.",
  "tags": ["docs"]
}
EOF
expect_contains "$(cat "$T/in_progress/write-docs.json")" '"status": "in_progress"' "cat > in in_progress/"
expect_contains "$(cat "$T/in_progress/write-docs.json")" '"priority": 2' "priority defaults to 2"

# printf > without a trailing newline, into blocked/.
printf '{"title": "Migrate the schema", "depends_on": ["fix-login"]}' > "$T/blocked/migrate-schema.json"
expect_contains "$(cat "$T/blocked/migrate-schema.json")" '"fix-login"' "printf > with a dependency"

# tee into tasks/ itself: the JSON says the status, default open.
echo '{"title": "Release 1.0", "status": "done"}' | tee "$T/release.json" > /dev/null || fail "tee"
[ -f "$T/done/release.json" ] || fail "tee into tasks/ with status done lands in done/"
echo '{"title": "Tidy the changelog"}' | tee "$T/changelog.json" > /dev/null || fail "tee"
[ -f "$T/open/changelog.json" ] || fail "a task written to tasks/ without a status is open"
# tasks/<slug>.json reaches a task in any status, but is not listed.
expect_eq "$(cat "$T/release.json")" "$(cat "$T/done/release.json")" "tasks/<slug>.json"
expect_absent "$(ls "$T")" "release.json" "ls tasks/"

# cp of a file from elsewhere, into done/.
printf '{"title": "Set up CI", "priority": 0}\n' > ci.json
cp ci.json "$T/done/setup-ci.json" || fail "cp"
expect_contains "$(cat "$T/done/setup-ci.json")" '"status": "done"' "cp into done/"

# Python's open(p, "w") with several writes: saved once, at close.
python3 - "$T/open/py-task.json" <<'EOF' || fail "python create"
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"title": "Port the importer",')
    f.write(' "tags": ["import"],')
    f.write(' "priority": 3}')
EOF
expect_contains "$(cat "$T/open/py-task.json")" '"title": "Port the importer"' "python wrote in three chunks"

# A copy of a task file is a new task: id, created and updated are the store's, not the copy's.
cp "$T/open/fix-login.json" "$T/open/fix-signup.json" || fail "cp of a task file"
[ "$(field "$T/open/fix-signup.json" id)" != 1 ] || fail "the copy has its own id"
expect_eq "$(field "$T/open/fix-login.json" id)" 1 "the original keeps its id"

# The listings show what was made.
expect_eq "$(ls "$T/open" | grep json | tr '\n' ' ')" "changelog.json fix-login.json fix-signup.json py-task.json " "ls tasks/open"
expect_eq "$(ls "$T/done" | grep json | tr '\n' ' ')" "release.json setup-ci.json " "ls tasks/done"
expect_contains "$(cat "$T/_entry.md")" "6 outstanding (4 open, 1 in progress, 1 blocked), 2 done" "counts"

# stat's size is what a read returns, in every directory a task file shows up in.
while IFS= read -r file; do
  size=$(stat -c %s "$file")
  got=$(wc -c < "$file")
  expect_eq "$got" "$size" "$file: stat size vs read size"
done < <(find "$T" -name '*.json')

# Reading a task and writing back the same bytes changes nothing, not even `updated`.
backdate # a change would now show as a new `updated` time
before=$(snapshot)
cat "$T/open/fix-login.json" > fix-login.json
cp fix-login.json "$T/open/fix-login.json" || fail "cp back"
cat "$T/in_progress/write-docs.json" > write-docs.json
tee "$T/in_progress/write-docs.json" < write-docs.json > /dev/null || fail "tee back"
python3 -c 'import sys; p = sys.argv[1]; d = open(p).read(); open(p, "w").write(d)' "$T/blocked/migrate-schema.json" \
  || fail "python read and write back"
expect_eq "$(snapshot)" "$before" "writing back what was read"

# None of this was an error: no "the file is empty" from a shell's early close, no "Did you
# mean" from the lookups that precede a create.
expect_absent "$(cat "$HS/_errors.md")" "tasks/" "_errors.md after successful writes"
expect_absent "$(head -n 1 "$T/open/_entry.md")" "Last error here" "tasks/open/_entry.md"
