#!/bin/sh
# test_simulate.sh -- `cosa simulate` and `cosa table --table 4`: output
# lines, files, divergence as a result, agreement with `cosa point`, and
# one-line errors with exit code 2 for bad input.
. "$(dirname "$0")/harness.sh"

value() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/out"; }

expect_exit 0 "$COSA" simulate --help
grep -q '^Usage: cosa simulate' "$tmp/out" && ok || bad "simulate --help has no usage line"

# a nonlinear run: status, e_global, steps; no files without -o / --plot
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$COSA" simulate --model twomass-nl --set nd=1.5 --scheme zoh+mbcorr \
    --dt 1e-3 --tend 0.05) >"$tmp/out" 2>"$tmp/err" && ok || bad "simulate twomass-nl failed: $(cat "$tmp/err")"
[ "$(value status)" = ok ] && ok || bad "status: $(cat "$tmp/out")"
[ "$(value steps)" = 50 ] && ok || bad "steps: $(value steps)"
awk '$1 == "e_global" { exit !($2 + 0 > 0 && $2 + 0 < 10) }' "$tmp/out" && ok || bad "e_global: $(value e_global)"
[ -z "$(ls "$tmp/cwd")" ] && ok || bad "simulate wrote files without -o: $(ls "$tmp/cwd")"

# divergence is a result: exit 0, status diverged t=..., e_global inf
expect_exit 0 "$COSA" simulate --model twomass-nl --set nd=2 --scheme zoh --dt 1e-3 --tend 0.2
grep -Eq '^status diverged t=0\.[0-9]+$' "$tmp/out" && ok || bad "no divergence status: $(cat "$tmp/out")"
[ "$(value e_global)" = inf ] && ok || bad "diverged e_global: $(value e_global)"

# a linear model with the exact integrator reproduces cosa point's e_global
expect_exit 0 "$COSA" simulate --model twomass --scheme foh+mbcorr --dt 1e-3
e1=$(value e_global)
expect_exit 0 "$COSA" point --model twomass --scheme foh+mbcorr --dt 1e-3
e2=$(value e_global)
awk -v a="$e1" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-10 * b) }' &&
    ok || bad "simulate e_global $e1 vs point $e2"
# ... and the same scheme through CVODE units agrees to 1e-6
expect_exit 0 "$COSA" simulate --model twomass --scheme foh+mbcorr --dt 1e-3 --integrator cvode
e3=$(value e_global)
awk -v a="$e3" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * b) }' &&
    ok || bad "simulate (cvode) e_global $e3 vs point $e2"

# a model file with a pure-gain subsystem (no states): the exact integrator
# runs and agrees with cosa point, and with rk4
cat >"$tmp/gain.cosa" <<EOF_MODEL
model plantgain
tend 0.5
param k = 100
initial s0 = 1
subsystem P
  states s v
  inputs F
  outputs s v
  A = [ 0, 1; -k, -1 ]
  B = [ 0; 1 ]
  C = eye
  D = zeros
  x0 = [ s0; 0 ]
end
$(model_sub K '' 's v' F 'D=-3, -0.5')
connect P.s -> K.s
connect P.v -> K.v
connect K.F -> P.F
EOF_MODEL
for sc in zoh foh+mbcorr; do
    expect_exit 0 "$COSA" point --model-file "$tmp/gain.cosa" --scheme $sc --dt 1e-2
    e2=$(value e_global)
    for integ in exact rk4; do
        expect_exit 0 "$COSA" simulate --model-file "$tmp/gain.cosa" --scheme $sc --dt 1e-2 \
            --integrator $integ
        e1=$(value e_global)
        awk -v a="$e1" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-7 * b) }' &&
            ok || bad "pure gain, $sc, $integ: simulate e_global $e1 vs point $e2"
    done
done

