# Memory is searched with bm25 and snippets, filters inside the query, hostile queries
# answered with a message; related.md and recall find the sessions most alike; search/
# includes memory in its federated results.
source "$(dirname "${BASH_SOURCE[0]}")/memory_lib.sh"
"$HOMESPACE" import --store "$STORE" "$FIXTURES"/*.jsonl > /dev/null 2>&1 || true  # bad.jsonl is refused
expect_eq "$(sessions_stored)" "3" "the fixtures are imported"
claude=$(session_dir b3d94f0e-6a2c-4e15-8c7d-91f0a2e6c5b4)

out=$(cat "$HS/search/memory:negative amounts")
expect_contains "$out" "# Search: memory:negative amounts — " "hits of memory"
expect_contains "$out" "**negative** **amounts**" "snippets mark the match"
# Hits come with their context, so a page holds a few: the rest are on the next ones.
expect_contains "$out" "Next page: cat \"$HS/search/memory:negative amounts page:2\"" "a full page links the next"
out="$out
$(cat "$HS/search/memory:negative amounts page:2")"
# A hit links the conversation's page that holds its turn (markdown, the turns around it),
# not the entry's JSON record; the page reads as a list of turns, without a breadcrumb.
expect_contains "$out" "${claude#$HS}/conversation/1.md" "each hit has its conversation page's path"
while IFS= read -r line; do
  case "$line" in "- "*) expect_contains "$line" "/conversation/" "a hit is one line with its path";; esac
done < <(printf '%s\n' "$out" | filter '^- .*#')
page=$(cat "$claude/conversation/1.md")
expect_contains "$(printf '%s\n' "$page" | head -1)" "# Conversation of b3d94f0e-6a2c-4e15-8c7d-91f0a2e6c5b4 — page 1" "the page opens with its title"
expect_contains "$page" "#2 " "the hit's turn is on it"

expect_contains "$(cat "$HS/search/memory:channel:tool_call grep")" "tool_call:" "channel: filters"
expect_absent "$(cat "$HS/search/memory:channel:user grep")" "tool_call:" "channel:user has no tool calls"
expect_contains "$(cat "$HS/search/memory:session:0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d currency")" "0199441c" "session: filters"
expect_absent "$(cat "$HS/search/memory:session:0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d currency")" "b3d94f0e" "and only that session"
expect_contains "$(cat "$HS/search/memory:since:2025-11-01 export")" "pairing-2025-11-03" "since: keeps later sessions"
expect_absent "$(cat "$HS/search/memory:until:2025-10-01 export")" "pairing-2025-11-03" "until: drops them"
sed -i 's/"tags": \[\]/"tags": ["regression", "zephyr"]/' "$claude/0002.json"
expect_contains "$(cat "$HS/search/memory:tag:regression balance")" "#2 user" "tag: filters"
# A word found only in the tags shows what the entry said, not the tags' JSON.
expect_contains "$(cat "$HS/search/memory:zephyr")" "#2 user" "a tag's word finds its entry"
expect_absent "$(cat "$HS/search/memory:zephyr")" '**zephyr**' "the snippet is the entry's text, not its tags"
expect_contains "$(cat "$HS/search/memory:re:def.(debit|credit)")" "tool_call" "re: searches with a regex"

# Hostile queries get a message, never a failure.
for query in '"' 'NEAR(a b' '*' 'a AND OR' 'channel:robot x' 'since:yesterday x' 're:(' "$(printf 'x%.0s' $(seq 1 200))"; do
  out=$(cat "$HS/search/memory:$query") || fail "search/memory:$query failed"
  expect_contains "$out" "# Search:" "search/memory:$query answers"
done
expect_contains "$(cat "$HS/search/memory:channel:robot x")" "channel" "a bad filter says which"

# Federated search includes memory.
expect_contains "$(cat "$HS/search/negative amounts")" "## memory — " "search/ includes memory"

# Related sessions and recall.
related=$(cat "$claude/related.md")
expect_contains "$related" "# Sessions like b3d94f0e" "related.md"
expect_contains "$related" "shares:" "with the terms they share"
expect_contains "$related" "/memory/sessions/" "and their paths"
# Two chats about different things that both ran shell commands share no subject: their
# tool calls' own words (bash, command, grep) relate nothing.
for topic in zanzibar quokka; do
  for n in 1 2 3; do
    printf '{"session": "tools-%s", "role": "user", "content": "Look into %s number %s"}\n' "$topic" "$topic" "$n"
    printf '{"session": "tools-%s", "role": "assistant", "content": null, "tool_calls": [{"id": "c%s", "function": {"name": "bash", "arguments": "{\\"command\\": \\"grep -rn %s%s .\\"}"}}]}\n' "$topic" "$n" "$topic" "$n"
  done > "tools-$topic.jsonl"
  cp "tools-$topic.jsonl" "$M/import/" || fail "importing the $topic chat"
done
shares=$(cat "$(session_dir tools-zanzibar)/related.md" | grep "shares:" || true)
for word in bash command grep; do
  if printf '%s\n' "$shares" | grep -qw "$word"; then
    fail "related.md relates sessions by what they worked on, not by tool words ($word): $shares"
  fi
done
expect_contains "$(cat "$M/recall")" "# Sessions like" "recall, for the latest session"
[ "$(tokens "$claude/related.md")" -le 500 ] || fail "related.md within the budget"

# A session's conversation: every user and assistant turn in order, tools folded to one
# line, page after page within the budget, linked from the session's _entry.md.
expect_contains "$(cat "$claude/_entry.md")" "$claude/conversation/1.md" "the session links its conversation"
turns=$(grep -lE '"channel": "(user|assistant)"' "$claude"/[0-9]*.json | wc -l)
[ "$turns" -gt 2 ] || fail "the fixture session has turns to show"
page="$claude/conversation/1.md" all=""
while [ -n "$page" ]; do
  [ "$(tokens "$page")" -le 500 ] || fail "$page fits the budget"
  all="$all
$(cat "$page")"
  page=$(sed -n 's/^Next page: cat //p' "$page")
done
expect_eq "$(printf '%s\n' "$all" | filter -cE '^- #[0-9]+ (user|assistant): ')" "$turns" "every user and assistant turn, one line each"
expect_contains "$all" " tool: Bash " "tool calls folded to the tool and its argument"
expect_contains "$all" "End of the conversation." "the last page says so"
