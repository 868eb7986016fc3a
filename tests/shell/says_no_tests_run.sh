# source/tests/run and runs/ belong to the test runner: they never become files of the
# project's test folder. The project has one test folder, so
# source/tests/ shows its contents directly.
TESTS="$HS/source/tests"
expect_contains "$(ls "$TESTS")" "test_accounts.py" "source/tests/ shows the one test folder"

# Writing to run starts a run; bytes that are no selector are refused, and nothing of
# either ever lands in the project.
printf '\xff\xfe;rm -rf /' > bad.bin
expect_fails "Invalid argument" "cp of bytes that are not UTF-8 to source/tests/run" -- cp bad.bin "$TESTS/run"
expect_contains "$(cat "$HS/_errors.md")" "the selector is not UTF-8 text" "the refusal says why"
expect_missing "$PROJECT/tests/run" "source/tests/run never becomes a file of the project"
expect_fails "Read-only file system" "a file in source/tests/runs/" -- cp bad.bin "$TESTS/runs/x"
expect_fails "Operation not permitted" "mkdir source/tests/runs/new" -- mkdir "$TESTS/runs/new"
echo 'x' > note.txt
expect_fails "" "mv to source/tests/run" -- mv note.txt "$TESTS/run"
expect_missing "$PROJECT/tests/run" "a runner name never reaches the project"
expect_missing "$PROJECT/tests/runs" "a runner name never reaches the project"

# Other names in the test folder are still the project's.
printf 'def test_new():\n    assert True\n' > test_new.py
cp test_new.py "$TESTS/test_new.py" || fail "a new test module is created"
[ -f "$PROJECT/tests/test_new.py" ] || fail "the new test module is in the project"
