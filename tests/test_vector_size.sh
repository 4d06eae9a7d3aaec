#!/bin/sh
# test_vector_size.sh -- the PDF and SVG pictures of a map hold the colour
# field as one image per panel, not one object per grid cell: on a 128 x 128
# grid the default contour map, its --heatmap and a map over --y dt are each
# drawn as PDF and SVG, and every file stays below a bound that one filled
# polygon per cell would exceed (derivations next to the bounds).  Skipped
# without gnuplot.
COSA=${COSA:-analysis/cosa}
# ok, bad, $tmp (removed at exit), harness_done
. "$(dirname "$0")/harness.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP: gnuplot not installed"
    exit 77
fi

# One object per cell, 127 x 127 = 16129 cells (a pm3d surface has one
# polygon between each 2 x 2 points):
# - SVG (text): gnuplot's svg terminal writes a cell as
#   "<polygon fill = 'rgb(r, g, b)' points = 'x,y x,y x,y x,y '/>" with
#   coordinates of 5-6 characters: at least 70 bytes, so >= 1.1 MB.  The
#   bound 400 kB leaves the axes, the labels, the lines (a few thousand
#   vertices of ~15 bytes) and a base64 PNG of 128 x 128 pixels (at most
#   4/3 x 3 x 16384 = 66 kB, uncompressed) room, and is still a factor 2.8
#   below one polygon per cell.  Besides the size, the drawn objects
#   ('<polygon' and '<path' lines) are counted: one per cell would be
#   >= 16129; 4000 leaves the axes, ticks and lines room.
# - PDF (cairo): the content streams are Flate-compressed, and a two-tone
#   field compresses to a few bytes a cell, so the size alone does not tell
#   an image from polygons; the fill operators ('f', 're') in the
#   decompressed streams are counted instead (python3; one per cell would
#   be >= 16129, bound 4000 as for SVG).  The size bound 100 kB holds an
#   image of 16384 pixels (at most 3 bytes each before compression, 49 kB),
#   the lines and the text; a per-cell heat map (smooth colours: Flate
#   leaves ~10 bytes a cell) exceeds it.
svg_max=400000
pdf_max=100000
obj_max=4000
grid="--x ck=1:1e10:log:128 --y dk=1:1e7:log:128 --dt 1e-3 --scheme zoh"
dtgrid="--x ck=1:1e10:log:128 --y dt=1e-6:1e-2:log:128 --scheme zoh"

# pdf_fills FILE: the number of fill operators in FILE's content streams
pdf_fills() {
    /usr/bin/python3 - "$1" <<'PY'
import re, sys, zlib
b = open(sys.argv[1], "rb").read()
n = 0
for m in re.finditer(rb"stream\r?\n", b):
    end = b.find(b"endstream", m.end())
    try:
        d = zlib.decompress(b[m.end():end])
    except zlib.error:
        continue
    n += len(re.findall(rb"(?<![A-Za-z*])(?:f\*?|re)\s", d))
print(n)
PY
}

# small FILE: FILE exists, is below its format's bounds (size, objects)
small() {
    if [ ! -s "$1" ]; then
        bad "$1 was not drawn"
        return
    fi
    sz=$(wc -c <"$1")
    case $1 in
    *.svg)
        if [ "$sz" -lt "$svg_max" ]; then ok; else bad "$1: $sz bytes, not below $svg_max"; fi
        np=$(grep -c '<path\|<polygon' "$1")
        if [ "$np" -lt "$obj_max" ]; then ok; else bad "$1: $np paths/polygons, not below $obj_max"; fi
        if grep -q '<image' "$1"; then ok; else bad "$1: no <image> (the colour field)"; fi
        ;;
    *.pdf)
        if [ "$sz" -lt "$pdf_max" ]; then ok; else bad "$1: $sz bytes, not below $pdf_max"; fi
        [ -x /usr/bin/python3 ] || return
        nf=$(pdf_fills "$1")
        if [ "$nf" -lt "$obj_max" ]; then ok; else bad "$1: $nf fill operators, not below $obj_max"; fi
        ;;
    esac
}

for fmt in svg pdf; do
    # (a) the default contour map and (b) its --heatmap, from one run
    d=$tmp/ab_$fmt
    # shellcheck disable=SC2086
    if "$COSA" map $grid --heatmap --plot "$fmt" -o "$d" >"$tmp/out" 2>"$tmp/err"; then
        ok
        small "$d/rho_zoh.$fmt"
        small "$d/rho_zoh_heat.$fmt"
    else
        bad "map --heatmap --plot $fmt: $(head -c 300 "$tmp/err")"
    fi
    # (c) a map over (ck, dT)
    d=$tmp/c_$fmt
    # shellcheck disable=SC2086
    if "$COSA" map $dtgrid --plot "$fmt" -o "$d" >"$tmp/out" 2>"$tmp/err"; then
        ok
        small "$d/rho_zoh.$fmt"
    else
        bad "map --y dt --plot $fmt: $(head -c 300 "$tmp/err")"
    fi
done

harness_done test_vector_size.sh
