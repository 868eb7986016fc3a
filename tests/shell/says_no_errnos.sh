# Each kind of refusal answers the errno docs/errors.md names for it (issue 47, item 7):
# every case below fails, and the row of docs/errors.md whose "the shell says" text the
# tool printed names the case in its "when" column. A refusal moved to another errno, or a
# row rewritten without it, fails here.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

DOCS="$(dirname "${BASH_SOURCE[0]}")/../../docs/errors.md"
[ -f "$DOCS" ] || fail "docs/errors.md is missing"

# refused_as KEYWORD WHAT -- COMMAND...: COMMAND fails, and the docs/errors.md row of the
# error it printed names KEYWORD.
refused_as() {
  local keyword=$1 what=$2 out rows
  shift 3
  if out=$("$@" 2>&1); then
    fail "$what: succeeded but should fail"
  fi
  rows=$(grep '^| `E' "$DOCS" | while IFS='|' read -r _ errno says when _; do
    says=$(printf '%s' "$says" | sed 's/^ *//; s/ *$//')
    case "$out" in *"$says"*) printf '%s |%s\n' "$errno" "$when" ;; esac
  done)
  [ -n "$rows" ] || fail "$what: what it printed ($out) is in no row of docs/errors.md"
  expect_contains "$rows" "$keyword" "$what: the row of docs/errors.md for its error ($out)"
}

refused_as "The name does not exist" "cat of a missing module" -- cat "$S/ledger/nosuch.py"
printf 'def parse_amount(:\n' > broken.py
refused_as "not valid Python" "a symbol that does not parse" -- cp broken.py "$S/ledger/accounts/parse_amount.py"
refused_as '`rm` of a module' "rm of a module the package imports" -- rm "$S/ledger/report.py"
refused_as '`mkdir` of an existing folder' "mkdir of an existing package" -- mkdir "$S/ledger/io"
refused_as '`rmdir` of a folder with members' "rmdir of a package with modules" -- rmdir "$S/ledger/io"
refused_as '`_entry.md`' "a write to a generated view" -- sh -c "echo x > '$S/_entry.md'"
refused_as "A file used as a folder" "a file listed as a folder" -- ls "$S/README.md/"
refused_as "A folder used as a file" "a folder read as a file" -- cat "$S/ledger/"
refused_as '`mkdir` in `tasks/`' "mkdir in tasks/" -- mkdir "$HS/tasks/later"
refused_as "a task name that is not" "a task named with a space" -- sh -c "echo '{}' > '$HS/tasks/open/Bad Name.json'"
refused_as "symbolic" "a symbolic link" -- ln -s accounts.py "$S/ledger/alias.py"
refused_as '`mkfifo`' "a named pipe" -- mkfifo "$S/ledger/pipe"

# An undo that would break a module importing what it takes back.
printf '"""Helpers."""\n\n\ndef shout(text):\n    return text.upper()\n' > texthelp.py
cp texthelp.py "$S/ledger/texthelp.py" || fail "cp of a new module"
n=$(grep 'create module ledger.texthelp' "$S/history/_entry.md" | sed -n 's/^| `\([0-9]*\)\.diff`.*/\1/p')
[ -n "$n" ] || fail "the creation is in the history"
printf 'from ledger.texthelp import shout\n\n\ndef test_shout():\n    assert shout("a") == "A"\n' > "$PROJECT/tests/test_texthelp.py"
# cp checks close(), where a write's refusal comes (a shell's `echo >` does not).
echo "$n" > number.txt
refused_as "an undo" "an undo a test's import needs" -- cp number.txt "$S/history/undo"
