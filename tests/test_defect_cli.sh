#!/bin/sh
# test_defect_cli.sh -- `cosa defect` (issue 12 section 4): the defect paper's
# published values through the command line (rotational-defect, to the
# printed digits: 1e-6 relative or half a unit of the last printed digit,
# whichever is larger), a failed integrator as a result (exit 0), every bad
# input as one line and exit 2, the sweep table's shape and its agreement
# with single runs, and the -o files (the run figures recomputed from the
# per-step CSV: an independent route through the records).
. "$(dirname "$0")/harness.sh"

M="--model rotational-defect"
E="$M --integrator euler"
X="$M --integrator exact"

# value NAME of a `name value` output file
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# near FILE NAME WANT HALFUNIT: |got - want| <= max(1e-6 |want|, halfunit)
near() {
    got=$(val "$1" "$2")
    if awk -v g="$got" -v w="$3" -v h="$4" 'BEGIN {
            if (g == "") exit 1
            d = g - w; if (d < 0) d = -d
            a = w < 0 ? -w : w
            t = 1e-6 * a; if (h > t) t = h
            exit !(d <= t) }'; then
        ok
    else
        bad "$2 = '$got', published $3 (tolerance max(1e-6 rel, $4)) [$5]"
    fi
}

run() {
    out=$1
    shift
    if "$COSA" defect "$@" >"$out" 2>"$tmp/err"; then ok; else bad "cosa defect $* failed: $(cat "$tmp/err")"; fi
    grep -q '^status ok$' "$out" && ok || bad "cosa defect $*: no 'status ok'"
}

# ---- published values (issue 12 "Done when") ------------------------------
run "$tmp/e01" $E --in-order 0 --out-order 0 --dt 0.1
near "$tmp/e01" defect_out_omega2 2.67015e-3 0.5e-8 "euler H=0.1 m=n=0"
near "$tmp/e01" defect_out_tau 1.11063e-3 0.5e-8 "euler H=0.1 m=n=0"
near "$tmp/e01" defect_conn_omega2_in 4.62483e-3 0.5e-8 "euler H=0.1 m=n=0"
near "$tmp/e01" defect_conn_tau_in 1.92367e-3 0.5e-8 "euler H=0.1 m=n=0"
[ "$(val "$tmp/e01" steps)" = 10 ] && ok || bad "euler H=0.1: steps $(val "$tmp/e01" steps), expected 10"

run "$tmp/e1" $E --in-order 0 --out-order 0 --dt 1
s3=$(awk 'BEGIN { printf "%.17g %.17g", 0.05 / sqrt(3), 0.02 / sqrt(3) }')
near "$tmp/e1" defect_out_omega2 "${s3% *}" 0 "euler H=1: 0.05/sqrt 3"
near "$tmp/e1" defect_out_tau "${s3#* }" 0 "euler H=1: 0.02/sqrt 3"
near "$tmp/e1" defect_conn_omega2_in 0.05 0 "euler H=1"
near "$tmp/e1" defect_conn_tau_in 0.02 0 "euler H=1"

run "$tmp/e11" $E --in-order 1 --out-order 1 --dt 0.01
near "$tmp/e11" defect_conn_omega2_in 4.996e-7 0.5e-10 "euler H=0.01 m=n=1"
near "$tmp/e11" defect_conn_tau_in 2.296e-7 0.5e-10 "euler H=0.01 m=n=1"
# "defect_out_* = 0": Euler's output is a line, its estimate is rounding (<= 1e-15)
near "$tmp/e11" defect_out_omega2 0 1e-15 "euler H=0.01 m=n=1"
near "$tmp/e11" defect_out_tau 0 1e-15 "euler H=0.01 m=n=1"

run "$tmp/etol" $E --in-order 0 --out-order 0 --tol 0.01
[ "$(val "$tmp/etol" steps)" = 37 ] && ok || bad "euler tol=0.01: steps $(val "$tmp/etol" steps), published 37"
near "$tmp/etol" h_avg 0.02703 0.5e-5 "euler tol=0.01 m=n=0"

run "$tmp/e50" $E --in-order 0 --out-order 0 --dt 1 --tend 50
near "$tmp/e50" y_end_omega2 -0.0213492 0.5e-7 "euler H=1 T=50"

