# Helpers for the shell tests: each prints what was expected and what came instead.
# Scripts run with $HS (the mountpoint), $PROJECT (the mounted project copy), $STORE (the
# store's file) and $HOMESPACE (the binary), under `set -euo pipefail`: a command that fails
# where the script does not check it ends the script, as a failure.
#
# So an assertion puts its check in the condition of `||` or `if` (`[ -f x ] || fail ...`,
# `expect_missing`, `expect_fails`), never `check && fail ...` or a bare `! command`: bash
# exempts both from `set -e`, and the first one fails the script where its check passes.

fail() { echo "FAIL: $*" >&2; exit 1; }

# Which unchecked command ended the script, and where (a line of the script itself; one
# inside a helper function ends it with that helper's message, if any).
trap 'echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: \`$BASH_COMMAND\` failed (exit status $?)" >&2' ERR

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"; }

# expect_contains TEXT NEEDLE WHAT
expect_contains() { case "$1" in *"$2"*) ;; *) fail "$3: [$2] not in:
$1";; esac; }

# expect_seen FILE NEEDLE WHAT: after a change made outside the mount (a project file
# edited on disk, the store changed by another process), FILE shows NEEDLE once the mount's
# watcher has seen the change (milliseconds; given up to 5 s on a loaded machine).
expect_seen() {
  local i
  for i in $(seq 500); do
    case "$(cat "$1" 2> /dev/null)" in *"$2"*) return 0 ;; esac
    sleep 0.01
  done
  fail "$3: [$2] not in:
$(cat "$1")"
}

# expect_unlisted DIR NAME WHAT: likewise, DIR's listing no longer holds NAME.
expect_unlisted() {
  local i
  for i in $(seq 500); do
    case "$(ls "$1")" in *"$2"*) sleep 0.01 ;; *) return 0 ;; esac
  done
  fail "$3: $2 is still listed in $1"
}

# expect_absent TEXT NEEDLE WHAT
expect_absent() { case "$1" in *"$2"*) fail "$3: [$2] should not be in:
$1";; esac; }

# expect_missing PATH WHAT: nothing is at PATH.
expect_missing() { [ ! -e "$1" ] || fail "$2: $1 exists"; }

# expect_fails ERRNO_TEXT WHAT -- COMMAND...: the command fails and says ERRNO_TEXT.
expect_fails() {
  local want=$1 what=$2; shift 3
  local out
  if out=$("$@" 2>&1); then fail "$what: succeeded but should fail"; fi
  expect_contains "$out" "$want" "$what"
}

# filter GREP_ARGS...: grep -E over stdin, where finding no line is no failure (grep exits
# with 1 for that, which `set -eo pipefail` would take for an error).
filter() { grep -E "$@" || [ $? = 1 ]; }

# tokens FILE: the budget estimate ceil(chars / 4)
tokens() { local c; c=$(wc -m < "$1"); echo $(( (c + 3) / 4 )); }

# pwn_module FILE MARKER: a Python module that creates MARKER when imported — proof that
# the project's code ran.
pwn_module() { printf 'open("%s", "w").write("ran")\n' "$2" > "$1"; }
