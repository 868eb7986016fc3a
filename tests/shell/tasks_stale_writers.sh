# Two writers open the same task, each changes it and saves: the first lands, the second is
# refused at its close (EBUSY, "Device or resource busy") with a message, and the task holds
# the first change — no update is lost silently.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"
echo '{"title": "Shared task", "priority": 2}' > "$HS/tasks/open/shared.json"
out=$(python3 - "$HS/tasks/open/shared.json" 2>&1 <<'PY'
import sys
path = sys.argv[1]
first, second = open(path, "r+"), open(path, "r+")
seen = first.read()
second.read()
for f, who in ((first, "first"), (second, "second")):
    f.seek(0)
    f.write(seen.replace("Shared task", f"Shared task ({who})"))
    f.truncate()
try:
    first.close()
    print("first saved")
    second.close()
    print("second saved")
except OSError as e:
    print(f"refused: {e}")
PY
)
expect_contains "$out" "first saved" "the first writer lands"
expect_contains "$out" "refused: [Errno 16] Device or resource busy" "the second is refused at close"
expect_contains "$(cat "$HS/tasks/open/shared.json")" "Shared task (first)" "the first change is kept"
expect_contains "$(cat "$HS/_errors.md")" "changed by another writer after you opened it" "the refusal says why"
