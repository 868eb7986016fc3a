# With several test folders (tests/ and test/), source/tests/ lists the folders and the
# runner's names, which never become project files, pointing at the folders.
TESTS="$HS/source/tests"
expect_contains "$(ls "$TESTS")" "test" "source/tests/ lists the folders"
echo 'x' > note.txt
expect_fails "" "mv to source/tests/run" -- mv note.txt "$TESTS/run"
expect_fails "Operation not permitted" "mkdir source/tests/runs/new" -- mkdir "$TESTS/runs/new"
expect_missing "$PROJECT/tests/run" "a runner name never reaches the project"
expect_missing "$PROJECT/test/run" "a runner name never reaches the project"
expect_fails "Operation not permitted" "other names at the top of source/tests/" -- cp /dev/null "$TESTS/test_x.py"
expect_contains "$(cat "$HS/_errors.md")" "holds the project's test folders; make it inside one of them" "and says where they go"
# Inside a folder, names are the project's again.
echo 'fixture' > run
cp run "$TESTS/tests/run" || fail "a file inside a test folder is created"
[ -f "$PROJECT/tests/run" ] || fail "the file is in the project's test folder"
