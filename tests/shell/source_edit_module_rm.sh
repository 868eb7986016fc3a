# `rm` of a module must not leave the package broken. A module created through the mount was
# exposed in __init__.py (`from . import newmod`); deleting it must take that import away
# again (or be refused), and deleting a module the package still imports (report.py) must be
# refused by the import check like any other edit that breaks the import, the file kept.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

INIT="$PROJECT/src/ledger/__init__.py"
cp "$INIT" init_before.py
printf '"""Helpers."""\n\n\ndef greeting() -> str:\n    return "hello"\n' > newmod.py
cp newmod.py "$S/ledger/newmod.py" || fail "cp of a new module"
expect_contains "$(cat "$INIT")" "from . import newmod" "the new module is exposed"

rm "$S/ledger/newmod.py" || fail "rm of the new module"
expect_missing "$PROJECT/src/ledger/newmod.py" "the module file is deleted"
(cd "$PROJECT/src" && python3 -c 'import ledger') 2> import.err ||
  fail "the package still imports after rm newmod.py: $(tail -n 1 import.err)"
expect_file "$INIT" init_before.py "__init__.py is as before the module was created"

# report.py is imported by the package: deleting it would break `import ledger`.
sum=$(checksum "$PROJECT/src/ledger/report.py")
expect_fails "Invalid argument" "rm of a module the package imports" -- rm "$S/ledger/report.py"
[ -f "$PROJECT/src/ledger/report.py" ] || fail "report.py is kept"
expect_sum "$PROJECT/src/ledger/report.py" "$sum" "report.py is unchanged"
expect_contains "$(newest_error)" "No module named 'ledger.report'" "the import failure is reported"

# A module the tests import is judged the same way: deleting it would break the test module,
# so it is refused with that module's name, and the file stays (issue 47).
printf '"""Text helpers."""\n\n\ndef shout(text: str) -> str:\n    return text.upper()\n' > texthelp.py
cp texthelp.py "$S/ledger/texthelp.py" || fail "cp of a module the tests will import"
printf 'from ledger.texthelp import shout\n\n\ndef test_shout():\n    assert shout("a") == "A"\n' \
  > "$PROJECT/tests/test_texthelp.py"
sum=$(checksum "$PROJECT/src/ledger/texthelp.py")
expect_fails "Invalid argument" "rm of a module a test imports" -- rm "$S/ledger/texthelp.py"
expect_sum "$PROJECT/src/ledger/texthelp.py" "$sum" "texthelp.py is kept, unchanged"
expect_contains "$(cat "$INIT")" "from . import texthelp" "its import in __init__.py is kept too"
expect_contains "$(newest_error)" "test_texthelp" "the refusal names the test module that fails"
rm "$PROJECT/tests/test_texthelp.py"
rm "$S/ledger/texthelp.py" || fail "rm of the module once nothing imports it"
expect_missing "$PROJECT/src/ledger/texthelp.py" "then it is deleted"

# Undo is judged the same way: taking back the creation of a module a test now imports is
# refused, naming the test module, and the module stays (issue 47: an undo ran no check).
printf '"""Loud helpers."""\n\n\ndef loud(text: str) -> str:\n    return text + "!"\n' > loud.py
cp loud.py "$S/ledger/loud.py" || fail "cp of a module to undo"
created=$(ls "$S/history" | grep -E '^[0-9]+\.diff$' | sort -n | tail -n 1)
created=${created%.diff}
printf 'from ledger.loud import loud\n\n\ndef test_loud():\n    assert loud("a") == "a!"\n' \
  > "$PROJECT/tests/test_loud.py"
expect_eq "$(undo_with_python "$created")" 22 "the undo of a module a test imports is refused (EINVAL)"
[ -f "$PROJECT/src/ledger/loud.py" ] || fail "loud.py is kept"
expect_contains "$(newest_error)" "test_loud" "the refusal names the test module that fails"
rm "$PROJECT/tests/test_loud.py"
echo "$created" > "$S/history/undo" || fail "the undo once nothing imports the module"
expect_missing "$PROJECT/src/ledger/loud.py" "then the undo deletes it"
(cd "$PROJECT/src" && python3 -c 'import ledger') 2> import.err ||
  fail "the package imports after the undo: $(tail -n 1 import.err)"

