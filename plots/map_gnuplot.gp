# Template of the scripts `cosa map --contour gnuplot` writes (one panel per data
# file; gnuplot traces the contours itself, which is slow: the default,
# plots/map.gp, draws the lines cosa traced.  This template goes away in the
# next release).
# Contour lines metric = level for every macro step dT, shaded from black
# (largest dT) to light grey (smallest), as in Figs 4 and 6 of the MBCorr
# paper.  Which side of a line is stable or accurate: at the largest dT the
# grid's points where metric <= level are filled light green, the others
# light red (failed points stay white), with key entries saying so (the
# side can change from line to line where stability windows exist, so the
# fill shows it for one dT rather than a rule of thumb); the fill and the
# layout (one shared key right of all panels) are those of plots/map.gp.
# The values come from the data files (text, or binary records with the
# data specifier after the file name); @NAME@ fields are filled in by cosa
# (file names, labels, the contour level, the dT list and the axis ranges).
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
titles = "@TITLES@"
level  = @LEVEL@
good   = "@GOOD@"
nones  = "@NONE@"
zlog   = @ZLOG@
fills  = "@FILLS@"
npanel = words(files)
ncol   = (npanel > 1) ? 2 : 1
nrow   = (npanel + ncol - 1) / ncol
# the key: beside a single panel, or in a strip right of all panels; the
# margins of several panels in pixels of the PNG (the same fractions of a
# PDF or SVG page)
W = 480 * ncol + 260
H = 400 * nrow + 40 * (npanel > 1)
kfrac = 260.0 / W
if (fmt eq "png") { set terminal pngcairo enhanced size W, H font ",10" }
if (fmt eq "svg") { set terminal svg enhanced size W, H font ",10" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size (W / 120.0), (H / 120.0) font ",8" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

# failed points (NaN) are holes; +inf (unstable, for errors) is clipped so
# that contours can be drawn next to it
clip(v) = (v != v) ? NaN : ((v > 1e300) ? 1e300 : v)
zf(v)   = zlog ? ((v > 0) ? log10(clip(v)) : -300) : clip(v)
grey(l) = (lmax > lmin) ? 0.8 * (lmax - l) / (lmax - lmin) : 0
rgb(g)  = 65793 * int(255 * g)

set view map
set contour base
unset clabel
zl = zlog ? log10(level) : level
set cntrparam levels discrete zl
set cntrparam linear
# log axes: contours are traced in log10 coordinates (gnuplot's contour
# tracer merges points closer than a fraction of the linear range)
xlog = @XLOGV@
ylog = @YLOGV@
xf(v) = xlog ? log10(v) : v
yf(v) = ylog ? log10(v) : v
# axes end at the data (the grid's first and last values, in xf/yf
# coordinates); on a log axis the ticks are whole decades
XR0 = xf(@XLO@); XR1 = xf(@XHI@); YR0 = yf(@YLO@); YR1 = yf(@YHI@)
set xrange [XR0:XR1]
set yrange [YR0:YR1]
dstep(lo, hi) = (hi - lo <= 8) ? 1 : ceil((hi - lo) / 8.0)
if (xlog && XR1 - XR0 >= 1) { set xtics dstep(XR0, XR1) }
if (ylog && YR1 - YR0 >= 1) { set ytics dstep(YR0, YR1) }
# the dT of every block (index k - 1 holds DT[k]) and the shades: log position
# between the smallest and the largest dT
dts = "@DTS@"
nb = words(dts)
array DT[nb]
lmin = 1e300; lmax = -1e300
do for [k = 1:nb] {
    DT[k] = real(word(dts, k))
    lmin = (log10(DT[k]) < lmin) ? log10(DT[k]) : lmin
    lmax = (log10(DT[k]) > lmax) ? log10(DT[k]) : lmax
}
# the block of the largest dT, whose metric <= level region is filled
kbig = 1
do for [k = 1:nb] { if (log10(DT[k]) >= lmax) { kbig = k } }
# fill (NAME_SCHEME_fill.bin, one byte per grid point at the largest dT,
# x fastest): 2 where metric <= level (green), 0 above it (red; +inf too),
# 1 failed (white); drawn as an image over the grid in plotting
# coordinates; the contour lines are drawn 'nosurface'
set palette defined (0 "#f4cccc", 0.5 "#f4cccc", 0.5 "white", 1.5 "white", 1.5 "#d9ead3", 2 "#d9ead3")
set cbrange [0:2]
NX = @NX@; NY = @NY@
FDX = (NX > 1) ? (XR1 - XR0) / (NX - 1) : 1
FDY = (NY > 1) ? (YR1 - YR0) / (NY - 1) : 1
unset colorbox
okw  = (good eq "") ? "@METRIC@ ≤ @LEVEL@" : good
badw = (good eq "") ? "@METRIC@ > @LEVEL@" : ((good eq "stable") ? "unstable" : "not " . good)
if (xlog) { set format x "10^{%g}" }
if (ylog) { set format y "10^{%g}" }
set xlabel "@XLABEL@" noenhanced
set ylabel "@YLABEL@" noenhanced offset -1, 0
set lmargin 11
set tics out
set grid front lc rgb "#e0e0e0"
set style fill solid 1.0 noborder
if (npanel > 1) {
    set multiplot layout nrow, ncol title "@TITLE@" noenhanced \
        margins 75.0 / W, 0.99 - kfrac, 55.0 / H, 1 - 60.0 / H \
        spacing 75.0 / W, 105.0 / H
} else {
    set key outside right top title "@KEYTITLE@" box
}
do for [p = 1:npanel] {
    f = word(files, p)
    # a dT whose values do not cross the level has no contour and says
    # "(none)" in the key (cosa writes one flag per dT and panel into nones:
    # 1 = crossed)
    fl = word(nones, p)
    if (npanel > 1) {
        set title word(titles, p) noenhanced
        if (p < npanel) { unset key } \
        else { set key at screen 0.995, 0.93 right top title "@KEYTITLE@" box }
    } else { set title word(titles, p) . ", @TITLE@" noenhanced }
    splot word(fills, p) binary array=(NX,NY) dx=FDX dy=FDY origin=(XR0,YR0,0) format="%uchar" \
        with image nocontour notitle, \
        keyentry with boxes lc rgb "#d9ead3" title sprintf("%s at %.3g", okw, DT[kbig]), \
        keyentry with boxes lc rgb "#f4cccc" title sprintf("%s at %.3g", badw, DT[kbig]), \
        for [k = 1:nb] f @DATASPEC@ index (k - 1) using (xf($1)):(yf($2)):(zf($4)) \
        with lines nosurface lw 1.6 \
        lc rgb rgb(grey(log10(DT[k]))) \
        title sprintf("%.3g", DT[k]) . ((strlen(fl) >= k && fl[k:k] eq "1") ? "" : " (none)")
}
if (npanel > 1) { unset multiplot }
