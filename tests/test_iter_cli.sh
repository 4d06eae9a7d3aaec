#!/bin/sh
# test_iter_cli.sh -- iterative coupling on the command line (README
# "Iterative coupling"): bad input is one line and exit 2; `cosa point`
# prints the iteration figures for imp:/gs-imp: only; one iteration is the
# explicit scheme and the converged step does not depend on omega or on
# Jacobi versus Gauss-Seidel (rho agrees); maps and curves sweep relax and
# iterations, and the map's rho_iter is the point's.
. "$(dirname "$0")/harness.sh"

expect_usage() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != 2 ]; then
        bad "'$*' exited $got, expected 2"
        return
    fi
    if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^cosa: ' "$tmp/err"; then
        bad "'$*' should print one 'cosa: ...' line, got: $(cat "$tmp/err")"
        return
    fi
    ok
}

pt="point --dt 1e-4"
for k in 0 2.5 -1 x; do expect_usage "$COSA" $pt --scheme imp:zoh --iterations "$k"; done
for w in 0 nan inf -inf; do expect_usage "$COSA" $pt --scheme gs-imp:foh --relax "$w"; done
for s in gs:zoh/3 imp:foh/0 zoh/1 imp:p8/9 imp:zoh+mbcorr gs-imp:foh+ocorr imp:soh+ecorr; do
    expect_usage "$COSA" $pt --scheme "$s"
done
expect_usage "$COSA" $pt --scheme zoh --iterations 3
expect_usage "$COSA" $pt --scheme gs:foh --relax 0.5
expect_usage "$COSA" $pt --scheme gs:zoh/1 --iterations inf
expect_usage "$COSA" phi --dt 1e-4 --scheme foh --relax 1
# the time domain (lib/td/iterate.c): --relax aitken and --iter-tol are its own
expect_usage "$COSA" $pt --scheme imp:zoh --relax aitken
expect_usage "$COSA" map --scheme imp:zoh --relax aitken --metric rho_iter --x ck=1e5:1e6:log:3 \
    --y dk=1:10:log:3 --dt 1e-4 -o "$tmp/m2"
expect_usage "$COSA" simulate --dt 1e-3 --scheme zoh --iter-tol 1e-6
expect_usage "$COSA" simulate --dt 1e-3 --scheme imp:zoh --iter-tol 0
expect_usage "$COSA" simulate --dt 1e-3 --scheme imp:zoh --relax aitken:3
expect_usage "$COSA" simulate --dt 1e-3 --scheme imp:zoh --input held
expect_usage "$COSA" simulate --dt 1e-3 --scheme gs-imp:zoh --start initial
expect_usage "$COSA" map --scheme zoh --x relax=0.1:1:lin:3 --y dt=1e-4:1e-3:log:3 -o "$tmp/m0"
expect_usage "$COSA" map --scheme imp:zoh,foh --metric rho_iter --x ck=1e5:1e6:log:3 \
    --y dk=1:10:log:3 --dt 1e-4 -o "$tmp/m1"

# the figures: for imp:/gs-imp: only, all six lines
"$COSA" $pt --scheme imp:zoh >"$tmp/imp" && ok || bad "point imp:zoh failed"
for f in iterations relax rho_iter relax_max relax_opt rho_iter_opt; do
    grep -q "^$f " "$tmp/imp" && ok || bad "point imp:zoh: no line '$f'"
done
"$COSA" $pt --scheme zoh >"$tmp/zoh" && ok || bad "point zoh failed"
grep -q '^rho_iter' "$tmp/zoh" && bad "point zoh prints rho_iter" || ok

val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# equal to rounding: eigenvalues of Phi near 1 from two assemblies (and the
# deflated route of the explicit Jacobi scheme), ~1e-15; 1e-12 relative.
# The NRMSE amplifies an eps perturbation of Phi by |Phi* - Phi| |z| /
# |(Phi* - Phi) z| (cosa/phi.h, cosa_nrmse: up to ~1e4 for p >= 2): 1e-9.
close() { awk -v a="$1" -v b="$2" -v t="${3:-1e-12}" 'BEGIN { d = a - b; if (d < 0) d = -d
    m = a < 0 ? -a : a; exit !(d <= t * m) }'; }