run "$tmp/x11" $X --in-order 1 --out-order 1 --dt 0.01
near "$tmp/x11" defect_out_omega2 1.949e-7 0.5e-10 "exact H=0.01 m=n=1"
near "$tmp/x11" defect_out_tau 8.987e-8 0.5e-11 "exact H=0.01 m=n=1"
near "$tmp/x11" defect_conn_omega2_in 2.511e-7 0.5e-10 "exact H=0.01 m=n=1"
near "$tmp/x11" defect_conn_tau_in 1.163e-7 0.5e-10 "exact H=0.01 m=n=1"
near "$tmp/x11" error_omega2 1.855e-7 0.5e-10 "exact H=0.01 m=n=1"
near "$tmp/x11" error_tau 4.103e-7 0.5e-10 "exact H=0.01 m=n=1"

# every name the issue lists, once, and h_avg = t_end / steps
for k in status steps t_end h_min h_avg h_max eps_max defect_out_tau defect_out_omega2 \
    error_tau error_omega2 y_end_tau y_end_omega2 defect_conn_omega2_in defect_conn_tau_in; do
    [ "$(awk -v k=$k '$1 == k' "$tmp/x11" | wc -l)" = 1 ] && ok || bad "'$k' not printed once"
done
# and the statistics every time-domain run prints (issue 23): rejected 0 (Algorithm 1
# accepts every step), after the lines printed before it
for f in x11 etol; do
    [ "$(awk '$1 == "rejected"' "$tmp/$f" | wc -l)" = 1 ] && [ "$(val "$tmp/$f" rejected)" = 0 ] &&
        ok || bad "$f: 'rejected 0' not printed once"
    # the last line before the run's iterations and units (run_stats.h)
    [ "$(grep -Ev '^(rollbacks|corrector_iterations|unit) ' "$tmp/$f" | tail -1)" = "rejected 0" ] &&
        ok || bad "$f: rejected is not the last line before rollbacks"
    # no rollbacks or iterations (Algorithm 1); per unit: every macro step plus its
    # mid-step sample (a half step from a snapshot, then a restore): 2 N steps, N restores
    n=$(val "$tmp/$f" steps)
    awk -v n="$n" '$1 == "rollbacks" { r = $2; nr++ } $1 == "corrector_iterations" { c = $2; nc++ }
        $1 == "unit" { u++; if ($4 != 2 * n || $6 != n || $8 != 0 || $10 != 0) badu = 1 }
        END { exit !(nr == 1 && r == 0 && nc == 1 && c == 0 && u == 2 && !badu) }' "$tmp/$f" &&
        ok || bad "$f: rollbacks/corrector_iterations/unit lines: $(grep -E '^(rollbacks|corr|unit)' "$tmp/$f" | tr '\n' ' ')"
done
# a fixed step is the same every step: h_min = h_max = dt, also when t_end is
# reached by k dt only up to rounding (H = 0.01 to T = 1 here; 0.1 to 0.3 below)
# (%.17g reads back to the same double: compared as numbers)
fixed_h() { # FILE DT STEPS
    awk -v dt="$2" -v n="$3" '$1 == "h_min" { a = $2 } $1 == "h_max" { b = $2 } $1 == "steps" { s = $2 }
        END { exit !(a + 0 == dt + 0 && b + 0 == dt + 0 && (n == "" || s == n)) }' "$1" && ok ||
        bad "$1: steps/h_min/h_max, want dt $2: $(grep -E '^(steps|h_m)' "$1" | tr '\n' ' ')"
}
fixed_h "$tmp/x11" 0.01 ""
run "$tmp/x3" $X --in-order 0 --out-order 0 --dt 0.1 --tend 0.3
fixed_h "$tmp/x3" 0.1 3
awk '$1 == "t_end" { T = $2 } $1 == "steps" { n = $2 } $1 == "h_avg" { h = $2 }
     END { d = h - T / n; exit !(d < 1e-15 && d > -1e-15) }' "$tmp/etol" && ok ||
    bad "h_avg is not t_end / steps"

# a nonlinear model has no exact solution: errors are nan, with a note
"$COSA" defect --model twomass-nl --integrator euler --in-order 1 --out-order 1 --dt 1e-3 \
    --tend 0.01 >"$tmp/nl" 2>"$tmp/err" && ok || bad "twomass-nl euler failed: $(cat "$tmp/err")"
