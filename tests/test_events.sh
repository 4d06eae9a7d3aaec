#!/bin/sh
# test_events.sh -- `cosa simulate --events on|off` on the event test FMUs
# (tests/fmu/event_fmu.c; README "Events"): every event is a communication
# point (a CSV row with event = 1) at the bouncing ball's closed-form bounce
# times and at the step source's time event; between any two rows the
# filter's state is its exact zero-order-hold response to the input held
# there (recomputed from the CSV's t and u columns); a ball already past the
# other's bounce cannot be rolled back without FMU state (one line, exit 1);
# --events off is the run of an FMU without event mode, bit for bit; bad
# input is one line and exit 2.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
net() { # BALL-FMU [SECOND-BALL-FMU]
    printf 'model bf\ntend 1\nfmu B = %s/%s.fmu\n' "$FMU" "$1"
    [ -n "${2:-}" ] && printf 'fmu C = %s/%s.fmu\n' "$FMU" "$2"
    printf 'fmu F = %s/filter_fmi3.fmu\nconnect B.h -> F.u\n' "$FMU"
}
sim() { # MODEL-FILE OUTDIR [OPTIONS...]
    m=$1 d=$2
    shift 2
    "$COSA" simulate --model-file "$m" --scheme zoh --dt 0.1 -o "$d" "$@"
}
# the value of column NAME in the rows of CSV FILE: "t value event"
cols() { # FILE NAME
    awk -F, -v n="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { print $1, $c[n], $c["event"] }' "$1"
}
net ball_fmi3 >"$tmp/bf.cosa"

# ---- 1. the bounces are communication points ---------------------------------------------
# t1 = sqrt(2 h0/g), t_{k+1} = t_k + 2 e^k v1/g (h0 = 1, g = 9.81, e = 0.7): the rows with
# event = 1 are these times to 1e-13 (the FMU's crossing times from states carried over the
# rows: a few roundings of O(1) numbers per row, ~30 rows: < 1e-14), and every one in [0, 1]
# (one: t1 = 0.4515; t2 = 1.084).  Over [0, 2] (below) t2 and t3 follow.
sim "$tmp/bf.cosa" "$tmp/on" >"$tmp/out" 2>"$tmp/err" && ok || bad "ball run: $(cat "$tmp/err")"
# the event rows of FILE against the bounce times in [0, T]
bouncecheck() { # FILE T
    cols "$1" y.B.h | awk -v g=9.81 -v e=0.7 -v T="$2" '
        $3 == 1 { ev[++n] = $1 }
        END { v = sqrt(2 * g); t = v / g; k = 0
              while (t < T) { k++; if (k > n || (ev[k] - t) > 1e-13 || (t - ev[k]) > 1e-13) exit 1
                              v *= e; t += 2 * v / g }
              print k; exit k != n }'
}
[ "$(bouncecheck "$tmp/on/bf_zoh.csv" 1)" = 1 ] && ok || bad "bounce rows: $(grep -v '^#' "$tmp/on/bf_zoh.csv" | cut -d, -f1,3,13)"
sim "$tmp/bf.cosa" "$tmp/on2" --tend 2 >/dev/null 2>"$tmp/err" &&
    [ "$(bouncecheck "$tmp/on2/bf_zoh.csv" 2)" = 4 ] && ok || bad "4 bounces in [0, 2]: $(cat "$tmp/err")"
grep -q "^event_points 1$" "$tmp/out" && ok || bad "event_points: $(grep event "$tmp/out")"
# a ball that only offers the early return (canReturnEarly in the intermediate-update
# callback at the crossing) and bounces inside the step unless asked: cosa asks, so the
# bounce is a communication point as above, and the CSV is the self-returning ball's, bit
# for bit (the same states, the same crossing times); without the request (--events off)
# it bounces inside the step: no event row
net ballask_fmi3 >"$tmp/ask.cosa"
sim "$tmp/ask.cosa" "$tmp/ask" >"$tmp/out2" 2>"$tmp/err" &&
    cmp -s "$tmp/ask/bf_zoh.csv" "$tmp/on/bf_zoh.csv" && [ "$(bouncecheck "$tmp/ask/bf_zoh.csv" 1)" = 1 ] && ok ||
    bad "asking ball: $(cat "$tmp/err"; diff "$tmp/ask/bf_zoh.csv" "$tmp/on/bf_zoh.csv" | head -4)"
sim "$tmp/ask.cosa" "$tmp/askoff" --events off >/dev/null 2>"$tmp/err" &&
    [ "$(cols "$tmp/askoff/bf_zoh.csv" y.B.h | awk '$3 == 1' | wc -l)" = 0 ] && ok ||
    bad "asking ball, events off: $(cat "$tmp/err")"
