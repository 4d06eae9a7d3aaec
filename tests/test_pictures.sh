#!/bin/sh
# test_pictures.sh -- the pictures (doc/pictures.md): every picture format
# every command offers is drawn at least once (map, its adaptive, heat map
# and dt-axis variants, curve over dT and over a parameter, simulate, the
# variable-order and energy runs, defect runs, sweeps and --paper, advise),
# each file is what its format says; what the SVGs show (SVG is text): the
# rounding-level band exactly where the data reach it, the thick stable
# stretches of the data, the unstable labels, one key for several panels,
# an unstable fill that is not white; --level (map and curve), --contour
# and --format json with --plot; the contour lines cosa traces
# (NAME_SCHEME_lines.dat) lie within one grid cell of gnuplot's own tracing
# of the same grid, and an adaptive map gives the full map's lines; no
# picture of an older run stays next to new data (map, curve, simulate,
# advise, defect).  Skipped without gnuplot.
COSA=${COSA:-analysis/cosa}
# ok, bad, $tmp (removed at exit), harness_done
. "$(dirname "$0")/harness.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP: gnuplot not installed"
    exit 77
fi

# is_picture FILE: the file starts as its format does
is_picture() {
    case $1 in
    *.png) head -c 8 "$1" | od -An -c | grep -q 'P   N   G' ;;
    *.pdf) head -c 5 "$1" | grep -q '%PDF-' ;;
    *.svg) head -c 400 "$1" | grep -q '<svg' ;;
    *) false ;;
    esac
}

# draw DIR CMD...: the command succeeds and every picture it names is whole
draw() {
    d=$1
    shift
    if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
        bad "'$*' failed: $(head -c 300 "$tmp/err")"
        return
    fi
    n=0
    for f in $(awk '$1 == "file" && $2 ~ /\.(png|svg|pdf)$/ { print $2 }' "$tmp/out"); do
        n=$((n + 1))
        is_picture "$f" || bad "'$*': $f is not a picture of its format"
    done
    [ "$n" -gt 0 ] && ok || bad "'$*' named no picture"
}

small="--x ck=1:1e10:log:24 --y dk=1:1e7:log:24 --dt 1e-3,1e-4"
# ---- every format of every command ------------------------------------------------
for fmt in png svg pdf; do
    draw m "$COSA" map $small --scheme zoh,foh -o "$tmp/m_$fmt" --plot $fmt --heatmap
    draw c "$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:40 --scheme foh \
        -o "$tmp/c_$fmt" --plot $fmt
    draw s "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --tend 0.2 -o "$tmp/s_$fmt" \
        --plot $fmt
    draw a "$COSA" advise --tol 1e-3 --schemes zoh,foh -o "$tmp/a_$fmt" --plot $fmt
done
draw ma "$COSA" map $small --scheme zoh -o "$tmp/ma" --plot svg --adaptive --coarse 4 --format bin
draw md "$COSA" map --x ck=1:1e10:log:16 --y dt=1e-5:1e-2:log:12 --scheme zoh,foh -o "$tmp/md" \
    --plot pdf
draw mg "$COSA" map $small --scheme zoh -o "$tmp/mg" --plot pdf --contour gnuplot
draw ca "$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:40 --scheme foh \
    -o "$tmp/ca" --plot svg --adaptive
draw v "$COSA" simulate --coupling explicit --model twomass --scheme zoh --dt 1e-3 --tend 0.2 \
    -o "$tmp/v" --plot pdf
draw e "$COSA" simulate --model twomass-fd --scheme zoh --dt 1e-3 --tend 0.2 \
    --integrator symplectic-euler --micro step --energy --mu 0.5 -o "$tmp/e" --plot svg
for fmt in png svg; do
    draw d "$COSA" defect --model twomass --integrator exact --in-order 0 --out-order 0 \
        --dt 1e-3 --tend 0.2 -o "$tmp/d_$fmt" --plot $fmt
