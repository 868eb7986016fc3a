# Every way a task write can be wrong. Each is refused as a whole: the tool fails where it
# reports errors at close (cp, tee, Python), nothing changes in the store, and the message —
# every problem of that write at once — is in /_errors.md and on top of the _entry.md of the
# directory written to.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

echo '{"title": "Deploy the ledger", "priority": 1}' > "$T/open/deploy.json"
echo '{"title": "Write the schema", "depends_on": ["deploy"]}' > "$T/open/schema.json"

# reject NAME JSON PROBLEM...: `cp` of JSON to a new tasks/open/NAME.json is refused with
# each PROBLEM reported, and neither that task nor any other appears or changes.
reject() {
  local name=$1 json=$2
  shift 2
  local before
  before=$(snapshot)
  printf '%s' "$json" > "$name.json"
  expect_fails "Invalid argument" "cp of $name.json" -- cp "$name.json" "$T/open/$name.json"
  expect_missing "$T/open/$name.json" "a refused $name.json does not appear"
  expect_eq "$(snapshot)" "$before" "$name.json: the store is unchanged"
  expect_reported open "$T/open/$name.json was not saved" "$@"
}

# Invalid JSON: line and column.
reject syntax '{"title": "Deploy",
  "priority": 1,,
}' "line 2, column 17: key must be a string"
reject trailing-comma '{"title": "Deploy",}' "line 1, column 20: trailing comma"
reject not-an-object '["Deploy"]' "a task file holds one JSON object"
reject deep "{\"title\": \"T\", \"tags\": $(printf '[%.0s' {1..40})$(printf ']%.0s' {1..40})}" \
  "nested deeper than 32 levels"

# Unknown fields, each with the field it probably meant.
reject typos '{"titel": "Deploy", "prio": 1, "tag": ["ops"]}' \
  'unknown field "titel" (did you mean "title"?)' \
  'unknown field "prio" (did you mean "priority"?)' \
  'unknown field "tag" (did you mean "tags"?)'

# Wrong types.
reject types '{"title": 5, "priority": "high", "tags": "ops", "depends_on": "deploy", "description": 3}' \
  '"title" must be a string, got 5' \
  '"priority" must be an integer 0 (highest) to 4, got "high"' \
  '"tags" must be a list of strings such as ["ui"], got "ops"' \
  '"depends_on"' \
  '"description" must be a string, got 3'

# Bad status or priority, bad tags.
reject status '{"title": "Deploy", "status": "closed"}' \
  '"status" must be one of open, in_progress, blocked, done, got "closed"'
reject priority '{"title": "Deploy", "priority": 5}' '"priority" must be an integer 0 (highest) to 4, got 5'
reject tags '{"title": "Deploy", "tags": ["Ops"]}' '"tags"[0]: a tag is 1–32 lowercase letters'
# A status that contradicts the directory.
reject elsewhere '{"title": "Deploy", "status": "done"}' \
  '"status" is "done" but the file is in' "mv $T/open/elsewhere.json $T/done/"

# Missing or empty title.
reject untitled '{"priority": 1}' '"title" is missing: every task needs a title (1–200 characters)'
reject blank '{"title": "  "}' '"title" is blank'
reject long "{\"title\": \"$(printf 'x%.0s' {1..201})\"}" '"title"'

# Unknown dependency.
reject orphan '{"title": "Deploy", "depends_on": ["deploy", "ghost"]}' \
  '"depends_on": no task named "ghost"' "$T/_entry.md"

# Several problems at once: all listed in one report.
reject many '{"titel": "x", "priority": 9, "status": "closed", "tags": "ops", "depends_on": ["ghost"]}' \
  'unknown field "titel" (did you mean "title"?)' \
  '"title" is missing' \
  '"status" must be one of' \
  '"priority" must be an integer 0 (highest) to 4, got 9' \
  '"tags" must be a list of strings' \
  'no task named "ghost"'
expect_eq "$(newest_error | grep -c '^  - ')" 6 "six problems, one report"

