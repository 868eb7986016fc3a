# Run as another user on a mount made with --allow-other --allow-other-write over a
# world-writable project: changes land, validated as always, but the project's code never
# runs for them (no import check), and the settings that choose the interpreter stay the
# owner's.
S="$HS/source"
pwn_module /tmp/pwn-$$.py "$MARKER"
cp /tmp/pwn-$$.py "$S/ledger/pwn.py" || fail "another user may create a module when allowed"
rm -f /tmp/pwn-$$.py
[ -e "$PROJECT/src/ledger/pwn.py" ] || fail "the module reached the project"
expect_missing "$MARKER" "the import check never runs another user's code"
expect_fails "Invalid argument" "invalid Python is still refused" -- sh -c "echo 'def (' | tee '$S/ledger/journal/total.py'"
expect_fails "Permission denied" "settings stay the owner's" -- sh -c "printf '[import_check]\nenabled = false\n' | tee '$S/meta/settings.toml'"
