# Template of the scripts `cosa defect` writes for the responses of runs
# (defect paper Fig 4a,b): every output's piecewise polynomial Y over each
# macro step (gaps between steps show the jumps), one curve per run, and the
# exact monolithic solution dashed when the model has one; one panel per
# output.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
titles = "@TITLES@"
names  = "@NAMES@"
exact  = "@EXACT@"
nrun   = words(files)
nout   = words(names)
hpx    = 280 * nout + 60
if (fmt eq "png") { set terminal pngcairo enhanced size 960,hpx font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 960,hpx font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6.5in,(2.2 * nout + 0.5) font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
set key outside below center horizontal noenhanced samplen 2 # below: the panels keep their width
set grid lc rgb "#e0e0e0"
set tics out
set xlabel "t [s]"
set multiplot layout nout,1 title "@TITLE@" noenhanced
do for [k = 1:nout] {
    set ylabel word(names, k) noenhanced
    if (strlen(exact) > 0) {
        plot for [c = 1:nrun] word(files, c) using 1:(column(k + 1)) with lines lw 1.5 lc c \
                 title word(titles, c), \
             exact using 1:(column(k + 1)) with lines lw 1.2 dt 2 lc rgb "black" title "exact"
    } else {
        plot for [c = 1:nrun] word(files, c) using 1:(column(k + 1)) with lines lw 1.5 lc c \
                 title word(titles, c)
    }
}
unset multiplot
