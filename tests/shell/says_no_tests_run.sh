# source/tests/run and runs/ belong to the test runner (not available yet): they never
# become files of the project's test folder. The project has one test folder, so
# source/tests/ shows its contents directly.
TESTS="$HS/source/tests"
expect_contains "$(ls "$TESTS")" "test_accounts.py" "source/tests/ shows the one test folder"

if printf '\xff\xfe;rm -rf /' 2> /dev/null > "$TESTS/run"; then fail "printf > source/tests/run succeeded"; fi
expect_missing "$PROJECT/tests/run" "source/tests/run never becomes a file of the project"
expect_fails "Operation not permitted" "cp to source/tests/run" -- cp /dev/null "$TESTS/run"
expect_fails "Operation not permitted" "touch source/tests/runs" -- touch "$TESTS/runs"
expect_fails "Operation not permitted" "mkdir source/tests/runs" -- mkdir "$TESTS/runs"
echo 'x' > note.txt
expect_fails "Operation not permitted" "mv to source/tests/run" -- mv note.txt "$TESTS/run"
expect_missing "$PROJECT/tests/run" "a runner name never reaches the project"
expect_missing "$PROJECT/tests/runs" "a runner name never reaches the project"
errors=$(cat "$HS/_errors.md")
expect_contains "$errors" "reserved for the test runner, which is not available yet" "the refusal says why"
expect_contains "$errors" "Test modules are edited as $TESTS/<module>.py" "and where test modules are"

# Other names in the test folder are still the project's.
printf 'def test_new():\n    assert True\n' > test_new.py
cp test_new.py "$TESTS/test_new.py" || fail "a new test module is created"
[ -f "$PROJECT/tests/test_new.py" ] || fail "the new test module is in the project"
