#!/bin/sh
# test_fmu_cli.sh -- `cosa fmu-info` on the test FMUs of make check: what it
# prints for an FMI 3.0 and an FMI 2.0 FMU (as tests/fmu/*.xml declare), and
# one line with exit code 2 for every broken FMU, nothing left in TMPDIR.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
"$COSA" fmu-info --help >"$tmp/out" && grep -q '^Usage: cosa fmu-info' "$tmp/out" && ok || bad "--help"
"$COSA" fmu-info "$FMU/twomass1_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" && ok || bad "fmi3: $(cat "$tmp/err")"
cat >"$tmp/want" <<'END'
fmi 3.0
model twomass1
identifier twomass1
capabilities get-set-state directional-derivatives intermediate-update variable-step
state      s                    vr=1 start=0 set=SUB.s
state      v                    vr=2 start=100 set=SUB.v
input      Fk                   vr=5 start=0
output     s1                   vr=6
output     v1                   vr=7
parameter  m1                   vr=8 start=10 set=SUB.m1
parameter  c1                   vr=9 start=1000000 set=SUB.c1
parameter  d1                   vr=10 start=1 set=SUB.d1
derivative der(s)               vr=3 of=s
derivative der(v)               vr=4 of=v
END
cmp -s "$tmp/out" "$tmp/want" && ok || bad "fmi3 output: $(diff "$tmp/want" "$tmp/out")"
"$COSA" fmu-info "$FMU/twomass2_fmi2.fmu" >"$tmp/out" 2>"$tmp/err" && ok || bad "fmi2: $(cat "$tmp/err")"
grep -q '^fmi 2.0$' "$tmp/out" && grep -q '^capabilities .*interpolate-inputs' "$tmp/out" &&
    grep -q '^input      v1 *vr=6 start=0$' "$tmp/out" && grep -q '^output     Fk *vr=7$' "$tmp/out" &&
    grep -q '^parameter  ck *vr=11 start=200000 set=SUB.ck$' "$tmp/out" && ok || bad "fmi2 output: $(cat "$tmp/out")"

# broken FMUs, missing ones too: exit 2, one line 'cosa: fmu-info: FILE: what'
check() { # CODE FILE WORDS
    "$COSA" fmu-info "$2" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = "$1" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^cosa: fmu-info: $2: .*$3" "$tmp/err" &&
        [ ! -s "$tmp/out" ] && ok || bad "$2: exit $rc, $(cat "$tmp/err")"
}
check 2 "$FMU/bad_notzip.fmu" "not a zip archive"
check 2 "$FMU/bad_nomd.fmu" "no modelDescription.xml"
check 2 "$FMU/bad_xml.fmu" "not well-formed XML"
check 2 "$FMU/bad_version.fmu" "fmiVersion '1.0'"
check 2 "$FMU/bad_nocs.fmu" "no CoSimulation"
check 2 "$FMU/bad_platform.fmu" "platforms in the FMU"
check 2 "$FMU/bad_symbol.fmu" "does not export fmi3DoStep"
check 2 "$FMU/bad_escape.fmu" "outside the FMU's directory"
check 2 "$tmp/none.fmu" "cannot read"
"$COSA" fmu-info >/dev/null 2>&1; [ $? = 2 ] && ok || bad "no argument"
"$COSA" fmu-info a.fmu b.fmu >/dev/null 2>&1; [ $? = 2 ] && ok || bad "two arguments"
# ---- model files with fmu statements: linearised at load, every Phi command ----------
for v in 3 2; do
    mf=$tmp/twomass-fmu$v.cosa
    cat >"$mf" <<END
