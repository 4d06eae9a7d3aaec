#!/bin/sh
# test_messages.sh -- issue 24, part 2: limits (--threads), one answer of
# point and simulate for an unstable scheme, a single macro step in
# simulate, and the one-line messages of the number parser and the model
# files.  Every refusal: the exit code, exactly one stderr line
# "cosa: SUBCOMMAND: ..." with the key words, and nothing on stdout.
. "$(dirname "$0")/harness.sh"
SRC=${COSA_SRCDIR:-${srcdir:-.}}


# refuse CODE 'WORDS' CMD... : exit CODE, one line 'cosa: ...' holding every
# word of WORDS (a grep -E pattern per word, '|'-separated), empty stdout
refuse() {
    want=$1
    words=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^cosa: ' "$tmp/err" ||
        [ -s "$tmp/out" ]; then
        bad "'$*': exit $got (want $want), stderr: $(cat "$tmp/err"), stdout: $(head -c 200 "$tmp/out")"
        return
    fi
    old_ifs=$IFS
    IFS='|'
    for w in $words; do
        if ! grep -q -- "$w" "$tmp/err"; then
            IFS=$old_ifs
            bad "'$*': no '$w' in: $(cat "$tmp/err")"
            return
        fi
    done
    IFS=$old_ifs
    ok
}

# value NAME FILE: the value of the 'NAME value' line
value() { awk -v n="$1" '$1 == n { print $2; exit }' "$2"; }

# rel A B TOL: |A - B| <= TOL |B| (awk doubles)
rel() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
                                              exit !(a == a + 0 && d <= t * m) }'; }

grid="--x ck=1e4:1e6:log:3 --y dk=1:10:log:3 --dt 1e-4"

# ---- 1. --threads: one rule (1..4096) in every command ------------------------
for t in 100000 32768 4097 0 2x; do
    # shellcheck disable=SC2086
    refuse 2 "--threads must be an integer in 1..4096|'$t'" "$COSA" map --scheme zoh $grid \
        --threads "$t" -o "$tmp/m"
done
refuse 2 "curve: --threads must be an integer in 1..4096" "$COSA" curve --scheme zoh \
    --x dt=1e-5:1e-3:log:3 --threads 100000 -o "$tmp/c"
refuse 2 "bench: --threads must be an integer in 1..4096|'5000'" "$COSA" bench --threads 1,5000
refuse 2 "simulate: --threads must be an integer in 1..4096" "$COSA" simulate --coupling explicit \
    --model twomass --scheme zoh --dt 1e-4 --threads 32768
# the limit itself runs (no more threads start than there is work), silently
# shellcheck disable=SC2086
"$COSA" map --scheme zoh $grid --threads 4096 -o "$tmp/m4096" >/dev/null 2>"$tmp/err" &&
    [ ! -s "$tmp/err" ] && ok || bad "map --threads 4096: $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$COSA" map --scheme zoh $grid --threads 1 -o "$tmp/m1" >/dev/null 2>&1 &&
    cmp -s "$tmp/m4096/rho_zoh.dat" "$tmp/m1/rho_zoh.dat" && ok || bad "map: 4096 threads differ from 1"

