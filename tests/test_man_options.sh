#!/bin/sh
# test_man_options.sh -- the man page cosa.1 against the option tables
# themselves (not against --help, which test_docs.sh compares): for every
# subcommand that 'cosa --help' lists, 'cosa SUBCOMMAND --list-options' walks
# the command's table (included tables, aliases, hidden rows, every mode;
# analysis/opt_table.h) and
#  - every option that is not hidden has its line "  [-X, ]--NAME ..." in the
#    command's section of the man page; an option of a mode selected by
#    --SEL (cosa simulate --coupling) in the section ".SS cosa CMD --SEL",
#    one of the default mode in ".SS cosa CMD", one of every mode in all of
#    the command's sections;
#  - every deprecated spelling (alias) is named in the command's section;
#  - every option line of a section is an option of the table (no
#    hand-written option the parser does not know);
#  - --list-options exits 0 with at least --help listed (a command that
#    parses without a table fails here).
# So the man page (generated from --help, tools/gen-man.sh) and the tables
# cannot drift apart.  COSA_MAN: another man page to check (default: the
# build tree's cosa.1).
set -u
: "${COSA:?}"
man=${COSA_MAN:-$(dirname "$COSA")/../cosa.1}
. "$(dirname "$0")/harness.sh"

[ -f "$man" ] || { echo "FAIL: no man page at $man"; exit 1; }
unesc() { sed -e 's/^\\&//' -e 's/\\-/-/g' -e 's/\\e/\\/g'; }
# section TITLE: the .nf block after the line TITLE (roff escapes undone)
section() {
    awk -v want="$1" '
        $0 == want { sec = 1; next }
        sec && $0 == ".nf" { on = 1; next }
        on && $0 == ".fi" { exit }
        on' "$page" | unesc
}
# option lines of a section: the long names of "  --NAME" / "  -X, --NAME"
optlines() { sed -nE 's/^  (-[A-Za-z], )?--([A-Za-z0-9][A-Za-z0-9-]*).*/\2/p' "$1"; }

subs=$("$COSA" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
nsub=0
nhidden=0
# each subcommand twice: in cosa.1 (section ".SS cosa CMD") and in its own page
# cosa-CMD.1 (the .nf block of ".SH DESCRIPTION"; modes as ".SS cosa CMD --SEL")
mandir=${COSA_MANDIR:-$(dirname "$man")/man/man1}
for pass_page in all own; do
for s in $subs; do
    esc_s=$(echo "$s" | sed 's/-/\\-/g')
    if [ "$pass_page" = all ]; then
        nsub=$((nsub + 1)); page=$man; deftitle=".SS cosa $esc_s"
    else
        page=$mandir/cosa-$s.1; deftitle=".SH DESCRIPTION"
        [ -f "$page" ] || { bad "no man page cosa-$s.1 in $mandir"; continue; }
    fi
    "$COSA" "$s" --list-options >"$tmp/list" 2>"$tmp/err"
    rc=$?
    if [ $rc != 0 ] || [ -s "$tmp/err" ]; then
        bad "cosa $s --list-options: exit $rc, $(head -n 1 "$tmp/err") (no option table?)"
        continue
    fi
    grep -q "^--help	short=-h" "$tmp/list" && ok || bad "cosa $s --list-options does not list -h, --help"
    section "$deftitle" >"$tmp/sec_default"
    [ -s "$tmp/sec_default" ] || { bad "no section '$deftitle' in $page"; continue; }
    # the sections of the modes with a selector (--SEL) this table has
    sels=$(sed -nE 's/.*mode=([^ ]*).*/\1/p' "$tmp/list" | tr ',' '\n' | grep '^--' | sort -u)
    secs=default
    for sel in $sels; do
        name=${sel#--}
        section ".SS cosa $esc_s $(echo "$sel" | sed 's/-/\\-/g')" >"$tmp/sec_$name"
        if [ -s "$tmp/sec_$name" ]; then secs="$secs $name"; else bad "no section '.SS cosa $s $sel' in $page"; fi
    done
    cat "$tmp/sec_default" >"$tmp/all"
    for n in $secs; do [ "$n" = default ] || cat "$tmp/sec_$n" >>"$tmp/all"; done
    : >"$tmp/names"
    while IFS='	' read -r opt attrs; do
        name=${opt#--}
        echo "$name" >>"$tmp/names"
        case " $attrs " in
        *" hidden "*)
            nhidden=$((nhidden + 1))
            continue
            ;;
        *" alias="*)
            grep -qE -- "--$name([^a-z0-9-]|$)" "$tmp/all" && ok ||
                bad "$s: the deprecated spelling --$name is not named in the man page"
            continue
            ;;
        esac
        want=$(echo " $attrs " | sed -nE 's/.* mode=([^ ]*) .*/\1/p' | tr ',' ' ' | sed 's/--//g')
        [ -n "$want" ] || want=$secs
        for n in $want; do
            [ -f "$tmp/sec_$n" ] || continue # reported above
            if optlines "$tmp/sec_$n" | grep -qx -- "$name"; then ok; else
                bad "$s: --$name has no line in the man page section 'cosa $s$([ "$n" = default ] || echo " --$n")'"
            fi
        done
    done <"$tmp/list"
    for n in $secs; do
        for o in $(optlines "$tmp/sec_$n" | sort -u); do
            grep -qx -- "$o" "$tmp/names" && ok ||
                bad "$s: the man page lists --$o$([ "$n" = default ] || echo " (section --$n)"), which is not in the table"
        done
    done
done
done
[ "$nsub" -ge 10 ] && ok || bad "only $nsub subcommands read from cosa --help"
# every option sits in a group by what it is for (analysis/opt_groups.c): a
# new option whose name the group table does not know would show under
# "Other options:" in --help and the man pages
for s in $subs; do
    if "$COSA" "$s" --help | grep -q '^Other options:'; then
        bad "$s: --help has options under 'Other options:' (name them in analysis/opt_groups.c): $("$COSA" "$s" --help | awk '/^Other options:/ { on = 1; next } on && /^  --/ { printf "%s ", $1 } on && /^$/ { exit }')"
    else ok; fi
done
echo "man options: $pass passed, $fail failed ($nsub commands in cosa.1 and in cosa-CMD.1, $nhidden hidden rows not in --help by design)"
[ "$fail" -eq 0 ]
