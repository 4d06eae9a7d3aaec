#!/bin/sh
# test_exit_codes.sh -- the one table of exit codes, per command (README,
# doc/output-formats.md): 0 a result; 2 bad usage or input (an unknown
# option, a missing input file, an -o target that cannot be created: all
# found before any work); 1 a failed computation or write -- a full stdout
# (/dev/full) included, with one stderr line giving its reason ("No space
# left on device" for every command); a closed pipe keeps SIGPIPE's
# exit 141.  Every command of 'cosa --help' (fmu-info and linearize when the
# test FMUs are built), and the JSON forms.
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
# fmu-info and linearize read FMUs: the test FMUs of make check, when built
fmu=${COSA_FMUDIR:-tests/fmu}/twomass1_fmi3.fmu
if [ -f "$fmu" ]; then
    FMU=$(cd "${COSA_FMUDIR:-tests/fmu}" && pwd)
    fmu_twomass "$tmp/two.cosa" twofmu 0.3 twomass1_fmi3.fmu twomass2_fmi3.fmu
    runs="$runs
fmu-info|$fmu
linearize|--model-file $tmp/two.cosa"
else
    echo "note: no test FMUs (make check builds them): fmu-info and linearize not checked"
fi

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
            grep -q "^cosa: $cmd: cannot write to standard output: No space left on device$" "$tmp/err" &&
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
expect_exit 2 "$COSA" fmu-info "$tmp/none.fmu"
if [ -f "$fmu" ]; then
    expect_exit 2 "$COSA" linearize --model-file "$tmp/two.cosa" -o "$unwritable/x.cosa"
fi
# --format json: a full stdout is exit 1 and one line as for the text; the
# JSON files of map, curve and simulate -o are probed with the others
for c in "point --scheme zoh --dt 1e-4" "limit --scheme p4 --criterion stable --dt-min 1e-6" \
    "converge --scheme foh --points 8" "simulate --model twomass --scheme zoh --dt 1e-3" \
    "phi --scheme zoh --dt 1e-4" "bench --grid 4 --egrid 2 --scheme zoh --dt 1e-3 --threads 1"; do
    # shellcheck disable=SC2086
    "$COSA" $c --format json >/dev/full 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: ${c%% *}: cannot write to standard output: No space left on device$" "$tmp/err" && ok ||
        bad "$c --format json > /dev/full: exit $rc, $(cat "$tmp/err")"
done
# the other paths of the commands on the table writer (phi --ref and an
# iterative scheme's comments, demo's padded columns, bench's adaptive rows
# and comments, curve's JSON file and adaptive count, convert back to text,
# a model file's listing, an FMU's clock lines): a full stdout is exit 1 and
# one line naming standard output
"$COSA" convert "$tmp/m/rho_zoh.dat" "$tmp/conv2.dat" >/dev/null 2>&1 &&
    "$COSA" model-dump --model twomass -o "$tmp/tm.cosa" >/dev/null 2>&1 ||
    bad "convert or model-dump for the inputs below failed"
writer_runs="phi --scheme foh+mbcorr --dt 1e-3 --ref
phi --scheme imp:zoh --dt 1e-3 --iterations 3
demo --dt 1e-3,1e-2
bench --grid 4 --egrid 2 --scheme zoh,foh --dt 1e-3 --threads 1
curve --x dt=1e-5:1e-3:log:3 --scheme zoh,foh --format json -o $tmp/cj
curve --x ck=1e3:1e9:log:5 --dt 1e-3 --scheme zoh --adaptive -o $tmp/ca
convert $tmp/conv2.dat $tmp/conv3.dat
models --model-file $tmp/tm.cosa"
clockfmu=${COSA_FMUDIR:-tests/fmu}/sampler_fmi3.fmu
[ -f "$clockfmu" ] && writer_runs="$writer_runs
fmu-info $clockfmu"
IFS=$nl
for c in $writer_runs; do
    IFS=$IFS_was
    # shellcheck disable=SC2086
    "$COSA" $c >/dev/full 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: ${c%% *}: cannot write to standard output: No space left on device$" "$tmp/err" && ok ||
        bad "$c > /dev/full: exit $rc, $(cat "$tmp/err")"
    IFS=$nl