# the two-mass oscillator as two FMUs (FMI $v.0)
model twomass-fmu
tend 0.3
fmu I = $FMU/twomass1_fmi$v.fmu
fmu II = $FMU/twomass2_fmi$v.fmu   # subsystem II
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
    for s in zoh foh+mbcorr soh gs:foh; do
        "$COSA" point --model-file "$mf" --scheme "$s" --dt 1e-3 | grep -v '^model ' >"$tmp/a" &&
            "$COSA" point --model twomass --scheme "$s" --dt 1e-3 | grep -v '^model ' >"$tmp/b" &&
            cmp -s "$tmp/a" "$tmp/b" && ok || bad "point FMI $v $s: $(diff "$tmp/a" "$tmp/b")"
    done
    # the linearisation as an ordinary model file (cosa model-dump), read back: the same Phi
    # entries, digit for digit (the headers name other states and parameters)
    "$COSA" model-dump --model-file "$mf" -o "$tmp/lin$v.cosa" >/dev/null 2>&1 && ! grep -q '^fmu' "$tmp/lin$v.cosa" &&
        "$COSA" phi --model-file "$tmp/lin$v.cosa" --scheme foh+mbcorr --dt 1e-4 | grep -v '^#' >"$tmp/a" &&
        "$COSA" phi --model twomass --scheme foh+mbcorr --dt 1e-4 | grep -v '^#' >"$tmp/b" && [ -s "$tmp/b" ] &&
        cmp -s "$tmp/a" "$tmp/b" && ok || bad "model-dump of the FMU model FMI $v: $(diff "$tmp/a" "$tmp/b" | head -5)"
done
# cosa simulate runs the FMUs themselves: e_global as the built-in model's (exact units)
# within 1e-6 relative (the issue's bound; measured: 1e-13 for ZOH, 1e-8 for SOH+MBCorr,
# whose e_global of 1.4e-6 makes the FMUs' RK4 error of 1e-14 absolute look large); with
# --jacobian fd (G_p and G_0 by central differences through the FMU state over the step)
# and with --linearize start (Jacobians away from the FMU's current point: the second
# instance) the same bound (measured with fd: 1.2e-9 for ZOH+MBCorr at 1e-4, 5.5e-8 for
# SOH+MBCorr at 1e-4, 1e-8 for SOH+MBCorr at 1e-3)
simcmp() { # VERSION SCHEME DT [OPTION VALUE]
    jac=dd
    [ "${4:-}" = --jacobian ] && jac=$5
    "$COSA" simulate --model-file "$tmp/twomass-fmu$1.cosa" --scheme "$2" --dt "$3" ${4:+"$4" "$5"} \
        >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model twomass --scheme "$2" --dt "$3" >"$tmp/b" &&
        grep -q "^fmu II fmi $1.0 jacobian $jac$" "$tmp/a" &&
        awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
            END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= 1e-6 * e[2]) }' \
            "$tmp/a" "$tmp/b" && ok ||
        bad "simulate FMI $1 $2 dt $3 ${4:-} ${5:-}: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
}
# every order with and without MBCorr, Jacobi and Gauss-Seidel, both FMI versions, both step
# sizes; MBCorr with directional derivatives and with finite differences through FMU state
for dt in 1e-4 1e-3; do
    for v in 3 2; do
        for sc in zoh foh soh gs:zoh gs:foh gs:soh; do
            simcmp $v $sc $dt
        done
        for sc in zoh+mbcorr foh+mbcorr soh+mbcorr; do
            simcmp $v $sc $dt
            simcmp $v $sc $dt --jacobian fd
        done
    done
    simcmp 3 foh+mbcorr $dt --linearize start
done
# an FMU that fails at run time (subsystem II's doStep reaching t = 0.01 s): an Error is an
# error -- exit 1, one line with the instance, the function, the time, the status and what
# the FMU logged; a Discard is a result (README "Failures") -- status failed at the step
# that failed, the same line as the reason, exit 0
sed "s|$FMU/twomass2_fmi3.fmu|$FMU/fail_error_fmi3.fmu|" "$tmp/twomass-fmu3.cosa" >"$tmp/fail.cosa"
"$COSA" simulate --model-file "$tmp/fail.cosa" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    [ "$(cat "$tmp/err")" = "cosa: simulate: co-simulation failed: FMU II: fmi3DoStep at t = 0.0090000000000000011 returned Error; it logged: test FMU fails as configured" ] &&
    ok || bad "fail_error_fmi3: exit $rc, $(cat "$tmp/err")"
