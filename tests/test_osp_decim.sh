#!/bin/sh
# test_osp_decim.sh -- libcosim's fixedStep with decimation (a Simulator's
# stepSize = k BaseStepSize; doc/osp.md) on the two-mass pair of make check
# (FMI 2.0), against runs that do not decimate:
#  - stepSize = BaseStepSize on both (k = 1, the decimating loop): the same
#    CSV as the file without stepSize (the ECCO loop at a fixed step), bit
#    for bit;
#  - stepSize = 2 BaseStepSize on both: at the even points the run at
#    BaseStepSize 2H, bit for bit; the odd points hold the even ones;
#  - II at k = 2: the printed factor, II's FMU steps (half of I's), its
#    outputs held at the odd points, I's input Fk held over two points;
#  - a stepSize that is not a whole multiple (of BaseStepSize, or of --dt)
#    is one line, exit 2; under ECCO stepSize is a note (libcosim's ecco
#    ignores it) and the run is the one without it.
# The hand-built schedule of decimated units (lcm transfers) is
# tests/test_osp_fixed.c.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
cp "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" "$tmp/" || { echo "FAIL: no test FMUs"; exit 1; }
# osp FILE BASE STEP_I STEP_II [ALGORITHM]
osp() { osp_twomass "$1" "$2" 0.2 "${5:-fixedStep}" twomass2_fmi2.fmu "$3" "$4" 1e6; }
run() { # NAME FILE [ARGS]: simulate into $tmp/NAME.out, $tmp/o/NAME.csv
    n=$1 f=$2
    shift 2
    "$COSA" simulate --model-file "$f" -o "$tmp/o" --name "$n" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err" ||
        bad "$n: exit $?: $(head -n 3 "$tmp/$n.err")"
}
osp "$tmp/plain.xml" 0.001 "" ""
osp "$tmp/k1.xml" 0.001 'stepSize="0.001"' 'stepSize="0.001"'
osp "$tmp/all2.xml" 0.001 'stepSize="0.002"' 'stepSize="0.002"'
osp "$tmp/wide.xml" 0.002 "" ""
osp "$tmp/k2.xml" 0.001 "" 'stepSize="0.002"'
osp "$tmp/zero.xml" 0.001 'stepSize="0"' "" # libcosim: 0 is every base step
for n in plain k1 all2 wide k2 zero; do run $n "$tmp/$n.xml"; done

# k = 1 through the decimating loop: the same numbers as before, to the bit
cmp -s "$tmp/o/plain.csv" "$tmp/o/k1.csv" && ok || bad "k = 1: $(diff "$tmp/o/plain.csv" "$tmp/o/k1.csv" | head -n 4)"
cmp -s "$tmp/o/plain.csv" "$tmp/o/zero.csv" && ok || bad "stepSize 0: $(diff "$tmp/o/plain.csv" "$tmp/o/zero.csv" | head -n 4)"
grep -v '^file ' "$tmp/plain.out" >"$tmp/plain.lines"
grep -v '^file ' "$tmp/k1.out" >"$tmp/k1.lines"
cmp -s "$tmp/plain.lines" "$tmp/k1.lines" && ok || bad "k = 1 lines: $(diff "$tmp/plain.lines" "$tmp/k1.lines" | head -n 4)"

