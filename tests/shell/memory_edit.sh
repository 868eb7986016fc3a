# Entries are exact documents: only tags may change; a new *.json appends an entry; mkdir
# starts a session; summary.md has exactly five sections; nothing is deleted through the
# mount.
source "$(dirname "${BASH_SOURCE[0]}")/memory_lib.sh"
"$HOMESPACE" import --store "$STORE" "$FIXTURES/generic.jsonl" > /dev/null 2>&1
S=$(session_dir pairing-2025-11-03)
E="$S/0002.json"
original=$(cat "$E")

# Reading and writing back changes nothing; tags may change.
cat "$E" > back.json && cp back.json "$E" || fail "writing an entry back unchanged"
expect_eq "$(cat "$E")" "$original" "an entry reads back exactly"
sed -i 's/"tags": \[\]/"tags": ["csv", "export"]/' "$E" || fail "sed -i of an entry's tags"
expect_contains "$(cat "$E")" '"csv"' "the tag landed"
expect_contains "$(cat "$M/tags/_entry.md")" "csv" "the tag is listed under memory/tags/"
expect_contains "$(cat "$M/tags/csv/_entry.md")" "${E#$HS}" "tags/csv lists the entry"

# Anything else is refused, naming the fields.
tagged=$(cat "$E")
expect_fails "Invalid argument" "changing an entry's content" -- sed -i 's/"content": "/"content": "EDITED /' "$E"
expect_contains "$(newest_error)" '"content" cannot change' "the refusal names the field"
expect_eq "$(cat "$E")" "$tagged" "the refused edit changed nothing"
expect_fails "Operation not permitted" "rm of an entry" -- rm "$E"
expect_contains "$(newest_error)" "homespace forget" "rm says how to delete a session"

# Appending: a new file gets the next seq and a time.
count=$(ls "$S" | grep -c '\.json$')
echo '{"channel": "assistant", "content": "Exported 12 rows to ledger.csv"}' > "$S/note.json" \
  || fail "appending an entry"
expect_eq "$(ls "$S" | grep -c '\.json$')" "$((count + 1))" "one more entry"
last=$(ls "$S" | grep '\.json$' | tail -1)
expect_contains "$(cat "$S/$last")" "Exported 12 rows" "the appended entry"
expect_contains "$(cat "$S/$last")" '"ts": "20' "with a time"
expect_fails "Invalid argument" "an entry without content" -- sh -c "echo '{\"channel\": \"robot\"}' | tee '$S/bad.json'"
expect_contains "$(newest_error)" '"channel" must be one of' "says what channels exist"

# A session of one's own.
day=$(date -u +%Y-%m-%d)
mkdir -p "$M/sessions/$day/my-work" || fail "mkdir of a new session"
case "$(cat "$M/sessions/$day/my-work/_entry.md")" in
  *"Entries by channel: ."*) fail "an empty session lists no channels, not an empty list" ;;
esac
echo '{"channel": "user", "content": "Start recording"}' > "$M/sessions/$day/my-work/e.json"
expect_contains "$(cat "$M/sessions/$day/my-work/0001.json")" "Start recording" "its first entry"
expect_contains "$(cat "$M/sessions/$day/_entry.md")" "my-work" "the day lists it"

# summary.md: the five sections, all problems listed together.
cat "$S/summary.md" > summary.md
for section in "Completed Work" "Pending Work" "Key Decisions & Context" "Tool Results" "How It Went"; do
  expect_contains "$(cat summary.md)" "## $section" "the empty summary has $section"
done
sed -i 's/^## Completed Work$/## Completed Work\nExported the journal as CSV./' summary.md
cp summary.md "$S/summary.md" || fail "writing a valid summary"
expect_contains "$(cat "$S/summary.md")" "Exported the journal as CSV." "the summary is stored"
printf '# Summary\n\n## Completed Work\n- Switched to integer cents\n- Kept the old API\n\n## Pending Work\n\n## Key Decisions & Context\n\n## Tool Results\n\n## How It Went\n' > points.md
cp points.md "$S/summary.md" || fail "writing a summary of points"
entry=$(cat "$S/_entry.md")
expect_contains "$entry" "Switched to integer cents; Kept the old API" "the session shows its summary's points"
case "$entry" in *"- - "*) fail "a summary's list marks are not doubled: $entry" ;; esac
cp summary.md "$S/summary.md" || fail "writing the summary back"
sed -e 's/^## Tool Results$/## Results/' -e '/^## How It Went$/d' summary.md > bad-summary.md
expect_fails "Invalid argument" "a summary missing sections" -- cp bad-summary.md "$S/summary.md"
err=$(newest_error)
expect_contains "$err" '"## Results" is not a section' "an unknown section"
expect_contains "$err" '"## Tool Results" is missing' "a missing one"
expect_contains "$err" '"## How It Went" is missing' "and another, together"

# The CLI forgets a whole session; the mount shows it gone.
"$HOMESPACE" forget --store "$STORE" pairing-2025-11-03 | grep -q "forgot session pairing-2025-11-03" \
  || fail "homespace forget"
expect_unlisted "$(dirname "$S")" "pairing-2025-11-03" "a forgotten session"
if out=$("$HOMESPACE" forget --store "$STORE" pairing-2025-11-03 2>&1); then fail "forgetting twice must fail"; fi
expect_contains "$out" "no session pairing-2025-11-03" "says there is none"
