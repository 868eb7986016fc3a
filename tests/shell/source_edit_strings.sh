# A write never changes a string's value (issue 25, repro 1 and 2): a method whose body holds
# a multi-line string with lines at column 0, written into a class, keeps the string's bytes
# (only code and docstring lines take the class's indentation); it reads back exactly as
# written, and a one-word sed edit of it lands.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

cat > usage.py <<'PY'
def usage(self):
    text = """\
Usage:
  col-two line
"""
    return text
PY
cp usage.py "$S/ledger/accounts/Account/usage.py" || fail "adding the method"
value=$(cd "$PROJECT/src" && python3 -c 'from ledger.accounts import Account; print(repr(Account.usage(None)))')
expect_eq "$value" "'Usage:\\n  col-two line\\n'" "the string's value after the write"
expect_eq "$(cat "$S/ledger/accounts/Account/usage.py")" "$(cat usage.py)" "the symbol file reads back as written"

sed -i 's/col-two line/column-two line/' "$S/ledger/accounts/Account/usage.py" || fail "a one-word sed edit"
value=$(cd "$PROJECT/src" && python3 -c 'from ledger.accounts import Account; print(repr(Account.usage(None)))')
expect_eq "$value" "'Usage:\\n  column-two line\\n'" "the string's value after sed -i"
cat "$S/ledger/accounts/Account/usage.py" > again.py
cp again.py "$S/ledger/accounts/Account/usage.py" || fail "writing back what was read"
