#!/bin/sh
# test_sim_options.sh -- the option tables of `cosa simulate` (both modes),
# `cosa defect` and `cosa estimate` (issue 23 item 4): the two meanings of
# the old --jacobian under their own names (--mbcorr-jacobian,
# --corrector-jacobian), the old spelling giving the same stdout plus exactly
# one note line; an option of the other mode of simulate is one line and
# exit 2, wherever --coupling stands; `@FILE` prints exactly what the same
# options print on the command line (a --coupling run, a defect run); the
# --events row; --help of each mode lists the rows of that mode.
. "$(dirname "$0")/harness.sh"
FMU=${COSA_FMUDIR:-tests/fmu}

# same_but_note NOTE OLD -- NEW: the command lines OLD and NEW (cosa arguments)
# exit 0 with byte-identical stdout (wall-clock lines aside); NEW writes nothing
# on stderr, OLD exactly the one line NOTE more
same_but_note() {
    note=$1
    shift
    old=""
    while [ "$1" != -- ]; do old="$old $1"; shift; done
    shift
    # shellcheck disable=SC2086
    "$COSA" $old >"$tmp/o1" 2>"$tmp/e1" || { bad "exit $?: $old: $(cat "$tmp/e1")"; return; }
    "$COSA" "$@" >"$tmp/o2" 2>"$tmp/e2" || { bad "exit $?: $*: $(cat "$tmp/e2")"; return; }
    grep -v '^seconds_' "$tmp/o1" >"$tmp/s1"
    grep -v '^seconds_' "$tmp/o2" >"$tmp/s2"
    [ -s "$tmp/s1" ] && cmp -s "$tmp/s1" "$tmp/s2" && ok ||
        bad "stdout differs: $old / $*: $(diff "$tmp/s1" "$tmp/s2" | head -4)"
    printf '%s\n' "$note" | cat "$tmp/e2" - >"$tmp/want"
    cmp -s "$tmp/e1" "$tmp/want" && ok ||
        bad "stderr of $old: want the new one's plus '$note', got: $(cat "$tmp/e1")"
}
NF="cosa: simulate: note: --jacobian is deprecated; use --mbcorr-jacobian"
NC="cosa: simulate: note: --jacobian is deprecated; use --corrector-jacobian"
NE="cosa: estimate: note: --jacobian is deprecated; use --corrector-jacobian"

# ---- --jacobian: its fixed-step meaning (MBCorr's Jacobians; fd also for
# built-in units, as --fd) and its --coupling meaning (the corrector's)
R="simulate --model twomass --scheme foh+mbcorr --dt 1e-3 --tend 0.05"
for j in dd fd; do
    same_but_note "$NF" $R --jacobian $j -- $R --mbcorr-jacobian $j
done
# fd is not dd: the option reaches the run (finite differences differ in the last digits)
"$COSA" $R --mbcorr-jacobian dd >"$tmp/dd" && "$COSA" $R --mbcorr-jacobian fd >"$tmp/fd" &&
    ! cmp -s "$tmp/dd" "$tmp/fd" && ok || bad "--mbcorr-jacobian fd changes nothing"
V="simulate --coupling implicit --model twomass --scheme foh --dt 1e-4 --tend 0.005"
for j in fd los exact; do
    same_but_note "$NC" $V --jacobian $j -- $V --corrector-jacobian $j
done
# --coupling after the option: the same decision (made after parsing)
same_but_note "$NC" simulate --jacobian los --model twomass --scheme foh --dt 1e-4 --tend 0.005 \
    --coupling implicit -- $V --corrector-jacobian los
E="estimate --model twomass --scheme foh --estimator immilne --t0 1e-2 --dt 1e-4,2e-4"
same_but_note "$NE" $E --jacobian los -- $E --corrector-jacobian los
# with FMUs (when make check built them): MBCorr's Jacobians by finite differences
# through the FMU state, the 'fmu ... jacobian fd' line
if [ -f "$FMU/twomass1_fmi3.fmu" ] && [ "$(uname -m)" = x86_64 ]; then
    FMU=$(cd "$FMU" && pwd) # the model file names the FMUs from its own directory
    fmu_twomass "$tmp/fmu.cosa" twomass-fmu 0.05 twomass1_fmi3.fmu twomass2_fmi3.fmu
    F="simulate --model-file $tmp/fmu.cosa --scheme foh+mbcorr --dt 1e-3"
    same_but_note "$NF" $F --jacobian fd -- $F --mbcorr-jacobian fd
    grep -q '^fmu II fmi 3.0 jacobian fd$' "$tmp/o2" && ok || bad "FMU: no 'jacobian fd' line"
fi

# ---- one line, exit 2, nothing on stdout
# usage WANT ARGS...: the line is WANT (harness.sh)
usage() { usage_error -x "$@"; }
S="--model twomass --scheme foh --dt 1e-3"
C="--coupling explicit $S"
FIX="is an option of fixed-step runs (without --coupling)"
COU="is an option of --coupling runs"
usage "cosa: simulate: --estimator $COU" simulate $S --estimator exmilne
usage "cosa: simulate: --kmax $COU" simulate $S --kmax 3
usage "cosa: simulate: --corrector-jacobian $COU" simulate $S --corrector-jacobian fd
usage "cosa: simulate: --control $COU" simulate $S --control step
usage "cosa: simulate: --energy $FIX" simulate $C --energy
usage "cosa: simulate: --mbcorr-jacobian $FIX" simulate $C --mbcorr-jacobian dd
usage "cosa: simulate: --events $FIX" simulate $C --events off
usage "cosa: simulate: --assume $FIX" simulate $C --assume m1=2
usage "cosa: simulate: --sequence $FIX" simulate $C --sequence II,I
usage "cosa: simulate: --order $FIX" simulate $C --order II,I
usage "cosa: simulate: --rate $FIX" simulate $C --rate I=2
# the mode is decided after the whole command line: --coupling last, too
usage "cosa: simulate: --energy $FIX" simulate --energy $S --coupling explicit
# the first option of the other mode is the one named
usage "cosa: simulate: --fd $FIX" simulate --fd --energy $C
# both spellings of one option
usage "cosa: simulate: option --mbcorr-jacobian given twice (--jacobian is its deprecated spelling)" \
    simulate $S --jacobian fd --mbcorr-jacobian fd