# ---- 2. one answer: point and simulate for rho > 1 ------------------------------
# twomass ZOH loses stability at dt ~ 1.3285e-3 (cosa limit); at 0.3/224 =
# 1.33929e-3 rho = 1.0003, N = 224 steps, growth rho^N ~ 1.07: the run stays
# finite.  (A whole number of steps in the horizon: simulate ends at tend with
# a short last step otherwise, doc/simulate.md, and its e_global then has one
# point less than point's round(tend/dt).)
# simulate steps the co-simulation in the time domain, point sums it by the
# Phi route: both are the same linear recursion in different rounding; over
# N = 224 steps with |Phi| |z| / |z| <= 1e3 (stiff entries, c2/m2 = 1e6 times
# dt) the difference is <= N 1e3 eps ~ 5e-11 relative, hence 1e-10.
for dt in 1.3392857142857143e-3 1e-2 1e-4; do
    "$COSA" point --model twomass --scheme zoh --dt $dt >"$tmp/p" 2>"$tmp/err" &&
        "$COSA" simulate --model twomass --scheme zoh --dt $dt >"$tmp/s" 2>>"$tmp/err" ||
        bad "point/simulate dt $dt: $(cat "$tmp/err")"
    ep=$(value e_global "$tmp/p")
    es=$(value e_global "$tmp/s")
    rel "$ep" "$es" 1e-10 && ok || bad "dt $dt: point e_global $ep, simulate $es"
    [ "$(value status "$tmp/s")" = ok ] && ok || bad "dt $dt: simulate status $(value status "$tmp/s")"
    rho=$(value rho "$tmp/p")
    n=$(value nsteps "$tmp/p")
    if awk -v r="$rho" 'BEGIN { exit !(r > 1 + 1e-12) }'; then
        # unstable: stable no, growth = rho^N (pow vs exp(N log rho): 1e-12
        # relative is ~N eps of the logarithm), finite local errors
        [ "$(value stable "$tmp/p")" = no ] && ok || bad "dt $dt: stable $(value stable "$tmp/p")"
        g=$(awk -v r="$rho" -v n="$n" 'BEGIN { printf "%.17g", exp(n * log(r)) }')
        rel "$(value growth "$tmp/p")" "$g" 1e-12 && ok || bad "dt $dt: growth $(value growth "$tmp/p"), rho^N $g"
        for e in e_local e_local_ref; do
            awk -v v="$(value $e "$tmp/p")" 'BEGIN { exit !(v + 0 == v && v < 1e300) }' && ok ||
                bad "dt $dt: $e $(value $e "$tmp/p") is not finite"
        done
    else
        ! grep -q '^growth' "$tmp/p" && ok || bad "dt $dt: growth printed for a stable scheme"
    fi
done
[ "$(value stable "$tmp/p")" = yes ] && ok || bad "dt 1e-4 should be stable"

# ---- 3. one macro step in the horizon: simulate as point -------------------------
"$COSA" simulate --model twomass --scheme zoh --dt 0.2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/err" ] && [ "$(value e_global "$tmp/out")" = nan ] &&
    grep -q '^note 1 macro step in the horizon: NRMSE undefined' "$tmp/out" && ok ||
    bad "simulate --dt 0.2: exit $rc, $(cat "$tmp/err") $(cat "$tmp/out")"
"$COSA" point --model twomass --scheme zoh --dt 0.2 | grep '^note' >"$tmp/pn"
grep '^note' "$tmp/out" | cmp -s - "$tmp/pn" && ok || bad "simulate and point notes differ"
refuse 2 "simulate: --dt 0.6 is longer than the horizon" "$COSA" simulate --model twomass \
    --scheme zoh --dt 0.6

# ---- 4. converge: integer counts written as numbers; the fit --------------------
"$COSA" converge --scheme zoh --points 1e2 >"$tmp/out" 2>"$tmp/err" &&
    [ "$(awk 'NF == 3 && $1 + 0 > 0' "$tmp/out" | wc -l)" = 100 ] &&
    grep -q '^order_global 1\.0' "$tmp/out" && ok || bad "converge --points 1e2: $(cat "$tmp/err")"
refuse 2 "--points must be an integer" "$COSA" converge --scheme zoh --points 1.5
refuse 2 "--points must be an integer" "$COSA" converge --scheme zoh --points 1e400

# ---- 5. messages --------------------------------------------------------------------
mf=$SRC/data/models/twomass.cosa # no parameter ranges
refuse 2 "A\[2,1\] of subsystem 'I' is not finite|with m1 = 0" "$COSA" point --model-file "$mf" \
    --scheme zoh --dt 1e-4 --set m1=0
refuse 2 "A\[2,1\] of subsystem 'II' is not finite|with m2 = 0" "$COSA" simulate --model-file "$mf" \
    --scheme zoh --dt 1e-4 --set m2=0
printf 'param m = 2\ninitial s0 = 1\nsubsystem S\n  states s\n  inputs\n  outputs s\n  A = [ -1/m ]\n  C = eye\n  x0 = [ 1/s0 ]\nend\n' >"$tmp/x0.cosa"
refuse 2 "x0\[1\] of subsystem 'S' is not finite|with s0 = 0" "$COSA" point --model-file "$tmp/x0.cosa" \
    --scheme zoh --dt 1e-2 --set s0=0
awk '{ print } /^param dk / { print "let kk = ck + c2" }' "$mf" >"$tmp/let.cosa"
refuse 2 "--set kk: 'kk' is derived (let), not settable" "$COSA" point --model-file "$tmp/let.cosa" \
    --scheme zoh --dt 1e-4 --set kk=3
refuse 2 "model 'twomass' has no parameter 'nope'" "$COSA" point --model-file "$tmp/let.cosa" \
    --scheme zoh --dt 1e-4 --set nope=3
