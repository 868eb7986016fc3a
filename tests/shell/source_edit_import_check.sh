# The import check: after a routed edit the module is imported in a separate Python process
# (the project's src/ on sys.path); if that fails, the previous content is restored, the
# write fails with "Invalid argument", and the traceback's last lines are the message. It
# can be turned off (and its timeout set) in source/meta/settings.toml.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
INIT="$PROJECT/src/ledger/__init__.py"
SETTINGS="$S/meta/settings.toml"
expect_contains "$(cat "$SETTINGS")" "enabled = true" "the import check is on by default"
sum=$(checksum "$ACC")
init_sum=$(checksum "$INIT")
first=$(edits)

# rolled_back WHAT NEEDLE...: the module is as before, nothing was recorded, and the newest
# error says the edit was undone, with each NEEDLE.
rolled_back() {
  local what=$1 needle
  shift
  expect_sum "$ACC" "$sum" "$what: the module was restored"
  expect_eq "$(edits)" "$first" "$what: a rolled-back edit is not in the history"
  expect_contains "$(newest_error)" "failed after the edit, so the edit was undone" "$what"
  for needle in "$@"; do expect_contains "$(newest_error)" "$needle" "$what"; done
}

# An import of a module that does not exist, added with sed -i to the module file.
expect_fails "Invalid argument" "sed -i adding an import of a missing module" -- \
  sed -i '/^import enum$/a import nonexistent_module' "$S/ledger/accounts.py"
rolled_back "import nonexistent_module" "ModuleNotFoundError: No module named 'nonexistent_module'"
expect_no_temp_files "$S/ledger"

# A symbol edit that fails when the class body runs (a NameError at import).
printf '@nonexistent_decorator\ndef debit(self, amount):\n    pass\n' > debit.py
expect_fails "Invalid argument" "cp of a method with an undefined decorator" -- cp debit.py "$C/debit.py"
rolled_back "an undefined decorator" "NameError: name 'nonexistent_decorator' is not defined"

# A circular import: accounts would import journal, which imports accounts.
expect_fails "Invalid argument" "a circular import" -- \
  sed -i 's/^import enum$/import enum\nfrom .journal import Journal/' "$S/ledger/accounts.py"
rolled_back "a circular import" "ImportError"

# Renaming a class the package imports by name. (mv words rename's EINVAL as "cannot move
# ... to a subdirectory of itself".)
expect_fails "cannot move" "mv of a class the package imports" -- mv "$C.py" "$A/Konto.py"
rolled_back "renaming Account" "cannot import name 'Account'"
[ -d "$C" ] || fail "Account/ is still there"

# A new module that fails to import is not created, and __init__.py is restored.
expect_fails "Invalid argument" "a new module that fails to import" -- \
  python3 -c "
with open('$S/ledger/badmod.py', 'w') as f:
    f.write('import nonexistent_module\n')"
expect_missing "$PROJECT/src/ledger/badmod.py" "the failing module is not created"
expect_sum "$INIT" "$init_sum" "__init__.py was restored"
expect_contains "$(newest_error)" "No module named 'nonexistent_module'" "the new module's failure"

# An import that hangs counts as failed after the timeout (here 1 second).
sed -i 's/^timeout_secs = .*/timeout_secs = 1/' "$SETTINGS" || fail "set the timeout"
printf 'import time\n\ntime.sleep(60)\n' > slowmod.py
expect_fails "Invalid argument" "a module that hangs at import" -- cp slowmod.py "$S/ledger/slowmod.py"
expect_missing "$PROJECT/src/ledger/slowmod.py" "the hanging module is not created"
expect_contains "$(newest_error)" "took longer than 1 s" "the timeout is reported"
expect_contains "$(newest_error)" "slowmod.py\", line 3" "with where the import hung"
expect_sum "$INIT" "$init_sum" "__init__.py was restored"
ls "$HS/source" > /dev/null || fail "the mount still answers"

# Settings are validated: a bad value is refused and the settings stay.
before=$(cat "$SETTINGS")
expect_fails "Invalid argument" "a bad timeout" -- sed -i 's/^timeout_secs = .*/timeout_secs = "ten"/' "$SETTINGS"
expect_eq "$(cat "$SETTINGS")" "$before" "refused settings changed nothing"

# Turned off, the same import lands (it is valid Python).
sed -i 's/^enabled = true/enabled = false/' "$SETTINGS" || fail "turn the check off"
sed -i '/^import enum$/a import nonexistent_module' "$S/ledger/accounts.py" ||
  fail "with the check off, the edit is written"
expect_contains "$(cat "$ACC")" "import nonexistent_module" "the import is in the module"
expect_eq "$(($(edits) - first))" 1 "and in the history"