# the grid continues: t = 0.1 k, k = 0..10, all rows with event = 0 (to the grid's rounding:
# a grid time is n H or a sum of at most 11 step lengths, within 11 ulps of t <= 1, i.e.
# |10 t - k| < 3e-14; 1e-12 only sorts the rows: the event row t1 = 0.4515 is 0.0485 off it)
cols "$tmp/on/bf_zoh.csv" y.B.h | awk '$3 == 0 { k = $1 * 10; d = k - int(k + 0.5); if (d < 0) d = -d
    if (d > 1e-12) exit 1; n++ } END { exit n != 11 }' && ok || bad "grid rows"

# ---- 2. the filter is the exact ZOH response between any two rows ----------------------
# x(t_{k+1}) = u_k + (x_k - u_k) exp(-(t_{k+1} - t_k)/tau), tau = 0.2, u_k the row's input
# (held over the step); the FMU evaluates the same formula: 1e-14 relative (a few eps)
zohcheck() { # FILE
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { t = $1; x = $c["y.F.y"]; u = $c["u.F.u"]
          if (n++) { w = up + (xp - up) * exp(-(t - tp) / 0.2); d = x - w; if (d < 0) d = -d
                     if (d > 1e-14 * (1 + (w < 0 ? -w : w))) { print t, x, w; bad = 1 } }
          tp = t; xp = x; up = u }
        END { exit bad || n < 12 }' "$1"
}
zohcheck "$tmp/on/bf_zoh.csv" && ok || bad "ZOH response of the filter"

# ---- 2b. FOH: the input history restarts at an event and uses the actual times ---------
# The filter gets its input's value at the step's end (intermediate update) and holds it:
# x_{k+1} = ue + (x_k - ue) exp(-(t_{k+1} - t_k)/tau).  After an event row the history is
# that row alone (degree 0: ue = h_k); else ue is the line through the two newest rows at
# their actual times, h_k + (h_k - h_{k-1}) (t_{k+1} - t_k)/(t_k - t_{k-1}) (an equidistant
# history would give 2 h_k - h_{k-1}).  Tolerance 1e-13: O(1) values, the Lagrange
# coefficients at most 1 + H/(shortest step) ~ 10, a few roundings.
net ball_fmi3 ball2_fmi3 >"$tmp/bb.cosa"
"$COSA" simulate --model-file "$tmp/bb.cosa" --scheme foh --dt 0.1 -o "$tmp/foh" >/dev/null 2>"$tmp/err" &&
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { t[n + 0] = $1; y[n + 0] = $c["y.B.h"]; x[n + 0] = $c["y.F.y"]; ev[n + 0] = $c["event"]; n++ }
        END { for (k = 1; k + 1 < n; k++) {
                  ue = ev[k] ? y[k] : y[k] + (y[k] - y[k - 1]) * (t[k + 1] - t[k]) / (t[k] - t[k - 1])
                  w = ue + (x[k] - ue) * exp(-(t[k + 1] - t[k]) / 0.2); d = x[k + 1] - w
                  if (d > 1e-13 || d < -1e-13) { print t[k + 1], x[k + 1], w; bad = 1 }
                  nev += ev[k] }
              exit bad || nev < 2 }' "$tmp/foh/bf_foh.csv" >"$tmp/out" &&
    ok || bad "FOH restart at events: $(cat "$tmp/out" "$tmp/err")"

# ---- 3. the time event: a row at T = 0.35 with event = 1, the output 1 from there -------
printf 'model st\ntend 1\nfmu S = %s/stepsrc_fmi3.fmu\nfmu F = %s/filter_fmi3.fmu\nconnect S.y -> F.u\n' \
    "$FMU" "$FMU" >"$tmp/st.cosa"
sim "$tmp/st.cosa" "$tmp/st" >/dev/null 2>"$tmp/err" &&
    cols "$tmp/st/st_zoh.csv" y.S.y | awk '$3 == 1 { n++; if ($1 != 0.35) exit 1 }
        { if ($2 != ($1 >= 0.35 ? 1 : 0)) exit 1 } END { exit n != 1 }' &&
    ok || bad "time event: $(grep -v '^#' "$tmp/st/st_zoh.csv" | cut -d, -f1,3,10) $(cat "$tmp/err")"
zohcheck "$tmp/st/st_zoh.csv" && ok || bad "ZOH response after the time event"

# ---- 4. two balls: the first is past the second's bounce and rolled back -----------------
# the second ball (h0 = 0.6) bounces at sqrt(2 h0/g) = sqrt(1.2/g): a row with event = 1 there to
# 1e-13 (squared: 1e-26), the bound of section 1 (one crossing from O(1) states, fewer rows)
sim "$tmp/bb.cosa" "$tmp/bb" >"$tmp/out" 2>"$tmp/err" &&
    cols "$tmp/bb/bf_zoh.csv" y.C.h | awk -v g=9.81 '$3 == 1 && ($1 - sqrt(1.2 / g)) ^ 2 < 1e-26 { f = 1 }
        END { exit !f }' && ok || bad "two balls: $(cat "$tmp/err")"
