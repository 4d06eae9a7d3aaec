#!/bin/sh
# test_fmu_me.sh -- Model Exchange FMUs as units (doc/model-exchange.md): the
# ME twins of the two-mass test FMUs (the same binaries as the CS ones, a
# ModelExchange element instead of CoSimulation) against the closed-form
# co-simulation of the linear model (cosa simulate --model twomass, exact
# units), alone and mixed with a CS FMU; their linearisation against the
# built-in model's; the interface choice of a model file; bad cases one line.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"

"$COSA" fmu-info "$FMU/metwomass1_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^interface model-exchange' "$tmp/out" && ok || bad "fmu-info ME: $(cat "$tmp/err")"
"$COSA" fmu-info "$FMU/twomass1_fmi3.fmu" >"$tmp/out" && ! grep -q '^interface' "$tmp/out" &&
    ok || bad "fmu-info CS prints an interface line"

# net FILE I-FMU II-FMU [cs|me of II]
net() {
    cat >"$1" <<END
model twomass-me
tend 0.3
fmu I = $2
fmu II $4 = $3
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}
net "$tmp/me3.cosa" "$FMU/metwomass1_fmi3.fmu" "$FMU/metwomass2_fmi3.fmu"
net "$tmp/me2.cosa" "$FMU/metwomass1_fmi2.fmu" "$FMU/metwomass2_fmi2.fmu"
net "$tmp/mix3.cosa" "$FMU/metwomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu"
net "$tmp/mix2.cosa" "$FMU/twomass1_fmi2.fmu" "$FMU/metwomass2_fmi2.fmu"

