# setup.py is edited like any Python file (its syntax checked) but never imported to check
# it: importing it runs setuptools' build, which exits without a command, so every edit was
# judged against a failure and its view said "Import fails" (issue 47, item 5).
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

printf 'from setuptools import setup\n\nsetup(name="ledger", version="0.1.0")\n' > "$PROJECT/setup.py"
poll_until 10 0.1 test -e "$S/setup.py" || fail "setup.py shows under source/"
sed -i 's/version="0.1.0"/version="0.2.0"/' "$S/setup.py" || fail "sed -i of setup.py"
expect_contains "$(cat "$PROJECT/setup.py")" 'version="0.2.0"' "the edit reached setup.py"
expect_absent "$(cat "$S/setup/_entry.md")" "Import fails" "its view says nothing failed to import"
printf 'setup(\n' > bad_setup.py
expect_fails "Invalid argument" "a setup.py that is not Python" -- cp bad_setup.py "$S/setup.py"
expect_contains "$(cat "$PROJECT/setup.py")" 'version="0.2.0"' "a refused write changes nothing"
