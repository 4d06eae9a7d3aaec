#!/bin/sh
# test_black_box.sh -- FMUs that hide their states (issue 31; doc/black-box.md),
# identified from their inputs and outputs, under every Phi command, against
# the declared-state route of the same binaries (the truth): the two-mass
# pair with subsystem II's states hidden (FMI 3.0 and 2.0, with and without
# FMU state, and both subsystems hidden) gives dim 7 and the declared rho; the
# old reading (a gain D, dim 5) stays available as --linearization declared;
# --linearization identify on FMUs that declare states; a stateless gain
# recognised as order 0; a nonlinear FMU and an FMU failing during the
# experiments refused in one line; cosa linearize writes the identified model
# as numbers that read back to the same rho; the fixed-step FMU noted as
# sampled.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"

# FILE I II: the two-mass network of FMU files I and II (in $FMU)
net() { fmu_twomass "$1" bb 0.3 "$2" "$3"; }
# relative difference of two numbers within a bound
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
    m = a < 0 ? -a : a; exit !(d <= t * m) }'; }

net "$tmp/decl.cosa" twomass1_fmi3.fmu twomass2_fmi3.fmu
"$COSA" point --model-file "$tmp/decl.cosa" --scheme zoh --dt 1e-4 >"$tmp/decl.out" 2>/dev/null ||
    bad "point on the declared pair failed"
rho0=$(val rho "$tmp/decl.out")
eg0=$(val e_global "$tmp/decl.out")

# Tolerances: the FMUs integrate by RK4 on 100 substeps of each probe step
# (local error (w h/100)^5/120 ~ 1e-12 relative at w ~ 1e3 rad/s, h = 1e-3),
# and the identification's fit error is ~1e-12 (eps over the pulse amplitude
# 1e-3): rho (a smooth function of the model) to 1e-9, e_global (also through
# the fitted initial state) to 1e-8 relative: 1000 times those.
for v in hid_fmi3 hid_fmi2 hidnofs_fmi3 hidnofs_fmi2; do
    net "$tmp/$v.cosa" twomass1_fmi3.fmu "twomass2_$v.fmu"
    "$COSA" point --model-file "$tmp/$v.cosa" --scheme zoh --dt 1e-4 >"$tmp/$v.out" 2>"$tmp/$v.err" ||
        bad "$v: point failed: $(head -n 1 "$tmp/$v.err")"
    [ "$(val dim "$tmp/$v.out")" = 7 ] && ok || bad "$v: dim $(val dim "$tmp/$v.out"), not 7"
    close "$(val rho "$tmp/$v.out")" "$rho0" 1e-9 && ok ||
        bad "$v: rho $(val rho "$tmp/$v.out") against the declared $rho0"
    close "$(val e_global "$tmp/$v.out")" "$eg0" 1e-8 && ok ||
        bad "$v: e_global $(val e_global "$tmp/$v.out") against the declared $eg0"
    grep -q "^cosa: point: note: FMU II identified from its inputs and outputs .*: order 2 at the probe step 0.001 s, fit error .* on a validation input, 650 FMU steps$" "$tmp/$v.err" &&
        ok || bad "$v: no identification note: $(cat "$tmp/$v.err")"
done

# --set of a hidden FMU's parameter re-identifies it there, x0 included: the
# initial state fitted at the defaults belongs to another free response (it
# gave e_global 0.04785 against the declared 0.04884 at II.m2 = 20).  The
# same derivation as above (RK4 substeps, fit error ~1e-12): 1e-8 relative.
"$COSA" point --model-file "$tmp/decl.cosa" --scheme zoh --dt 1e-4 --set II.m2=20 \
    >"$tmp/decl20.out" 2>/dev/null || bad "point --set II.m2=20 on the declared pair failed"
"$COSA" point --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --dt 1e-4 --set II.m2=20 \
    >"$tmp/hid20.out" 2>"$tmp/hid20.err" || bad "point --set II.m2=20 on the hidden pair failed"
eg20=$(val e_global "$tmp/decl20.out")
close "$(val e_global "$tmp/hid20.out")" "$eg20" 1e-8 && ok ||
    bad "--set II.m2=20: e_global $(val e_global "$tmp/hid20.out") against the declared $eg20"
close "$eg20" "$eg0" 1e-3 && bad "--set II.m2=20 does not move the declared e_global ($eg20)" || ok

