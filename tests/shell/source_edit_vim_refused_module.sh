# vim's backup-by-rename on a module file (see source_edit_vim_refused.sh): when the write
# of accounts.py is refused, vim runs `unlink accounts.py` and `rename accounts.py~
# accounts.py`. That must not delete the module file (its only copy is then in the daemon's
# memory), re-create it, or add `from . import accounts` to the package's __init__.py.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

INIT="$PROJECT/src/ledger/__init__.py"
sum=$(checksum "$ACC")
init_sum=$(checksum "$INIT")
first=$(edits)
if vim -u DEFAULTS -i NONE --cmd 'set backupskip=' -c '%s/^CENT = /CENT = = /' -c 'wq' \
  "$S/ledger/accounts.py" < /dev/null > /dev/null 2>&1; then
  fail "vim reports the refused write"
fi
rm -f "$S/ledger/.accounts.py.swp"
expect_contains "$(newest_error)" "line 10, column 8" "the refusal is reported"
expect_sum "$ACC" "$sum" "the module is byte-identical"
expect_sum "$INIT" "$init_sum" "__init__.py is byte-identical"
expect_eq "$(edits)" "$first" "a refused write is no edit"
