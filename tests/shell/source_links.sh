# A module's members directory is a link to the module's dotted name, so recursive
# walkers (grep -r, find, ls -R) see the project's files once, as on the plain tree,
# while ls, cd, cat and writes go through it to the symbols; the views there say where
# they are as listed; a change on disk shows through the link with the kernel keeping it.
S="$HS/source"
P="$PROJECT/src"

expect_eq "$(readlink "$S/ledger/accounts")" "../ledger.accounts" "the link names the module dotted"
expect_eq "$(stat -c %F "$S/ledger/accounts")" "symbolic link" "ls -l shows a link"
expect_eq "$(stat -L -c %F "$S/ledger/accounts")" "directory" "leading to a directory"
expect_contains "$(ls "$S/ledger/accounts/")" "Account.py" "ls through the link lists the symbols"
expect_unlisted "$S" "ledger.accounts" "the dotted directory is not listed"

# grep -rn, find and ls -R read what the plain tree holds, each hit once.
on_mount=$(cd "$S" && grep -rn "def debit" ledger | sort)
on_disk=$(cd "$P" && grep -rn "def debit" ledger | sort)
expect_eq "$on_mount" "$on_disk" "grep -rn prints what it prints on the plain tree"
expect_eq "$(cd "$S" && find ledger -name '*.py' | sort)" "$(cd "$P" && find ledger -name '*.py' | sort)" \
  "find lists the project's .py files, no symbol files"
expect_absent "$(ls -R "$S/ledger")" "parse_amount.py" "ls -R does not enter the symbols"

# Through the link: cat, the views, a write, a change on disk.
cd "$S/ledger/accounts"
expect_eq "$(head -1 _entry.md)" "home > source > ledger > accounts" "the breadcrumb spells the path as listed"
expect_contains "$(cat _nav.txt)" "accounts/  <- you are here" "the map marks where you are"
expect_contains "$(cat _entry.md)" "$S/ledger/accounts/parse_amount.py" "the view's paths go through the link"
cd - > /dev/null
sed -i 's/The current balance/The balance now/' "$S/ledger/accounts/Account/balance.py" \
  || fail "sed -i through the link"
expect_contains "$(cat "$P/ledger/accounts.py")" "The balance now" "the write reached the module"
sed -i 's/The balance now/The balance, normalised/' "$P/ledger/accounts.py"
expect_contains "$(cat "$S/ledger/accounts/Account/balance.py")" "The balance, normalised" \
  "an edit on disk shows through the link"
printf '\n\ndef audit():\n    """Nothing yet."""\n' >> "$P/ledger/accounts.py"
expect_contains "$(ls "$S/ledger/accounts/")" "audit.py" "a function added on disk is listed through the link"
expect_contains "$(cat "$S/ledger/accounts/_entry.md")" "audit.py" "and in the module's view"

# A module at the top of the code (no package) is linked to its hidden own name.
printf 'def helper():\n    return 1\n' > "$P/toolbox.py"
expect_eq "$(readlink "$S/toolbox")" ".toolbox" "a top-level module's link"
expect_contains "$(ls "$S/toolbox/")" "helper.py" "its symbols through the link"
expect_eq "$(cat "$S/toolbox/helper.py")" "$(printf 'def helper():\n    return 1')" "read through it"

expect_fails "Operation not permitted" "rm of a link" -- rm "$S/ledger/journal"
expect_contains "$(cat "$HS/_errors.md")" "to delete the module, rm $S/ledger/journal.py" "the refusal says how"

# Errors name the path as listed, not where the link leads.
printf 'def parse_amount(:\n' > broken.py
expect_fails "Invalid argument" "a broken symbol through the link" -- cp broken.py "$S/ledger/accounts/parse_amount.py"
expect_contains "$(cat "$HS/_errors.md")" "$S/ledger/accounts/parse_amount.py" "the refusal names the listed path"
expect_absent "$(cat "$HS/_errors.md")" "ledger.accounts/" "never the dotted folder"
