#!/bin/sh
# The one-call API (lib/cosa/api.h) against the command line:
#  - doc/one-call-api.md's C example is tests/api/simulate_fmus.c, verbatim,
#    and it simulates a model file of the test FMUs in four calls;
#  - it runs without a reference: its status, reference, steps and the
#    outputs at the end are, digit for digit (%.17g), those of 'cosa simulate
#    --ref none' on the same file (the same units and run: bitwise equal);
#  - an FMI 2.0 network and the foh+mbcorr scheme (Jacobians of the FMUs)
#    likewise; a bad file is one line and exit 1;
#  - a horizon that is not a multiple of dt ends at tend with a short last
#    step (tests/api/simulate_end.c): bitwise cosa simulate's run, and the
#    lag FMU's closed form at t = 1.1;
#  - cosa_case_runnable (tests/api/runnable.c) refuses what advise refuses,
#    with advise's reason (the combination table's event rule, the event grid).
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
EX=${COSA_API_EXAMPLE:-tests/api/simulate_fmus}

awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$COSA_SRCDIR/doc/one-call-api.md" >"$tmp/doc.c"
[ -s "$tmp/doc.c" ] && cmp -s "$tmp/doc.c" "$COSA_SRCDIR/tests/api/simulate_fmus.c" && ok ||
    bad "doc/one-call-api.md's first \`\`\`c block differs from tests/api/simulate_fmus.c"
calls=$(grep -o "cosa_case_[a-z_]*(" "$COSA_SRCDIR/tests/api/simulate_fmus.c" | sort -u | wc -l)
[ "$calls" -le 4 ] && ok || bad "the example calls $calls functions of the API, more than four"

for v in 3 2; do
    fmu_twomass "$tmp/net$v.cosa" twomass-fmu 0.3 twomass1_fmi$v.fmu twomass2_fmi$v.fmu
    "$EX" "$tmp/net$v.cosa" >"$tmp/api" 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok ||
        bad "FMI $v: the example failed: $(cat "$tmp/err")"
    mkdir -p "$tmp/o$v"
    "$COSA" simulate --model-file "$tmp/net$v.cosa" --scheme zoh --dt 1e-3 --tend 0.1 --ref none \
        -o "$tmp/o$v" >"$tmp/cli" 2>/dev/null || bad "FMI $v: cosa simulate failed"
    ! grep -q '^e_global' "$tmp/api" "$tmp/cli" && ok || bad "FMI $v: an e_global line without a reference"
    for k in status reference steps; do
        a=$(grep "^$k " "$tmp/api")
        b=$(grep "^$k " "$tmp/cli")
        [ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "FMI $v: '$a' vs simulate's '$b'"
    done
    # the last row of the trajectory file: the raw outputs y.* at t = 0.1
    csv=$tmp/o$v/twomass-fmu_zoh.csv
    hdr=$(grep -v '^#' "$csv" | head -1)
    last=$(tail -1 "$csv")
    n=0
    for name in $(awk '/^y\./ { print $1 }' "$tmp/api"); do
        col=$(echo "$hdr" | tr ',' '\n' | grep -nx "$name" | cut -d: -f1)
        want=$(echo "$last" | cut -d, -f"${col:-999}")
        got=$(awk -v k="$name" '$1 == k { print $2 }' "$tmp/api")
        [ -n "$col" ] && [ "$got" = "$want" ] && ok || bad "FMI $v: $name = $got, simulate's $want"
        n=$((n + 1))
    done
    [ "$n" = 3 ] && ok || bad "FMI $v: $n outputs, expected 3"
done

# a file that does not exist: one line naming it, exit 1
"$EX" "$tmp/none.cosa" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'none.cosa' "$tmp/err" && ok ||
    bad "missing file: $(cat "$tmp/err")"

# ---- the horizon: a short last step to tend, as cosa simulate (lib/td/end_clip.c) ----------
END=${COSA_API_END:-tests/api/simulate_end}
# tend 3 at dt 0.064: 46 full steps and one of 0.056, ending at t = 3; the outputs there are
# digit for digit the last row of cosa simulate's trajectory (the same run, bitwise)
"$END" "$COSA_SRCDIR/examples/twomass.cosa" zoh 0.064 3 >"$tmp/e" 2>"$tmp/err" && ok ||
    bad "api tend 3: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$COSA_SRCDIR/examples/twomass.cosa" --scheme zoh --dt 0.064 \
    --tend 3 -o "$tmp/oe" >"$tmp/cli" 2>/dev/null || bad "cosa simulate tend 3 failed"
[ "$(val t_end "$tmp/e")" = 3 ] && [ "$(val steps "$tmp/e")" = 47 ] &&
    [ "$(val steps "$tmp/cli")" = 47 ] && ok ||
    bad "api: not 46 + 1 steps to t = 3: $(val steps "$tmp/e") steps to $(val t_end "$tmp/e")"
csv=$tmp/oe/twomass_zoh.csv
hdr=$(grep -v '^#' "$csv" | head -1)
for name in y.I.s1 y.I.v1 y.II.Fk; do
    col=$(echo "$hdr" | tr ',' '\n' | grep -nx "$name" | cut -d: -f1)
    [ -n "$col" ] && [ "$(val "$name" "$tmp/e")" = "$(tail -1 "$csv" | cut -d, -f"$col")" ] && ok ||
        bad "api $name at t = 3: $(val "$name" "$tmp/e"), simulate's $(tail -1 "$csv" | cut -d, -f"${col:-999}")"
done
# the lag FMU on its own Euler grid of 0.1 s (test_end_clip.sh): u = 2 from t = 0, x0 = 1;
# 5 steps of 0.2 and one of 0.1 are 11 Euler steps: y = 2 - 0.8^11 at t = 1.1 (closed form;
# 1e-13: ~50 ulps of the FMU's eleven O(1) updates)
printf 'model lagnet\ntend 1\nfmu S = %s/stepsrc_fmi3.fmu\nfmu L = %s/lagfixed_fmi3.fmu\nconnect S.y -> L.u\n' \
    "$FMU" "$FMU" >"$tmp/lag.cosa"
"$END" "$tmp/lag.cosa" zoh 0.2 1.1 none S.T=0 S.A=2 >"$tmp/e" 2>"$tmp/err" && ok ||
    bad "api lag 1.1: $(cat "$tmp/err")"
awk -v t="$(val t_end "$tmp/e")" -v y="$(val y.L.y "$tmp/e")" \
    'BEGIN { e = y - (2 - 0.8 ^ 11); if (e < 0) e = -e; d = t - 1.1; if (d < 0) d = -d
             exit !(d <= 2.3e-16 && e <= 1e-13) }' && [ "$(val steps "$tmp/e")" = 6 ] && ok ||
    bad "api lag: y.L.y $(val y.L.y "$tmp/e") at t = $(val t_end "$tmp/e") is not 2 - 0.8^11 at 1.1"
