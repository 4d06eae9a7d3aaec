#!/bin/sh
# test_clocks.sh -- FMI 3.0 clocks in co-simulation (README "Clocks"): the sampled
# controller (tests/fmu/sampler_fmu.c: a periodic input clock, T = 0.1, y_k = -K u(k T),
# K = 2; an output clock every fifth tick counted by `count`) in a loop with the
# first-order lag (tests/fmu/lag_fmu.c: x' = (u - x)/tau, tau = 0.5, x(0) = 1, exact
# under a held input).  Every figure is recomputed from the CSV by an independent
# route: the ticks k T, the control law on the sampled input, the lag's exact
# zero-order-hold step, the closed loop's closed form x(k T) = r^k with
# r = a - K (1 - a), a = exp(-T/tau); and the refusals, one line each, exit 2.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
net() { # SAMPLER-FMU TEND
    printf 'model sl\ntend %s\nfmu S = %s/%s.fmu\nfmu L = %s/lag_fmi3.fmu\n' "$2" "$FMU" "$1" "$FMU"
    printf 'connect L.y -> S.u\nconnect S.y -> L.u\n'
}
net sampler_fmi3 2 >"$tmp/sl.cosa"
# the CSV's rows as "t uS uL yS count yL" (columns found by name)
rows() {
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { print $c["t"], $c["u.S.u"], $c["u.L.u"], $c["y.S.y"], $c["y.S.count"], $c["y.L.y"], $c["event"] }' "$1"
}
# checks on the rows of a run at step DT: every tick is a communication point (on the
# grid, or an extra event point), flagged in the event column
check() { # ROWS-FILE DT
    awk -v dt="$2" '
    function abs(x) { return x < 0 ? -x : x }
    function max(a, b) { return a > b ? a : b }
    # a tick time k T: k = round(t/T); the tick is the double k * T, the same
    # formula the importer uses, so two routes to it differ by the rounding of
    # the master grid n dt (a few ulps of t): 8 eps max(t, T)
    function tick(t) { k = int(t / T + 0.5); return abs(t - k * T) <= 8 * eps * max(t, T) }
    BEGIN { T = 0.1; K = 2; tau = 0.5; eps = 2.220446049250313e-16; n = 0; bad = 0
            a = exp(-T / tau); r = a - K * (1 - a) }
    { t[n] = $1; uS[n] = $2; uL[n] = $3; yS[n] = $4; cnt[n] = $5; yL[n] = $6; ev[n] = $7; n++ }
    END {
        ticks = 0
        for (i = 0; i < n; i++) {
            if (tick(t[i])) ticks++
            # Event Mode ran at every tick after the start, and only there
            if (i > 0 && ev[i] != tick(t[i])) { print "event column " ev[i] " at " t[i]; bad++ }
            # the coupling: the sampler reads the lag, the lag reads the sampler
            if (uS[i] != yL[i] || uL[i] != yS[i]) { print "coupling at " t[i]; bad++ }
            # the output clock ticks at k = 0, 5, 10, ...: count = floor(k/5) + 1
            # for the ticks k T <= t (the row shows the value after its Event Mode)
            k = int(t[i] / T + 1e-9); if (cnt[i] != int(k / 5) + 1) { print "count " cnt[i] " at " t[i]; bad++ }
            # the clocked output changes only at the ticks
            if (i > 0 && yS[i] != yS[i - 1] && !tick(t[i])) { print "y changes at " t[i] " without a tick"; bad++ }
            if (tick(t[i])) {
                # the control law on the input sampled at the tick: y_k = -K u(t_k),
                # u(t_k) = the lag output there (a product by 2: exact)
                if (yS[i] != -K * yL[i]) { print "control law at " t[i] ": " yS[i] " vs " (-K * yL[i]); bad++ }
                # the closed loop at the ticks: x(k T) = r^k; each of the m = i + 1
                # lag steps so far rounds a few times with condition 3a/|3a - 2| < 6
                # and its step length h = t_{n+1} - t_n carries the grid rounding
                # (|dh| <= 2 eps t: relative x error 2 eps t/tau): 64 m eps |x|
                kt = int(t[i] / T + 0.5); xk = r ^ kt; m = i + 1
                if (abs(yL[i] - xk) > 64 * m * eps * abs(xk)) { print "closed form at " t[i] ": " yL[i] " vs " xk; bad++ }
            }
            if (i + 1 < n) {
                # the lag between two points: its exact ZOH response to the input
                # held there, x(t + h) = u + (x - u) exp(-h/tau); exp within an ulp in
                # either libm, three roundings of size |u| + |x|, and the grid rounding
                # of h (|dh| <= 2 eps t): 16 eps (1 + t/tau) (|u| + |x|)
                h = t[i + 1] - t[i]; want = uL[i] + (yL[i] - uL[i]) * exp(-h / tau)
                if (abs(yL[i + 1] - want) > 16 * eps * (1 + t[i + 1] / tau) * (abs(uL[i]) + abs(yL[i]))) {
                    print "ZOH step at " t[i] ": " yL[i + 1] " vs " want; bad++ }
            }
        }
        # every tick k T <= the last point is a communication point
        if (ticks != int(t[n - 1] / T + 1e-9) + 1) { print "ticks " ticks; bad++ }
        exit bad != 0
    }' "$1"
}
# ---- 1. the sampled loop at dt = 0.1, 0.05 (ticks on the grid), 0.03 and 0.07 (ticks
# between grid points: extra event points) -----------------------------------------------
for dt in 0.1 0.05 0.03 0.07; do
    "$COSA" simulate --model-file "$tmp/sl.cosa" --scheme zoh --dt $dt -o "$tmp/g$dt" >"$tmp/out$dt" 2>"$tmp/err" &&
        grep -q "^status ok$" "$tmp/out$dt" && rows "$tmp/g$dt/sl_zoh.csv" >"$tmp/rows" &&
        check "$tmp/rows" $dt >"$tmp/why" && ok || bad "dt $dt: $(cat "$tmp/why" "$tmp/err" | head -5)"
    # the extra points are the ticks k T off the grid n dt (k T / dt not an integer, to
    # rounding), up to the last point
    want=$(rows "$tmp/g$dt/sl_zoh.csv" | awk -v dt=$dt 'END {
        for (k = 1; k * 0.1 <= $1 + 1e-9; k++) { q = k * 0.1 / dt; d = q - int(q + 0.5); if (d < 0) d = -d; if (d > 1e-9) n++ }
        print n + 0 }')
    grep -q "^event_points $want\$" "$tmp/out$dt" && ok || bad "dt $dt: $(grep event_points "$tmp/out$dt"), want $want"
