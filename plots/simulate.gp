# Template of the scripts `cosa simulate` writes: every output of the
# co-simulation (corrected outputs, solid) against the monolithic reference
# (dashed) over time, one panel per output.  For twomass-nl the first panel
# (s1) is Fig 9 of the MBCorr paper.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
f     = "@FILE@"
names = "@NAMES@"
ycol  = @YCOL@
rcol  = @RCOL@
nout  = words(names)
hpx   = 240 * nout + 60
if (fmt eq "png") { set terminal pngcairo enhanced size 900,hpx font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 900,hpx font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 7in,(2.0 * nout + 0.5) font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
# the header row of the CSV is skipped as an invalid data line
# one layout for all panels: the same left margin (the plot areas line up
# whatever the tick labels), one number format (%h: 0.12, 4×10^5), a shared
# time axis labelled on the bottom panel, one key under the title, clear of
# the curves
set grid lc rgb "#e0e0e0"
set tics out
set autoscale xfix
set format y "%.3h"
set key horizontal center top at screen 0.5, screen 1 - 34.0 / hpx noenhanced samplen 3
set multiplot layout nout,1 title "@TITLE@" noenhanced \
    margins 0.14, 0.97, 62.0 / hpx, 1 - 66.0 / hpx spacing 0.0, 30.0 / hpx
do for [k = 1:nout] {
    # the output's name as y label, at the same x in every panel
    set label 1 word(names, k) at screen 0.02, graph 0.5 center rotate by 90 noenhanced
    if (k == nout) { set xlabel "t [s]"; set format x "%g" } else { unset xlabel; set format x "" }
    if (k > 1) { unset key }
    plot f using 1:(column(ycol + k - 1)) with lines lw 1.4 lc rgb "#1f77b4" title "co-simulation", \
         f using 1:(column(rcol + k - 1)) with lines lw 1.4 dt 2 lc rgb "black" title "reference"
}
unset multiplot
