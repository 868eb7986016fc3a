# Helpers for the memory/ scripts (sourced after lib.sh).

M="$HS/memory"
FIXTURES="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/transcripts" && pwd)"

# session_dir ID: the directory of session ID under memory/sessions/<day>/.
session_dir() {
  local dir
  for dir in "$M"/sessions/*/"$1"; do
    [ -d "$dir" ] && { echo "$dir"; return 0; }
  done
  fail "no session $1 under $M/sessions"
}

# sessions_stored: how many sessions memory/ says it holds.
sessions_stored() { cat "$M/_entry.md" | sed -n 's/^\([0-9][0-9]*\) sessions\{0,1\}, .*/\1/p'; }
