# Helpers for the source/ edit scripts (sourced after lib.sh). The scripts run in the
# test's temp dir (beside the project copy), so scratch files go to the current directory.

S="$HS/source"
# The module ledger.accounts: its file in the mount, its symbols, and the real file.
A="$S/ledger/accounts"
ACC="$PROJECT/src/ledger/accounts.py"

# wait_run N: waits until run N is no longer running (at most 120 s), polling its entry.
wait_run() { poll_until 120 0.2 run_ended "$1" || fail "run $1 still running after 120 s"; }

# run_ended N: run N's entry no longer says it is running (a condition for poll_until).
run_ended() { case "$(head -2 "$S/tests/runs/$1/_entry.md")" in *running*) return 1 ;; esac; }

# checksum FILE
checksum() { sha256sum < "$1" | cut -d' ' -f1; }

# keep FILE NAME: copy FILE to ./NAME (what it held before an edit) and print ./NAME.
keep() { cp "$1" "./$2" && echo "./$2"; }

# with_symbol MODULE QUALNAME NEWFILE: MODULE (a file) with the definition QUALNAME
# (`Account.debit`, `Account.balance@2` for the second definition of a name) replaced by
# NEWFILE, indented to where the definition lives. Computed with Python's ast, not with
# homespace: definitions are found in module and class bodies and the if/try/with blocks
# in them; one spans its decorators, the comment lines directly above it, and its body;
# blank lines are not indented.
with_symbol() {
  python3 - "$@" <<'EOF'
import ast, sys
module, qual, new = sys.argv[1:4]
src = open(module, encoding="utf-8").read()
lines = src.splitlines(keepends=True)
name, _, nth = qual.partition("@")
parts = name.split(".")

def definitions(body):
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n
        elif isinstance(n, ast.If):
            yield from definitions(n.body)
            yield from definitions(n.orelse)
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            yield from definitions(n.body)
        elif isinstance(n, ast.Try):
            yield from definitions(n.body)
            for handler in n.handlers:
                yield from definitions(handler.body)
            yield from definitions(n.orelse)
            yield from definitions(n.finalbody)

body, node = ast.parse(src).body, None
for i, part in enumerate(parts):
    found = [n for n in definitions(body) if n.name == part]
    node = found[int(nth or 1) - 1 if i == len(parts) - 1 else 0]
    body = node.body
start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
while start > 0 and lines[start - 1].strip().startswith("#"):
    start -= 1
text = open(new, encoding="utf-8").read()
if not text.endswith("\n"):
    text += "\n"
indent = " " * node.col_offset
new_lines = [indent + l if l.strip() else l for l in text.splitlines(keepends=True)]
sys.stdout.write("".join(lines[:start] + new_lines + lines[node.end_lineno:]))
EOF
}

# expect_file ACTUAL EXPECTED WHAT: the two files are byte-identical (else show the diff).
expect_file() {
  cmp -s "$1" "$2" || fail "$3: $1 is not as expected:
$(diff "$2" "$1")"
}

# expect_sum FILE SUM WHAT: FILE still has checksum SUM (nothing reached it).
expect_sum() {
  [ "$(checksum "$1")" = "$2" ] || fail "$3: $1 changed"
}

# parses FILE: FILE is valid Python for the interpreter.
parses() { python3 -c 'import ast, sys; ast.parse(open(sys.argv[1], "rb").read())' "$1"; }

# expect_reported DIR NEEDLE...: every NEEDLE is in the newest failure of /_errors.md and in
# DIR/_entry.md, which starts with the failure that happened there.
expect_reported() {
  local dir=$1 needle errors entry
  shift
  errors=$(newest_error)
  entry=$(cat "$dir/_entry.md")
  expect_contains "$(head -n 1 "$dir/_entry.md")" "> Last error here" "$dir/_entry.md starts with the failure"
  for needle in "$@"; do
    expect_contains "$errors" "$needle" "the newest entry of _errors.md"
    expect_contains "$entry" "$needle" "$dir/_entry.md"
  done
}

# expect_no_temp_files DIR: no editor or homespace temp file is left in DIR of the mount.
expect_no_temp_files() {
  local left
  left=$(ls -a "$1" | filter '^sed|\.swp$|~$|^4913$|\.tmp$')
  [ -z "$left" ] || fail "temp files left in $1: $left"
}

# edits: how many routed edits source/history lists.
edits() { ls "$S/history" | filter -c '\.diff$'; }

# last_edit: the number of the newest routed edit.
last_edit() { ls "$S/history" | sed -n 's/\.diff$//p' | sort -n | tail -n 1; }

# same_pyproject FILE WHAT: the project's pyproject.toml is byte for byte FILE.
same_pyproject() { cmp -s "$PROJECT/pyproject.toml" "$1" || fail "$2: pyproject.toml differs from $1:
$(diff "$1" "$PROJECT/pyproject.toml")"; }

# refused_pyproject TEXT FILE WHY...: cp of TEXT (printf format) to the mount's FILE fails,
# /_errors.md says each WHY, and pyproject.toml stays as it was.
refused_pyproject() {
  local text=$1 file=$2; shift 2
  cp "$PROJECT/pyproject.toml" before.toml
  printf "$text" > written.txt
  expect_fails "Invalid argument" "cp to $file" -- cp written.txt "$file"
  local said; said=$(newest_error)
  for why in "$@"; do expect_contains "$said" "$why" "why $file was refused"; done
  same_pyproject before.toml "the refused write to $file"
}

# newest_diff: the diff file of the newest edit in source/history/.
newest_diff() {
  local n; n=$(ls "$S/history" | filter '^[0-9]+\.diff$' | sort -n | tail -1)
  echo "$S/history/$n"
}

# undo_edit DIFF: revert the edit whose diff file is DIFF.
undo_edit() { basename "$1" .diff > "$S/history/undo"; }

# replaced IN OUT OLD NEW: IN with the text OLD replaced by NEW (write them with $'...'
# for line breaks), written to OUT; computed by Python, not by homespace. OLD must be in IN.
replaced() {
  python3 - "$@" <<'PY' || fail "replaced: [$3] is not in $1"
import sys
src, out, old, new = sys.argv[1:5]
text = open(src).read()
assert old in text
open(out, "w").write(text.replace(old, new))
PY
}

# undo_with_python N: write N to source/history/undo with Python, printing "ok", or the
# errno of a refusal (a shell's `echo >` would hide it).
undo_with_python() {
  python3 - "$S/history/undo" "$1" << 'EOF'
import sys
try:
    with open(sys.argv[1], "w") as f:
        f.write(sys.argv[2] + "\n")
    print("ok")
except OSError as e:
    print(e.errno)
EOF
}
