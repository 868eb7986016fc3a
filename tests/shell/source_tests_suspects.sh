# Suspects ranked from what the failing tests ran (issue 44). A regression made through the
# mount names the edited symbol first, though the failing tests reach it only through a
# harness helper and another function, and a passing test runs it too; the failure file
# lists the ranked suspects with their scores and never a test; a failing test that ran no
# project code says it has no ranked suspect instead of guessing; with tests.trace = false
# the suspects are guessed from the text again.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

T="$S/tests"
cat > "$PROJECT/src/ledger/rates.py" <<'PY'
def _scale(amount, rate):
    return amount * rate / 100


def _rounded(value):
    return round(value, 2)


def interest(amount, rate):
    if amount < 0:
        raise ValueError("negative amount")
    return _rounded(_scale(amount, rate))


def fee(amount):
    return _rounded(amount * 0.01)
PY
cat > "$PROJECT/tests/test_rates_cases.py" <<'PY'
import pytest

from ledger import rates


def check(f, *args):
    return f(*args)


def test_interest():
    assert check(rates.interest, 200, 5) == 10


def test_interest_small():
    assert check(rates.interest, 1, 50) == 0.5


def test_fee():
    assert check(rates.fee, 100) == 1


def test_scale_of_nothing():
    assert rates._scale(0, 5) == 0


def test_negative():
    with pytest.raises(ValueError):
        rates.interest(-1, 5)
PY
printf 'def test_plain():\n    print("a line of output\\n" * 400)\n    assert 1 + 1 == 3\n' > "$PROJECT/tests/test_plain_cases.py"

echo 'tests/test_rates_cases.py' > "$T/run"
wait_run 1
expect_contains "$(head -2 "$T/runs/1/_entry.md")" "passed: 5 passed" "green before the edit"

# The regression, made through the mount: _scale divides by 1000.
printf 'def _scale(amount, rate):\n    return amount * rate / 1000\n' > "$S/ledger/rates/_scale.py"
# A passing run is not traced: no view counts tests yet (read now, so the kernel keeps it).
expect_absent "$(cat "$S/ledger/rates/_entry.md")" "**Tests**" "no trace yet"
echo 'tests/test_rates_cases.py' > "$T/run"
wait_run 2
result=$(cat "$T/runs/2/result.md")
expect_contains "$result" "2 failed, 3 passed" "the edit broke two tests"
first=$(echo "$result" | grep -m1 'suspect:')
expect_contains "$first" "suspect: $S/ledger/rates/_scale.py (src/ledger/rates.py:1-2, changed since the last green run" "the edited symbol first, saying why: $result"
expect_contains "$result" "ledger.rates._scale, as it is now:" "the first suspect's code, short enough to show"
expect_contains "$result" "    return amount * rate / 1000" "whole"
expect_contains "$result" "    12: return _rounded(_scale(amount, rate))" "the line of a suspect that ranked highest, with its code"
expect_contains "$(cat "$T/runs/2/output.txt")" "homespace: traced 5 tests of 1 file again in" "the output says what was traced"
failure=$(cat "$T/runs/2/failures/tests.test_rates_cases.test_interest.txt")
suspects=$(echo "$failure" | grep '^suspect:')
expect_eq "$(echo "$suspects" | head -1 | sed 's/.*(\(src[^,]*\), score \([0-9.]*\),.*/\1 \2/')" "src/ledger/rates.py:1-2 0.82" "ranked first with its Ochiai score: $failure"
expect_contains "$suspects" "suspect: $S/ledger/rates/interest.py (src/ledger/rates.py:9-12, score 1.00, ran only by failing tests)" "the caller only failing tests ran, scored higher, ranked after the change"
expect_absent "$suspects" "$T/" "a test or the harness helper is never a suspect"
expect_absent "$suspects" "fee.py" "code no failing test ran is no suspect"

# The module's view says how many traced tests ran it and how to run just those, as soon as
# the run that traced them ends.
view=$(cat "$S/ledger/rates/_entry.md")
expect_contains "$view" "**Tests**: 5 traced tests ran this (" "the module's view counts the tests that ran it: $view"
expect_contains "$view" "\`echo 'covering ledger.rates' > $T/run\`" "and says how to run just those"
echo 'covering ledger.rates._scale' > "$T/run"
wait_run 3
expect_contains "$(head -3 "$T/runs/3/result.md")" "homespace: covering ledger.rates._scale: the 3 tests whose newest trace ran it" "covering runs the tests that ran the symbol: $(cat "$T/runs/3/result.md")"
expect_contains "$(head -1 "$T/runs/3/result.md")" "2 failed, 1 passed" "just those three"

