# What a symbol file must hold: exactly its one definition (with decorators and the comment
# lines above it), valid Python, UTF-8, not empty. Everything else is refused as a whole
# with a message that says what is wrong and what to do instead (mv to rename, a new file to
# add, rm to delete); the module keeps every byte. Problems are located in the file that
# was written, not in the module, and all of them are reported together.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
sum=$(checksum "$ACC")

# write FILE CONTENT: write with cp, which reports a refused close (EINVAL).
write() {
  printf "$2" > content.py
  expect_fails "Invalid argument" "cp to $1" -- cp content.py "$1"
  expect_sum "$ACC" "$sum" "the refused write to $1 left the module untouched"
}

# A different name: it is not a rename.
write "$C/debit.py" 'def charge(self, amount):\n    self.debit(amount)\n'
expect_reported "$C" "debit.py was not saved" "it defines \`charge\`, but this file is \`debit\`" "mv " "charge.py"

# Two definitions: one file holds one symbol.
write "$C/debit.py" 'def debit(self, amount):\n    pass\n\n\ndef debit_all(self, amounts):\n    pass\n'
expect_reported "$C" "debit.py was not saved" "it defines 2 symbols (debit, debit_all)" "create a new file"

# A statement beside the definition.
write "$C/debit.py" 'def debit(self, amount):\n    pass\n\n\nLIMIT = 10\n'
expect_reported "$C" "debit.py was not saved" "line 5: only the definition"

# No definition at all.
write "$C/debit.py" '# just a comment\n'
expect_reported "$C" "debit.py was not saved" "defines no class or function"

# Not UTF-8 (Latin-1 é).
write "$C/debit.py" 'def debit(self, amount):\n    """D\xe9bit."""\n'
expect_reported "$C" "debit.py was not saved" "not UTF-8" "line 2"

# Empty, and only blank lines: to delete a symbol, rm it. cp of an empty file sees the
# refusal at its close (see empty_writes.sh).
expect_fails "Invalid argument" "cp /dev/null" -- cp /dev/null "$C/debit.py"
expect_sum "$ACC" "$sum" "cp /dev/null left the module untouched"
expect_reported "$C" "debit.py was not saved: it is empty" "rm "
expect_fails "Invalid argument" "truncate -s 0" -- truncate -s 0 "$C/debit.py"
expect_reported "$C" "debit.py was not saved: it is empty"
write "$C/debit.py" '\n\n   \n'
expect_reported "$C" "debit.py was not saved: it is empty"

# Several syntax errors: all reported, each at its line and column in the file written.
write "$C/debit.py" 'def debit(self, amount):\n    amount = = 1\n    total = (amount\n    return total total\n'
errors=$(newest_error)
expect_contains "$errors" "line 2, column 14" "the first error"
expect_contains "$errors" "line 4, column" "a later error is reported too"

# A nested method: the line is the one in is_debit_normal.py (2), not in the module (43).
write "$C/Kind/is_debit_normal.py" 'def is_debit_normal(self) -> bool:\n    return self in (Account.Kind.ASSET Account.Kind.EXPENSE)\n'
expect_reported "$C/Kind" "is_debit_normal.py was not saved" "line 2, column 40"
expect_absent "$(newest_error)" "line 43" "no module line numbers"

# A class file holds the whole class: a class with another name is refused...
write "$A/Account.py" 'class Ledger:\n    pass\n'
expect_reported "$A" "Account.py was not saved" "it defines \`Ledger\`, but this file is \`Account\`"
# ...and a valid class replaces the whole class, members included.
cp "$ACC" before.py
sed '/^    def apply/,/^            self.credit(-signed)$/d' "$A/Account.py" > new.py
cp new.py "$A/Account.py" || fail "cp of a class without apply"
with_symbol before.py Account new.py > expected.py
expect_file "$ACC" expected.py "the class was replaced"
expect_missing "$C/apply.py" "apply.py is gone with the method"
sum=$(checksum "$ACC")

# A new symbol file is checked the same way, and a refused one does not appear.
write "$C/audit.py" 'def audited(self):\n    return True\n'
expect_reported "$C" "audit.py was not saved" "it defines \`audited\`, but this file is \`audit\`"
expect_missing "$C/audit.py" "a refused new symbol file does not stay"
expect_fails "Invalid argument" "touch of a new symbol file" -- touch "$C/audit.py" # see source_edit_touch.sh
expect_reported "$C" "audit.py was not saved: it is empty"
expect_missing "$C/audit.py" "an empty new symbol file does not stay"
# A new file whose name is not a Python identifier.
printf 'def x():\n    pass\n' > content.py
if cp content.py "$C/not-a-name.py" 2> /dev/null; then fail "a symbol file named not-a-name.py"; fi
expect_sum "$ACC" "$sum" "nothing reached the module"
