# search/ ranks instead of refusing: several words rank lines and tasks by how many of them
# they hold (every word first), an area answers 0 only when no word is there; source search
# is smart-case and covers the project's text files (pyproject.toml, README) with a path to
# read; results page with `page:N`, each full page linking the next; tasks explain a filter
# they do not know.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

# No line holds all three words, one holds "rounding": found, not "0 hits".
out=$(cat "$HS/search/source:rounding mode money")
expect_contains "$out" "ledger.accounts:21: return Decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)" "a line with one of the words"
expect_contains "$out" "no line holds all 3 terms" "and the view says they are ranked by how many"
# Every word first: the line with both words before lines with one.
expect_contains "$(cat "$HS/search/source:quantize CENT" | filter '^- ' | head -1)" "quantize(CENT" "a line with both words comes first"
# A quoted phrase stays exact.
expect_contains "$(cat "$HS/search/source:\"rounding mode\"")" "— 0 hits" "a phrase is not split into words"

# Smart case: lower case matches any case, a capital makes it exact.
expect_contains "$(cat "$HS/search/source:round_half_even")" "ROUND_HALF_EVEN" "a lower-case query finds an upper-case name"
expect_contains "$(cat "$HS/search/source:Round_Half_Even")" "— 0 hits" "an upper-case letter makes the query exact"

# Text files: a word only pyproject.toml holds, with the file of its table to read.
out=$(cat "$HS/search/source:setuptools")
expect_contains "$out" "pyproject.toml:5: requires = [\"setuptools>=68\", \"wheel\"]" "a word only in pyproject.toml"
path=$(printf '%s\n' "$out" | filter 'pyproject.toml:5:' | sed 's/.*`\(.*\)`$/\1/')
expect_eq "$path" "$HS/source/config/build-system.toml" "its path is the table's file under source/config/"
expect_contains "$(cat "$path")" "setuptools>=68" "which holds the line"
out=$(cat "$HS/search/source:double-entry")
expect_contains "$out" "README.md:3: A tiny double-entry bookkeeping library" "README is searched"
expect_contains "$out" "\`$HS/source/README.md\`" "a root file links to its place under source/, not the disk"
case "$out" in *"$PROJECT/"*) fail "a hit links outside the mount: $out" ;; esac
expect_contains "$(cat "$HS/search/source:text-align")" "src/ledger/templates/report.html:6: <style>td:not(:first-child) { text-align: right; }</style> — \`$HS/source/ledger/templates/report.html\`" "package data is searched, with its place under source/"

# Pages: page 2 exists, differs from page 1, and page 1 links it.
p1=$(cat "$HS/search/source:amount")
p2=$(cat "$HS/search/source:amount page:2")
expect_contains "$p1" "Next page: cat \"$HS/search/source:amount page:2\"" "page 1 links page 2"
expect_contains "$p2" "# Search: source:amount — " "page 2 answers"
expect_contains "$p2" ", page 2" "and says which page it is"
hit2=$(printf '%s\n' "$p2" | filter '^- ' | head -1)
[ -n "$hit2" ] || fail "page 2 has hits"
expect_absent "$p1" "$hit2" "page 2 starts after page 1"
for view in "source:amount" "source:amount page:2" "amount" "amount page:2"; do
  [ "$(tokens "$HS/search/$view")" -le 500 ] || fail "search/$view fits the budget"
done
expect_contains "$(cat "$HS/search/source:amount page:0")" "pages are numbered 1 to 50" "page:0 is no page, and the view says which are"

# Tasks: several words rank; a filter it does not know is explained.
echo '{"title": "Fix rounding of negative amounts", "priority": 0}' > "$HS/tasks/open/fix-rounding.json"
expect_contains "$(cat "$HS/search/tasks:rounding mode money")" "fix-rounding" "a task with one of the words"
expect_contains "$(cat "$HS/search/tasks:label:bug")" "it knows tag:<tag>, status:" "an unknown filter lists the known ones"
expect_contains "$(cat "$HS/search/tasks:tag:bug")" "(no task has a tag; a task search knows tag:<tag>, status:" "a filter nothing passes says what there is"

# Everything at once: no area says 0 where a word is found.
out=$(cat "$HS/search/rounding mode money")
expect_absent "$out" "## source — 0 hits" "source ranks what it finds"
expect_contains "$out" "## tasks — 1 hit" "so do tasks"