# imperfect model knowledge: with --assume the master uses the assumed model's matrices as
# fixed Jacobians; on exact units (twomass) that is Phi with the assumed model, so e_global
# agrees with `cosa point --assume` as the runs without --assume above do (1e-10 relative:
# both routes are exact up to rounding, measured ~1e-15; the mismatch itself changes
# e_global by far more, checked below), and through CVODE units to 1e-6 as above
for sc in foh+mbcorr zoh+ocorr p2+mbcorr; do
    expect_exit 0 "$COSA" point --model twomass --scheme $sc --dt 1e-3 --assume ck=4e5 --assume dk=300
    e2=$(value e_global)
    expect_exit 0 "$COSA" point --model twomass --scheme $sc --dt 1e-3
    e0=$(value e_global)
    awk -v a="$e0" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d > 1e-3 * b) }' &&
        ok || bad "$sc: the assumed model should change e_global ($e0 vs $e2)"
    expect_exit 0 "$COSA" simulate --model twomass --scheme $sc --dt 1e-3 --assume ck=4e5 --assume dk=300
    e1=$(value e_global)
    awk -v a="$e1" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-10 * b) }' &&
        ok || bad "$sc --assume: simulate e_global $e1 vs point $e2"
    grep -q '^assume ck 400000$' "$tmp/out" && grep -q '^assume dk 300$' "$tmp/out" && ok ||
        bad "simulate should print the assumed values: $(head -4 "$tmp/out")"
done
expect_exit 0 "$COSA" simulate --model twomass --scheme foh+mbcorr --dt 1e-3 --integrator cvode \
    --assume ck=4e5 --assume dk=300
e3=$(value e_global)
expect_exit 0 "$COSA" point --model twomass --scheme foh+mbcorr --dt 1e-3 --assume ck=4e5 --assume dk=300
e2=$(value e_global)
awk -v a="$e3" -v b="$e2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * b) }' &&
    ok || bad "simulate (cvode) --assume e_global $e3 vs point $e2"
# --assume at the true values: the output without --assume plus the assume line; CSV header
"$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-3 -o "$tmp/as0" --name s >"$tmp/a" 2>&1
"$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-3 --assume m2=10 -o "$tmp/as1" --name s \
    >"$tmp/b" 2>&1
grep -v '^assume m2 10$' "$tmp/b" | sed "s|$tmp/as1|$tmp/as0|" >"$tmp/c"
cmp -s "$tmp/a" "$tmp/c" && ok || bad "simulate --assume at the true values: $(diff "$tmp/a" "$tmp/c" | head -4)"
grep -v '^# assume m2 10$' "$tmp/as1/s.csv" | cmp -s - "$tmp/as0/s.csv" && grep -q '^# assume m2 10$' "$tmp/as1/s.csv" &&
    ok || bad "simulate CSV with --assume at the true values"
# the plain scheme: a note, exit 0, the run unchanged
"$COSA" simulate --model twomass --scheme foh --dt 1e-3 --assume ck=4e5 >"$tmp/b" 2>"$tmp/err"
"$COSA" simulate --model twomass --scheme foh --dt 1e-3 >"$tmp/a"
[ "$(awk '$1 == "e_global"' "$tmp/a")" = "$(awk '$1 == "e_global"' "$tmp/b")" ] &&
    grep -qxF 'cosa: simulate: note: --assume has no effect on FOH (no output correction)' "$tmp/err" &&
    ok || bad "simulate plain FOH with --assume: $(cat "$tmp/err")"
# a model without a linear form has no fixed Jacobians to assume: one line, exit 2
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh+mbcorr --dt 1e-3 --assume ck=1e5
grep -q '^cosa: simulate: model twomass-nl is nonlinear: --assume needs a linear form' "$tmp/err" &&
    ok || bad "simulate twomass-nl --assume: $(cat "$tmp/err")"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-3 --assume nosuch=1
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-3 --assume m1=-1

# files: CSV with a header row and steps+1 data rows, a script naming it
expect_exit 0 "$COSA" simulate --model twomass-nl --set nd=1.25 --scheme soh --dt 1e-3 \
    --tend 0.02 -o "$tmp/o" --name run