# every k = 2 at H: the run at 2H at the even points (t and outputs as text), the odd
# points the even ones before them
awk -F, 'NR == FNR { if ($1 !~ /^[#t]/) w[m++] = $1 "," $4 "," $5 "," $6; next }
    $1 ~ /^[#t]/ { next }
    { r = (n % 2 == 0 ? $1 : prev_t) "," $4 "," $5 "," $6
      if (n % 2 == 0) prev_t = $1
      if (r != w[int(n / 2)]) { print "point", n, r, "vs", w[int(n / 2)]; bad = 1; exit }
      n++ }
    END { if (n != 201 || m != 101) { print "points", n, m; bad = 1 }; exit bad }' \
    "$tmp/o/wide.csv" "$tmp/o/all2.csv" >"$tmp/all2.cmp" && ok || bad "every k = 2: $(cat "$tmp/all2.cmp")"

# II at k = 2: its factor, its FMU steps, held outputs (columns t,h,err,I.s1,I.v1,II.Fk)
grep -qx 'decimation II 2' "$tmp/k2.out" && grep -qx 'steps 200' "$tmp/k2.out" &&
    grep -q '^unit I steps 200 ' "$tmp/k2.out" && grep -q '^unit II steps 100 ' "$tmp/k2.out" && ok ||
    bad "k = 2 lines: $(cat "$tmp/k2.out")"
awk -F, '$1 ~ /^[#t]/ { next }
    { if (n % 2 == 1 && $6 != F) { print "II.Fk moved at the odd point", n; bad = 1 }
      if (n % 2 == 0) F = $6; n++ }
    END { exit bad + (n != 201) }' "$tmp/o/k2.csv" >"$tmp/k2.cmp" && ok || bad "k = 2 held: $(cat "$tmp/k2.cmp")"
# I's second step saw II.Fk of t = 0 (held over two points): I's state at 0.002 differs
# from the k = 1 run's, while the first point is the same
[ "$(sed -n 4p "$tmp/o/k2.csv")" = "$(sed -n 4p "$tmp/o/plain.csv" | cut -d, -f1-5),$(sed -n 3p "$tmp/o/k2.csv" | cut -d, -f6)" ] &&
    [ "$(sed -n 5p "$tmp/o/k2.csv" | cut -d, -f4)" != "$(sed -n 5p "$tmp/o/plain.csv" | cut -d, -f4)" ] && ok ||
    bad "k = 2 first points: $(sed -n 3,5p "$tmp/o/k2.csv") vs $(sed -n 3,5p "$tmp/o/plain.csv")"

one_line() { # NAME ARGS...: exit 2 and one line on stderr, matching $WANT
    name=$1
    shift
    "$COSA" "$@" >"$tmp/h.out" 2>"$tmp/h.err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/h.err")" = 1 ] && grep -q "$WANT" "$tmp/h.err" && ok ||
        bad "$name: exit $rc, stderr: $(head -n 3 "$tmp/h.err")"
}
osp "$tmp/frac.xml" 0.001 'stepSize="0.0015"' ""
WANT="frac.xml:7: Simulator 'I' stepSize=0.0015: not a whole multiple of BaseStepSize 0.001 (in whole nanoseconds)$" \
    one_line fraction simulate --model-file "$tmp/frac.xml"
osp "$tmp/small.xml" 0.001 'stepSize="0.0005"' ""
WANT="Simulator 'I' stepSize=0.0005: not a whole multiple" one_line smaller simulate --model-file "$tmp/small.xml"
WANT="^cosa: simulate: Simulator 'II' stepSize=0.002: not a whole multiple of the base step 0.0015$" \
    one_line dt simulate --model-file "$tmp/k2.xml" --dt 0.0015
# --dt 0.0005: II at k = 4
run dt4 "$tmp/k2.xml" --dt 0.0005
grep -qx 'decimation II 4' "$tmp/dt4.out" && grep -q '^unit II steps 100 ' "$tmp/dt4.out" && ok ||
    bad "--dt 0.0005: $(cat "$tmp/dt4.out")"

# ECCO: libcosim's ecco steps every simulator at its step; stepSize is a note
osp "$tmp/ecco.xml" 0.001 "" "" ecco
osp "$tmp/ecco2.xml" 0.001 "" 'stepSize="0.002"' ecco
run ecco "$tmp/ecco.xml" --tend 0.02
run ecco2 "$tmp/ecco2.xml" --tend 0.02
grep -qx "cosa: simulate: note: Simulator 'II' stepSize=0.002: ECCO steps every simulator at its own step (libcosim's ecco ignores stepSize)" "$tmp/ecco2.err" &&
    [ "$(wc -l <"$tmp/ecco2.err")" = 1 ] && ok || bad "ECCO note: $(cat "$tmp/ecco2.err")"
tail -n +2 "$tmp/o/ecco.csv" >"$tmp/e1"
tail -n +2 "$tmp/o/ecco2.csv" >"$tmp/e2"
cmp -s "$tmp/e1" "$tmp/e2" && ok || bad "ECCO with stepSize: $(diff "$tmp/e1" "$tmp/e2" | head -n 4)"
fmu_env_done test_osp_decim.sh
