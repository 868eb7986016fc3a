# source/meta/settings.toml applies at once: [nav] reshapes the next _nav.txt, and
# project.ignore hides and shows paths of source/ as soon as it is written; bad values are
# refused together, with did-you-mean, and change nothing.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

SET="$S/meta/settings.toml"
default=$(cat "$SET")
expect_contains "$default" "[nav]" "the default documents [nav]"
expect_contains "$(cat "$S/meta/_entry.md")" "\`nav.depth\` = 2" "the entry explains each setting with its value"

# Depth: from the root, 2 shows source/'s packages; 1 does not.
expect_contains "$(cat "$HS/_nav.txt")" "    ledger/" "depth 2 shows the level below source/"
sed -i 's/^depth = 2$/depth = 1/' "$SET"
nav=$(cat "$HS/_nav.txt")
expect_absent "$nav" "    ledger/" "depth 1 stops at source/"
expect_contains "$nav" "  source/" "but source/ itself is there"

# Collapse: 2 members per directory, then "+N more".
sed -i 's/^collapse = 8$/collapse = 2/' "$SET"
expect_contains "$(cat "$HS/_nav.txt")" "more" "collapse 2 folds the rest of the root"
expect_contains "$(cat "$S/meta/_entry.md")" "\`nav.collapse\` = 2" "the entry shows the value in force"

# project.ignore: a package disappears from source/ at once, and comes back.
expect_contains "$(ls "$S/ledger")" "io" "ledger.io before"
sed -i 's/^ignore = \[\]$/ignore = ["src\/ledger\/io\/"]/' "$SET"
expect_absent "$(ls "$S/ledger")" "io" "ledger/io/ left out"
expect_missing "$S/ledger/io" "a left-out package cannot be reached by name"
sed -i 's/^ignore = .*$/ignore = []/' "$SET"
expect_contains "$(ls "$S/ledger")" "io" "and back"

# Bad values: every problem at once, nothing stored.
before=$(cat "$SET")
printf '[nav]\ndepht = 3\ncollapse = 0\n[project]\nignore = "io"\n' > settings.toml
expect_fails "Invalid argument" "bad settings" -- cp settings.toml "$SET"
said=$(newest_error)
expect_contains "$said" "unknown key in [nav] \`depht\` (did you mean \`depth\`?)" "did you mean"
expect_contains "$said" "nav.collapse must be a whole number from 1 to 100, got 0" "the range"
expect_contains "$said" "project.ignore must be an array" "the type"
printf '[project]\nignore = ["{a,b", "ok"]\n' > settings.toml
expect_fails "Invalid argument" "a bad pattern" -- cp settings.toml "$SET"
expect_contains "$(newest_error)" "\`{a,b\`: error parsing glob" "the bad pattern is named"
expect_eq "$(cat "$SET")" "$before" "refused settings changed nothing"
printf '%s\n' "$default" > "$SET"
echo "source_settings.sh: ok"