sed "s|$FMU/twomass2_fmi2.fmu|$FMU/fail_discard_fmi2.fmu|" "$tmp/twomass-fmu2.cosa" >"$tmp/fail.cosa"
"$COSA" simulate --model-file "$tmp/fail.cosa" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && grep -q '^status failed t=0.01$' "$tmp/out" &&
    grep -q '^reason unit 1: FMU II: fmi2DoStep at t = 0.0090000000000000011 returned Discard$' "$tmp/out" &&
    ok || bad "fail_discard_fmi2: exit $rc, $(grep -E '^(status|reason)' "$tmp/out") $(cat "$tmp/err")"
# cosa linearize: dd = the model-dump of the same file; fd within 1e-6 of the model (rho)
"$COSA" linearize --model-file "$tmp/twomass-fmu3.cosa" --jacobian dd -o "$tmp/lin_dd.cosa" >/dev/null &&
    "$COSA" model-dump --model-file "$tmp/twomass-fmu3.cosa" -o "$tmp/dump.cosa" >/dev/null &&
    cmp -s "$tmp/lin_dd.cosa" "$tmp/dump.cosa" && ok || bad "linearize --jacobian dd differs from model-dump"
"$COSA" linearize --model-file "$tmp/twomass-fmu3.cosa" --jacobian fd -o "$tmp/lin_fd.cosa" >/dev/null &&
    ! cmp -s "$tmp/lin_fd.cosa" "$tmp/lin_dd.cosa" && ok || bad "linearize --jacobian fd: no file, or equal to dd"
rhocmp() { # MODEL-FILE WHAT
    "$COSA" point --model-file "$1" --scheme foh+mbcorr --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" point --model twomass --scheme foh+mbcorr --dt 1e-3 >"$tmp/b" &&
        awk 'FNR == 1 { f++ } $1 == "rho" { r[f] = $2; n++ }
            END { d = r[1] - r[2]; if (d < 0) d = -d; exit !(n == 2 && d <= 1e-6 * r[2]) }' \
            "$tmp/a" "$tmp/b" && ok || bad "$2: $(grep '^rho ' "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
}
rhocmp "$tmp/lin_fd.cosa" "rho of the fd linearisation"
"$COSA" linearize --model-file "$tmp/twomass-fmu3.cosa" --jacobian xx >/dev/null 2>&1
[ $? = 2 ] && ok || bad "linearize --jacobian xx"
# an FMU without directional derivatives: fd by default, dd refused, MBCorr in simulate refused
sed "s|$FMU/twomass1_fmi3.fmu|$FMU/twomass1_nodd_fmi3.fmu|" "$tmp/twomass-fmu3.cosa" >"$tmp/nodd.cosa"
rhocmp "$tmp/nodd.cosa" "rho with central differences for I"
"$COSA" linearize --model-file "$tmp/nodd.cosa" --jacobian dd >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'nodd.cosa:4: fmu I: .*--jacobian dd: the FMU provides no directional derivatives' "$tmp/err" &&
    ok || bad "linearize --jacobian dd without dd: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/nodd.cosa" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^fmu I fmi 3.0 jacobian fd$' "$tmp/out" && ok || bad "simulate zoh without dd: $(cat "$tmp/err")"
# MBCorr on an FMU without directional derivatives: finite differences through its state.
# The reference is the linearisation by central differences (B of I off by 6e-10 relative,
# test_fmu.c), which this small e_global (3.6e-4) magnifies: measured 1.5e-6 relative, bound
# 1e-5
"$COSA" simulate --model-file "$tmp/nodd.cosa" --scheme zoh+mbcorr --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-4 >"$tmp/b" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && d <= 1e-5 * e[2]) }' "$tmp/a" "$tmp/b" &&
    ok || bad "simulate zoh+mbcorr without dd: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# neither directional derivatives nor FMU state: MBCorr refused in one line (exit 2); a
