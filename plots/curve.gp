# Template of the scripts `cosa curve` writes: one curve per scheme (data
# column 2, 3, ...) against the swept quantity (column 1), with a dashed
# line at the level (rho = 1, or the error tolerance) as in Figs 5, 7 and 8
# of the MBCorr paper.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
f      = "@FILE@"
titles = "@TITLES@"
colors = "@COLORS@"
dashes = "@DASHES@"
level  = @LEVEL@
ncurve = words(titles)
if (fmt eq "png") { set terminal pngcairo enhanced size 800,560 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 800,560 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6in,4.2in font ",9" }
set output "@OUTBASE@." . fmt

# +inf (unstable) and NaN (failed) are gaps in the curves
fin(v) = (v != v || v > 1e300) ? NaN : v

@XLOG@set logscale x
@YLOG@set logscale y
@XLOG@set format x "10^{%L}"
@YLOG@set format y "10^{%L}"
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced
set key outside right top noenhanced
set grid lc rgb "#e0e0e0"
set tics out
set title "@TITLE@" noenhanced
plot for [c = 1:ncurve] f using 1:(fin(column(c + 1))) with lines lw 1.6 \
         lc int(word(colors, c)) dt int(word(dashes, c)) title word(titles, c), \
     level with lines lc rgb "black" dt 3 lw 1 title sprintf("%g", level)
