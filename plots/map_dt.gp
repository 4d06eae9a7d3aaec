# Template of the scripts of `cosa map --y dt=LO:HI:log:N`: the metric over
# (parameter, macro step dT), one panel per scheme (data file), one colour
# scale for all panels, the contour metric = level in white, and for an
# axis over an assumed parameter a dashed line at its true value (where it
# meets the contour is the limit with a perfect model).  The colour box and
# the titles say which side of the white line is stable (rho <= 1) or
# accurate (error <= level).  @NAME@ fields are filled in by cosa.
#
@COMMENT@
#
# Render:  gnuplot @SCRIPT@                 -> @OUTBASE@.png
#          gnuplot -e 'fmt="svg"' @SCRIPT@  (or "pdf")
if (!exists("fmt")) fmt = "png"
files  = "@FILES@"
titles = "@TITLES@"
# the contour lines cosa traced (NAME_SCHEME_lines.dat: polylines 'x dt'),
# or "" for gnuplot's own tracing (--contour gnuplot, deprecated)
lines  = "@LINES@"
level  = @LEVEL@
zlog   = @ZLOG@
xmark  = @XMARK@
npanel = words(files)
ncol   = (npanel >= 3) ? 3 : npanel
nrow   = (npanel + ncol - 1) / ncol
if (fmt eq "png") { set terminal pngcairo enhanced size 520*ncol, 440*nrow font ",10" }
if (fmt eq "svg") { set terminal svg enhanced size 520*ncol, 440*nrow font ",10" }
if (fmt eq "pdf") { set terminal pdfcairo enhanced size (4.3*ncol), (3.6*nrow) font ",8" }
if (!exists("outfile")) outfile = "@OUTBASE@." . fmt
set output outfile
undefine outfile

# colour: log10 of an error clipped to [1e-12, 1e3], with +inf (unstable)
# in grey above that range, labelled on the colour box (as in the --heatmap
# pictures; NaN, failed, is a hole: white); rho in two tones, stable (<= 1)
# and unstable, so that the white contour rho = 1 separates them
ztop = 3 + 15 / 7.0
zinf = (3 + ztop) / 2
clip(v) = (v != v) ? NaN : ((v > 1e300) ? (zlog ? zinf : 2) : \
          (zlog ? ((v > 1e3) ? 3 : ((v < 1e-12) ? -12 : log10(v))) : ((v > 2) ? 2 : v)))
zl = zlog ? log10(level) : level
# the side of the white line where metric <= level, in words
good = ("@METRIC@" eq "rho") ? "stable" : ((strstrt("@METRIC@", "e_") == 1) ? "accurate" : "@METRIC@ <= @LEVEL@")
if (zlog) { set cbrange [-12:ztop]; \
            set cbtics -12, 3, 3; set cbtics add ("unstable" zinf); \
            set cblabel "log10 @METRIC@ (" . good . " below log10 @LEVEL@)" noenhanced; \
            r = 15 / (ztop + 12); \
            set palette defined (0 "#3b1fb0", 0.25 * r "#1f8fe8", 0.5 * r "#40d890", 0.75 * r "#f0c030", \
                                 r "#d81c1c", r "#9a9a9a", 1 "#9a9a9a") } \
else      { set cbrange [0:2]; \
            set cblabel "@METRIC@ (green: " . good . ", @METRIC@ <= @LEVEL@; red: above)" noenhanced; \
            set palette defined (0 "#b7d7a8", 1 "#b7d7a8", 1 "#ea9999", 2 "#ea9999") }

# axes: whole decades of dT; x ticks at 1, 2, 5 x 10^k on a log axis
# (the smallest and largest x and dT of the data, from cosa)
STATS_min_x = @XMIN@; STATS_max_x = @XMAX@; STATS_min_y = @YMIN@; STATS_max_y = @YMAX@
xlog = @XLOGV@
xf(v) = xlog ? log10(v) : v
set xrange [xf(STATS_min_x):xf(STATS_max_x)]
set yrange [log10(STATS_min_y):log10(STATS_max_y)]
set ytics 1
set format y "10^{%g}"
if (xlog) {
    set xtics ()
    # 1, 2, 5 x 10^k over up to 3 decades; wider: whole decades, at most ~6
    xdec = log10(STATS_max_x) - log10(STATS_min_x)
    mlist = (xdec > 3) ? "1" : "1 2 5"
    estep = (xdec > 6) ? ceil(xdec / 6.0) : 1
    do for [e = floor(log10(STATS_min_x)) : ceil(log10(STATS_max_x)) : estep] {
        do for [m in mlist] {
            v = e + log10(real(m))
            if (v >= log10(STATS_min_x) - 1e-9 && v <= log10(STATS_max_x) + 1e-9) {
                if (m eq "1") { set xtics add (sprintf("10^{%d}", e) v) } \
                else { set xtics add (sprintf("%s·10^{%d}", m, e) v) }
            }
        }
    }
}

set view map
if (lines eq "") { set contour base; unset clabel; set cntrparam levels discrete zl }
set xlabel "@XLABEL@" noenhanced
set ylabel "macro step ΔT [s]"
unset key
set tics out
note = "white line: @METRIC@ = @LEVEL@, " . good . " where @METRIC@ is below it"
if (npanel > 1) { set multiplot layout nrow, ncol title "@TITLE@ (" . note . ")" noenhanced }
set lmargin 10
do for [p = 1:npanel] {
    f = word(files, p)
    if (npanel > 1) { set title word(titles, p) noenhanced } \
    else { set title word(titles, p) . ", @TITLE@\n" . note noenhanced }
    # one colour scale for all panels: its box on the last panel only
    # (its tick labels, "unstable" among them, and its label need a wider
    # right margin for errors: that panel is narrower than the others)
    if (p < npanel) { unset colorbox } else { set colorbox; if (zlog) { set rmargin 15 } }
    if (lines ne "") {
        splot f @DATASPEC@ using (xf($1)):(log10($2)):(clip($3)) with image, \
              word(lines, p) using (xf($1)):(log10($2)):(0) with lines lc rgb "white" lw 2, \
              f @DATASPEC@ every :::0::0 using (xf(xmark)):(log10($2)):(0) with lines \
                  lc rgb "black" dt 2 lw 1.5
    } else {
    if (xmark == xmark) {
        splot f @DATASPEC@ using (xf($1)):(log10($2)):(clip($3)) with image nocontour, \
              f @DATASPEC@ using (xf($1)):(log10($2)):(clip($3)) with lines nosurface lc rgb "white" lw 2, \
              f @DATASPEC@ every :::0::0 using (xf(xmark)):(log10($2)):(0) with lines nocontour \
                  lc rgb "black" dt 2 lw 1.5
    } else {
        splot f @DATASPEC@ using (xf($1)):(log10($2)):(clip($3)) with image nocontour, \
              f @DATASPEC@ using (xf($1)):(log10($2)):(clip($3)) with lines nosurface lc rgb "white" lw 2
    }
    }
}
if (npanel > 1) { unset multiplot }
