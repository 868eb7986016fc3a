# A selector is split as a shell splits words: a -k expression in quotes with `and not`
# selects what pytest would; an unclosed quote starts nothing and says why. The run's
# Command: line, pasted into sh in the project folder, gives the same counts. Failure
# files are named without spaces or quotes, every run file ends with a newline, pytest's
# counts are pytest's (xfailed, xpassed and warnings apart), and source/tests/_entry.md says how to run and where results go.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

T="$S/tests"
cat > "$PROJECT/tests/test_shellwords.py" <<'PY'
import warnings

import pytest


def test_canonicalize_name():
    pass


def test_canonicalize_name_invalid():
    pass


def test_other():
    pass


def test_warns():
    warnings.warn("old", DeprecationWarning)


@pytest.mark.xfail(reason="known")
def test_expected_to_fail():
    assert False


@pytest.mark.xfail(reason="fixed since")
def test_unexpectedly_passing():
    pass


@pytest.mark.parametrize("text", ["a b", "it's", 'say "hi"'])
def test_odd(text):
    assert text == "nothing"


@pytest.mark.skip(reason="later")
def test_later():
    pass


@pytest.fixture
def database():
    raise RuntimeError("no database here")


def test_needs_database(database):
    pass
PY

entry=$(cat "$T/_entry.md")
expect_contains "$entry" "$T/run" "tests/_entry.md says how to run the tests"
expect_contains "$entry" "> $T/run\`" "tests/_entry.md says how to run the tests"
expect_contains "$entry" "results are in $T/runs/" "tests/_entry.md says where the results are"

echo "tests/test_shellwords.py -k 'canonicalize_name and not invalid'" > "$T/run"
wait_run 1
expect_contains "$(head -2 "$T/runs/1/_entry.md")" "passed: 1 passed" "the quoted -k expression selected one test"
command=$(sed -n 's/^Command: `\(.*\)`$/\1/p' "$T/runs/1/_entry.md")
expect_contains "$command" "PYTHONPATH=" "the command names the PYTHONPATH the runner sets"
expect_contains "$command" "'canonicalize_name and not invalid'" "the expression quoted as a shell needs"
pasted=$(cd "$PROJECT" && sh -c "$command" 2>&1 || true)
expect_contains "$(cat "$T/runs/1/output.txt")" "1 passed, 10 deselected" "the run selected one test"
expect_contains "$pasted" "1 passed, 10 deselected" "the pasted command reproduces the run"

printf "%s\n" "-k 'open" > unclosed.txt
expect_fails "Invalid argument" "a selector with an unclosed quote" -- cp unclosed.txt "$T/run"
expect_contains "$(newest_error)" "unclosed quote" "the refusal says why"
expect_contains "$(cat "$T/runs/latest/result.md")" "unclosed quote" "the result says why nothing started"

echo 'tests/test_shellwords.py' > "$T/run"
wait_run 2
head=$(head -2 "$T/runs/2/_entry.md")
counts="3 failed, 4 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 warning, 1 error"
expect_contains "$head" "$counts" "counted as pytest counts: xfailed and xpassed apart, warnings"
expect_contains "$(tail -2 "$T/runs/2/output.txt")" "$counts in" "as pytest's closing line has them"
# The same words in every view that shows the run.
expect_contains "$(head -1 "$T/runs/2/result.md")" "$counts" "in result.md"
expect_contains "$(cat "$T/runs/_entry.md")" "$counts" "in the list of runs"
expect_contains "$(cat "$T/_entry.md")" "$counts" "in tests/_entry.md"
expect_contains "$(cat "$S/_entry.md")" "$counts" "in source/_entry.md"
expect_contains "$(cat "$HS/_entry.md")" "$counts" "at the root"
names=$(ls "$T/runs/2/failures" | filter -v '^_')
expect_eq "$(echo "$names" | wc -l)" "4" "one failure file per failing or erroring test: $names"
expect_absent "$names" " " "no space in failure file names"
expect_absent "$names" "'" "no single quote in failure file names"
expect_absent "$names" '"' "no double quote in failure file names"
expect_eq "$(ls "$T/runs/2/failures" | filter -v '^_')" "$names" "the names are stable"
for n in $names; do
  expect_contains "$(cat "$T/runs/2/failures/$n")" "tests.test_shellwords.test_" "$n reads"
done
entry2=$(cat "$T/runs/2/_entry.md")
for n in $names; do
  expect_contains "$entry2" "$n" "the run's entry lists $n"
done
for f in "$T/runs/2/_entry.md" "$T/runs/2/result.md" "$T/runs/2/output.txt" "$T/runs/_entry.md" "$T/runs/2/failures/"*; do
  expect_eq "$(tail -c1 "$f" | od -An -c | tr -d ' ')" '\n' "$f ends with a newline"
done
