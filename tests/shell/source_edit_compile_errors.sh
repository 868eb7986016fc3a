# Validation does not depend on the import check: with it turned off in
# source/meta/settings.toml, syntax the project's Python does not support (requires-python
# >=3.10) and errors Python finds when compiling (duplicate arguments, `nonlocal` at module
# level, a late `from __future__` import, `await` outside an async function) are refused
# before anything reaches the disk, at line and column in the file that was written. An
# empty write to a module is refused too: it would lose the whole module.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
sed -i 's/^enabled = true$/enabled = false/' "$S/meta/settings.toml" || fail "turn the import check off"
expect_contains "$(cat "$S/meta/settings.toml")" "enabled = false" "the import check is off"
sum=$(checksum "$ACC")

# refused FILE CONTENT LINE_COLUMN WHAT: cp of CONTENT (a file) to FILE is refused.
refused() {
  expect_fails "Invalid argument" "$4" -- cp "$2" "$1"
  expect_sum "$ACC" "$sum" "$4 left the module untouched"
  expect_contains "$(newest_error)" "$3" "$4 is located in the file written"
}

printf 'def debit(self, amount):\n    type Amount = Decimal\n' > alias.py
refused "$C/debit.py" alias.py "line 2, column 5" \
  "a type alias statement (Python 3.12) in a project for Python >= 3.10"
printf 'def debit(self, amount, amount):\n    pass\n' > duplicate.py
refused "$C/debit.py" duplicate.py "line 1, column 25" "a duplicate argument"
printf 'def debit(self, amount):\n    await self.credit(amount)\n' > await.py
refused "$C/debit.py" await.py "line 2, column 5" "await outside an async function"
{ cat "$ACC"; printf 'nonlocal CENT\n'; } > nonlocal.py
refused "$S/ledger/accounts.py" nonlocal.py "line 97, column 1" "nonlocal at module level"
{ cat "$ACC"; printf 'from __future__ import division\n'; } > future.py
refused "$S/ledger/accounts.py" future.py "line 97, column 1" "a late __future__ import"

expect_fails "Invalid argument" "truncate -s 0 of a module" -- truncate -s 0 "$S/ledger/accounts.py"
expect_sum "$ACC" "$sum" "an empty write left the module untouched"
