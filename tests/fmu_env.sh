# fmu_env.sh -- sourced by the shell tests that run cosa on the test FMUs of
# make check (test_fmu_cli.sh, test_fmu_gaps.sh, test_fmu_analysis.sh,
# test_ssp.sh): COSA and FMU, skip (77) off x86_64 (the test FMUs are built for
# x86_64-linux), a scratch directory removed at exit, TMPDIR inside it (so a
# test can check that cosa leaves nothing behind), the ok/bad counters and
# fmu_env_done NAME, the closing line and status; val KEY FILE, the value of
# a "KEY value" line; fmu_gainnet FILE TEND [GAIN [NAME]], the two-mass FMUs
# with a gain between them (default: the smoothness-1 gain FMU); and the
# helpers of harness.sh (fmu_twomass among them).
COSA=${COSA:-analysis/cosa}
FMU=${COSA_FMUDIR:-tests/fmu}
[ "$(uname -m)" = x86_64 ] || { echo "skip - the test FMUs are built for x86_64-linux"; exit 77; }
# the shared helpers: ok, bad, check, expect_exit, harness_done, $tmp
. "$(dirname "$0")/harness.sh"
TMPDIR=$tmp/t
export TMPDIR
mkdir -p "$TMPDIR"
# nothing left in TMPDIR, then "NAME: N passed, M failed" and the status
fmu_env_done() {
    [ -z "$(ls -A "$TMPDIR")" ] && ok || bad "left in TMPDIR: $(ls -A "$TMPDIR")"
    harness_done "$1"
}
# the value of the line "KEY value" of FILE
val() { sed -n "s/^$1 //p" "$2"; }
# FILE TEND [GAIN [NAME]]: the two-mass FMUs I, II with the gain FMU file GAIN
# (default: G with recommendedIntermediateInputSmoothness = 1) on the coupling
# I.s1 -> II.s1, "model NAME" (default gainnet), horizon TEND
fmu_gainnet() {
    cat >"$1" <<END
model ${4:-gainnet}
tend $2
fmu I = $FMU/twomass1_fmi3.fmu
fmu G = $FMU/${3:-gainsmooth_fmi3.fmu}
fmu II = $FMU/twomass2_fmi3.fmu
connect I.s1 -> G.u
connect G.y -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}