# scheme without correction runs, the defects (which sample through snapshots) nan
sed "s|$FMU/twomass1_fmi3.fmu|$FMU/twomass1_nostate_fmi3.fmu|" "$tmp/twomass-fmu3.cosa" >"$tmp/nostate.cosa"
"$COSA" simulate --model-file "$tmp/nostate.cosa" --scheme zoh+mbcorr --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'twomass1_nostate_fmi3.fmu: scheme ZOH+MBCorr needs Jacobians: the FMU provides neither directional derivatives nor its state' "$tmp/err" &&
    ok || bad "MBCorr without dd and state: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/nostate.cosa" --scheme zoh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass --scheme zoh --dt 1e-4 >"$tmp/b" &&
    grep -q '^defect_out nan$' "$tmp/a" && grep -q '^defect_conn nan$' "$tmp/a" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && d <= 1e-6 * e[2]) }' "$tmp/a" "$tmp/b" &&
    ok || bad "ZOH without FMU state: $(cat "$tmp/a" "$tmp/err")"
# the variable-order engine on the FMU pair (FMI 3.0): the units are the FMUs, the
# reference the linearised network (exact for these linear FMUs).  The FMUs integrate
# with RK4 on 100 substeps, --model twomass's exact units with the matrix exponential:
# the local error estimates differ by the RK4 error, so the controlled step sequences
# part after a few steps, and run measures agree only as the controller's tolerance
# allows: the controller bounds each step's error estimate, not the global e36, so two
# runs on different step sequences agree in e36 only to a fraction of e36 itself: steps
# within 2 %, e36 within 10 % (measured: 5876 vs 5871 steps, e36 2e-3 relative with
# OpenBLAS; 5886 vs 5876 steps, e36 3.7e-2 relative with the reference BLAS/LAPACK;
# implicit with order control: 768 steps each, e36 7e-8 relative)
for c in "explicit --estimator exmilne --control step" "implicit --estimator immilne --control order"; do
    # shellcheck disable=SC2086
    "$COSA" simulate --model-file "$tmp/twomass-fmu3.cosa" --coupling $c --scheme foh --dt 1e-3 \
        >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model twomass --coupling $c --scheme foh --dt 1e-3 >"$tmp/b" &&
        grep -q '^status ok$' "$tmp/a" &&
        awk 'FNR == 1 { f++ } $1 == "steps" || $1 == "e36_all" { v[f, $1] = $2 }
            function near(a, b, r) { d = a - b; if (d < 0) d = -d; return d <= r * b }
            END { exit !(near(v[1, "steps"], v[2, "steps"], 0.02) && near(v[1, "e36_all"], v[2, "e36_all"], 0.1)) }' \
            "$tmp/a" "$tmp/b" &&
        ok || bad "--coupling $c on FMUs: $(grep -E '^(steps|e36_all)' "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
done
# cosa defect runs the FMUs too (exact solution: the linearised network, exact here).
# The FMUs' RK4 on 100 substeps against the exact units: the defects, errors and
# steps agree to 1e-7 relative (measured: eps_max 7e-11, error_s1 2e-10 at fixed
# H = 1e-3, error_s1 4e-9 with --tol 1e-3 where both take 228403 steps)
for h in "--dt 1e-3" "--tol 1e-3 --tend 0.05"; do
    # shellcheck disable=SC2086
    "$COSA" defect --model-file "$tmp/twomass-fmu3.cosa" --integrator exact --in-order 1 \
        --out-order 1 $h >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" defect --model twomass --integrator exact --in-order 1 --out-order 1 $h >"$tmp/b" &&
        grep -q '^status ok$' "$tmp/a" &&
        awk 'FNR == 1 { f++ } $1 ~ /^(steps|eps_max|error_|defect_out_|defect_conn_)/ { v[f, $1] = $2; k[$1] = 1 }
            END { n = 0; for (q in k) { n++; a = v[1, q]; b = v[2, q]; d = a - b; if (d < 0) d = -d
                  s = b < 0 ? -b : b; if (d > 1e-7 * s) exit 1 }
                  exit !(n >= 10) }' "$tmp/a" "$tmp/b" &&
        ok || bad "defect $h on FMUs: $(cat "$tmp/err")"
