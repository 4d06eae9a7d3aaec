#!/bin/sh
# test_end_clip.sh -- a fixed-step run ends at --tend (lib/td/end_clip.c,
# doc/simulate.md "A horizon that is not a multiple of dt"): floor(T/dt) full
# steps and one short step to T.  A model file with tend 3 and dt 0.064 ends
# at t = 3 exactly, its first 47 rows bitwise the run to 46 dt = 2.944; the
# lag FMU on its own Euler grid ends at 1.1 with its closed form; an FMU that
# cannot take the short step ends the run at the last full step with a note;
# simulate --coupling at fixed steps ends at t_start + tend likewise.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
EX=${COSA_SRCDIR:-.}/examples
rows() { grep -v '^#' "$1" | sed 1d; }

# ---- 1. a model file: the last row at t = 3, the grid rows unchanged --------------------
"$COSA" simulate --model-file "$EX/twomass.cosa" --scheme zoh --dt 0.064 --tend 3 \
    -o "$tmp/a" >"$tmp/out" 2>"$tmp/err" && ok || bad "tend 3: $(cat "$tmp/err")"
[ "$(rows "$tmp/a/twomass_zoh.csv" | tail -1 | cut -d, -f1)" = 3 ] && ok ||
    bad "last row not at t = 3: $(rows "$tmp/a/twomass_zoh.csv" | tail -1 | cut -c1-60)"
[ "$(rows "$tmp/a/twomass_zoh.csv" | wc -l)" = 48 ] && [ "$(val steps "$tmp/out")" = 47 ] &&
    ok || bad "not 46 + 1 steps: $(val steps "$tmp/out")"
[ ! -s "$tmp/err" ] && ok || bad "a note where none is due: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$EX/twomass.cosa" --scheme zoh --dt 0.064 --tend 2.944 \
    -o "$tmp/b" >/dev/null 2>&1 && ok || bad "tend 2.944"
# the state and output columns (the reference's aside) of the 47 grid rows are the same
# run, bitwise: the short step only adds the last row
rows "$tmp/a/twomass_zoh.csv" | head -47 | cut -d, -f1-9 >"$tmp/a.txt"
rows "$tmp/b/twomass_zoh.csv" | cut -d, -f1-9 >"$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" && ok || bad "the grid rows changed"
# a multiple of dt: no short step (0.3 / 1e-3 is 299.99999999999994 in double)
"$COSA" simulate --model-file "$EX/twomass.cosa" --scheme zoh --dt 1e-3 --tend 0.3 \
    -o "$tmp/c" >"$tmp/out" 2>&1 && [ "$(val steps "$tmp/out")" = 300 ] &&
    [ "$(rows "$tmp/c/twomass_zoh.csv" | tail -1 | cut -d, -f1)" = 0.29999999999999999 ] && ok ||
    bad "tend 0.3, dt 1e-3: $(val steps "$tmp/out") steps"

# ---- 2. the lag FMU on its grid of 0.1 s: tend 1.1, dt 0.2 -------------------------------
# u = 2 held from t = 0 (step source S, T = 0, A = 2), x0 = 1: after k Euler steps of
# 0.1 s the output is 2 - 0.8^k (test_fixed_step.sh); 5 steps of 0.2 and one of 0.1 are
# k = 11 at t = 1.1.  The FMU forms x += 0.1 (2 - x)/0.5 eleven times, a few roundings of
# O(1) numbers each: 1e-13 is ~50 ulps of margin.
printf 'model lagnet\ntend 1\nfmu S = %s/stepsrc_fmi3.fmu\nfmu L = %s/lagfixed_fmi3.fmu\nconnect S.y -> L.u\n' \
    "$FMU" "$FMU" >"$tmp/src.cosa"
S="--events off --set S.T=0 --set S.A=2 --ref none"
"$COSA" simulate --model-file "$tmp/src.cosa" --scheme zoh --dt 0.2 --tend 1.1 $S \
    -o "$tmp/l" >"$tmp/out" 2>"$tmp/err" && ok || bad "lag tend 1.1: $(cat "$tmp/err")"
grep -v '^#' "$tmp/l/lagnet_zoh.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { last = $1; e = $c["y.L.y"] - (2 - 0.8 ^ 11); if (e < 0) e = -e }
    END { exit !(last == 1.1 && e <= 1e-13) }' && ok ||
    bad "not 2 - 0.8^11 at t = 1.1: $(tail -1 "$tmp/l/lagnet_zoh.csv")"

# ---- 3. a short step the fixed-step FMU cannot take: the run ends at the last full step --
"$COSA" simulate --model-file "$tmp/src.cosa" --scheme zoh --dt 0.2 --tend 1.05 $S \
    -o "$tmp/n" >"$tmp/out" 2>"$tmp/err" && ok || bad "lag tend 1.05 failed: $(cat "$tmp/err")"
grep -qx 'cosa: simulate: note: the run ends at the last full macro step t = 1, before the end of the horizon t = 1.05 (--tend 1.05): FMU L: it takes fixed internal steps of 0.1 s (fixedInternalStepSize): a step of 0.05 s is shorter than one' "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "the note: $(cat "$tmp/err")"
[ "$(grep -v '^#' "$tmp/n/lagnet_zoh.csv" | tail -1 | cut -d, -f1)" = 1 ] && ok ||
    bad "did not end at 1: $(tail -1 "$tmp/n/lagnet_zoh.csv")"
