# Helpers for the shell tests: each prints what was expected and what came instead.
# Scripts run with $HS (the mountpoint), $PROJECT (the mounted project copy), $STORE (the
# store's file), $HOMESPACE (the binary) and $CLOCK (the daemon's test clock, stepped with
# clock_forward), under `set -euo pipefail`: a command that fails where the script does not
# check it ends the script, as a failure.
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

# poll_until SECONDS PAUSE COMMAND...: run COMMAND every PAUSE seconds until it succeeds or
# SECONDS have passed; the status says which. The one wait of these scripts for a change
# made elsewhere (shown through the mount after milliseconds, seconds on a loaded
# machine), so none sleeps a fixed time and hopes.
poll_until() {
  local limit=$1 pause=$2
  shift 2
  # Microseconds since the epoch (whatever the locale's decimal point).
  local deadline=$(( ${EPOCHREALTIME//[!0-9]/} + limit * 1000000 ))
  until "$@"; do
    (( ${EPOCHREALTIME//[!0-9]/} < deadline )) || return 1
    sleep "$pause"
  done
}

# shows FILE NEEDLE: FILE can be read and holds NEEDLE (a condition for poll_until).
shows() { case "$(cat "$1" 2> /dev/null)" in *"$2"*) return 0 ;; esac; return 1; }

# unlisted DIR NAME: DIR's listing does not hold NAME (a condition for poll_until).
unlisted() { case "$(ls "$1")" in *"$2"*) return 1 ;; esac; }

# expect_seen FILE NEEDLE WHAT: after a change made outside the mount (a project file
# edited on disk, the store changed by another process), FILE shows NEEDLE once the mount's
# watcher has seen the change (milliseconds; given up to 5 s on a loaded machine).
expect_seen() {
  poll_until 5 0.01 shows "$1" "$2" || fail "$3: [$2] not in:
$(cat "$1")"
}

# expect_unlisted DIR NAME WHAT: likewise, DIR's listing no longer holds NAME.
expect_unlisted() {
  poll_until 5 0.01 unlisted "$1" "$2" || fail "$3: $2 is still listed in $1"
}

# newest_error: the newest failure in /_errors.md — its first line and its problem lines.
newest_error() { awk '/^- /{n++} n==1' "$HS/_errors.md"; }

# clock_forward SECONDS: step the daemon's clock SECONDS ahead (its test clock, the file
# $CLOCK): what must happen a second later (times are stored to the second) without
# sleeping past one.
clock_forward() {
  local now=0
  if [ -s "$CLOCK" ]; then now=$(cat "$CLOCK"); fi
  echo $(( now + $1 )) > "$CLOCK"
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