[ -f "$tmp/o/run.csv" ] && [ -f "$tmp/o/run.gp" ] && ok || bad "files missing: $(ls "$tmp/o")"
grep -q '^t,u.I.Fk,' "$tmp/o/run.csv" && ok || bad "csv header row: $(grep -v '^#' "$tmp/o/run.csv" | head -1)"
rows=$(grep -cv '^[#t]' "$tmp/o/run.csv")
[ "$rows" = 21 ] && ok || bad "csv has $rows data rows, expected 21"
grep -q 'f     = "run.csv"' "$tmp/o/run.gp" && ok || bad "script does not name run.csv"
if command -v gnuplot >/dev/null 2>&1; then
    expect_exit 0 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --tend 0.02 \
        -o "$tmp/o" --name pic --plot png
    [ -s "$tmp/o/pic.png" ] && ok || bad "--plot png produced no picture"
fi

# other integrators and options run
for i in rk4 euler symplectic-euler cvode-adams; do
    expect_exit 0 "$COSA" simulate --model twomass-nl --scheme foh --dt 1e-3 --tend 0.01 \
        --integrator $i --micro 1e-5
done
expect_exit 0 "$COSA" simulate --model twomass-nl --set nd=1.5 --scheme zoh+mbcorr --dt 1e-3 \
    --tend 0.01 --linearize end --fd
expect_exit 0 "$COSA" simulate --model twomass-nl --scheme gs:foh --order II,I --dt 1e-3 --tend 0.01
expect_exit 0 "$COSA" simulate --model chain --scheme gs:zoh --order 3,1,2 --dt 1e-3 --tend 0.01

# bad input: one line on stderr, exit 2
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --integrator exact
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --integrator rk5
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --rtol -1
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --linearize middle
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --set nosuch=1
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --set nd=0
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme gs:zoh+mbcorr --dt 1e-3
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme gs:zoh --order I,I --dt 1e-3
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh
expect_exit 2 "$COSA" simulate --model twomass-nl --dt 1e-3
expect_exit 2 "$COSA" simulate --model nosuch --scheme zoh --dt 1e-3
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --plot gif
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --tend 1e-5
expect_exit 2 "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 extra

# table 4 (short horizon): csv with 30 rows
expect_exit 0 "$COSA" table --paper mbcorr --table 4 --format csv --tend 0.05
[ "$(head -1 "$tmp/out")" = "scheme,nd,e_global,status,t_diverged" ] && ok || bad "table 4 csv header"
[ "$(grep -c '^[A-Z]' "$tmp/out")" = 30 ] && ok || bad "table 4 csv rows: $(wc -l <"$tmp/out")"
expect_exit 2 "$COSA" table --paper mbcorr --table 4 --set nosuch=1

# the micro step: 0 < micro <= dt, at most 1e7 micro steps per macro step
# (--micro 1e-300 used to overflow the step count: undefined behaviour, garbage)
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --integrator rk4 --micro 1e-300 --tend 0.01
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --integrator rk4 --micro 1 --tend 0.01
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --integrator rk4 --micro 1e-11 --tend 0.01
expect_exit 0 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --integrator rk4 --micro 1e-3 --tend 0.01
# --assume gives fixed Jacobians: --fd / --linearize are noted as without effect
"$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-3 --assume ck=4e5 --fd --tend 0.01 >/dev/null 2>"$tmp/err"
grep -q '^cosa: simulate: note: --fd has no effect with --assume' "$tmp/err" && ok || bad "no --fd note: $(cat "$tmp/err")"

# defects on every run (issue 12 section 5): two lines, finite for a stable run,
# e_global as before; --out-order 0..2
"$COSA" simulate --model rotational-defect --scheme foh --dt 0.01 --tend 1 >"$tmp/out" 2>"$tmp/err" &&
    ok || bad "simulate rotational-defect: $(cat "$tmp/err")"
