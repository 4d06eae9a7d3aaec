#!/bin/sh
# paper-iter.sh COSA OUTDIR -- `make paper-iter` (also run by make paper): the
# section "Iterative coupling" (README): data, gnuplot scripts and PNG
# pictures into OUTDIR, and OUTDIR/summary.md with the numbers the README
# quotes.
#   rho_iter and rho (k = 3 sweeps) over relaxation omega x macro step dT for
#     imp:zoh, imp:foh, gs-imp:zoh on twomass and oscillator (cosa map)
#   explicit extrapolation p = 0..4 on the undamped oscillator: |rho - 1| over
#     dT (growth or decay per step) and stability over dT x k12 (preCICE
#     issue #1691's missing study)
#   sweeps per macro step against dT: k = ceil(log tol / log rho_iter) from
#     cosa curve, and the sweeps cosa simulate needs (iterations_mean)
#   convergence orders of the converged schemes (cosa converge, Phi) and from
#     time-domain runs at dT and dT/2 (cosa simulate), and the contraction the
#     runs measure against rho_iter
set -e
cosa=${1:?usage: paper-iter.sh COSA OUTDIR}
out=${2:?usage: paper-iter.sh COSA OUTDIR}
mkdir -p "$out"
sum="$out/summary.md"
gp=$(command -v gnuplot || true)
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
tol=1e-8

{
    echo "# Iterative coupling (make paper-iter)"
    echo
    echo "Every number below is printed by cosa (files in this directory: NAME.txt the"
    echo "output of a run, NAME.dat the data of a map or curve)."
} >"$sum"

