# The import check judges the edit, not the project: a module that already failed to import
# (a dependency not installed — most checkouts opened without their virtualenv) can still be
# edited, and its view says it fails; an edit that brings a failure of its own is refused.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

# A module importing a dependency this machine does not have, written on disk.
cat > "$PROJECT/src/ledger/needs_dep.py" <<'PY'
"""Needs a dependency that is not installed."""
import yaml_not_installed_anywhere


def f():
    return 1
PY
expect_seen "$S/ledger/_entry.md" "needs_dep.py" "the new module shows"

# Repro 3 of issue 25: a one-word edit lands.
sed -i 's/return 1/return 2/' "$S/ledger/needs_dep/f.py" || fail "an edit of a module that already failed"
expect_contains "$(cat "$PROJECT/src/ledger/needs_dep.py")" "return 2" "the edit reached the file"
view=$(cat "$S/ledger/needs_dep/_entry.md")
expect_contains "$view" "Import fails" "the module's view says it fails"
expect_contains "$view" "yaml_not_installed_anywhere" "and why"

# An edit that fails the import differently is refused, and the file is as it was.
expect_fails "Invalid argument" "an edit bringing its own failure" -- \
  sh -c "sed '1a raise RuntimeError(\"brought by the edit\")' '$S/ledger/needs_dep.py' > changed.py && cp changed.py '$S/ledger/needs_dep.py'"
expect_absent "$(cat "$PROJECT/src/ledger/needs_dep.py")" "brought by the edit" "the module was restored"
expect_contains "$(newest_error)" "before it, the import failed otherwise" "the refusal says what changed"
expect_contains "$(newest_error)" "RuntimeError: brought by the edit" "and shows the new failure"

# A module that imported fine still refuses an edit that breaks it.
expect_fails "Invalid argument" "breaking a module that imported" -- \
  sed -i '/^import enum$/a import nonexistent_module' "$S/ledger/accounts.py"

# Repro 4 of issue 25: a rename that breaks another module is refused, naming it. A module
# that imports report.totals (the package's __init__ does not).
printf 'from .report import totals\n\nUSED = totals\n' > "$PROJECT/src/ledger/uses_totals.py"
poll_until 5 0.01 test -e "$S/ledger/uses_totals.py" || true
[ -e "$S/ledger/uses_totals.py" ] || fail "the importer shows in the mount"
report_sum=$(checksum "$PROJECT/src/ledger/report.py")
expect_fails "Operation not permitted" "renaming a function another module imports" -- \
  mv "$S/ledger/report/totals.py" "$S/ledger/report/sums.py"
expect_sum "$PROJECT/src/ledger/report.py" "$report_sum" "the rename was undone"
expect_contains "$(newest_error)" "importing ledger.uses_totals failed after the edit" "the importer is named"
expect_contains "$(newest_error)" "cannot import name 'totals'" "and why"
# A rename nothing else depends on lands.
mv "$S/ledger/report/_plain_table.py" "$S/ledger/report/_text_table.py" \
  || fail "a rename no other module imports"
