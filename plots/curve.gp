# Template of the scripts `cosa curve` writes: one curve per scheme (data
# column 2, 3, ...) against the swept quantity (column 1), with a dashed
# line at the level (rho = 1, or the error tolerance) as in Figs 5, 7 and 8
# of the MBCorr paper; its key entry says that below it is stable (rho) or
# accurate (errors).  @NAME@ fields are filled in by cosa.
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
# rho: the stable stretches (rho <= 1) of every curve drawn thick, so that a
# stability window where rho dips just below 1 (Fig 5) is seen
thick  = ("@METRIC@" eq "rho")
if (fmt eq "png") { set terminal pngcairo enhanced size 800,560 font ",11" }
if (fmt eq "svg") { set terminal svg enhanced size 800,560 font ",11" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size 6in,4.2in font ",9" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

# +inf (unstable) and NaN (failed) are gaps in the curves; where a curve
# is +inf a thin bar in its colour along the bottom of the plot (one row per
# scheme that has such samples, axis y2 from 0 to 1; solid for a solid curve,
# hatched for a dashed one); one key entry explains the bars.  Each +inf sample's bar reaches back
# to the previous sample: a stretch starts at the last finite point.
fin(v) = (v != v || v > 1e300) ? NaN : v
array NINF[ncurve]
do for [c = 1:ncurve] { NINF[c] = 0 }
cntinf(c, v) = (v > 1e300) ? NINF[c] = NINF[c] + 1 : 0
# the smallest positive finite value (for the rounding band below)
VMIN = 1e300
vmin(v) = (v == v && v > 0 && v < VMIN) ? VMIN = v : 0
set table $scratch
plot for [c = 1:ncurve] f using (cntinf(c, column(c + 1)) + vmin(column(c + 1))):(0) with table
unset table
xprev(x) = (t = (column(0) == 0) ? x : xp, xp = x, t)
# rows only for the schemes that have unstable samples, packed at the bottom
array RANK[ncurve]
nbar = 0
do for [c = 1:ncurve] { if (NINF[c] > 0) { nbar = nbar + 1; RANK[c] = nbar } else { RANK[c] = 0 } }
rowlo(c) = 0.008 + 0.022 * (RANK[c] - 1)
solid(c) = int(word(dashes, c)) == 1
bar(c, v) = (v > 1e300) ? rowlo(c) + 0.008 : NaN
set y2range [0:1]
unset y2tics

@XLOG@set logscale x
@YLOG@set logscale y
# errors: values below 100 eps (2.2e-14) are at rounding level -- the exact
# propagation (matrix exponentials, LAPACK) is itself only accurate to a
# few eps times the system's dimension and conditioning -- so a grey band
# marks that range, with a key entry, wherever a curve reaches it
RL = 100 * 2.220446049250313e-16
band = 0
@YLOG@band = (VMIN < RL)
if (band) { set object 1 rect from graph 0, graph 0 to graph 1, first RL behind \
            fc rgb "#e4e4e4" fs solid 1.0 noborder }
@XLOG@set format x "10^{%L}"
@YLOG@set format y "10^{%L}"
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced
# the key: inside a top corner, the one where the curves stay lower (so that
# it hides neither the level line nor a curve's rising end), opaque; more
# than five entries go below the plot in three columns, so that the panel
# keeps its full width either way.  The corner: of the
# highest finite value in the left and in the right 35 % of the x range
# (in log coordinates on a log axis), the smaller one
nkey = ncurve + 1 + thick + band + (nbar > 0)
lgx = 0; lgy = 0
@XLOG@lgx = 1
@YLOG@lgy = 1
tx(x) = lgx ? ((x > 0) ? log10(x) : NaN) : x
ty(v) = lgy ? ((v > 0) ? log10(v) : NaN) : v
X0 = 1e300; X1 = -1e300
xext(x) = (tx(x) == tx(x)) ? (X0 = (tx(x) < X0) ? tx(x) : X0, X1 = (tx(x) > X1) ? tx(x) : X1) : 0
set table $scratch
plot f using (xext($1)):(0) with table
unset table
LMAX = -1e300; RMAX = -1e300
side(x, v) = (fin(v) == fin(v) && ty(v) == ty(v) && tx(x) == tx(x)) ? \
    ((tx(x) <= X0 + 0.35 * (X1 - X0) && ty(v) > LMAX) ? LMAX = ty(v) : \
     ((tx(x) >= X1 - 0.35 * (X1 - X0) && ty(v) > RMAX) ? RMAX = ty(v) : 0)) : 0
set table $scratch
plot for [c = 1:ncurve] f using (side($1, column(c + 1))):(0) with table
unset table
if (nkey > 5) { set key outside below center vertical Left reverse samplen 2 \
                   maxrows ceil(nkey / 3.0) noenhanced } \
else { if (RMAX < LMAX) { set key inside right top opaque box noenhanced } \
       else { set key inside left top opaque box noenhanced } }
set grid lc rgb "#e0e0e0"
set tics out
set autoscale xfix
set xtics nomirror
set ytics mirror
set title "@TITLE@" noenhanced
plot for [c = 1:ncurve] f using 1:(fin(column(c + 1))) with lines lw 1.6 \
         lc int(word(colors, c)) dt int(word(dashes, c)) title word(titles, c), \
     level with lines lc rgb "black" dt 3 lw 1 title sprintf("%g%s", level, "@GOOD@"), \
     for [c = 1:ncurve] f using 1:((thick && column(c + 1) <= level) ? column(c + 1) : NaN) \
         with lines lw 5 lc int(word(colors, c)) notitle, \
     1/0 with lines lw 5 lc rgb "#909090" title (thick ? "thick: stable" : ""), \
     1/0 with boxes fs solid 1.0 lc rgb "#e4e4e4" title (band ? "rounding level (< 100 ε)" : ""), \
     for [c = 1:ncurve] f using 1:(solid(c) ? bar(c, column(c + 1)) : NaN):(xprev($1)):1: \
         (rowlo(c)):(rowlo(c) + 0.016) axes x1y2 with boxxyerror lc int(word(colors, c)) \
         fs solid 0.85 noborder notitle, \
     for [c = 1:ncurve] f using 1:(solid(c) ? NaN : bar(c, column(c + 1))):(xprev($1)):1: \
         (rowlo(c)):(rowlo(c) + 0.016) axes x1y2 with boxxyerror lc int(word(colors, c)) \
         fs pattern 5 border notitle, \
     (nbar > 0 ? NaN : 1/0) with boxes fs solid 0.85 lc rgb "#909090" \
         title (nbar > 0 ? "unstable (bars)" : "")
