# With several test folders (tests/ and test/), source/tests/ lists the folders, and run and
# runs are refused there too, pointing at the folders.
TESTS="$HS/source/tests"
expect_contains "$(ls "$TESTS")" "test" "source/tests/ lists the folders"
expect_fails "Operation not permitted" "cp to source/tests/run" -- cp /dev/null "$TESTS/run"
expect_fails "Operation not permitted" "touch source/tests/runs" -- touch "$TESTS/runs"
expect_missing "$PROJECT/tests/run" "a runner name never reaches the project"
expect_missing "$PROJECT/test/run" "a runner name never reaches the project"
expect_contains "$(cat "$HS/_errors.md")" "Test modules are edited as $TESTS/<folder>/<module>.py" \
  "the refusal points at the folders"
expect_fails "Operation not permitted" "other names at the top of source/tests/" -- cp /dev/null "$TESTS/test_x.py"
expect_contains "$(cat "$HS/_errors.md")" "create test modules inside one of them" "and says where they go"
# Inside a folder, names are the project's again.
echo 'fixture' > run
cp run "$TESTS/tests/run" || fail "a file inside a test folder is created"
[ -f "$PROJECT/tests/run" ] || fail "the file is in the project's test folder"