# a short step the fixed-step FMU cannot take (0.05 < its 0.1): the run ends at the last full
# step t = 1 (cosa simulate's rule; the command adds a note), y = 2 - 0.8^10
"$END" "$tmp/lag.cosa" zoh 0.2 1.05 none S.T=0 S.A=2 >"$tmp/e" 2>"$tmp/err" &&
    [ "$(val t_end "$tmp/e")" = 1 ] && [ "$(val steps "$tmp/e")" = 5 ] &&
    awk -v y="$(val y.L.y "$tmp/e")" 'BEGIN { e = y - (2 - 0.8 ^ 10); exit !(e <= 1e-13 && e >= -1e-13) }' &&
    ok || bad "api lag 1.05: $(cat "$tmp/e" "$tmp/err")"
# a horizon shorter than dt: no step to run, one line, exit 1 (before: one whole step past it)
"$END" builtin:twomass zoh 1e-3 6e-4 >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'longer than the horizon' "$tmp/err" && ok ||
    bad "api tend < dt: $(cat "$tmp/err")"

# ---- cosa_case_runnable asks the combination table, as advise does -------------------------
# the event network of test_fixed_step.sh (the ball B, the filter F): for each candidate the
# helper's verdict and reason are advise's ("not ranked: ... (WHY); "); with the fixed-step lag
# L added, ZOH fails the event grid (L cannot stop at B's event points)
RUN=${COSA_API_RUNNABLE:-tests/api/runnable}
printf 'model bf\ntend 1\nfmu B = %s/ball_fmi3.fmu\nfmu F = %s/filter_fmi3.fmu\nconnect B.h -> F.u\n' \
    "$FMU" "$FMU" >"$tmp/bf.cosa"
printf 'model bfl\ntend 1\nfmu B = %s/ball_fmi3.fmu\nfmu F = %s/filter_fmi3.fmu\nfmu L = %s/lagfixed_fmi3.fmu\nconnect B.h -> F.u\nconnect B.h -> L.u\n' \
    "$FMU" "$FMU" "$FMU" >"$tmp/bfl.cosa"
for f in bf bfl; do
    "$COSA" advise --model-file "$tmp/$f.cosa" --tol 1e-2 --schemes zoh,gs:zoh,zoh+mbcorr \
        >"$tmp/adv" 2>"$tmp/err" || bad "$f: advise failed: $(cat "$tmp/err")"
    "$RUN" "$tmp/$f.cosa" zoh gs:zoh zoh+mbcorr >"$tmp/run" 2>"$tmp/err" ||
        bad "$f: the runnable helper failed: $(cat "$tmp/err")"
    for pair in zoh:ZOH gs:zoh:gs:ZOH zoh+mbcorr:ZOH+MBCorr; do
        s=${pair%%:[A-Zg]*}
        n=${pair#"$s":}
        cli=$(sed -n "s/^note $n: not ranked: cosa simulate cannot run it on these FMUs (\\(.*\\)); .*/\\1/p" "$tmp/adv")
        api=$(sed -n "s/^$s no: //p" "$tmp/run")
        [ "$cli" = "$api" ] && ok || bad "$f $s: api '$api', advise '$cli'"
    done
done
grep -qx 'zoh no: FMU L takes fixed internal steps of .*' "$tmp/run" && ok ||
    bad "bfl zoh: not refused for the event grid: $(cat "$tmp/run")"
grep -qx 'gs:zoh no: FMU B has event mode: .*' "$tmp/run" && ok ||
    bad "bfl gs:zoh: not refused for the event rule: $(cat "$tmp/run")"

fmu_env_done test_one_call_api
