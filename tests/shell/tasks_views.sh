# The views over tasks follow every change at once: ready/ (open tasks whose dependencies
# are all done), tags/<tag>/, the entry views with their counts, the root dashboard with the
# top outstanding tasks, and search with each hit's path.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

names() { ls "$1" | grep '\.json$' | tr '\n' ' '; }

echo '{"title": "Fix the login form", "priority": 1, "tags": ["auth", "ui"]}' > "$T/open/fix-login.json"
echo '{"title": "Write the release notes", "priority": 0, "tags": ["docs"], "depends_on": ["fix-login"]}' \
  > "$T/open/release-notes.json"
echo '{"title": "Tidy the changelog", "priority": 3, "description": "Group entries by version."}' \
  > "$T/open/changelog.json"
echo '{"title": "Refactor the ledger", "priority": 2}' > "$T/in_progress/refactor.json"

# ready/: open tasks whose dependencies are all done.
expect_eq "$(names "$T/ready")" "changelog.json fix-login.json " "ready/ before"
expect_eq "$(cat "$T/ready/fix-login.json")" "$(cat "$T/open/fix-login.json")" "a ready task's exact JSON"
ready=$(cat "$T/ready/_entry.md")
expect_contains "$ready" "2 tasks ready to start" "ready/_entry.md"
expect_contains "$ready" "- P1 \`$T/open/fix-login.json\` — Fix the login form [auth, ui]
- P3 \`$T/open/changelog.json\` — Tidy the changelog" "ready by priority, with paths"

# tags/<tag>/: a directory per tag in use.
expect_eq "$(ls "$T/tags" | grep -v '^_' | tr '\n' ' ')" "auth docs ui " "ls tags/"
expect_eq "$(names "$T/tags/ui")" "fix-login.json " "tags/ui/"
expect_contains "$(cat "$T/tags/docs/_entry.md")" "1 task tagged docs" "tags/docs/_entry.md"

# The entry of tasks/: counts by status and outstanding tasks by priority.
entry=$(cat "$T/_entry.md")
expect_contains "$entry" "4 outstanding (3 open, 1 in progress)" "tasks/_entry.md counts"
expect_contains "$entry" "- P0 \`$T/open/release-notes.json\` — Write the release notes [docs]
- P1 \`$T/open/fix-login.json\` — Fix the login form [auth, ui]" "outstanding by priority"

# The root dashboard shows the top outstanding tasks.
root=$(cat "$HS/_entry.md")
expect_contains "$root" "Tasks: 4 outstanding" "the root's counts"
expect_contains "$root" "- P0 release-notes — Write the release notes" "the top task on the dashboard"

# Finishing fix-login makes release-notes ready, at once.
mv "$T/open/fix-login.json" "$T/done/" || fail "mv to done/"
expect_eq "$(names "$T/ready")" "changelog.json release-notes.json " "ready/ after fix-login is done"
expect_contains "$(cat "$T/ready/_entry.md")" "- P0 \`$T/open/release-notes.json\`" "ready/_entry.md follows"
expect_eq "$(names "$T/tags/ui")" "fix-login.json " "a done task keeps its tags"
expect_contains "$(cat "$T/_entry.md")" "3 outstanding (2 open, 1 in progress), 1 done" "counts follow"
# Reopening it takes release-notes out of ready/ again.
mv "$T/done/fix-login.json" "$T/open/" || fail "mv back to open/"
expect_eq "$(names "$T/ready")" "changelog.json fix-login.json " "ready/ after reopening"
# A new open task without dependencies is ready at once; starting it takes it out.
echo '{"title": "Add a CSV export"}' > "$T/open/csv-export.json"
expect_contains "$(names "$T/ready")" "csv-export.json" "a new task is ready"
mv "$T/open/csv-export.json" "$T/in_progress/" || fail "start csv-export"
expect_absent "$(names "$T/ready")" "csv-export.json" "a started task is not ready"

# Tags follow edits: a new tag makes its directory, the last use of a tag removes it.
sed -i 's/"tags": \[\]/"tags": ["export"]/' "$T/in_progress/csv-export.json" || fail "tag with sed -i"
expect_eq "$(names "$T/tags/export")" "csv-export.json " "tags/export/ appears"
sed -i 's/"docs"/"notes"/' "$T/open/release-notes.json" || fail "retag with sed -i"
expect_eq "$(ls "$T/tags" | grep -v '^_' | tr '\n' ' ')" "auth export notes ui " "ls tags/ after retagging"
expect_fails "No such file or directory" "tags/docs/ is gone" -- ls "$T/tags/docs"
expect_eq "$(names "$T/tags/notes")" "release-notes.json " "tags/notes/"

# A rename shows everywhere at once.
mv "$T/open/fix-login.json" "$T/open/sign-in.json" || fail "rename"
expect_eq "$(names "$T/tags/ui")" "sign-in.json " "tags/ui/ after the rename"
expect_contains "$(names "$T/ready")" "sign-in.json" "ready/ after the rename"

# Search: ranked hits, each with its path (which follows moves).
hits=$(cat "$HS/search/tasks:login")
expect_contains "$hits" "P1 sign-in: Fix the login form — \`$T/open/sign-in.json\`" "search/tasks:login"
mv "$T/open/sign-in.json" "$T/done/" || fail "mv to done/"
expect_contains "$(cat "$HS/search/tasks:login")" "\`$T/done/sign-in.json\`" "search follows the move"
expect_contains "$(cat "$HS/search/tasks:version")" "changelog: Tidy the changelog" "search in descriptions"
expect_contains "$(cat "$HS/search/tasks:export")" "csv-export" "search in tags"
expect_contains "$(cat "$HS/search/tasks:nothing-like-this")" "0 hits" "no hits"
# Hostile queries are words, not FTS5 syntax.
expect_contains "$(cat "$HS/search/tasks:login\" OR \"x")" "Search:" "a query with quotes"
expect_contains "$(cat "$HS/search/tasks:NEAR(login")" "Search:" "a query with FTS5 syntax"
# The search of everything has a tasks section.
expect_contains "$(cat "$HS/search/changelog")" "## tasks — 1 hit" "search/<q> includes tasks"
# A deleted task leaves the search.
rm "$T/open/changelog.json" || fail "rm"
expect_contains "$(cat "$HS/search/tasks:version")" "0 hits" "a deleted task is not found"

# Every view of tasks/ stays within the budget.
while IFS= read -r view; do
  n=$(tokens "$view")
  [ "$n" -le 500 ] || fail "$view is $n tokens, over the budget of 500"
done < <(find "$T" -name '_entry.md' -o -name '_nav.txt')
