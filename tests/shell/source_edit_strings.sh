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

# Line endings and indentation follow the module (issue 25, repro 6): an LF symbol written
# into a CRLF module leaves one style; a method added to a tab-indented class is tabs.
printf 'class Win:\r\n    def f(self):\r\n        return 1\r\n' > "$PROJECT/src/ledger/crlf_mod.py"
printf 'class Tabs:\n\tdef f(self):\n\t\treturn 1\n' > "$PROJECT/src/ledger/tab_mod.py"
poll_until 5 0.01 test -e "$S/ledger/tab_mod/Tabs/f.py" -a -e "$S/ledger/crlf_mod/Win/f.py" || true
printf 'def f(self):\n    return 2\n' > f.py
cp f.py "$S/ledger/crlf_mod/Win/f.py" || fail "replacing a method of a CRLF module"
printf 'def g(self):\n    """Two.\n\n    Lines."""\n    return 2\n' > g.py
cp g.py "$S/ledger/crlf_mod/Win/g.py" || fail "adding a method to a CRLF module"
crlf=$(tr -d -c '\r' < "$PROJECT/src/ledger/crlf_mod.py" | wc -c)
lf=$(tr -d -c '\n' < "$PROJECT/src/ledger/crlf_mod.py" | wc -c)
expect_eq "$crlf" "$lf" "every line of the CRLF module ends in CRLF"
cp g.py "$S/ledger/tab_mod/Tabs/g.py" || fail "adding a method to a tab-indented class"
if grep -nP '^\t* +' "$PROJECT/src/ledger/tab_mod.py"; then fail "spaces in the tab-indented module"; fi
expect_contains "$(cat "$PROJECT/src/ledger/tab_mod.py")" "$(printf '\tdef g(self):\n\t\t"""Two.')" "tabs"
