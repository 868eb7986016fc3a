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

# A copy saved earlier and written back with cp carries no open handle, but says when it was
# read ("updated"): written after another change, it is refused the same way, and the other
# change is kept. Without "updated" a write is a plain overwrite.
echo '{"title": "Release", "priority": 2}' > "$HS/tasks/open/release.json"
cat "$HS/tasks/open/release.json" > r.json
clock_forward 2  # the store keeps times to the second: the other writer's change must be later
sed -i 's/"priority": 2/"priority": 0/' "$HS/tasks/open/release.json"
sed -i 's/"Release"/"Release 1.0"/' r.json
expect_fails "Device or resource busy" "a stale copy written with cp" -- cp r.json "$HS/tasks/open/release.json"
expect_contains "$(cat "$HS/tasks/open/release.json")" '"priority": 0' "the other writer's change is kept"
expect_contains "$(cat "$HS/_errors.md")" "after your copy was read" "the refusal says why"
python3 -c 'import json, sys; t = json.load(open("r.json")); del t["updated"]; json.dump(t, sys.stdout)' > r2.json
cp r2.json "$HS/tasks/open/release.json" || fail "without \"updated\" a write overwrites"
expect_contains "$(cat "$HS/tasks/open/release.json")" "Release 1.0" "the overwrite landed"