done
# defect --paper (its 50 pictures), defect sweeps over H and tol (the mean
# step picture _h_avg of the tol sweep too) and a curve over a model
# parameter (Fig 7 kind: e_global against c_k) in every format they offer
for fmt in png svg; do
    draw dp "$COSA" defect --paper -o "$tmp/dp_$fmt" --plot $fmt
    n=$(grep -c "^file .*\.$fmt\$" "$tmp/out")
    ngp=$(find "$tmp/dp_$fmt" -name '*.gp' | wc -l)
    [ "$n" -gt 0 ] && [ "$n" = "$ngp" ] && ok || bad "defect --paper drew $n of $ngp scripts"
    for w in dt tol; do
        draw ds "$COSA" defect --model rotational-defect --integrator exact --in-order 1 \
            --out-order 1 --$w 1e-2:1e-1:log:3 -o "$tmp/ds_$fmt" --plot $fmt
    done
    grep -qx "file $tmp/ds_$fmt/rotational-defect_exact_m1_n1_tol_sweep_h_avg.$fmt" "$tmp/out" &&
        ok || bad "the tol sweep drew no _h_avg $fmt picture"
done
for fmt in png svg pdf; do
    draw c7 "$COSA" curve --set dk=40 --dt 10^-3.5 --x ck=1:1e10:log:40 --scheme soh+mbcorr \
        --metric e_global -o "$tmp/c7_$fmt" --plot $fmt
done
# a map's vector pictures hold the lines, not the grid: far below the size of
# one point per grid value
sz=$(wc -c <"$tmp/m_pdf/rho_all.pdf")
[ "$sz" -lt 200000 ] && ok || bad "rho_all.pdf is $sz bytes"

# ---- what the pictures show (an SVG is text) --------------------------------------
# rounding level: the grey band (object 1, colour e4e4e4 = rgb(228, 228, 228))
# and its key entry are drawn exactly when a curve's smallest positive
# value is below 100 eps (curve.gp's RL); Fig 8 kind reaches it at small dT
# (e_local of p1+mbcorr ~ dT^3), Fig 7 (e_global >= 1e-5) does not
"$COSA" curve --x dt=1e-8:3e-3:log:30 --scheme p0,p0+mbcorr,p1,p1+mbcorr --metric e_local \
    -o "$tmp/c8" --plot svg >/dev/null 2>&1 || bad "the Fig 8 kind curve failed"
