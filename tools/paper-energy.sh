#!/bin/sh
# paper-energy.sh COSA OUTDIR -- `make paper-energy` (also run by make paper):
# the energy paper's figures into OUTDIR (data, gnuplot scripts, PNG) and a
# summary of the numbers the README quotes (OUTDIR/summary.md).
#   Figs 9-10   twomass-fd cases 1 and 2, single rate, uncorrected
#   Figs 11-12  mu against the step ratio R (cosa table --paper energy --table mu)
#   Figs 20-21  II ten times faster (R = 10), ZOH, uncorrected / mu auto
#   Figs 22-24  case 7 (m1 = 10 kg): uncorrected, mu = 0.5, mu = 0.5 with nu = 0.25
#   Figs 25-26  multi-fd, n = 3: uncorrected / mu = 0.5, limit 25 %
#   Figs 27-31  twomass-fd-nl: case 1 (eq 22 springs) mu = 0, 0.5, 0.7, 0.5 + nu 0.25;
#               case 2 (eq 23 dampers) mu = 0.5
# Paper setting: ZOH, H = 1 ms (the crane: FOH, its steps), T = 10 s, symplectic
# Euler with one step per unit step, held inputs, start from the initial state.
#   Figs 32-34  pendula: uncorrected, mu = 0.5 with nu = 1 (the paper's) and nu = 0
#   Figs 35-37  crane (FOH, multi-rate): R = 1/40 uncorrected and corrected; H = 11.5 ms
#               with h_H = 0.1 ms, uncorrected (the oscillation and the dP spike)
set -e
cosa=${1:?usage: paper-energy.sh COSA OUTDIR}
out=${2:?usage: paper-energy.sh COSA OUTDIR}
mkdir -p "$out"
S="--tend 10 --integrator symplectic-euler --micro step --input held --start initial --energy"
S="$S -o $out --plot png"
Z="--scheme zoh --dt 1e-3"
sum="$out/summary.md"
{
    echo "# The energy paper with cosa (make paper-energy)"
    echo
    echo "Paper setting: ZOH, H = 1 ms, T = 10 s, symplectic Euler (one step per unit step),"
    echo "held inputs, start from the initial state. E in J."
    echo
    echo "| figure | run | E0 | E(10) | E_ref(10) | dE(10) | max abs(varsigma) | mu_measured |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$sum"
# The runs are independent single-threaded processes (one system, their own
# files): two at a time, each row of the summary into NAME.row, joined in
# the order of the runs after the last (finish_runs); a failed run leaves
# no row and fails the script there.
runs=""
njobs=0
run() { # NAME FIGURE DESCRIPTION ARGS...
    name=$1 fig=$2 desc=$3
    shift 3
    runs="$runs $name"
    rm -f "$out/$name.row"
    (
        # shellcheck disable=SC2086
        "$cosa" simulate "$@" $S --name "$name" >"$out/$name.txt" &&
            awk -v f="$fig" -v d="$desc" '{ v[$1] = $2 }
            END { printf "| %s | %s | %.6g | %.6g | %.6g | %.6g | %.4g | %.4f |\n", f, d, v["E0"],
                  v["E_end"], v["E_ref_end"], v["dE_end"], v["max_varsigma"], v["mu_measured"] }' \
                "$out/$name.txt" >"$out/$name.row"
    ) &
    njobs=$((njobs + 1))
    if [ "$njobs" -ge 2 ]; then
        wait
        njobs=0
    fi
}
finish_runs() {
    wait
    for name in $runs; do
        if [ ! -s "$out/$name.row" ]; then
            echo "paper-energy.sh: the run $name failed (see $out/$name.txt)" >&2
            exit 1
        fi
        cat "$out/$name.row" >>"$sum"
        rm -f "$out/$name.row"
    done
}
run fig09_case1 9 "twomass-fd case 1" $Z --model twomass-fd
run fig10_case2 10 "case 2 (c1 = c2 = cc = 0.1)" $Z --model twomass-fd --set c1=0.1 --set c2=0.1 --set cc=0.1
run fig20_r10 20 "R = 10, uncorrected" $Z --model twomass-fd --rate II=10
run fig21_r10_mu 21 "R = 10, mu auto (0.725)" $Z --model twomass-fd --rate II=10 --mu auto
run fig22_case7 22 "case 7 (m1 = 10), uncorrected" $Z --model twomass-fd --set m1=10
run fig23_case7_mu 23 "case 7, mu = 0.5" $Z --model twomass-fd --set m1=10 --mu 0.5
run fig24_case7_nu 24 "case 7, mu = 0.5, nu = 0.25" $Z --model twomass-fd --set m1=10 --mu 0.5 --nu 0.25
run fig25_multi3 25 "multi-fd n = 3, uncorrected" $Z --model multi-fd --set n=3
run fig26_multi3_mu 26 "multi-fd n = 3, mu = 0.5, limit 25 %" $Z --model multi-fd --set n=3 --mu 0.5 --limit 0.25
run fig27_nl_mu0 27 "twomass-fd-nl case 1, mu = 0" $Z --model twomass-fd-nl --set spring=1 --mu 0
run fig28_nl_mu05 28 "case 1, mu = 0.5" $Z --model twomass-fd-nl --set spring=1 --mu 0.5
run fig29_nl_mu07 29 "case 1, mu = 0.7" $Z --model twomass-fd-nl --set spring=1 --mu 0.7
run fig31_nl_nu 31 "case 1, mu = 0.5, nu = 0.25" $Z --model twomass-fd-nl --set spring=1 --mu 0.5 --nu 0.25
run fig30_nl_case2 30 "case 2 (eq 23 dampers, c = 1e-3), mu = 0.5" $Z --model twomass-fd-nl --set damper=1 \
    --set c1=1e-3 --set c2=1e-3 --set cc=1e-3 --mu 0.5
run fig32_pendula 32 "pendula case 1, uncorrected" $Z --model pendula
run fig32_pendula_mu 32 "pendula, mu = 0.5, nu = 1 (the paper's)" $Z --model pendula --mu 0.5 --nu 1
run fig32_pendula_mu_nu0 32 "pendula, mu = 0.5, nu = 0" $Z --model pendula --mu 0.5
CR="--model crane --scheme foh"
run fig35_crane 35 "crane, FOH, h_M = 10 ms, h_H = 0.25 ms, uncorrected" $CR --dt 1e-2 --rate H=40
run fig35_crane_mu 35 "crane, as above, mu auto (0.0125), limit 10 % and 100 N" $CR --dt 1e-2 --rate H=40 \
    --mu auto --limit 0.1 --limit-abs 100
run fig36_crane 36 "crane, FOH, h_M = 11.5 ms, h_H = 0.1 ms, uncorrected" $CR --dt 0.0115 --rate H=115
finish_runs
# Figs 11-12: mu against R
"$cosa" table --paper energy --table mu >"$out/table_mu.md"
"$cosa" table --paper energy --table mu --format csv >"$out/table_mu.csv"
{
    echo
    echo "## Figs 11-12: mu against the step ratio R"
    echo
    cat "$out/table_mu.md"
    echo
    echo "Where cosa differs from the paper: doc/energy.md."
} >>"$sum"
cat >"$out/fig11_12_mu.gp" <<'END'
# mu against the step ratio R = h_df / h_ndf (Figs 11-12 of the energy paper):
# eqs 20-21 (lines) and mu_measured at 10 s and the fastest mode's mu (points)
# for ZOH, FOH, SOH.  Data: table_mu.csv (cosa table --paper energy --table mu).
# Render: gnuplot fig11_12_mu.gp -> fig11_12_mu.png
set terminal pngcairo enhanced size 1000,560 font ",11"
set output "fig11_12_mu.png"
set datafile separator ","
set multiplot layout 1,2 title "energy paper Figs 11-12: correction factor mu against R"
set grid lc rgb "#e0e0e0"
set xlabel "R = h_{df} / h_{ndf}"
set ylabel "mu"
set yrange [0:0.85]
set key outside below horizontal maxrows 2
set logscale x
set title "R > 1: feedthrough unit, larger step"
plot "table_mu.csv" using ($1 >= 1 && strcol(2) eq "ZOH" ? $1 : 1/0):3 w lp lw 2 lc rgb "#1f77b4" t "ZOH eq 20", \
     "" using ($1 >= 1 && strcol(2) eq "FOH" ? $1 : 1/0):3 w lp lw 2 lc rgb "#d62728" t "FOH/SOH eq 20", \
     "" using ($1 >= 1 && strcol(2) eq "ZOH" ? $1 : 1/0):5 w p pt 7 lc rgb "#1f77b4" t "ZOH measured 10 s", \
     "" using ($1 >= 1 && strcol(2) eq "FOH" ? $1 : 1/0):5 w p pt 7 lc rgb "#d62728" t "FOH measured 10 s", \
     "" using ($1 >= 1 && strcol(2) eq "SOH" ? $1 : 1/0):5 w p pt 6 lc rgb "#2ca02c" t "SOH measured 10 s", \
     "" using ($1 >= 1 && strcol(2) eq "ZOH" ? $1 : 1/0):6 w p pt 4 lc rgb "#1f77b4" t "ZOH mode"
set title "R < 1: feedthrough unit, smaller step"
plot "table_mu.csv" using ($1 <= 1 && strcol(2) eq "ZOH" ? $1 : 1/0):3 w lp lw 2 lc rgb "#1f77b4" t "ZOH eq 21", \
     "" using ($1 <= 1 && strcol(2) eq "FOH" ? $1 : 1/0):3 w lp lw 2 lc rgb "#d62728" t "FOH/SOH eq 21", \
     "" using ($1 <= 1 && strcol(2) eq "ZOH" ? $1 : 1/0):5 w p pt 7 lc rgb "#1f77b4" t "ZOH measured 10 s", \
     "" using ($1 <= 1 && strcol(2) eq "FOH" ? $1 : 1/0):5 w p pt 7 lc rgb "#d62728" t "FOH measured 10 s", \
     "" using ($1 <= 1 && strcol(2) eq "SOH" ? $1 : 1/0):5 w p pt 6 lc rgb "#2ca02c" t "SOH measured 10 s", \
     "" using ($1 <= 1 && strcol(2) eq "FOH" ? $1 : 1/0):6 w p pt 4 lc rgb "#d62728" t "FOH mode"
unset multiplot
END
if command -v gnuplot >/dev/null 2>&1; then
    (cd "$out" && gnuplot fig11_12_mu.gp)
fi
echo "make paper-energy: figures and $sum in $out/"
