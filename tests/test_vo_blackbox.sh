#!/bin/sh
# test_vo_blackbox.sh -- the variable-order engine (simulate --coupling) on black boxes, FMUs that
# declare no states (doc/simulate-black-box.md "Modes", doc/variable-order.md "Black boxes";
# issue 31 item 1).  The two-mass pair with subsystem II hidden (tests/fmu/twomass2_hid*.fmu: the
# declared twin's binary, no states declared) against the same run of the declared pair with the
# same start rule (--start initial) and reference (--ref none): the FMU calls are the same with
# the same arguments, so the step sequence and the states of I are equal to the last printed
# digit (the only right tolerance for the same computation).  The start rule against an
# independent route: with fixed ZOH steps the engine is the fixed-step ZOH run from t = 0.
# The modes a black box cannot take are refused in one line, exit 2.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
fmu_twomass "$tmp/decl.cosa" pair 0.005 twomass1_fmi3.fmu twomass2_fmi3.fmu
fmu_twomass "$tmp/bb.cosa" pair 0.005 twomass1_fmi3.fmu twomass2_hid_fmi3.fmu
fmu_twomass "$tmp/nofs.cosa" pair 0.005 twomass1_fmi3.fmu twomass2_hidnofs_fmi3.fmu
fmu_twomass "$tmp/decl2.cosa" pair 0.005 twomass1_fmi2.fmu twomass2_fmi2.fmu
fmu_twomass "$tmp/bb2.cosa" pair 0.005 twomass1_fmi2.fmu twomass2_hid_fmi2.fmu
vo() { simulate_run "$@"; } # NAME MODEL ARGS...: simulate --coupling into $tmp/NAME/r.csv, stdout $tmp/NAME.out
# the attempts (t, H, k, accepted, err_u) and I's states (s, v: the first two state columns)
steps_and_I() { cut -d, -f1-4,7,10,11 "$1"; }

# ---- the black box against its declared twin: explicit ExSLocal with step control, implicit
# ImSLocal with the FD corrector Jacobian (it steps II from snapshots), fixed steps; FMI 3.0 and
# 2.0 -----------------------------------------------------------------------------------------
for m in "3 explicit --estimator exslocal --control step --ctl-rtol 1e-2" \
    "3 implicit --estimator imslocal --control step --ctl-rtol 1e-2" \
    "2 explicit --estimator exslocal --control step --ctl-rtol 1e-2" "3 explicit"; do
    v=${m%% *}
    a=${m#* }
    s=$([ "$v" = 3 ] && echo "" || echo 2)
    # shellcheck disable=SC2086 # the coupling and its options, split on purpose
    vo t_decl "decl$s" --scheme zoh --start initial --ref none --coupling $a
    # shellcheck disable=SC2086
    vo t_bb "bb$s" --scheme zoh --ref none --coupling $a
    steps_and_I "$tmp/t_decl/r.csv" >"$tmp/t_decl.steps"
    steps_and_I "$tmp/t_bb/r.csv" | cmp -s - "$tmp/t_decl.steps" && ok ||
        bad "FMI $v --coupling $a: the black box's steps or states differ from the twin's"
    # the comparison is not empty: at least 50 accepted steps
    [ "$(val steps "$tmp/t_bb.out")" -ge 50 ] && ok || bad "FMI $v --coupling $a: too few steps"
    # and with step control the controller moved the step (else H could be any constant)
    case $a in *control*)
        awk -F, 'NR > 2 && $2 != "" { h[$2] = 1 } END { n = 0; for (k in h) n++; exit !(n > 10) }' \
            "$tmp/t_bb/r.csv" && ok || bad "FMI $v --coupling $a: the step never changed" ;;
    esac
    grep -q '^start initial$' "$tmp/t_bb.out" && ok || bad "no 'start initial' line"
done
# the same I/O numbers with the units' statistics: every unit as many steps and restores
for u in I II; do
    [ "$(grep "^unit $u " "$tmp/t_bb.out")" = "$(grep "^unit $u " "$tmp/t_decl.out")" ] && ok ||
        bad "unit $u: other step or restore counts than the twin's"
done

