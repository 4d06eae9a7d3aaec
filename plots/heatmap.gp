# Template of the --heatmap scripts of `cosa map`: the metric itself over the
# parameter plane, one panel per macro step dT (one data file), with the
# contour metric = level in white; the note says which side of it is stable
# or accurate.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
f      = "@FILE@"
# the contour lines cosa traced (NAME_SCHEME_lines.dat, block k - 1 for dT
# k), or "" for gnuplot's own tracing (--contour gnuplot, deprecated)
lines  = "@LINES@"
level  = @LEVEL@
zlog   = @ZLOG@
nb   = @NBLOCK@
ncol = (nb > 1) ? 2 : 1
nrow = (nb + ncol - 1) / ncol
if (fmt eq "png") { set terminal pngcairo enhanced size 600*ncol, 450*nrow font ",10" }
if (fmt eq "svg") { set terminal svg enhanced size 600*ncol, 450*nrow font ",10" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size (5.0*ncol), (3.75*nrow) font ",8" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

# colour: log10 of an error (clipped to 1e-12 .. 1e3), rho clipped to [0, 2];
# one colour range for all panels (the range of the finite values of the
# whole file, in whole decades for errors); +inf (unstable) in grey, above
# the range, labelled on the colour box; NaN (failed) is a hole: white
zc(v) = zlog ? ((v > 1e3) ? 3 : ((v < 1e-12) ? -12 : log10(v))) : ((v > 2) ? 2 : v)
gmin = 1e308
gmax = -1e308
ninf = 0
acc(v) = (v != v) ? 0 : ((v > 1e300) ? ninf = ninf + 1 : \
         (gmin = (zc(v) < gmin) ? zc(v) : gmin, gmax = (zc(v) > gmax) ? zc(v) : gmax))
set table $scratch
plot f @DATASPEC@ using (acc($4)):(0) with table
unset table
if (gmin > gmax) { gmin = 0; gmax = 1 }
if (zlog) { lo = floor(gmin); hi = ceil(gmax) } else { lo = 0; hi = 2 }
if (hi <= lo) { hi = lo + 1 }
top  = hi + (hi - lo) / 7.0
r    = (hi - lo) / (top - lo)
zinf = (hi + top) / 2
clip(v) = (v != v) ? NaN : ((v > 1e300) ? zinf : zc(v))
set cbrange [lo:top]
set palette defined (0 "#3b1fb0", 0.25 * r "#1f8fe8", 0.5 * r "#40d890", 0.75 * r "#f0c030", \
                     r "#d81c1c", r "#9a9a9a", 1 "#9a9a9a")
set cbtics lo, (zlog ? ((hi - lo > 8) ? 2 : 1) : 0.5), hi
set cbtics add ("unstable" zinf)
if (!zlog) { set cbtics add ("≥ 2" 2) }
zl = zlog ? log10(level) : level

set view map
if (lines eq "") { set contour base; unset clabel; set cntrparam levels discrete zl }
# log axes: contours are traced in log10 coordinates (gnuplot's contour
# tracer merges points closer than a fraction of the linear range)
xlog = @XLOGV@
ylog = @YLOGV@
xf(v) = xlog ? log10(v) : v
yf(v) = ylog ? log10(v) : v
# axes end at the data; on a log axis the ticks are whole decades
stats f @DATASPEC@ using (xf($1)):(yf($2)) nooutput
set xrange [STATS_min_x:STATS_max_x]
set yrange [STATS_min_y:STATS_max_y]
dstep(lo, hi) = (hi - lo <= 8) ? 1 : ceil((hi - lo) / 8.0)
if (xlog && STATS_max_x - STATS_min_x >= 1) { set xtics dstep(STATS_min_x, STATS_max_x) }
if (ylog && STATS_max_y - STATS_min_y >= 1) { set ytics dstep(STATS_min_y, STATS_max_y) }
if (xlog) { set format x "10^{%g}" }
if (ylog) { set format y "10^{%g}" }
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced offset -1, 0
set lmargin 11
set cblabel "@CBLABEL@" noenhanced offset -1, 0
set rmargin 12
good = ("@CBLABEL@" eq "rho") ? "stable" : ((strstrt("@CBLABEL@", "log10 e_") == 1) ? "accurate" : "metric <= level")
note = "white line: @LEVEL@, " . good . " where the value is below it (colour box); grey: unstable (inf), white: failed (NaN)"
unset key
set tics out
if (nb > 1) { set multiplot layout nrow, ncol title "@TITLE@\n" . note noenhanced }
do for [k = 1:nb] {
    stats f @DATASPEC@ index (k - 1) using 3 nooutput
    if (nb > 1) { set title sprintf("dT = %.3g s", STATS_min) } \
    else { set title sprintf("@TITLE@, dT = %.3g s\n", STATS_min) . note noenhanced }
    if (lines ne "") {
        splot f @DATASPEC@ index (k - 1) using (xf($1)):(yf($2)):(clip($4)) with image, \
              lines index (k - 1) using (xf($1)):(yf($2)):(0) with lines lc rgb "white" lw 1.5
    } else {
        splot f @DATASPEC@ index (k - 1) using (xf($1)):(yf($2)):(clip($4)) with image nocontour, \
              f @DATASPEC@ index (k - 1) using (xf($1)):(yf($2)):(clip($4)) with lines nosurface lc rgb "white" lw 1.5
    }
}
if (nb > 1) { unset multiplot }
