# Editing a whole module file (source/ledger/accounts.py) with every tool. A valid edit
# makes the real file exactly what was written (its mode kept); an invalid one is refused
# as a whole — the real file keeps every byte, the tools that check close() or rename()
# fail with "Invalid argument", and _errors.md and the package's _entry.md give line and
# column. The expected files are made with sed on a copy, never through the mount.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

M="$S/ledger/accounts.py"
P="$S/ledger"
chmod 640 "$ACC" # an unusual mode, to see that it is kept

# landed EXPECTED WHAT: the real module is now exactly EXPECTED, and reads back the same.
landed() {
  expect_file "$ACC" "$1" "$2"
  cmp -s "$M" "$1" || fail "$2: $M does not read back what was written"
  expect_eq "$(stat -c %s "$M")" "$(wc -c < "$1")" "$2: stat's size of $M"
  expect_eq "$(stat -c %a "$ACC")" 640 "$2: the file's mode is kept"
}

# refused WHAT LINE_COLUMN: the real module is as before and the newest error says why.
refused() {
  expect_sum "$ACC" "$sum" "$1 left the module untouched"
  expect_reported "$P" "accounts.py was not saved" "$2"
}

# --- echo > (the module's whole text) -------------------------------------------------------
sed 's/^CENT = Decimal("0.01")$/CENT = Decimal("0.01")  # one cent/' "$ACC" > expected.py
echo "$(cat expected.py)" > "$M"
landed expected.py "echo > of the whole module"

sum=$(checksum "$ACC")
echo 'CENT = = 1' > "$M"
refused "echo > with a syntax error" "line 1, column 8"

# --- echo >> --------------------------------------------------------------------------------
{ cat "$ACC"; echo '# End of ledger.accounts.'; } > expected.py
echo '# End of ledger.accounts.' >> "$M"
landed expected.py "echo >> of a comment"

sum=$(checksum "$ACC")
echo 'ZERO = parse_amount(0' >> "$M"
refused "echo >> with an unclosed parenthesis" "line 99, column 1"

# --- cat > ----------------------------------------------------------------------------------
sed 's/^__all__ = \["Account", "parse_amount"\]$/__all__ = ["Account", "CENT", "parse_amount"]/' "$ACC" > expected.py
cat expected.py | cat > "$M" || fail "cat > of a valid module"
landed expected.py "cat >"

sum=$(checksum "$ACC")
sed 's/^class Account:$/class Account/' "$ACC" > bad.py
expect_fails "Invalid argument" "cat > with a syntax error" -- sh -c "cat bad.py > '$M'"
refused "cat > with a missing colon" "line 24, column 14"

# --- printf > -------------------------------------------------------------------------------
sed 's/^import enum$/import enum  # the account kinds/' "$ACC" > expected.py
printf '%s\n' "$(cat expected.py)" > "$M"
landed expected.py "printf >"

sum=$(checksum "$ACC")
printf 'import enum\nfrom decimal import (Decimal\n' > "$M"
refused "printf > with an unclosed import" "line 3, column"

# --- tee ------------------------------------------------------------------------------------
sed 's/"""Accounts: named buckets/"""Accounts: named, typed buckets/' "$ACC" > expected.py
tee "$M" < expected.py > /dev/null || fail "tee of a valid module"
landed expected.py "tee"

sum=$(checksum "$ACC")
sed 's/^    def debit(self, amount/    def debit(self amount/' "$ACC" > bad.py
expect_fails "Invalid argument" "tee of a broken module" -- tee "$M" < bad.py
refused "tee with a syntax error" "line 63, column 20"

# --- cp -------------------------------------------------------------------------------------
sed 's/^        return self._balance$/        return +self._balance/' "$ACC" > expected.py
cp expected.py "$M" || fail "cp of a valid module"
landed expected.py "cp"

sum=$(checksum "$ACC")
printf 'def f(:\n    pass\n\ndef g(x y):\n    pass\n' > bad.py
expect_fails "Invalid argument" "cp of a broken module" -- cp bad.py "$M"
refused "cp with two syntax errors" "line 1, column 7"
expect_contains "$(newest_error)" "line 4, column 9" "all problems are reported together"

# --- sed -i ---------------------------------------------------------------------------------
sed 's/raise ValueError(f"invalid account name/raise ValueError(f"bad account name/' "$ACC" > expected.py
sed -i 's/raise ValueError(f"invalid account name/raise ValueError(f"bad account name/' "$M" || fail "sed -i"
landed expected.py "sed -i"
expect_no_temp_files "$P"

sum=$(checksum "$ACC")
expect_fails "Invalid argument" "sed -i with a syntax error" -- sed -i 's/^CENT = /CENT == = /' "$M"
refused "sed -i with a syntax error" "line 10, column 9"
expect_no_temp_files "$P"

