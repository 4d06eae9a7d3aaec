#!/bin/sh
# test_clocks.sh -- FMI 3.0 clocks in co-simulation (README "Clocks"): the sampled
# controller (tests/fmu/sampler_fmu.c: a periodic input clock, T = 0.1, y_k = -K u(k T),
# K = 2; an output clock every fifth tick counted by `count`) in a loop with the
# first-order lag (tests/fmu/lag_fmu.c: x' = (u - x)/tau, tau = 0.5, x(0) = 1, exact
# under a held input).  Every figure is recomputed from the CSV by an independent
# route: the ticks k T, the control law on the sampled input, the lag's exact
# zero-order-hold step, the closed loop's closed form x(k T) = r^k with
# r = a - K (1 - a), a = exp(-T/tau); a triggered sampler driven by the first one's output
# clock through `connect clock` in the model file; and the refusals (also of bad clock
# connections, checked when the file is read), one line each, exit 2.
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
    # rounding), before the last point (the end of the horizon, a macro point: the short
    # last step ends there, doc/simulate.md)
    want=$(rows "$tmp/g$dt/sl_zoh.csv" | awk -v dt=$dt 'END {
        for (k = 1; k * 0.1 < $1 - 1e-9; k++) { q = k * 0.1 / dt; d = q - int(q + 0.5); if (d < 0) d = -d; if (d > 1e-9) n++ }
        print n + 0 }')
    grep -q "^event_points $want\$" "$tmp/out$dt" && ok || bad "dt $dt: $(grep event_points "$tmp/out$dt"), want $want"
done
# a clocked input (tests/fmu/sampler_fmu.c -DCLOCKED_INPUT: u belongs to tick; the FMU
# refuses it set anywhere but in Event Mode with tick active): cosa sets it there, at
# the tick, from its connection u = L y(t_k); the same figures as above (the control law
# on the sample, the closed form at the ticks, the ZOH steps, the counts)
net sampler_cin_fmi3 2 >"$tmp/cin.cosa"
for dt in 0.1 0.05 0.03 0.07; do
    "$COSA" simulate --model-file "$tmp/cin.cosa" --scheme zoh --dt $dt -o "$tmp/c$dt" >"$tmp/out" 2>"$tmp/err" &&
        grep -q "^status ok$" "$tmp/out" && rows "$tmp/c$dt/sl_zoh.csv" >"$tmp/rows" &&
        check "$tmp/rows" $dt >"$tmp/why" && ok || bad "clocked input, dt $dt: $(cat "$tmp/why" "$tmp/err" | head -5)"
done
"$COSA" fmu-info "$FMU/sampler_cin_fmi3.fmu" >"$tmp/info" 2>"$tmp/err" &&
    grep -q "^input      u  *vr=1 start=0$" "$tmp/info" && ok || bad "fmu-info sampler_cin: $(cat "$tmp/info" "$tmp/err")"
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
# ---- 2. a clock connection in the model file (README "Clocks"): S1 (periodic tick,
# T = 0.1) drives the lag; S2's tick is triggered, and `connect clock S1.alarm -> S2.tick`
# makes S1's output clock (every fifth tick: t = 0.5 j) tick it.  The library test's
# figures (tests/test_fmu_clocks.c), from the command line: S2 samples the lag at the
# alarm times and only there, y2 = -K x (a product by 2: exact); S2's own alarm ticks at
# its first tick only (count 1); the alarm times 0, 0.5, ..., 2 are S2's 5 events.
trig() { # LINK-LINE
    printf 'model tr\ntend 2\nfmu S1 = %s/sampler_fmi3.fmu\nfmu S2 = %s/sampler_trig_fmi3.fmu\n' "$FMU" "$FMU"
    printf 'fmu L = %s/lag_fmi3.fmu\nconnect L.y -> S1.u, S2.u\nconnect S1.y -> L.u\n%s\n' "$FMU" "$1"
}
trig "connect clock S1.alarm -> S2.tick" >"$tmp/tr.cosa"
for dt in 0.05 0.03; do
    "$COSA" simulate --model-file "$tmp/tr.cosa" --scheme zoh --dt $dt -o "$tmp/t$dt" >"$tmp/out" 2>"$tmp/err" &&
        grep -q "^status ok$" "$tmp/out" && grep -q "^unit S2 steps [0-9]* restores 0 events 5 " "$tmp/out" &&
        awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        function abs(x) { return x < 0 ? -x : x }
        { t = $c["t"]; y2 = $c["y.S2.y"]; x = $c["y.L.y"]
          # an alarm time 0.5 j, to the grid rounding of n dt (1e-9)
          j = int(t / 0.5 + 0.5); alarm = abs(t - 0.5 * j) <= 1e-9
          if (alarm) { nal++; if (y2 != -2 * x) { print "S2 at its tick " t ": " y2 " vs " -2 * x; bad++ } }
          if (n && y2 != p) { nch++; if (!alarm) { print "S2 changes at " t ", no alarm"; bad++ } }
          if ($c["y.S2.count"] != 1) { print "S2 count " $c["y.S2.count"] " at " t; bad++ }
          p = y2; n++ }
        END { if (nal != 5 || nch != 4) { print "alarm rows " nal ", changes " nch; bad++ } exit bad != 0 }' \
            "$tmp/t$dt/tr_zoh.csv" >"$tmp/why" && ok || bad "connect clock, dt $dt: $(cat "$tmp/why" "$tmp/err" | head -5)"