grep -q '^error_' "$tmp/nl" && grep '^error_' "$tmp/nl" | awk '$2 !~ /^-?nan$/ { exit 1 }' &&
    ok || bad "twomass-nl: errors should be nan: $(grep ^error "$tmp/nl")"
grep -q 'note: .*no exact solution' "$tmp/err" && ok || bad "twomass-nl: no note on the missing reference"

# ---- a failed integrator is a result: status failed t=..., exit 0 (README "Failures")
"$COSA" defect $M --integrator cvode --rtol 1e-300 --in-order 0 --out-order 0 --dt 0.1 \
    >"$tmp/f" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || bad "a failed CVODE run exited $rc, expected 0"
grep -q '^status failed t=' "$tmp/f" && ok || bad "a failed run should print 'status failed t=...'"
# a run that blows up (an unstable coupling: J1 = 1e-3 with Euler at H = 1) is a
# result too, not an error
"$COSA" defect --model rotational-defect --set J1=1e-3 --integrator euler --in-order 0 --out-order 0 \
    --dt 1 --tend 1e4 >"$tmp/f2" 2>"$tmp/e2"
[ $? = 0 ] && grep -q '^status failed t=' "$tmp/f2" && ok ||
    bad "a diverging run should print 'status failed t=...' and exit 0: $(cat "$tmp/f2" "$tmp/e2")"

# ---- the step limit and the step floor are results: exit 0, one stderr line ----
# (the collapsing run of issue 23: twomass, exact units, m = 0, n = 1, tol 1e-3,
# whose controlled step falls to 1e-10 s; without a limit it ran for minutes)
C="--model twomass --integrator exact --in-order 0 --out-order 1 --tol 1e-3 --tend 0.01"
# shellcheck disable=SC2086
"$COSA" defect $C --max-steps 200 >"$tmp/ms" 2>"$tmp/ems"
[ $? = 0 ] && ok || bad "a run that hits --max-steps should exit 0"
[ "$(val "$tmp/ms" steps)" = 200 ] && ok || bad "--max-steps 200: steps $(val "$tmp/ms" steps)"
t_ms=$(val "$tmp/ms" t_end)
grep -q "^status max-steps t=" "$tmp/ms" && ok || bad "--max-steps: no 'status max-steps t=...'"
awk -v t="$t_ms" 'BEGIN { exit !(t > 0 && t < 0.01) }' && ok ||
    bad "--max-steps: t_end $t_ms should be inside (0, T)"
[ "$(wc -l <"$tmp/ems")" = 1 ] && grep -q '^cosa: defect: stopped after 200 macro steps (--max-steps) at t = ' "$tmp/ems" &&
    ok || bad "--max-steps: one stderr line naming the limit and the time, got: $(cat "$tmp/ems")"
# the same steps as the first 200 of a longer run (the limit only stops it)
# shellcheck disable=SC2086
"$COSA" defect $C --max-steps 400 -o "$tmp/ms4" >"$tmp/ms4.out" 2>/dev/null
# shellcheck disable=SC2086
"$COSA" defect $C --max-steps 200 -o "$tmp/ms2" >/dev/null 2>&1
f4=$tmp/ms4/twomass_exact_m0_n1.csv
f2=$tmp/ms2/twomass_exact_m0_n1.csv
[ "$(grep -v '^#' "$f2" | wc -l)" = 201 ] && [ "$(grep -v '^#' "$f4" | head -201)" = "$(grep -v '^#' "$f2")" ] &&
    grep -q '^# status max-steps' "$f2" && ok ||
    bad "--max-steps 200: the per-step CSV should be the first 200 rows of --max-steps 400's"
# the floor: the collapse stops when the next step is below --hmin
# shellcheck disable=SC2086
"$COSA" defect $C --hmin 1e-8 >"$tmp/hm" 2>"$tmp/ehm"
[ $? = 0 ] && grep -q '^status hmin t=' "$tmp/hm" && [ "$(wc -l <"$tmp/ehm")" = 1 ] &&
    grep -q '^cosa: defect: the macro step fell below --hmin 1e-08 at t = ' "$tmp/ehm" && ok ||
    bad "--hmin 1e-8: status hmin, exit 0, one stderr line: $(cat "$tmp/hm" "$tmp/ehm")"
