# Every directory describes itself: _entry.md and _nav.txt everywhere, within the budget.

root=$(ls "$HS")
for name in _entry.md _nav.txt _errors.md source tasks memory search; do
  expect_contains "$root" "$name" "ls of the root"
done

entry=$(cat "$HS/_entry.md")
expect_contains "$entry" "homespace — ledger" "the dashboard names the project"
expect_contains "$entry" "$HS/source/" "the dashboard links by absolute path"
expect_contains "$entry" "_errors.md" "the dashboard says where errors are"

count=0
while IFS= read -r dir; do
  for view in _entry.md _nav.txt; do
    [ -f "$dir/$view" ] || fail "$dir has no $view"
    t=$(tokens "$dir/$view")
    [ "$t" -le 500 ] || fail "$dir/$view is $t tokens, over the budget"
  done
  crumb=$(head -n 1 "$dir/_entry.md")
  case "$crumb" in "home"*|"> Last error"*) ;; *) fail "$dir/_entry.md starts with [$crumb], not the breadcrumb";; esac
  grep -q "<- you are here" "$dir/_nav.txt" || fail "$dir/_nav.txt does not mark where you are"
  count=$((count + 1))
done < <(find "$HS" -type d)
[ "$count" -gt 20 ] || fail "only $count directories found"

nav=$(cat "$HS/source/ledger/_nav.txt")
expect_contains "$nav" "ledger/  <- you are here" "nav marks the current directory"
expect_contains "$nav" "tasks/" "nav shows the root's siblings"
