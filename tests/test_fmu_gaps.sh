#!/bin/sh
# test_fmu_gaps.sh -- what third-party FMUs exposed (README "FMU import"), each with
# cosa's own test FMUs (tests/fmu/gain_fmu.c, tests/fmu/twomass_fmu.c variants):
# intermediate update declared but never requested, FMUs without continuous states,
# resources, fmu-info's full variable list, CSV columns named by subsystem, --outputs
# and --output-interval, DefaultExperiment, --fmu-log and Warning, lastSuccessfulTime.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
# e_global of two runs' outputs: relative difference within $3
ecmp() { # FILE-A FILE-B BOUND
    awk -v b="$3" 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= b * e[2]) }' "$1" "$2"
}
# the two-mass oscillator (FMI $1.0) with subsystem II replaced by $2 (without .fmu)
pair() { # VERSION II-FMU
    fmu_twomass - pair 0.3 "twomass1_fmi$1.fmu" "$2.fmu"
}
# the oscillator with a gain between I.s1 and II.s1: the FMU $2 (no tend line: $3), or the
# matrix subsystem y = K u (D = [ K ]) when $2 is "matrix K"
gainnet() { # VERSION GAIN [TEND]
    echo "model gainnet"
    [ -n "${3:-}" ] && echo "tend $3"
    echo "fmu I = $FMU/twomass1_fmi$1.fmu"
    case $2 in
    matrix*) printf 'subsystem G\n  states\n  inputs u\n  outputs y\n  D = [ %s ]\nend\n' "${2#matrix }" ;;
    *) echo "fmu G = $FMU/$2.fmu" ;;
    esac
    cat <<END
fmu II = $FMU/twomass2_fmi$1.fmu
connect I.s1 -> G.u
connect G.y -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}

# ---- 1. intermediate update declared, never requested (the Reference FMUs' framework) -----
pair 3 twomass2_norefresh_fmi3 >"$tmp/norefresh.cosa"
pair 3 twomass2_fmi3 >"$tmp/pair3.cosa"
for s in foh soh+mbcorr gs:foh; do
    "$COSA" simulate --model-file "$tmp/norefresh.cosa" --scheme $s --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^cosa: simulate: co-simulation failed: FMU II: declares intermediate update but never asked for its inputs during fmi3DoStep at t = .*use zoh or p0$" "$tmp/err" &&
        ok || bad "never-requesting FMU, $s: exit $rc, $(cat "$tmp/err")"
done
# ZOH needs no intermediate update: the same run as the requesting FMU's, e_global equal
# (the held input is set before the step either way)
"$COSA" simulate --model-file "$tmp/norefresh.cosa" --scheme zoh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/pair3.cosa" --scheme zoh --dt 1e-3 >"$tmp/b" &&
    [ "$(grep '^e_global' "$tmp/a")" = "$(grep '^e_global' "$tmp/b")" ] &&
    ok || bad "never-requesting FMU, zoh: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"

# ---- 2. an FMU without continuous states (a gain y = k u) ---------------------------------
# against the same network with a matrix subsystem y = 1 u in its place: point prints the
# same numbers digit for digit (the FMU's D by central differences of a linear function is
# exactly 1); simulate's e_global within 1e-8 relative: the gain FMU has no directional
# derivatives, so MBCorr takes its gains by central differences through its state, whose
# relative error ~ eps^(2/3) = 4e-11 per entry reaches e_global amplified by the
# correction (measured: equal for ZOH, 6e-12 for SOH+MBCorr FMI 3.0, 1.5e-10 FMI 2.0)
gainnet 3 "matrix 1" 0.3 >"$tmp/gm.cosa"
for v in 3 2; do
    gainnet $v gain_fmi$v 0.3 >"$tmp/g$v.cosa"
    "$COSA" point --model-file "$tmp/g$v.cosa" --scheme foh+mbcorr --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" point --model-file "$tmp/gm.cosa" --scheme foh+mbcorr --dt 1e-3 >"$tmp/b" &&
        cmp -s "$tmp/a" "$tmp/b" && ok || bad "point with a stateless FMU (FMI $v): $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b")"
    for s in zoh foh soh+mbcorr gs:foh; do
        "$COSA" simulate --model-file "$tmp/g$v.cosa" --scheme $s --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
            "$COSA" simulate --model-file "$tmp/gm.cosa" --scheme $s --dt 1e-4 >"$tmp/b" &&
            ecmp "$tmp/a" "$tmp/b" 1e-8 && ok ||
            bad "simulate with a stateless FMU (FMI $v, $s): $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
    done
