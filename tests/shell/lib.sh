# Helpers for the shell tests: each prints what was expected and what came instead.
# Scripts run with $HS (the mountpoint), $PROJECT (the mounted project copy) and
# $HOMESPACE (the binary).

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"; }

# expect_contains TEXT NEEDLE WHAT
expect_contains() { case "$1" in *"$2"*) ;; *) fail "$3: [$2] not in:
$1";; esac; }

# expect_absent TEXT NEEDLE WHAT
expect_absent() { case "$1" in *"$2"*) fail "$3: [$2] should not be in:
$1";; esac; }

# expect_fails ERRNO_TEXT WHAT -- COMMAND...: the command fails and says ERRNO_TEXT.
expect_fails() {
  local want=$1 what=$2; shift 3
  local out
  if out=$("$@" 2>&1); then fail "$what: succeeded but should fail"; fi
  expect_contains "$out" "$want" "$what"
}

# tokens FILE: the budget estimate ceil(chars / 4)
tokens() { local c; c=$(wc -m < "$1"); echo $(( (c + 3) / 4 )); }

# pwn_module FILE MARKER: a Python module that creates MARKER when imported — proof that
# the project's code ran.
pwn_module() { printf 'open("%s", "w").write("ran")\n' "$2" > "$1"; }