usage "cosa: simulate: option --corrector-jacobian given twice (--jacobian is its deprecated spelling)" \
    simulate $C --jacobian fd --corrector-jacobian fd
usage "cosa: estimate: option --corrector-jacobian given twice (--jacobian is its deprecated spelling)" \
    $E --jacobian fd --corrector-jacobian fd
# bad values, by their spelling
usage "cosa: simulate: --jacobian must be dd or fd, got 'los'" simulate $S --jacobian los
usage "cosa: simulate: --mbcorr-jacobian must be dd or fd, got 'los'" simulate $S --mbcorr-jacobian los
usage "cosa: simulate: --jacobian must be fd, los or exact, got 'dd'" simulate $C --jacobian dd
usage "cosa: simulate: --corrector-jacobian must be fd, los or exact, got 'dd'" simulate $C \
    --corrector-jacobian dd
# --events on|off: one line for anything else
usage "cosa: simulate: --events must be off or on, got 'maybe'" simulate $S --events maybe
usage "cosa: simulate: --events must be off or on, got ''" simulate $S --events ''
for ev in on off; do
    "$COSA" simulate $S --events $ev >"$tmp/ev" 2>"$tmp/eve" && grep -qx 'status ok' "$tmp/ev" &&
        [ ! -s "$tmp/eve" ] && ok || bad "--events $ev: $(cat "$tmp/eve")"
done
usage "cosa: simulate: option --events given twice (it takes one value)" simulate $S --events on \
    --events off

# ---- @FILE: byte-identical stdout (a --coupling run, a defect run)
# at_file ARGS...: cosa ARGS with every option after the subcommand moved into
# a file, one "--opt value" per line
at_file() {
    sub=$1
    shift
    : >"$tmp/run.args"
    while [ $# -gt 0 ]; do
        case "$2" in
        --* | "") printf '%s\n' "$1" >>"$tmp/run.args"; shift ;;
        *) printf '%s %s\n' "$1" "$2" >>"$tmp/run.args"; shift 2 ;;
        esac
    done
    "$COSA" "$sub" @"$tmp/run.args"
}
cmp_at_file() {
    "$COSA" "$@" >"$tmp/c1" 2>"$tmp/ce1" || { bad "command line failed: $* $(cat "$tmp/ce1")"; return; }
    at_file "$@" >"$tmp/c2" 2>"$tmp/ce2" || { bad "@file failed: $* $(cat "$tmp/ce2")"; return; }
    grep -v '^seconds_' "$tmp/c1" >"$tmp/d1"
    grep -v '^seconds_' "$tmp/c2" >"$tmp/d2"
    [ -s "$tmp/d1" ] && cmp -s "$tmp/d1" "$tmp/d2" && cmp -s "$tmp/ce1" "$tmp/ce2" && ok ||
        bad "@file differs: $*: $(diff "$tmp/d1" "$tmp/d2" | head -4)"
}
cmp_at_file simulate --coupling implicit --model twomass --scheme foh --dt 1e-4 --tend 0.01 \
    --estimator immilne --control order --ctl-rtol 1e-6 --corrector-jacobian los --threads 1
cmp_at_file simulate --coupling explicit --model twomass --scheme soh --dt 1e-4 --tend 0.01 \
    --jacobian fd
cmp_at_file defect --model rotational-defect --integrator exact --in-order 1 --out-order 1 \
    --tol 1e-2 --h0 1e-3 --control output
cmp_at_file defect --model rotational-defect --integrator euler --in-order 0 --out-order 0 \
    --dt 0.01:0.1:log:3
# an option of the wrong mode from a file: FILE:LINE in the one line
printf '%s\n' '--model twomass' '--scheme foh' '--dt 1e-3' '--coupling explicit' '--energy' \
    >"$tmp/mode.args"
usage "cosa: simulate: $tmp/mode.args:5: --energy $FIX" simulate @"$tmp/mode.args"

# ---- --help of each mode: its rows, not the other mode's
"$COSA" simulate --help >"$tmp/h1" && "$COSA" simulate --coupling explicit --help >"$tmp/h2" &&
    "$COSA" estimate --help >"$tmp/h3" || bad "--help failed"
for o in --mbcorr-jacobian --events --energy --fd --assume --sequence --tend --dt; do
    grep -q -- "^  $o " "$tmp/h1" && ok || bad "simulate --help lacks $o"
done
for o in --corrector-jacobian --estimator --control --kmax --threads --tend --dt; do
    grep -q -- "^  $o " "$tmp/h2" && ok || bad "simulate --coupling --help lacks $o"
done
for o in --estimator --corrector-jacobian --kmax; do
    grep -q -- "^  $o " "$tmp/h1" && bad "simulate --help lists $o (a --coupling option)" || ok
done
for o in --energy --mbcorr-jacobian --events --assume; do
    grep -q -- "^  $o " "$tmp/h2" && bad "simulate --coupling --help lists $o" || ok
done
for o in --control --tend --jacobian; do
    grep -q -- "^  $o " "$tmp/h3" && bad "estimate --help lists $o" || ok
done
grep -q -- "^  --t0 T" "$tmp/h3" && ok || bad "estimate --help lacks --t0"

echo "test_sim_options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
