#!/bin/sh
# The documentation against the code it documents:
#  - README's C example is tests/install/rho.c, verbatim (make installcheck
#    compiles and runs that file against the installed library);
#  - the man page cosa.1 holds, for every subcommand that 'cosa --help' lists,
#    exactly the text of 'cosa SUBCOMMAND --help' (after undoing the roff
#    escapes), and every subcommand runs --help with exit 0;
#  - groff renders the page without warnings (when groff is installed).
set -u
: "${COSA:?}" "${COSA_SRCDIR:?}"
man=${COSA_MAN:-$(dirname "$COSA")/../cosa.1}
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fail=1; }

# README example
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$COSA_SRCDIR/README.md" > "$tmp/readme.c"
if [ -s "$tmp/readme.c" ] && cmp -s "$tmp/readme.c" "$COSA_SRCDIR/tests/install/rho.c"; then
    ok "README's C example is tests/install/rho.c"
else
    bad "README's first \`\`\`c block differs from tests/install/rho.c:"; diff "$tmp/readme.c" "$COSA_SRCDIR/tests/install/rho.c" | head -20
fi

# man page
[ -f "$man" ] || { bad "no man page at $man"; exit 1; }
unesc() { sed -e 's/^\\&//' -e 's/\\-/-/g' -e 's/\\e/\\/g'; }
subs=$("$COSA" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
nsub=0
for s in $subs; do
    nsub=$((nsub + 1))
    if ! "$COSA" "$s" --help > "$tmp/help" 2>&1; then bad "cosa $s --help exits non-zero"; continue; fi
    # the .nf block after ".SS cosa S"
    awk -v want=".SS cosa $(echo "$s" | sed 's/-/\\\\-/g')" '
        $0 == want { sec = 1; next }
        sec && $0 == ".nf" { on = 1; next }
        on && $0 == ".fi" { exit }
        on' "$man" | unesc > "$tmp/man"
    if [ -s "$tmp/man" ] && cmp -s "$tmp/help" "$tmp/man"; then
        ok "man page section of '$s' = cosa $s --help"
    else
        bad "man page section of '$s' differs from cosa $s --help:"; diff "$tmp/help" "$tmp/man" | head -10
    fi
done
[ "$nsub" -ge 10 ] || bad "only $nsub subcommands read from cosa --help"
if command -v groff >/dev/null 2>&1; then
    if groff -man -Tutf8 -ww -z "$man" > "$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ]; then
        ok "groff renders cosa.1 without warnings"
    else
        bad "groff warnings:"; head -5 "$tmp/groff"
    fi
else
    echo "skip - groff not installed: rendering of cosa.1 not checked"
fi
exit $fail