awk -v h="$(val "$tmp/hm" h_min)" 'BEGIN { exit !(h >= 1e-8) }' && ok ||
    bad "--hmin 1e-8: a step below the floor was taken (h_min $(val "$tmp/hm" h_min))"
# the default floor, 1e-12 s (COSA_DEFECT_HMIN): a tolerance the defects cannot
# reach ends as status hmin, exit 0, every step taken >= the floor (the step
# used to halve into the subnormals until a unit said "argument out of range")
"$COSA" defect $X --in-order 1 --out-order 1 --tol 1e-20 >"$tmp/h20" 2>"$tmp/eh20"
[ $? = 0 ] && grep -q '^status hmin t=' "$tmp/h20" && [ "$(wc -l <"$tmp/eh20")" = 1 ] &&
    grep -q '^cosa: defect: the macro step fell below --hmin 1e-12 at t = ' "$tmp/eh20" && ok ||
    bad "--tol 1e-20: status hmin, exit 0, one stderr line: $(cat "$tmp/h20" "$tmp/eh20")"
awk -v h="$(val "$tmp/h20" h_min)" 'BEGIN { exit !(h >= 1e-12) }' && ok ||
    bad "--tol 1e-20: a step below the default floor 1e-12 was taken (h_min $(val "$tmp/h20" h_min))"
# a run that ends at T is unchanged by a limit it does not reach
"$COSA" defect $E --in-order 0 --out-order 0 --dt 0.1 --max-steps 10 >"$tmp/m10" 2>&1 &&
    [ "$(cat "$tmp/m10")" = "$(cat "$tmp/e01")" ] && ok ||
    bad "--max-steps 10 on a 10-step run should change nothing"
"$COSA" defect $E --in-order 0 --out-order 0 --dt 0.1 --max-steps 9 >"$tmp/m9" 2>/dev/null
[ $? = 0 ] && grep -q '^status max-steps t=0.9$' "$tmp/m9" && ok ||
    bad "--max-steps 9 on a 10-step run: $(head -12 "$tmp/m9")"
# in a sweep, the status column
"$COSA" defect $C --max-steps 50 --tol 1e-3:1e-2:log:2 >"$tmp/msw" 2>/dev/null
[ $? = 0 ] && [ "$(awk '!/^#/ && $2 == "max-steps"' "$tmp/msw" | wc -l)" -ge 1 ] && ok ||
    bad "sweep with --max-steps: a 'max-steps' status row expected: $(cat "$tmp/msw")"

