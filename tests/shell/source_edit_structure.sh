# Changing the shape of the code with file operations: `mv` renames a definition (its
# def/class name only), `rm` deletes it, a new `name.py` in a class or module directory
# appends a definition, a new module file in a package creates the real file and exposes it
# in the package's __init__.py, and `rm` of a module deletes the file. The expected files are
# computed with sed and Python's ast on copies, never through the mount.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
INIT="$PROJECT/src/ledger/__init__.py"
first=$(edits)

# without_symbol MODULE QUALNAME: MODULE without the definition QUALNAME (decorators and
# comment lines above included) and the blank lines directly above it.
without_symbol() {
  python3 - "$@" << 'EOF'
import ast, sys
module, qual = sys.argv[1:3]
src = open(module).read()
lines = src.splitlines(keepends=True)
body, node = ast.parse(src).body, None
for part in qual.split("."):
    node = next(n for n in body if getattr(n, "name", None) == part)
    body = node.body
start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
while start > 0 and lines[start - 1].strip().startswith("#"):
    start -= 1
while start > 0 and not lines[start - 1].strip():
    start -= 1
sys.stdout.write("".join(lines[:start] + lines[node.end_lineno:]))
EOF
}

# --- mv renames a method: only its def line changes -----------------------------------------
cp "$ACC" before.py
mv "$C/credit.py" "$C/credit_to.py" || fail "mv credit.py credit_to.py"
sed 's/^    def credit(self, amount/    def credit_to(self, amount/' before.py > expected.py
expect_file "$ACC" expected.py "the method was renamed"
members=$(ls "$C")
expect_contains "$members" "credit_to.py" "the new name is listed"
expect_contains "$(cat "$C/_entry.md")" "write it (cp, sed -i), mv, rm" "the entry says a symbol is changed by a write, mv or rm (in full or made lean, content first)"
expect_absent "$members" "credit.py" "the old name is gone"
expect_contains "$(cat "$C/credit_to.py")" "def credit_to(self, amount" "the renamed file"

# Renaming onto an existing name, or out of the class, is refused; nothing changes.
sum=$(checksum "$ACC")
expect_fails "File exists" "mv onto an existing method" -- mv "$C/credit_to.py" "$C/debit.py"
expect_fails "Operation not permitted" "mv out of the class" -- mv "$C/credit_to.py" "$A/credit_to.py"
expect_contains "$(newest_error)" "can only be renamed inside its own directory" "the refusal says why"
expect_fails "Operation not permitted" "mv to a name that is not a Python name" -- mv "$C/credit_to.py" "$C/credit-to.py"
expect_contains "$(cat "$HS/_errors.md")" "credit-to.py is not a Python name" "the refusal says why"
expect_fails "Read-only file system" "rm of a view" -- rm "$C/_entry.md"
expect_fails "No such file" "rm of a method that is not there" -- rm "$C/charge.py"
expect_sum "$ACC" "$sum" "refused renames and removals changed nothing"

# --- mv renames a class (its file or its directory), members and all ----------------------
cp "$ACC" before.py
mv "$C/Kind.py" "$C/Category.py" || fail "mv Kind.py Category.py"
sed 's/^    class Kind(enum.Enum):$/    class Category(enum.Enum):/' before.py > expected.py
expect_file "$ACC" expected.py "the nested class was renamed"
[ -f "$C/Category/is_debit_normal.py" ] || fail "the class's members follow its new name"
expect_missing "$C/Kind" "Kind/ is gone"
mv "$C/Category" "$C/Kind" || fail "mv of the class's directory back to Kind"
expect_file "$ACC" before.py "renamed back through its directory"

# --- rm deletes a method, and the blank line above it -------------------------------------
cp "$ACC" before.py
rm "$C/apply.py" || fail "rm apply.py"
without_symbol before.py Account.apply > expected.py
expect_file "$ACC" expected.py "the method was deleted"
expect_missing "$C/apply.py" "apply.py is gone"
parses "$ACC" || fail "the module parses"

