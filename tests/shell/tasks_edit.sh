# Editing a task file in place: sed -i (temp file + rename), vim in ex mode, vim as a user
# runs it (swap file, the `4913` probe, backup by rename), appending and truncating. An
# edit that leaves valid JSON updates the task (and its `updated` time); one that does not
# is refused as a whole and the task stays as it was.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

echo '{"title": "Fix the login form", "tags": ["auth"]}' > "$T/open/fix-login.json"
f="$T/open/fix-login.json"
backdate # so that every change below shows as a later `updated` time
created=$(field "$f" created)

# sed -i writes a temp file (sedXXXXXX) beside the task and renames it over the task.
sed -i 's/"priority": 2/"priority": 0/' "$f" || fail "sed -i"
expect_eq "$(field "$f" priority)" 0 "sed -i changed the priority"
expect_eq "$(field "$f" created)" "$created" "created stays"
[ "$(field "$f" updated)" != "$created" ] || fail "updated moves on a change"
expect_eq "$(ls -a "$T/open" | grep -c '^sed')" 0 "no sed temp file is left"

# vim in ex mode, as in scripts: vim -es.
vim -es -i NONE -c '%s/Fix the login form/Fix the login form on mobile/' -c 'wq' "$f" || fail "vim -es"
expect_eq "$(field "$f" title)" '"Fix the login form on mobile"' "vim -es changed the title"

# vim with its default settings (defaults.vim) as a user runs it: it makes a swap file
# (.fix-login.json.swp), checks that it may create files here (`4913`), renames the task to
# the backup fix-login.json~ and writes the new content under the old name. Vim skips
# backups for files under /tmp (its default 'backupskip'); the test's mount is under /tmp,
# so --cmd clears that to behave as for a file anywhere else.
vim -u DEFAULTS -i NONE --cmd 'set backupskip=' \
  -c '%s/"auth"/"auth",\r    "mobile"/' -c 'wq' "$f" < /dev/null > /dev/null 2>&1 || fail "vim"
tags=$(sed -n '/"tags"/,/]/p' "$f" | tr -d ' \n')
expect_eq "$tags" '"tags":["auth","mobile"],' "vim added a tag"
expect_eq "$(ls -a "$T/open" | grep -cE '\.swp$|~$|^4913$')" 0 "no swap, backup or probe file is left"
[ -d "$T/tags/mobile" ] || fail "the new tag has its directory"
expect_absent "$(cat "$HS/_errors.md")" "4913" "vim's probe is no error"

# echo >> that keeps the JSON valid (a blank line) changes nothing.
before=$(snapshot)
echo >> "$f"
expect_eq "$(snapshot)" "$before" "appending a newline"

# echo >> that makes the JSON invalid is refused; the task stays as it was. (bash ignores
# errors at close, so the command itself succeeds: _errors.md says what happened.)
echo '{"title": "second object"}' >> "$f"
expect_eq "$(snapshot)" "$before" "an append that breaks the JSON is refused"
expect_reported open "fix-login.json was not saved" "line 15, column 1: trailing characters"

# truncate -s 0 would empty the task: refused, reported at close.
expect_fails "Invalid argument" "truncate -s 0" -- truncate -s 0 "$f"
expect_eq "$(snapshot)" "$before" "truncate -s 0 is refused"
expect_reported open "the file is empty"
expect_eq "$(stat -c %s "$f")" "$(wc -c < "$f")" "the size is the task's again"

# sed -i that makes a bad value: the rename of its temp file over the task is refused.
expect_fails "Invalid argument" "sed -i to priority 9" -- sed -i 's/"priority": 0/"priority": 9/' "$f"
expect_eq "$(snapshot)" "$before" "sed -i with a bad priority is refused"
expect_reported open '"priority" must be an integer 0 (highest) to 4, got 9'
expect_eq "$(ls -a "$T/open" | grep -c '^sed')" 0 "the refused temp file is gone"

# vim -es writing invalid JSON: vim reports the failed write, the task stays.
if vim -es -i NONE -c '%s/"priority": 0/"priority": 0,,/' -c 'wq' "$f" 2> /dev/null; then
  fail "vim -es writing invalid JSON reports the failure"
fi
expect_eq "$(snapshot)" "$before" "vim -es with invalid JSON is refused"
expect_reported open "key must be a string"
rm -f "$T/open/.fix-login.json.swp"

# Editing through tasks/<slug>.json works too.
sed -i 's/"priority": 0/"priority": 1/' "$T/fix-login.json" || fail "sed -i on tasks/<slug>.json"
expect_eq "$(field "$f" priority)" 1 "edited through tasks/fix-login.json"