done
"$COSA" defect --model-file "$tmp/nostate.cosa" --integrator exact --in-order 0 --out-order 0 \
    --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'twomass1_nostate_fmi3.fmu: the defect run needs the FMU.s state' "$tmp/err" &&
    ok || bad "defect without FMU state: $(cat "$tmp/err")"
# without FMU state the engine cannot restore a unit: refused in one line (exit 2)
"$COSA" simulate --model-file "$tmp/nostate.cosa" --coupling explicit --scheme zoh --dt 1e-3 \
    >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q 'twomass1_nostate_fmi3.fmu: --coupling needs the FMU.s state (canGetAndSetFMUState)' "$tmp/err" &&
    ok || bad "--coupling without FMU state: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/nodd.cosa" --scheme zoh --dt 1e-4 --jacobian dd >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'jacobian dd: the FMU provides no directional derivatives' "$tmp/err" && ok ||
    bad "simulate --jacobian dd without dd: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/nodd.cosa" --scheme zoh --dt 1e-4 --jacobian xx >/dev/null 2>&1
[ $? = 2 ] && ok || bad "simulate --jacobian xx"
# FOH on an FMI 3.0 FMU without intermediate update: refused, the capability named
"$COSA" simulate --model-file "$tmp/nodd.cosa" --scheme foh --dt 1e-4 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'FMU I: an input polynomial of degree 1 needs the intermediate-update' "$tmp/err" &&
    ok || bad "FOH on FMI 3.0 without intermediate update: $(cat "$tmp/err")"
# the nonlinear FMU (eq 43, n_d = 1.5, no directional derivatives) with --ref fine against
# twomass-nl with the same integrator (RK4, 100 micro steps per macro step, as the FMU's
# doStep) and --ref fine: the same arithmetic, so the co-simulated outputs agree to rounding
# (bound 1e-10 of each output's scale; measured: bitwise equal for ZOH) and e_global to 1e-8
# relative (measured 4e-10: the fine references differ in their micro steps)
fmu_twomass "$tmp/nl.cosa" twomass-nl-fmu 0.3 twomass1_fmi3.fmu twomass2nl_fmi3.fmu
# the variable-order engine's reference is the linearised network: a nonlinear FMU is
# refused in one line (exit 2) naming it
"$COSA" simulate --model-file "$tmp/nl.cosa" --coupling explicit --scheme zoh --dt 1e-3 \
    >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'FMU II is nonlinear' "$tmp/err" &&
    ok || bad "--coupling on a nonlinear FMU: $(cat "$tmp/err")"
"$COSA" defect --model-file "$tmp/nl.cosa" --integrator exact --in-order 1 --out-order 1 \
    --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'FMU II is nonlinear' "$tmp/err" &&
    ok || bad "defect on a nonlinear FMU: $(cat "$tmp/err")"
for s in zoh foh; do
    "$COSA" simulate --model-file "$tmp/nl.cosa" --scheme $s --dt 1e-4 --ref fine -o "$tmp/nlf" --name r \
        >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model twomass-nl --set nd=1.5 --integrator rk4 --micro 1e-6 --scheme $s \
            --dt 1e-4 --ref fine -o "$tmp/nlm" --name r >"$tmp/b" 2>>"$tmp/err" &&
        grep -q '^reference fine co-simulation SOH dt/64$' "$tmp/a" && grep -q '^fmu II fmi 3.0 jacobian fd$' "$tmp/a" &&
        awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
            END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= 1e-8 * e[2]) }' \
            "$tmp/a" "$tmp/b" &&
        grep -v '^#' "$tmp/nlf/r.csv" | tail -n +2 >"$tmp/c1" &&
        grep -v '^#' "$tmp/nlm/r.csv" | tail -n +2 >"$tmp/c2" &&
        paste -d, "$tmp/c1" "$tmp/c2" |
        awk -F, '{ for (k = 8; k <= 10; k++) { d = $k - $(k + 16); if (d < 0) d = -d; s = $(k + 16);
                   if (s < 0) s = -s; if (s > m[k]) m[k] = s; if (d > w[k]) w[k] = d } n++ }
            END { for (k = 8; k <= 10; k++) if (!(w[k] <= 1e-10 * m[k])) exit 1; exit !(n == 3001) }' &&
        ok || bad "nonlinear FMU $s: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
