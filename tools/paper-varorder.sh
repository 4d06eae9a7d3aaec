#!/bin/sh
# paper-varorder.sh COSA OUTDIR -- `make paper-varorder` (also run by make
# paper): the variable-order paper's examples with cosa simulate --coupling,
# data, gnuplot scripts and PNG pictures into OUTDIR, and OUTDIR/summary.md
# with the numbers the README quotes.
#   Ex 1 (Figs 11-14)  twomass-ff, order + step control, the five estimators
#                      (explicit and implicit), the paper's controller settings
#   Ex 3 (Figs 24-28)  a chain small enough for 2 cores: fixed k = 0..3 with
#                      step control against order control, every estimator
#   Ex 2 (Fig 21)      explicit (ExSLocal) against implicit (ImSLocal) as the
#                      damping d grows
#   Ex 5 (Fig 35)      the safety factor SF
#   Ex 4 (sect. 6.4)   FD against LOS interface Jacobians: cores per step
#   Sect. 6.6.1        threads (1, 2) on a chain with r = 16, co-simulation
#                      against the monolithic reference's time
# The chains are the paper's (m 0.1, c 1e7, C 1e14, D 1e2, impulses on 30 %
# of the masses every 50 ms, random x0, v0) scaled down to n = 40, r = 4 and
# a few ms, without the contact forces (with x0 up to 1e-3 m, A e^(B x) with
# B = 5e5 / m is 1e215 N at the start: no reference survives that).
# The runs of Ex 1-5 are independent: they all start first, longest first,
# PAPER_JOBS (default 2) at once (the next as soon as one has ended), each on one thread
# (--threads 1; the results do not depend on the thread count, README
# "Threads"), and the tables are written after the last in the order above.  The seconds in the tables are each run's
# wall clock on one thread, next to PAPER_JOBS - 1 other runs (on an idle
# machine with PAPER_JOBS cores: the time of that run alone on one thread).
# Sect. 6.6.1: the one-thread run is one more job of the pool (next to
# PAPER_JOBS - 1 others, like them); the two-thread run runs alone after it.
set -e
cosa=${1:?usage: paper-varorder.sh COSA OUTDIR}
out=${2:?usage: paper-varorder.sh COSA OUTDIR}
mkdir -p "$out"
sum="$out/summary.md"
gp=${GNUPLOT-$(command -v gnuplot || true)} # GNUPLOT= : no pictures
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
jobs=${PAPER_JOBS:-2}
case $jobs in
'' | *[!0-9]* | 0)
    echo "paper-varorder.sh: PAPER_JOBS must be a positive integer, not '$jobs'" >&2
    exit 2
    ;;
esac
# a token per job slot in a pipe: a run takes one before it starts and puts it
# back when it ends, so the next run starts as soon as any run has ended
fifo="$out/.jobs.$$"
rm -f "$fifo" "$out/.failed"
mkfifo "$fifo"
exec 3<>"$fifo"
rm -f "$fifo"
i=0
while [ "$i" -lt "$jobs" ]; do echo >&3; i=$((i + 1)); done
par() { # CMD ARGS...: run in the background as soon as a slot is free
    read -r _ <&3
    (
        "$@" || echo "$*" >>"$out/.failed"
        echo >&3
    ) &
}
drain() { # wait for every run started by par; fail if one failed
    wait
    if [ -s "$out/.failed" ]; then
        sed 's/^/paper-varorder.sh: failed: /' "$out/.failed" >&2
        rm -f "$out/.failed"
        return 1
    fi
}
row() { # FILE KEYS...: the values as a markdown row tail
    f=$1
    shift
    for k in "$@"; do printf ' %s |' "$(val "$f" "$k")"; done
    echo
}

{
    echo "# The variable-order paper with cosa (make paper-varorder)"
    echo
    echo "Every number below is printed by \`cosa simulate --coupling\` (files in this"
    echo "directory: NAME.txt its output, NAME.csv the per-step data)."
} >"$sum"

