#!/bin/sh
# test_fmu_concepts.sh -- FMI 3.0 co-simulation concepts (README "FMU import"), with the
# test FMU tests/fmu/loop_fmu.c (y = a u + b and a filter x' = (u - x)/tau) and variants:
# initialization loops iterated in Initialization Mode, recommendedIntermediateInputSmoothness
# in simulate and advise, the note of the Phi commands on events and clocks, and what
# fmu-info says about event mode, early return, clocks, smoothness, Scheduled Execution.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
# two loop FMUs coupled output to input: an algebraic loop through their feedthrough
loopnet() { # FMU-FILE-BASENAME
    cat <<END
model loopnet
tend 0.5
fmu A = $FMU/$1.fmu
fmu B = $FMU/$1.fmu
connect A.y -> B.u
connect B.y -> A.u
END
}
loopnet loop_fmi3 >"$tmp/loop.cosa"
loopnet loopev_fmi3 >"$tmp/ev.cosa"
loopnet loopclock_fmi3 >"$tmp/clock.cosa"

# ---- 1. a converging loop: y1 = a1 u1 + b1, y2 = a2 u2 + b2, u1 = y2, u2 = y1 -----------
# closed form y1 = (a1 b2 + b1) / (1 - a1 a2), y2 = a2 y1 + b2.  Tolerance: Newton stops
# on the residual r = y - g(L y), whose rounding is a few eps |y|; the error is at most
# ||(I - D L)^-1||_inf |r| with ||(I - D L)^-1||_inf = (1 + max(a1, a2)) / (1 - a1 a2)
# (= 3 here), so 16 * 3 * eps * max|y| (16: the rounding of r and of the closed form)
set -- --set A.a=0.5 --set A.b=1 --set B.a=0.8 --set B.b=2
awk 'BEGIN { a1 = 0.5; b1 = 1; a2 = 0.8; b2 = 2; tau = 0.1
    y1 = (a1 * b2 + b1) / (1 - a1 * a2); y2 = a2 * y1 + b2
    print "t,ref.A.y,ref.B.y"
    for (k = 0; k <= 60; k++) printf "%.17g,%.17g,%.17g\n", k * 0.01, y1, y2 }' >"$tmp/ref.csv"
"$COSA" simulate --model-file "$tmp/loop.cosa" "$@" --scheme zoh --dt 0.01 --ref "$tmp/ref.csv" \
    -o "$tmp/o" --outputs A.y,B.y,x.A.x,x.B.x >"$tmp/out" 2>"$tmp/err" && ok ||
    bad "converging loop: $(cat "$tmp/err")"
awk -v y1c="$(val 'init_output A.y' "$tmp/out")" -v y2c="$(val 'init_output B.y' "$tmp/out")" \
    'BEGIN { a1 = 0.5; b1 = 1; a2 = 0.8; b2 = 2; eps = 2.220446049250313e-16
        y1 = (a1 * b2 + b1) / (1 - a1 * a2); y2 = a2 * y1 + b2
        tol = 16 * 3 * eps * (y2 > y1 ? y2 : y1)
        d1 = y1c - y1; d2 = y2c - y2; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
        exit !(y1c != "" && y2c != "" && d1 <= tol && d2 <= tol) }' &&
    ok || bad "init outputs against the closed form: $(grep init_ "$tmp/out")"