done
# a broken FMU in a model file: one line with file and line, exit 2
printf 'model x\nfmu I = %s\n' "$FMU/bad_symbol.fmu" >"$tmp/bad.cosa"
"$COSA" point --model-file "$tmp/bad.cosa" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'bad.cosa:2: fmu I: .*does not export fmi3DoStep' "$tmp/err" &&
    ok || bad "broken FMU in a model file: exit $rc, $(cat "$tmp/err")"
printf 'model x\nfmu I =\n' >"$tmp/bad2.cosa"
"$COSA" point --model-file "$tmp/bad2.cosa" --scheme zoh --dt 1e-3 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'expected the path of an FMU' "$tmp/err" && ok || bad "fmu without a path: $(cat "$tmp/err")"
# --ref FILE.csv for the nonlinear FMU: twomass-nl's CVODE reference (rtol 1e-12, written by
# a run at dt/4, rows from t = 0) against twomass-nl with the FMU's RK4 and its own CVODE
# reference: the same co-simulation, references that differ by CVODE's tolerance (measured
# 1.2e-10 relative in e_global; bound 1e-8)
"$COSA" simulate --model twomass-nl --set nd=1.5 --scheme zoh --dt 2.5e-5 -o "$tmp/nlr" --name r >/dev/null &&
    "$COSA" simulate --model-file "$tmp/nl.cosa" --scheme zoh --dt 1e-4 --ref "$tmp/nlr/r.csv" >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass-nl --set nd=1.5 --integrator rk4 --micro 1e-6 --scheme zoh \
        --dt 1e-4 >"$tmp/b" &&
    grep -q "^reference file $tmp/nlr/r.csv (12001 samples, the states at t = 0 from the model)$" "$tmp/a" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= 1e-8 * e[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "nonlinear FMU --ref FILE: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# states that are outputs themselves (as in the Reference FMUs' VanDerPol), whose directional
# derivatives the FMU answers with 0: cosa uses the unit rows, so point prints the built-in
# model's numbers digit for digit and simulate its e_global
fmu_pair twomass-stateout 0.3 I "$FMU/twomass1_stateout_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" s v >"$tmp/stateout.cosa"
"$COSA" point --model-file "$tmp/stateout.cosa" --scheme foh+mbcorr --dt 1e-3 | grep -v '^model ' >"$tmp/a" &&
    "$COSA" point --model twomass --scheme foh+mbcorr --dt 1e-3 | grep -v '^model ' >"$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b" && ok || bad "states as outputs: $(diff "$tmp/a" "$tmp/b")"
"$COSA" simulate --model-file "$tmp/stateout.cosa" --scheme soh+mbcorr --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass --scheme soh+mbcorr --dt 1e-4 >"$tmp/b" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= 1e-6 * e[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "states as outputs, simulate: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# FMU parameters and state start values are model parameters NAME.VAR: --set re-linearises
# (directional derivatives: the same rho, e_global digit for digit as the built-in model
# with the same values), and they are map axes (every grid point linearised again)
for v in 3 2; do
    "$COSA" point --model-file "$tmp/twomass-fmu$v.cosa" --set II.ck=1e6 --set II.dk=300 --set I.v=50 \
        --scheme foh+mbcorr --dt 1e-3 | grep -v '^model ' >"$tmp/a" &&
        "$COSA" point --model twomass --set ck=1e6 --set dk=300 --set v1=50 --scheme foh+mbcorr \
            --dt 1e-3 | grep -v '^model ' >"$tmp/b" &&
        cmp -s "$tmp/a" "$tmp/b" && ok || bad "point --set FMU parameters FMI $v: $(diff "$tmp/a" "$tmp/b")"
done
"$COSA" models --model-file "$tmp/nl.cosa" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^  II.nd  *1.5  *- *FMU parameter$' "$tmp/out" &&
    grep -q '^  I.v  *100  *- *FMU state start value (initial state)$' "$tmp/out" &&
    [ "$(grep -c '^  I*\.' "$tmp/out")" = 15 ] && ok || bad "models --model-file: $(cat "$tmp/out" "$tmp/err")"
"$COSA" point --model-file "$tmp/twomass-fmu3.cosa" --set II.bogus=1 --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "no parameter 'II.bogus'" "$tmp/err" &&
    ok || bad "--set of an unknown FMU variable: $(cat "$tmp/err")"
"$COSA" map --model-file "$tmp/twomass-fmu3.cosa" --x II.ck=1e5:1e7:log:6 --y II.dk=1e1:1e4:log:5 \
    --dt 1e-4,1e-3 --scheme zoh,soh+mbcorr -o "$tmp/mapf" --name m >/dev/null 2>"$tmp/err" &&
    "$COSA" map --model twomass --x ck=1e5:1e7:log:6 --y dk=1e1:1e4:log:5 --dt 1e-4,1e-3 \
        --scheme zoh,soh+mbcorr -o "$tmp/mapm" --name m >/dev/null 2>>"$tmp/err" &&
    cat "$tmp/mapf/m_zoh.dat" "$tmp/mapf/m_soh_mbcorr.dat" | grep -v '^#' >"$tmp/a" &&
    cat "$tmp/mapm/m_zoh.dat" "$tmp/mapm/m_soh_mbcorr.dat" | grep -v '^#' >"$tmp/b" &&
    [ "$(grep -c . "$tmp/a")" = 120 ] && cmp -s "$tmp/a" "$tmp/b" &&
    ok || bad "map over FMU parameters: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -3)"
# the nonlinear FMU (no directional derivatives: central differences) at n_d = 1 is the
# linear twomass: rho within 1e-6 (the issue's bound; measured 2.3e-11)
for s in zoh foh+mbcorr soh gs:foh; do
    for dt in 1e-4 1e-3; do
        "$COSA" point --model-file "$tmp/nl.cosa" --set II.nd=1 --scheme $s --dt $dt >"$tmp/a" &&
            "$COSA" point --model twomass --scheme $s --dt $dt >"$tmp/b" &&
            awk 'FNR == 1 { f++ } $1 == "rho" { r[f] = $2; n++ }
                END { d = r[1] - r[2]; if (d < 0) d = -d; exit !(n == 2 && d <= 1e-6) }' "$tmp/a" "$tmp/b" &&
            ok || bad "nonlinear FMU at nd = 1, $s $dt: $(grep '^rho ' "$tmp/a" "$tmp/b")"
    done
done
# cosa linearize at other parameter values: the file's Phi is the built-in model's there,
# and its header names the values
"$COSA" linearize --model-file "$tmp/nl.cosa" --set II.nd=1 --set II.ck=1e6 -o "$tmp/lin_nd1.cosa" >/dev/null &&
    grep -q '^# FMU parameters and state start values here: .*II.ck = 1e6, .*II.nd = 1,' "$tmp/lin_nd1.cosa" &&
    "$COSA" phi --model-file "$tmp/lin_nd1.cosa" --scheme soh --dt 1e-4 | grep -v '^#' >"$tmp/a" &&
    "$COSA" phi --model twomass --set ck=1e6 --scheme soh --dt 1e-4 | grep -v '^#' >"$tmp/b" &&
    paste "$tmp/a" "$tmp/b" | awk '{ n = NF / 2; for (k = 1; k <= n; k++) { d = $k - $(k + n);
        if (d < 0) d = -d; s = $(k + n); if (s < 0) s = -s; if (s > m) m = s; if (d > w) w = d } }
        END { exit !(NR > 0 && w <= 1e-9 * m) }' && ok || bad "linearize --set: $(head -3 "$tmp/a")"