# another probe step (FMUs without a fixed internal step): the same rho
"$COSA" point --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --dt 1e-4 --probe-step 2e-4 \
    >"$tmp/pr.out" 2>"$tmp/pr.err"
grep -q "order 2 at the probe step 0.0002 s" "$tmp/pr.err" && close "$(val rho "$tmp/pr.out")" "$rho0" 1e-9 &&
    ok || bad "--probe-step 2e-4: $(val rho "$tmp/pr.out"), $(cat "$tmp/pr.err")"
"$COSA" linearize --model-file "$tmp/hid_fmi3.cosa" --probe-step 5e-4 2>/dev/null |
    grep -q "^# FMU II identified from its inputs and outputs: order 2 at the probe step 0.0005 s" &&
    ok || bad "linearize --probe-step 5e-4"
"$COSA" point --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --dt 1e-4 --probe-step 0 \
    >/dev/null 2>"$tmp/pr0.err"
rc=$?
[ $rc = 2 ] && grep -qx "cosa: point: --probe-step must be a positive finite number, got '0'" "$tmp/pr0.err" &&
    ok || bad "--probe-step 0: exit $rc, $(cat "$tmp/pr0.err")"

# the old reading on request: the hidden II as its gain D (the issue: dim 5)
"$COSA" point --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --dt 1e-4 \
    --linearization declared >"$tmp/gain.out" 2>/dev/null
[ "$(val dim "$tmp/gain.out")" = 5 ] && ok || bad "--linearization declared: dim $(val dim "$tmp/gain.out")"
# both hidden, and the declared pair identified on request: the same rho
net "$tmp/both.cosa" twomass1_hid_fmi2.fmu twomass2_hidnofs_fmi3.fmu
for f in both decl; do
    "$COSA" point --model-file "$tmp/$f.cosa" --scheme zoh --dt 1e-4 --linearization identify \
        >"$tmp/$f.id" 2>"$tmp/$f.err" || bad "$f: point --linearization identify failed"
    close "$(val rho "$tmp/$f.id")" "$rho0" 1e-9 && ok || bad "$f: rho $(val rho "$tmp/$f.id")"
    [ "$(grep -c "identified from its inputs" "$tmp/$f.err")" = 2 ] && ok ||
        bad "$f: two identification notes expected: $(cat "$tmp/$f.err")"
done

# the output correction's model of the black box is its identified one, and says so
"$COSA" point --model-file "$tmp/hid_fmi3.cosa" --scheme zoh+mbcorr --dt 1e-4 >/dev/null 2>"$tmp/mb.err" &&
    grep -q "^cosa: point: note: scheme ZOH+MBCorr: the output correction uses the identified model of the black-box FMU$" \
    "$tmp/mb.err" && ok || bad "mbcorr note: $(cat "$tmp/mb.err")"

# every Phi command on the black-box pair (limit: the same stability limit)
"$COSA" limit --model-file "$tmp/decl.cosa" --scheme zoh --criterion stable >"$tmp/l0" 2>/dev/null
"$COSA" limit --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --criterion stable >"$tmp/l1" 2>"$tmp/l1.err"
close "$(val dt_max "$tmp/l1")" "$(val dt_max "$tmp/l0")" 1e-6 && ok ||
    bad "limit: dt_max $(val dt_max "$tmp/l1") against $(val dt_max "$tmp/l0")"
# without --dt-min the scan of a network with black boxes starts at their probe step (the
# identified model is what the FMU did at multiples of it), with a note; the declared pair's
# scan starts at 1e-9 as before, and --dt-min given wins
hp=$(sed -n 's/.*identified from its inputs and outputs.*at the probe step \([^ ]*\) s.*/\1/p' "$tmp/l1.err" | head -n 1)
[ "$(val dt_min "$tmp/l1")" = "$hp" ] && [ "$(val dt_min "$tmp/l0")" = 1e-09 ] &&
    grep -q "^cosa: limit: note: the scan starts at the probe step $hp s of the identified black box II: " "$tmp/l1.err" &&
    ok || bad "limit's dt_min: $(val dt_min "$tmp/l1") (probe step ${hp:-?}), declared $(val dt_min "$tmp/l0"): $(cat "$tmp/l1.err")"