# a step that overflows the discretisation: refused at once, naming it
refuse 2 "limit: --dt-max 1e+308 is too large|overflows the discretisation|at most" "$COSA" limit \
    --scheme zoh --criterion stable --dt-max 1e308
refuse 2 "table: --dt-max 1e+308 is too large|overflows the discretisation" "$COSA" table \
    --paper mbcorr --table 1 --dt-max 1e308
for c in point simulate; do
    refuse 2 "$c: --dt 1e+305 is too large|overflows the discretisation" "$COSA" $c --scheme zoh \
        --dt 1e305 --tend 1e306
done
# underflow and overflow told apart, for --set and for options
refuse 2 "--set ck: '1e-400' underflows to 0" "$COSA" point --scheme zoh --dt 1e-4 --set ck=1e-400
refuse 2 "--set ck: '1e400' overflows" "$COSA" point --scheme zoh --dt 1e-4 --set ck=1e400
refuse 2 "--set ck: '1e-310' underflows to 0" "$COSA" point --scheme zoh --dt 1e-4 --set ck=1e-310
refuse 2 "--set ck: 'inf' is not a finite number" "$COSA" point --scheme zoh --dt 1e-4 --set ck=inf
refuse 2 "--dt must be a positive finite number: '1e-400' underflows to 0" "$COSA" point \
    --scheme zoh --dt 1e-400
refuse 2 "--tend must be a positive finite number: '10^400' overflows" "$COSA" point --scheme zoh \
    --dt 1e-4 --tend 10^400
# a UTF-8 byte order mark is skipped
printf '\357\273\277' | cat - "$mf" >"$tmp/bom.cosa"
"$COSA" point --model-file "$tmp/bom.cosa" --scheme zoh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" point --model-file "$mf" --scheme zoh --dt 1e-4 >"$tmp/b" && cmp -s "$tmp/a" "$tmp/b" && ok ||
    bad "BOM: $(cat "$tmp/err")"
# a missing FMU is bad input like a broken one
refuse 2 "fmu-info: $tmp/none.fmu: cannot read" "$COSA" fmu-info "$tmp/none.fmu"
# 10^X wherever a number is read
"$COSA" point --scheme zoh --dt 10^-3 >"$tmp/a" && "$COSA" point --scheme zoh --dt 0.001 >"$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b" && ok || bad "point --dt 10^-3 differs from 0.001"
"$COSA" limit --scheme zoh --criterion stable --dt-max 10^-2 --dt-min 1e-9 >"$tmp/a" &&
    "$COSA" limit --scheme zoh --criterion stable >"$tmp/b" && cmp -s "$tmp/a" "$tmp/b" && ok ||
    bad "limit --dt-max 10^-2 differs from the default 1e-2"
"$COSA" point --scheme zoh --dt 1e-3 --set ck=10^5 >"$tmp/a" &&
    "$COSA" point --scheme zoh --dt 1e-3 --set ck=100000 >"$tmp/b" && cmp -s "$tmp/a" "$tmp/b" && ok ||
    bad "--set ck=10^5 differs from 100000"
# an axis count written 1e1 (exact integers only)
"$COSA" map --scheme zoh --x ck=1e4:1e6:log:1e1 --y dk=1:10:log:3 --dt 1e-4 -o "$tmp/ax" >"$tmp/out" &&
    grep -q '^points 30$' "$tmp/out" && ok || bad "map axis ...:log:1e1: $(cat "$tmp/out")"
refuse 2 "--x" "$COSA" map --scheme zoh --x ck=1e4:1e6:log:2.5 --y dk=1:10:log:3 --dt 1e-4 -o "$tmp/ax"
# an absurd step count: point keeps rho, prints nsteps in a short exact form
# and says why the errors are nan; simulate refuses in one line
"$COSA" point --scheme zoh --dt 1e-300 >"$tmp/out" 2>"$tmp/err" &&
    [ "$(value nsteps "$tmp/out" | wc -c)" -le 25 ] &&
    awk -v v="$(value nsteps "$tmp/out")" 'BEGIN { exit !(v / 3e299 > 0.999 && v / 3e299 < 1.001) }' &&
    grep -q '^note 3e+299 macro steps in the horizon' "$tmp/out" && ok ||
    bad "point --dt 1e-300: $(cat "$tmp/err") $(grep nsteps "$tmp/out")"
refuse 2 "simulate: --tend / --dt = 3e+299 macro steps: too many" "$COSA" simulate --scheme zoh \
    --dt 1e-300

harness_done test_messages