# cosa simulate sets the FMUs' parameters: e_global as the built-in model's within 1e-6
"$COSA" simulate --model-file "$tmp/twomass-fmu2.cosa" --set II.ck=1e6 --set I.v=50 --scheme soh+mbcorr \
    --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model twomass --set ck=1e6 --set v1=50 --scheme soh+mbcorr --dt 1e-4 >"$tmp/b" &&
    awk 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= 1e-6 * e[2]) }' \
        "$tmp/a" "$tmp/b" && ok || bad "simulate --set FMU parameters: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# relative paths are taken from the model file's directory
mkdir -p "$tmp/rel"
cp "$FMU/twomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" "$tmp/rel/"
sed -e "s|$FMU/twomass1_fmi3.fmu|twomass1_fmi3.fmu|; s|$FMU/twomass2_fmi3.fmu|twomass2_fmi3.fmu|" \
    "$tmp/twomass-fmu3.cosa" >"$tmp/rel/m.cosa"
(cd / && "$COSA" point --model-file "$tmp/rel/m.cosa" --scheme zoh --dt 1e-3 >/dev/null 2>"$tmp/err") &&
    ok || bad "relative FMU path: $(cat "$tmp/err")"
# every broken and failing FMU under valgrind: no invalid access, no leak (README's install
# line brings valgrind; without it this part is skipped, and says so)
if ldd "$COSA" 2>/dev/null | grep -q libasan; then
    echo "note: an ASan build: the valgrind runs are skipped (ASan checks these runs itself)"
