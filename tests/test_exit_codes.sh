#!/bin/sh
# test_exit_codes.sh -- the one table of exit codes, per command (README,
# doc/output-formats.md): 0 a result; 2 bad usage or input (an unknown
# option, a missing input file, an -o target that cannot be created: all
# found before any work); 1 a failed computation or write -- a full stdout
# (/dev/full) included, with one stderr line; a closed pipe keeps SIGPIPE's
# exit 141.
. "$(dirname "$0")/harness.sh"

mkdir -p "$tmp/ro"
chmod a-w "$tmp/ro"
# root writes anywhere: the unwritable target is then below a regular file
if [ -w "$tmp/ro" ]; then unwritable="$tmp/file/sub"; else unwritable="$tmp/ro/sub"; fi
: >"$tmp/file"
"$COSA" map --x ck=1e3:1e9:log:3 --y dk=1:1e5:log:3 --dt 1e-3 --scheme zoh -o "$tmp/m" \
    >/dev/null 2>&1 || bad "map for the convert input failed"

# NAME|ARGS of a cheap successful run of every command (ARGS split on blanks)
runs="demo|--dt 1e-4
point|--scheme zoh --dt 1e-4
limit|--scheme p4 --criterion stable --dt-min 1e-6
advise|--tol 1e-2 --schemes zoh,foh
converge|--scheme foh --points 8
table|--paper mbcorr --table 1 --pairs 2e5:5e2 --format csv
map|--x ck=1e3:1e9:log:3 --y dk=1:1e5:log:3 --dt 1e-3 --scheme zoh -o $tmp/m2
curve|--x dt=1e-5:1e-3:log:3 --scheme zoh -o $tmp/c
bench|--grid 4 --egrid 2 --scheme zoh --dt 1e-3 --threads 1
convert|$tmp/m/rho_zoh.dat $tmp/conv.dat
phi|--scheme zoh --dt 1e-4
model-dump|--model twomass
models|
simulate|--model twomass --scheme zoh --dt 1e-3
estimate|--model twomass --scheme soh --estimator exmilne --t0 1e-2 --dt 1e-4
defect|--model rotational-defect --integrator euler --in-order 0 --out-order 0 --dt 1e-2"

# the whole list is one word per line for the loops below
IFS_was=$IFS
nl='
'
IFS=$nl
for line in $runs; do
    IFS=$IFS_was
    cmd=${line%%|*}
    args=${line#*|}
    # shellcheck disable=SC2086
    {
        # a result: exit 0
        expect_exit 0 "$COSA" "$cmd" $args
        # a full stdout: exit 1, one line naming standard output
        "$COSA" "$cmd" $args >/dev/full 2>"$tmp/err"
        rc=$?
        [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
            grep -q "^cosa: $cmd: cannot write to standard output: " "$tmp/err" &&
            ok || bad "$cmd > /dev/full: exit $rc, stderr: $(cat "$tmp/err")"
        # --help too
        "$COSA" "$cmd" --help >/dev/full 2>"$tmp/err"
        rc=$?
        [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok ||
            bad "$cmd --help > /dev/full: exit $rc, stderr: $(cat "$tmp/err")"
        # bad usage: exit 2
        expect_exit 2 "$COSA" "$cmd" $args --no-such-option
        # a closed pipe: SIGPIPE's 141 (the reader is gone before cosa starts)
        if [ -x /usr/bin/python3 ]; then
            rc=$(/usr/bin/python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
print(subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL).returncode)
' "$COSA" "$cmd" $args)
            [ "$rc" = 141 ] && ok || bad "$cmd into a closed pipe: exit $rc, expected 141"
        fi
    }
    IFS=$nl
done
IFS=$IFS_was

# the top level
"$COSA" --help >/dev/full 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "cosa --help > /dev/full"
"$COSA" --version >/dev/full 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "cosa --version > /dev/full"
# a stdout closed before the start is an error only when written to
"$COSA" models >&- 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "cosa models >&-"

# an -o target that cannot be created: 2, before any work, nothing written
expect_exit 2 "$COSA" map --x ck=1e3:1e9:log:3 --y dk=1:1e5:log:3 --dt 1e-3 --scheme zoh -o "$unwritable"
expect_exit 2 "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh -o "$unwritable"
expect_exit 2 "$COSA" advise --tol 1e-2 --schemes zoh -o "$unwritable"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 -o "$unwritable"
expect_exit 2 "$COSA" defect --model rotational-defect --integrator euler --in-order 0 --out-order 0 --dt 1e-2 -o "$unwritable"
expect_exit 2 "$COSA" model-dump --model twomass -o "$unwritable/x.cosa"
expect_exit 2 "$COSA" convert "$tmp/m/rho_zoh.dat" "$unwritable/x.dat"
# a missing input file: 2
expect_exit 2 "$COSA" convert "$tmp/none.dat" "$tmp/x.dat"
expect_exit 2 "$COSA" point --model-file "$tmp/none.cosa" --scheme zoh --dt 1e-4
expect_exit 2 "$COSA" model-dump --model-file "$tmp/none.cosa"
expect_exit 2 "$COSA" linearize --model-file "$tmp/none.cosa"
expect_exit 2 "$COSA" point --scheme zoh @"$tmp/none.args"
# linearize and fmu-info on the test FMUs (built by make check)
fmu=${COSA_FMUDIR:-tests/fmu}/twomass1_fmi3.fmu
if [ -f "$fmu" ]; then
    expect_exit 0 "$COSA" fmu-info "$fmu"
    "$COSA" fmu-info "$fmu" >/dev/full 2>"$tmp/err"
    [ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "fmu-info > /dev/full: $(cat "$tmp/err")"
    expect_exit 2 "$COSA" fmu-info "$tmp/none.fmu"
fi
harness_done test_exit_codes