done
"$COSA" linearize --model-file "$tmp/g3.cosa" -o "$tmp/lin.cosa" >/dev/null 2>"$tmp/err" &&
    sed -n '/^subsystem G/,/^end/p' "$tmp/lin.cosa" | grep -q '^  D = eye$' && ok ||
    bad "linearize a stateless FMU: $(cat "$tmp/err")"

# ---- 3. resources: the gain read from resources/gain.txt (2) at instantiation -------------
gainnet 3 "matrix 2" 0.3 >"$tmp/gm2.cosa"
for v in 3 2; do
    gainnet $v gainres_fmi$v 0.3 >"$tmp/r$v.cosa"
    "$COSA" simulate --model-file "$tmp/r$v.cosa" --scheme foh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model-file "$tmp/gm2.cosa" --scheme foh --dt 1e-4 >"$tmp/b" &&
        ecmp "$tmp/a" "$tmp/b" 1e-8 && ok || bad "resources FMI $v: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
done
# the same binary without resources/ in the archive: it cannot instantiate, one line
gainnet 3 gainres_nores_fmi3 0.3 >"$tmp/nores.cosa"
"$COSA" simulate --model-file "$tmp/nores.cosa" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "nores.cosa:4: fmu G: .*fmi3InstantiateCoSimulation returned NULL; it logged: gain FMU: cannot read gain.txt from its resources$" "$tmp/err" &&
    ok || bad "FMU without its resources: exit $rc, $(cat "$tmp/err")"

# ---- 4. fmu-info lists every variable, marks the unused ones, shows the --set names -------
"$COSA" fmu-info --name G "$FMU/gain_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" && ok || bad "fmu-info gain: $(cat "$tmp/err")"
cat >"$tmp/want" <<'END'
fmi 3.0
model gain
identifier gain
capabilities get-set-state intermediate-update variable-step
default-experiment start=0 stop=0.2
input      u                    vr=1 start=0
output     y                    vr=2
parameter  gain.k               vr=3 start=1 set=G.gain_k
unused     uhold                vr=6 (discrete output: cosa couples continuous inputs and outputs only)
unused     time                 vr=0 (independent: the time)
unused     count                vr=4 (discrete Int32 output: cosa reads Float64 variables only)
unused     on                   vr=5 (fixed Boolean parameter: cosa reads Float64 variables only)
END
cmp -s "$tmp/out" "$tmp/want" && ok || bad "fmu-info gain: $(diff "$tmp/want" "$tmp/out")"
"$COSA" fmu-info "$FMU/gain_fmi2.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^unused     count *vr=4 (discrete Integer output: cosa reads Real variables only)$' "$tmp/out" &&
    grep -q '^unused     on *vr=5 (fixed Boolean parameter: cosa reads Real variables only)$' "$tmp/out" &&
    ok || bad "fmu-info gain FMI 2.0: $(cat "$tmp/out" "$tmp/err")"
"$COSA" fmu-info "$FMU/twomass1_extra_fmi3.fmu" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^unused     M *vr=21 (fixed Float64 array parameter: cosa reads scalar variables only)$' "$tmp/out" &&
    ok || bad "fmu-info array parameter: $(cat "$tmp/out" "$tmp/err")"
# every set= name is a model parameter of the model file ('cosa models' lists it)
"$COSA" models --model-file "$tmp/g3.cosa" >"$tmp/models" 2>"$tmp/err"
n=0
for sub in I G II; do
    f=twomass1_fmi3
    [ $sub = G ] && f=gain_fmi3
    [ $sub = II ] && f=twomass2_fmi3
    for p in $("$COSA" fmu-info --name $sub "$FMU/$f.fmu" | sed -n 's/.* set=\([^ ]*\).*/\1/p'); do
        n=$((n + 1))
        grep -q "^  $p " "$tmp/models" || bad "fmu-info's $p is not a parameter of the model file"
    done
done
[ "$n" = 13 ] && ok || bad "fmu-info set= names: $n, expected 13 (3 + 2 states for I, 1 for G, 5 + 2 for II)"

# ---- 5. CSV columns named by subsystem; --ref reads them ----------------------------------
# two gains G1, G2 with an output y each (s1 and v1 from I to II), and a third, H, whose
# output is connected nowhere
cat >"$tmp/two.cosa" <<END
model twogains
tend 0.3
fmu I = $FMU/twomass1_fmi3.fmu
fmu G1 = $FMU/gain_fmi3.fmu
fmu G2 = $FMU/gain_fmi3.fmu
fmu H = $FMU/gain_fmi3.fmu
fmu II = $FMU/twomass2_fmi3.fmu
connect I.s1 -> G1.u, H.u
connect G1.y -> II.s1
connect I.v1 -> G2.u
connect G2.y -> II.v1
connect II.Fk -> I.Fk
END
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-4 -o "$tmp/o" --name z >"$tmp/a" 2>"$tmp/err" &&
    grep -v '^#' "$tmp/o/z.csv" | head -1 >"$tmp/h" &&
    [ "$(cat "$tmp/h")" = "t,u.I.Fk,u.G1.u,u.G2.u,u.H.u,u.II.s1,u.II.v1,y.I.s1,y.I.v1,y.G1.y,y.G2.y,y.H.y,y.II.Fk,ybar.I.s1,ybar.I.v1,ybar.G1.y,ybar.G2.y,ybar.H.y,ybar.II.Fk,du.I.Fk,du.G1.u,du.G2.u,du.H.u,du.II.s1,du.II.v1,ref.I.s1,ref.I.v1,ref.G1.y,ref.G2.y,ref.H.y,ref.II.Fk" ] &&
    ok || bad "qualified CSV columns: $(cat "$tmp/h" "$tmp/err")"
