# Run and wait in one command line: `echo > run; cat runs/latest/result.md` prints the
# final result of a run that takes seconds, with no sleep anywhere; ls and stat of runs/
# are answered while a reader waits; Ctrl-C ends the wait, not the run. A result names
# each failure's suspects as symbol files, followed through the test's imports (`import x
# as y`, `from x import y`, a package re-exporting with `*`, a constructor's class), and
# a failure file is shorter than pytest's own traceback with the assertion's diff once.
# These are the suspects guessed from the text, with tracing off (source_tests_suspects.sh
# has the ranked ones).
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

T="$S/tests"
sed -i 's/^trace = true$/trace = false/' "$S/meta/settings.toml"
expect_contains "$(cat "$S/meta/settings.toml")" "trace = false" "tracing is off"
mkdir -p "$PROJECT/src/ledger/shapes"
cat > "$PROJECT/src/ledger/shapes/core.py" <<'PY'
__all__ = ["windowed", "Box"]


def windowed(seq, n):
    """Consecutive windows of n items."""
    return [tuple(seq[i:i + n]) for i in range(len(seq) - n)]


class Box:
    def __init__(self, value):
        self.value = value

    def double(self):
        return _twice(self.value)


def _twice(value):
    if value < 0:
        raise ValueError(f"negative: {value}")
    return value * 2


def scale(value, factor):
    return value * factor + 1
PY
printf 'from .core import *\n' > "$PROJECT/src/ledger/shapes/__init__.py"
cat > "$PROJECT/tests/test_wait_cases.py" <<'PY'
import time

import ledger.shapes as sh
from ledger.shapes.core import Box, scale


def test_windowed():
    """Windows of two overlap by one and cover every item."""
    time.sleep(3)
    data = [1, 2, 3, 4]
    expected = [(1, 2), (2, 3), (3, 4)]
    assert sh.windowed(data, 2) == expected


def test_double():
    box = Box(-1)
    assert box.double() == -2


def test_scale():
    assert scale(2, 3) == 6
PY

# The slow test sleeps 3 s: a reader that did not wait would see "running".
echo 'tests/test_wait_cases.py' > "$T/run"
result=$(cat "$T/runs/latest/result.md")
expect_contains "$(head -1 <<<"$result")" "run 1 — failed: 3 failed" "the wait ends with the final result"
expect_absent "$result" "running" "no sign of a run still going"

# Suspects, through every kind of import: the first failure in detail, the others a line
# each with their likeliest suspect, every one in its failure file.
expect_contains "$result" "suspect: $S/ledger/shapes/core/windowed.py (src/ledger/shapes/core.py:4-6, on the failing line)" "import x as y, re-exported by the package"
expect_contains "$result" "test_wait_cases.test_double: ValueError: negative: -1 — suspect: $S/ledger/shapes/core/_twice.py" "another failure in a line, with where it raised"
expect_contains "$result" "test_wait_cases.test_scale: assert 7 == 6 — suspect: $S/ledger/shapes/core/scale.py" "from x import y"
double=$(cat "$T/runs/1/failures/tests.test_wait_cases.test_double.txt")
expect_contains "$double" "suspect: $S/ledger/shapes/core/_twice.py (src/ledger/shapes/core.py:17-20, raised here)" "the frame that raised"
expect_contains "$double" "suspect: $S/ledger/shapes/core/Box/double.py" "a method of a class the test constructed"
expect_contains "$double" "suspect: $S/ledger/shapes/core/Box/__init__.py (src/ledger/shapes/core.py:10-11, called before it)" "the constructor"
expect_contains "$double" "tests/test_wait_cases.py:17" "the failing line's place"
expect_contains "$(cat "$S/ledger/shapes/core/windowed.py")" "def windowed" "a suspect's path is its symbol file"
expect_contains "$result" "ledger.shapes.core.windowed, as it is now:
def windowed(seq, n):" "the first suspect's code, short as it is, comes with the result"

# The failure file: the test, the suspects, the failing lines, the diff once; shorter than
# pytest's own long traceback of the same failure.
failure="$T/runs/1/failures/tests.test_wait_cases.test_windowed.txt"
expect_contains "$(cat "$failure")" "test: $T/test_wait_cases/test_windowed.py" "the test's symbol file"
expect_contains "$(cat "$failure")" "suspect: $S/ledger/shapes/core/windowed.py" "the suspect"
expect_eq "$(grep -c 'Right contains one more item' "$failure")" "1" "the assertion's diff once"
expect_absent "$(cat "$failure")" "time.sleep" "not the whole test"
long=$( (cd "$PROJECT" && PYTHONPATH=src python3 -m pytest -p no:cacheprovider --tb=long -q tests/test_wait_cases.py::test_windowed 2>&1 || true) \
  | sed -n '/^_* test_windowed _*$/,/^=* short test summary/p')
expect_contains "$long" "Right contains one more item" "pytest's own traceback of the failure"
[ "$(wc -c < "$failure")" -lt "${#long}" ] || fail "the failure file ($(wc -c < "$failure") bytes) is not shorter than pytest --tb=long (${#long}):
$(cat "$failure")
---
$long"

# While a reader waits, ls and stat are answered and the reader is still waiting.
echo 'tests/test_wait_cases.py' > "$T/run"
cat "$T/runs/latest/result.md" > waited.txt &
reader=$!
expect_contains "$(ls "$T/runs")" "2" "ls runs/ answered during the wait"
stat "$T/runs/latest/_entry.md" > /dev/null || fail "stat answered during the wait"
expect_contains "$(head -2 "$T/runs/2/_entry.md")" "running" "the run goes on"
kill -0 "$reader" 2>/dev/null || fail "the reader did not wait for the run"
wait "$reader" || fail "the waiting reader failed"
expect_contains "$(head -1 waited.txt)" "run 2 — failed" "the waiting reader got the final result"

# Ctrl-C ends the wait, not the run.
echo 'tests/test_wait_cases.py' > "$T/run"
# A background job of a script ignores SIGINT: the reader restores what a terminal's has.
python3 -c 'import signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
sys.stdout.write(open(sys.argv[1]).read())' "$T/runs/latest/result.md" > interrupted.txt 2>&1 &
reader=$!
# Until it waits in its open (syscall 257, openat) of the result.
in_open() { case "$(cat "/proc/$1/syscall" 2>/dev/null)" in 257\ *) return 0;; esac; return 1; }
poll_until 10 0.05 in_open "$reader" || true
kill -INT "$reader"
status=0; wait "$reader" || status=$?
[ "$status" -ne 0 ] || fail "an interrupted reader should not succeed"
expect_contains "$(head -2 "$T/runs/3/_entry.md")" "running" "the run goes on after the reader gave up"
expect_contains "$(head -1 "$T/runs/latest/result.md")" "run 3 — failed" "and a new reader waits for its end"

# A write that starts nothing is said by the result read after it, not hidden behind the
# previous run's.
echo '--pdb' > "$T/run" 2>/dev/null || true
expect_contains "$(cat "$T/runs/latest/result.md")" "Your newest write to run started nothing" "a refused start is said"

# A write refused because a run was running is not told under that run's result once it
# has ended: the reader wants the result.
echo 'tests/test_wait_cases.py' > "$T/run"
busy=$( (echo 'tests/test_wait_cases.py' > "$T/run") 2>&1 || true)
expect_contains "$(newest_error)" "is still running" "the second write was refused while the first ran: $busy"
result=$(cat "$T/runs/latest/result.md")
expect_contains "$(head -1 <<<"$result")" "run 4 — failed" "the wait ends with run 4's result"
expect_absent "$result" "started nothing" "no stale notice of the refused write"