# A helper module beside the tests, which they import by its own name as pytest lets them
# (`from shared_checks import …`: the test folder is no package, pytest puts it on
# sys.path), is judged the same way: found on tabulate 0.9.0's test/common.py.
printf 'def near(a, b):\n    return abs(a - b) < 1e-9\n' > "$PROJECT/tests/shared_checks.py"
printf 'from shared_checks import near\n\n\ndef test_near():\n    assert near(1.0, 1.0)\n' > "$PROJECT/tests/test_near.py"
poll_until 10 0.1 test -e "$S/tests/shared_checks.py" || fail "the helper shows under source/tests/"
sum=$(checksum "$PROJECT/tests/shared_checks.py")
expect_fails "Invalid argument" "rm of a test helper the tests import" -- rm "$S/tests/shared_checks.py"
expect_sum "$PROJECT/tests/shared_checks.py" "$sum" "the helper is kept"
expect_contains "$(newest_error)" "test_near" "the refusal names the test module that fails"
# The same one folder down, in a test folder that is no package either (tests/unit/):
# pytest puts that folder on sys.path too.
mkdir -p "$PROJECT/tests/unit"
printf 'def far(a, b):\n    return abs(a - b) > 1\n' > "$PROJECT/tests/unit/unit_checks.py"
printf 'from unit_checks import far\n\n\ndef test_far():\n    assert far(1.0, 3.0)\n' > "$PROJECT/tests/unit/test_unit_far.py"
poll_until 10 0.1 test -e "$S/tests/unit/unit_checks.py" || fail "the nested helper shows"
expect_fails "Invalid argument" "rm of a nested test helper the tests import" -- rm "$S/tests/unit/unit_checks.py"
[ -f "$PROJECT/tests/unit/unit_checks.py" ] || fail "the nested helper is kept"
expect_contains "$(newest_error)" "importing test_unit_far failed" \
  "the refusal names the nested test module as pytest imports it"
# A change that breaks nothing is kept: the tests import the helper as before.
printf '\n\ndef same(a, b):\n    return a == b\n' >> "$S/tests/unit/unit_checks.py" ||
  fail "a harmless change to the nested helper: $(newest_error)"
rm -r "$PROJECT/tests/unit"

# mv of a module renames it in its package, the import exposing it renamed in place, as
# one change judged like any edit (issue 47, item 1): a module the tests import by its old
# name stays where it is.
printf '"""Moved."""\n\n\ndef moved():\n    return 1\n' > movable.py
cp movable.py "$S/ledger/movable.py" || fail "cp of a module to rename"
expect_contains "$(cat "$INIT")" "from . import movable" "the module is exposed"
mv "$S/ledger/movable.py" "$S/ledger/moved.py" || fail "mv of a module"
expect_missing "$PROJECT/src/ledger/movable.py" "the old file is gone"
expect_file "$PROJECT/src/ledger/moved.py" movable.py "the new file holds the module"
expect_contains "$(cat "$INIT")" "from . import moved" "the import is renamed"
expect_absent "$(cat "$INIT")" "from . import movable" "the old import is gone"
expect_contains "$(grep 'rename module ledger.movable to ledger.moved' "$S/history/_entry.md")" \
  "src/ledger/movable.py" "one history entry names the change"
expect_fails "Operation not permitted" "mv of a test helper the tests import" -- \
  mv "$S/tests/shared_checks.py" "$S/tests/checks_renamed.py"
[ -f "$PROJECT/tests/shared_checks.py" ] || fail "the helper keeps its name"
expect_missing "$PROJECT/tests/checks_renamed.py" "and no copy is left under the new one"
expect_contains "$(newest_error)" "test_near" "the refusal names the test module that fails"