# ---- maps over omega x dT: rho_iter (omega = the axis) and rho with k = 3 sweeps -----------
imp=imp:zoh,imp:foh,gs-imp:zoh
for m in twomass:1e-5:1e-1 oscillator:1e-3:1; do
    mod=${m%%:*} r=${m#*:}
    lo=${r%%:*} hi=${r#*:}
    "$cosa" map --model "$mod" --scheme "$imp" --x relax=0.05:1.95:lin:64 \
        --y dt="$lo:$hi:log:64" --metric rho_iter -o "$out" --name "rho_iter_$mod" \
        ${gp:+--plot png} >"$out/rho_iter_$mod.txt"
    "$cosa" map --model "$mod" --scheme "$imp" --iterations 3 --x relax=0.05:1.95:lin:64 \
        --y dt="$lo:$hi:log:64" --metric rho -o "$out" --name "rho_k3_$mod" \
        ${gp:+--plot png} >"$out/rho_k3_$mod.txt"
done

# ---- explicit extrapolation p = 0..4 on the oscillator (and the converged schemes) ---------
"$cosa" curve --model oscillator --x dt=1e-3:1:log:200 --scheme p0,p1,p2,p3,p4,imp:zoh,imp:foh \
    --metric rho -o "$out" --name explicit_rho >"$out/explicit_rho.txt"
"$cosa" map --model oscillator --x k12=10:1e3:log:64 --y dt=1e-3:1:log:64 \
    --scheme p0,p1,p2,p3,p4 --metric rho -o "$out" --name explicit_map ${gp:+--plot png} \
    >"$out/explicit_map.txt"
cat >"$out/explicit_rho.gp" <<EOT
# cosa paper-iter: |rho - 1| of explicit extrapolation p = 0..4 and the converged
# imp:zoh, imp:foh on the undamped oscillator (data: explicit_rho.dat)
set terminal pngcairo size 900,560 font ",11"
set output "explicit_rho.png"
set logscale xy
set format y "10^{%T}"
set format x "10^{%T}"
set xlabel "macro step {/Symbol D}T [s]"
set ylabel "|{/Symbol r} - 1|  (solid: {/Symbol r} > 1, grows; dashed: {/Symbol r} < 1, decays)"
set title "oscillator (undamped): spectral radius of {/Symbol F} against 1"
set key outside right top
set yrange [1e-16:10]
set grid
g(c) = column(c) > 1 ? column(c) - 1 : NaN
d(c) = column(c) < 1 ? 1 - column(c) : NaN
plot for [c=2:8] "explicit_rho.dat" using 1:(g(c)) with lines lw 2 lc c dt 1 title columnhead(c), \\
     for [c=2:8] "explicit_rho.dat" using 1:(d(c)) with lines lw 2 lc c dt 2 notitle
EOT
# columnhead needs a header row: the curve's '# columns:' line as one
awk '/^# columns:/ { sub(/^# columns: /, ""); print; next } /^#/ { next } { print }' \
    "$out/explicit_rho.dat" >"$out/explicit_rho.tab"
sed -i 's/"explicit_rho.dat"/"explicit_rho.tab"/g; s/(data: explicit_rho.dat)/(data: explicit_rho.tab)/' \
    "$out/explicit_rho.gp"

# ---- sweeps per macro step against dT ---------------------------------------------------
for m in twomass:1e-5:1e-1 oscillator:1e-3:1; do
    mod=${m%%:*} r=${m#*:}
    lo=${r%%:*} hi=${r#*:}
    "$cosa" curve --model "$mod" --x dt="$lo:$hi:log:120" --scheme imp:zoh,imp:foh,gs-imp:zoh,gs-imp:foh \
        --metric rho_iter -o "$out" --name "sweeps_$mod" >"$out/sweeps_$mod.txt"
    # k = ceil(log tol / log rho_iter) (inf where rho_iter >= 1)
    awk -v tol=$tol 'function k(r, x) { if (r == 0) return 1; if (!(r > 0 && r < 1)) return "NaN"
            x = log(tol) / log(r); return x == int(x) ? x : int(x) + 1 }
        /^# columns:/ { sub(/^# columns: /, ""); print; next } /^#/ { next }
        { printf "%s", $1; for (i = 2; i <= NF; i++) printf " %s", k($i); print "" }' \
        "$out/sweeps_$mod.dat" >"$out/sweeps_$mod.tab"
    # measured: the mean sweeps of cosa simulate (converging to tol) at five steps
    echo "dt imp:ZOH imp:FOH gs-imp:ZOH gs-imp:FOH" >"$out/sweeps_${mod}_td.tab"
    for dt in $(awk -v lo="$lo" -v hi="$hi" 'BEGIN { for (i = 0; i < 5; i++)
        printf "%.3g ", exp(log(lo) + (i + 0.5) / 5 * (log(hi / 3) - log(lo))) }'); do
        printf '%s' "$dt" >>"$out/sweeps_${mod}_td.tab"
        for s in imp:zoh imp:foh gs-imp:zoh gs-imp:foh; do
            "$cosa" simulate --model "$mod" --scheme "$s" --dt "$dt" --iter-tol $tol \
                >"$out/sim.txt" 2>/dev/null || true
            v=$(val "$out/sim.txt" iterations_mean)
            [ "$(val "$out/sim.txt" windows_not_converged)" = 0 ] || v=NaN
            printf ' %s' "${v:-NaN}" >>"$out/sweeps_${mod}_td.tab"
        done
        echo >>"$out/sweeps_${mod}_td.tab"
    done
    rm -f "$out/sim.txt"
    cat >"$out/sweeps_$mod.gp" <<EOT
# cosa paper-iter: sweeps per macro step to the relative tolerance $tol, $mod
# lines: k = ceil(log tol / log rho_iter) (omega = 1; data: sweeps_$mod.tab);
# points: iterations_mean of cosa simulate (data: sweeps_${mod}_td.tab)
set terminal pngcairo size 900,560 font ",11"
set output "sweeps_$mod.png"
set logscale x
set format x "10^{%T}"
set xlabel "macro step {/Symbol D}T [s]"
set ylabel "sweeps per macro step"
set title "$mod: sweeps to |{/Symbol D}y| <= $tol |y| (omega = 1)"
set key outside right top
set xrange [$lo:$hi]
set yrange [0:60]
set grid
plot for [c=2:5] "sweeps_$mod.tab" using 1:c with steps lw 2 lc c title columnhead(c)." from {/Symbol r}_{iter}", \\
     for [c=2:5] "sweeps_${mod}_td.tab" using 1:c with points pt 7 ps 1.3 lc c title columnhead(c)." simulate"
EOT
done

{
    echo
    echo "## Sweeps per macro step to the relative tolerance $tol (omega = 1)"
    echo
    echo "iterations_mean of cosa simulate at five steps; in parentheses"
    echo "k = ceil(log tol / log rho_iter) at the nearest step of the rho_iter curve"
    echo "(sweeps_MODEL.png draws both)."
} >>"$sum"
for mod in twomass oscillator; do
    {
        echo
        echo "| $mod dT | imp:ZOH | imp:FOH | gs-imp:ZOH | gs-imp:FOH |"
        echo "|---|---|---|---|---|"
    } >>"$sum"
    awk 'NR == FNR { if (FNR > 1) { n++; t[n] = $1; for (i = 2; i <= 5; i++) k[n, i] = $i }; next }
         FNR > 1 { b = 1; for (j = 2; j <= n; j++) if ((log(t[j]) - log($1))^2 < (log(t[b]) - log($1))^2) b = j
                   printf "| %s |", $1; for (i = 2; i <= 5; i++) printf " %.4g (%s) |", $i, k[b, i]; print "" }' \
        "$out/sweeps_$mod.tab" "$out/sweeps_${mod}_td.tab" >>"$sum"
done

# ---- summary: orders, contraction, Aitken -------------------------------------------------
{
    echo
    echo "## Convergence orders of the converged schemes (twomass)"
    echo
    echo "order_global from cosa converge (Phi, least-squares slope over dT); time domain:"
    echo "log2 of e_global(dT) / e_global(dT/2) from cosa simulate at dT = 1e-3 (converged to $tol)."
    echo "q = 0 should give 1, q = 1 gives 2, q = 2 gives 3."
    echo
    echo "| scheme | q | order_global (Phi) | order (time domain) |"
    echo "|---|---|---|---|"
} >>"$sum"
for sq in imp:zoh:0 imp:zoh/1:1 imp:foh:1 imp:foh/2:2 gs-imp:zoh:0 gs-imp:foh:1 gs-imp:soh:2; do
    s=${sq%:*} q=${sq##*:}
    "$cosa" converge --scheme "$s" >"$out/converge.txt"
    og=$(val "$out/converge.txt" order_global)
    e1=$("$cosa" simulate --scheme "$s" --dt 1e-3 | awk '$1 == "e_global" { print $2 }')
    e2=$("$cosa" simulate --scheme "$s" --dt 5e-4 | awk '$1 == "e_global" { print $2 }')
    otd=$(awk -v a="$e1" -v b="$e2" 'BEGIN { printf "%.3f", log(a / b) / log(2) }')
    echo "| $s | $q | $og | $otd |" >>"$sum"
done
rm -f "$out/converge.txt"
{
    echo
    echo "## Contraction measured in the time domain against rho_iter (cosa point)"
    echo
    echo "cosa simulate --iterations 40 (fixed): the update ratio per sweep (contraction);"
    echo "cosa point: rho_iter at the same omega."
    echo
    echo "| model | scheme | dT | omega | contraction | rho_iter |"
    echo "|---|---|---|---|---|---|"
} >>"$sum"
for c in twomass:imp:zoh:1e-3:1 twomass:imp:foh:1e-3:0.8 twomass:gs-imp:zoh:1e-3:1 \
    oscillator:imp:foh:0.1:1 oscillator:imp:zoh:0.05:0.6 oscillator:gs-imp:foh:0.1:1; do
    mod=$(echo "$c" | cut -d: -f1) s=$(echo "$c" | cut -d: -f2,3) dt=$(echo "$c" | cut -d: -f4)
    w=$(echo "$c" | cut -d: -f5)
    "$cosa" simulate --model "$mod" --scheme "$s" --dt "$dt" --relax "$w" --iterations 40 \
        --tend 0.3 >"$out/c.txt"
    "$cosa" point --model "$mod" --scheme "$s" --dt "$dt" --relax "$w" >"$out/p.txt"
    echo "| $mod | $s | $dt | $w | $(val "$out/c.txt" contraction) | $(val "$out/p.txt" rho_iter) |" >>"$sum"
done
{
    echo
    echo "## Aitken's dynamic relaxation against omega = 1 (converged to $tol)"
    echo
    echo "| model | scheme | dT | relax | iterations_mean | iterations_max | windows_not_converged | e_global |"
    echo "|---|---|---|---|---|---|---|---|"
} >>"$sum"
for c in twomass:gs-imp:foh:1e-3 oscillator:gs-imp:foh:0.1 twomass:imp:zoh:1e-3 oscillator:imp:foh:0.1; do
    mod=$(echo "$c" | cut -d: -f1) s=$(echo "$c" | cut -d: -f2,3) dt=$(echo "$c" | cut -d: -f4)
    for w in 1 aitken; do
        "$cosa" simulate --model "$mod" --scheme "$s" --dt "$dt" --relax $w >"$out/c.txt"
        printf '| %s | %s | %s | %s |' "$mod" "$s" "$dt" "$w" >>"$sum"
        for k in iterations_mean iterations_max windows_not_converged e_global; do
            printf ' %s |' "$(val "$out/c.txt" $k)" >>"$sum"
        done
        echo >>"$sum"
    done
done
rm -f "$out/c.txt" "$out/p.txt"

if [ -n "$gp" ]; then
    for s in explicit_rho sweeps_twomass sweeps_oscillator; do
        (cd "$out" && "$gp" "$s.gp")
    done
fi
echo "make paper-iter: the iterative-coupling section in $out/ (summary.md)"
