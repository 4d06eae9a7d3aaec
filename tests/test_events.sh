#!/bin/sh
# test_events.sh -- `cosa simulate --events on|off` on the event test FMUs
# (tests/fmu/event_fmu.c; README "Events"): the option's values, event mode
# inside the macro step reproducing the FMU's own bounces, and the refusals
# (an event iteration that does not settle, an early return not allowed).
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
net() { # BALL-FMU
    printf 'model bf\ntend 1\nfmu B = %s/%s.fmu\nfmu F = %s/filter_fmi3.fmu\nconnect B.h -> F.u\n' \
        "$FMU" "$1" "$FMU"
}
net ball_fmi3 >"$tmp/bf.cosa"
# a bad value: one line, exit 2, nothing written
"$COSA" simulate --model-file "$tmp/bf.cosa" --scheme zoh --dt 0.1 --events maybe -o "$tmp/x" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/x" ] &&
    grep -q "^cosa: simulate: --events must be on or off$" "$tmp/err" && ok || bad "--events maybe: exit $rc $(cat "$tmp/err")"
# the ball bounces inside the FMU either way: Event Mode inside the macro step
# (events on, the default) gives the run of the FMU's own bounces (off) bit for bit
"$COSA" simulate --model-file "$tmp/bf.cosa" --scheme zoh --dt 0.1 -o "$tmp/on" >/dev/null 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/bf.cosa" --scheme zoh --dt 0.1 --events off -o "$tmp/off" >/dev/null 2>&1 &&
    cmp -s "$tmp/on/bf_zoh.csv" "$tmp/off/bf_zoh.csv" && ok || bad "events on/off: $(cat "$tmp/err")"
# an event iteration that never settles: one line, exit 2; with --events off it runs
net ballnosettle_fmi3 >"$tmp/ns.cosa"
"$COSA" simulate --model-file "$tmp/ns.cosa" --scheme zoh --dt 0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: --events on: FMU B: the event iteration at t = 0 did not settle" "$tmp/err" &&
    ok || bad "no settling: exit $rc $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/ns.cosa" --scheme zoh --dt 0.1 --events off >/dev/null 2>&1 &&
    ok || bad "no settling, events off"
# an early return that was not allowed: one line naming the FMU, exit 2
net ballrude_fmi3 >"$tmp/rude.cosa"
"$COSA" simulate --model-file "$tmp/rude.cosa" --scheme zoh --dt 0.1 --events off >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(grep -c . "$tmp/err")" -le 2 ] &&
    grep -q "FMU B: fmi3DoStep at t = .* returned early (lastSuccessfulTime = .*) although cosa did not allow it (earlyReturnAllowed = false; events off)$" "$tmp/err" &&
    ok || bad "rude early return: exit $rc $(cat "$tmp/err")"
fmu_env_done test_events.sh