for c in "$tmp/c8/e_local_vs_dt" "$tmp/c7_svg/e_global_vs_ck"; do
    low=$(awk '!/^#/ { for (i = 2; i <= NF; i++) if ($i + 0 > 0 && $i + 0 < 100 * 2.220446049250313e-16) l = 1 }
        END { print l + 0 }' "$c.dat")
    band=0
    grep -q '<text>rounding level' "$c.svg" && grep -q "fill = 'rgb(228, 228, 228)'" "$c.svg" &&
        band=1
    [ "$band" = "$low" ] && ok || bad "${c##*/}.svg: rounding band $band, data below 100 eps $low"
done
[ "$(awk '!/^#/ && $5 + 0 > 0 && $5 + 0 < 2.2e-14' "$tmp/c8/e_local_vs_dt.dat" | wc -l)" -gt 0 ] &&
    ok || bad "the Fig 8 kind curve does not reach rounding level (the band check is idle)"
# a stable window (Fig 5: FOH at c_k = 1e9, d_k = 3.6e5): "thick: stable" in the
# key and one thick (lw 5) stretch in the curve's colour per run of two or
# more samples with rho <= level in the data, with one vertex per sample of
# those runs (a lone sample draws no line); the window makes two runs
# stable_runs DAT LEVEL: "runs/samples" of a one-scheme curve's data
stable_runs() {
    awk -v L="$2" '!/^#/ { if ($2 + 0 <= L) n++; else { if (n >= 2) { r++; s += n }; n = 0 } }
        END { if (n >= 2) { r++; s += n }; print r + 0 "/" s + 0 }' "$1"
}
# thick_svg SVG: "stretches/vertices" of the lw 5 paths not in the key's grey
thick_svg() {
    awk '/<g / { w = /stroke-width="5.00"/ } /<path / { p = w && !/rgb\(144, 144, 144\)/ }
        p { m += gsub(/M[0-9]/, ""); v += gsub(/[ML][0-9]/, "") } /\/>/ { p = 0 }
        END { print m + 0 "/" m + v }' "$1"
}
c5=$tmp/c_svg/rho_vs_dt
runs=$(stable_runs "$c5.dat" 1)
thick=$(thick_svg "$c5.svg")
grep -q '<text>thick: stable</text>' "$c5.svg" && [ "${runs%/*}" -ge 2 ] && [ "$thick" = "$runs" ] &&
    ok || bad "rho_vs_dt.svg: thick stretches/vertices $thick for stable runs/samples $runs"
# a map with unstable points labels them in its key; NAME_all of several
# schemes has one key (its title, the stable and unstable entries once)
m=$tmp/m_svg
od -An -tu1 -v "$m/rho_zoh_fill.bin" | grep -qw 0 && grep -q '>unstable at 0.001</tspan>' "$m/rho_zoh.svg" &&
    ok || bad "rho_zoh.svg does not label the unstable points"
# (text drawn, not the groups' <title>s)
keys=$(grep -c '>ΔT \[s\]</tspan>' "$m/rho_all.svg")/$(
    grep -c '>stable at [^<]*</tspan>' "$m/rho_all.svg")/$(
    grep -c '>unstable at [^<]*</tspan>' "$m/rho_all.svg")
[ "$keys" = 1/1/1 ] && ok || bad "rho_all.svg: key title/stable/unstable entries $keys, not one key"
# the fill (an embedded PNG, one pixel per grid point): each class of
# NAME_SCHEME_fill.bin (0 above the level, 2 at or below it) is one colour,
# and "unstable" is neither the page's white nor the stable colour
if command -v python3 >/dev/null 2>&1; then
    python3 - "$m/rho_zoh.svg" "$m/rho_zoh_fill.bin" 24 24 <<'PY' && ok || bad "rho_zoh.svg: the fill"
import base64, re, struct, sys, zlib
svg, fill, nx, ny = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
m = re.search(r"data:image/png;base64,([A-Za-z0-9+/=\s]+)", open(svg, encoding="utf-8").read())
if not m:
    sys.exit("no embedded PNG image")
png = base64.b64decode(m.group(1))
pos, idat, hdr = 8, b"", None
while pos < len(png):
    n, kind = struct.unpack(">I4s", png[pos:pos + 8])
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", png[pos + 8:pos + 8 + n])
    elif kind == b"IDAT":
        idat += png[pos + 8:pos + 8 + n]
    pos += 12 + n
w, h, depth, ctype = hdr[:4]
if (w, h) != (nx, ny) or depth != 8 or ctype not in (2, 6):
    sys.exit("image %dx%d depth %d type %d, not %dx%d RGB(A)" % (w, h, depth, ctype, nx, ny))
bpp = 3 if ctype == 2 else 4
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for r in range(h):  # undo the PNG row filters (None, Sub, Up, Average, Paeth)
    f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
    for i in range(stride):
        a, b = line[i - bpp] if i >= bpp else 0, prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
        pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
        line[i] = (line[i] + (0, a, b, (a + b) // 2, pr)[f]) & 255
    rows.append(line)
    prev = line
cls, seen = open(fill, "rb").read(), {}
for j in range(ny):  # the fill's first row is the smallest y: the image's bottom row
    for i in range(nx):
        seen.setdefault(cls[j * nx + i], set()).add(tuple(rows[ny - 1 - j][i * bpp:i * bpp + 3]))
one = {k: v.pop() for k, v in seen.items() if len(v) == 1}
if len(one) != len(seen) or 0 not in one or 2 not in one:
    sys.exit("fill classes and colours do not match: %s" % seen)
if one[0] == (255, 255, 255) or one[0] == one[2]:
    sys.exit("unstable is drawn %s (stable %s)" % (one[0], one[2]))
PY
fi

# ---- the plotting options with valid input ----------------------------------------
# --level on curve: the header and the key name it, and the thick stretches
# follow it (rho <= 0.999 on the Fig 5 curve: the window alone, below
# the small-dT stretch's 0.99999)
"$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:40 --scheme foh --level 0.999 \
    -o "$tmp/cl" --plot svg >/dev/null 2>&1 || bad "curve --level 0.999 failed"
runs9=$(stable_runs "$tmp/cl/rho_vs_dt.dat" 0.999)
grep -qx '# level 0.999' "$tmp/cl/rho_vs_dt.dat" &&
    grep -q '<text>0.999: stable below</text>' "$tmp/cl/rho_vs_dt.svg" &&
    [ "$(thick_svg "$tmp/cl/rho_vs_dt.svg")" = "$runs9" ] && [ "${runs9%/*}" -ge 1 ] &&
    [ "$runs9" != "$runs" ] && ok ||
    bad "curve --level 0.999: thick $(thick_svg "$tmp/cl/rho_vs_dt.svg"), runs $runs9 (level 1: $runs)"
# --level on map: the data and lines files name it; the fill at the largest
# dT (1e-3) is 2 exactly where the data's rho <= level (the fill is x
# fastest, the data y fastest), and some points with 0.9 < rho <= 1 change
# sides; along the grid line ck = 1 the line's vertices are where rho
# crosses the level between two grid values, linearly in log10(dk) (a few
# operations in doubles: relative 1e-12 bounds their rounding)
for L in 1 0.9; do
    # shellcheck disable=SC2086
    "$COSA" map $small --scheme zoh --level $L -o "$tmp/lv$L" >/dev/null 2>&1 ||
        bad "map --level $L failed"
done
d9=$tmp/lv0.9/rho_zoh
grep -qx '# level 0.90000000000000002' "$d9.dat" && grep -qx '# level 0.90000000000000002' \
    "${d9}_lines.dat" && grep -qx '# level 1' "$tmp/lv1/rho_zoh_lines.dat" && ok ||
    bad "map --level 0.9: the data or lines header does not name the level"
for L in 1 0.9; do
    r=$(od -An -tu1 -v "$tmp/lv$L/rho_zoh_fill.bin" | tr -s ' ' '\n' | grep . |
        awk -v L="$L" 'NR == FNR { if (!/^#/ && NF >= 4 && $3 == 1e-3) { n++; v[n] = $4 }; next }
        { b[++m] = $1 }
        END {
            # data row k (1-based): x index i = int((k-1)/24), y index j = (k-1) % 24
            for (k = 1; k <= n; k++) {
                i = int((k - 1) / 24); j = (k - 1) % 24
                want = (v[k] <= L) ? 2 : 0
                if (b[j * 24 + i + 1] != want) bad++
                if (v[k] > 0.9 && v[k] <= 1) mid++
            }
            print (n == 576 && m == 576 && !bad && mid > 0) ? "ok" : n " " m " " bad + 0 " " mid + 0
        }' "$tmp/lv$L/rho_zoh.dat" -)
    [ "$r" = ok ] && ok || bad "map --level $L: fill against the data: $r"
    r=$(awk -v L="$L" 'NR == FNR { if (!/^#/ && NF >= 4 && $3 == 1e-3 && $1 == 1) {
            n++; y[n] = log($2) / log(10); v[n] = $4 }; next }
        /^# dt/ { blk++ } blk == 1 && /^[0-9]/ && $1 == 1 { got[++g] = $2 }
        END {
            for (k = 1; k < n; k++)
                if ((v[k] - L) * (v[k + 1] - L) < 0) {
                    w = 10 ^ (y[k] + (L - v[k]) / (v[k + 1] - v[k]) * (y[k + 1] - y[k]))
                    found = 0
                    for (q = 1; q <= g; q++) if (got[q] - w <= 1e-12 * w && w - got[q] <= 1e-12 * w) found = 1
                    if (!found) { print "no vertex at dk = " w; exit }
                    e++
                }
            print (e > 0 && e == g) ? "ok " e : "crossings " e ", vertices " g
        }' "$tmp/lv$L/rho_zoh.dat" "$tmp/lv$L/rho_zoh_lines.dat")
    case $r in ok*) ok ;; *) bad "map --level $L: the line along ck = 1: $r" ;; esac
    if [ "$L" = 1 ]; then cross1=$r; else cross09=$r; fi
done
[ "$cross1" != "$cross09" ] && ok || bad "map --level 0.9 crosses ck = 1 as level 1 does ($cross1)"
# --contour cosa is the default (every file the same bytes); a bad value is
# one line naming the option, exit 2
# shellcheck disable=SC2086
"$COSA" map $small --scheme zoh,foh -o "$tmp/k0" --plot svg >/dev/null 2>&1 &&
    "$COSA" map $small --scheme zoh,foh -o "$tmp/k1" --plot svg --contour cosa >/dev/null 2>&1 ||
    bad "map --contour cosa failed"
nk=0
for f in "$tmp"/k0/*; do
    nk=$((nk + 1))
    cmp -s "$f" "$tmp/k1/${f##*/}" || bad "--contour cosa: ${f##*/} differs from the default's"
done
[ "$nk" -ge 12 ] && [ "$(find "$tmp/k1" -type f | wc -l)" = "$nk" ] && ok || bad "--contour cosa: $nk files"
# shellcheck disable=SC2086
usage_error --contour map $small --scheme zoh -o "$tmp/k2" --contour bogus
# --format json --plot png: the pictures, and the JSON next to the data
# shellcheck disable=SC2086
draw mj "$COSA" map $small --scheme zoh,foh -o "$tmp/mj" --format json --plot png
grep -qx "file $tmp/mj/rho_all.png" "$tmp/out" && [ -s "$tmp/mj/rho_zoh.json" ] &&
    [ -s "$tmp/mj/rho_foh.json" ] && ok || bad "map --format json --plot png: files"
draw cj "$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:40 --scheme foh \
    -o "$tmp/cj" --format json --plot png
[ -s "$tmp/cj/rho_vs_dt.png" ] && [ -s "$tmp/cj/rho_vs_dt.json" ] && ok ||
    bad "curve --format json --plot png: files"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' \
        "$tmp/mj/rho_zoh.json" "$tmp/cj/rho_vs_dt.json" && ok || bad "--format json: not JSON"
fi

# ---- cosa's lines against gnuplot's tracing ---------------------------------------
# Both on the same 40 x 32 grid (log10 axes): every vertex of either lies
# within one cell (0.25 + 0.23 in log10 units: the diagonal of a cell,
# sqrt(dx^2 + dy^2)) of a vertex of the other.  gnuplot interpolates
# differently inside a cell (its own tracer), so one cell is the bound the
# two can be held to; vertices of both lie on cell edges.
"$COSA" map --x ck=1:1e10:log:41 --y dk=1:1e7:log:33 --dt 1e-3,1e-4 --scheme foh -o "$tmp/g" \
    >/dev/null 2>&1 || bad "map for the tracing comparison failed"
for k in 0 1; do
    (cd "$tmp/g" && gnuplot -e "set contour base; unset surface; set cntrparam levels discrete 1;
        set cntrparam linear; set table 'gp$k.txt';
        splot 'rho_foh.dat' index $k using (log10(\$1)):(log10(\$2)):4 with lines nosurface" \
        2>/dev/null) || bad "gnuplot did not trace block $k"
    awk -v k="$k" '/^# dt/ { b++ } /^[0-9]/ && b == k + 1 { print log($1) / log(10), log($2) / log(10) }' \
        "$tmp/g/rho_foh_lines.dat" >"$tmp/g/cosa$k.txt"
    awk '/^ *-?[0-9]/ && NF >= 3 { print $1, $2 }' "$tmp/g/gp$k.txt" >"$tmp/g/gnu$k.txt"
    r=$(awk -v cell="$(awk 'BEGIN { print sqrt(0.25 ^ 2 + (7 / 32) ^ 2) }')" '
        FNR == 1 { f++ }
        f == 1 { ax[++na] = $1; ay[na] = $2; next }
        { bx[++nb] = $1; by[nb] = $2 }
        function far(x, y, X, Y, n,   i, d, m) {
            m = 1e300
            for (i = 1; i <= n; i++) { d = (x - X[i]) ^ 2 + (y - Y[i]) ^ 2; if (d < m) m = d }
            return sqrt(m)
        }
        END {
            if (na < 10 || nb < 10) { print "few " na " " nb; exit }
            w = 0
            for (i = 1; i <= na; i++) { d = far(ax[i], ay[i], bx, by, nb); if (d > w) w = d }
            for (i = 1; i <= nb; i++) { d = far(bx[i], by[i], ax, ay, na); if (d > w) w = d }
            print (w <= cell) ? "ok" : "far " w " > " cell
        }' "$tmp/g/cosa$k.txt" "$tmp/g/gnu$k.txt")
    [ "$r" = ok ] && ok || bad "block $k: cosa's and gnuplot's lines: $r"
done

# ---- an adaptive map draws the full map's lines -----------------------------------
# (every point next to a contour found is evaluated, bitwise as in the full map)
"$COSA" map --x ck=1:1e10:log:64 --y dk=1:1e7:log:64 --dt 1e-3,1e-4 --scheme zoh,soh+mbcorr \
    -o "$tmp/full" >/dev/null 2>&1 &&
    "$COSA" map --x ck=1:1e10:log:64 --y dk=1:1e7:log:64 --dt 1e-3,1e-4 --scheme zoh,soh+mbcorr \
        -o "$tmp/adap" --adaptive >/dev/null 2>&1 || bad "maps for the adaptive lines failed"
for s in zoh soh_mbcorr; do
    grep -v '^#' "$tmp/full/rho_${s}_lines.dat" >"$tmp/full/l"
    grep -v '^#' "$tmp/adap/rho_${s}_lines.dat" >"$tmp/adap/l"
    [ -s "$tmp/full/l" ] && cmp -s "$tmp/full/l" "$tmp/adap/l" && ok ||
        bad "adaptive lines of $s differ from the full map's"
    cmp -s "$tmp/full/rho_${s}_fill.bin" "$tmp/adap/rho_${s}_fill.bin" && ok ||
        bad "adaptive fill of $s differs from the full map's"
done
# the file format: one '# dt' block per macro step (the closed forms are
# tests/test_contour.c's)
n=$(grep -c '^# dt ' "$tmp/full/rho_zoh_lines.dat")
[ "$n" = 2 ] && ok || bad "rho_zoh_lines.dat has $n blocks"
grep -q '^# scheme ZOH$' "$tmp/full/rho_zoh_lines.dat" &&
    grep -q '^# level 1$' "$tmp/full/rho_zoh_lines.dat" &&
    grep -q '^# dt 0.001 lines [1-9]' "$tmp/full/rho_zoh_lines.dat" && ok ||
    bad "rho_zoh_lines.dat does not name scheme, level and dt"
# an error metric is traced in log10 of the error: the lines of e_global =
# 0.01 lie where the data cross 0.01 (a vertex between two grid values on
# either side); 'nan nan' for a dt without a line keeps the block numbers
"$COSA" map --x ck=1:1e8:log:12 --y dk=1:1e5:log:12 --dt 1e-4,10^-8 --scheme foh \
    --metric e_global -o "$tmp/eg" >/dev/null 2>&1 || bad "e_global map failed"
awk '/^# dt 1e-08 lines 0$/ { getline; if ($0 == "nan nan") ok = 1 } END { exit !ok }' \
    "$tmp/eg/e_global_foh_lines.dat" && ok || bad "a dt without a line is not 'nan nan'"
# each vertex of the e_global line lies on a grid line (x or y equals a grid
# value in its %.17g form) -- the marching squares put vertices on cell edges
awk 'NR == FNR { if ($0 !~ /^#/ && NF >= 4 && $3 == 1e-4) { gx[$1] = 1; gy[$2] = 1 }; next }
     /^# dt/ { b++ } b == 1 && /^[0-9]/ { n++; if (!($1 in gx) && !($2 in gy)) off++ }
     END { exit !(n > 0 && off == 0) }' "$tmp/eg/e_global_foh.dat" "$tmp/eg/e_global_foh_lines.dat" &&
    ok || bad "e_global line vertices off the grid lines"

# ---- no picture of an older run next to newer data --------------------------------
"$COSA" map $small --scheme zoh -o "$tmp/st" --plot png --heatmap >/dev/null 2>&1
[ -s "$tmp/st/rho_zoh.png" ] && [ -s "$tmp/st/rho_zoh_heat.png" ] || bad "no picture to go stale"
"$COSA" map $small --scheme zoh -o "$tmp/st" >/dev/null 2>&1
[ ! -e "$tmp/st/rho_zoh.png" ] && [ ! -e "$tmp/st/rho_zoh_heat.png" ] && ok ||
    bad "a picture of the older run stays next to new data"
"$COSA" curve --x dt=1e-5:1e-3:log:5 --scheme zoh -o "$tmp/st" --plot svg >/dev/null 2>&1
[ -s "$tmp/st/rho_vs_dt.svg" ] || bad "no curve picture to go stale"
"$COSA" curve --x dt=1e-5:1e-3:log:5 --scheme zoh -o "$tmp/st" >/dev/null 2>&1
[ ! -e "$tmp/st/rho_vs_dt.svg" ] && ok || bad "the curve picture of the older run stays"
# simulate (trajectory and energy pictures) and simulate --coupling likewise
sim="--model twomass-fd --scheme zoh --dt 1e-3 --tend 0.05 --energy --name s"
# shellcheck disable=SC2086
"$COSA" simulate $sim -o "$tmp/st" --plot png >/dev/null 2>&1
[ -s "$tmp/st/s.png" ] && [ -s "$tmp/st/s_energy.png" ] || bad "no simulate picture to go stale"
# shellcheck disable=SC2086
"$COSA" simulate $sim -o "$tmp/st" >/dev/null 2>&1
[ -s "$tmp/st/s.csv" ] && [ ! -e "$tmp/st/s.png" ] && [ ! -e "$tmp/st/s_energy.png" ] && ok ||
    bad "a simulate picture of the older run stays next to new data"
vo="--coupling explicit --model twomass-ff --scheme p1 --dt 1e-3 --tend 0.01 --name v"
# shellcheck disable=SC2086
"$COSA" simulate $vo -o "$tmp/st" --plot pdf >/dev/null 2>&1
[ -s "$tmp/st/v.pdf" ] || bad "no simulate --coupling picture to go stale"
# shellcheck disable=SC2086
"$COSA" simulate $vo -o "$tmp/st" >/dev/null 2>&1
[ -s "$tmp/st/v.csv" ] && [ ! -e "$tmp/st/v.pdf" ] && ok ||
    bad "a simulate --coupling picture of the older run stays next to new data"
# advise and defect likewise: a rerun without --plot removes the pictures,
# a rerun with another format removes the other format's
"$COSA" advise --tol 1e-3 --schemes zoh,foh -o "$tmp/sa" --plot png >/dev/null 2>&1
[ -s "$tmp/sa/advise.png" ] || bad "no advise picture to go stale"
"$COSA" advise --tol 1e-2 --schemes zoh,foh -o "$tmp/sa" >/dev/null 2>&1
[ -s "$tmp/sa/advise.dat" ] && [ ! -e "$tmp/sa/advise.png" ] && ok ||
    bad "an advise picture of the older run stays next to new data"
"$COSA" advise --tol 1e-3 --schemes zoh,foh -o "$tmp/sa" --plot png >/dev/null 2>&1
"$COSA" advise --tol 1e-2 --schemes zoh,foh -o "$tmp/sa" --plot svg >/dev/null 2>&1
[ -s "$tmp/sa/advise.svg" ] && [ ! -e "$tmp/sa/advise.png" ] && ok ||
    bad "advise --plot svg leaves the older run's advise.png"
def="--model twomass --integrator exact --in-order 0 --out-order 0 --tend 0.2"
db="$tmp/sd/twomass_exact_m0_n0"
# shellcheck disable=SC2086
"$COSA" defect $def --dt 1e-3 -o "$tmp/sd" --plot png >/dev/null 2>&1
[ -s "${db}_response.png" ] && [ -s "${db}_steps.png" ] || bad "no defect picture to go stale"
# shellcheck disable=SC2086
"$COSA" defect $def --dt 2e-3 -o "$tmp/sd" >/dev/null 2>&1
[ -s "$db.csv" ] && [ ! -e "${db}_response.png" ] && [ ! -e "${db}_steps.png" ] && ok ||
    bad "a defect picture of the older run stays next to new data"
# shellcheck disable=SC2086
"$COSA" defect $def --dt 1e-3 -o "$tmp/sd" --plot png >/dev/null 2>&1
# shellcheck disable=SC2086
"$COSA" defect $def --dt 2e-3 -o "$tmp/sd" --plot svg >/dev/null 2>&1
[ -s "${db}_response.svg" ] && [ -s "${db}_steps.svg" ] && [ ! -e "${db}_response.png" ] &&
    [ ! -e "${db}_steps.png" ] && ok || bad "defect --plot svg leaves the older run's PNGs"
# a sweep's pictures (the _h_avg one of a --tol sweep too)
sw="--model rotational-defect --integrator exact --in-order 1 --out-order 1"
sb="$tmp/sd/rotational-defect_exact_m1_n1_tol_sweep"
# shellcheck disable=SC2086
"$COSA" defect $sw --tol 1e-2:1e-1:log:3 -o "$tmp/sd" --plot png >/dev/null 2>&1
[ -s "${sb}_h_avg.png" ] && [ -s "${sb}_error.png" ] || bad "no defect sweep picture to go stale"
# shellcheck disable=SC2086
"$COSA" defect $sw --tol 1e-2:1e-1:log:3 -o "$tmp/sd" >/dev/null 2>&1
[ -s "$sb.csv" ] && [ ! -e "${sb}_h_avg.png" ] && [ ! -e "${sb}_error.png" ] && ok ||
    bad "a defect sweep picture of the older run stays next to new data"

harness_done test_pictures
