#!/bin/sh
# test_blackbox_run.sh -- cosa simulate on black boxes, FMUs that declare no states
# (doc/simulate-black-box.md, issue 31): the two-mass pair with subsystem II, I or both hidden
# (tests/fmu/twomass*_hid*.fmu: same binaries, no states declared) runs; its default reference
# is the fine co-simulation (ZOH at dt/64: they declare no input interpolation), and since the
# hidden FMUs do the same arithmetic as their declared twins, the co-simulation's trajectory
# (inputs, outputs, corrected outputs) equals the declared pair's to the last printed digit (the
# only right tolerance for the same computation) and e_global is the same in every variant;
# --ref none prints no e_global and everything else; --coupling --start reference and cosa
# defect refuse in one line (--coupling itself runs black boxes: tests/test_vo_blackbox.sh).
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
pair() { fmu_twomass "$1" pair 0.05 "$2" "$3"; } # FILE FMU_I FMU_II
# the trajectory file without its reference columns (ref.*)
traj() {
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^ref\./; h = 1 }
             { s = ""; for (i = 1; i <= NF; i++) if (keep[i]) s = s "," $i; print s }' "$1"
}
pair "$tmp/decl.cosa" twomass1_fmi3.fmu twomass2_fmi3.fmu
"$COSA" simulate --model-file "$tmp/decl.cosa" --scheme zoh --dt 1e-4 --ref none -o "$tmp/d" \
    --name run >"$tmp/decl.out" 2>/dev/null || bad "declared pair"
traj "$tmp/d/run.csv" >"$tmp/decl.traj"
e_first=
for v in "twomass1_fmi3.fmu twomass2_hid_fmi3.fmu II" "twomass1_fmi2.fmu twomass2_hid_fmi2.fmu II" \
         "twomass1_fmi3.fmu twomass2_hidnofs_fmi3.fmu II" "twomass1_hid_fmi3.fmu twomass2_fmi3.fmu I" \
         "twomass1_hid_fmi3.fmu twomass2_hid_fmi3.fmu I,_II"; do
    set -- $v
    who=$(echo "$3" | tr _ ' ')
    pair "$tmp/bb.cosa" "$1" "$2"
    rm -rf "$tmp/b"
    "$COSA" simulate --model-file "$tmp/bb.cosa" --scheme zoh --dt 1e-4 -o "$tmp/b" --name run \
        >"$tmp/bb.out" 2>"$tmp/bb.err" || bad "$1 + $2: exit $?"
    grep -q "note: black box.* $who (no declared states): the reference is the fine co-simulation" \
        "$tmp/bb.err" && ok || bad "$1 + $2: no black-box note: $(cat "$tmp/bb.err")"
    [ "$(val status "$tmp/bb.out")" = ok ] && ok || bad "$1 + $2: status $(val status "$tmp/bb.out")"
    [ "$(val reference "$tmp/bb.out")" = "fine co-simulation ZOH dt/64" ] && ok ||
        bad "$1 + $2: reference $(val reference "$tmp/bb.out")"
    traj "$tmp/b/run.csv" | cmp -s - "$tmp/decl.traj" && ok || bad "$1 + $2: another trajectory"
    e=$(val e_global "$tmp/bb.out")
    [ -n "$e" ] && [ "$e" != nan ] && [ "${e_first:=$e}" = "$e" ] && ok ||
        bad "$1 + $2: e_global $e vs $e_first"
    # a black box's output derivatives are not known: no defects
    [ "$(val defect_out "$tmp/bb.out")" = nan ] && ok || bad "$1 + $2: defect_out $(val defect_out "$tmp/bb.out")"
done
# --ref none: no e_global, everything else (the declared pair and the black box alike)
for f in decl bb; do
    "$COSA" simulate --model-file "$tmp/$f.cosa" --scheme zoh --dt 1e-4 --ref none \
        >"$tmp/none.out" 2>"$tmp/none.err" || bad "$f --ref none: exit $?"
    grep -q '^e_global' "$tmp/none.out" && bad "$f --ref none printed e_global" || ok
    [ "$(val reference "$tmp/none.out")" = none ] && [ "$(val status "$tmp/none.out")" = ok ] &&
        [ "$(val steps "$tmp/none.out")" = 500 ] && grep -q '^unit II steps [0-9]' "$tmp/none.out" &&
        ok || bad "$f --ref none: $(cat "$tmp/none.out")"
    # the run itself does not depend on the reference: the same unit counts as with one
    grep -q "^rejected 0" "$tmp/none.out" && ok || bad "$f --ref none: no statistics"
