#!/bin/sh
# test_doc_examples.sh -- the documentation's shell examples, run (issue 34).
#
# Every ```sh block of README.md and doc/*.md is run in a scratch directory
# (one per Markdown file, so a later block may use what an earlier one wrote),
# with the built cosa first on PATH and examples/ holding the shipped example
# files (model files and SSP from the sources, FMUs and .ssp from the build).
# The scratch directory stands for the build tree the docs tell users to paste
# into: tests/fmu/ and tests/api/ link the test FMUs and helper programs that
# make check builds, python/ and lib/ the build's Python package and library
# (doc/python.md's blocks are skipped when the package is not built).
# In a block:
#   - a line "$ COMMAND" is a command; a trailing "\" continues it on the
#     next line, and a here-document (<<'EOF' ... EOF) belongs to it;
#   - "# exit N" at the end of the command: it must exit N; otherwise 0;
#   - every other line is output the command shows; "..." stands for lines
#     left out.  A block without any "$ " line is a script: it runs as it
#     is (sh -e: every command must succeed), its output is not compared.  Each shown line must appear in the command's output, in the
#     order shown (stdout; a shown line that starts with "cosa:" is looked up
#     in stderr); lines the docs leave out are not checked.
#   - Lines match word by word (runs of blanks are one separator).  A word
#     that is a number matches a number of the output when they differ by at
#     most one unit in the last digit the docs show: docs round cosa's %.17g
#     numbers to a few digits (0.993339 for 0.99333938165990754), and one unit
#     rather than half leaves room for a value on a rounding boundary that
#     another BLAS kernel rounds the other way (tools/check-blas-kernels.sh).
#     A number shown with all of cosa's %.17g digits shows the last bits of one
#     BLAS kernel: kernels differ by k n eps (times the computation's
#     condition) -- up to 1e4 macro steps in the energy examples, so with
#     k <= 50, 50 * 1e4 * 2.2e-16 = 1.1e-10 -- and such a number matches
#     within 1e-10 of its value (seen: 7 ulps between Prescott and Haswell
#     for which-scheme.md's rho).  Any other word must be equal.  So a
#     changed number, name or line fails.
# A block right after a line "<!-- norun: REASON -->" is not run (the reason
# says why and which test runs the case instead; tests/README.md).
# Blocks of other languages (```c, ```text, ```xml, indented code) are not run.
set -u
: "${COSA:?}" "${COSA_SRCDIR:?}"
build=$(cd "$(dirname "$COSA")/.." && pwd)
src=$(cd "$COSA_SRCDIR" && pwd)
# ok, bad, $tmp (removed at exit)
. "$(dirname "$0")/harness.sh"
mkdir -p "$tmp/bin"
ln -s "$COSA" "$tmp/bin/cosa"
PATH=$tmp/bin:$PATH
export PATH
norun=0 nblocks=0