for p in zoh foh soh; do
    for e in ":" "gs:"; do
        ex=$p; im=imp:$p
        [ "$e" = "gs:" ] && ex=gs:$p && im=gs-imp:$p
        "$COSA" $pt --scheme "$ex" >"$tmp/a" && "$COSA" $pt --scheme "$im" --iterations 1 \
            --relax 0.3 >"$tmp/b" || bad "point $ex / $im failed"
        close "$(val rho "$tmp/a")" "$(val rho "$tmp/b")" && ok ||
            bad "rho of $im with one iteration $(val rho "$tmp/b") is not $ex's $(val rho "$tmp/a")"
        close "$(val e_global "$tmp/a")" "$(val e_global "$tmp/b")" 1e-9 && ok ||
            bad "e_global of $im with one iteration is not $ex's"
    done
    "$COSA" $pt --scheme imp:$p >"$tmp/c" && "$COSA" $pt --scheme gs-imp:$p --relax 0.4 >"$tmp/d" ||
        bad "point imp:$p / gs-imp:$p failed"
    close "$(val rho "$tmp/c")" "$(val rho "$tmp/d")" && ok ||
        bad "converged rho: imp:$p $(val rho "$tmp/c") vs gs-imp:$p $(val rho "$tmp/d")"
done

# a map over (relax, dt) of rho_iter: the point at relax 1, dt 1e-3 is `cosa point`'s
"$COSA" map --model oscillator --scheme imp:zoh --metric rho_iter --x relax=0.5:1.5:lin:3 \
    --y dt=1e-3:1e-2:log:2 -o "$tmp/map" >"$tmp/out" 2>"$tmp/err" && ok || bad "map relax: $(cat "$tmp/err")"
m=$(awk '!/^#/ && NF == 3 && $1 == 1 && $2 == 0.001 { print $3 }' "$tmp/map/rho_iter_imp-zoh.dat")
"$COSA" point --model oscillator --scheme imp:zoh --dt 1e-3 >"$tmp/p" || bad "point oscillator"
[ -n "$m" ] && [ "$m" = "$(val rho_iter "$tmp/p")" ] && ok ||
    bad "map rho_iter at relax 1, dt 1e-3 is '$m', point says $(val rho_iter "$tmp/p")"
# a curve over the iterations: rho at k = 1 is the explicit scheme's
"$COSA" curve --scheme imp:foh --x iterations=1:4:lin:4 --dt 1e-4 -o "$tmp/cur" >"$tmp/out" \
    2>"$tmp/err" && ok || bad "curve iterations: $(cat "$tmp/err")"
c=$(awk '!/^#/ && $1 == 1 { print $2 }' "$tmp/cur/rho_vs_iterations.dat")
"$COSA" $pt --scheme foh >"$tmp/f" || bad "point foh"
[ -n "$c" ] && close "$c" "$(val rho "$tmp/f")" && ok ||
    bad "curve rho at one iteration '$c' is not foh's $(val rho "$tmp/f")"

# advise: iterative candidates cost steps x k x (1 + R), k from the note line;
# their dt is at most the converging step; --iterations does not apply
"$COSA" advise --tol 1e-3 --format csv --schemes imp:foh,gs-imp:zoh,foh --dt-min 1e-6 \
    --per-decade 10 --cost-rollback 0.25 >"$tmp/adv" 2>"$tmp/err" && ok || bad "advise: $(cat "$tmp/err")"
for s in imp:FOH gs-imp:ZOH; do
    row=$(grep "^$s," "$tmp/adv")
    k=$(awk -v s="$s:" '$1 == "note" && $2 == s && /sweeps per macro step/ {
        for (i = 1; i <= NF; i++) if ($(i + 1) == "sweeps") print $i }' "$tmp/adv")
    cv=$(awk -v s="$s:" '$1 == "note" && $2 == s && /converges up to dt/ { sub(/;$/, "", $8); print $8 }' "$tmp/adv")
    echo "$row" | awk -F, -v k="$k" -v cv="$cv" '{ c = $5 * k * 1.25; d = c - $6; if (d < 0) d = -d
        exit !(k >= 1 && d <= 1e-9 * c && $4 + 0 <= cv + 0) }' && ok ||
        bad "advise $s: row '$row', k '$k', converging dt '$cv'"