# without FMU state the first ball cannot go back: one line naming it, exit 1
net ballnostate_fmi3 ball2_fmi3 >"$tmp/ns.cosa"
sim "$tmp/ns.cosa" "$tmp/ns" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && [ "$(grep -vc ': note: ' "$tmp/err")" = 1 ] && [ ! -e "$tmp/ns/bf_zoh.csv" ] &&
    grep -q "^cosa: simulate: co-simulation failed: FMU B stepped past the event at t = .* and cannot be rolled back to it: it cannot get and set its state (canGetAndSetFMUState)$" "$tmp/err" &&
    ok || bad "no FMU state: exit $rc $(cat "$tmp/err")"

# ---- 5. --events off: the run of the ball without event mode, bit for bit ---------------
net ballnoev_fmi3 >"$tmp/noev.cosa"
sim "$tmp/bf.cosa" "$tmp/off" --events off >"$tmp/a" 2>/dev/null &&
    sim "$tmp/noev.cosa" "$tmp/noev" >"$tmp/b" 2>/dev/null &&
    cmp -s "$tmp/off/bf_zoh.csv" "$tmp/noev/bf_zoh.csv" &&
    [ "$(grep -v '^file' "$tmp/a")" = "$(grep -v '^file' "$tmp/b")" ] &&
    ! grep -q ",event$" "$tmp/off/bf_zoh.csv" && ok || bad "--events off differs from no event mode"
# (and --events on changes nothing where no FMU has event mode)
sim "$tmp/noev.cosa" "$tmp/noev2" --events on >"$tmp/c" 2>/dev/null &&
    cmp -s "$tmp/noev/bf_zoh.csv" "$tmp/noev2/bf_zoh.csv" && ok || bad "--events on without event mode"

# ---- 6. bad input: one line, exit 2 ------------------------------------------------------
"$COSA" simulate --model-file "$tmp/bf.cosa" --scheme zoh --dt 0.1 --events maybe -o "$tmp/x" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/x" ] &&
    grep -q "^cosa: simulate: --events must be off or on, got 'maybe'$" "$tmp/err" && ok || bad "--events maybe: exit $rc $(cat "$tmp/err")"
# a scheme the event points cannot run: one line, exit 2; --events off runs it
"$COSA" simulate --model-file "$tmp/bf.cosa" --scheme foh+mbcorr --dt 0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: --events on: the event points need a plain Jacobi scheme without corrections (scheme FOH+MBCorr; or --events off)$" "$tmp/err" &&
    ok || bad "foh+mbcorr with events: exit $rc $(cat "$tmp/err")"
# an event iteration that never settles (at the initial Event Mode); with --events off it runs
net ballnosettle_fmi3 >"$tmp/nst.cosa"
"$COSA" simulate --model-file "$tmp/nst.cosa" --scheme zoh --dt 0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: --events on: FMU B: the event iteration at t = 0 did not settle: fmi3UpdateDiscreteStates still asked for an update after 100 calls$" "$tmp/err" &&
    ok || bad "no settling: exit $rc $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/nst.cosa" --scheme zoh --dt 0.1 --events off >/dev/null 2>&1 &&
    ok || bad "no settling, events off"
# an early return that was not allowed: one line naming the FMU, exit 2
net ballrude_fmi3 >"$tmp/rude.cosa"
"$COSA" simulate --model-file "$tmp/rude.cosa" --scheme zoh --dt 0.1 --events off >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(grep -vc ': note: ' "$tmp/err")" = 1 ] &&
    grep -q "FMU B: fmi3DoStep at t = .* returned early (lastSuccessfulTime = .*) although cosa did not allow it (earlyReturnAllowed = false; events off)$" "$tmp/err" &&
    ok || bad "rude early return: exit $rc $(cat "$tmp/err")"
# an FMU that declares hasEventMode without exporting the event functions (the loop test
# FMU's variant): by default a note and a run without event mode; --events on: one line, exit 2
printf 'model le\ntend 0.5\nfmu A = %s/loopev_fmi3.fmu\nfmu F = %s/filter_fmi3.fmu\nconnect A.y -> F.u\nconnect F.y -> A.u\n' \
    "$FMU" "$FMU" >"$tmp/le.cosa"
"$COSA" simulate --model-file "$tmp/le.cosa" --scheme zoh --dt 0.1 >/dev/null 2>"$tmp/err" &&
    grep -q "^cosa: simulate: note: FMU A declares hasEventMode but its binary does not export fmi3EnterEventMode: it runs without event mode$" "$tmp/err" &&
    ok || bad "event functions missing, default: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/le.cosa" --scheme zoh --dt 0.1 --events on >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: --events on: FMU A declares hasEventMode but its binary does not export fmi3EnterEventMode$" "$tmp/err" &&
    ok || bad "event functions missing, --events on: exit $rc $(cat "$tmp/err")"
fmu_env_done test_events.sh