# ---- bad input: one line 'cosa: ...' and exit 2 ---------------------------------
expect_usage() {
    "$COSA" defect "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != 2 ]; then
        bad "'cosa defect $*' exited $got, expected 2"
    elif [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^cosa: defect: ' "$tmp/err"; then
        bad "'cosa defect $*' should print one 'cosa: defect: ...' line, got: $(cat "$tmp/err")"
    else
        ok
    fi
}
O="--in-order 0 --out-order 0"
for a in "--in-order -1 --out-order 0" "--in-order 3 --out-order 0" "--in-order 0 --out-order 3" \
    "--in-order 1.5 --out-order 0" "--in-order x --out-order 0" "--out-order 0" "--in-order 0"; do
    # shellcheck disable=SC2086
    expect_usage $E $a --dt 0.1
done
for a in "--tol 0" "--tol -1" "--tol nan" "--tol inf" "--dt 0" "--dt -0.1" "--dt nan" \
    "--dt inf" "--dt 1e-3 --tend 0" "--dt 1e-3 --tend -1" "--dt 1e-3 --tend nan" \
    "--dt 1e-3 --tend inf" "--tol 0.01 --h0 0" "--tol 0.01 --h0 -1" "--tol 0.01 --h0 nan" \
    "--tol 0.01 --h0 inf" "--dt 0.1 --tol 0.01" "" "--dt 0.1 --h0 1e-3" \
    "--dt 0.1 --control foo" "--dt 0.1 --rtol 0" "--dt 0.1 --plot jpg" "--dt 0.1 stray" \
    "--dt 0.1 --bogus" "--dt 1e-3:1:log" "--dt 1:1e-3:log:4" "--dt 1e-3:1:cube:4" \
    "--dt 1e-3:1:log:0" "--dt 0:1:log:4" "--dt a:b:log:4" "--tol 1e-3:1:log:4:5" \
    "--tol 1e-3:nan:log:4" "--tol -1:1:lin:4" "--dt 1e-3:inf:log:4" "--dt 1e-12" \
    "--dt 0.1 --max-steps 0" "--dt 0.1 --max-steps -1" "--dt 0.1 --max-steps 1.5" \
    "--dt 0.1 --max-steps x" "--tol 0.01 --hmin -1" "--tol 0.01 --hmin nan" \
    "--tol 0.01 --hmin inf" "--dt 0.1 --hmin 1e-6" "--tol 0.01 --hmin 0"; do
    # shellcheck disable=SC2086
    expect_usage $E $O $a
done
expect_usage --model nope --integrator euler $O --dt 0.1
expect_usage $M --integrator rk5 $O --dt 0.1
expect_usage $M $O --dt 0.1
expect_usage --integrator euler $O --dt 0.1
expect_usage --model twomass-nl --integrator exact $O --dt 0.01
expect_usage --paper
expect_usage --paper -o "$tmp/p" --integrator euler
expect_usage --paper -o "$tmp/p" --max-steps 10
"$COSA" defect --help >"$tmp/out" 2>&1 && grep -q '^Usage: cosa defect' "$tmp/out" && ok ||
    bad "cosa defect --help"

# ---- sweeps: the table's shape, and each row is the single run ---------------
"$COSA" defect $E $O --dt 1e-2:1e-1:log:3 >"$tmp/sw" 2>"$tmp/err" && ok ||
    bad "dt sweep failed: $(cat "$tmp/err")"
hdr=$(grep -v '^#' "$tmp/sw" | head -1)
want="dt status steps t_end h_min h_avg h_max eps_max defect_out_tau defect_out_omega2 error_tau error_omega2 y_end_tau y_end_omega2 defect_conn_omega2_in defect_conn_tau_in"
[ "$hdr" = "$want" ] && ok || bad "sweep header: '$hdr'"
[ "$(grep -v '^#' "$tmp/sw" | sed 1d | wc -l)" = 3 ] && ok || bad "expected 3 sweep rows"
grep -v '^#' "$tmp/sw" | sed 1d | awk 'NF != 16 || $2 != "ok" { exit 1 }' && ok ||
    bad "sweep rows should have 16 columns and status ok"
row=$(grep -v '^#' "$tmp/sw" | awk '$1 + 0 > 0.099 && $1 + 0 < 0.101')
[ -n "$row" ] && ok || bad "no sweep row at dt = 0.1"
# column by column the same digits as the single run at H = 0.1
i=0
for k in $want; do
    i=$((i + 1))
    [ "$k" = dt ] || [ "$k" = status ] && continue
    c=$(echo "$row" | awk -v i=$i '{ print $i }')
    [ "$c" = "$(val "$tmp/e01" "$k")" ] && ok || bad "sweep $k '$c' vs single run '$(val "$tmp/e01" "$k")'"
done
"$COSA" defect $E $O --tol 1e-2:1e-1:log:4 >"$tmp/swt" 2>"$tmp/err" && ok ||
    bad "tol sweep failed: $(cat "$tmp/err")"
[ "$(grep -v '^#' "$tmp/swt" | head -1 | cut -d' ' -f1)" = tol ] && ok || bad "tol sweep header"
[ "$(grep -v '^#' "$tmp/swt" | sed 1d | wc -l)" = 4 ] && ok || bad "expected 4 tol sweep rows"
grep -v '^#' "$tmp/swt" | awk '$1 + 0 > 0.0099 && $1 + 0 < 0.0101 { exit !($3 == 37) }' && ok ||
    bad "tol sweep row at 0.01 should take 37 steps"

# ---- -o files ---------------------------------------------------------------------
d=$tmp/o
"$COSA" defect $X --in-order 1 --out-order 1 --tol 0.01 -o "$d" >"$tmp/o1" 2>"$tmp/err" && ok ||
    bad "-o run failed: $(cat "$tmp/err")"
b=$d/rotational-defect_exact_m1_n1
for f in "$b.csv" "${b}_poly.csv" "${b}_exact.csv" "${b}_response.gp" "${b}_steps.gp"; do
    [ -s "$f" ] && ok || bad "missing $f"
done
hdr=$(grep -v '^#' "$b.csv" | head -1)
[ "$hdr" = "t,H,eps,out.tau,out.omega2,conn.omega2_in,conn.tau_in,tau.d0,tau.d1,omega2.d0,omega2.d1" ] &&
    ok || bad "per-step CSV header: '$hdr'"
n=$(val "$tmp/o1" steps)
[ "$(grep -v '^#' "$b.csv" | sed 1d | wc -l)" = "$n" ] && ok || bad "per-step CSV should have $n rows"
# the run figures from the per-step records: sum H = T, last t = T, max eps,
# run RMS sqrt(sum H rms^2 / T), Y(T) = the last step's y^(0)
grep -v '^#' "$b.csv" | sed 1d | awk -F, -v T="$(val "$tmp/o1" t_end)" \
    -v e="$(val "$tmp/o1" eps_max)" -v dout="$(val "$tmp/o1" defect_out_omega2)" \
    -v dconn="$(val "$tmp/o1" defect_conn_tau_in)" -v yend="$(val "$tmp/o1" y_end_omega2)" '
    function rel(a, b) { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; return d <= 1e-12 * s + 1e-300 }
    { sh += $2; if ($3 > m) m = $3; so += $2 * $5 * $5; sc += $2 * $7 * $7; t = $1; y = $10 }
    END { if (!rel(sh, T) || t != T || !rel(m, e) || !rel(sqrt(so / T), dout) ||
              !rel(sqrt(sc / T), dconn) || y != yend) {
              printf "sum H %.17g T %s, last t %s, max eps %.17g vs %s, out %.17g vs %s, conn %.17g vs %s, y %s vs %s\n",
                  sh, T, t, m, e, sqrt(so / T), dout, sqrt(sc / T), dconn, y, yend; exit 1 } }' &&
    ok || bad "per-step records do not give the run figures"
# the scripts name their data by relative path
grep -q "^files  = \"rotational-defect_exact_m1_n1.csv\"" "${b}_steps.gp" && ok ||
    bad "steps script should name its data file by relative path"
"$COSA" defect $X --in-order 1 --out-order 1 --dt 1e-2:1e-1:log:3 -o "$d" >"$tmp/o2" 2>"$tmp/err" &&
    ok || bad "-o sweep failed: $(cat "$tmp/err")"
s=$d/rotational-defect_exact_m1_n1_dt_sweep
for f in "$s.csv" "${s}_defect_out.gp" "${s}_defect_conn.gp" "${s}_error.gp"; do
    [ -s "$f" ] && ok || bad "missing $f"
done
[ "$(grep -v '^#' "$s.csv" | head -1 | tr ',' ' ')" = "$want" ] && ok || bad "sweep CSV header"
[ "$(grep -v '^#' "$s.csv" | sed 1d | wc -l)" = 3 ] && ok || bad "sweep CSV should have 3 rows"
"$COSA" defect $X --in-order 1 --out-order 1 --tol 1e-2:1e-1:log:3 -o "$d" >/dev/null 2>&1 &&
    [ -s "$d/rotational-defect_exact_m1_n1_tol_sweep_h_avg.gp" ] && ok ||
    bad "tol sweep should write the mean-step script"
if command -v gnuplot >/dev/null 2>&1; then
    "$COSA" defect $E $O --dt 0.1 -o "$d" --plot png >/dev/null 2>"$tmp/err" &&
        [ -s "$d/rotational-defect_euler_m0_n0_response.png" ] &&
        [ -s "$d/rotational-defect_euler_m0_n0_steps.png" ] && ok ||
        bad "--plot png: $(cat "$tmp/err")"
    (cd "$d" && gnuplot "${s##*/}_defect_conn.gp" && [ -s "${s##*/}_defect_conn.png" ]) 2>"$tmp/err" &&
        ok || bad "the sweep script does not render: $(cat "$tmp/err")"
fi

harness_done test_defect_cli