done
# without the connection the triggered clock would never tick: refused (section 3)
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
refuse "triggered input clock, no connection" "$tmp/trig.cosa" \
    "^cosa: simulate: FMU S: input clock 'tick' is triggered: cosa activates periodic input clocks, and no output clock drives this one (add 'connect clock SUB.OUTCLOCK -> SUB.INCLOCK' to the model file)$"
# a clock connection is checked when the file is read: one line naming FILE:LINE (the
# connection is line 8 of trig's file; the five lines of the matrix subsystem M make it line 13)
badlink() { # LINK-LINE PATTERN
    trig "$1" >"$tmp/bl.cosa"
    refuse "$1" "$tmp/bl.cosa" "^cosa: simulate: $tmp/bl.cosa:8: connect clock: $2\$"
}
badlink "connect clock S1.nope -> S2.tick" "FMU subsystem 'S1' has no clock 'nope' (its clocks: tick, alarm)"
badlink "connect clock S1.alarm -> S2.nope" "FMU subsystem 'S2' has no clock 'nope' (its clocks: tick, alarm)"
badlink "connect clock S3.alarm -> S2.tick" "unknown subsystem 'S3'"
badlink "connect clock L.alarm -> S2.tick" "FMU subsystem 'L' has no clock 'alarm' (it has no Clock variables)"
badlink "connect clock S1.tick -> S2.tick" "S1.tick is an input clock, not an output clock (write OUTPUT_CLOCK -> INPUT_CLOCK)"
badlink "connect clock S1.alarm -> S2.alarm" "S2.alarm is an output clock, not an input clock (write OUTPUT_CLOCK -> INPUT_CLOCK)"
badlink "connect clock S2.alarm -> S1.tick" "input clock S1.tick is constant, not triggered (cosa activates the periodic ones itself; only a triggered input clock can be driven by an output clock)"
badlink "connect clock S2.alarm -> S2.tick" "S2.alarm -> S2.tick: a clock connection joins two FMU subsystems (not an FMU to itself)"
badlink "connect clock S1.alarm -> S2.tick, S2.tick" "S1.alarm -> S2.tick is given twice (first at line 8)"
badlink "connect clock S1.alarm S2.tick" "expected '->' after S1.alarm, found 'S'"
trig "$(printf 'subsystem M\n states\n inputs\n outputs\nend\nconnect clock M.alarm -> S2.tick')" >"$tmp/bl.cosa"
refuse "connect clock from a matrix subsystem" "$tmp/bl.cosa" \
    "^cosa: simulate: $tmp/bl.cosa:13: connect clock: subsystem 'M' is no FMU (clocks connect 'fmu' subsystems)\$"
# a subsystem called clock is still connected as usual: `connect clock.y -> ...`
printf 'subsystem clock\n states x\n inputs\n outputs y\n A = [ -1 ]\n C = [ 1 ]\nend\n' >"$tmp/ck.cosa"
printf 'subsystem G\n states\n inputs u\n outputs\nend\nconnect clock.y -> G.u\n' >>"$tmp/ck.cosa"
"$COSA" model-dump --model-file "$tmp/ck.cosa" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^connect clock.y -> G.u$" "$tmp/out" && ok || bad "subsystem clock: $(cat "$tmp/err")"
# model-dump writes the FMUs as their linearisation, the clock connection as a comment
"$COSA" model-dump --model-file "$tmp/tr.cosa" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^# FMU clock connections (not linearised): connect clock S1.alarm -> S2.tick$" "$tmp/out" &&
    ok || bad "model-dump with a clock connection: $(cat "$tmp/err")"
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
# the clock lines come from the clock parser: the counter form's period is
# intervalCounter / resolution = 1/10 (sampler_counter.xml), printed as 0.1
"$COSA" fmu-info "$FMU/sampler_counter_fmi3.fmu" >"$tmp/info" 2>"$tmp/err" &&
    grep -q "^clock      tick  *vr=10 causality=input interval=constant period=0.1$" "$tmp/info" &&
    grep -q "^clock      alarm  *vr=11 causality=output interval=triggered$" "$tmp/info" &&
    ok || bad "fmu-info sampler_counter: $(cat "$tmp/info" "$tmp/err")"
fmu_env_done test_clocks.sh