elif [ -n "${OPENBLAS_CORETYPE:-}" ] || [ -n "${LD_PRELOAD:-}" ]; then
    # a forced BLAS kernel (tools/check-blas-kernels.sh): valgrind cannot run SkylakeX's
    # AVX-512 code; the plain make check runs these under valgrind
    echo "note: a forced BLAS kernel: the valgrind runs are skipped"
elif command -v valgrind >/dev/null 2>&1; then
    vg() { valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 "$@"; }
    for b in notzip nomd xml version nocs platform symbol escape array; do
        vg "$COSA" fmu-info "$FMU/bad_$b.fmu" >/dev/null 2>"$tmp/vg"
        [ $? = 2 ] && ! grep -q '==' "$tmp/vg" && ok || bad "valgrind, bad_$b.fmu: $(head -5 "$tmp/vg")"
    done
    sed "s|$FMU/twomass2_fmi3.fmu|$FMU/fail_error_fmi3.fmu|" "$tmp/twomass-fmu3.cosa" >"$tmp/fail.cosa"
    vg "$COSA" simulate --model-file "$tmp/fail.cosa" --scheme zoh --dt 1e-3 >/dev/null 2>"$tmp/vg"
    [ $? = 1 ] && ! grep -q '==' "$tmp/vg" && ok || bad "valgrind, failing FMU: $(head -5 "$tmp/vg")"
    vg "$COSA" simulate --model-file "$tmp/twomass-fmu3.cosa" --scheme soh+mbcorr --dt 1e-3 --tend 0.01 \
        >/dev/null 2>"$tmp/vg"
    [ $? = 0 ] && ! grep -q '==' "$tmp/vg" && ok || bad "valgrind, FMU co-simulation: $(head -5 "$tmp/vg")"
else
    echo "note: valgrind not installed: the valgrind runs of the broken FMUs are skipped"
fi
[ ! -e "$tmp/cosa-escape-test.txt" ] && ok || bad "bad_escape.fmu wrote outside its directory"
fmu_env_done test_fmu_cli.sh
