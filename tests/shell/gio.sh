# A file manager's view, through GIO (what Nautilus and Thunar use): listing, info, copying
# a module out, dragging a task between status folders, and the trash — which homespace
# refuses with a message (nothing could come back from it), leaving no .Trash folder.
source "$(dirname "${BASH_SOURCE[0]}")/tasks_lib.sh"

listing=$(gio list "$HS/")
expect_contains "$listing" "source" "gio list shows the resourcespaces"
expect_contains "$listing" "_entry.md" "gio list shows the entry view"

echo '{"title": "Drag me to done"}' > "$T/open/drag-me.json" || fail "create a task"
info=$(gio info "$T/open/drag-me.json")
expect_contains "$info" "type: regular" "gio info: a task is a regular file"
expect_contains "$info" "size:  $(wc -c < "$T/open/drag-me.json")" "gio info: the size is the bytes"

gio copy "$HS/source/ledger/accounts.py" accounts.py || fail "gio copy a module out"
cmp -s accounts.py "$PROJECT/src/ledger/accounts.py" || fail "gio copy: the module's exact bytes"

# A drag from open/ to done/.
gio move "$T/open/drag-me.json" "$T/done/" || fail "gio move between status folders"
expect_missing "$T/open/drag-me.json" "the task left open/"
expect_contains "$(cat "$T/done/drag-me.json")" '"status": "done"' "the drag changed the status"

# The trash: refused, explained, nothing left behind.
expect_fails "trash" "gio trash" -- gio trash "$T/done/drag-me.json"
expect_contains "$(cat "$T/done/drag-me.json")" "Drag me to done" "a refused trash keeps the task"
expect_absent "$(ls -a "$HS" "$T" "$T/done")" ".Trash" "no trash folder anywhere"
expect_contains "$(cat "$HS/_errors.md")" "homespace keeps no trash" "_errors.md says why"
# The file manager's probes (.hidden, thumbnails, autorun) are answered quietly.
expect_absent "$(cat "$HS/_errors.md")" "id you mean" "no probe taken for a typo"