# A failing test that ran no project code: said, not guessed.
echo 'tests/test_plain_cases.py' > "$T/run"
wait_run 4
expect_contains "$(cat "$T/runs/4/result.md")" "No ranked suspect: the failing test ran no project code" "no guess"
# output.txt is all pytest printed, however long: no budget cuts it.
expect_eq "$(grep -c '^a line of output$' "$T/runs/4/output.txt")" "400" "the whole output"
expect_contains "$(tail -1 "$T/runs/4/output.txt")" "homespace: traced 1 test of 1 file again in" "to its last line"

# A bug already there before the first run (written outside the mount): no green run to
# tell a change from, but the probe finds the one-token change that makes the failing test
# pass, ranks its symbol first and says the change.
cat > "$PROJECT/src/ledger/steps.py" <<'PY'
def _tick(counter):
    """Count one more item in `counter`, a dict with the count under "n".

    The counter is a dict rather than an int so that the callers that share
    one see each other's counts; the count is returned so that a caller can
    stop at a limit without reading the dict again. Nothing else is kept: a
    counter holds no items, only how many there were, and never goes down.

    Why a step of one: every caller counts items one at a time, as they come,
    and a step of more would count an item twice. A caller that wants the
    count of a batch calls this once per item of the batch, never once for
    the whole batch; the count then always equals the items seen so far.
    """
    counter["n"] += 2
    return counter["n"]


def count(items):
    counter = {"n": 0}
    for _ in items:
        _tick(counter)
    return counter["n"]
PY
printf 'from ledger import steps\n\n\ndef test_count():\n    assert steps.count([1, 2, 3]) == 3\n\n\ndef test_nothing():\n    assert steps.count([]) == 0\n' > "$PROJECT/tests/test_steps_cases.py"
# More failures, each with its own message: "assert 2 == 1", "assert 4 == 2", ...
for n in 1 2 4 5 6 7 8; do
    printf '\n\ndef test_count_%s():\n    assert steps.count([0] * %s) == %s\n' $n $n $n >> "$PROJECT/tests/test_steps_cases.py"
done
echo 'tests/test_steps_cases.py' > "$T/run"
wait_run 5
result=$(cat "$T/runs/5/result.md")
expect_contains "$(echo "$result" | grep -m1 -A1 'suspect:')" "suspect: $S/ledger/steps/_tick.py (src/ledger/steps.py:1-15, ran only by failing tests)
    passes with line 14 as \`counter[\"n\"] += 1\` (it is \`counter[\"n\"] += 2\`), and so do 7 more failing tests" "the probed fix ranks first and says the change: $result"
# It made every failing test pass: the other suspects are counted, not told.
expect_eq "$(echo "$result" | grep -c '^  suspect: ')" "1" "one suspect told: $result"
expect_contains "$result" "  1 weaker suspect: its failure file lists it" "the others counted"
expect_contains "$(cat "$T/runs/5/failures/tests.test_steps_cases.test_count.txt")" '  passes with line 14 as `counter["n"] += 1`' "so does the failure file"
expect_contains "$result" "ledger.steps._tick, as it is now:" "the suspect's code: $result"
expect_contains "$result" "- test_steps_cases.test_count_1: passes with the same one-token change" \
  "other failures a line each, saying the change passes them"
expect_contains "$(cat "$T/runs/5/output.txt")" "one-token changes on" "the output says what the probe tried: $(tail -3 "$T/runs/5/output.txt")"

# Tracing off: no second pass, suspects from the text (what the failing line calls).
sed -i 's/^trace = true$/trace = false/' "$S/meta/settings.toml"
echo 'tests/test_rates_cases.py' > "$T/run"
wait_run 6
expect_absent "$(cat "$T/runs/6/output.txt")" "homespace: traced" "not traced"
expect_contains "$(cat "$T/runs/6/result.md")" "suspect: $S/ledger/rates/interest.py" "guessed from the failing line's call"
expect_absent "$(cat "$T/runs/6/result.md")" "changed since the last green run" "a guess claims no change"
sed -i 's/^trace = false$/trace = true/' "$S/meta/settings.toml"
rm "$PROJECT/src/ledger/rates.py" "$PROJECT/src/ledger/steps.py" "$PROJECT/tests/test_rates_cases.py" "$PROJECT/tests/test_plain_cases.py" "$PROJECT/tests/test_steps_cases.py"
echo "source_tests_suspects.sh: ok"
