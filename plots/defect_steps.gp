# Template of the scripts `cosa defect` writes for runs (defect paper Fig 4b):
# the macro step H (drawn over its step) and the controlled defect eps of every
# step against the step's end time, one curve per run (per-step CSV: t, H, eps, ...), with
# the tolerance dotted when the run was controlled.  @NAME@ fields are
# filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
titles = "@TITLES@"
tol    = @TOL@
nrun   = words(files)
if (fmt eq "png") { set terminal pngcairo enhanced size 900,700 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 900,700 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6.5in,5in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
set key outside below center horizontal noenhanced samplen 2 # below: the panels keep their width
set grid lc rgb "#e0e0e0"
set tics out
set logscale y
set format y "10^{%L}"
set multiplot layout 2,1 title "@TITLE@" noenhanced
set xlabel "t [s]"
set ylabel "macro step H [s]"
plot for [c = 1:nrun] word(files, c) using 1:2 with fsteps lw 1.5 lc c title word(titles, c)
set ylabel "controlled defect eps"
plot for [c = 1:nrun] word(files, c) using 1:3 with linespoints lw 1.2 pt 7 ps 0.4 lc c \
         title word(titles, c), \
     (tol > 0 ? tol : NaN) with lines lc rgb "black" dt 3 title (tol > 0 ? "tol" : "")
unset multiplot
