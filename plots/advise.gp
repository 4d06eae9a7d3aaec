# Template of the script `cosa advise -o DIR` writes: the usable macro step
# of every candidate scheme as bars on a log scale, sorted by cost as in the
# table (with --robust, the worst over the assumed models beside it).
# @NAME@ fields are filled in by cosa.
#
# Render:  gnuplot advise.gp                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' advise.gp  (or "pdf")
if (!exists("fmt")) fmt = "png"
f = "@FILE@"
if (fmt eq "png") { set terminal pngcairo enhanced size 900,520 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 900,520 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6.5in,3.8in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set title "@TITLE@" noenhanced
set ylabel "usable macro step ΔT [s]"
set logscale y
set format y "10^{%L}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -40 left noenhanced nomirror
set grid ytics lc rgb "#e0e0e0"
set key top right
set bmargin 7
# not usable (NaN): no bar; the table says why
fin(v) = (v != v) ? 1/0 : v
plot f using (fin($3)):xtic(2) title "nominal" lc rgb "#3465a4" \
@ROBUST@    , f using (fin($4)) title "robust (worst assumed model)" lc rgb "#cc0000"
