#!/bin/sh
# test_pictures.sh -- the pictures (doc/pictures.md): every picture format
# every command offers is drawn at least once (map, its adaptive, heat map
# and dt-axis variants, curve, simulate, the variable-order and energy
# runs, defect, advise), each file is what its format says; the contour
# lines cosa traces (NAME_SCHEME_lines.dat) lie within one grid cell of
# gnuplot's own tracing of the same grid, and an adaptive map gives the
# full map's lines; no picture of an older run stays next to new data.
# Skipped without gnuplot.
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
# a map's vector pictures hold the lines, not the grid: far below the size of
# one point per grid value
sz=$(wc -c <"$tmp/m_pdf/rho_all.pdf")
[ "$sz" -lt 200000 ] && ok || bad "rho_all.pdf is $sz bytes"

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
