# Template of the --heatmap scripts of `cosa map`: the metric itself over the
# parameter plane, one panel per macro step dT (one data file), with the
# contour metric = level in white.  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
f      = "@FILE@"
level  = @LEVEL@
zlog   = @ZLOG@
stats f using 3 nooutput
nb   = STATS_blocks
ncol = (nb > 1) ? 2 : 1
nrow = (nb + ncol - 1) / ncol
if (fmt eq "png") { set terminal pngcairo enhanced size 600*ncol, 450*nrow font ",10" }
if (fmt eq "svg") { set terminal svg enhanced size 600*ncol, 450*nrow font ",10" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 5in*ncol, 3.75in*nrow font ",8" }
set output "@OUTBASE@." . fmt

# colour: log10 of an error (clipped to 1e-12 .. 1e3), rho clipped to [0, 2]
clip(v) = (v != v) ? NaN : (zlog ? ((v > 1e3) ? 3 : ((v < 1e-12) ? -12 : log10(v))) \
                                 : ((v > 2) ? 2 : v))
zl = zlog ? log10(level) : level

set view map
set pm3d map corners2color c1
set palette rgb 33,13,10
set contour base
unset clabel
set cntrparam levels discrete zl
# log axes: contours are traced in log10 coordinates (gnuplot's contour
# tracer merges points closer than a fraction of the linear range)
xlog = @XLOGV@
ylog = @YLOGV@
xf(v) = xlog ? log10(v) : v
yf(v) = ylog ? log10(v) : v
if (xlog) { set format x "10^{%g}" }
if (ylog) { set format y "10^{%g}" }
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced
set cblabel "@CBLABEL@" noenhanced
unset key
set tics out
if (nb > 1) { set multiplot layout nrow, ncol title "@TITLE@" noenhanced }
do for [k = 1:nb] {
    stats f index (k - 1) using 3 nooutput
    set title sprintf("dT = %.3g s", STATS_min)
    splot f index (k - 1) using (xf($1)):(yf($2)):(clip($4)) with pm3d nocontour, \
          f index (k - 1) using (xf($1)):(yf($2)):(clip($4)) with lines nosurface lc rgb "white" lw 1.5
}
if (nb > 1) { unset multiplot }
