# No lost work: a file opened for writing remembers what it held. If the same code changed
# meanwhile — on disk, by an editor or git, or through another file of the mount — saving
# is refused with EBUSY ("Device or resource busy") and the other change stays. A change
# elsewhere in the module is no conflict: both land.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"

# edit_during FILE MODE OUTSIDE...: open FILE with Python in MODE ("r+" or "w"), run the
# command OUTSIDE while it is open, then write FILE's content with "(mine)" added to its
# first docstring and close. Prints "ok" or the errno of the failure.
edit_during() {
  local file=$1 mode=$2
  shift 2
  python3 - "$file" "$mode" "$@" << 'EOF'
import subprocess, sys
path, mode, outside = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(path).read()
mine = text.replace('"""', '"""(mine) ', 1)
try:
    with open(path, mode) as f:
        subprocess.run(outside, check=True)
        f.seek(0)
        f.write(mine)
        f.truncate()
    print("ok")
except OSError as e:
    print(e.errno)
EOF
}

# The same method changed on disk while debit.py is open: refused, the disk's change kept.
expect_eq "$(edit_during "$C/debit.py" r+ sed -i 's/Record a debit of/Record a DEBIT of/' "$ACC")" 16 \
  "saving over a change on disk fails with EBUSY"
expect_contains "$(cat "$ACC")" "Record a DEBIT of" "the change on disk is kept"
expect_absent "$(cat "$ACC")" "(mine)" "the stale edit did not land"
expect_reported "$C" "debit.py was changed by someone else since you opened it"

# The same, with open(p, "w"): what the file held at open is what counts.
expect_eq "$(edit_during "$C/credit.py" w sed -i 's/Record a credit of/Record a CREDIT of/' "$ACC")" 16 \
  "open(p, 'w') over a change on disk fails with EBUSY"
expect_contains "$(cat "$ACC")" "Record a CREDIT of" "the change on disk is kept"
expect_absent "$(cat "$ACC")" "(mine)" "the stale edit did not land"

# Another method changed on disk while debit.py is open: both changes land.
expect_eq "$(edit_during "$C/debit.py" r+ sed -i 's/Apply a signed amount/Apply one signed amount/' "$ACC")" ok \
  "a change elsewhere in the module is no conflict"
expect_contains "$(cat "$ACC")" "Apply one signed amount" "the change on disk is kept"
expect_contains "$(cat "$ACC")" '"""(mine) Record a DEBIT of' "and the edit landed"

# The whole module changed on disk while accounts.py is open: refused.
expect_eq "$(edit_during "$S/ledger/accounts.py" r+ sed -i 's/^CENT = /CENT: Decimal = /' "$ACC")" 16 \
  "saving a module over a change on disk fails with EBUSY"
expect_contains "$(cat "$ACC")" "CENT: Decimal = " "the change on disk is kept"
expect_absent "$(cat "$ACC")" '"""(mine) Accounts' "the stale module did not land"
expect_reported "$S/ledger" "accounts.py was changed by someone else since you opened it"

# The method changed through the mount (another writer) while it is open: refused too.
printf 'def apply(self, signed: Decimal) -> None:\n    """Apply it."""\n    self.debit(signed)\n' > apply.py
expect_eq "$(edit_during "$C/apply.py" r+ cp apply.py "$C/apply.py")" 16 \
  "saving over another writer's edit fails with EBUSY"
expect_eq "$(cat "$C/apply.py")" "$(cat apply.py)" "the other writer's edit is kept"
