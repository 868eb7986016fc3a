# source/tests/run starts a pytest run in the background and returns at once; runs/<n>/
# and runs/latest/ show its status, counts, command, each failure with the project's lines
# as module:line, and the whole output. One run at a time; the mount answers during a run;
# a run past the timeout of settings.toml is stopped and says so.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

T="$S/tests"
printf 'def div(a, b):\n    return a / b\n' > "$PROJECT/src/ledger/calcx.py"
cat > "$PROJECT/tests/test_runner_cases.py" <<'PY'
import pytest

from ledger.calcx import div


def test_div():
    assert div(4, 2) == 2


def test_zero():
    assert div(1, 0) == 0


@pytest.fixture
def db():
    raise RuntimeError("no database here")


def test_db(db):
    pass


@pytest.mark.skip(reason="later")
def test_later():
    pass
PY
printf 'import time\n\n\ndef test_sleep():\n    time.sleep(60)\n' > "$PROJECT/tests/slow_cases.py"

expect_contains "$(ls "$T")" "run" "source/tests/ has the runner"
expect_contains "$(cat "$T/runs/_entry.md")" "none yet" "no run yet"
expect_contains "$(cat "$S/_entry.md")" "no test run yet" "source/_entry.md says how to start one"

echo 'tests/test_runner_cases.py' > "$T/run"
expect_eq "$(ls "$T/runs")" "$(printf '1\n_entry.md\n_nav.txt\nlatest')" "run 1 is listed at once"
wait_run 1
entry=$(cat "$T/runs/latest/_entry.md")
expect_contains "$entry" "failed: 1 failed, 1 passed, 1 skipped, 1 error" "status and counts, as pytest words them"
expect_contains "$entry" "-m pytest tests/test_runner_cases.py" "the command"
expect_contains "$entry" "tests.test_runner_cases.test_zero.txt" "the failure is listed"
failure=$(cat "$T/runs/1/failures/tests.test_runner_cases.test_zero.txt")
expect_contains "$failure" "ZeroDivisionError" "the failure's message"
expect_contains "$failure" "suspect: $S/ledger/calcx/div.py (src/ledger/calcx.py:1-2, score 0.50, raised here)" "the project's frame as its symbol file, ranked: run by the failing test and a passing one, of two failing"
expect_contains "$failure" "src/ledger/calcx.py:2" "and its place"
expect_contains "$failure" "test: $T/test_runner_cases/test_zero.py" "the failing test's symbol file"
expect_contains "$(cat "$T/test_runner_cases/test_zero.py")" "def test_zero" "which is the test's source"
expect_contains "$(cat "$T/runs/1/failures/tests.test_runner_cases.test_db.txt")" "no database here" "the error"
expect_contains "$(cat "$T/runs/1/output.txt")" "1 failed, 1 passed, 1 skipped, 1 error" "the whole output"
expect_missing "$PROJECT/tests/run" "run never becomes a project file"
expect_contains "$(cat "$S/_entry.md")" "last test run 1 — failed: 1 failed, 1 passed" "source/_entry.md shows the last run"
expect_contains "$(cat "$HS/_entry.md")" "Tests: run 1 failed: 1 failed, 1 passed" "so does the root dashboard"

# A long run: the mount answers meanwhile, a second run is refused, the timeout stops it.
sed -i 's/^timeout_secs = 600$/timeout_secs = 3/' "$S/meta/settings.toml"
printf 'tests/slow_cases.py\n' > req.txt
cp req.txt "$T/run"
# The write returned while the run goes on (it takes 3 s to time out): it did not wait.
expect_contains "$(head -2 "$T/runs/latest/_entry.md")" "running" "run 2 is running after the write returned"
expect_contains "$(ls "$S/ledger")" "accounts.py" "the mount answers during a run"
expect_fails "Device or resource busy" "a second run while one runs" -- cp req.txt "$T/run"
expect_contains "$(newest_error)" "runs/2/" "the refusal says where to watch"
wait_run 2
expect_contains "$(head -2 "$T/runs/2/_entry.md")" "timed out" "the timeout stopped it"

# A selector pytest cannot use: an error (never a pass), and the entry says why.
echo 'tests/no_such_test.py' > "$T/run"
wait_run 3
entry=$(cat "$T/runs/3/_entry.md")
expect_contains "$entry" "runs/3 — error" "not a pass"
expect_contains "$entry" "pytest could not run the tests: ERROR: file or directory not found: tests/no_such_test.py" "why"
rm "$PROJECT/tests/slow_cases.py" "$PROJECT/tests/test_runner_cases.py" "$PROJECT/src/ledger/calcx.py"
echo "source_tests_run.sh: ok"
