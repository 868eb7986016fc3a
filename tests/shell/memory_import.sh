# Transcripts are imported by the CLI and by copying them into memory/import/ — the same
# code: formats recognised from content, a file whole or not at all (every bad line
# listed), the same file twice adds nothing, sessions browsable by day at once.
source "$(dirname "${BASH_SOURCE[0]}")/memory_lib.sh"

expect_contains "$(cat "$M/_entry.md")" "No sessions yet" "an empty memory says how to begin"

# The CLI, on a folder, while the mount is up (the same store).
out=$("$HOMESPACE" import --store "$STORE" "$FIXTURES/claude-code-session.jsonl" "$FIXTURES/generic.jsonl" 2>&1)
expect_contains "$out" "imported 2 files: 2 sessions" "the CLI's summary line"
expect_seen "$M/_entry.md" "2 sessions," "the mount sees the CLI's import (its store watcher)"
expect_eq "$(sessions_stored)" "2" "the mount counts the CLI's import"

# Copying into import/: a Codex rollout, recognised by its content whatever its name.
cp "$FIXTURES/rollout-2025-09-14T08-12-03-0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d.jsonl" "$M/import/any-name.txt"
expect_eq "$(sessions_stored)" "3" "cp into import/ imports"
expect_missing "$M/import/any-name.txt" "the copied file does not stay"
expect_contains "$(cat "$M/import/_entry.md")" "any-name.txt: 1 new session" "import/ lists what it imported"
codex=$(session_dir 0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d)
expect_eq "$(basename "$(dirname "$codex")")" "2025-09-14" "a session lives under the day it started"
expect_contains "$(cat "$codex/_entry.md")" "codex" "the session says where it came from"
expect_contains "$(cat "$codex/_entry.md")" "tool_call" "and its entries by channel"
first=$(ls "$codex" | grep -m1 '\.json$')
expect_eq "$first" "0001.json" "entries are zero-padded"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); assert set(e)=={"seq","ts","channel","content","tags","meta"}, e' "$codex/0001.json" \
  || fail "an entry has seq, ts, channel, content, tags, meta"
result=$(grep -l '"tool_result"' "$codex"/0*.json | head -1)
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); assert not e["content"].lstrip().startswith("{"), e["content"][:80]; assert "exit_code" in e["meta"], e["meta"]' "$result" \
  || fail "a Codex shell result reads as its output, its exit code in meta (not the JSON wrapper)"

# The same file again adds nothing; a resumed Claude Code session joins the first.
before=$(cat "$M/_entry.md" | sed -n 2,3p)
cp "$FIXTURES/claude-code-session.jsonl" "$M/import/again.jsonl"
expect_contains "$(cat "$M/import/_entry.md")" "again.jsonl: 0 new sessions, 0 entries added" "importing twice adds nothing"
cp "$FIXTURES/claude-code-resumed.jsonl" "$M/import/resumed.jsonl"
expect_eq "$(sessions_stored)" "3" "a resumed session joins the one it continues"

# A bad file is refused whole, every bad line listed, nothing stored.
entries_before=$(sed -n 2p "$M/_entry.md")
expect_fails "Invalid argument" "cp of a bad transcript" -- cp "$FIXTURES/bad.jsonl" "$M/import/bad.jsonl"
err=$(newest_error)
expect_contains "$err" "line 3" "the first bad line"
expect_contains "$err" "line 5" "the second bad line"
expect_contains "$err" "line 8" "the third bad line"
expect_eq "$(sed -n 2p "$M/_entry.md")" "$entries_before" "nothing of a refused file is stored"
if out=$("$HOMESPACE" import --store "$STORE" "$FIXTURES/bad.jsonl" 2>&1); then fail "the CLI must fail on a bad file"; fi
expect_contains "$out" "line 8" "the CLI lists the bad lines too"

# A transcript too large to copy in is refused whole, and the error names the CLI that
# imports it.
big=$(mktemp --suffix=.jsonl)
trap 'rm -f "$big"' EXIT
python3 - "$big" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(9000):
        f.write(json.dumps({"ts": "2025-10-01T10:00:00Z", "role": "user", "content": f"oversized {i} " + "x" * 1000}) + "\n")
PY
entries_before=$(sed -n 2p "$M/_entry.md")
expect_fails "File too large" "cp of a transcript over 8 MiB" -- cp "$big" "$M/import/big.jsonl"
expect_contains "$(newest_error)" "homespace import FILE" "the error names the CLI"
expect_eq "$(sed -n 2p "$M/_entry.md")" "$entries_before" "nothing of it is stored"
out=$("$HOMESPACE" import --store "$STORE" "$big" 2>&1) || fail "the CLI imports it: $out"
expect_contains "$out" "9000 entries" "all of it"
# The CLI is another process: the mount sees its import at its next look at the store
# (every 20 ms), before which the counts below would be the old ones.
entries_changed() { [ "$(sed -n 2p "$M/_entry.md")" != "$entries_before" ]; }
poll_until 5 0.01 entries_changed || true

# The dashboard shows the recent sessions.
expect_contains "$(cat "$HS/_entry.md")" "Latest session: \`$HS/memory/sessions/" "the root dashboard"
expect_contains "$(cat "$HS/_entry.md")" "memory/sessions/2025-" "with their paths"

# Two chats in files of the same name, opening with the same system prompt, stay two
# sessions: a session is known by its content, never by its file's name.
mkdir -p chat-a chat-b
for dir in chat-a chat-b; do
  {
    printf '{"role": "system", "content": "You are a careful coding agent."}\n'
    printf '{"role": "user", "content": "Work on %s"}\n' "$dir"
    printf '{"role": "assistant", "content": "Done with %s."}\n' "$dir"
  } > "$dir/transcript.jsonl"
done
before=$(sessions_stored)
cp chat-a/transcript.jsonl "$M/import/" || fail "importing the first chat"
cp chat-b/transcript.jsonl "$M/import/" || fail "importing the second chat"
expect_eq "$(sessions_stored)" "$((before + 2))" "two same-named chats are two sessions"