# the file as the reference of the same run (ZOH starts at t = 0, the states from the
# model): its ref.SUB.NAME columns at every macro point are the exact reference printed
# with 17 digits, so e_global agrees to rounding (bound 1e-12 relative)
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-4 --ref "$tmp/o/z.csv" >"$tmp/b" 2>"$tmp/err" &&
    ecmp "$tmp/b" "$tmp/a" 1e-12 && ok || bad "--ref with qualified columns: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
# an old unqualified name is accepted where it is unique (s1, v1, Fk), refused where not (y)
grep -v '^#' "$tmp/o/z.csv" | awk -F, 'NR == 1 { print "t,s1,ref.v1,Fk"; next } { print $1 "," $26 "," $27 "," $31 }' >"$tmp/old.csv"
"$COSA" simulate --model-file "$tmp/pair3.cosa" --scheme zoh --dt 1e-4 --ref "$tmp/old.csv" >"$tmp/b" 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/pair3.cosa" --scheme zoh --dt 1e-4 >"$tmp/c" &&
    ecmp "$tmp/b" "$tmp/c" 1e-12 && ok || bad "--ref with the old names: $(grep e_global "$tmp/b" "$tmp/c") $(cat "$tmp/err")"
grep -v '^#' "$tmp/o/z.csv" | sed '1s/ref\.G1\.y/ref.y/; 1s/ref\.G2\.y/y/' >"$tmp/amb.csv"
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-4 --ref "$tmp/amb.csv" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "no column for output 'y' of G1 (named 'ref.G1.y' or 'G1.y'" "$tmp/err" &&
    ok || bad "--ref with an ambiguous old name: $(cat "$tmp/err")"

# ---- 6. --outputs and --output-interval -------------------------------------------------------
# the unconnected output H.y, the input I.Fk and the state I.s, every 50th macro point (and
# the last): 0, 50, ..., 3000 of 3000 steps -> 61 rows
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-4 -o "$tmp/o" --name s \
    --outputs H.y,I.Fk,x.I.s --output-interval 5e-3 >/dev/null 2>"$tmp/err" &&
    grep -v '^#' "$tmp/o/s.csv" >"$tmp/s" && [ "$(head -1 "$tmp/s")" = "t,u.I.Fk,y.H.y,ybar.H.y,du.I.Fk,ref.H.y,x.I.s" ] &&
    [ "$(wc -l <"$tmp/s")" = 62 ] && ok || bad "--outputs/--output-interval: $(head -2 "$tmp/s") $(cat "$tmp/err")"
# identities with the full file: H holds I.s1 of the step's start (ZOH, gain 1), so y.H.y at
# t_n is y.I.s1 at t_(n-1); I's state s is its output s1; the rows are those at the same
# times (all numbers exact copies: compared as strings)
grep -v '^#' "$tmp/o/z.csv" | awk -F, 'NR > 1 { n = NR - 2; s1[n] = $8; u[n] = $2; t[n] = $1 }
    END { for (k = 0; k <= n; k++) if (k % 50 == 0 || k == n)
        print t[k] "," u[k] "," (k ? s1[k - 1] : "?") "," s1[k] }' >"$tmp/want"
awk -F, 'NR > 1 { print $1 "," $2 "," (NR > 2 ? $3 : "?") "," $7 }' "$tmp/s" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" && ok || bad "--outputs values: $(diff "$tmp/want" "$tmp/got" | head -4)"
for case in "G1.count|no output, input or state called 'G1.count'" "y|'y' names entries of several subsystems"; do
    item=${case%%|*}
    want=${case#*|}
    "$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-3 -o "$tmp/o" --name e --outputs "$item" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/o/e.csv" ] &&
        grep -q "^cosa: simulate: --outputs: $want" "$tmp/err" && ok || bad "--outputs $item: exit $rc, $(cat "$tmp/err")"
