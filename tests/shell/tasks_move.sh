# Moving, renaming and deleting tasks. `mv` between status directories changes the status
# (a drag between folders in a file manager is the same rename); `mv` to a new name renames
# the task and every depends_on that names it; `rm` deletes, but not while other tasks
# depend on the task — the refusal names them.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

echo '{"title": "Fix the login form", "tags": ["auth"]}' > "$T/open/fix-login.json"
echo '{"title": "Write the release notes", "depends_on": ["fix-login"]}' > "$T/open/release-notes.json"
echo '{"title": "Announce the release", "depends_on": ["fix-login", "release-notes"]}' > "$T/open/announce.json"
id=$(field "$T/open/fix-login.json" id)

# mv to a status directory: the file moves, the status follows.
mv "$T/open/fix-login.json" "$T/in_progress/" || fail "mv to in_progress/"
[ -f "$T/in_progress/fix-login.json" ] || fail "the task is in in_progress/"
expect_missing "$T/open/fix-login.json" "the task is no longer in open/"
expect_absent "$(ls "$T/open")" "fix-login.json" "ls tasks/open"
expect_contains "$(ls "$T/in_progress")" "fix-login.json" "ls tasks/in_progress"
expect_eq "$(field "$T/in_progress/fix-login.json" status)" '"in_progress"' "the status"
expect_eq "$(field "$T/in_progress/fix-login.json" id)" "$id" "the same task"
expect_contains "$(cat "$T/_entry.md")" "3 outstanding (2 open, 1 in progress)" "counts follow"

# mv naming the target file, and from tasks/<slug>.json, which reaches any status.
mv "$T/in_progress/fix-login.json" "$T/blocked/fix-login.json" || fail "mv to blocked/fix-login.json"
expect_eq "$(field "$T/blocked/fix-login.json" status)" '"blocked"' "moved to blocked"
mv "$T/fix-login.json" "$T/done/" || fail "mv tasks/fix-login.json tasks/done/"
expect_eq "$(field "$T/done/fix-login.json" status)" '"done"' "moved to done"
expect_eq "$(ls "$T/blocked" | grep -c json)" 0 "blocked/ is empty again"

# mv to a new name renames the task; the tasks that depend on it follow.
mv "$T/done/fix-login.json" "$T/done/login-form.json" || fail "rename"
expect_missing "$T/done/fix-login.json" "the old name is gone"
expect_eq "$(field "$T/done/login-form.json" id)" "$id" "a rename keeps the task"
expect_contains "$(cat "$T/open/release-notes.json")" '"login-form"' "depends_on follows the rename"
expect_absent "$(cat "$T/open/announce.json")" '"fix-login"' "every depends_on follows"
# Rename and change the status at once.
mv "$T/done/login-form.json" "$T/open/sign-in.json" || fail "rename into open/"
expect_eq "$(field "$T/open/sign-in.json" status)" '"open"' "renamed and reopened"
expect_contains "$(cat "$T/open/announce.json")" '"sign-in"' "depends_on follows again"

# What mv refuses, leaving everything as it was.
before=$(snapshot)
expect_fails "Read-only file system" "mv into ready/" -- mv "$T/open/sign-in.json" "$T/ready/"
expect_reported ready "ready/ and tags/ are views"
expect_fails "File exists" "mv over another task" -- mv "$T/open/sign-in.json" "$T/open/announce.json"
expect_reported open "task announce exists"
expect_fails "Operation not permitted" "mv to a bad name" -- mv "$T/open/sign-in.json" "$T/open/Sign_In.json"
expect_reported open '"Sign_In.json" is not a task file name'
expect_fails "Operation not permitted" "mv out of tasks/" -- mv "$T/open/sign-in.json" "$HS/source/sign_in.json"
expect_eq "$(snapshot)" "$before" "refused moves change nothing"

# rm is refused while other tasks depend on the task, and names them.
expect_fails "Invalid argument" "rm of a task others depend on" -- rm "$T/open/sign-in.json"
expect_reported open "cannot remove $T/open/sign-in.json" \
  "$T/open/announce.json" "$T/open/release-notes.json"
expect_eq "$(snapshot)" "$before" "a refused rm changes nothing"

# Once nothing depends on it, rm deletes it.
sed -i '/"sign-in"/d' "$T/open/announce.json" || fail "drop a dependency"
expect_fails "Invalid argument" "rm with one dependent left" -- rm "$T/open/sign-in.json"
sed -i '/"sign-in"/d' "$T/open/release-notes.json" || fail "drop the last dependency"
rm "$T/open/sign-in.json" || fail "rm"
expect_missing "$T/open/sign-in.json" "the task is gone"
expect_missing "$T/sign-in.json" "tasks/sign-in.json is gone too"
expect_absent "$(ls "$T/open")" "sign-in" "ls tasks/open"
expect_contains "$(cat "$T/_entry.md")" "2 outstanding (2 open)" "counts after rm"
expect_fails "No such file or directory" "rm of a missing task" -- rm "$T/open/sign-in.json"
