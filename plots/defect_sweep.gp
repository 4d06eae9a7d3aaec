# Template of the scripts `cosa defect` writes for a sweep over the macro
# step H or the tolerance tol (defect paper Figs 5-10): one curve per entry
# of the lists below, each a column of a sweep table against its first
# column, on log-log axes.  With diag = 1 a dotted line y = x marks the
# tolerance (defects vs tol).  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
cols   = "@COLS@"
titles = "@TITLES@"
diag   = @DIAG@
ncurve = words(titles)
if (fmt eq "png") { set terminal pngcairo enhanced size 860,580 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 860,580 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6in,4in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
# the header row is skipped as an invalid data line; zero (e.g. Euler's output
# defect for n >= 1), NaN and inf are gaps on the log axis
fin(v) = (v != v || v <= 0 || v > 1e300) ? NaN : v
set logscale xy
set autoscale xfix # the swept range, not the next decade
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced
set key inside left top opaque box noenhanced
set grid lc rgb "#e0e0e0"
set tics out
set title "@TITLE@" noenhanced
plot for [c = 1:ncurve] word(files, c) using 1:(fin(column(int(word(cols, c))))) \
         with linespoints lw 1.5 pt 7 ps 0.6 lc int((c - 1) % 8 + 1) dt int((c - 1) / 8 + 1) \
         title word(titles, c), \
     (diag ? x : NaN) with lines lc rgb "black" dt 3 lw 1 title (diag ? "y = tol" : "")
