# A write past the documented limit (8 MiB) fails with EFBIG ("File too large") and changes
# nothing: the part written before the limit was hit must not be saved at close (SPEC §10:
# bad input gets a clear error and changes nothing).
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

sum=$(checksum "$ACC")
{ cat "$ACC"; head -c 9000000 /dev/zero | tr '\0' '#'; echo; } > huge.py # valid Python
expect_fails "File too large" "cp of a 9 MB module" -- cp huge.py "$S/ledger/accounts.py"
expect_sum "$ACC" "$sum" "the module is untouched (not its first 8 MiB)"

python3 - "$A/Account/debit.py" << 'PY' || fail "python sees EFBIG"
import errno, sys
try:
    with open(sys.argv[1], "w") as f:
        f.write("def debit(self, amount):\n    pass\n")
        f.write("#" * 9_000_000 + "\n")
except OSError as e:
    assert e.errno == errno.EFBIG, e
else:
    raise SystemExit("the 9 MB write succeeded")
PY
expect_sum "$ACC" "$sum" "the module is untouched after a too big symbol write"
errors=$(cat "$HS/_errors.md")
expect_contains "$errors" "at most 8 MiB; split the content" "the error says what to do"
expect_absent "$errors" "homespace import" "a module's error does not point to transcripts"
