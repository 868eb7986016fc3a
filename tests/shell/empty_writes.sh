# A document that cannot be empty refuses being emptied at the call the tool sees: the close
# of `cp /dev/null`, Python's open("w").close(), truncate. `: > f` is refused and logged at
# once, before the next command runs (bash itself ignores the outcome of closing a
# redirection); `echo x > f` keeps working.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"
T="$HS/tasks/open"
echo '{"title": "Keep me"}' > "$T/keep.json" || fail "a new task"
task=$(cat "$T/keep.json")
sum=$(checksum "$ACC")

: > "$A/Account/debit.py"
expect_contains "$(newest_error)" "debit.py was not saved" ": > names the file"
: > "$T/keep.json"
expect_contains "$(newest_error)" "keep.json" ": > over a task is logged at once"

expect_fails "Invalid argument" "cp /dev/null over a method" -- cp /dev/null "$A/Account/debit.py"
expect_fails "Invalid argument" "cp /dev/null over a module" -- cp /dev/null "$A.py"
expect_fails "Invalid argument" "cp /dev/null over a task" -- cp /dev/null "$T/keep.json"
expect_fails "Invalid argument" "Python emptying a method" -- \
  python3 -c "open('$A/Account/debit.py', 'w').close()"
expect_fails "Invalid argument" "truncate of a method" -- truncate -s 0 "$A/Account/debit.py"

expect_sum "$ACC" "$sum" "the module kept every byte"
expect_eq "$(cat "$T/keep.json")" "$task" "the task kept every byte"

# What must keep working: the shell's duplicate close before writing.
echo '{"title": "Keep me too"}' > "$T/keep.json" || fail "echo > over a task"
expect_contains "$(cat "$T/keep.json")" "Keep me too" "echo > landed"
printf 'def debit(self, amount):\n    return None\n' > "$A/Account/debit.py" || fail "printf > over a method"
expect_contains "$(cat "$A/Account/debit.py")" "return None" "printf > landed"