# ---- the start rule against an independent route: ZOH, fixed steps (control none), K = 0: one
# start-up step of ZOH from the units' own state at t = 0, which is the fixed-step run's first
# step with --start initial (another master, cosa_cosim_run; the same FMU calls), so the states of
# I at t_s = dt (its outputs y.I.s1, y.I.v1 there) are the same numbers.  (After it the engine
# updates u at every macro point, u_{N+1} = phi(y(T_{N+1})) with II's feedthrough evaluated at the
# new inputs: no fixed-step scheme makes those calls.)  With --control order the engine starts
# at t_s = (kmax + 1) dt: kmax + 1 start-up steps.
vo v_bb bb --coupling explicit --scheme zoh --ref none
"$COSA" simulate --model-file "$tmp/bb.cosa" --dt 1e-4 --scheme zoh --start initial --ref none \
    -o "$tmp/fx" --name r >/dev/null 2>&1 || bad "the fixed-step run"
awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
         { n++; if (n >= 2) print $c["y.I.s1"] "," $c["y.I.v1"] }' "$tmp/fx/r.csv" >"$tmp/fx.I"
awk -F, 'NR > 1 && $4 == 1 { print $10 "," $11 }' "$tmp/v_bb/r.csv" >"$tmp/v.I"
[ "$(wc -l <"$tmp/v.I")" = 51 ] && [ "$(head -1 "$tmp/v.I")" = "$(head -1 "$tmp/fx.I")" ] &&
    [ "$(val t_start "$tmp/v_bb.out")" = 0.0001 ] && ok ||
    bad "--coupling zoh: the start-up step from t = 0 is not the fixed-step ZOH step"
vo o_bb bb --coupling explicit --scheme zoh --ref none --estimator exslocal --control order \
    --kmax 0 --ctl-rtol 1e-2
[ "$(val t_start "$tmp/o_bb.out")" = 0.0001 ] && ok || bad "--control order: t_start"

# ---- the start rule on a model with states (twomass-ff, FOH, fixed steps): the start-up from
# t = 0 takes one ZOH step (local error O(H^2)) before the FOH steps, so the global error keeps
# the order k + 1 = 2 of the reference start; measured between H = 1e-4 and 5e-5 on the same
# horizon, the two starts' orders of e_end agree within 0.1 (pre-asymptotic effects are the
# same; a start-up error of O(H), e.g. a wrong degree or time, would give order 1) -----------
order() { # START: log2 of e_end(1e-4) / e_end(5e-5)
    for h in 1e-4 5e-5; do
        "$COSA" simulate --coupling explicit --model twomass-ff --scheme p1 --dt $h --tend 0.01 \
            --start "$1" >"$tmp/o_$h.out" 2>&1 || bad "twomass-ff --start $1 --dt $h: exit $?"
    done
    awk -v a="$(val e_end "$tmp/o_1e-4.out")" -v b="$(val e_end "$tmp/o_5e-5.out")" \
        'BEGIN { printf "%.4f\n", log(a / b) / log(2) }'
}
pr=$(order reference)
pi=$(order initial)
awk -v a="$pr" -v b="$pi" 'BEGIN { d = a - b; exit !(d < 0.1 && d > -0.1 && a > 1.5) }' && ok ||
    bad "--start initial: the order of e_end $pi, with the reference start $pr"

# ---- --ref none: no error figures, everything else -------------------------------------------
grep -q '^reference none$' "$tmp/v_bb.out" && ok || bad "--ref none: no 'reference none' line"
for k in e36_coupling e36_all e_end e36_outputs e_end_outputs; do
    [ "$(val "$k" "$tmp/v_bb.out")" = nan ] && ok || bad "--ref none: $k is not nan"
done
[ "$(val status "$tmp/v_bb.out")" = ok ] && [ "$(val steps "$tmp/v_bb.out")" = 50 ] && ok ||
    bad "--ref none: the run did not cover the horizon"
awk -F, 'NR > 1 && $9 != "nan" { exit 1 }' "$tmp/v_bb/r.csv" && ok || bad "--ref none: err_state"

