# The runner is as faithful as pytest (issue 45). Its cache works as pytest's does, and
# options that add test kinds or shape the report are taken: `--lf` reruns only the last run's
# failures, `--ff` runs them first, `--sw` stops at the first failure and starts there
# the next time, also after a failing run's traced pass. The cache lives in the project's
# .homespace/pytest-cache, never in a .pytest_cache beside the code. A test module that
# cannot be imported says why in result.md, and where. Every run says which interpreter ran
# and why. `--collect-only` lists what would run.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

T="$S/tests"
cat > "$PROJECT/tests/test_cached_cases.py" <<'PY'
def test_first():
    pass


def test_broken():
    assert 1 + 1 == 3


def test_last():
    pass
PY

echo 'tests/test_cached_cases.py' > "$T/run"
wait_run 1
expect_contains "$(head -1 "$T/runs/1/result.md")" "1 failed, 2 passed" "the whole file ran"
expect_contains "$(cat "$T/runs/1/output.txt")" "homespace: traced" "and its failing file again, traced"

echo 'tests/test_cached_cases.py --lf' > "$T/run"
wait_run 2
expect_contains "$(head -1 "$T/runs/2/result.md")" "1 failed, 2 deselected" "--lf ran only the last failure: $(head -3 "$T/runs/2/result.md")"
expect_contains "$(cat "$T/runs/2/output.txt")" "run-last-failure: rerun previous 1 failure" "as pytest says"

echo 'tests/test_cached_cases.py --ff -v' > "$T/run"
wait_run 3
order=$(grep -o 'test_[a-z]* [A-Z][A-Z]*' "$T/runs/3/output.txt" | tr '\n' ' ')
expect_eq "$order" "test_broken FAILED test_first PASSED test_last PASSED " "--ff ran the failure first"

echo 'tests/test_cached_cases.py --sw' > "$T/run"
wait_run 4
expect_contains "$(head -1 "$T/runs/4/result.md")" "1 failed, 1 passed" "--sw stopped at the failure"
sed -i 's/1 + 1 == 3/1 + 1 == 2/' "$PROJECT/tests/test_cached_cases.py"
echo 'tests/test_cached_cases.py --sw' > "$T/run"
wait_run 5
expect_contains "$(head -1 "$T/runs/5/result.md")" "passed: 2 passed" "and started there the next time: $(head -1 "$T/runs/5/result.md")"

# Options that add test kinds or shape the report: the doctests of a module run.
cat > "$PROJECT/src/ledger/doccases.py" <<'PY'
def half(n):
    """Half of n.

    >>> half(4)
    2
    """
    return n // 2
PY
echo 'src/ledger/doccases.py --doctest-modules --tb=line -rA' > "$T/run"
wait_run 6
expect_contains "$(head -1 "$T/runs/6/result.md")" "passed: 1 passed" "--doctest-modules ran the docstring example: $(head -3 "$T/runs/6/result.md")"
expect_contains "$(cat "$T/runs/6/output.txt")" "PASSED src/ledger/doccases.py::ledger.doccases.half" "-rA listed it"
rm "$PROJECT/src/ledger/doccases.py"

# A collection error: the cause and where it was raised, in result.md itself.
printf 'import ledger.nonexistent_module\n\n\ndef test_never():\n    pass\n' > "$PROJECT/tests/test_uncollectable_cases.py"
echo 'tests/test_uncollectable_cases.py' > "$T/run"
wait_run 7
result=$(cat "$T/runs/7/result.md")
expect_contains "$(head -1 <<<"$result")" "error: 1 error" "pytest's count: $result"
expect_contains "$result" "pytest ran no test: 1 error during collection; each error is below" "why nothing ran"
expect_contains "$result" "collecting it failed: ModuleNotFoundError: No module named 'ledger.nonexistent_module'" "the cause"
expect_contains "$result" "tests/test_uncollectable_cases.py:1: import ledger.nonexistent_module" "where it was raised"
rm "$PROJECT/tests/test_uncollectable_cases.py"

# Which interpreter ran, and why: in the run's _entry.md always, in result.md when pytest
# could not run; an interpreter without pytest says so and names the setting.
python3 -m venv --without-pip "$PROJECT/.venv"
echo 'tests/test_cached_cases.py' > "$T/run"
wait_run 8
result=$(cat "$T/runs/8/result.md")
expect_contains "$result" ".venv/bin/python (the project's .venv)" "which interpreter, and why: $result"
expect_contains "$result" "That interpreter has no pytest" "what is wrong with it"
expect_contains "$result" "import_check.python of $S/meta/settings.toml" "and the setting that chooses another"
rm -rf "$PROJECT/.venv"
echo 'tests/test_cached_cases.py' > "$T/run"
wait_run 9
expect_contains "$(cat "$T/runs/9/_entry.md")" "homespace: interpreter " "the run's entry says which interpreter"
expect_absent "$(cat "$T/runs/9/result.md")" "homespace: interpreter" "a result that ran needs no word on it"

# --collect-only lists the tests and runs none: collected, never passed.
echo 'tests/test_cached_cases.py --co -q' > "$T/run"
wait_run 10
result=$(cat "$T/runs/10/result.md")
expect_contains "$(head -1 <<<"$result")" "collected: 3 tests collected" "pytest's count: $result"
expect_contains "$result" "tests/test_cached_cases.py::test_broken" "the ids it collected"
expect_contains "$(cat "$T/runs/_entry.md")" "collected" "the runs' list says so"
expect_absent "$(head -1 <<<"$result")" "passed" "nothing reads as passed"
echo 'tests/test_cached_cases.py --collect-only' > "$T/run"
wait_run 11
result=$(cat "$T/runs/11/result.md")
expect_contains "$result" "<Function test_broken>" "without -q, pytest's tree of what it collected: $result"
expect_absent "$result" "rootdir: " "and not pytest's header"

[ -d "$PROJECT/.homespace/pytest-cache" ] || fail "the cache is in .homespace/pytest-cache"
[ ! -e "$PROJECT/.pytest_cache" ] || fail "no .pytest_cache beside the code"
expect_absent "$(ls -a "$S")" "pytest-cache" "the mount does not show the cache"
rm "$PROJECT/tests/test_cached_cases.py"
echo "source_tests_faithful.sh: ok"
