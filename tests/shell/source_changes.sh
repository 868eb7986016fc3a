# source/changes/ is the project's changes as git sees them (issue 45): outside a git
# repository it says so; after edits of two modules and the README through the mount and a new file on
# disk, its _entry.md is `git status` with +/− counts, diff.patch is `git diff HEAD` byte
# for byte, and files/<path>.diff is each path's own diff (an untracked file's as added).
# A module's view says its last commits.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$S/changes"
expect_contains "$(cat "$C/_entry.md")" "not in a git repository" "a project outside git says so: $(cat "$C/_entry.md")"

git_in() { git -C "$PROJECT" -c user.email=t@example.com -c user.name=T "$@"; }
git_in init -q
git_in add -A
git_in commit -qm "the ledger as it was"
expect_contains "$(cat "$C/_entry.md")" "git status: nothing changed" "a clean tree"

# Two modules and the README through the mount, a new file on disk.
sed -i 's/^def debit(/def debit(/; $a\
\
\
def audit():\
    return True' "$A.py"
printf '\n\ndef helper():\n    return 1\n' >> "$S/ledger/journal.py"
echo "One more line." >> "$S/README.md" || fail "appending to the README through the mount"
echo "scratch" > "$PROJECT/notes.txt"

entry=$(cat "$C/_entry.md")
expect_contains "$entry" "git status: 3 modified, 1 untracked" "the counts: $entry"
expect_contains "$entry" 'modified `src/ledger/accounts.py` (+4 −0)' "a module with its lines"
expect_contains "$entry" 'modified `README.md` (+1 −0)' "the README"
expect_contains "$entry" 'untracked `notes.txt`' "the new file"
expect_eq "$(cat "$C/diff.patch" | sha256sum)" "$(git -C "$PROJECT" diff HEAD | sha256sum)" "diff.patch is git diff HEAD, byte for byte"
expect_eq "$(cat "$C/status.txt" | sha256sum)" "$(cd "$PROJECT" && git status --short | sha256sum)" "status.txt is git status --short, byte for byte"
expect_contains "$(cat "$C/status.txt")" " M README.md" "the README edited through the mount"
expect_eq "$(cat "$C/files/src/ledger/journal.py.diff")" "$(git -C "$PROJECT" diff HEAD -- src/ledger/journal.py)" "one path's diff"
expect_contains "$(cat "$C/files/notes.txt.diff")" "+scratch" "an untracked file's diff is all added"
expect_contains "$(ls "$C/files/src/ledger")" "accounts.py.diff" "the diffs sit at their paths"
expect_fails "" "the view is read-only" -- sh -c "echo x > '$C/diff.patch'"

# A commit changes what git says, with no change the mount sees.
git_in commit -qam "audit"
expect_contains "$(cat "$C/_entry.md")" "git status: 1 untracked" "after the commit: $(cat "$C/_entry.md")"
# A module's view says its last commits.
commits=$(grep '^\*\*Commits\*\*' "$A/_entry.md")
expect_contains "$commits" " audit; " "the newest first: $commits"
expect_contains "$commits" " the ledger as it was" "then the one before"
rm -rf "$PROJECT/.git" "$PROJECT/notes.txt"
echo "source_changes.sh: ok"
