# source/meta/settings.toml refuses a known table given a plain value (it used to be stored
# and silently ignored) and an unknown top-level key, listing every problem of the write.
SET="$HS/source/meta/settings.toml"
before=$(cat "$SET")

printf 'import_check = "maybe"\nfoo = 1\n' > settings.toml
expect_fails "Invalid argument" "import_check as a string" -- cp settings.toml "$SET"
expect_eq "$(cat "$SET")" "$before" "the refused settings changed nothing"
errors=$(newest_error)
expect_contains "$errors" \
  "import_check must be a table ([import_check] with enabled, python, timeout_secs), got a string" \
  "the type error"
expect_contains "$errors" "unknown key \`foo\`" "reported together with the unknown key"

# The same through `printf >`, which does not report the refusal: still nothing stored.
printf 'import_check = "maybe"\n' > "$SET"
expect_eq "$(cat "$SET")" "$before" "printf > did not store it either"

printf 'foo = 1\n' > settings.toml
expect_fails "Invalid argument" "an unknown top-level key" -- cp settings.toml "$SET"
expect_eq "$(cat "$SET")" "$before" "the unknown key changed nothing"

# A valid change still lands.
sed -i 's/^timeout_secs = .*/timeout_secs = 20/' "$SET" || fail "a valid change"
expect_contains "$(cat "$SET")" "timeout_secs = 20" "the valid change is stored"
