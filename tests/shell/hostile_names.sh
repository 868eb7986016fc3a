# Names that would save nothing, hide what was saved, or read as options are refused at the
# call, with the reason — never accepted and then lost. (Each line is one reproduction of
# issue 24's hostile-input list.)
S="$HS/source"
listed() { ls -A "$1"; }

# New modules named like source/'s own folders are refused: their symbols would be only at
# the unlisted dotted directory (source/.history/).
for reserved in deps history meta tests config; do
  printf 'x = 1\n' > mod.py
  expect_fails "Operation not permitted" "a module $reserved.py at the top" -- cp mod.py "$S/$reserved.py"
  expect_missing "$PROJECT/src/$reserved.py" "no $reserved.py was made"
done
expect_contains "$(cat "$HS/_errors.md")" "is homespace's own" "why, in _errors.md"

# A module beside a package of its name: Python would import the package.
expect_fails "File exists" "a module io.py beside the package io/" -- cp mod.py "$S/ledger/io.py"
expect_missing "$PROJECT/src/ledger/io.py" "no io.py beside io/"
expect_contains "$(cat "$HS/_errors.md")" "io/__init__.py instead" "where to go instead"

# Hidden or option-like names are refused, never held in memory as if saved.
for name in .json ..json ...json -rf.json; do
  expect_fails "Operation not permitted" "a task named $name" -- cp mod.py "$HS/tasks/open/$name"
  case "$(listed "$HS/tasks/open")" in *"$name"*) fail "$name is listed" ;; esac
done
printf '{"title": "Hidden"}\n' > task.json
expect_fails "Operation not permitted" "a dotted task" -- cp task.json "$HS/tasks/open/.hidden.json"
expect_fails "" "a hidden dependency" -- cp mod.py "$S/deps/.hidden"
case "$(listed "$S/deps")" in *".hidden"*) fail "deps/.hidden is listed" ;; esac
# A dotfile is the project's as much as its README: made, shown and kept.
cp mod.py "$S/ledger/.notes" || fail "a dotfile in a package"
expect_eq "$(cat "$PROJECT/src/ledger/.notes")" "x = 1" "the dotfile on disk"
case "$(listed "$S/ledger")" in *".notes"*) ;; *) fail "ledger/.notes is not listed" ;; esac
# ... unless the project hides it: it would be lost from sight at once.
printf '*.log\n' > "$PROJECT/.gitignore"
expect_fails "Operation not permitted" "a file .gitignore hides" -- cp mod.py "$S/ledger/run.log"
expect_missing "$PROJECT/src/ledger/run.log" "no hidden file in the project"
expect_contains "$(cat "$HS/_errors.md")" "hides files of that name" "why"
rm "$PROJECT/.gitignore"
expect_fails "Invalid argument" "a data file named like an option" -- cp mod.py "$S/ledger/-rf"

# Editors' temp files still work beside documents (vim's swap, rsync's temp, sed -i).
printf 'swap' > "$HS/tasks/open/.fix.json.swp" || fail "vim's swap file"
rm "$HS/tasks/open/.fix.json.swp"
echo '{"title": "Saved by rsync"}' > "$HS/tasks/open/.rsynced.json.a1B2c3" || fail "rsync's temp"
mv "$HS/tasks/open/.rsynced.json.a1B2c3" "$HS/tasks/open/rsynced.json"
expect_contains "$(cat "$HS/tasks/open/rsynced.json")" "Saved by rsync" "renamed over a task"

# The store's own fields of a task cannot be changed.
echo '{"title": "Managed"}' > "$HS/tasks/open/managed.json"
sed 's/"id": [0-9]*/"id": 999/' "$HS/tasks/open/managed.json" > changed.json
expect_fails "Invalid argument" "a changed id" -- cp changed.json "$HS/tasks/open/managed.json"
sed 's/"created": "[^"]*"/"created": "2020-01-01T00:00:00Z"/' "$HS/tasks/open/managed.json" > changed.json
expect_fails "Invalid argument" "a changed creation time" -- cp changed.json "$HS/tasks/open/managed.json"
expect_contains "$(cat "$HS/_errors.md")" "is the store's to keep" "why"
# Written back as read, or with the title changed only: saved.
sed 's/"Managed"/"Managed again"/' "$HS/tasks/open/managed.json" > changed.json
cp changed.json "$HS/tasks/open/managed.json" || fail "an edit keeping the store's fields"
# A copy of another task's file is a new task, with its own id.
cp "$HS/tasks/open/managed.json" "$HS/tasks/open/copied.json" || fail "a copied task file"
[ "$(grep '"id"' "$HS/tasks/open/copied.json")" != "$(grep '"id"' "$HS/tasks/open/managed.json")" ] \
  || fail "the copy kept the other task's id"

# Sessions that ls would hide or shells misread.
day=$(date -u +%Y-%m-%d)
mkdir -p "$HS/memory/sessions/$day/fine-session" || fail "a session"
for name in .hidden ... -rf; do
  expect_fails "" "a session named $name" -- mkdir "$HS/memory/sessions/$day/$name"
done

# A test selector takes test ids and selection options only: others change where pytest
# writes (--basetemp empties a folder, --junitxml moves the report) or what it loads.
mkdir -p keep && echo precious > keep/file
for selector in "--basetemp=$PWD/keep" "--junitxml=$PWD/report.xml" "-p no_such_plugin"; do
  expect_fails "Invalid argument" "the selector $selector" -- sh -c "printf '%s' '$selector' | tee '$S/tests/run' > /dev/null"
done
expect_eq "$(cat keep/file)" "precious" "the folder --basetemp named"
expect_missing report.xml "the report --junitxml named"
expect_contains "$(cat "$HS/_errors.md")" "tests.args" "where the owner may put other options"
