# Helpers for the tasks/ scripts (sourced after lib.sh).

T="$HS/tasks"

# snapshot: every stored task, as its path and exact content (the store, seen through the
# mount). Two equal snapshots mean nothing changed, `updated` times included.
snapshot() {
  local dir f
  for dir in open in_progress blocked done; do
    for f in "$T/$dir"/*.json; do
      [ -e "$f" ] || continue
      echo "== $dir/${f##*/}"
      cat "$f"
    done
  done
}

# backdate: every stored task was made, and last changed, long ago ($LONG_AGO): the times are
# set in the store itself (SQLite, or PostgreSQL when $STORE is a URL). From then on a change shows as a newer `updated` time, and a task
# made anew as a newer `created` time, at once: no waiting for the clock to reach the next
# second (times are stored to the second).
LONG_AGO="2000-01-01T00:00:00Z"
backdate() {
  case "$STORE" in
    postgres://* | postgresql://*)
      psql -q -v ON_ERROR_STOP=1 "$STORE" \
        -c "UPDATE tasks SET created = '$LONG_AGO', updated = '$LONG_AGO'" ;;
    *)
      python3 - "$STORE" "$LONG_AGO" << 'EOF'
import sqlite3, sys
store, long_ago = sys.argv[1:3]
with sqlite3.connect(store) as db:
    db.execute("UPDATE tasks SET created = ?1, updated = ?1", (long_ago,))
EOF
      ;;
  esac
  # Another process changed the store: shown once the mount's store watcher saw it.
  poll_until 5 0.01 backdated || fail "backdate: the mount still shows other times:
$(newer_times)"
}

# newer_times: the `created` and `updated` lines of stored tasks that are not $LONG_AGO.
newer_times() { snapshot | filter '"(created|updated)"' | filter -v "\"$LONG_AGO\""; }

# backdated: every stored task shows $LONG_AGO (a condition for poll_until).
backdated() { [ -z "$(newer_times)" ]; }

# field FILE NAME: the value of a one-line field of a task file ("id": 3, -> 3).
field() { sed -n "s/^  \"$2\": \(.*\)$/\1/p" "$1" | sed 's/,$//'; }

# expect_reported DIR NEEDLE...: every NEEDLE is in the newest failure of /_errors.md and in
# tasks/DIR/_entry.md, which starts with the failure that happened there.
expect_reported() {
  local dir=$1 needle
  shift
  local errors entry
  errors=$(newest_error)
  entry=$(cat "$T/$dir/_entry.md")
  expect_contains "$(head -n 1 "$T/$dir/_entry.md")" "> Last error here" "$T/$dir/_entry.md starts with the failure"
  for needle in "$@"; do
    expect_contains "$errors" "$needle" "the newest entry of _errors.md"
    expect_contains "$entry" "$needle" "$T/$dir/_entry.md"
  done
}