# rm of a nested class takes its members with it.
cp "$ACC" before.py
sed -i 's/kind = cls.Kind(top)/kind = top/' "$C/from_path.py" || fail "sed -i from_path.py"
cp "$ACC" before.py
rm "$C/Kind.py" || fail "rm Kind.py"
without_symbol before.py Account.Kind > expected.py
expect_file "$ACC" expected.py "the nested class was deleted"
expect_missing "$C/Kind" "Kind/ is gone with the class"

# --- a new file in a class directory appends a method to the class --------------------------
cp "$ACC" before.py
cat > audit.py << 'EOF'
def audit(self) -> str:
    """Describe the account in one line."""
    return f"{self.name}: {self._balance}"
EOF
cp audit.py "$C/audit.py" || fail "cp of a new method"
python3 - << 'EOF' > expected.py
import ast
src = open("before.py").read()
lines = src.splitlines(keepends=True)
account = next(n for n in ast.parse(src).body if getattr(n, "name", None) == "Account")
new = ["    " + l if l.strip() else l for l in open("audit.py").read().splitlines(keepends=True)]
print("".join(lines[:account.end_lineno] + ["\n"] + new + lines[account.end_lineno:]), end="")
EOF
expect_file "$ACC" expected.py "the new method is the class's last member"
expect_eq "$(cat "$C/audit.py")" "$(cat audit.py)" "the new method reads back"
expect_contains "$(ls "$C")" "audit.py" "the class lists the new method"

# Creating a file that exists is refused (cp -n would skip it; O_EXCL says so).
sum=$(checksum "$ACC")
expect_fails "File exists" "an exclusive create of audit.py" -- python3 -c "open('$C/audit.py', 'x')"
expect_sum "$ACC" "$sum" "nothing changed"

# --- a new file in a module directory appends a function to the module ----------------------
cp "$ACC" before.py
printf 'def total_of(accounts: list[Account]) -> Decimal:\n    """The sum of the balances."""\n    return sum((a.balance for a in accounts), Decimal(0))\n' > total_of.py
cp total_of.py "$A/total_of.py" || fail "cp of a new function"
{ cat before.py; printf '\n\n'; cat total_of.py; } > expected.py
expect_file "$ACC" expected.py "the new function is appended after two blank lines"
expect_contains "$(ls "$A")" "total_of.py" "the module lists the new function"

# --- a new module in a package: the real file, exposed in __init__.py --------------------------
cp "$INIT" init_before.py
cat > newmod.py << 'EOF'
"""Helpers added through homespace."""


def greeting(name: str) -> str:
    """Say hello."""
    return f"hello {name}"
EOF
cp newmod.py "$S/ledger/newmod.py" || fail "cp of a new module"
expect_file "$PROJECT/src/ledger/newmod.py" newmod.py "the module file is created, exact"
sed '/^from .report import/a from . import newmod' init_before.py > expected.py
expect_file "$INIT" expected.py "the package's __init__.py imports it after its imports"
expect_contains "$(ls "$S/ledger")" "newmod.py" "the package lists the new module"
[ -f "$S/ledger/newmod/greeting.py" ] || fail "the new module's symbols"
out=$(cd "$PROJECT/src" && python3 -c 'import ledger; print(ledger.newmod.greeting("x"))') ||
  fail "the package imports with the new module"
expect_eq "$out" "hello x" "ledger.newmod works"

# A module name that is not an identifier is refused.
expect_fails "Invalid argument" "a module called new-mod.py" -- cp newmod.py "$S/ledger/new-mod.py"
expect_missing "$PROJECT/src/ledger/new-mod.py" "no new-mod.py in the project"

