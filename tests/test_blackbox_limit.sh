#!/bin/sh
# test_blackbox_limit.sh -- predictions that hold on black boxes (issue 31 item 3;
# doc/simulate-black-box.md): the stability limit cosa limit predicts for the two-mass pair
# whose subsystem II is a black box is where the co-simulation of the FMUs themselves turns
# unstable.  The truth is the declared-state twin's limit L (its states declared: the exact
# Phi); the black-box network's own prediction (II identified) must agree with it.  Then the
# FMUs are co-simulated (ZOH, --ref none) for 1500 macro steps at 0.9 L and 1.1 L, and the
# amplitude of the output s1 is measured as the largest |s1| over the windows n = 300..499 and
# 1300..1499: its ratio must be rho^1000, rho = rho(Phi) at that step (cosa point on the twin),
# i.e. a decay below L and a growth above it.
# Tolerance of the exponent log(ratio) / (1000 log rho): 5 %.  Its reasons: a window's
# largest sample misses the envelope's peak by at most 1 - cos(theta/2) of it (theta the
# dominant mode's angle per step; the same bound in both windows), the subdominant modes decay
# relative to the dominant one as |mu2/mu1|^300 at the early window, and 1000 |log rho| >= 3
# here, so that those relative errors of the ratio (< 10 %) are < 5 % of the exponent.
# The same with the fixed-step black box (II forward Euler at 1e-5, tests/fmu/twomass2_euler
# _fmi3.fmu) at macro steps that are multiples of its step, where the identified model is
# exact, against cosa point on the black-box network itself.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
pair() { fmu_twomass "$1" pair 0.1 "$2" "$3"; } # FILE FMU_I FMU_II
pair "$tmp/decl.cosa" twomass1_fmi3.fmu twomass2_fmi3.fmu
pair "$tmp/bb.cosa" twomass1_fmi3.fmu twomass2_hid_fmi3.fmu
pair "$tmp/euler.cosa" twomass1_fmi3.fmu twomass2_euler_fmi3.fmu
"$COSA" limit --model-file "$tmp/decl.cosa" --scheme zoh --criterion stable >"$tmp/ld" 2>/dev/null
"$COSA" limit --model-file "$tmp/bb.cosa" --scheme zoh --criterion stable >"$tmp/lb" 2>/dev/null
L=$(val dt_max "$tmp/ld")
Lb=$(val dt_max "$tmp/lb")
# the black box's predicted limit: the truth's within the limit's bisection (1e-6 relative)
# and the identification's fit (its relative error, below 1e-4 for these FMUs)
awk -v a="$L" -v b="$Lb" 'BEGIN { d = (a - b) / a; exit !(a > 0 && (d < 0 ? -d : d) <= 1e-4) }' &&
    ok || bad "predicted limits: black box $Lb, declared twin $L"
# growth exponent of s1 between the windows, over 1000 log rho: FILE RHO
exponent() {
    awk -F, -v rho="$2" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == "y.I.s1") c = i; h = 1; n = -1; next }
        { n++; a = $c < 0 ? -$c : $c
          if (n >= 300 && n < 500 && a > e) e = a
          if (n >= 1300 && n < 1500 && a > l) l = a }
        END { printf "%.6f\n", log(l / e) / (1000 * log(rho)) }' "$1"
}
# MODEL RUN_MODEL DT WHAT
check() {
    "$COSA" point --model-file "$1" --scheme zoh --dt "$3" >"$tmp/p" 2>/dev/null
    rho=$(val rho "$tmp/p")
    tend=$(awk -v h="$3" 'BEGIN { printf "%.17g", 1500 * h }')
    rm -rf "$tmp/o"
    "$COSA" simulate --model-file "$2" --scheme zoh --dt "$3" --tend "$tend" --ref none \
        -o "$tmp/o" --name run >"$tmp/s" 2>/dev/null || bad "$4: simulate exit $?"
    [ "$(val steps "$tmp/s")" = 1500 ] || bad "$4: $(val status "$tmp/s")"
    x=$(exponent "$tmp/o/run.csv" "$rho")
    awk -v x="$x" 'BEGIN { exit !(x > 0.95 && x < 1.05) }' && ok ||
        bad "$4: dt $3 rho $rho: growth exponent $x x 1000 log rho"
    echo "$4: dt $3 rho $rho exponent $x"
}
below=$(awk -v L="$L" 'BEGIN { printf "%.17g", 0.9 * L }')
above=$(awk -v L="$L" 'BEGIN { printf "%.17g", 1.1 * L }')
check "$tmp/decl.cosa" "$tmp/bb.cosa" "$below" "black box at 0.9 L"
check "$tmp/decl.cosa" "$tmp/bb.cosa" "$above" "black box at 1.1 L"
awk -v r="$(val rho "$tmp/p")" 'BEGIN { exit !(r > 1) }' && ok || bad "rho at 1.1 L not above 1"
# the fixed-step black box: its own predicted limit, steps that are multiples of 1e-5 around it
"$COSA" limit --model-file "$tmp/euler.cosa" --scheme zoh --criterion stable >"$tmp/le" 2>/dev/null
Le=$(val dt_max "$tmp/le")
be=$(awk -v L="$Le" 'BEGIN { printf "%.17g", int(0.9 * L / 1e-5 + 0.5) * 1e-5 }')
ae=$(awk -v L="$Le" 'BEGIN { printf "%.17g", int(1.1 * L / 1e-5 + 0.5) * 1e-5 }')
check "$tmp/euler.cosa" "$tmp/euler.cosa" "$be" "Euler black box at 0.9 L"
check "$tmp/euler.cosa" "$tmp/euler.cosa" "$ae" "Euler black box at 1.1 L"
fmu_env_done test_blackbox_limit
