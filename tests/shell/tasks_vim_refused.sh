# vim with its default settings writes by backup-by-rename: it renames the task to
# fix-login.json~, writes the new content under the old name, and when that write is
# refused it restores the backup: `unlink fix-login.json`, then
# `rename fix-login.json~ fix-login.json`. A refused write must leave the task exactly as
# it was — the same id and created time, not a new task with the old title.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

echo '{"title": "Fix the login form", "tags": ["auth"]}' > "$T/open/fix-login.json"
echo '{"title": "Tidy the changelog"}' > "$T/open/changelog.json"
f="$T/open/fix-login.json"
backdate # a re-created task would show a later `created` time
before=$(snapshot)

if vim -u DEFAULTS -i NONE --cmd 'set backupskip=' \
  -c '%s/"priority": 2/"priority": 2,,/' -c 'wq' "$f" < /dev/null > /dev/null 2>&1; then
  fail "vim reports the refused write"
fi
rm -f "$T/open/.fix-login.json.swp" # vim keeps its swap file after a failed write
expect_contains "$(newest_error)" "key must be a string" "the refusal is reported"
expect_eq "$(ls -a "$T/open" | grep -c '~$')" 0 "the backup is gone"
expect_eq "$(snapshot)" "$before" "the task is as it was, id and created included"
