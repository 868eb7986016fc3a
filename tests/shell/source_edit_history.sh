# source/history/: every routed edit, numbered, with a unified diff that `patch` can apply;
# `echo N > history/undo` takes edit N back where its lines are as it left them (as `patch -R`
# of its diff would, keeping later edits elsewhere), and refuses (EINVAL) naming the line
# otherwise. An undo is an edit too, so it can be undone.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
H="$S/history"

expect_contains "$(cat "$H/_entry.md")" "0 routed edits" "a fresh project has no edits"
expect_contains "$(cat "$H/_entry.md")" "No edits yet" "and says so"

# Edit 1: a method's body. Edit 2: another method's name.
cp "$ACC" v0.py
sed -i 's/amount = parse_amount(amount)/amount = abs(parse_amount(amount))/' "$C/debit.py" || fail "sed -i debit.py"
cp "$ACC" v1.py
mv "$C/credit.py" "$C/credit_to.py" || fail "mv credit.py credit_to.py"
cp "$ACC" v2.py

listed=$(ls "$H")
for name in 1.diff 2.diff undo; do expect_contains "$listed" "$name" "ls history/"; done
entry=$(cat "$H/_entry.md")
expect_contains "$entry" "2 routed edits" "the entry counts the edits"
expect_contains "$entry" "| \`1.diff\` |" "edit 1 is listed"
expect_contains "$entry" "replace ledger.accounts.Account.debit" "with what it did"
expect_contains "$entry" "rename ledger.accounts.Account.credit to credit_to" "edit 2 is listed"
expect_contains "$entry" "src/ledger/accounts.py" "with the file"

# Each diff is a unified diff of the real file: applied to the file before, it gives after.
diff1=$(cat "$H/1.diff")
expect_contains "$diff1" "--- a/src/ledger/accounts.py" "the diff's header"
expect_contains "$diff1" "-        amount = parse_amount(amount)" "the removed line"
expect_contains "$diff1" "+        amount = abs(parse_amount(amount))" "the added line"
expect_contains "$diff1" "echo 1 > $H/undo" "the diff says how to undo it"
sed -n '/^--- /,$p' "$H/1.diff" | patch -s -o patched.py v0.py - || fail "patch applies 1.diff"
expect_file patched.py v1.py "1.diff turns the file before edit 1 into the file after"
sed -n '/^--- /,$p' "$H/2.diff" | patch -s -o patched.py v1.py - || fail "patch applies 2.diff"
expect_file patched.py v2.py "2.diff"
expect_fails "Read-only file system" "writing a diff" -- sh -c "echo x > '$H/1.diff'"
expect_le() { [ "$1" -le "$2" ] || fail "$3: $1 > $2"; }
expect_le "$(tokens "$H/1.diff")" 500 "a diff is a view within the budget"

# Undo 1 while edit 2 (another method) came after it: taken back where it applies, as
# `patch -R` of 1.diff would, and edit 2 stays.
python3 -c 'text = open("v2.py").read(); open("v2_without_1.py", "w").write(text.replace("amount = abs(parse_amount(amount))", "amount = parse_amount(amount)", 1))'
expect_eq "$(undo_with_python 1)" ok "undo 1 with a later edit elsewhere in the file"
expect_file "$ACC" v2_without_1.py "edit 1 taken back, edit 2 kept"
sed -n '/^--- /,$p' "$H/1.diff" | patch -s -R -o patched.py v2.py - || fail "patch -R of 1.diff applies after 2"
expect_file patched.py v2_without_1.py "the same as patch -R"

# An undo is an edit (3), and can be undone: edit 1 is back.
echo 3 > "$H/undo"
expect_file "$ACC" v2.py "undoing the undo redoes edit 1"

# Undo 2: the method's old name is back.
echo 2 > "$H/undo"
expect_file "$ACC" v1.py "undo 2 renamed the method back"
[ -f "$C/credit.py" ] || fail "credit.py is back"
entry=$(cat "$H/_entry.md")
expect_contains "$entry" "5 routed edits" "undos are edits"
expect_contains "$entry" "undo edit 2" "and listed as such"
sed -n '/^--- /,$p' "$H/5.diff" | patch -s -o patched.py v2.py - || fail "patch applies 5.diff"
expect_file patched.py v1.py "5.diff is the undo's diff"

# A later change of the edit's own lines, made outside homespace: refused, naming the
# line, and the outside change stays.
sed -i 's/amount = abs(parse_amount(amount))/amount = abs(parse_amount(amount)) or 0/' "$ACC"
cp "$ACC" outside.py
poll_until 5 0.01 grep -q ' or 0' "$C/debit.py" || true
expect_eq "$(undo_with_python 1)" 22 "undo over a change of the edit's own lines fails with EINVAL"
expect_file "$ACC" outside.py "the outside change stays"
expect_contains "$(newest_error)" "edit 1 cannot be undone" "the refusal is reported"
expect_contains "$(newest_error)" "changed since at line" "naming the line"

# Nonsense: an edit that does not exist, and something that is not a number.
[ "$(undo_with_python 999)" != ok ] || fail "undo of edit 999 is refused"
expect_contains "$(newest_error)" "there is no edit 999" "and explained"
expect_eq "$(undo_with_python abc)" 22 "undo abc fails with EINVAL"
expect_contains "$(newest_error)" "write the number of an edit" "and says what to write"
expect_file "$ACC" outside.py "nothing changed"
expect_contains "$(cat "$H/_entry.md")" "5 routed edits" "refused undos are not edits"

# A new module is one change of two files (the module, then __init__.py): one entry, one
# diff of both; undone together, the package is as it was and the module file gone.
INIT="$PROJECT/src/ledger/__init__.py"
cp "$INIT" init_before.py
printf '"""Helpers."""\n\nX = 1\n' > newmod.py
cp newmod.py "$S/ledger/newmod.py" || fail "cp of a new module"
entry=$(cat "$H/_entry.md")
expect_contains "$entry" "create module ledger.newmod" "the creation is edit 6"
expect_contains "$entry" "src/ledger/newmod.py, src/ledger/__init__.py" "naming both files"
expect_contains "$(cat "$H/6.diff")" "+++ b/src/ledger/newmod.py" "a new file's diff"
expect_contains "$(cat "$H/6.diff")" "--- /dev/null" "comes from /dev/null"
expect_contains "$(cat "$H/6.diff")" "+from . import newmod" "with the import's"
echo 6 > "$H/undo"
expect_file "$INIT" init_before.py "undo 6 took the import away"
expect_missing "$PROJECT/src/ledger/newmod.py" "and deleted the new module"
expect_absent "$(ls "$S/ledger")" "newmod" "and the package no longer lists it"

# One number per change, consecutive, whatever the store's own numbering: the creation
# took two rows of the store (its two files), and its undo is still edit 7, listed,
# shown and counted as such.
listed=$(ls "$H")
expect_contains "$listed" "7.diff" "the undo of the creation is edit 7"
expect_absent "$listed" "8.diff" "no number is skipped"
expect_contains "$(head -2 "$H/7.diff")" "# edit 7 — undo edit 6" "7.diff says it is edit 7"
expect_contains "$(cat "$H/_entry.md")" "7 routed edits" "the count agrees with the listing"
expect_eq "$(ls "$H" | grep -c '\.diff$')" 7 "seven diffs listed"
