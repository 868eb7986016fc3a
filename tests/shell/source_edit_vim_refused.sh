# vim with its default settings writes by backup-by-rename: it renames the file to its
# backup (debit.py~), writes the new content under the old name, and when that write is
# refused it restores the backup: `unlink debit.py`, then `rename debit.py~ debit.py`.
# A refused write must leave the project exactly as it was: no deletion of the method, no
# re-creation of it at the end of the class, nothing in the history.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
sum=$(checksum "$ACC")
first=$(edits)
if vim -u DEFAULTS -i NONE --cmd 'set backupskip=' \
  -c '%s/amount = parse_amount(amount)/amount = = parse_amount(amount)/' -c 'wq' "$C/debit.py" \
  < /dev/null > /dev/null 2>&1; then
  fail "vim reports the refused write"
fi
rm -f "$C/.debit.py.swp" # vim keeps its swap file after a failed write
expect_contains "$(newest_error)" "line 3, column 14" "the refusal is reported"
expect_eq "$(ls -a "$C" | grep -c '~$')" 0 "the backup is gone"
expect_sum "$ACC" "$sum" "the module is byte-identical"
expect_eq "$(edits)" "$first" "a refused write is no edit"