done
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-3 -o "$tmp/o" --name e --output-interval 1.5e-3 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'output-interval 1.5e-3 is not a whole multiple of --dt 0.001' "$tmp/err" && ok ||
    bad "--output-interval not a multiple: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/two.cosa" --scheme zoh --dt 1e-3 --outputs I.s1 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'no trajectory file to write' "$tmp/err" && ok || bad "--outputs without -o: $(cat "$tmp/err")"

# ---- 7. DefaultExperiment: stopTime as the horizon when the file gives none; a note past it ---
gainnet 3 gain_fmi3 >"$tmp/notend.cosa"
"$COSA" simulate --model-file "$tmp/notend.cosa" --scheme zoh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
    grep -q '^tend 0.2$' "$tmp/a" && grep -q '^steps 200$' "$tmp/a" && [ ! -s "$tmp/err" ] &&
    ok || bad "DefaultExperiment stopTime as tend: $(grep -E '^(tend|steps)' "$tmp/a") $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/g3.cosa" --scheme foh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
    [ "$(cat "$tmp/err")" = "cosa: simulate: note: the run reaches t = 0.301, past FMU G's stopTime 0.2 (DefaultExperiment)" ] &&
    ok || bad "a note past stopTime: $(cat "$tmp/err")"

# ---- 8. --fmu-log; a Warning status noted once per FMU -------------------------------------
gainnet 3 gainwarn_fmi3 0.2 >"$tmp/warn.cosa"
"$COSA" simulate --model-file "$tmp/warn.cosa" --scheme zoh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: simulate: note: FMU G: fmi3DoStep at t = 0.00[0-9]* returned Warning; it logged: gain FMU warns as configured (t = 0.01) (the first Warning; the run went on)$" "$tmp/err" &&
    ok || bad "Warning noted once: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/warn.cosa" --scheme zoh --dt 1e-3 --fmu-log >"$tmp/b" 2>"$tmp/err" &&
    grep -q '^cosa: simulate: FMU G: \[OK logEvents\] gain FMU instantiated with k = 1$' "$tmp/err" &&
    grep -q '^cosa: simulate: FMU G: \[Warning logStatusWarning\] gain FMU warns as configured (t = 0.2)$' "$tmp/err" &&
    [ "$(grep -c 'note: FMU G: .*returned Warning' "$tmp/err")" = 1 ] &&
    [ "$(grep '^e_global' "$tmp/a")" = "$(grep '^e_global' "$tmp/b")" ] &&
    ok || bad "--fmu-log: $(head -3 "$tmp/err")"

# ---- 9. lastSuccessfulTime of fmi3DoStep: t + h/2 without an early return, t + 2h ---------
gainnet 3 gainshort_fmi3 0.3 >"$tmp/short.cosa"
"$COSA" simulate --model-file "$tmp/short.cosa" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
rc=$?
# (a black box now: its reference is the fine co-simulation, which first
# halves its factor once with a note -- doc/fixed-step-fmus.md -- and then
# fails the same way at dt)
[ "$rc" = 1 ] && [ "$(grep -vc '^cosa: simulate: note: an FMU did not advance over the fine step' "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^cosa: simulate: \(co-simulation\|the fine reference\) failed: FMU G: fmi3DoStep from t = .* over .* returned no early return but did not advance to t' = .* (lastSuccessfulTime = .*)$" "$tmp/err" &&
    ok || bad "lastSuccessfulTime: exit $rc, $(cat "$tmp/err")"
gainnet 3 gainover_fmi3 0.3 >"$tmp/over.cosa"
fails_with 1 "^cosa: simulate: \(co-simulation\|the fine reference\) failed: FMU G: fmi3DoStep from t = .* returned lastSuccessfulTime = .*, after t + h = .* (an overshoot)$" "lastSuccessfulTime overshoot" \
    "$COSA" simulate --model-file "$tmp/over.cosa" --scheme zoh --dt 1e-3

# the resources FMU with logging under valgrind: no invalid access, no leak
if command -v valgrind >/dev/null 2>&1 && ! ldd "$COSA" 2>/dev/null | grep -q libasan &&
    [ -z "${OPENBLAS_CORETYPE:-}" ] && [ -z "${LD_PRELOAD:-}" ]; then
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
        "$COSA" simulate --model-file "$tmp/r2.cosa" --scheme foh --dt 1e-3 --tend 0.01 --fmu-log \
        -o "$tmp/o" --name vg --outputs G.y,x.I.s >/dev/null 2>"$tmp/vg"
    [ $? = 0 ] && ! grep -q '==' "$tmp/vg" && ok || bad "valgrind: $(head -5 "$tmp/vg")"
else
    echo "note: valgrind not usable here: its run is skipped"
fi
fmu_env_done test_fmu_gaps.sh