E1="--model twomass-ff --scheme p1 --dt 1e-4 --control order --kmax 5 --sf 6 --rmin 0.5 --rmax 2"
E1="$E1 --ctl-rtol 1e-5 --ctl-atol-x 1e-8 --ctl-atol-v 1e-5 --ctl-atol-u 0.1 --ctl-rtol-u 1e-3"
# ---- every run of Ex 1-5, PAPER_JOBS at once (the longest first), before the tables ----
ex1() { # COUPLING ESTIMATOR
    # shellcheck disable=SC2086
    "$cosa" simulate --coupling "$1" $E1 --estimator "$2" --threads 1 -o "$out" --name "ex1_$2" \
        >"$out/ex1_$2.txt"
}
chain() { # D: the chain's parameters with damping D
    echo "--model chain-ff --set n=40 --set r=4 --set m=0.1 --set c=1e7 --set d=$1 --set Cn=1e14" \
        "--set Dn=1e2 --set fimp=0.3 --set dFmin=1e6 --set dFmax=5e6 --set tper=0.05" \
        "--set delta=1e-5 --set dtimp=2.5e-3 --set x0max=1e-3 --set v0max=10 --set seed=1" \
        "--ref-rtol 1e-10 --dt 1e-6"
}
# the controller of Ex 3: atol_x = 1e-3 rtol, atol_v = rtol, atol_lambda = 1e2 rtol (defaults)
X3="--ctl-rtol 1e-4 --sf 6 --rmin 0.5 --rmax 2 --tend 0.001"
ex3() { # COUPLING ESTIMATOR K
    d=1e4
    [ "$1" = implicit ] && d=5e5
    if [ "$3" = order ]; then ctl="--control order --scheme p1"; else ctl="--control step --scheme p$3"; fi
    # shellcheck disable=SC2046,SC2086
    "$cosa" simulate --coupling "$1" $(chain $d) $X3 $ctl --estimator "$2" --threads 1 \
        --max-attempts 40000 >"$out/ex3_$2_$3.txt" 2>&1 || true
}
ex2() { # COUPLING ESTIMATOR D
    # shellcheck disable=SC2046
    "$cosa" simulate --coupling "$1" $(chain "$3") --scheme p1 --tend 0.001 --control order \
        --estimator "$2" --ctl-atol-u 0.1 --ctl-rtol-u 1e-3 --threads 1 >"$out/ex2_$2_$3.txt"
}
X5="--scheme p2 --tend 0.001 --control step --rmin 0.5 --rmax 1.5 --ctl-rtol 1e-4 --ctl-atol-x 1e-8 --ctl-atol-v 1e-4"
ex5() { # ex|im SF
    if [ "$1" = ex ]; then set -- "$1" "$2" explicit 1e4 exmilne; else set -- "$1" "$2" implicit 5e5 immilne; fi
    # shellcheck disable=SC2046,SC2086
    "$cosa" simulate --coupling "$3" $(chain "$4") $X5 --sf "$2" --estimator "$5" --threads 1 \
        >"$out/ex5_$1_$2.txt"
}
ex4() { # fd|los
    # shellcheck disable=SC2046
    "$cosa" simulate --coupling implicit $(chain 1e3) --set n=64 --set r=16 --scheme p1 \
        --tend 0.0002 --control order --estimator imslocal --ctl-atol-u 0.1 --ctl-rtol-u 1e-3 \
        --corrector-jacobian "$1" --max-attempts 4000 --threads 1 >"$out/ex4_$1.txt"
}
threads() { # N: the thread-scaling run with N threads (Ex 6 below)
    "$cosa" simulate --coupling explicit --model chain-ff --set n=10000 --set r=16 --set x0max=1e-3 \
        --set v0max=1 --set seed=3 --scheme soh --dt 1e-4 --tend 0.005 --ref-rtol 1e-8 --rtol 1e-8 \
        --threads "$1" >"$out/threads_$1.txt"
}
# Longest first (the pool's end then holds only short runs, and both cores stay
# busy to the last): the runs by their CPU seconds measured on a 2-core
# machine (29 Nov 2026, in s: ex3 implicit immilne 0 15.0, imslocal 0 12.1,
# explicit exmilne/exlocal 0 and 3 4.7-5.2, ex1 implicit 3.5-3.8, ... the
# Ex 5 implicit runs 0.5 each; 125 s in all).  The one-thread run of sect.
# 6.6.1 takes one slot like the others; the two-thread run below waits for
# both cores.  The order changes no number (each run is its own process).
runs="ex3:implicit:immilne:0 ex3:implicit:imslocal:0 ex3:explicit:exmilne:0
ex3:explicit:exlocal:0 ex3:explicit:exlocal:3 ex3:explicit:exmilne:3 ex1:implicit:imslocal
ex1:implicit:immilne ex3:implicit:imslocal:1 ex5:ex:1 ex5:ex:2 threads:1 ex5:ex:3 ex4:los
ex2:explicit:exslocal:1e6 ex5:ex:4 ex5:ex:8 ex5:ex:6 ex3:explicit:exlocal:2
ex3:explicit:exmilne:2 ex3:implicit:immilne:3 ex3:explicit:exslocal:0 ex4:fd
ex3:explicit:exslocal:3 ex3:explicit:exmilne:1 ex3:explicit:exlocal:1 ex3:implicit:imslocal:3
ex3:explicit:exlocal:order ex3:explicit:exmilne:order ex3:explicit:exslocal:1
ex2:implicit:imslocal:1e3 ex3:explicit:exslocal:2 ex2:implicit:imslocal:1e4
ex3:implicit:immilne:1 ex3:implicit:imslocal:2 ex3:explicit:exslocal:order
ex2:explicit:exslocal:1e3 ex2:explicit:exslocal:1e5 ex2:explicit:exslocal:1e4
ex3:implicit:imslocal:order ex2:implicit:imslocal:1e5 ex1:explicit:exlocal ex1:explicit:exmilne
ex1:explicit:exslocal ex3:implicit:immilne:2 ex2:implicit:imslocal:1e6
ex3:implicit:immilne:order ex5:im:8 ex5:im:6 ex5:im:2 ex5:im:1 ex5:im:3 ex5:im:4"
for r in $runs; do
    # shellcheck disable=SC2046 # the words of the run, split on purpose
    par $(echo "$r" | tr : ' ')
