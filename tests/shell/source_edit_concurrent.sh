# Concurrent writers lose nothing: 8 processes edit 8 different methods of one module at
# the same moment (half with sed -i, half with Python's open(p, "w")), in several rounds.
# Writes to one module are serialized and each finds its method afresh, so every change
# lands, in its own method, and the module parses.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
METHODS="__init__ __repr__ balance balance@2 debit credit apply from_path"
ROUNDS=3

# mark FILE TEXT: add the comment line TEXT right below FILE's def line, with sed -i or
# with Python, in turns.
mark_with_sed() { sed -i "/^def /a\\    # $2" "$1"; }
mark_with_python() {
  python3 - "$1" "$2" << 'EOF'
import sys
path, text = sys.argv[1:3]
lines = open(path).read().splitlines(keepends=True)
at = next(i for i, l in enumerate(lines) if l.startswith("def "))
lines.insert(at + 1, f"    # {text}\n")
with open(path, "w") as f:
    for line in lines:
        f.write(line)
EOF
}

for round in $(seq 1 $ROUNDS); do
  rm -f go
  pids=()
  i=0
  for name in $METHODS; do
    tool=mark_with_sed
    if [ $((i % 2)) = 1 ]; then tool=mark_with_python; fi
    (
      while [ ! -e go ]; do :; done # start together
      "$tool" "$C/$name.py" "round $round: $name"
    ) &
    pids+=($!)
    i=$((i + 1))
  done
  touch go
  for pid in "${pids[@]}"; do wait "$pid" || fail "round $round: a writer failed: $(newest_error)"; done
done

parses "$ACC" || fail "the module parses"
expect_eq "$(grep -c '# round ' "$ACC")" $((8 * ROUNDS)) "every change landed"
# Each mark is in its own method: check with the ast, per definition (balance@2 is the
# second definition called balance).
python3 - "$ACC" "$ROUNDS" $METHODS << 'EOF' || fail "a mark is in the wrong method"
import ast, sys
path, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
src = open(path).read()
lines = src.splitlines()
account = next(n for n in ast.parse(src).body if getattr(n, "name", None) == "Account")
seen = {}
for node in account.body:
    if isinstance(node, ast.FunctionDef):
        seen[node.name] = seen.get(node.name, 0) + 1
        name = node.name + ("@%d" % seen[node.name] if seen[node.name] > 1 else "")
        if name not in names:
            continue
        body = "\n".join(lines[node.lineno - 1:node.end_lineno])
        for r in range(1, rounds + 1):
            assert f"# round {r}: {name}\n" in body + "\n", (name, r, body)
EOF
expect_eq "$(edits)" $((8 * ROUNDS)) "each change is one edit in the history"
expect_no_temp_files "$C"
