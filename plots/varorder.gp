# Template of the scripts `cosa simulate --coupling ...` writes (variable-order
# paper Figs 12-13): the macro step H (log), the polynomial degree k and the
# state error of every accepted macro step against its end time, one curve
# per run (per-step CSV: t, H, k, accepted, err_pos, err_vel, err_u, iters,
# err_state, states..., reference...; rejected attempts have accepted = 0).
# @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
titles = "@TITLES@"
nrun   = words(files)
if (fmt eq "png") { set terminal pngcairo enhanced size 900,900 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 900,900 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6.5in,6.5in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

set datafile separator ","
set key outside below center horizontal noenhanced samplen 2 # below: the panels keep their width
set grid lc rgb "#e0e0e0"
set tics out
set autoscale xfix
set multiplot layout 3,1 title "@TITLE@" noenhanced
set xlabel "t [s]"
set logscale y
set format y "10^{%L}"
set ylabel "macro step H [s]"
plot for [c = 1:nrun] word(files, c) skip 1 using 1:($4 == 1 ? $2 : NaN) with steps lw 1.5 \
     lc c title word(titles, c)
unset logscale y
set format y "%g"
set ylabel "degree k"
set yrange [-0.5:*]
plot for [c = 1:nrun] word(files, c) skip 1 using 1:($4 == 1 ? $3 : NaN) with steps lw 1.5 \
     lc c title word(titles, c)
set autoscale y
set logscale y
set format y "10^{%L}"
set ylabel "state error (scaled)"
plot for [c = 1:nrun] word(files, c) skip 1 using 1:($4 == 1 && $9 > 0 ? $9 : NaN) \
     with lines lw 1.2 lc c title word(titles, c)
unset multiplot