"$COSA" limit --model-file "$tmp/hid_fmi3.cosa" --scheme zoh --criterion stable --dt-min 1e-6 >"$tmp/l2" 2>"$tmp/l2.err"
[ "$(val dt_min "$tmp/l2")" = 1e-06 ] && ! grep -q "the scan starts at the probe step" "$tmp/l2.err" &&
    close "$(val dt_max "$tmp/l2")" "$(val dt_max "$tmp/l0")" 1e-6 && ok || bad "limit --dt-min 1e-6: $(cat "$tmp/l2")"
"$COSA" advise --model-file "$tmp/hid_fmi3.cosa" --tol 0.01 --schemes zoh >"$tmp/a1" 2>"$tmp/a1.err"
grep -q "^dt_range $hp " "$tmp/a1" && grep -q "^cosa: advise: note: the scan starts at the probe step $hp s" "$tmp/a1.err" &&
    ok || bad "advise's scan range: $(grep dt_range "$tmp/a1")"
(cd "$tmp" && "$COSA" curve --model-file hid_fmi3.cosa --scheme zoh --x dt=1e-5:1e-3:log:3 \
    >curve.out 2>curve.err) && ok || bad "curve failed: $(head -n 1 "$tmp/curve.err")"
(cd "$tmp" && "$COSA" map --model-file hid_fmi3.cosa --scheme zoh --dt 1e-4 \
    --x II.ck=1e5:1e6:log:2 --y II.dk=100:1000:log:2 >map.out 2>map.err) && ok ||
    bad "map over the black box's parameters failed: $(head -n 1 "$tmp/map.err")"
for c in "converge --scheme zoh" "advise --tol 0.01" "phi --scheme zoh --dt 1e-4" "model-dump"; do
    # shellcheck disable=SC2086
    "$COSA" $c --model-file "$tmp/hid_fmi3.cosa" >"$tmp/c.out" 2>"$tmp/c.err" && ok ||
        bad "$c failed: $(head -n 1 "$tmp/c.err")"
    grep -q "note: FMU II identified" "$tmp/c.err" && ok || bad "$c: no identification note"
done

# cosa linearize writes the identified model as numbers; read back: same rho
"$COSA" linearize --model-file "$tmp/hid_fmi3.cosa" -o "$tmp/lin.cosa" 2>/dev/null &&
    ok || bad "linearize -o failed"
grep -q "^# FMU II identified from its inputs and outputs: order 2" "$tmp/lin.cosa" && ok ||
    bad "linearize: no identification comment"
"$COSA" point --model-file "$tmp/lin.cosa" --scheme zoh --dt 1e-4 >"$tmp/lin.out" 2>/dev/null
[ "$(val rho "$tmp/lin.out")" = "$(val rho "$tmp/hid_fmi3.out")" ] && ok ||
    bad "the written model's rho $(val rho "$tmp/lin.out") differs from $(val rho "$tmp/hid_fmi3.out")"

# a stateless gain FMU between I and II: order 0, the same rho as its D
fmu_gainnet "$tmp/gain.cosa" 0.3 gain_fmi3.fmu g
# (D = 1 from differences of y = u: exact in binary for these amplitudes, so
# the whole output equals the declared reading's digit for digit)
"$COSA" point --model-file "$tmp/gain.cosa" --scheme zoh --dt 1e-4 >"$tmp/g.out" 2>"$tmp/g.err"
grep -q "note: FMU G identified from its inputs and outputs .*: order 0 " "$tmp/g.err" && ok ||
    bad "gain: not order 0: $(cat "$tmp/g.err")"
"$COSA" point --model-file "$tmp/gain.cosa" --scheme zoh --dt 1e-4 --linearization declared \
    >"$tmp/g0.out" 2>/dev/null
cmp -s "$tmp/g.out" "$tmp/g0.out" && ok || bad "gain: identified and declared outputs differ"

# bad cases: one line, exit 2, naming the FMU
net "$tmp/nl.cosa" twomass1_fmi3.fmu twomass2nl_fmi3.fmu
net "$tmp/fail.cosa" twomass1_fmi3.fmu fail_error_fmi3.fmu
for c in "nl:not those of a linear time-invariant system" "fail:failed during the identification experiments: FMU II: fmi3DoStep"; do
    f=${c%%:*}
    "$COSA" point --model-file "$tmp/$f.cosa" --scheme zoh --dt 1e-4 --linearization identify \
        >/dev/null 2>"$tmp/$f.err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/$f.err")" = 1 ] && grep -q "fmu II: .*${c#*:}" "$tmp/$f.err" &&
        ok || bad "$f: exit $rc, $(cat "$tmp/$f.err")"
done
"$COSA" point --model-file "$tmp/decl.cosa" --scheme zoh --dt 1e-4 --linearization guess >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 2 ] && grep -qx "cosa: point: --linearization must be identify or declared, got 'guess'" \
    "$tmp/bad.err" && ok || bad "--linearization guess: exit $rc, $(cat "$tmp/bad.err")"