done
IFS=$IFS_was
expect_exit 2 "$COSA" map --x ck=1e3:1e9:log:3 --y dk=1:1e5:log:3 --dt 1e-3 --scheme zoh --format json -o "$unwritable"
expect_exit 2 "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh --format json -o "$unwritable"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --format json -o "$unwritable"
# an existing NAME_SCHEME.json in the current directory is not overwritten
# without -o: refused before the work with the .dat's rule (exit 2 as the
# exit table says, "exists; not overwriting it"), nothing written
mkdir -p "$tmp/cwd" && : >"$tmp/cwd/rho_zoh.json"
cosa_abs=$(cd "$(dirname "$COSA")" && pwd)/$(basename "$COSA")
(cd "$tmp/cwd" && expect_exit 2 "$cosa_abs" map --x ck=1e3:1e9:log:3 --y dk=1:1e5:log:3 --dt 1e-3 \
    --scheme zoh --format json && grep -q "rho_zoh.json' exists; not overwriting it" "$tmp/err" &&
    [ ! -e rho_zoh.dat ] && [ ! -s rho_zoh.json ]) || bad "map --format json over an existing rho_zoh.json"

# ---- faults refused at parse time, one line, before any work -----------------------
# (each would have run for hours, computed identical rows or ignored a number)
m="--scheme zoh --dt 1e-3 -o $tmp/never"
refused() {
    pat=$1
    shift
    expect_exit 2 "$@" && { grep -q -- "$pat" "$tmp/err" || bad "'$*': '$pat' not in: $(cat "$tmp/err")"; }
}
# shellcheck disable=SC2086
{
    refused "one point takes LO alone" "$COSA" map --x ck=1:10:log:1 --y dk=1:10:log:3 $m
    refused "LO = HI gives 8 identical points" "$COSA" map --x ck=5:5:lin:8 --y dk=1:10:log:3 $m
    refused "too many points" "$COSA" map --x ck=1:10:log:18446744073709551615 --y dk=1:10:log:3 $m
    refused "too many points" "$COSA" map --x ck=1:10:log:1e16 --y dk=1:10:log:3 $m
    refused "1000000000000 points, more than the cap 10000000" "$COSA" map --x ck=1:1e10:log:1e12 --y dk=1:10:log:3 $m
    refused "N must be a whole number >= 1" "$COSA" map --x ck=1:10:log:0 --y dk=1:10:log:3 $m
    refused "N must be a whole number >= 1" "$COSA" map --x ck=1:10:log:2.5 --y dk=1:10:log:3 $m
    # the product of the sizes, and the cap a user raises (the refusal comes
    # first either way: no value of the axes is computed)
    refused "5000 x 5000 x 1 x 1 = 25000000 points" "$COSA" map --x ck=1:10:log:5000 --y dk=1:10:log:5000 $m
    refused "ck=1:10:log:5000: 5000 points, more than the cap 1000" "$COSA" map --x ck=1:10:log:5000 --y dk=1:10:log:5000 $m --max-points 1000
    refused "= 4 points, more than the cap 3" "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 $m --max-points 3
    expect_exit 0 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --scheme zoh --dt 1e-3 -o "$tmp/m4" --max-points 4
    refused "LO = HI gives 4 identical points" "$COSA" curve --x dt=1e-3:1e-3:log:4 --scheme zoh -o "$tmp/never"
    refused "1000000000000 points" "$COSA" curve --x ck=1:1e10:log:1e12 $m
    refused "= 6 points, more than the cap 5" "$COSA" curve --x dt=1e-4:1e-3:log:3 --scheme zoh,foh --max-points 5 -o "$tmp/never"
    expect_exit 0 "$COSA" curve --x dt=1e-4:1e-3:log:3 --scheme zoh,foh --max-points 6 -o "$tmp/c6"
    refused "--dt 1e-3:1e-2:log:1e300: too many points" "$COSA" map --x ck=1:10:log:3 --y dk=1:10:log:3 --scheme zoh --dt 1e-3:1e-2:log:1e300
    refused "max-points must be a positive integer" "$COSA" map --x ck=1:10:log:3 --y dk=1:10:log:3 $m --max-points 0
    # near-degenerate axes: neighbours that round to the same double (the
    # points the sweep computes), refused like LO = HI
    refused "points 1 and 2 are both 1 " "$COSA" curve --x ck=1:1.0000000000000002:lin:3 $m
    refused "points 1 and 2 are both 1 " "$COSA" map --x ck=1:1.0000000000000002:log:3 --y dk=1:10:log:3 $m
    refused "are both" "$COSA" curve --x dt=1e-3:1.0000000000000002e-3:log:3 --scheme zoh -o "$tmp/never"
    refused "are both" "$COSA" map --x ck=1:10:log:3 --y dk=1:10:log:3 --scheme zoh --dt 1:1.0000000000000002:lin:3 -o "$tmp/never"
    # defect's --dt and --tol sweeps go through the same range parser, and
    # its cap is --max-points (default 10000)
    d="--model rotational-defect --integrator euler --in-order 0 --out-order 0 --tend 0.05"
    refused "--dt 0.01:0.01:lin:3: LO = HI gives 3 identical points" "$COSA" defect $d --dt 0.01:0.01:lin:3
    refused "--tol 1e-3:1e-2:log:1: one point takes LO alone" "$COSA" defect $d --tol 1e-3:1e-2:log:1
    refused "--dt 1:1.0000000000000002:lin:3: points 1 and 2 are both 1 " "$COSA" defect $d --dt 1:1.0000000000000002:lin:3
    refused "20000 points, more than the cap 10000 (raise it with --max-points N)" "$COSA" defect $d --dt 1e-3:1e-2:log:20000
    refused "3 points, more than the cap 2" "$COSA" defect $d --dt 1e-3:1e-2:log:3 --max-points 2
    refused "max-points must be a positive integer" "$COSA" defect $d --dt 1e-3:1e-2:log:3 --max-points 0
    refused "0 < LO <= HI" "$COSA" defect $d --dt 1e-2:1e-3:log:3
    # the variable-order run has no default macro step: --dt is required
    refused "--dt is required (see 'cosa simulate --help')" "$COSA" simulate --coupling explicit --model twomass --control step --scheme foh --estimator exmilne
    refused "--dt is required (see 'cosa simulate --help')" "$COSA" simulate --coupling explicit --model twomass --control none --scheme foh
    # converge: a --dt-min whose steps the error sums cannot count, in cosa's words
    refused "--dt-min 1e-300: 3e+299 macro steps in the horizon 0.3, more than the error sums take (1e15)" "$COSA" converge --scheme zoh --dt-min 1e-300 --dt-max 1e-299
    # defect refuses a step longer than the horizon as simulate does (it ran one clipped step)
    refused "--dt 5 is longer than the horizon --tend 1: no macro step to run" "$COSA" defect --model rotational-defect --integrator euler --in-order 0 --out-order 0 --dt 5 --tend 1
    refused "--dt 0.1 is longer than the horizon --tend 0.05" "$COSA" defect $d --dt 1e-3:0.1:log:3
    refused "--dt 5 is longer than the horizon --tend 1: no macro step to run" "$COSA" simulate --scheme zoh --dt 5 --tend 1
    expect_exit 0 "$COSA" defect $d --dt 1e-3:1e-2:log:3 --max-points 3
    [ "$(grep -c ' ok ' "$tmp/out")" = 3 ] && ok || bad "defect --max-points 3: not 3 rows: $(cat "$tmp/out")"
}
[ ! -e "$tmp/never" ] && ok || bad "a refused sweep created its -o directory"
# --threads beyond the processors runs on the processors: under a memory
# limit --threads 4096 used to end in libgomp's "Thread creation failed"
(
    ulimit -v 1000000 2>/dev/null || exit 0
    "$COSA" map --x ck=1e3:1e9:log:20 --y dk=1:1e5:log:20 --dt 1e-3 --scheme zoh --threads 4096 \
        -o "$tmp/t4096" >/dev/null 2>"$tmp/err"
    echo $? >"$tmp/rc"
)
[ ! -s "$tmp/rc" ] || { [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ]; } && ok ||
    bad "map --threads 4096 under ulimit -v: exit $(cat "$tmp/rc"), $(cat "$tmp/err")"
# every controller's step floor is a positive number: 0 is refused
refused "--hmin must be a positive finite number, got '0'" "$COSA" estimate --model twomass --scheme soh --estimator exmilne --t0 1e-2 --dt 1e-4 --hmin 0
refused "--hmin must be a positive finite number, got '0'" "$COSA" defect --model rotational-defect --integrator exact --in-order 1 --out-order 1 --tol 1e-3 --hmin 0
harness_done test_exit_codes