# --- vim -es --------------------------------------------------------------------------------
sed 's/"""A named account with a kind and a running balance./"""A named account with a kind and a balance./' "$ACC" > expected.py
vim -es -i NONE -c '%s/"""A named account with a kind and a running balance./"""A named account with a kind and a balance./' \
  -c 'wq' "$M" || fail "vim -es"
landed expected.py "vim -es"

sum=$(checksum "$ACC")
if vim -es -i NONE -c '%s/^from __future__ import annotations$/from __future__ import/' -c 'wq' "$M" 2> /dev/null; then
  fail "vim -es reports the refused write"
fi
refused "vim -es with a syntax error" "line 3, column 23"
rm -f "$P/.accounts.py.swp" # vim keeps its swap file after a failed write

# --- vim as a user runs it (swap file, the 4913 probe, backup by rename) ----------------------
sed 's/ROUND_HALF_EVEN)$/ROUND_HALF_EVEN)  # banker'"'"'s rounding/' "$ACC" > expected.py
vim -u DEFAULTS -i NONE --cmd 'set backupskip=' -c '%s/ROUND_HALF_EVEN)$/ROUND_HALF_EVEN)  # banker'"'"'s rounding/' \
  -c 'wq' "$M" < /dev/null > /dev/null 2>&1 || fail "vim"
landed expected.py "vim"
expect_no_temp_files "$P"
expect_eq "$(cat "$PROJECT/src/ledger/__init__.py")" "$(cat "$(dirname "${BASH_SOURCE[0]}")/../../examples/ledger/src/ledger/__init__.py")" \
  "vim's backup by rename does not touch __init__.py"

# --- Python: open(p, "w") and several write() calls -----------------------------------------
sed 's/^CENT = Decimal("0.01")  # one cent$/CENT = Decimal("0.01")  # one cent, the smallest amount/' "$ACC" > expected.py
python3 - "$M" << 'EOF' || fail "python's open(p, 'w') with several writes"
import sys
text = open("expected.py").read()
with open(sys.argv[1], "w") as f:
    for start in range(0, len(text), 100):
        f.write(text[start:start + 100])  # 100 characters per write(): saved once, at close
EOF
landed expected.py "python with several writes"

sum=$(checksum "$ACC")
python3 - "$M" << 'EOF' || fail "python sees the refusal at close()"
import sys
text = open(sys.argv[1]).read().replace("class Account:", "class Account(:")
try:
    with open(sys.argv[1], "w") as f:
        for start in range(0, len(text), 100):
            f.write(text[start:start + 100])
except OSError as e:
    assert e.errno == 22, e  # EINVAL
else:
    raise SystemExit("close() succeeded")
EOF
refused "python with a syntax error" "line 24, column 15"

# --- truncate -------------------------------------------------------------------------------
head -c -1 "$ACC" > expected.py # without its final newline: still valid Python
truncate -s -1 "$M" || fail "truncate -s -1"
landed expected.py "truncate -s -1"

sum=$(checksum "$ACC")
at=$(grep -b '^from decimal import' "$ACC" | cut -d: -f1)
expect_fails "Invalid argument" "truncate in the middle of an import" -- truncate -s $((at + 20)) "$M"
refused "truncate after 'from decimal import '" "line 6, column 21"
expect_fails "Invalid argument" "truncate -s 0" -- truncate -s 0 "$M"
expect_sum "$ACC" "$sum" "truncate -s 0 left the module untouched"
expect_eq "$(stat -c %s "$M")" "$(wc -c < "$ACC")" "the size is the module's again"

# --- a package's __init__.py is a module file too ---------------------------------------------
INIT="$PROJECT/src/ledger/__init__.py"
sed 's/^__version__ = "0.3.1"$/__version__ = "0.3.2"/' "$INIT" > expected.py
sed -i 's/^__version__ = "0.3.1"$/__version__ = "0.3.2"/' "$P/__init__.py" || fail "sed -i __init__.py"
expect_file "$INIT" expected.py "__init__.py was edited"
sum=$(checksum "$INIT")
expect_fails "Invalid argument" "sed -i breaking __init__.py" -- sed -i 's/^__version__ = /__version__ == = /' "$P/__init__.py"
expect_sum "$INIT" "$sum" "the refused edit left __init__.py untouched"
expect_reported "$P" "__init__.py was not saved" "line 11, column"

# --- a big module (1.2 MB: many write() calls of the kernel's chunk size) lands whole -------
{ cat "$ACC"; python3 -c "print('\n'.join('# filler line %06d ' % i + '.' * 40 for i in range(20000)))"; } > expected.py
cp expected.py "$M" || fail "cp of a 1.2 MB module"
expect_file "$ACC" expected.py "a big module"

# Exposing a new module is said where it happens and can be turned off (issue 25, item 5):
# the package's view names the import and the setting; with it off, __init__.py is left
# byte for byte, and the history names the files each creation touched.
expect_contains "$(cat "$S/ledger/_entry.md")" "expose_new_modules = false" "the package's view names the setting"
init_before=$(checksum "$PROJECT/src/ledger/__init__.py")
sed -i 's/expose_new_modules = true/expose_new_modules = false/' "$S/meta/settings.toml" \
  || fail "turning exposing off"
