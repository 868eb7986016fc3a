# /_errors.md stays a list whatever was refused: names with control characters are quoted
# as ls does ($'a\nb.json'), a write with ten thousand problems shows a few and counts the
# rest, a very long name is cut, and the view keeps the newest entries within the budget.
T="$HS/tasks"

# every_line_is_an_entry: each line after the heading is `- ` (an entry), two spaces (its
# lines) or the pruning marker.
every_line_is_an_entry() {
  local odd
  odd=$(tail -n +4 "$HS/_errors.md" | filter -v '^(- |  |\[pruned: )')
  [ -z "$odd" ] || fail "$1: lines that are not part of an entry in _errors.md:
$odd
--- _errors.md:
$(cat "$HS/_errors.md")"
}

within_budget() {
  [ "$(tokens "$HS/_errors.md")" -le 500 ] || fail "$1: _errors.md has $(tokens "$HS/_errors.md") tokens"
}

# 1. A newline in a name.
newline_name="$T/open/$(printf 'a\nb').json"
expect_fails "Operation not permitted" "touch of a task name with a newline" -- touch "$newline_name"
expect_fails "Operation not permitted" "a task name with a tab and an escape" -- \
  sh -c "echo '{\"title\": \"x\"}' > \"\$1\"" _ "$T/open/$(printf 'c\td\033[2Je').json"
errors=$(cat "$HS/_errors.md")
expect_contains "$errors" "\$'" "names with control characters are quoted"
expect_contains "$errors" "a\\nb.json" "the newline is shown as \\n"
expect_contains "$errors" "\\e[2J" "the escape is shown as \\e"
expect_absent "$errors" "$(printf '\033')" "no raw escape character"
expect_absent "$errors" "$(printf '\t')" "no raw tab"
every_line_is_an_entry "after names with control characters"
expect_absent "$(cat "$HS/_entry.md")" "$(printf '\033')" "no raw escape in the root _entry.md"
within_budget "after names with control characters"

# 2. Ten thousand unknown fields in one task.
python3 -c '
import json
fields = {"title": "Many"}
fields.update({f"field{i}": i for i in range(10000)})
print(json.dumps(fields))' > many.json
expect_fails "Invalid argument" "a task with 10,000 unknown fields" -- cp many.json "$T/open/many.json"
errors=$(cat "$HS/_errors.md")
expect_contains "$errors" "tasks/open/many.json" "the refusal is visible"
expect_contains "$errors" "more problems" "with the rest counted"
newest=$(awk '/^- /{n++} n==1' "$HS/_errors.md")
expect_contains "$newest" "many.json" "it is the newest entry"
expect_contains "$newest" "  - +" "its problems are capped with +N more"
expect_absent "$errors" "[pruned: " "the capped entries fit without pruning"
every_line_is_an_entry "after 10,000 problems"
within_budget "after 10,000 problems"

# 3. A small refusal, then a very long name: the small one stays visible.
expect_fails "Read-only file system" "writing a view" -- sh -c "echo hi > '$HS/_entry.md'"
long=$(printf 'l%.0s' $(seq 250))
printf 'not json' > long.json
expect_fails "Operation not permitted" "a 250-character name" -- cp long.json "$T/open/$long.json"
errors=$(cat "$HS/_errors.md")
newest=$(awk '/^- /{n++} n==1' "$HS/_errors.md")
expect_contains "$newest" "l…l" "the long path is cut in the middle"
expect_contains "$newest" "is not a task file name" "the reason still shows beside the long name"
expect_contains "$errors" "is a view" "the earlier refusal is still visible"
expect_contains "$errors" "tasks/open/many.json" "and the one before it"
every_line_is_an_entry "after a long name"
within_budget "after a long name"