# the iterations: Newton on an affine loop lands on the fixed point in one update (up to
# the central differences' error in D), the loop solver's rule then confirms with one
# iteration after the update fell below 1e-10 |y|: 2 to 4 iterations, never 1
n=$(val init_iterations "$tmp/out")
[ -n "$n" ] && [ "$n" -ge 2 ] && [ "$n" -le 4 ] && ok || bad "init_iterations '$n'"
# the filter of A, driven by the loop's constant u1 = y2 from x(0) = 0: between any two
# points its state is the exact zero-order-hold response y2 (1 - exp(-t/tau)); the FMU
# steps x <- u + (x - u) e^(-h/tau), k steps accumulate about k * 4 eps |u| of rounding
awk -F, -v y2="$(val 'init_output B.y' "$tmp/out")" 'BEGIN { bad = 0; tau = 0.1; eps = 2.220446049250313e-16 }
    /^#/ { next }
    $1 == "t" { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { k = NR; x = $(c["x.A.x"]); want = y2 * (1 - exp(-$1 / tau)); d = x - want; if (d < 0) d = -d
      if (d > 8 * (k + 1) * eps * y2) bad = 1; rows++ }
    END { exit !(rows == 51 && !bad) }' "$tmp/o/loopnet_zoh.csv" && ok || bad "filter state against its ZOH response"

# the FMUs that run left Initialization Mode with the fixed point's inputs (the loop is
# iterated again where the master starts): with --fmu-log the loop FMU logs its input when it
# leaves Initialization Mode, the last time for A u1 = y2, for B u2 = y1 (exact: the printed
# %.17g of the same doubles)
"$COSA" simulate --model-file "$tmp/loop.cosa" "$@" --scheme zoh --dt 0.01 --ref "$tmp/ref.csv" \
    --fmu-log >"$tmp/out" 2>"$tmp/err" && ok || bad "--fmu-log: $(tail -3 "$tmp/err")"
lastu() { grep "^cosa: simulate: FMU $1: \[OK logEvents\] loop FMU leaves Initialization Mode" "$tmp/err" |
    tail -1 | sed 's/.* u = //'; }
[ -n "$(lastu A)" ] && [ "$(lastu A)" = "$(val 'init_output B.y' "$tmp/out")" ] &&
    [ "$(lastu B)" = "$(val 'init_output A.y' "$tmp/out")" ] &&
    [ "$(grep -c '^cosa: simulate: FMU A: .*leaves Initialization Mode with u = 4.66666' "$tmp/err")" = 2 ] &&
    ok || bad "inputs on leaving Initialization Mode: A $(lastu A), B $(lastu B)"

# a loop of an FMU and a matrix subsystem y = k u (k = -1.5): the matrix unit is evaluated
# as it is, the FMU in Initialization Mode; y_A = b1 / (1 - a1 k), y_G = k y_A, tolerance as
# above with ||(I - D L)^-1||_inf = (1 + max(a1, |k|)) / (1 - a1 k) = 2.5 / 1.75 < 3
cat >"$tmp/mix.cosa" <<END
model mix
tend 0.5
fmu A = $FMU/loop_fmi3.fmu
subsystem G
  states
  inputs u
  outputs y
  D = [ -1.5 ]
end
connect A.y -> G.u
connect G.y -> A.u
END
awk 'BEGIN { ya = 1 / (1 + 0.75); yg = -1.5 * ya; print "t,ref.A.y,ref.G.y"
    for (k = 0; k <= 60; k++) printf "%.17g,%.17g,%.17g\n", k * 0.01, ya, yg }' >"$tmp/mref.csv"
"$COSA" simulate --model-file "$tmp/mix.cosa" --scheme zoh --dt 0.01 --ref "$tmp/mref.csv" \
    >"$tmp/out" 2>"$tmp/err" &&
    awk -v ya="$(val 'init_output A.y' "$tmp/out")" -v yg="$(val 'init_output G.y' "$tmp/out")" \
        'BEGIN { eps = 2.220446049250313e-16; a = 1 / (1 + 0.75); g = -1.5 * a; tol = 16 * 3 * eps
            d1 = ya - a; d2 = yg - g; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
            exit !(ya != "" && yg != "" && d1 <= tol && d2 <= tol) }' &&
    ok || bad "FMU and matrix loop: $(cat "$tmp/out" "$tmp/err")"

# ---- 2. no loop: A without feedthrough (a1 = 0) -- nothing iterated, nothing printed ------
"$COSA" simulate --model-file "$tmp/loop.cosa" --set A.a=0 --scheme zoh --dt 0.01 \
    --ref "$tmp/ref.csv" >"$tmp/out" 2>"$tmp/err" && ! grep -q '^init_' "$tmp/out" && ok ||
    bad "no loop: $(cat "$tmp/out" "$tmp/err")"

