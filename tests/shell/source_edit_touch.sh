# `touch` of a new symbol file creates an empty file, which a symbol file cannot be: the
# refusal must reach touch (its close fails with "Invalid argument"), as the code of
# Space::create says ("so that `touch` of a document that needs content says what it
# needs"), not only _errors.md — else `touch f && cat f` fails with "No such file".
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

sum=$(checksum "$ACC")
expect_fails "Invalid argument" "touch of a new symbol file" -- touch "$A/Account/audit.py"
expect_reported "$A/Account" "audit.py was not saved: it is empty"
expect_missing "$A/Account/audit.py" "an empty new symbol file does not stay"
expect_sum "$ACC" "$sum" "nothing reached the module"
