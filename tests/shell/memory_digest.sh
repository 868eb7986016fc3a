# A session's digest through the mount: its _entry.md opens with the files it changed
# (linked to source/), its commands and failures, its error, decisions and pending work;
# summary.md shows the same as an extracted summary until one is written, which replaces it.
source "$(dirname "${BASH_SOURCE[0]}")/memory_lib.sh"
cp "$FIXTURES/../digest/claude-code-digest.jsonl" "$M/import/" || fail "importing the digest fixture"
S=$(session_dir 5d2b9c4e-1f3a-4b6c-8d7e-9a0b1c2d3e4f)

entry=$(cat "$S/_entry.md")
expect_contains "$entry" "Files changed (2): \`$HS/source/ledger/accounts.py\`, \`$HS/source/tests/test_accounts.py\`." "the files it edited, linked"
cat "$HS/source/ledger/accounts.py" > /dev/null || fail "the link leads to the file"
expect_contains "$entry" "Commands: 3 run, 1 failed" "its commands and failures"
expect_contains "$entry" "Error (output): \"E AssertionError: assert Decimal('-5.00') == Decimal('5.00')\"" "the error it hit, quoted"
expect_contains "$entry" "Decided (said): \"We decided last week that amounts stay Decimal, never float.\"" "a decision, quoted"
expect_contains "$entry" "Pending (said): \"The CSV export of negative amounts is still pending" "pending work, quoted"
expect_absent "$entry" "matplotlib" "the decoy is context, not a decision"
head -4 "$S/_entry.md" | grep -q "^Files changed" || fail "the digest opens the view"
[ "$(tokens "$S/_entry.md")" -le 500 ] || fail "_entry.md within the budget"

summary=$(cat "$S/summary.md")
expect_contains "$summary" "> Extracted from this session's entries" "marked as extracted"
expect_contains "$summary" "- \`python -m pytest -q tests/test_accounts.py\` — failed" "the failed command"
expect_contains "$summary" "- said: \"Agreed, and we rejected storing amounts as integer cents.\"" "a rejection, quoted"
expect_contains "$summary" "- said: \"Next step: add a regression test for the CSV import.\"" "a next step, quoted"

# Edited in place and written back, it is a written summary: the mark goes, the text stays.
cp "$S/summary.md" summary.md
sed -i 's/^## How It Went$/## How It Went\nSmooth: one failing run, then green./' summary.md
cp summary.md "$S/summary.md" || fail "writing the edited summary back"
written=$(cat "$S/summary.md")
expect_contains "$written" "Smooth: one failing run, then green." "the written summary is shown"
expect_absent "$written" "> Extracted from" "no longer marked as extracted"
expect_contains "$(cat "$S/_entry.md")" "## Summary" "the session's view shows the written summary"

# A summary written from scratch replaces the extracted one whole.
printf '# Mine\n\n## Completed Work\nFixed credits.\n\n## Pending Work\n\n## Key Decisions & Context\n\n## Tool Results\n\n## How It Went\n' > mine.md
cp mine.md "$S/summary.md" || fail "writing a new summary"
expect_eq "$(cat "$S/summary.md")" "$(cat mine.md)" "the written summary replaces the extracted one"