# A bad name.
before=$(snapshot)
expect_fails "Operation not permitted" "a bad task name, as for mv (docs/errors.md)" -- cp many.json "$T/open/Deploy Now.json"
expect_reported open '"Deploy Now.json" is not a task file name'
expect_fails "Operation not permitted" "a bad task name by echo >" -- sh -c "echo '{\"title\": \"x\"}' > '$T/open/Deploy_Now.json'"
expect_eq "$(snapshot)" "$before" "a bad name creates nothing"

# Over the size limit of a task file: EFBIG.
head -c 1100000 /dev/zero | tr '\0' ' ' > big.json
expect_fails "File too large" "a 1.1 MB task" -- cp big.json "$T/open/big.json"
expect_reported open "over the limit of 1 MiB"
expect_eq "$(snapshot)" "$before" "a too large task creates nothing"

# Updates are refused the same way and leave the task as it was.
# A cycle: deploy cannot depend on schema, which depends on deploy.
before=$(snapshot)
sed 's/"depends_on": \[\]/"depends_on": ["schema"]/' "$T/open/deploy.json" > deploy.json
expect_fails "Invalid argument" "cp making a cycle" -- cp deploy.json "$T/open/deploy.json"
expect_reported open '"depends_on": "schema" would make a cycle: deploy -> schema -> deploy'
expect_eq "$(snapshot)" "$before" "a cycle is refused"
# A task cannot depend on itself.
expect_fails "Invalid argument" "tee making a self-dependency" -- \
  tee "$T/open/schema.json" <<< '{"title": "Write the schema", "depends_on": ["schema"]}'
expect_reported open '"depends_on": a task cannot depend on itself ("schema")'
expect_eq "$(snapshot)" "$before" "a self-dependency is refused"
# Python reports the refusal at close, after several writes.
expect_fails "Invalid argument" "python writing a bad update" -- python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("{\"title\": \"Deploy the ledger\",")
    f.write(" \"priority\": -1}")
' "$T/open/deploy.json"
expect_reported open '"priority" must be an integer 0 (highest) to 4, got -1'
expect_eq "$(snapshot)" "$before" "python's bad update is refused"
# Through tasks/<slug>.json, the report goes to tasks/_entry.md.
expect_fails "Invalid argument" "cp of a bad update to tasks/deploy.json" -- cp types.json "$T/deploy.json"
expect_contains "$(newest_error)" "$T/deploy.json was not saved" "_errors.md"
expect_contains "$(head -n 3 "$T/_entry.md")" "$T/deploy.json was not saved" "tasks/_entry.md"
expect_eq "$(snapshot)" "$before" "a bad update through tasks/<slug>.json is refused"

# bash's `>` ignores errors at close: the command succeeds, _errors.md says what happened.
echo '{"title": "Deploy", "status": "someday"}' > "$T/open/someday.json"
expect_missing "$T/open/someday.json" "echo > of a bad task creates nothing"
expect_reported open '"status" must be one of open, in_progress, blocked, done, got "someday"'
expect_eq "$(snapshot)" "$before" "echo > of a bad task changes nothing"

# Views and fixed directories cannot be written.
expect_fails "Read-only file system" "writing into ready/" -- cp deploy.json "$T/ready/x.json"
expect_fails "Read-only file system" "writing a task through ready/" -- \
  sh -c "echo '{\"title\": \"x\"}' > '$T/ready/deploy.json'"
expect_fails "Operation not permitted" "mkdir in tasks/" -- mkdir "$T/someday"
expect_eq "$(snapshot)" "$before" "nothing changed"

# A name that is neither a task file nor a tool's temp file is refused at once, not kept
# in memory where it would be lost at unmount.
expect_fails "Operation not permitted" "a task file without .json" -- sh -c "echo '{\"title\": \"x\"}' > '$HS/tasks/open/fix-login'"
expect_missing "$HS/tasks/open/fix-login" "fix-login (no .json) is not kept"
expect_contains "$(cat "$HS/_errors.md")" "fix-login" "the refusal is logged"
