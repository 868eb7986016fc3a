# Readers never see a file vanish during an edit: while sed -i replaces a module and one of
# its symbol files again and again (a temp file renamed over each), loops of cat read both
# through the mount. Every read gets the old content or the new one, never "No such file"
# (on a plain disk a rename over a file is atomic for its readers, and so it is here).
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

MODULE="$S/ledger/accounts.py"
SYMBOL="$A/Account/credit.py"
rm -f stop failures
reader() {
  while [ ! -e stop ]; do
    cat "$1" > /dev/null 2>> failures || echo "read of $1 failed" >> failures
  done
}
pids=()
for file in "$MODULE" "$MODULE" "$SYMBOL" "$SYMBOL"; do
  reader "$file" &
  pids+=($!)
done
for i in $(seq 1 12); do
  sed -i "s/^\"\"\"Accounts.*/&\n# reader round $i/" "$MODULE" || { touch stop; fail "edit $i of the module: $(newest_error)"; }
  sed -i "s/^def credit(.*/&\n    # reader round $i/" "$SYMBOL" || { touch stop; fail "edit $i of the symbol: $(newest_error)"; }
done
touch stop
for pid in "${pids[@]}"; do wait "$pid"; done
expect_eq "$(cat failures)" "" "no read failed during the edits"
expect_eq "$(grep -c '# reader round' "$ACC")" "24" "every edit landed"