echo '"""Kept apart."""' > apart.py
cp apart.py "$S/ledger/apart.py" || fail "creating a module with exposing off"
[ -f "$PROJECT/src/ledger/apart.py" ] || fail "the module was made"
expect_eq "$(checksum "$PROJECT/src/ledger/__init__.py")" "$init_before" "__init__.py untouched"
expect_contains "$(cat "$S/ledger/_entry.md")" "| create a module | the file |" "the view says so"

# A new module and the import that exposes it are one change: one history entry naming
# both files, one diff, undone together.
sed -i 's/expose_new_modules = false/expose_new_modules = true/' "$S/meta/settings.toml"
init_before=$(checksum "$PROJECT/src/ledger/__init__.py")
echo '"""Made with its import."""' > together.py
cp together.py "$S/ledger/together.py" || fail "creating an exposed module"
row=$(grep 'together.py' "$S/history/_entry.md") || fail "the creation is listed"
expect_contains "$row" "src/ledger/together.py, src/ledger/__init__.py" "one entry names both files"
n=$(printf '%s' "$row" | sed -n 's/^| `\([0-9]*\)\.diff`.*/\1/p')
diff=$(cat "$S/history/$n.diff")
expect_contains "$diff" "+++ b/src/ledger/together.py" "the diff shows the module"
expect_contains "$diff" "+from . import together" "and the import"
echo "$n" > "$S/history/undo"
[ ! -e "$PROJECT/src/ledger/together.py" ] || fail "the undo removed the module"
expect_eq "$(checksum "$PROJECT/src/ledger/__init__.py")" "$init_before" "and the import, together"

# Exposure only where it belongs (issue 47, item 3): a package whose __init__.py imports
# none of its modules keeps it that way; a test package and a module pytest collects are
# never imported; a package that names itself (`from ledger.io import x`) gets the same.
mkdir "$S/ledger/plain" || fail "mkdir of a package"
echo '"""Plain."""' > plainmod.py
cp plainmod.py "$S/ledger/plain/plainmod.py" || fail "a module in a package with an empty __init__.py"
expect_eq "$(wc -c < "$PROJECT/src/ledger/plain/__init__.py")" 0 "an empty __init__.py stays empty"
expect_contains "$(cat "$S/ledger/plain/_entry.md")" "| create a module | the file |" "its view says only the file is made"

mkdir "$S/ledger/test" || fail "mkdir of a test package"
printf 'from . import helpers\n' > "$PROJECT/src/ledger/test/__init__.py"
printf 'X = 1\n' > "$PROJECT/src/ledger/test/helpers.py"
init_before=$(checksum "$PROJECT/src/ledger/test/__init__.py")
printf 'def test_shouty():\n    assert True\n' > test_shouty.py
cp test_shouty.py "$S/ledger/test/test_shouty.py" || fail "a test module in a test package"
cp test_shouty.py "$S/ledger/test/other.py" || fail "another module in a test package"
expect_eq "$(checksum "$PROJECT/src/ledger/test/__init__.py")" "$init_before" "a test package's __init__.py is left alone"
printf 'def test_loud():\n    assert True\n' > test_loud.py
init_before=$(checksum "$PROJECT/src/ledger/__init__.py")
cp test_loud.py "$S/ledger/test_loud.py" || fail "a module pytest collects, in a package"
expect_eq "$(checksum "$PROJECT/src/ledger/__init__.py")" "$init_before" "a module pytest collects is not imported"

sed -i 's/^from \.csv_import import/from ledger.io.csv_import import/' "$PROJECT/src/ledger/io/__init__.py"
expect_contains "$(cat "$S/ledger/io/_entry.md")" '`from ledger.io import newmod` in __init__.py' "the view names the package's own style"
echo '"""JSON."""' > jsonfmt.py
cp jsonfmt.py "$S/ledger/io/jsonfmt.py" || fail "a module in a package importing absolutely"
expect_contains "$(cat "$PROJECT/src/ledger/io/__init__.py")" "from ledger.io import jsonfmt" "exposed in the package's own style"
expect_absent "$(cat "$PROJECT/src/ledger/io/__init__.py")" "from . import jsonfmt" "not relatively"
rm "$S/ledger/io/jsonfmt.py" || fail "rm of the module"
expect_absent "$(cat "$PROJECT/src/ledger/io/__init__.py")" "jsonfmt" "its import goes with it"

# A private module (`_name`) stays out of the package's namespace (found on pluggy 1.5.0,
# whose __init__.py imports names from its private modules, never the modules).
init_before=$(checksum "$PROJECT/src/ledger/__init__.py")
echo '"""Private helpers."""' > _private.py
cp _private.py "$S/ledger/_private.py" || fail "a private module"
expect_eq "$(checksum "$PROJECT/src/ledger/__init__.py")" "$init_before" "a private module is not imported in __init__.py"
