#!/bin/sh
# The documentation against the code it documents:
#  - README's C example is tests/install/rho.c, verbatim (make installcheck
#    compiles and runs that file against the installed library);
#  - the man page cosa.1 holds, for every subcommand that 'cosa --help' lists,
#    exactly the text of 'cosa SUBCOMMAND --help' (after undoing the roff
#    escapes), and every subcommand runs --help with exit 0;
#  - groff renders the page without warnings (when groff is installed);
#  - every file README.md or a --help text names exists: in the source tree
#    (also as a path suffix: "vo_run.c", "cosa/phi.h"), in the build tree, or
#    on the short allow-list of names cosa or make paper write and example
#    names of the text, or written by an example of the docs themselves
#    (cat > F, -o F, savefig("F") in a fenced block); a doc/ file a --help text names is installed
#    (dist_doc_DATA, dist_man_MANS), and so is every man page named NAME(5).
set -u
: "${COSA:?}" "${COSA_SRCDIR:?}"
man=${COSA_MAN:-$(dirname "$COSA")/../cosa.1}
# ok, bad, $tmp (removed at exit), harness_done
. "$(dirname "$0")/harness.sh"

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
# one page per subcommand, cosa-SUBCOMMAND(1) (man/man1/, tools/gen-man.sh): its
# DESCRIPTION is 'cosa SUBCOMMAND --help'; Makefile.am's COSA_SUBCOMMANDS are exactly
# the subcommands of cosa --help, so a new subcommand gets its page
mandir=${COSA_MANDIR:-$(dirname "$man")/man/man1}
listed=$(awk '/^COSA_SUBCOMMANDS *=/ { on = 1; sub(/^[^=]*=/, "") }
    on { l = $0; c = sub(/\\$/, "", l); printf "%s ", l; on = c }' "$COSA_SRCDIR/Makefile.am" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort)
if [ "$listed" = "$(echo "$subs" | sort)" ]; then
    ok "Makefile.am's COSA_SUBCOMMANDS are the subcommands of cosa --help"
else
    bad "Makefile.am's COSA_SUBCOMMANDS differ from cosa --help's subcommands:"
    echo "$listed" > "$tmp/l1"; echo "$subs" | sort > "$tmp/l2"; diff "$tmp/l1" "$tmp/l2" | head -5
fi
# groff_clean PAGE MSG: groff renders PAGE without warnings (else bad MSG and the first five)
groff_clean() {
    if groff -man -Tutf8 -ww -z "$1" >"$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ]; then
        ok
    else
        bad "$2"
        head -5 "$tmp/groff"
    fi
}
for s in $subs; do
    page=$mandir/cosa-$s.1
    [ -f "$page" ] || { bad "no man page $page"; continue; }
    "$COSA" "$s" --help > "$tmp/help" 2>&1
    awk '$0 == ".SH DESCRIPTION" { sec = 1; next } sec && $0 == ".nf" { on = 1; next }
        on && $0 == ".fi" { exit } on' "$page" | unesc > "$tmp/man"
    if [ -s "$tmp/man" ] && cmp -s "$tmp/help" "$tmp/man"; then ok "cosa-$s.1 = cosa $s --help"; else
        bad "cosa-$s.1 differs from cosa $s --help:"; diff "$tmp/help" "$tmp/man" | head -5
    fi
    if command -v groff >/dev/null 2>&1; then
        groff -man -Tutf8 -ww -z "$page" > "$tmp/g" 2>&1 && [ ! -s "$tmp/g" ] ||
            { bad "groff warnings in cosa-$s.1:"; head -3 "$tmp/g"; }
    fi
done
if command -v groff >/dev/null 2>&1; then
    groff_clean "$man" "groff warnings:"
else
    echo "skip - groff not installed: rendering of cosa.1 not checked"
fi
# files named by README and the --help texts
build=$(cd "$(dirname "$COSA")/.." && pwd)
{
    "$COSA" --help
    for s in $subs; do "$COSA" "$s" --help; done
} > "$tmp/helps" 2>&1
cat "$COSA_SRCDIR/README.md" "$COSA_SRCDIR"/doc/*.md "$COSA_SRCDIR/tests/README.md" "$tmp/helps" > "$tmp/texts"
# a name: letters before a known extension (numbers such as 0.5 are not names)
names() {
    grep -oE '[A-Za-z0-9_./+*-]*[A-Za-z_][A-Za-z0-9_*+-]*\.(md|c|h|sh|gp|cosa|fmu|png|svg|pdf|txt|csv|dat|am|ac|xml|pc|so|log|bin|gz)\b' "$1" |
        sort -u
}
# Written by cosa or make paper (out/..., maps/..., the paper's figures and
# tables), built by make or make check (cosa.pc, libcosa.so, the test FMUs),
# example names of the text (m.cosa, model.fmu, ...), FMU and SSP archive members and
# a system header: names that need not exist.
allowed() {
    case $1 in
    osp_ecco.csv | osp_fixedstep.csv | */osp_ecco.csv | */osp_fixedstep.csv) return 0 ;; # simulate -o DIR of an OSP system (doc/osp.md)
    out/* | maps/* | fig[0-9]*.png | table[0-9]*.md | summary.md | advise.* | robust_* | rho_*) return 0 ;;
    ex1_*.png | explicit_*.png | sweeps_*.png | m.cosa | f.cosa | twomass-stiff.cosa | model.fmu | bad.fmu | twomass2.fmu) return 0 ;;
    modelDescription.xml | binaries/* | resources/* | stdio.h) return 0 ;;
    */share/doc/*) return 0 ;; # the installed guide (cosa --help)
    twomass-lin.cosa | lin.cosa | a.fmu | sim/* | curve/* | adaptive/*) return 0 ;;
    cosa.pc | libcosa.so | twomass[12]_fmi[23].fmu) return 0 ;;
    esac
    return 1
}
# A template of a name (NAME_SCHEME.dat, BASE_poly.csv, ..._steps.gp, fig4*_...):
# capitals, an ellipsis or a wildcard.
template() { echo "$1" | grep -qE '[A-Z]{2,}|\.\.\.|[*]'; }
# Written by the docs' own examples: in a fenced block of README.md or doc/*.md, the
# file of a redirection (cat > net.cosa <<END), of -o/--output (linearize -o
# bb-identified.cosa) or of savefig("...") (Python); a name matches such a file or
# its base name (osp-demo/OspSystemStructure.xml writes OspSystemStructure.xml).
awk '/^```/ { inb = !inb; next } inb' "$COSA_SRCDIR/README.md" "$COSA_SRCDIR"/doc/*.md |
    grep -oE '(>|-o|--output)[[:blank:]]*[A-Za-z0-9_./+-]+|savefig\("[^"]+"' |
    sed -E -e 's/^(>|-o|--output)[[:blank:]]*//' -e 's/^savefig\("//' -e 's/"$//' | sort -u > "$tmp/written"
written() {
    grep -qxF -- "$1" "$tmp/written" && return 0
    awk -F/ -v b="$(basename "$1")" '$NF == b { f = 1 } END { exit !f }' "$tmp/written"
}
found() {
    [ -e "$COSA_SRCDIR/$1" ] || [ -e "$build/$1" ] || [ -e "$COSA_SRCDIR/lib/$1" ] && return 0
    [ -n "$(find "$COSA_SRCDIR" "$build" -path "*/$1" -not -path '*/.git/*' 2>/dev/null | head -n 1)" ]
}
nmiss=0 nname=0
for n in $(names "$tmp/texts"); do
    nname=$((nname + 1))
    found "$n" && continue
    allowed "$n" && continue
    written "$n" && continue
    template "$n" && continue
    bad "README, doc/*.md, tests/README.md or a --help text names '$n', which is neither in the source tree nor installed nor written by cosa"
    nmiss=$((nmiss + 1))
done
[ "$nname" -ge 50 ] || bad "only $nname file names read from README and the --help texts"
[ "$nmiss" = 0 ] && ok "the $nname file names of README and the --help texts exist (or cosa writes them)"
# doc/ files the help texts name, and man pages NAME(5), are installed
am="$COSA_SRCDIR/Makefile.am"
# the lines of dist_doc_DATA, dist_guide_DATA, dist_man_MANS (with their continuations)
inst=$(awk '/^(dist_doc_DATA|dist_guide_DATA|dist_man_MANS|man_MANS) *[+]?=/ { on = 1; sub(/^[^=]*=/, "") }
    on { l = $0; c = sub(/\\$/, "", l); printf "%s ", l; on = c }' "$am" | tr '\t' ' ')
for d in $(grep -oE '(^|[ (])doc/[A-Za-z0-9_.-]+' "$tmp/helps" | sed 's/^[ (]//' | sort -u) \
    $(grep -oE '[a-z][a-z-]*\(5\)|man 5 [a-z][a-z-]*' "$tmp/texts" | sed -e 's/^man 5 \(.*\)/\1(5)/' \
        -e 's|^\(.*\)(5)$|doc/\1.5|' | sort -u); do
    if [ -f "$COSA_SRCDIR/$d" ] && echo " $inst " | grep -q " $d "; then
        ok "$d exists and is installed"
    else
        bad "$d is named by the documentation but missing or not installed (Makefile.am dist_doc_DATA/dist_man_MANS)"
    fi
done
if command -v groff >/dev/null 2>&1; then
    groff_clean "$COSA_SRCDIR/doc/cosa-model.5" "groff warnings in cosa-model.5:"
fi
# every relative link of README.md, doc/*.md and tests/README.md resolves: [text](PATH) or
# [text](PATH#anchor) to a file or directory of the sources or the build
nlink=0 nbadlink=0
for md in "$COSA_SRCDIR/README.md" "$COSA_SRCDIR"/doc/*.md "$COSA_SRCDIR/tests/README.md"; do
    dir=$(dirname "$md")
    for l in $(grep -oE '\]\([^)# ]+(#[^) ]*)?\)' "$md" | sed -e 's/^](//' -e 's/)$//' -e 's/#.*//' | sort -u); do
        case $l in http://* | https://* | mailto:*) continue ;; esac
        nlink=$((nlink + 1))
        [ -e "$dir/$l" ] && continue
        rel=${dir#"$COSA_SRCDIR"}; rel=${rel#/}
        [ -e "$build/${rel:+$rel/}$l" ] && continue
        bad "${md#"$COSA_SRCDIR"/} links to '$l', which does not exist"
        nbadlink=$((nbadlink + 1))
    done
done
[ "$nlink" -ge 40 ] || bad "only $nlink relative links read from README.md and doc/*.md"
[ "$nbadlink" = 0 ] && ok "the $nlink relative links of README.md, doc/*.md and tests/README.md resolve"
# every doc/*.md page is installed, and listed by doc/index.md
for p in "$COSA_SRCDIR"/doc/*.md; do
    b=$(basename "$p")
    echo " $inst " | grep -q " doc/$b " || bad "doc/$b is not installed (Makefile.am dist_guide_DATA)"
    [ "$b" = index.md ] || grep -q "($b)" "$COSA_SRCDIR/doc/index.md" || bad "doc/index.md does not list doc/$b"
done
# every guide page starts with the question it answers (a "?" among its first six
# non-blank lines after the title) and has a worked example (an sh block not marked
# norun, which tests/test_doc_examples.sh runs)
for p in "$COSA_SRCDIR"/doc/*.md; do
    b=$(basename "$p")
    awk 'NR > 1 && NF { n++; if (n <= 6 && index($0, "?")) q = 1 }
        /^<!-- norun:/ { norun = 1; next }
        /^```sh/ { inb = !norun; norun = 0; next } /^```/ { inb = 0; norun = 0; next } inb && NF { ex = 1 }
        END { exit !(q && ex) }' "$p" ||
        bad "doc/$b does not start with the question it answers or has no worked example (an \`\`\`sh block that runs)"
done
# README's set-up commands: the first sh block, exactly the two commands .ci/run runs
awk '/^```sh/ { on = 1; next } on && /^```/ { exit } on' "$COSA_SRCDIR/README.md" > "$tmp/setup"
if [ "$(wc -l < "$tmp/setup")" = 2 ] && [ -f "$COSA_SRCDIR/.ci/run" ] &&
    grep -qxF -- "$(sed -n 1p "$tmp/setup")" "$COSA_SRCDIR/.ci/run" &&
    grep -qF -- "$(sed -n 2p "$tmp/setup")" "$COSA_SRCDIR/.ci/run"; then
    ok "README's two set-up commands are the ones .ci/run runs"
elif [ ! -f "$COSA_SRCDIR/.ci/run" ]; then
    echo "skip - no .ci/run (a tarball): README's set-up commands not compared"
else
    bad "README's first sh block is not the two commands of .ci/run:"; cat "$tmp/setup"
fi
[ "$(wc -l < "$COSA_SRCDIR/README.md")" -le 350 ] && ok "README.md has at most 350 lines" ||
    bad "README.md has $(wc -l < "$COSA_SRCDIR/README.md") lines (at most 350: move detail to doc/)"
harness_done test_docs
