# source/: modules and symbols are exact files, addressed by module path.

cmp "$HS/source/ledger/accounts.py" "$PROJECT/src/ledger/accounts.py" || fail "module file is exact"
cmp "$HS/source/ledger/templates/report.html" "$PROJECT/src/ledger/templates/report.html" || fail "package data is exact"

members=$(ls "$HS/source/ledger/accounts/Account")
for name in balance.py balance@2.py debit.py Kind.py Kind from_path.py; do
  expect_contains "$members" "$name" "members of Account"
done
expect_absent "$(ls "$HS/source")" "ledger.accounts" "dotted names are not listed"

expect_eq "$(cat "$HS/source/ledger.accounts.Account.debit.py")" "$(cat "$HS/source/ledger/accounts/Account/debit.py")" "dotted lookup of a method"
[ -d "$HS/source/ledger.accounts" ] || fail "dotted lookup of a module's directory"
head -n 1 "$HS/source/ledger/accounts/Account/balance@2.py" | grep -q "@balance.setter" || fail "the setter is balance@2.py"
head -n 1 "$HS/source/ledger/accounts/parse_amount.py" | grep -q "^#" || fail "the comment above a def belongs to it"

# the files on disk are the truth: an outside edit shows on the next access
printf '\n\ndef audit_trail():\n    """Return nothing yet."""\n' >> "$PROJECT/src/ledger/report.py"
ls "$HS/source/ledger/report" | grep -q "audit_trail.py" || fail "a function added on disk shows up"
expect_contains "$(cat "$HS/source/ledger/report/_entry.md")" "audit_trail" "and in the module entry"

hits=$(cat "$HS/search/source:debit amount")
expect_contains "$hits" "ledger.accounts:" "search gives module paths"
expect_contains "$hits" "$HS/source/ledger/accounts/Account/debit.py" "search gives the symbol file"
# `def debit` asks for the definition: its symbol file, then its code, exactly.
defined=$(cat "$HS/search/source:def debit")
expect_eq "$defined" "$HS/source/ledger/accounts/Account/debit.py
$(cat "$HS/source/ledger/accounts/Account/debit.py")" "def debit answers with the definition"
expect_eq "$(cat "$HS/search/def:Account.debit")" "$defined" "and so does def:Account.debit"