# ---- the default reference of black boxes: the fine co-simulation (ZOH: the black box holds its
# inputs) at dt/64, with a note; with fixed steps the macro points are fine samples, so the
# reference columns are the fixed-step run's fine reference (the same fine co-simulation) -------
vo f_bb bb --coupling explicit --scheme zoh
grep -q '^reference fine co-simulation ZOH dt/64$' "$tmp/f_bb.out" && ok || bad "no fine reference"
grep -q 'note: black box II (no declared states): the reference is the fine co-simulation' \
    "$tmp/f_bb.err" && ok || bad "no note on the reference"
"$COSA" simulate --model-file "$tmp/bb.cosa" --dt 1e-4 --scheme zoh --start initial -o "$tmp/ff" \
    --name r >/dev/null 2>&1 || bad "the fixed-step run with the fine reference"
awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
         { n++; if (n >= 2) print $c["ref.I.s1"] "," $c["ref.I.v1"] }' "$tmp/ff/r.csv" >"$tmp/ff.I"
awk -F, 'NR > 1 && $4 == 1 { print $12 "," $13 }' "$tmp/f_bb/r.csv" >"$tmp/f.I"
head -50 "$tmp/f.I" | cmp -s - "$tmp/ff.I" && ok || bad "--ref fine: not the fine co-simulation's samples"
e=$(val e_end "$tmp/f_bb.out")
awk -v e="$e" 'BEGIN { exit !(e > 0 && e < 1) }' && ok || bad "--ref fine: e_end $e"
# the errors on the outputs: I's outputs s1, v1 are its states (the same values at the same
# points, the same reference), so over the outputs -- a superset, with II's Fk -- eq 36's sum
# of squares and the largest end error are at least those of the states, and Fk adds to eq 36
e36=$(val e36_all "$tmp/f_bb.out")
e36o=$(val e36_outputs "$tmp/f_bb.out")
eo=$(val e_end_outputs "$tmp/f_bb.out")
awk -v a="$e36" -v b="$e36o" -v e="$e" -v f="$eo" 'BEGIN { exit !(b > a && f >= e && f < 1) }' &&
    ok || bad "--ref fine: e36_outputs $e36o (states $e36), e_end_outputs $eo (states $e)"

# ---- what a black box cannot take: one line (besides the identification's notes), exit 2 ------
bb_refused() { # WANT ARGS...: as harness.sh's usage_error, the notes left out
    want=$1
    shift
    "$COSA" "$@" >"$tmp/r.out" 2>"$tmp/r.all"
    rc=$?
    grep -v '^cosa: [a-z]*: note: ' "$tmp/r.all" >"$tmp/r.err"
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/r.err")" = 1 ] && [ ! -s "$tmp/r.out" ] &&
        grep -qF -- "$want" "$tmp/r.err" && ok || bad "$*: exit $rc: $(cat "$tmp/r.err")"
}
z="--coupling explicit --scheme zoh --dt 1e-4"
# shellcheck disable=SC2086
bb_refused "twomass2_hidnofs_fmi3.fmu: --coupling needs the FMU's state (canGetAndSetFMUState)" \
    simulate --model-file "$tmp/nofs.cosa" $z
for e in exlocal exmilne; do
    # shellcheck disable=SC2086
    bb_refused "--estimator $e compares the states of two integrations (z - z^), which black box II hides" \
        simulate --model-file "$tmp/bb.cosa" $z --estimator $e
done
bb_refused "--estimator immilne compares the states" simulate --model-file "$tmp/bb.cosa" \
    --coupling implicit --scheme zoh --dt 1e-4 --estimator immilne
# shellcheck disable=SC2086
bb_refused "--start reference: black box II declares no states" \
    simulate --model-file "$tmp/bb.cosa" $z --start reference
bb_refused "--scheme FOH: FMU II: an input polynomial of degree 1 needs input interpolation" \
    simulate --model-file "$tmp/bb.cosa" --coupling explicit --scheme foh --dt 1e-4
# shellcheck disable=SC2086
bb_refused "--ref x.csv: with --coupling the reference is auto, fine or none" \
    simulate --model-file "$tmp/bb.cosa" $z --ref x.csv
bb_refused "black box II declares no states: cosa estimate starts its step on the reference's states" \
    estimate --model-file "$tmp/bb.cosa" --coupling explicit --scheme zoh --dt 1e-4 \
    --estimator exslocal --t0 1e-3
fmu_env_done test_vo_blackbox