# split FILE.md into DIR/NNN.cmd (the command), NNN.exp (shown lines) and
# NNN.rc (the exit status wanted); prints the number of blocks marked norun
# and the number of empty sh blocks
split_md() {
    awk -v dir="$2" '
    /^<!-- norun:/ { skipnext = 1; next }
    !inb && /^```sh[ \t]*$/ { inb = 1; if (skipnext) { skip = 1; nskip++ } skipnext = 0; heredoc = ""; cont = 0; havecmd = 0; next }
    !inb && /^```/ { inb = 2; skipnext = 0; next }
    !inb { if ($0 !~ /^[ \t]*$/) skipnext = 0; next }
    inb && /^```[ \t]*$/ {
        # a block without "$ " lines is one script: run as it is, no output compared
        if (inb == 1 && !skip && !nblk) {
            if (nb == 0) nempty++
            else {
                n++; cmd = sprintf("%s/%03d.cmd", dir, n)
                for (k = 0; k < nb; k++) print buf[k] > cmd
                close(cmd); printf "" > sprintf("%s/%03d.exp", dir, n)
                print 0 > sprintf("%s/%03d.rc", dir, n); close(sprintf("%s/%03d.rc", dir, n))
            }
        }
        inb = 0; skip = 0; nblk = 0; nb = 0; next
    }
    inb != 1 || skip { next }
    { buf[nb++] = $0 }
    heredoc != "" { print >> cmd; if ($0 == heredoc) heredoc = ""; next }
    cont { print >> cmd; cont = ($0 ~ /\\$/); next }
    /^\$ / {
        n++; cmd = sprintf("%s/%03d.cmd", dir, n); expf = sprintf("%s/%03d.exp", dir, n)
        line = substr($0, 3); rc = 0; havecmd = 1; nblk++
        if (match(line, /# exit [0-9]+[ \t]*$/)) { rc = substr(line, RSTART + 7) + 0 }
        print line > cmd; printf "" > expf
        print rc > sprintf("%s/%03d.rc", dir, n); close(sprintf("%s/%03d.rc", dir, n))
        cont = (line ~ /\\$/)
        if (i = index(line, "<<")) {
            heredoc = substr(line, i + 2); gsub(/[^A-Za-z_].*$/, "", heredoc)
            if (heredoc == "") { heredoc = substr(line, i + 2); gsub(/^[- \t\047"]+/, "", heredoc); gsub(/[^A-Za-z_].*$/, "", heredoc) }
        }
        next
    }
    havecmd && $0 != "..." { print >> expf }
    END { print nskip + 0, nempty + 0 }' "$1"
}

# match EXP OUT ERR: every line of EXP in OUT (or ERR for "cosa:" lines), in order
match_lines() {
    awk -v outf="$2" -v errf="$3" '
    function isnum(w) { return w ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    # one unit in the last digit shown: 0.993339 -> 1e-6, 1.5e-05 -> 1e-6, 308 -> 1
    function unit(w,   m, e, ex, dec) {
        m = w; ex = 0
        if (match(m, /[eE]/)) { ex = substr(m, RSTART + 1) + 0; m = substr(m, 1, RSTART - 1) }
        dec = 0
        if (index(m, ".")) dec = length(m) - index(m, ".")
        return 10 ^ (ex - dec)
    }
    function same(a, b,   na, nb, wa, wb, i, d) {
        na = split(a, wa, /[ \t]+/); nb = split(b, wb, /[ \t]+/)
        if (na != nb) return 0
        for (i = 1; i <= na; i++) {
            if (wa[i] == wb[i]) continue
            if (!isnum(wa[i]) || !isnum(wb[i])) return 0
            d = wa[i] - wb[i]; if (d < 0) d = -d
            if (d > unit(wa[i]) * (1 + 1e-9) && d > 1e-10 * (wa[i] < 0 ? -wa[i] : wa[i])) return 0
        }
        return 1
    }
    BEGIN {
        while ((getline l < outf) > 0) { sub(/^[ \t]+/, "", l); sub(/[ \t]+$/, "", l); out[++no] = l }
        while ((getline l < errf) > 0) { sub(/^[ \t]+/, "", l); sub(/[ \t]+$/, "", l); err[++ne] = l }
        io = 1; ie = 1
    }
    {
        want = $0; sub(/^[ \t]+/, "", want); sub(/[ \t]+$/, "", want)
        if (want ~ /^cosa:/) {
            while (ie <= ne && !same(want, err[ie])) ie++
            if (ie > ne) { print "not in stderr (in this order): " $0; bad = 1; exit } ; ie++
        } else {
            while (io <= no && !same(want, out[io])) io++
            if (io > no) { print "not in stdout (in this order): " $0; bad = 1; exit } ; io++
        }
    }
    END { exit bad }' "$1"
}

for md in "$src/README.md" "$src"/doc/*.md; do
    rel=${md#"$src"/}
    name=$(echo "$rel" | tr '/.' '__')
    parts=$tmp/parts_$name
    run=$tmp/run_$name
    mkdir -p "$parts" "$run/examples" "$run/tests"
    for f in "$src"/examples/*.cosa "$src"/examples/*.ssd "$src"/examples/*.ssv \
        "$build"/examples/*.fmu "$build"/examples/*.ssp; do
        [ -e "$f" ] && ln -sf "$f" "$run/examples/"
    done
    ln -s "$build/tests/fmu" "$build/tests/api" "$run/tests/"
    ln -s "$build/python" "$build/lib" "$run/"
    if [ "$rel" = doc/python.md ] && [ ! -e "$build/python/cosa/.built" ]; then
        echo "skip - $rel: the Python package is not built (configure found no cffi)"
        continue
    fi
    counts=$(split_md "$md" "$parts")
    skipped=${counts% *} empty=${counts#* }
    norun=$((norun + skipped))
    [ "$empty" = 0 ] && ok || bad "$rel: $empty empty sh block(s)"
    for c in "$parts"/*.cmd; do
        [ -e "$c" ] || break
        nblocks=$((nblocks + 1))
        base=${c%.cmd}
        want=$(cat "$base.rc")
        (cd "$run" && sh -e "$c") >"$base.out" 2>"$base.err"
        rc=$?
        label="$rel: $(head -n 1 "$c")"
        if [ "$rc" != "$want" ]; then
            bad "$label: exit $rc, want $want"; head -n 3 "$base.err"
            continue
        fi
        if msg=$(match_lines "$base.exp" "$base.out" "$base.err"); then ok; else
            bad "$label: $msg"
            echo "  its output:"; head -n 20 "$base.out" | sed 's/^/    /'; head -n 3 "$base.err" | sed 's/^/    /'
        fi
    done
done
[ "$nblocks" -ge 30 ] && ok || bad "only $nblocks commands found in the docs' sh blocks"
echo "doc examples: $pass passed, $fail failed ($nblocks commands; $norun blocks marked norun)"
[ "$fail" -eq 0 ]