awk '$1 == "defect_out" && $2 + 0 > 0 && $2 + 0 < 1 { o = 1 } $1 == "defect_conn" && $2 + 0 > 0 && $2 + 0 < 1 { c = 1 }
    END { exit !(o && c) }' "$tmp/out" && ok || bad "no finite defect lines: $(cat "$tmp/out")"
a=$("$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-4 --out-order 0 | awk '$1 == "e_global" { print $2 }')
b=$("$COSA" simulate --model twomass --scheme zoh+mbcorr --dt 1e-4 --out-order 2 | awk '$1 == "e_global" { print $2 }')
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "--out-order changed e_global: $a vs $b"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --out-order 3
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --out-order x

# ---- --ref FILE.csv: a reference computed elsewhere ------------------------------------
# e_global's difference to --ref auto is the references' difference over the outputs'
# spread: near rounding with samples at the macro points (the exact reference accumulates
# ~300 eps over its steps), the cubic's interpolation error between samples otherwise
egcmp() { # FILE-RUN-OUTPUT AUTO-RUN-OUTPUT RELATIVE ABSOLUTE
    awk -v rel="$3" -v abs="$4" 'FNR == 1 { f++ } $1 == "e_global" { e[f] = $2; n++ }
        END { d = e[1] - e[2]; if (d < 0) d = -d; exit !(n == 2 && e[2] > 0 && d <= rel * e[2] + abs) }' "$1" "$2"
}
# twomass, ZOH: another run's trajectory file (its ref.* columns, rows from t = 0) as the
# reference, samples at every macro point (dt/4: measured 2.6e-12 relative) and between
# them (3e-5: measured 4.5e-9 relative, bound 1e-7)
"$COSA" simulate --model twomass --scheme zoh --dt 2.5e-5 -o "$tmp/rf" --name a >/dev/null &&
    "$COSA" simulate --model twomass --scheme zoh --dt 3e-5 -o "$tmp/rf" --name b >/dev/null &&
    "$COSA" simulate --model twomass --scheme zoh --dt 1e-4 >"$tmp/auto" &&
    "$COSA" simulate --model twomass --scheme zoh --dt 1e-4 --ref "$tmp/rf/a.csv" >"$tmp/a" &&
    grep -q "^reference file $tmp/rf/a.csv (12001 samples, the states at t = 0 from the model)$" "$tmp/a" &&
    egcmp "$tmp/a" "$tmp/auto" 1e-10 0 && ok || bad "--ref a.csv: $(grep -E 'e_gl|refer' "$tmp/a" "$tmp/auto")"
"$COSA" simulate --model twomass --scheme zoh --dt 1e-4 --ref "$tmp/rf/b.csv" >"$tmp/b" &&
    egcmp "$tmp/b" "$tmp/auto" 1e-7 0 && ok || bad "--ref b.csv: $(grep -E 'e_gl' "$tmp/b" "$tmp/auto")"
# states: a one-way coupled pair in closed form (x_I = e^-t, x_II = e^-t + e^-2t; both
# states called x, so the columns are x.I.x and x.II.x), for schemes that start at t = p*dt
cat >"$tmp/oneway.cosa" <<END
model oneway
tend 0.3
$(model_sub I x u y1 A=-1 B=0 C=1 D=0 x0=1)
$(model_sub II x u y2 A=-2 B=1 C=1 D=0 x0=2)
connect I.y1 -> II.u
connect II.y2 -> I.u
END
awk -v d=0 'BEGIN { print "# x_I = e^-t, x_II = e^-t + e^-2t"; print "time,x.I.x,x.II.x,ref.y1,y2,extra";
    for (k = 0; k <= 12400; k++) { t = k * 2.5e-5; a = exp(-t); b = exp(-t) + exp(-2 * t);
        printf "%.17g,%.17g,%.17g,%.17g,%.17g,7\n", t, a, b + d, a, b } }' >"$tmp/oneway.csv"
