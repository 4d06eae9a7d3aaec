# Template of the energy scripts `cosa simulate --energy -o` writes (energy
# paper, Figs 9-10 and 20-31): top, the co-simulated mechanical energy E,
# the reference's E_ref and E0 + the residual energy dE; bottom, the
# residual power dP.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
f = "@FILE@"
if (fmt eq "png") { set terminal pngcairo enhanced size 900,640 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 900,640 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 7in,5in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
# columns: t, E, E_ref, dP, dE, varsigma, ...; the header row is skipped as
# an invalid data line
E0 = @E0@
set grid lc rgb "#e0e0e0"
set tics out
set autoscale xfix
set format y "%.3h"
set key top left vertical enhanced samplen 3 box opaque
set multiplot layout 2,1 title "@TITLE@" noenhanced margins 0.14, 0.97, 0.09, 0.93 spacing 0.0, 0.06
set ylabel "energy [J]"
set format x ""
plot f using 1:2 with lines lw 1.6 lc rgb "#1f77b4" title "E co-simulation", \
     f using 1:3 with lines lw 1.4 dt 2 lc rgb "black" title "E_{ref} reference", \
     f using 1:(E0 + column(5)) with lines lw 1.2 lc rgb "#d62728" title "E_0 + δE residual energy"
unset key
set ylabel "δP [W]"
set xlabel "t [s]"
set format x "%g"
plot f using 1:4 with lines lw 1.0 lc rgb "#d62728" title "δP"
unset multiplot