done
# a fixed-step black box (forward Euler at 1e-5): the fine reference steps on its grid, dt/10
# at dt = 1e-4, so it is the ZOH run at 1e-5 itself, sampled every 10th point (the same
# computation: equal to the last digit)
pair "$tmp/eu.cosa" twomass1_fmi3.fmu twomass2_euler_fmi3.fmu
rm -rf "$tmp/ea" "$tmp/eb"
"$COSA" simulate --model-file "$tmp/eu.cosa" --scheme zoh --dt 1e-4 --tend 0.01 -o "$tmp/ea" \
    --name r >"$tmp/eu.out" 2>/dev/null || bad "Euler black box: exit $?"
[ "$(val reference "$tmp/eu.out")" = "fine co-simulation ZOH dt/10" ] && ok ||
    bad "Euler black box: reference $(val reference "$tmp/eu.out")"
"$COSA" simulate --model-file "$tmp/eu.cosa" --scheme zoh --dt 1e-5 --tend 0.01 --ref none \
    -o "$tmp/eb" --name r >/dev/null 2>&1 || bad "Euler black box at 1e-5: exit $?"
col() { # FILE PREFIX: the columns PREFIX.* of the rows (every STEP-th)
    awk -F, -v p="$2" -v k="$3" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if (index($i, p) == 1) c[++m] = i; h = 1; n = -1; next }
        { n++; if (n % k) next; s = ""; for (j = 1; j <= m; j++) s = s " " $(c[j]); print s }' "$1"
}
col "$tmp/ea/r.csv" ref. 1 >"$tmp/ea.ref"
col "$tmp/eb/r.csv" y. 10 >"$tmp/eb.y"
[ "$(wc -l <"$tmp/ea.ref")" = 101 ] && cmp -s "$tmp/ea.ref" "$tmp/eb.y" && ok ||
    bad "Euler black box: the reference is not the run at its own step"
# divergence without a reference: the bound is 1e6 x the start-up samples' largest output, so
# at dt = 3e-3 (rho = 1.08 by cosa point on the declared twin) the run stops near the step n
# with rho^n = 1e6, n = ln 1e6 / ln rho = 180: between 0.5 n and 1.5 n (the start-up output and
# the dominant mode's initial amplitude differ by the other modes' share, a factor well inside
# rho^(+-90) = 1e3)
"$COSA" point --model-file "$tmp/decl.cosa" --scheme zoh --dt 3e-3 >"$tmp/p3" 2>/dev/null
"$COSA" simulate --model-file "$tmp/bb.cosa" --scheme zoh --dt 3e-3 --tend 3 --ref none \
    >"$tmp/div.out" 2>/dev/null || bad "divergence: exit $?"
awk -v r="$(val rho "$tmp/p3")" -v n="$(val steps "$tmp/div.out")" \
    'BEGIN { m = log(1e6) / log(r); exit !(r > 1 && n > 0.5 * m && n < 1.5 * m) }' &&
    grep -q '^status diverged' "$tmp/div.out" && ok ||
    bad "divergence without reference: rho $(val rho "$tmp/p3"), $(val status "$tmp/div.out") after $(val steps "$tmp/div.out")"
# and a built-in model
"$COSA" simulate --model twomass --scheme zoh --dt 1e-4 --tend 0.01 --ref none >"$tmp/tm.out" \
    2>/dev/null && ! grep -q '^e_global' "$tmp/tm.out" && [ "$(val status "$tmp/tm.out")" = ok ] &&
    ok || bad "twomass --ref none: $(cat "$tmp/tm.out")"
# refusals, one line each (besides the identification's notes), exit 2
pair "$tmp/bb.cosa" twomass1_fmi3.fmu twomass2_hid_fmi3.fmu
refuse() { # WHAT ARGS...: exit 2 and one line mentioning "black box"
    what=$1
    shift
    "$COSA" "$@" >/dev/null 2>"$tmp/r.all"
    rc=$?
    grep -v '^cosa: [a-z]*: note: ' "$tmp/r.all" >"$tmp/r.err" # the identification's notes
    [ $rc = 2 ] && one_line "$tmp/r.err" && grep -q "black box II declares no states" "$tmp/r.err" &&
        ok || bad "$what: exit $rc: $(cat "$tmp/r.err")"
}
# (model-based corrections run on the identified model: tests/test_blackbox_modes.sh)
refuse coupling simulate --model-file "$tmp/bb.cosa" --coupling explicit --scheme zoh --dt 1e-4 \
    --start reference
refuse defect defect --model-file "$tmp/bb.cosa" --dt 1e-4 --integrator exact --in-order 1 \
    --out-order 1
fmu_env_done test_blackbox_run