awk -v d=1e-6 'BEGIN { print "time,x.I.x,x.II.x,ref.y1,y2";
    for (k = 0; k <= 12400; k++) { t = k * 2.5e-5; a = exp(-t); b = exp(-t) + exp(-2 * t);
        printf "%.17g,%.17g,%.17g,%.17g,%.17g\n", t, a, b + d, a, b } }' >"$tmp/oneway_off.csv"
for s in zoh foh soh+mbcorr; do
    "$COSA" simulate --model-file "$tmp/oneway.cosa" --scheme $s --dt 1e-3 --ref "$tmp/oneway.csv" >"$tmp/a" &&
        "$COSA" simulate --model-file "$tmp/oneway.cosa" --scheme $s --dt 1e-3 >"$tmp/auto" &&
        grep -q "^reference file $tmp/oneway.csv (12401 samples)$" "$tmp/a" &&
        egcmp "$tmp/a" "$tmp/auto" 1e-9 1e-12 && ok || bad "--ref oneway.csv $s: $(grep e_gl "$tmp/a" "$tmp/auto")"
done
# ... and the states are used: x_II off by 1e-6 at the start moves FOH's e_global (1.8e-7)
"$COSA" simulate --model-file "$tmp/oneway.cosa" --scheme foh --dt 1e-3 --ref "$tmp/oneway_off.csv" >"$tmp/a" &&
    ! egcmp "$tmp/a" "$tmp/auto" 1e-2 0 && ok || bad "--ref with other states: $(grep e_gl "$tmp/a" "$tmp/auto")"
# bad reference files: one line each, exit 2 (1 for a file that cannot be read)
# bad_ref NAME TEXT WANT MSG: --ref with the file NAME.csv (printf TEXT) is one line
# holding WANT, exit 2
bad_ref() {
    printf "$2" >"$tmp/$1.csv"
    expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --ref "$tmp/$1.csv"
    grep -q "$3" "$tmp/err" && ok || bad "$4: $(cat "$tmp/err")"
}
bad_ref r1 't,s1,v1\n0,0,100\n1,0,100\n' "no column for output 'Fk'" "missing output column"
bad_ref r2 'a,s1,v1,Fk\n0,0,100,0\n' "r2.csv:1: no time column" "no time column"
bad_ref r3 't,s1,v1,Fk\n0,0,100,0\n0.2,0,100,0\n0.1,0,100,0\n' "r3.csv:4: time 0.1 does not increase" "time order"
bad_ref r4 't,s1,v1,Fk\n0,0,100,0\n0.2,0,x,0\n' "r4.csv:3: column 'v1': 'x' is not a finite number" "bad number"
bad_ref r5 't,s1,v1,Fk\n0,0,100,0\n0.2,0,100\n' "r5.csv:3: 3 fields, the header (line 1) has 4" "short row"
bad_ref r6 't,s1,v1,Fk\n0,0,100,0\n0.2,0,100,0\n' "do not cover the run, 0 .. 0.3" "coverage"
expect_exit 2 "$COSA" simulate --model twomass --scheme foh --dt 1e-4 --ref "$tmp/rf/a.csv"
grep -q "no state columns (x.SUB.NAME): FOH starts at t = 1\*dt" "$tmp/err" && ok || bad "FOH without states: $(cat "$tmp/err")"
printf 'time,x.I.x,y1,y2\n0,1,1,2\n0.4,1,1,2\n' >"$tmp/r7.csv"
expect_exit 2 "$COSA" simulate --model-file "$tmp/oneway.cosa" --scheme zoh --dt 1e-3 --ref "$tmp/r7.csv"
grep -q "state columns for some states but not for 'II.x'" "$tmp/err" && ok || bad "some states: $(cat "$tmp/err")"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --ref "$tmp/none.csv"
# the fine reference's own cap: 2e7 macro points x 64 > 1e9 fine steps, refused before any work
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-8 --tend 0.2 --ref fine