# The trajectories (inputs u, outputs y, extrapolations ybar of every unit) of a run
# against the exact units' run of the same scheme: max |difference| over the run within
# TOL of each column's max |value|.  TOL = 10 N rtol: cosa integrates an ME FMU with CVODE
# at rtol 1e-10 (its atol scaled by the states' magnitudes, FMU_ME_RTOL in
# lib/td/unit_fmu_me.c), restarted at every one of the N = 300 macro steps; each restart
# holds the local error near rtol |x| (CVODE's weighted error test, an asymptotic estimate:
# the factor 10), the coupled scheme is stable (rho < 1), so the errors add at most.
# Measured: 4.0e-8 for gs:foh (the CS FMUs' RK4 alone: 6.7e-10).
TOL=3e-7
trajcmp() { # MODEL-FILE SCHEME WHAT [TOL [OPTION VALUE]]
    rm -rf "$tmp/o1" "$tmp/o2"
    "$COSA" simulate --model-file "$1" --scheme "$2" --dt 1e-3 -o "$tmp/o1" ${5:+"$5" "$6"} >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model twomass --scheme "$2" --dt 1e-3 --tend 0.3 -o "$tmp/o2" >/dev/null &&
        grep -q '^status ok' "$tmp/a" &&
        paste -d, "$tmp"/o1/*.csv "$tmp"/o2/*.csv | grep -v '^#' |
        awk -F, -v tol="${4:-$TOL}" 'NR == 1 { n = NF / 2; next }
            { for (i = 2; i <= 10; i++) { d = $i - $(i + n); if (d < 0) d = -d; if (d > m[i]) m[i] = d
                  a = $(i + n); if (a < 0) a = -a; if (a > s[i]) s[i] = a } rows++ }
            END { r = 0; for (i = 2; i <= 10; i++) if (m[i] / s[i] > r) r = m[i] / s[i]
                  if (rows < 300 || !(r <= tol)) { print r; exit 1 } }' >"$tmp/r" &&
        ok || bad "$3 $2: $(cat "$tmp/r" "$tmp/err")"
}
for sc in zoh foh+mbcorr soh gs:foh; do
    trajcmp "$tmp/me3.cosa" $sc "ME pair FMI 3.0"
    trajcmp "$tmp/mix3.cosa" $sc "ME I + CS II FMI 3.0"
done
for sc in zoh gs:soh; do
    trajcmp "$tmp/me2.cosa" $sc "ME pair FMI 2.0"
    trajcmp "$tmp/mix2.cosa" $sc "CS I + ME II FMI 2.0"
done
# --integrator reaches ME FMUs: RK4 at the default micro step dt/100 = 1e-5 s; its global
# error on the oscillator's fastest mode (omega ~ 1.1e3 rad/s, omega h ~ 0.011) is the phase
# error N (omega h)^5 / 120 = 30000 x 1.6e-10 / 120 = 4e-8 relative (measured: 6.7e-10, as
# the CS twins' RK4); symplectic Euler needs kick flags an FMU does not give: one line, exit 2
trajcmp "$tmp/me3.cosa" gs:foh "ME pair --integrator rk4" 4e-8 --integrator rk4
"$COSA" simulate --model-file "$tmp/me3.cosa" --scheme zoh --dt 1e-3 --integrator symplectic-euler >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'needs to know which states are velocities' "$tmp/err" &&
    ok || bad "symplectic-euler on ME: exit $rc, $(cat "$tmp/err")"
# iterative coupling rolls the units back before every sweep: an ME unit's snapshot is its
# states (and CVODE's scales); e_global as the exact units' within 10 N rtol relative, N
# the unit steps taken (4303: 14.3 sweeps per window; measured 3.7e-7)
"$COSA" simulate --model-file "$tmp/me3.cosa" --scheme imp:zoh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass --scheme imp:zoh --dt 1e-3 --tend 0.3 >"$tmp/b" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2 } f == 1 && $1 == "unit" && $2 == "I" { n = $4 }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n > 0 && e[2] > 0 && d <= 10 * n * 1e-10 * e[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "imp:zoh ME pair: $(grep -E '^(e_global|unit)' "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# the unit statistics: one step per macro step (no defect sampling by default
# for FMU networks, doc/fixed-step-fmus.md); with --defects on one more half
# step and one restore per macro step
"$COSA" simulate --model-file "$tmp/me3.cosa" --scheme zoh --dt 1e-3 >"$tmp/a" &&
    grep -q '^unit I steps 300 restores 0 events 0 early_returns 0 defect_steps 0$' "$tmp/a" &&
    "$COSA" simulate --model-file "$tmp/me3.cosa" --scheme zoh --dt 1e-3 --defects on >"$tmp/b" &&
    grep -q '^unit I steps 600 restores 300 events 0 early_returns 0 defect_steps 300$' "$tmp/b" &&
    ok || bad "ME unit statistics: $(grep '^unit' "$tmp/a" "$tmp/b")"

# Linearised from the declared states by directional derivatives (exact: the model is
# linear): every Phi command gives the built-in model's numbers digit for digit; by
# central differences (--jacobian fd, through the derivatives at perturbed states) rho
# within 1e-6 relative, as for CS FMUs (test_fmu_cli.sh)
for f in me3 me2 mix3; do
    for s in zoh foh+mbcorr gs:soh; do
        "$COSA" point --model-file "$tmp/$f.cosa" --scheme $s --dt 1e-3 2>"$tmp/err" | grep -v '^model ' >"$tmp/a" &&
            "$COSA" point --model twomass --scheme $s --dt 1e-3 | grep -v '^model ' >"$tmp/b" &&
            cmp -s "$tmp/a" "$tmp/b" && [ ! -s "$tmp/err" ] && ok ||
            bad "point $f $s: $(diff "$tmp/a" "$tmp/b" | head -4) $(cat "$tmp/err")"
    done
done
"$COSA" linearize --model-file "$tmp/me3.cosa" --jacobian fd -o "$tmp/lin.cosa" >/dev/null &&
    "$COSA" point --model-file "$tmp/lin.cosa" --scheme foh+mbcorr --dt 1e-3 >"$tmp/a" &&
    "$COSA" point --model twomass --scheme foh+mbcorr --dt 1e-3 >"$tmp/b" &&
    awk 'FNR == 1 { f++ } $1 == "rho" { r[f] = $2 }
        END { d = r[1] - r[2]; if (d < 0) d = -d; exit !(r[2] > 0 && d <= 1e-6 * r[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "linearize --jacobian fd ME: $(grep '^rho ' "$tmp/a" "$tmp/b")"

# the interface of a model file's fmu statement: 'me' on an FMU without ModelExchange,
# 'cs' on one without CoSimulation: one line, exit 2
net "$tmp/bad.cosa" "$FMU/metwomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" me
fails_with 2 'fmu II: .*twomass2_fmi3.fmu: model exchange asked for, but the FMU has no ModelExchange element' "fmu II me on a CS FMU" \
    "$COSA" simulate --model-file "$tmp/bad.cosa" --scheme zoh --dt 1e-3
net "$tmp/bad.cosa" "$FMU/twomass1_fmi3.fmu" "$FMU/metwomass2_fmi3.fmu" cs
fails_with 2 'fmu II: .*metwomass2_fmi3.fmu: not a co-simulation or model-exchange FMU (no CoSimulation element' "fmu II cs on an ME FMU" \
    "$COSA" simulate --model-file "$tmp/bad.cosa" --scheme zoh --dt 1e-3
# a binary without the Model Exchange functions (the gain FMU's): one line naming the first
# one missing (fmi3EnterEventMode, required for ME), exit 2
fails_with 2 'the binary does not export fmi3EnterEventMode (a model-exchange FMU)' "ME binary without ME functions" \
    "$COSA" fmu-info "$FMU/bad_menosym.fmu"
# 'fmu II me = ...' and 'fmu II cs = ...' on FMUs that have that interface: the same run
net "$tmp/sel.cosa" "$FMU/metwomass1_fmi3.fmu" "$FMU/metwomass2_fmi3.fmu" me
"$COSA" simulate --model-file "$tmp/sel.cosa" --scheme zoh --dt 1e-3 | grep '^e_global' >"$tmp/a" &&
    "$COSA" simulate --model-file "$tmp/me3.cosa" --scheme zoh --dt 1e-3 | grep '^e_global' >"$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b" && ok || bad "fmu II me: $(cat "$tmp/a" "$tmp/b")"

# State events: the ME bouncing ball (tests/fmu/event_fmu.c, one event indicator h) from
# h = 1 m, g = 9.81, e = 0.7: bounces at t1 = sqrt(2 h / g) (= 0.4515 s), then every
# 2 v_k / g with v_k = e^k g t1.  Its height at every communication point against this
# closed form, and against its co-simulation twin (ball_fmi3.fmu, closed-form flight, exact
# crossing times), within 10 N rtol max|x|, N = 200 macro steps, max|x| = |v(t1)| = 4.43
# (the derivation above; the event time is located to 1e-13 relative, far below it).
# Measured: 8.9e-8 against both.
cat >"$tmp/ballme.cosa" <<END
model ballme
tend 2
fmu B = $FMU/ballme_fmi3.fmu
END
sed "s|ballme_fmi3.fmu|ball_fmi3.fmu|" "$tmp/ballme.cosa" >"$tmp/ballcs.cosa"
# CSV: the largest |h - closed form| (the twin's file has extra rows at its early returns)
ballerr() {
    grep -v '^#' "$1" | awk -F, 'NR == 1 { next }
        { g = 9.81; e = 0.7; t = $1; t0 = sqrt(2 / g); v0 = e * g * t0
          if (t < t0) h = 1 - g / 2 * t * t
          else { while (t > t0 + 2 * v0 / g) { t0 += 2 * v0 / g; v0 *= e }
                 s = t - t0; h = v0 * s - g / 2 * s * s }
          d = $2 - h; if (d < 0) d = -d; if (d > m) m = d; rows++ }
        END { print m; exit !(rows >= 200 && m <= 10 * 200 * 1e-10 * 4.43) }'
}
rm -rf "$tmp/b1" "$tmp/b2"
"$COSA" simulate --model-file "$tmp/ballme.cosa" --scheme zoh --dt 0.01 -o "$tmp/b1" >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/ballcs.cosa" --scheme zoh --dt 0.01 -o "$tmp/b2" >/dev/null 2>&1 &&
    grep -q '^status ok' "$tmp/a" && grep -q '^unit B steps 200 restores 0 events [1-9]' "$tmp/a" &&
    ballerr "$tmp"/b1/*.csv >"$tmp/r" && ballerr "$tmp"/b2/*.csv >>"$tmp/r" &&
    ok || bad "ME bouncing ball: $(cat "$tmp/r" "$tmp/err") $(grep '^unit' "$tmp/a")"

# Time events: subsystem I announcing one at t = 0.05 s (a no-op Event Mode): at dt 3e-3 it
# falls inside a macro step, which is split there; the run equals the pair without it to
# the integrator's accuracy (the split restarts CVODE once: e_global within 10 N rtol,
# N = 100, relative), and the event is counted
sed "s|metwomass1_fmi3.fmu|metwomass1te_fmi3.fmu|" "$tmp/me3.cosa" >"$tmp/te.cosa"
"$COSA" simulate --model-file "$tmp/te.cosa" --scheme zoh --dt 3e-3 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/me3.cosa" --scheme zoh --dt 3e-3 >"$tmp/b" &&
    grep -q '^unit I steps 100 restores 0 events [1-9]' "$tmp/a" &&
    grep -q '^unit II steps 100 restores 0 events 0 ' "$tmp/a" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2 }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(e[2] > 0 && d <= 10 * 100 * 1e-10 * e[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "ME time event: $(grep -E '^(e_global|unit)' "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
fmu_env_done test_fmu_me.sh