done
drain

# ---- Ex 1: nonlinear two-mass oscillator (sect. 6.1, Figs 11-14) ------------------
{
    echo
    echo "## Ex 1: twomass-ff (sect. 6.1), order and step control, H0 = 1e-4 s, k0 = 1"
    echo
    echo "SF 6, rtol 1e-5, atol_x 1e-8, atol_v 1e-5, atol_fc 0.1, rtol_fc 1e-3, CVODE units"
    echo "(rtol 1e-10), reference CVODE rtol 1e-12, 1 s."
    echo
    echo "| estimator | steps | rejected | H_min | H_mean | H_max | k_hist | e36_all | e_end | corrector_iters | seconds_cosim |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
} >>"$sum"
files=""
for ce in explicit:exlocal explicit:exmilne explicit:exslocal implicit:immilne implicit:imslocal; do
    e=${ce#*:}
    printf '| %s |' "$e" >>"$sum"
    row "$out/ex1_$e.txt" steps rejected H_min H_mean H_max k_hist e36_all e_end corrector_iters \
        seconds_cosim >>"$sum"
    files="$files ex1_$e.csv"
done
cat >"$out/ex1_steps.gp" <<EOT
# Ex 1 (Figs 12-13): macro step H and degree k of the five estimators
set terminal pngcairo enhanced size 1000,1100 font ",11"
set output "ex1_steps.png"
set datafile separator ","
set key outside right top noenhanced
set grid lc rgb "#e0e0e0"
files = "$files"
names = "exlocal exmilne exslocal immilne imslocal"
set xrange [0:1.001]
set multiplot layout 6,1 title "twomass-ff (variable-order paper Ex 1): H (log) and k against t"
set logscale y
set format y "10^{%L}"
set ylabel "H [s]"
plot for [c = 1:5] word(files, c) skip 1 using 1:(\$4 == 1 ? \$2 : NaN) with steps lc c title word(names, c)
unset logscale y
set format y "%g"
set yrange [-0.5:5.5]
do for [c = 1:5] {
  set ylabel word(names, c)
  plot word(files, c) skip 1 using 1:(\$4 == 1 ? \$3 : NaN) with steps lc c title "k"
}
unset multiplot
EOT
cat >"$out/ex1_states.gp" <<EOT
# Ex 1 (Fig 11): x1 and v1 of the five estimators and the reference
set terminal pngcairo enhanced size 1000,800 font ",11"
set output "ex1_states.png"
set datafile separator ","
set key outside right top noenhanced
set grid lc rgb "#e0e0e0"
files = "$files"
names = "exlocal exmilne exslocal immilne imslocal"
set multiplot layout 2,1 title "twomass-ff: x_1 and v_1 (co-simulations and the monolithic reference)"
set ylabel "x_1 [m]"
plot for [c = 1:5] word(files, c) skip 1 using 1:(\$4 == 1 ? \$10 : NaN) with lines lc c title word(names, c), \
     word(files, 1) skip 1 using 1:(\$4 == 1 ? \$14 : NaN) with lines lc rgb "black" dt 2 title "reference"
set ylabel "v_1 [m/s]"
set xlabel "t [s]"
plot for [c = 1:5] word(files, c) skip 1 using 1:(\$4 == 1 ? \$11 : NaN) with lines lc c title word(names, c), \
     word(files, 1) skip 1 using 1:(\$4 == 1 ? \$15 : NaN) with lines lc rgb "black" dt 2 title "reference"
unset multiplot
EOT
awk -F'|' 'NR > 0 && $2 ~ /(ex|im)(local|milne|slocal)/ { gsub(/ /, "", $2); print $2, $3, $9 }' \
    "$sum" >"$out/ex1_summary.dat"
cat >"$out/ex1_totals.gp" <<EOT
# Ex 1 (Fig 14): macro steps and global error (eq 36) per estimator
set terminal pngcairo enhanced size 900,500 font ",11"
set output "ex1_totals.png"
set style data histograms
set style fill solid 0.7
set boxwidth 0.8
set grid y lc rgb "#e0e0e0"
set xtics rotate by -30
set multiplot layout 1,2 title "twomass-ff: macro steps and e36 (all states)"
set ylabel "accepted macro steps"
set yrange [0:*]
plot "ex1_summary.dat" using 2:xtic(1) notitle lc rgb "#4060c0"
set ylabel "e36"
set autoscale y
set logscale y
plot "ex1_summary.dat" using 3:xtic(1) notitle lc rgb "#c04040"
unset multiplot
EOT

# ---- the chain of Ex 2-5, scaled down ---------------------------------------------------
{
    echo
    echo "## Ex 3: constant against variable degree (sect. 6.3), chain n = 40, r = 4, 1 ms"
    echo
    echo "Explicit runs with d = 1e4, implicit (FD Jacobian) with d = 5e5; rtol 1e-4,"
    echo "atol_x 1e-7, atol_v 1e-4, atol_u 1e-2, SF 6, H0 = 1e-6 s. 'k = K' rows: step"
    echo "control at the fixed degree K; 'order': order and step control (k0 = 1)."
    echo
    echo "| estimator | k | status | steps | rejected | e36_coupling | seconds_cosim |"
    echo "|---|---|---|---|---|---|---|"
} >>"$sum"
for ce in explicit:exlocal explicit:exmilne explicit:exslocal implicit:immilne implicit:imslocal; do
    e=${ce#*:}
    for k in 0 1 2 3 order; do
        printf '| %s | %s |' "$e" "$k" >>"$sum"
        row "$out/ex3_${e}_$k.txt" status steps rejected e36_coupling seconds_cosim >>"$sum"
    done
done

# ---- Ex 2: explicit against implicit as the damping grows (sect. 6.2, Fig 21) ------------
{
    echo
    echo "## Ex 2: explicit (ExSLocal) against implicit (ImSLocal, FD), order control"
    echo
    echo "Chain n = 40, r = 4, 1 ms, atol_u 0.1, rtol_u 1e-3 (the paper's lambda tolerances)."
    echo
    echo "| d | explicit steps | explicit seconds | implicit steps | implicit corrector_iters | implicit seconds |"
    echo "|---|---|---|---|---|---|"
} >>"$sum"
: >"$out/ex2.dat"
for d in 1e3 1e4 1e5 1e6; do
    ex="$out/ex2_exslocal_$d.txt" im="$out/ex2_imslocal_$d.txt"
    echo "| $d | $(val "$ex" steps) | $(val "$ex" seconds_cosim) | $(val "$im" steps) |" \
        "$(val "$im" corrector_iters) | $(val "$im" seconds_cosim) |" >>"$sum"
    echo "$d $(val "$ex" steps) $(val "$ex" seconds_cosim) $(val "$im" steps) $(val "$im" seconds_cosim)" \
        >>"$out/ex2.dat"
done
cat >"$out/ex2.gp" <<EOT
# Ex 2 (Fig 21): computation time and macro steps against the damping d
set terminal pngcairo enhanced size 900,500 font ",11"
set output "ex2.png"
set grid lc rgb "#e0e0e0"
set logscale xy
set xlabel "damping d [N s/m]"
set multiplot layout 1,2 title "chain-ff: explicit (ExSLocal) vs implicit (ImSLocal)"
set ylabel "co-simulation time [s]"
plot "ex2.dat" using 1:3 with linespoints pt 7 title "explicit", \
     "" using 1:5 with linespoints pt 5 title "implicit"
set ylabel "accepted macro steps"
plot "ex2.dat" using 1:2 with linespoints pt 7 title "explicit", \
     "" using 1:4 with linespoints pt 5 title "implicit"
unset multiplot
EOT

# ---- Ex 5: the safety factor (sect. 6.5, Fig 35) -----------------------------------------
{
    echo
    echo "## Ex 5: the safety factor SF (sect. 6.5)"
    echo
    echo "Chain n = 40, r = 4, d = 1e4 (explicit) / 5e5 (implicit), k = 2, step control,"
    echo "rmin 0.5, rmax 1.5, rtol 1e-4, atol_x 1e-8, atol_v 1e-4, 1 ms (impulses instead of"
    echo "the paper's sin^95 forces, which chain-ff does not have)."
    echo
    echo "| SF | ExMilne steps | rejected | seconds | ImMilne steps | rejected | seconds |"
    echo "|---|---|---|---|---|---|---|"
} >>"$sum"
: >"$out/ex5.dat"
for sf in 1 2 3 4 6 8; do
    ex="$out/ex5_ex_$sf.txt" im="$out/ex5_im_$sf.txt"
    echo "| $sf | $(val "$ex" steps) | $(val "$ex" rejected) | $(val "$ex" seconds_cosim) |" \
        "$(val "$im" steps) | $(val "$im" rejected) | $(val "$im" seconds_cosim) |" >>"$sum"
    echo "$sf $(val "$ex" seconds_cosim) $(val "$im" seconds_cosim) $(val "$ex" steps) $(val "$im" steps)" \
        >>"$out/ex5.dat"
done
cat >"$out/ex5.gp" <<EOT
# Ex 5 (Fig 35): computation time against the safety factor
set terminal pngcairo enhanced size 900,500 font ",11"
set output "ex5.png"
set grid lc rgb "#e0e0e0"
set style data histograms
set style fill solid 0.7
set yrange [0:*]
set multiplot layout 1,2 title "chain-ff: co-simulation time against SF"
set ylabel "explicit (ExMilne) time [s]"
plot "ex5.dat" using 2:xtic(1) lc rgb "#4060c0" notitle
set ylabel "implicit (ImMilne) time [s]"
plot "ex5.dat" using 3:xtic(1) lc rgb "#c04040" notitle
unset multiplot
EOT

# ---- Ex 4: FD against LOS (sect. 6.4): cores per step ---------------------------------
{
    echo
    echo "## Ex 4: interface Jacobian by FD and LOS (sect. 6.4), chain n = 64, r = 16"
    echo
    echo "ImSLocal, order control, 0.2 ms, d = 1e3 (H d/m stays below 1, where the two"
    echo "Taylor terms of LOS hold; at d = 1e4 LOS needs 7 times the corrector iterations"
    echo "of FD, doc/variable-order.md).  cores = units + FD perturbations + master: the cores a fully"
    echo "parallel run uses per macro step."
    echo
    echo "| jacobian | cores | status | steps | rejected | corrector_iters | e36_coupling | seconds_cosim |"
    echo "|---|---|---|---|---|---|---|---|"
} >>"$sum"
for j in fd los; do
    printf '| %s |' "$j" >>"$sum"
    row "$out/ex4_$j.txt" cores status steps rejected corrector_iters e36_coupling seconds_cosim \
        >>"$sum"
done

# ---- sect. 6.6.1: threads and monolithic time ---------------------------------------------
{
    echo
    echo "## Threads and the monolithic time (sect. 6.6.1)"
    echo
    echo "chain-ff n = 10000, r = 16 (c 1e4, d 10, m 1, random x0/v0), explicit SOH, fixed"
    echo "H = 1e-4 s, 50 steps; the units advance in parallel (OpenMP).  seconds_reference is"
    echo "the monolithic CVODE (band) solution at rtol 1e-8 at the same points; the units'"
    echo "CVODE runs at rtol 1e-8 too."
    echo
    echo "| threads | seconds_cosim | seconds_reference | e36_coupling |"
    echo "|---|---|---|---|"
} >>"$sum"
threads 2
for th in 1 2; do
    printf '| %s |' "$th" >>"$sum"
    row "$out/threads_$th.txt" seconds_cosim seconds_reference e36_coupling >>"$sum"
done

if [ -n "$gp" ]; then # PAPER_JOBS at once, as the runs
    for s in ex1_steps ex1_states ex1_totals ex2 ex5; do
        # in the scripts' directory: they name their files from there
        par sh -c 'cd "$1" && exec "$2" "$3"' sh "$out" "$gp" "$s.gp"
    done
    drain
fi
echo "make paper-varorder: the variable-order paper's examples in $out/ (summary.md)"