# a fixed-step FMU (forward Euler at 1e-5): identified at its step, noted as sampled;
# a macro step that is not a multiple of it noted; limit names the largest multiple
net "$tmp/eu.cosa" twomass1_fmi3.fmu twomass2_euler_fmi3.fmu
"$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt 1e-4 >/dev/null 2>"$tmp/eu.err"
grep -q "order 2 at the probe step 1e-05 s" "$tmp/eu.err" && grep -q "is a sampled system" "$tmp/eu.err" &&
    ! grep -q "not a multiple" "$tmp/eu.err" && ok || bad "euler: $(cat "$tmp/eu.err")"
"$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt 1.5e-5 >/dev/null 2>"$tmp/eu2.err"
grep -q "^cosa: point: note: dt 1.5e-05 is not a multiple of FMU II's fixed internal step 1e-05 s" \
    "$tmp/eu2.err" && ok || bad "euler dt 1.5e-5: $(cat "$tmp/eu2.err")"
"$COSA" limit --model-file "$tmp/eu.cosa" --scheme zoh --criterion stable >"$tmp/eu3.out" 2>"$tmp/eu3.err"
k=$(sed -n 's/.*dt_max is m = \([0-9]*\) steps of it.*/\1/p' "$tmp/eu3.err")
# dt_max is k steps of 1e-5 (tests/test_step_grid.sh checks k against cosa point)
awk -v k="$k" -v m="$(val dt_max "$tmp/eu3.out")" 'BEGIN { d = m - k * 1e-5; exit !(k != "" && (d < 0 ? -d : d) <= 1e-9 * m) }' &&
    ok || bad "euler limit: k = $k, dt_max $(val dt_max "$tmp/eu3.out")"

(cd "$tmp" && "$COSA" curve --model-file eu.cosa --scheme zoh --x dt=1e-5:1e-3:log:5 >/dev/null 2>eu4.err)
grep -q "^cosa: curve: note: the macro steps are multiples of h_s = 1e-05 s, the step grid of FMU II (fixed internal steps): 2 of the 5 values of the dt axis moved" \
    "$tmp/eu4.err" && ! grep -q "not multiples" "$tmp/eu4.err" && ok ||
    bad "curve over dt on the Euler FMU: $(cat "$tmp/eu4.err")"
(cd "$tmp" && "$COSA" map --model-file eu.cosa --scheme zoh --dt 1.5e-5,2e-5 --x II.ck=1e5:1e6:log:2 \
    --y II.dk=100:1000:log:2 >/dev/null 2>eu5.err)
grep -q "^cosa: map: note: 1 of the 2 macro steps are not multiples" "$tmp/eu5.err" && ok ||
    bad "map on the Euler FMU: $(cat "$tmp/eu5.err")"

# a stateless FMU whose identification fails (its doStep returns early): the Phi
# commands refuse it in one line (exit 2); cosa simulate runs it and fails there
# as before (tests/test_fmu_gaps.sh)
sed "s|twomass2_hid_fmi3.fmu|gainshort_fmi3.fmu|; s|connect II.Fk -> I.Fk|connect II.y -> I.Fk|; s|connect I.s1 -> II.s1|connect I.s1 -> II.u|; /I.v1 -> II.v1/d" \
    "$tmp/hid_fmi3.cosa" >"$tmp/short.cosa"
"$COSA" point --model-file "$tmp/short.cosa" --scheme zoh --dt 1e-4 >/dev/null 2>"$tmp/short.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/short.err")" = 1 ] &&
    grep -q "short.cosa:4: fmu II: .*gainshort_fmi3.fmu: identification failed: the unit failed during the identification experiments: FMU II: fmi3DoStep" "$tmp/short.err" &&
    ok || bad "gainshort: exit $rc, $(cat "$tmp/short.err")"

fmu_env_done test_black_box.sh