done
expect_usage "$COSA" limit --scheme foh --criterion iteration
expect_usage "$COSA" point --energy --model twomass-fd --scheme imp:zoh --dt 1e-3
expect_usage "$COSA" map --model twomass-fd --metric E_ratio --scheme imp:zoh \
    --x k=1:10:log:2 --y dt=1e-3:1e-2:log:2 -o "$tmp/m2"
expect_usage "$COSA" simulate --coupling explicit --model twomass-ff --scheme imp:foh --dt 1e-4
expect_usage "$COSA" estimate --model twomass --scheme imp:p1 --estimator exlocal --t0 0.01 \
    --dt 1e-4
"$COSA" limit --scheme imp:foh --criterion iteration --model oscillator --dt-max 1 >"$tmp/lim" &&
    grep -q '^dt_max ' "$tmp/lim" && ok || bad "limit --criterion iteration failed"
expect_usage "$COSA" advise --tol 1e-3 --iterations 3
expect_usage "$COSA" advise --tol 1e-3 --iter-tol 1
expect_usage "$COSA" advise --tol 1e-3 --cost-rollback -1

# ---- the time domain (lib/td/iterate.c; tests/test_iterate.c has Phi^n z0) ----
# a run: the lines; --iterations K alone is K sweeps in every window
sim="simulate --model twomass --dt 1e-3 --tend 0.05"
"$COSA" $sim --scheme imp:zoh --iterations 4 >"$tmp/s4" 2>"$tmp/err" && ok || bad "simulate imp:zoh: $(cat "$tmp/err")"
for f in status e_global steps iterations_mean iterations_max windows_not_converged contraction rejected h_min h_max; do
    grep -q "^$f " "$tmp/s4" && ok || bad "simulate imp:zoh: no line '$f'"
done
[ "$(awk '$1 == "iterations_mean" || $1 == "iterations_max" { print $2 }' "$tmp/s4" | tr '\n' ' ')" = "4 4 " ] &&
    ok || bad "--iterations 4: $(grep iterations "$tmp/s4")"
# k = 1 with q = p is the explicit scheme: the same e_global to rounding
"$COSA" $sim --scheme imp:foh --iterations 1 >"$tmp/k1" && "$COSA" $sim --scheme foh >"$tmp/foh" &&
    close "$(val e_global "$tmp/k1")" "$(val e_global "$tmp/foh")" && ok ||
    bad "imp:foh k = 1 vs foh: $(val e_global "$tmp/k1") $(val e_global "$tmp/foh")"
# converged (default: to 1e-8): every window reaches the tolerance
"$COSA" $sim --scheme imp:zoh >"$tmp/conv" && "$COSA" point --model twomass --dt 1e-3 \
    --scheme imp:zoh >"$tmp/pt"
[ "$(val windows_not_converged "$tmp/conv")" = 0 ] && ok || bad "converged run: $(cat "$tmp/conv")"
# the contraction measured in the run is rho_iter of cosa point (within 2 %)
close "$(val contraction "$tmp/s4")" "$(val rho_iter "$tmp/pt")" 0.02 && ok ||
    bad "contraction $(val contraction "$tmp/s4") vs rho_iter $(val rho_iter "$tmp/pt")"
# Aitken on Gauss-Seidel (M is 1 x 1 here): the secant, 3 sweeps, the same e_global
"$COSA" $sim --scheme gs-imp:foh >"$tmp/g1" && "$COSA" $sim --scheme gs-imp:foh --relax aitken >"$tmp/ga" &&
    close "$(val e_global "$tmp/g1")" "$(val e_global "$tmp/ga")" 1e-6 &&
    [ "$(val iterations_max "$tmp/ga")" -le 4 ] && ok ||
    bad "aitken: $(grep -E 'e_global|iterations_max' "$tmp/g1" "$tmp/ga")"
harness_done test_iter_cli
