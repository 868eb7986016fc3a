# source/history/: every routed edit, numbered, with a unified diff that `patch` can apply;
# `echo N > history/undo` reverts edit N when the file still holds what N wrote, and
# refuses (EINVAL) with the reason otherwise. An undo is an edit too, so it can be undone.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
H="$S/history"

expect_contains "$(cat "$H/_entry.md")" "0 routed edits" "a fresh project has no edits"
expect_contains "$(cat "$H/_entry.md")" "No edits yet" "and says so"

# undo_with_python N: write N to history/undo with Python, printing the errno of a refusal.
undo_with_python() {
  python3 - "$H/undo" "$1" << 'EOF'
import sys
try:
    with open(sys.argv[1], "w") as f:
        f.write(sys.argv[2] + "\n")
    print("ok")
except OSError as e:
    print(e.errno)
EOF
}

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

# Undo 1 now would lose edit 2 (the file no longer holds what 1 wrote): refused.
expect_eq "$(undo_with_python 1)" 22 "undo of an edit the file moved on from fails with EINVAL"
expect_file "$ACC" v2.py "the refused undo changed nothing"
expect_contains "$(newest_error)" "edit 1 cannot be undone" "the refusal is reported"
expect_contains "$(newest_error)" "changed since" "with the reason"

# Undo 2, then 1: back to the start, each undo an edit of its own.
echo 2 > "$H/undo"
expect_file "$ACC" v1.py "undo 2 renamed the method back"
[ -f "$C/credit.py" ] || fail "credit.py is back"
expect_eq "$(undo_with_python 1)" ok "undo 1, now that the file holds what 1 wrote"
expect_file "$ACC" v0.py "undo 1 restored the method"
entry=$(cat "$H/_entry.md")
expect_contains "$entry" "4 routed edits" "undos are edits"
expect_contains "$entry" "undo edit 2" "and listed as such"
sed -n '/^--- /,$p' "$H/4.diff" | patch -s -o patched.py v1.py - || fail "patch applies 4.diff"
expect_file patched.py v0.py "4.diff is the undo's diff"

# An undo can be undone.
echo 4 > "$H/undo"
expect_file "$ACC" v1.py "undoing the undo of edit 1 redoes it"

# A change made outside homespace since: refused, and the outside change stays.
echo '# changed outside homespace' >> "$ACC"
cp "$ACC" outside.py
expect_eq "$(undo_with_python 5)" 22 "undo over an outside change fails with EINVAL"
expect_file "$ACC" outside.py "the outside change stays"
expect_contains "$(newest_error)" "edit 5 cannot be undone" "the refusal is reported"

# Nonsense: an edit that does not exist, and something that is not a number.
[ "$(undo_with_python 999)" != ok ] || fail "undo of edit 999 is refused"
expect_contains "$(newest_error)" "there is no edit 999" "and explained"
expect_eq "$(undo_with_python abc)" 22 "undo abc fails with EINVAL"
expect_contains "$(newest_error)" "write the number of an edit" "and says what to write"
expect_file "$ACC" outside.py "nothing changed"
expect_contains "$(cat "$H/_entry.md")" "5 routed edits" "refused undos are not edits"

# A new module is two edits (the file, then __init__.py); undone newest first, the package
# is as it was, the module file gone.
INIT="$PROJECT/src/ledger/__init__.py"
cp "$INIT" init_before.py
printf '"""Helpers."""\n\nX = 1\n' > newmod.py
cp newmod.py "$S/ledger/newmod.py" || fail "cp of a new module"
entry=$(cat "$H/_entry.md")
expect_contains "$entry" "create module ledger.newmod" "the creation is edit 6"
expect_contains "$entry" "expose ledger.newmod in ledger" "the import is edit 7"
expect_contains "$(cat "$H/6.diff")" "+++ b/src/ledger/newmod.py" "a new file's diff"
expect_contains "$(cat "$H/6.diff")" "--- /dev/null" "comes from /dev/null"
echo 7 > "$H/undo"
expect_file "$INIT" init_before.py "undo 7 took the import away"
echo 6 > "$H/undo"
expect_missing "$PROJECT/src/ledger/newmod.py" "undo 6 deletes the new module"
expect_absent "$(ls "$S/ledger")" "newmod" "and the package no longer lists it"