# ---- 3. loops without a fixed point: a1 a2 = 1 with b1 + b2 != 0 --------------------------
# for every y the residual r = y - g(L y) has r1 + r2 = -(b1 + b2), so ||r||_inf >= |b1 + b2| / 2
for b2 in 1 3; do
    "$COSA" simulate --model-file "$tmp/loop.cosa" --set A.a=1 --set B.a=1 --set A.b=1 \
        --set B.b=$b2 --scheme zoh --dt 0.01 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    res=$(sed -n 's/.*residual \([^ ]*\) after.*/\1/p' "$tmp/err")
    [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: simulate: the initialization loop of FMUs A, B does not converge in Initialization Mode: residual .* after [0-9]* iterations\{0,1\} (" "$tmp/err" &&
        awk -v r="$res" -v b=$((1 + b2)) 'BEGIN { exit !(r != "" && r + 0 >= b / 2) }' &&
        ok || bad "no fixed point (b2 = $b2): exit $rc, $(cat "$tmp/err")"
done

# ---- 4. recommendedIntermediateInputSmoothness = 1: degree <= 1 in simulate and advise ----
fmu_gainnet "$tmp/gs.cosa" 0.3
for s in zoh foh; do
    "$COSA" simulate --model-file "$tmp/gs.cosa" --scheme $s --dt 1e-3 >"$tmp/out" 2>"$tmp/err" &&
        grep -q '^status ok' "$tmp/out" && ok || bad "smoothness 1, $s: $(cat "$tmp/err")"
done
"$COSA" simulate --model-file "$tmp/gs.cosa" --scheme soh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: scheme SOH: FMU G: an input polynomial of degree 2 is above the degree 1 that its recommendedIntermediateInputSmoothness = 1 allows; use a scheme of order <= 1$" "$tmp/err" &&
    ok || bad "smoothness 1, soh: exit $rc, $(cat "$tmp/err")"
simwhy=$(sed -n 's/.*FMU G: \(.*allows\);.*/\1/p' "$tmp/err")
# advise: the same degree -- ZOH and FOH ranked, SOH listed with simulate's reason
"$COSA" advise --model-file "$tmp/gs.cosa" --schemes zoh,foh,soh --tol 1e-2 >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^| ZOH |' "$tmp/out" && grep -q '^| FOH |' "$tmp/out" && ! grep -q '^| SOH |' "$tmp/out" &&
    grep -qF "note SOH: not ranked: cosa simulate cannot run it on these FMUs (FMU G: $simwhy)" "$tmp/out" &&
    [ -n "$simwhy" ] && ok || bad "smoothness 1, advise: $(cat "$tmp/out" "$tmp/err")"

# advise --format json carries the attribute and the degree it allows (G: 1 and 1)
"$COSA" advise --model-file "$tmp/gs.cosa" --schemes zoh,foh --tol 1e-2 --format json >"$tmp/out" 2>"$tmp/err" &&
    grep -q '"subsystem": "G", .*"input_smoothness": 1, "input_degree_smoothness_max": 1,' "$tmp/out" &&
    ok || bad "smoothness 1, advise json: $(grep '"G"' "$tmp/out") $(cat "$tmp/err")"

# ---- 5. what Phi cannot see: one note for FMUs with events or clocks -----------------------
for net in ev clock; do
    "$COSA" point --model-file "$tmp/$net.cosa" --scheme zoh --dt 0.01 >/dev/null 2>"$tmp/err" &&
        [ "$(grep -c 'note: FMUs A, B use events or clocks (hasEventMode, Clock variables): Phi analyses only the linearisation between events' "$tmp/err")" = 1 ] &&
        ok || bad "point, $net: $(cat "$tmp/err")"
done
"$COSA" map --model-file "$tmp/ev.cosa" --scheme zoh --dt 1e-2 --x A.a=0.1:0.5:lin:2 \
    --y B.a=0.1:0.5:lin:2 -o "$tmp/map" >/dev/null 2>"$tmp/err" &&
    [ "$(grep -c 'use events or clocks' "$tmp/err")" = 1 ] && ok || bad "map: $(cat "$tmp/err")"
"$COSA" advise --model-file "$tmp/ev.cosa" --schemes zoh --tol 1e-2 >/dev/null 2>"$tmp/err" &&
    [ "$(grep -c 'use events or clocks' "$tmp/err")" = 1 ] && ok || bad "advise: $(cat "$tmp/err")"
"$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh --dt 0.01 >/dev/null 2>"$tmp/err" &&
    ! grep -q 'events or clocks' "$tmp/err" && ok || bad "point without events: $(cat "$tmp/err")"

# ---- 6. fmu-info: the capabilities, only where declared ------------------------------------
"$COSA" fmu-info "$FMU/loopev_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -qx 'event-mode yes (hasEventMode)' "$tmp/out" &&
    grep -qx 'early-return yes (canReturnEarlyAfterIntermediateUpdate)' "$tmp/out" &&
    ! grep -q '^clock' "$tmp/out" && ok || bad "fmu-info loopev: $(cat "$tmp/out" "$tmp/err")"
"$COSA" fmu-info "$FMU/loopclock_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -qx 'clocks 2' "$tmp/out" &&
    grep -qx 'clock      tick                 vr=20 causality=input interval=constant period=0.25' "$tmp/out" &&
    grep -qx 'clock      fired                vr=21 causality=output interval=triggered' "$tmp/out" &&
    ! grep -q '^early-return' "$tmp/out" && ok || bad "fmu-info loopclock: $(cat "$tmp/out" "$tmp/err")"
"$COSA" fmu-info "$FMU/gainsmooth_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -qx 'input-smoothness 1 (recommendedIntermediateInputSmoothness: input polynomials of degree <= 1)' "$tmp/out" &&
    ok || bad "fmu-info gainsmooth: $(cat "$tmp/out" "$tmp/err")"
"$COSA" fmu-info "$FMU/loop_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    ! grep -qE '^(event-mode|early-return|clocks|clock|input-smoothness|scheduled-execution) ' "$tmp/out" &&
    ok || bad "fmu-info loop: $(cat "$tmp/out" "$tmp/err")"
"$COSA" fmu-info "$FMU/bad_scheduled.fmu" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: fmu-info: .*bad_scheduled.fmu: not a co-simulation FMU: it offers only Scheduled Execution (a ScheduledExecution element, no CoSimulation element)" "$tmp/err" &&
    ok || bad "Scheduled Execution only: exit $rc, $(cat "$tmp/err")"

fmu_env_done test_fmu_concepts.sh