# a scheme that assumes equal steps: the same rule
"$COSA" simulate --model-file "$EX/twomass.cosa" --scheme foh+mbcorr --dt 0.064 --tend 3 \
    >"$tmp/out" 2>"$tmp/err" && grep -q "note: the run ends at the last full macro step t = 3.008, before the end of the horizon t = 3.064 (--tend 3): the output and state corrections" "$tmp/err" &&
    [ "$(val steps "$tmp/out")" = 46 ] && ok || bad "mbcorr: $(cat "$tmp/err")"

# ---- 4. simulate --coupling at fixed steps (lib/td/vo_run.c on evolve_fixed_plan) ---------
# The horizon is t_start + tend (t_start: after the start-up).  tend 0.0105 at dt 1e-3: 10
# full steps and one of 0.5 ms, ending at t_start + tend exactly (the sum as C and awk form
# it, one rounding); the 11 rows to t_start + 10 dt are bitwise those of the run to tend
# 0.011 (11 full steps: the short step only adds the last row).
V="simulate --coupling explicit --model twomass --scheme foh --dt 1e-3"
"$COSA" $V --tend 0.0105 -o "$tmp/v1" >"$tmp/v1.out" 2>"$tmp/err" && ok || bad "vo 0.0105: $(cat "$tmp/err")"
"$COSA" $V --tend 0.011 -o "$tmp/v2" >"$tmp/v2.out" 2>"$tmp/err" && ok || bad "vo 0.011: $(cat "$tmp/err")"
ts=$(val t_start "$tmp/v1.out")
[ "$(val t_end "$tmp/v1.out")" = "$(awk -v a="$ts" 'BEGIN { printf "%.17g", a + 0.0105 }')" ] &&
    [ "$(val steps "$tmp/v1.out")" = 11 ] && ok ||
    bad "vo: not 10 + 1 steps to t_start + 0.0105: $(val steps "$tmp/v1.out") steps, t_end $(val t_end "$tmp/v1.out")"
# the short step: t_end - (t_start + 10 dt), to the rounding of those sums (1e-12 relative)
awk -v h="$(val H_min "$tmp/v1.out")" -v a="$ts" -v e="$(val t_end "$tmp/v1.out")" \
    'BEGIN { w = e - (a + 10e-3); d = h / w - 1; if (d < 0) d = -d; exit !(d <= 1e-12) }' &&
    [ "$(val H_max "$tmp/v1.out")" = 0.001 ] && ok || bad "vo: H_min $(val H_min "$tmp/v1.out") is not the short step"
[ "$(val H_min "$tmp/v2.out")" = 0.001 ] && [ "$(val steps "$tmp/v2.out")" = 11 ] && ok ||
    bad "vo: a whole number of steps took a short one"
rows "$tmp/v1/twomass_explicit_foh.csv" | head -11 >"$tmp/v1.txt"
rows "$tmp/v2/twomass_explicit_foh.csv" | head -11 >"$tmp/v2.txt"
[ "$(rows "$tmp/v1/twomass_explicit_foh.csv" | wc -l)" = 12 ] && cmp -s "$tmp/v1.txt" "$tmp/v2.txt" &&
    ok || bad "vo: the grid rows changed with the short step"
# horizon shorter than dt: one step of tend
"$COSA" $V --tend 0.0005 >"$tmp/v3.out" 2>"$tmp/err" && [ "$(val steps "$tmp/v3.out")" = 1 ] &&
    [ "$(val t_end "$tmp/v3.out")" = "$(awk -v a="$(val t_start "$tmp/v3.out")" 'BEGIN { printf "%.17g", a + 0.0005 }')" ] &&
    ok || bad "vo: tend 0.0005 < dt: $(val steps "$tmp/v3.out") steps to $(val t_end "$tmp/v3.out")"
# the error at the end converges with the scheme's order through the short step: FOH's
# explicit coupling is second order (its error at the end of a whole number of steps falls
# 3.2x and 3.7x per halving here); with tend 0.0103 every run ends with a short step
# (0.3, 0.3, 0.05, 0.05 ms), and each halving must cut e_end by at least 3 (4 asymptotic;
# a short step with the wrong length or nodes would not converge)
prev=
for dt in 5e-4 2.5e-4 1.25e-4; do
    "$COSA" simulate --coupling explicit --model twomass --scheme foh --dt $dt --tend 0.0103 \
        >"$tmp/c.out" 2>"$tmp/err" || bad "vo dt $dt: $(cat "$tmp/err")"
    e=$(val e_end "$tmp/c.out")
    awk -v h="$(val H_min "$tmp/c.out")" -v d=$dt 'BEGIN { exit !(h < d * 0.99) }' && ok ||
        bad "vo dt $dt: no short step (H_min $(val H_min "$tmp/c.out"))"
    [ -z "$prev" ] || { awk -v a="$prev" -v b="$e" 'BEGIN { exit !(a / b >= 3) }' && ok ||
        bad "vo dt $dt: e_end $e, at twice the step $prev: not second order"; }
    prev=$e
done

fmu_env_done test_end_clip