# --- rm of a module deletes the file ---------------------------------------------------------
rm "$S/ledger/newmod.py" || fail "rm of a module"
expect_missing "$PROJECT/src/ledger/newmod.py" "the module file is deleted"
expect_absent "$(ls "$S/ledger")" "newmod" "the package no longer lists it"
expect_absent "$(cat "$PROJECT/src/ledger/__init__.py")" "from . import newmod" "its import is taken away too"

# Every change above is in the history.
expect_eq "$(($(edits) - first))" 10 "one history entry per change (a module with its import is one)"

# --- a new file may hold several definitions: added in order, as one edit ---------------------
printf 'def test_first_of_two():\n    assert 1 + 1 == 2\n\n\ndef test_second_of_two():\n    assert "a".upper() == "A"\n' > two_tests.py
cp two_tests.py "$S/tests/test_journal/test_first_of_two.py" || fail "cp of a file with two tests"
[ -f "$S/tests/test_journal/test_first_of_two.py" ] || fail "the first test is there"
[ -f "$S/tests/test_journal/test_second_of_two.py" ] || fail "and the second"
tail -6 "$PROJECT/tests/test_journal.py" > tail.py
expect_contains "$(cat tail.py)" "def test_second_of_two():" "appended in order"
expect_contains "$(cat "$S/history/_entry.md")" "add tests.test_journal.test_first_of_two, test_second_of_two" "as one edit"
# Named after none of them: refused, saying how to name it.
expect_fails "Invalid argument" "a file named after none of its definitions" -- cp two_tests.py "$S/tests/test_journal/more_tests.py"
expect_contains "$(newest_error)" "name the file after one of them" "the refusal says how to name it"

# --- a new file may open with the imports it needs: they join the module's imports -----------
# `import pytest` is held already (kept once); `import math` is new: it goes among the imports,
# not above the test; the test file reads back as the definition alone; one edit.
TJ="$PROJECT/tests/test_journal.py"
before_edits=$(edits)
printf 'import pytest\nimport math\n\n\ndef test_with_its_imports():\n    assert math.isclose(pytest.approx(0.1).expected, 0.1)\n' > with_imports.py
cp with_imports.py "$S/tests/test_journal/test_with_its_imports.py" || fail "cp of a test with its imports"
expect_eq "$(grep -c '^import pytest$' "$TJ")" 1 "a held import is not added twice"
expect_eq "$(grep -c '^import math$' "$TJ")" 1 "a new import is added once"
first_def=$(grep -n '^def \|^@\|^class ' "$TJ" | head -1 | cut -d: -f1)
math_at=$(grep -n '^import math$' "$TJ" | cut -d: -f1)
[ "$math_at" -lt "$first_def" ] || fail "the import is among the imports (line $math_at), before the first definition (line $first_def)"
expect_eq "$(cat "$S/tests/test_journal/test_with_its_imports.py")" "$(printf 'def test_with_its_imports():\n    assert math.isclose(pytest.approx(0.1).expected, 0.1)')" "the test file holds the definition alone"
expect_eq "$(($(edits) - before_edits))" 1 "the test and its import are one edit"
python3 -m pytest -q -p no:cacheprovider "$TJ" -k test_with_its_imports 2>&1 | tail -1 | grep -q "1 passed" || fail "the new test runs and passes"

# --- a class without methods has its folder, and takes a first method through it ------------
expect_contains "$(ls "$S/ledger/journal")" "UnbalancedError.py" "the class is a file"
ls "$S/ledger/journal/UnbalancedError/" > /dev/null || fail "a class without methods has a folder"
printf 'def describe(self) -> str:\n    """Say what is off."""\n    return f"unbalanced: {self}"\n' > "$S/ledger/journal/UnbalancedError/describe.py" \
    || fail "a first method is created in the class's folder"
expect_contains "$(ls "$S/ledger/journal/UnbalancedError")" "describe.py" "the new method is listed"
PYTHONPATH="$PROJECT/src" python3 -c 'from ledger.journal import UnbalancedError as E; assert E("x").describe() == "unbalanced: x"' \
    || fail "the method is the class's own in the module"