done
# the tick rows agree across the grids: the lag at t = 1 (tick 10) from dt 0.1 and 0.03.  Each
# is the closed form r^10 to the bound of check above, 64 m eps |x| with m the rows up to t = 1
# (m = its row's index + 1), so the two differ by at most 64 (m_a + m_b) eps |x|
a=$(rows "$tmp/g0.1/sl_zoh.csv" | awk '$1 + 0 > 0.999 && $1 + 0 < 1.001 { print $6, NR }')
b=$(rows "$tmp/g0.03/sl_zoh.csv" | awk '$1 + 0 > 0.999 && $1 + 0 < 1.001 { print $6, NR }')
awk -v a="$a" -v b="$b" 'BEGIN { split(a, A, " "); split(b, B, " "); d = A[1] - B[1]; if (d < 0) d = -d
        s = A[1] < 0 ? -A[1] : A[1]; eps = 2.220446049250313e-16
        exit !(a != "" && b != "" && d <= 64 * (A[2] + B[2]) * eps * s) }' &&
    ok || bad "x(1) from dt 0.1 and 0.03: $a $b"
# event points need a plain Jacobi scheme ("Events"): Gauss-Seidel is refused in one line
"$COSA" simulate --model-file "$tmp/sl.cosa" --scheme gs:zoh --dt 0.05 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "gs:zoh: exit $rc $(cat "$tmp/err")"
# ---- 3. refusals: one line, exit 2, nothing written ----------------------------------------
refuse() { # WHAT MODEL-FILE PATTERN [OPTIONS]
    what=$1 mf=$2 pat=$3
    shift 3
    "$COSA" simulate --model-file "$mf" --scheme zoh --dt 0.05 "$@" -o "$tmp/x" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/x" ] && grep -q "$pat" "$tmp/err" &&
        ok || bad "$what: exit $rc $(cat "$tmp/err")"
}
refuse "events off" "$tmp/sl.cosa" \
    "^cosa: simulate: --events off: FMU S has clocks (tick, ...), which need event mode (--events on)$" --events off
net sampler_trig_fmi3 1 >"$tmp/trig.cosa"
refuse "triggered input clock" "$tmp/trig.cosa" \
    "^cosa: simulate: FMU S: input clock 'tick' is triggered: cosa activates periodic input clocks (a model file cannot connect clocks yet)$"
net sampler_badclock_fmi3 1 >"$tmp/badclock.cosa"
refuse "clocks naming no Clock" "$tmp/badclock.cosa" \
    "^cosa: simulate: .*: variable 'count': clocks names 99, which is no Clock$"
net sampler_se_fmi3 1 >"$tmp/se.cosa"
refuse "Scheduled Execution only" "$tmp/se.cosa" "^cosa: simulate: .*sampler_se_fmi3.fmu: .*\\(CoSimulation\\|Scheduled\\)"
# ---- 4. fmu-info: the clocked outputs are outputs; the clocks have their clock lines only --
"$COSA" fmu-info "$FMU/sampler_fmi3.fmu" >"$tmp/info" 2>"$tmp/err" &&
    grep -q "^output     y  " "$tmp/info" && grep -q "^output     count  " "$tmp/info" &&
    [ "$(grep -c '^clock ' "$tmp/info")" = 2 ] && ! grep -q "^unused .*Clock" "$tmp/info" &&
    ok || bad "fmu-info sampler: $(cat "$tmp/info" "$tmp/err")"
fmu_env_done test_clocks.sh
