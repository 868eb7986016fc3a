# A symbol file reads back what was written to it. A comment after the body at the
# definition's own indentation would not be part of the symbol when read back (one indented
# in the body is: see edit_messages_mount.rs), so such a write is refused with the reason,
# instead of reaching the module and seeming lost.
source "$(dirname "${BASH_SOURCE[0]}")/source_lib.sh"

C="$A/Account"
sum=$(checksum "$ACC")
expect_fails "Invalid argument" "appending a comment after the body" -- \
  python3 -c 'import sys; f = open(sys.argv[1], "a"); f.write("# note: credits arrive negative\n"); f.close()' "$C/apply.py"
expect_sum "$ACC" "$sum" "the module is unchanged"
expect_contains "$(newest_error)" "comment lines directly above it" "the refusal says where comments go"

# Blank lines around the definition are dropped, so the file reads back what it defines.
{ echo; cat "$C/apply.py"; echo; } > padded.py
cp "$C/apply.py" expected.py
cp padded.py "$C/apply.py" || fail "cp of a padded symbol file"
expect_file "$C/apply.py" expected.py "apply.py reads back without the padding"
expect_sum "$ACC" "$sum" "nothing changed in the module"
