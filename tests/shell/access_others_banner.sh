# Run as another user on a mount made with --allow-other, where the owner keeps
# ledger/vault.py at 600 and made an edit of it that the import check refused (its failing
# line says PLANTED-7f3a): a view others may read never quotes the private module.
S="$HS/source"

# The refusal's traceback quotes vault.py: the views others read say what failed, not it.
package=$(cat "$S/ledger/_entry.md")
expect_absent "$package" "PLANTED-7f3a" "the refused edit's traceback in the package's view"
expect_contains "$package" "more private than this view" "the package's view still says what failed, and where"
expect_absent "$(cat "$HS/_errors.md")" "PLANTED-7f3a" "the traceback in _errors.md"
expect_absent "$(cat "$HS/_entry.md")" "PLANTED-7f3a" "the traceback on the dashboard"
