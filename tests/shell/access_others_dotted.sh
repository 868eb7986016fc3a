# Run as another user on a mount made with --allow-other, where the owner keeps
# ledger/vault.py at 600 and the folder ledger/private/ at 700: a dotted name answers
# exactly as its nested path does.
S="$HS/source"

# Nested paths through a private module or folder are refused by the kernel...
expect_fails "Permission denied" "stat of a symbol of a 600 module" -- stat "$S/ledger/vault/Secret.py"
expect_fails "Permission denied" "stat of a module in a 700 folder" -- stat "$S/ledger/private/hidden.py"
# ...and their dotted names exactly so: no size, no content, no existence confirmed.
for dotted in ledger.vault.Secret.py ledger.vault.Secret ledger.private.hidden.py \
              ledger.private.hidden.found.py ledger.private.hidden ledger.private.nothing.py; do
  expect_fails "Permission denied" "stat of $dotted" -- stat "$S/$dotted"
done
expect_fails "Permission denied" "cat of a dotted symbol of a 600 module" -- cat "$S/ledger.vault.Secret.py"
expect_fails "Permission denied" "cat of a dotted module in a 700 folder" -- cat "$S/ledger.private.hidden.py"
expect_fails "Permission denied" "ls of a dotted members folder in a 700 folder" -- ls "$S/ledger.private.hidden"
# What the nested path lets others see, its dotted name shows too.
stat "$S/ledger.private" > /dev/null || fail "a 700 folder's dotted name stats, as ledger/private does"
# What the modes let others read still answers under its dotted name.
cat "$S/ledger.journal.py" > /dev/null || fail "a dotted 644 module in a 755 folder is readable"
