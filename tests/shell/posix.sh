# The whole mount behaves like a filesystem for the usual tools.

ls -lR "$HS" > /dev/null || fail "ls -lR"
find "$HS" > /dev/null || fail "find"
grep -r "def debit" "$HS/source" > /dev/null || fail "grep -r finds code"
tar cf /dev/null -C "$HS" . 2> tar.err || fail "tar c: $(cat tar.err)"
[ ! -s tar.err ] || fail "tar warned: $(cat tar.err)"
du -s "$HS" > /dev/null || fail "du"
cp -r "$HS" copy || fail "cp -r"
[ -f copy/source/ledger/accounts.py ] || fail "cp -r copied the modules"

# stat's size is what a read returns, for every file
while IFS= read -r file; do
  size=$(stat -c %s "$file")
  got=$(wc -c < "$file")
  [ "$size" = "$got" ] || fail "$file: stat says $size bytes, read gives $got"
done < <(find "$HS" -type f -not -path "$HS/search/*")

# inode numbers are stable
a=$(stat -c %i "$HS/source/ledger/accounts.py")
ls -R "$HS/source" > /dev/null
b=$(stat -c %i "$HS/source/ledger/accounts.py")
expect_eq "$b" "$a" "inode number of a path"
