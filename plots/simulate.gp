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
set output "@OUTBASE@." . fmt

set datafile separator ","
# the header row of the CSV is skipped as an invalid data line
set key top right noenhanced
set grid lc rgb "#e0e0e0"
set tics out
set xlabel "t [s]"
set multiplot layout nout,1 title "@TITLE@" noenhanced
do for [k = 1:nout] {
    set ylabel word(names, k) noenhanced
    plot f using 1:(column(ycol + k - 1)) with lines lw 1.4 lc rgb "#1f77b4" title "co-simulation", \
         f using 1:(column(rcol + k - 1)) with lines lw 1.4 dt 2 lc rgb "black" title "reference"
}
unset multiplot