# ---- statistics every time-domain run prints (issue 23): status steps rejected
# h_min h_max, each once; a fixed macro step rejects nothing and has
# h_min = h_max = dt (read back as numbers: %.17g of dt reads back to dt)
stats_fixed() { # FILE DT STEPS WHAT
    for k in status steps rejected h_min h_max; do
        [ "$(awk -v k=$k '$1 == k' "$1" | wc -l)" = 1 ] && ok || bad "$4: '$k' not printed once"
    done
    awk -v dt="$2" -v n="$3" '$1 == "rejected" { r = $2 } $1 == "h_min" { a = $2 }
        $1 == "h_max" { b = $2 } $1 == "steps" { s = $2 }
        END { exit !(r == 0 && a + 0 == dt + 0 && b + 0 == dt + 0 && s == n) }' "$1" && ok ||
        bad "$4: rejected/h_min/h_max/steps: $(grep -E '^(rejected|h_m|steps)' "$1" | tr '\n' ' ')"
    # appended after the lines that were there before (scripts reading them keep working)
    awk '$1 == "defect_conn" { d = NR } $1 == "rejected" { r = NR } END { exit !(d && r > d) }' \
        "$1" && ok || bad "$4: rejected is not after defect_conn"
}
# then the run's iterations and units (run_stats.h): an explicit fixed-step scheme
# neither rolls back nor iterates; per unit "UNIT STEPS RESTORES DEFECT_STEPS" as the algorithm
# implies: N macro steps of a single-rate Jacobi scheme are N unit steps, plus the
# mid-step sample of the defects (a half step from a snapshot, then a restore:
# one more step and one restore per macro step); a unit at rate K takes K N steps
# (multi-rate runs take no mid sample)
stats_units() { # FILE WHAT "UNIT STEPS RESTORES"...
    f=$1 w=$2
    shift 2
    for k in rollbacks corrector_iterations; do
        [ "$(awk -v k=$k '$1 == k { n++; v = $2 } END { print n "," v }' "$f")" = "1,0" ] && ok ||
            bad "$w: '$k 0' not printed once"
    done
    awk '$1 == "h_max" { h = NR } $1 == "rollbacks" { r = NR } END { exit !(h && r > h) }' \
        "$f" && ok || bad "$w: rollbacks is not after h_max"
    [ "$(grep -c '^unit ' "$f")" = $# ] && ok || bad "$w: want $# unit lines"
    for u in "$@"; do
        set -- $u
        grep -qx "unit $1 steps $2 restores $3 events 0 early_returns 0 defect_steps $4" "$f" &&
            ok || bad "$w: want unit $1 steps $2 restores $3 defect_steps $4: $(grep "^unit $1 " "$f")"
    done
}
expect_exit 0 "$COSA" simulate --model twomass --scheme zoh --dt 1e-4 --tend 0.01
stats_fixed "$tmp/out" 1e-4 100 "simulate"
stats_units "$tmp/out" "simulate" "I 200 100 100" "II 200 100 100"
expect_exit 0 "$COSA" simulate --model twomass --scheme foh --dt 1e-4 --tend 0.01 --rate I=2
stats_fixed "$tmp/out" 1e-4 100 "simulate --rate"
stats_units "$tmp/out" "simulate --rate" "I 200 0 0" "II 100 0 0"
expect_exit 0 "$COSA" simulate --model twomass-fd --scheme zoh --dt 1e-4 --tend 0.01 --energy
stats_fixed "$tmp/out" 1e-4 100 "simulate --energy"
stats_units "$tmp/out" "simulate --energy" "I 200 100 100" "II 200 100 100"
expect_exit 0 "$COSA" simulate --model twomass-nl --set nd=2 --scheme zoh --dt 1e-3 --tend 0.2
for k in status steps rejected h_min h_max; do
    [ "$(awk -v k=$k '$1 == k' "$tmp/out" | wc -l)" = 1 ] && ok || bad "diverged: '$k' not printed once"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
