#!/bin/sh
# paper-blackbox.sh COSA FMUDIR OUTDIR -- `make paper-blackbox` (also run by make paper):
# predictions that hold on black boxes (issue 31; doc/simulate-black-box.md).  For the
# two-mass pair whose subsystem II is a black box (tests/fmu/twomass2_hid_fmi3.fmu: no states
# declared), the stability limit cosa limit predicts (II identified) beside the declared-state
# twin's (the truth), and the co-simulation of the FMUs themselves (ZOH, --ref none) just below
# (0.9 L) and just above (1.1 L) it, with the growth per macro step rho(Phi)^n predicted there.
# The same for a black box whose outputs lag (tests/fmu/twomass2_lag_fmi3.fmu: forward Euler at
# 1e-5 s, outputs computed only in doStep, as the OSP quarter truck's FMUs), its runs at the
# multiples of its step nearest 0.9 L and 1.1 L, the prediction rho^n from its identified model.
# Data, a gnuplot script and a PNG picture into OUTDIR, and OUTDIR/summary.md.
set -e
cosa=${1:?usage: paper-blackbox.sh COSA FMUDIR OUTDIR}
fmu=${2:?usage: paper-blackbox.sh COSA FMUDIR OUTDIR}
out=${3:?usage: paper-blackbox.sh COSA FMUDIR OUTDIR}
mkdir -p "$out"
case $fmu in /*) ;; *) fmu=$(pwd)/$fmu ;; esac
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
pair() { # NAME FMU_II
    cat >"$out/$1.cosa" <<END
model $1
tend 0.1
fmu I = $fmu/twomass1_fmi3.fmu
fmu II = $fmu/$2
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}
pair declared twomass2_fmi3.fmu
pair blackbox twomass2_hid_fmi3.fmu
pair lag twomass2_lag_fmi3.fmu
"$cosa" limit --model-file "$out/declared.cosa" --scheme zoh --criterion stable >"$out/limit_declared.txt"
"$cosa" limit --model-file "$out/blackbox.cosa" --scheme zoh --criterion stable \
    >"$out/limit_blackbox.txt" 2>"$out/limit_blackbox.err"
L=$(val "$out/limit_declared.txt" dt_max)
Lb=$(val "$out/limit_blackbox.txt" dt_max)
lo=$(awk -v L="$Lb" 'BEGIN { printf "%.6g", 0.7 * L }')
hi=$(awk -v L="$Lb" 'BEGIN { printf "%.6g", 1.3 * L }')
for m in declared blackbox; do
    "$cosa" curve --model-file "$out/$m.cosa" --scheme zoh --x dt="$lo:$hi:lin:121" --metric rho \
        -o "$out" --name "rho_$m" >"$out/rho_$m.txt" 2>/dev/null
done
N=1500
for f in 0.9 1.1; do
    dt=$(awk -v L="$Lb" -v f="$f" 'BEGIN { printf "%.17g", f * L }')
    tend=$(awk -v h="$dt" -v n="$N" 'BEGIN { printf "%.17g", n * h }')
    "$cosa" point --model-file "$out/declared.cosa" --scheme zoh --dt "$dt" >"$out/point_$f.txt"
    "$cosa" simulate --model-file "$out/blackbox.cosa" --scheme zoh --dt "$dt" --tend "$tend" \
        --ref none -o "$out" --name "run_$f" >"$out/run_$f.txt" 2>"$out/run_$f.err"
    rho=$(val "$out/point_$f.txt" rho)
    # n, |s1|, and the predicted envelope rho^n anchored at the largest |s1| of n = 300..499
    awk -F, -v rho="$rho" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == "y.I.s1") c = i; h = 1; n = -1; next }
        { n++; a[n] = $c < 0 ? -$c : $c; if (n >= 300 && n < 500 && a[n] > e) { e = a[n]; ne = n } }
        END { for (k = 0; k <= n; k++) printf "%d %.17g %.17g\n", k, a[k], e * rho ^ (k - ne) }' \
        "$out/run_$f.csv" >"$out/amp_$f.dat"
    eval "dt_$(echo $f | tr . _)=\$dt rho_$(echo $f | tr . _)=\$rho"
    x=$(awk -F, -v rho="$rho" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == "y.I.s1") c = i; h = 1; n = -1; next }
        { n++; a = $c < 0 ? -$c : $c
          if (n >= 300 && n < 500 && a > e) e = a
          if (n >= 1300 && n < 1500 && a > l) l = a }
        END { printf "%.4g %.4g", l / e, rho ^ 1000 }' "$out/run_$f.csv")
    eval "ratio_$(echo $f | tr . _)=\"\$x\""
done
# the lag pair: its own limit, runs at multiples of 1e-5 s below 0.9 L and above 1.1 L
"$cosa" limit --model-file "$out/lag.cosa" --scheme zoh --criterion stable >"$out/limit_lag.txt" \
    2>"$out/limit_lag.err"
Ll=$(val "$out/limit_lag.txt" dt_max)
for f in 0.9 1.1; do
    dt=$(awk -v L="$Ll" -v f="$f" 'BEGIN { k = int(f * L / 1e-5); if (f > 1) k++; printf "%.17g", k * 1e-5 }')
    tend=$(awk -v h="$dt" -v n="$N" 'BEGIN { printf "%.17g", n * h }')
    "$cosa" point --model-file "$out/lag.cosa" --scheme zoh --dt "$dt" >"$out/point_lag_$f.txt" 2>/dev/null
    "$cosa" simulate --model-file "$out/lag.cosa" --scheme zoh --dt "$dt" --tend "$tend" \
        --ref none -o "$out" --name "run_lag_$f" >"$out/run_lag_$f.txt" 2>"$out/run_lag_$f.err"
    rho=$(val "$out/point_lag_$f.txt" rho)
    awk -F, -v rho="$rho" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == "y.I.s1") c = i; h = 1; n = -1; next }
        { n++; a[n] = $c < 0 ? -$c : $c; if (n >= 300 && n < 500 && a[n] > e) { e = a[n]; ne = n } }
        END { for (k = 0; k <= n; k++) printf "%d %.17g %.17g\n", k, a[k], e * rho ^ (k - ne) }' \
        "$out/run_lag_$f.csv" >"$out/amp_lag_$f.dat"
    x=$(awk -F, -v rho="$rho" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == "y.I.s1") c = i; h = 1; n = -1; next }
        { n++; a = $c < 0 ? -$c : $c
          if (n >= 300 && n < 500 && a > e) e = a
          if (n >= 1300 && n < 1500 && a > l) l = a }
        END { printf "%.4g %.4g", l / e, rho ^ 1000 }' "$out/run_lag_$f.csv")
    g=$(echo $f | tr . _)
    eval "lagdt_$g=\$dt lagrho_$g=\$rho lagratio_$g=\"\$x\""
done
cat >"$out/blackbox.gp" <<EOT
# cosa paper-blackbox: the predicted stability limit of a black-box pair beside the
# co-simulation of the FMUs themselves just below and above it
set terminal pngcairo size 1000,1200 font ",11"
set output "blackbox.png"
set multiplot layout 3,1 title "two-mass pair, subsystem II a black box (no states declared), ZOH"
set xlabel "macro step {/Symbol D}T [s]"
set ylabel "{/Symbol r}({/Symbol F})"
set grid
set key left top box opaque
set arrow 1 from $Lb, graph 0 to $Lb, graph 1 nohead dt 2 lc rgb "black"
set label 1 sprintf(" predicted limit %.6g s", $Lb) at $Lb, graph 0.92
set arrow 2 from $dt_0_9, graph 0 to $dt_0_9, graph 1 nohead lc rgb "#1a9850"
set arrow 3 from $dt_1_1, graph 0 to $dt_1_1, graph 1 nohead lc rgb "#d73027"
plot "rho_blackbox.dat" u 1:2 w l lw 2 t "black box identified (cosa curve)", \\
     "rho_declared.dat" u 1:2 w p pt 7 ps 0.4 t "declared-state twin (truth)", 1 w l lc rgb "grey" notitle
unset arrow
unset label
set logscale y
set format y "10^{%T}"
set xlabel "macro step n"
set ylabel "|s_1| (FMU I's output)"
set key left bottom box opaque
plot "amp_0.9.dat" u 1:2 w l lc rgb "#1a9850" t sprintf("co-simulation of the FMUs at 0.9 L ({/Symbol r} = %.5f)", $rho_0_9), \\
     "amp_0.9.dat" u 1:3 w l dt 2 lw 2 lc rgb "black" t "predicted: {/Symbol r}^n from the twin's {/Symbol F}", \\
     "amp_1.1.dat" u 1:2 w l lc rgb "#d73027" t sprintf("co-simulation of the FMUs at 1.1 L ({/Symbol r} = %.5f)", $rho_1_1), \\
     "amp_1.1.dat" u 1:3 w l dt 2 lw 2 lc rgb "black" notitle
set title sprintf("II a black box whose output lags (computed only in doStep): predicted limit %.6g s", $Ll)
plot "amp_lag_0.9.dat" u 1:2 w l lc rgb "#1a9850" t sprintf("co-simulation of the FMUs at %g s ({/Symbol r} = %.5f)", $lagdt_0_9, $lagrho_0_9), \\
     "amp_lag_0.9.dat" u 1:3 w l dt 2 lw 2 lc rgb "black" t "predicted: {/Symbol r}^n from the identified {/Symbol F}", \\
     "amp_lag_1.1.dat" u 1:2 w l lc rgb "#d73027" t sprintf("co-simulation of the FMUs at %g s ({/Symbol r} = %.5f)", $lagdt_1_1, $lagrho_1_1), \\
     "amp_lag_1.1.dat" u 1:3 w l dt 2 lw 2 lc rgb "black" notitle
unset multiplot
EOT
if command -v gnuplot >/dev/null; then (cd "$out" && gnuplot blackbox.gp); fi
{
    echo "# Black boxes: predictions that hold (make paper-blackbox)"
    echo
    echo "Two-mass pair, FMU I declared, FMU II a black box (no states declared), ZOH."
    echo "Every number is printed by cosa (files in this directory)."
    echo
    echo "| | value |"
    echo "|---|---|"
    echo "| stability limit, black box identified (cosa limit) | $Lb s |"
    echo "| stability limit, declared-state twin (truth) | $L s |"
    echo "| rho at 0.9 L, 1.1 L (cosa point, twin) | $rho_0_9, $rho_1_1 |"
    echo "| amplitude ratio n = 1300..1499 over 300..499 at 0.9 L: measured, rho^1000 | $(echo $ratio_0_9 | tr ' ' ',') |"
    echo "| amplitude ratio n = 1300..1499 over 300..499 at 1.1 L: measured, rho^1000 | $(echo $ratio_1_1 | tr ' ' ',') |"
    echo "| output-lag black box (outputs only in doStep): stability limit (cosa limit) | $Ll s |"
    echo "| its runs at $lagdt_0_9 s, $lagdt_1_1 s (multiples of its step 1e-5 s): rho | $lagrho_0_9, $lagrho_1_1 |"
    echo "| its amplitude ratio n = 1300..1499 over 300..499 at $lagdt_0_9 s: measured, rho^1000 | $(echo $lagratio_0_9 | tr ' ' ',') |"
    echo "| its amplitude ratio n = 1300..1499 over 300..499 at $lagdt_1_1 s: measured, rho^1000 | $(echo $lagratio_1_1 | tr ' ' ',') |"
    echo
    echo "Picture: blackbox.png."
} >"$out/summary.md"
echo "make paper-blackbox: $out/summary.md, $out/blackbox.png"
