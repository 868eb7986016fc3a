# Editors' temp files are allowed in any writable directory (SPEC §3), whatever their names:
# tools that write a temp file beside the file and rename it over it must work like sed -i.
# patch names its temp file debit.py.oXXXXXX, perl -i XXxxxxxx, Python's tempfile
# tmpxxxxxxxx, JetBrains' safe write debit.py___jb_tmp___ — none of them is a symbol's name.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"

# edited QUALNAME FILE NEW WHAT: the edit landed as for every other tool.
edited() {
  with_symbol before.py "$1" "$3" > expected.py
  expect_file "$ACC" expected.py "$4"
  expect_no_temp_files "$C"
}

# patch (agents apply diffs with it)
cp "$ACC" before.py
cat "$C/debit.py" > old.py
sed 's/Record a debit of/Record one debit of/' old.py > new.py
status=0
diff -u old.py new.py > debit.diff || status=$?
expect_eq "$status" 1 "diff finds the files different (exit status 1)"
patch -s "$C/debit.py" < debit.diff || fail "patch of a symbol file"
edited Account.debit "$C/debit.py" new.py "patch"

# perl -pi -e (perl prints a warning but exits 0 when it cannot make its temp file)
cp "$ACC" before.py
sed 's/Record a credit of/Record one credit of/' "$C/credit.py" > new.py
out=$(perl -pi -e 's/Record a credit of/Record one credit of/' "$C/credit.py" 2>&1) || fail "perl -pi: $out"
expect_eq "$out" "" "perl -pi says nothing"
edited Account.credit "$C/credit.py" new.py "perl -pi"

# Python's atomic write: tempfile.NamedTemporaryFile in the same directory, then os.replace
cp "$ACC" before.py
sed 's/Apply a signed amount/Apply one signed amount/' "$C/apply.py" > new.py
python3 - "$C/apply.py" << 'PY' || fail "python atomic write"
import os, sys, tempfile
path = sys.argv[1]
with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), delete=False) as f:
    f.write(open("new.py").read())
os.replace(f.name, path)
PY
edited Account.apply "$C/apply.py" new.py "tempfile + os.replace"
