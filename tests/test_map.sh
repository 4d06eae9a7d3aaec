#!/bin/sh
# test_map.sh -- `cosa map`, `cosa curve`, `cosa bench` on small grids: values
# equal `cosa point` to the digit, 1 and 2 threads give identical files,
# gnuplot parses the scripts (skipped without gnuplot), failed points are
# 'nan' and do not stop the sweep, and one-line errors with exit codes.
. "$(dirname "$0")/harness.sh"

# swept NAME: the value a sweep stores for the `cosa point` output on stdin:
# the NAME line, or inf where point says 'stable no' (sweeps mark unstable
# points inf; point prints the run's errors: README, "Accuracy")
swept() { awk -v n="$1" '$1 == "stable" { s = $2 } $1 == n { v = $2 }
                         END { print (s == "no" && n ~ /^e_/) ? "inf" : v }'; }


for sub in map curve bench; do
    expect_exit 0 "$COSA" "$sub" --help
    grep -q "^Usage: cosa $sub" "$tmp/out" || bad "cosa $sub --help has no usage line"
done

# ---- map: a 4 x 3 grid, 2 macro steps, 2 schemes --------------------------------
args="--x ck=1e3:1e9:log:4 --y dk=1:1e5:log:3 --dt 10^-3,3e-5 --scheme zoh,foh+mbcorr"
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $args --threads 1 -o "$tmp/t1"
for f in rho_zoh.dat rho_zoh.gp rho_foh_mbcorr.dat rho_foh_mbcorr.gp rho_all.gp; do
    [ -s "$tmp/t1/$f" ] || bad "map did not write $f"
done
grep -q "^file $tmp/t1/rho_zoh.dat$" "$tmp/out" || bad "map does not list its files on stdout"
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $args --threads 2 -o "$tmp/t2"
for f in rho_zoh.dat rho_foh_mbcorr.dat rho_zoh.gp rho_all.gp; do
    cmp -s "$tmp/t1/$f" "$tmp/t2/$f" || bad "$f differs between 1 and 2 threads"
done

# header, layout: 2 blocks x 4 x values x 3 y values, blank lines between
d="$tmp/t1/rho_foh_mbcorr.dat"
grep -q '^# model twomass$' "$d" || bad "data header lacks the model"
grep -q '^# scheme FOH+MBCorr$' "$d" || bad "data header lacks the scheme"
grep -q '^# metric rho$' "$d" || bad "data header lacks the metric"
grep -q '^# columns: ck dk dt rho$' "$d" || bad "data header lacks the column names"
grep -q '^# cosa ' "$d" || bad "data header lacks the cosa version"
rows=$(grep -cv '^#' "$d")
data=$(grep -v '^#' "$d" | grep -c .)
[ "$data" = 24 ] || bad "expected 24 data rows, got $data"
[ "$rows" = $((24 + 2 * 3 + 2)) ] || bad "expected blank lines between x values and dt blocks ($rows lines)"

# every row equals `cosa point` to the last printed digit
grep -v '^#' "$d" | grep . | awk 'NR % 5 == 1' | while read -r x y dt v; do
    p=$("$COSA" point --scheme foh+mbcorr --dt "$dt" --set ck="$x" --set dk="$y" |
        awk '$1 == "rho" { print $2 }')
    [ "$p" = "$v" ] || echo "row ck=$x dk=$y dt=$dt: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "map differs from point: $(head -3 "$tmp/diff")"; else ok; fi

# accuracy map: e_global equals point, 'inf' where unstable
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map --x ck=1e3:1e10:log:3 --y dk=1:1e5:log:2 --dt 3e-3,1e-4 --scheme zoh \
    --metric e_global -o "$tmp/e"
grep -q '^inf' "$tmp/e/e_global_zoh.dat" && bad "values in the wrong column"
grep -v '^#' "$tmp/e/e_global_zoh.dat" | grep -q ' inf$' || bad "no 'inf' for unstable points"
grep -v '^#' "$tmp/e/e_global_zoh.dat" | grep . | while read -r x y dt v; do
    p=$("$COSA" point --scheme zoh --dt "$dt" --set ck="$x" --set dk="$y" | swept e_global)
    [ "$p" = "$v" ] || echo "row ck=$x dk=$y dt=$dt: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "e_global map differs from point: $(head -3 "$tmp/diff")"; else ok; fi

# failed points: m1 = -1 and 0 are outside m1's range (> 0) (2 x 2 points);
# the sweep goes on, with a note naming the rule
expect_exit 0 "$COSA" map --x m1=-1:1:lin:3 --y ck=1e3:1e6:log:2 --dt 1e-4 --scheme zoh -o "$tmp/f"
grep -qF 'note: --x m1: 2 of 3 points are outside the range (m1 must be > 0) and give nan' "$tmp/err" ||
    bad "no note on the points outside the range: $(cat "$tmp/err")"
grep -q '^failed 4$' "$tmp/out" || bad "map should report 4 failed points: $(cat "$tmp/out")"
[ "$(grep -v '^#' "$tmp/f/rho_zoh.dat" | grep -c ' nan$')" = 4 ] || bad "failed points should be nan"
[ "$(grep -v '^#' "$tmp/f/rho_zoh.dat" | grep . | grep -cv ' nan$')" = 2 ] ||
    bad "the points after a failure should be computed"
grep -q '^# failed 4: ' "$tmp/f/rho_zoh.dat" || bad "the header should count failures by reason"
# no valid point on an axis: one line naming the rule, exit 2
expect_exit 2 "$COSA" map --x m1=-2:-1:lin:3 --y ck=1e3:1e6:log:2 --dt 1e-4 --scheme zoh -o "$tmp/f0"
grep -qF -- '--x m1: no point of the axis is valid: m1 must be > 0' "$tmp/err" || bad "all-invalid axis: $(cat "$tmp/err")"
# an invalid default of a swept parameter does not matter: a model file whose
# algebraic loop is singular at its default a = 1 is mapped over a (only the
# swept point a = 1 fails); point at the default is refused (exit 2)
cat >"$tmp/loop.cosa" <<EOM
param a = 1
param k = 1
$(model_sub S x u y A=-k B=1 C=1 D=a)
$(model_sub T '' y u D=1)
connect S.y -> T.y
connect T.u -> S.u
EOM
expect_exit 2 "$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh --dt 0.1
expect_exit 0 "$COSA" map --model-file "$tmp/loop.cosa" --x a=0:3:lin:4 --y k=1:2:lin:2 --scheme zoh --dt 0.1 -o "$tmp/loop"
[ "$(grep -v '^#' "$tmp/loop/rho_zoh.dat" | grep -c ' nan$')" = 2 ] &&
    [ "$(grep -v '^#' "$tmp/loop/rho_zoh.dat" | grep '^1 ' | grep -c ' nan$')" = 2 ] && ok ||
    bad "map over a with a singular default: only a = 1 should be nan: $(cat "$tmp/loop/rho_zoh.dat")"
grep -v '^#' "$tmp/loop/rho_zoh.dat" | grep '^2 1 ' | awk '{ print $4 }' >"$tmp/loop_v"
"$COSA" point --model-file "$tmp/loop.cosa" --set a=2 --scheme zoh --dt 0.1 | awk '$1 == "rho" { print $2 }' | cmp -s - "$tmp/loop_v" &&
    ok || bad "map point a=2 differs from cosa point"
expect_exit 0 "$COSA" curve --model-file "$tmp/loop.cosa" --x a=0:3:lin:4 --scheme zoh --dt 0.1 -o "$tmp/loopc"

# no silent overwrite without -o (a refusal of the input: exit 2); -o DIR replaces
expect_exit 2 sh -c "cd '$tmp/t1' && exec '$COSA' map $args"
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $args -o "$tmp/t1"

# ---- curve ---------------------------------------------------------------------------
expect_exit 0 "$COSA" curve --x dt=1e-5:1e-3:log:5 --scheme zoh,zoh+mbcorr --metric e_local \
    -o "$tmp/c" --name el
[ "$(grep -v '^#' "$tmp/c/el.dat" | awk '{ print NF }' | sort -u)" = 3 ] ||
    bad "curve: expected 3 columns (dt + 2 schemes)"
grep -v '^#' "$tmp/c/el.dat" | while read -r dt a b; do
    p=$("$COSA" point --scheme zoh+mbcorr --dt "$dt" | awk '$1 == "e_local" { print $2 }')
    [ "$p" = "$b" ] || echo "dt=$dt: curve $b, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "curve differs from point: $(head -3 "$tmp/diff")"; else ok; fi
expect_exit 0 "$COSA" curve --x ck=1:1e10:log:7 --dt 10^-3.5 --set dk=40 --scheme soh+mbcorr \
    --metric e_global -o "$tmp/c"
[ -s "$tmp/c/e_global_vs_ck.dat" ] && [ -s "$tmp/c/e_global_vs_ck.gp" ] || bad "curve files missing"

# a dt curve (one grid point) is split over the threads: identical files
for t in 1 2; do
    expect_exit 0 "$COSA" curve --x dt=1e-6:1e-2:log:40 --scheme zoh,soh+mbcorr --metric e_global \
        --threads $t -o "$tmp/d$t"
done
cmp -s "$tmp/d1/e_global_vs_dt.dat" "$tmp/d2/e_global_vs_dt.dat" ||
    bad "dt curve differs between 1 and 2 threads"

# structural parameters (chain's n): every point computed, equal to `cosa point`
for t in 1 2; do
    expect_exit 0 "$COSA" curve --model chain --x n=3:6:lin:4 --dt 1e-3 --scheme zoh,foh+mbcorr \
        --metric e_global --threads $t -o "$tmp/n$t"
done
cmp -s "$tmp/n1/e_global_vs_n.dat" "$tmp/n2/e_global_vs_n.dat" ||
    bad "curve over n differs between 1 and 2 threads"
grep -v '^#' "$tmp/n1/e_global_vs_n.dat" | while read -r n a b; do
    p=$("$COSA" point --model chain --set n="$n" --scheme foh+mbcorr --dt 1e-3 |
        awk '$1 == "e_global" { print $2 }')
    [ "$p" = "$b" ] || echo "n=$n: curve $b, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "curve over n differs from point: $(head -3 "$tmp/diff")"; else ok; fi

# ---- imperfect model knowledge: assumed parameters (--assume, assume.P axes) ----------
# map over the assumed ck (true dk on y, --assume m2 fixed): 1 and 2 threads identical, every
# sampled row equals `cosa point --set dk --assume ck --assume m2` to the digit
aargs="--x assume.ck=1e4:1e7:log:4 --y dk=10:1e4:log:3 --dt 1e-4,3e-4 --scheme zoh,foh+mbcorr --assume m2=12"
for t in 1 2; do
    # shellcheck disable=SC2086
    expect_exit 0 "$COSA" map $aargs --threads $t -o "$tmp/a$t"
done
for f in rho_zoh.dat rho_foh_mbcorr.dat; do
    cmp -s "$tmp/a1/$f" "$tmp/a2/$f" || bad "assumed map $f differs between 1 and 2 threads"
done
d="$tmp/a1/rho_foh_mbcorr.dat"
grep -q '^# assume m2 12$' "$d" && grep -q '^# assume ck (swept)$' "$d" && grep -q '^# param ck 200000$' "$d" &&
    grep -q '^# x assume.ck 10000 10000000 log 4$' "$d" && grep -q '^# columns: assume.ck dk dt rho$' "$d" &&
    ok || bad "assumed map header: $(grep '^# [acpx]' "$d" | tr '\n' '|')"
grep -v '^#' "$d" | grep . | awk 'NR % 3 == 1' | while read -r x y dt v; do
    p=$("$COSA" point --scheme foh+mbcorr --dt "$dt" --set dk="$y" --assume ck="$x" --assume m2=12 |
        awk '$1 == "rho" { print $2 }')
    [ "$p" = "$v" ] || echo "row assume.ck=$x dk=$y dt=$dt: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "assumed map differs from point: $(head -3 "$tmp/diff")"; else ok; fi
# plain ZOH is model-free: the same values as without any assumption
# shellcheck disable=SC2086
# (a one-point axis: an axis of equal LO and HI is refused for N > 1; every
# assumed ck of a1 must give the rows of a0, so a1 holds no other rows)
expect_exit 0 "$COSA" map --x c1=1e6:1e6:lin:1 --y dk=10:1e4:log:3 --dt 1e-4,3e-4 --scheme zoh -o "$tmp/a0"
[ "$(grep -v '^#' "$tmp/a1/rho_zoh.dat" | grep . | awk '{ print $2, $3, $4 }' | sort -u)" = \
    "$(grep -v '^#' "$tmp/a0/rho_zoh.dat" | grep . | awk '{ print $2, $3, $4 }' | sort -u)" ] && ok ||
    bad "plain ZOH depends on the assumed model"
# a mismatch map of e_global: true ck x assumed ck, --assume dk fixed while the true dk is
# the default; the diagonal is the matched model (assumed vector = true one except dk)
expect_exit 0 "$COSA" map --x ck=1e4:1e7:log:3 --y assume.ck=1e4:1e7:log:3 --dt 1e-4 \
    --scheme zoh+mbcorr --metric e_global --assume dk=300 -o "$tmp/mm"
grep -v '^#' "$tmp/mm/e_global_zoh_mbcorr.dat" | grep . | while read -r x y dt v; do
    p=$("$COSA" point --scheme zoh+mbcorr --dt "$dt" --set ck="$x" --assume ck="$y" --assume dk=300 |
        swept e_global)
    [ "$p" = "$v" ] || echo "row ck=$x assume.ck=$y: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "mismatch map differs from point: $(head -3 "$tmp/diff")"; else ok; fi
# a true axis with --assume on another parameter: the assumed ck follows the true one
expect_exit 0 "$COSA" map --x ck=1e4:1e7:log:3 --y dk=10:1e4:log:2 --dt 1e-4 --scheme soh+mbcorr \
    --assume m1=9 -o "$tmp/fo"
grep -v '^#' "$tmp/fo/rho_soh_mbcorr.dat" | grep . | while read -r x y dt v; do
    p=$("$COSA" point --scheme soh+mbcorr --dt "$dt" --set ck="$x" --set dk="$y" --assume m1=9 |
        awk '$1 == "rho" { print $2 }')
    [ "$p" = "$v" ] || echo "row ck=$x dk=$y: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "map with --assume differs from point: $(head -3 "$tmp/diff")"; else ok; fi
# --assume at the true values: the data rows of today's map, bitwise
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $args --assume c1=1e6 --assume m2=10 -o "$tmp/tv"
for f in rho_zoh.dat rho_foh_mbcorr.dat; do
    cmp -s "$tmp/t1/$f" "$tmp/tv/$f" && bad "$f: the header should list the assumed values"
    [ "$(grep -v '^#' "$tmp/t1/$f")" = "$(grep -v '^#' "$tmp/tv/$f")" ] && ok ||
        bad "$f: --assume at the true values changes the map"
done
# failed assumed points: m1 <= 0 is rejected; nan for the corrected scheme only
expect_exit 0 "$COSA" map --x assume.m1=-1:1:lin:3 --y ck=1e3:1e6:log:2 --dt 1e-4 \
    --scheme zoh,zoh+mbcorr -o "$tmp/af"
grep -q '^failed 4$' "$tmp/out" || bad "assumed map should report 4 failed points: $(cat "$tmp/out")"
[ "$(grep -v '^#' "$tmp/af/rho_zoh_mbcorr.dat" | grep -c ' nan$')" = 4 ] &&
    [ "$(grep -v '^#' "$tmp/af/rho_zoh.dat" | grep -c ' nan$')" = 0 ] && ok ||
    bad "rejected assumed model: nan for ZOH+MBCorr only"
grep -q '^# failed 4: ' "$tmp/af/rho_zoh_mbcorr.dat" || bad "the header should count assumed failures"
# plain schemes only: one note on stderr, exit 0
expect_exit 0 "$COSA" map --x assume.ck=1e4:1e7:log:2 --y dk=10:1e4:log:2 --dt 1e-4 --scheme zoh,foh \
    -o "$tmp/pn"
grep -qxF 'cosa: map: note: --assume has no effect on ZOH, FOH (no output correction)' "$tmp/err" &&
    ok || bad "map note: $(cat "$tmp/err")"
# curve over the assumed ck equals point
expect_exit 0 "$COSA" curve --x assume.ck=1e3:1e8:log:6 --dt 10^-3.5 --scheme zoh,soh+mbcorr \
    --metric e_global -o "$tmp/ac"
grep -q '^# assume ck (swept)$' "$tmp/ac/e_global_vs_assume.ck.dat" || bad "curve header lacks '# assume ck (swept)'"
dtc=$(awk '$1 == "#" && $2 == "dt" { print $3 }' "$tmp/ac/e_global_vs_assume.ck.dat")
grep -v '^#' "$tmp/ac/e_global_vs_assume.ck.dat" | while read -r x a b; do
    p=$("$COSA" point --scheme soh+mbcorr --dt "$dtc" --assume ck="$x" | swept e_global)
    [ "$p" = "$b" ] || echo "assume.ck=$x: curve $b, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "assumed curve differs from point: $(head -3 "$tmp/diff")"; else ok; fi
[ "$(grep -v '^#' "$tmp/ac/e_global_vs_assume.ck.dat" | awk '{ print $2 }' | sort -u | wc -l)" = 1 ] &&
    ok || bad "plain ZOH changes along the assumed axis"
# usage errors
expect_exit 2 "$COSA" map --x assume.nope=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh+mbcorr -o "$tmp/u"
expect_exit 2 "$COSA" map --x assume.s1=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh+mbcorr -o "$tmp/u"
expect_exit 2 "$COSA" map --x assume.ck=1:10:log:2 --y assume.ck=1:10:log:2 --dt 1e-4 --scheme zoh+mbcorr -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh+mbcorr --assume nope=1 -o "$tmp/u"
expect_exit 2 "$COSA" curve --x assume.v1=1:10:log:2 --dt 1e-4 --scheme zoh+mbcorr -o "$tmp/u"
expect_exit 2 "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh+mbcorr --assume v1=1 -o "$tmp/u"

# ---- the macro step as the second axis (--y dt=...) -----------------------------------
# rows 'x dt value'; every row equals `cosa point` (here over an assumed ck)
expect_exit 0 "$COSA" map --set ck=2e5 --set dk=5e2 --x assume.ck=5e4:8e5:log:4 --y dt=1e-5:1e-2:log:4 \
    --scheme zoh+mbcorr --metric e_global -o "$tmp/dtax" --name r
[ "$(grep -v '^#' "$tmp/dtax/r_zoh_mbcorr.dat" | grep -c .)" = 16 ] && ok || bad "--y dt map should have 16 rows"
grep -q '^# y dt [0-9.e-]* [0-9.e-]* 4 values$' "$tmp/dtax/r_zoh_mbcorr.dat" && ok || bad "--y dt header"
grep -v '^#' "$tmp/dtax/r_zoh_mbcorr.dat" | grep . | while read -r x dt v; do
    p=$("$COSA" point --scheme zoh+mbcorr --dt "$dt" --set ck=2e5 --set dk=5e2 --assume ck="$x" |
        swept e_global)
    [ "$p" = "$v" ] || echo "row assume.ck=$x dt=$dt: map $v, point $p"
done >"$tmp/diff"
if [ -s "$tmp/diff" ]; then bad "--y dt map differs from point: $(head -3 "$tmp/diff")"; else ok; fi
grep -q 'xmark  = 200000$' "$tmp/dtax/r_zoh_mbcorr.gp" && ok || bad "the true ck is not marked in the script"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dt=1e-5:1e-3:log:3 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dt=1e-5:1e-3:log:1 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dt=1e-5:1e-3:log:3 --scheme zoh --heatmap -o "$tmp/u"
if command -v gnuplot >/dev/null 2>&1; then
    (cd "$tmp/dtax" && gnuplot r_zoh_mbcorr.gp 2>"$tmp/gperr") && [ -s "$tmp/dtax/r_zoh_mbcorr.png" ] &&
        ok || bad "gnuplot rejects the --y dt script: $(cat "$tmp/gperr")"
fi

# ---- gnuplot parses and renders the scripts (skipped without gnuplot) ----------------
if command -v gnuplot >/dev/null 2>&1; then
    expect_exit 0 "$COSA" map $args --heatmap -o "$tmp/t1" --plot png
    for f in rho_zoh.png rho_foh_mbcorr.png rho_all.png rho_zoh_heat.png; do
        [ -s "$tmp/t1/$f" ] || bad "--plot png did not make $f"
    done
    (cd "$tmp/c" && gnuplot -e 'fmt="svg"' el.gp 2>"$tmp/gperr") || bad "gnuplot rejects el.gp: $(cat "$tmp/gperr")"
    [ -s "$tmp/c/el.svg" ] || bad "el.gp made no svg"
    # titles carry the --set and --assume values, not the swept ones (issue 14)
    # shellcheck disable=SC2086
    expect_exit 0 "$COSA" map $args --set m1=12 --set ck=5 --assume m2=11 --heatmap -o "$tmp/st" --plot png
    for f in rho_zoh.gp rho_all.gp rho_zoh_heat.gp; do
        grep -q 'm1 = 12, assumed m2 = 11' "$tmp/st/$f" && ! grep -q 'ck = 5' "$tmp/st/$f" && ok ||
            bad "$f: the title should name m1 = 12 and the assumed m2 = 11, not the swept ck"
    done
    grep -q 'ck = 200000, dk = 500' "$tmp/dtax/r_zoh_mbcorr.gp" && ok || bad "--y dt map title lacks the --set values"
    expect_exit 0 "$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-5:1e-3:log:4 --scheme foh -o "$tmp/sc"
    grep -q 'model twomass, ck = 1e9, dk = 360000' "$tmp/sc/rho_vs_dt.gp" && ok || bad "curve title lacks the --set values"
    expect_exit 0 "$COSA" simulate --model twomass-nl --set nd=1.5 --scheme zoh+mbcorr --dt 1e-3 \
        -o "$tmp/sim" --plot png
    grep -q 'nd = 1.5' "$tmp/sim/twomass-nl_zoh_mbcorr.gp" && [ -s "$tmp/sim/twomass-nl_zoh_mbcorr.png" ] &&
        ok || bad "simulate title lacks nd = 1.5 (or no png)"
    # +inf stretches: a curve marks them "unstable" in its key, a heatmap on its colour box;
    # a dT without contour says "(none)" in the map key
    expect_exit 0 "$COSA" curve --x dt=1e-4:3e-3:log:8 --scheme p0,p1 --metric e_local -o "$tmp/ci" --plot png
    (cd "$tmp/ci" && gnuplot -e 'fmt="svg"' e_local_vs_dt.gp 2>"$tmp/gperr") &&
        grep -q 'unstable (bars)' "$tmp/ci/e_local_vs_dt.svg" && ok ||
        bad "curve with inf: no 'unstable (bars)' key: $(cat "$tmp/gperr")"
    expect_exit 0 "$COSA" map --x ck=1e3:1e10:log:3 --y dk=1:1e5:log:2 --dt 3e-3,1e-4 --scheme zoh \
        --metric e_global -o "$tmp/ei" --heatmap --plot png
    (cd "$tmp/ei" && gnuplot -e 'fmt="svg"' e_global_zoh.gp e_global_zoh_heat.gp 2>"$tmp/gperr") &&
        grep -q '0.003 (none)' "$tmp/ei/e_global_zoh.svg" && grep -q 'unstable' "$tmp/ei/e_global_zoh_heat.svg" &&
        ok || bad "map key without '(none)' or heatmap without 'unstable': $(cat "$tmp/gperr")"
else
    echo "SKIP: gnuplot not installed, scripts not parsed"
fi

# ---- usage errors -------------------------------------------------------------------
expect_exit 2 "$COSA" map --y dk=1:10:log:2 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x nope=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=0:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:cubic:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4,-1 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh --metric foo
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-4 --scheme zoh --plot gif
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y ck=1:10:log:2 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" curve --x dt=1e-5:1e-3:log:3 --dt 1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" curve --x ck=1:10:log:3 --scheme zoh -o "$tmp/u"

# a failed --plot leaves no picture behind ($COSA_GNUPLOT: a gnuplot that writes
# its output where cosa tells it, -e '...; outfile="NAME"', complains and fails)
mkdir -p "$tmp/fake"
printf '#!/bin/sh\neval "$2"\n: > "$outfile"\necho broken >&2\nexit 1\n' >"$tmp/fake/gnuplot"
chmod +x "$tmp/fake/gnuplot"
COSA_GNUPLOT="$tmp/fake/gnuplot" "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh -o "$tmp/fp" --plot png \
    >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q 'gnuplot failed' "$tmp/err" && [ ! -e "$tmp/fp/rho_vs_dt.png" ] && [ -s "$tmp/fp/rho_vs_dt.gp" ] &&
    [ -z "$(ls -A "$tmp/fp" | grep '^\.')" ] &&
    ok || bad "a failed --plot: exit/message/picture left: $(cat "$tmp/err"); $(ls "$tmp/fp")"

# --adaptive: 'evaluated N of M' with N < M, a 5th column 'exact', the exact
# values are the full map's (same digits), every row on the same side of the
# level, and the options are checked
ad="--x ck=1e3:1e10:log:40 --y dk=1:1e6:log:40 --scheme zoh,foh+mbcorr --dt 1e-3,1e-4"
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $ad -o "$tmp/adfull"
# shellcheck disable=SC2086
expect_exit 0 "$COSA" map $ad --adaptive -o "$tmp/ad"
awk '$1 == "evaluated" { exit !($2 < $4 && $4 == 6400) }' "$tmp/out" || bad "adaptive: $(cat "$tmp/out")"
grep -q '^# adaptive: coarse grid every 12 points' "$tmp/ad/rho_zoh.dat" || bad "adaptive header"
for f in rho_zoh.dat rho_foh_mbcorr.dat; do
    grep -v '^#' "$tmp/adfull/$f" >"$tmp/adf.txt"
    grep -v '^#' "$tmp/ad/$f" >"$tmp/ada.txt"
    paste -d ' ' "$tmp/adf.txt" "$tmp/ada.txt" | awk '
        NF == 9 { n++; if ($9 == 1 && $4 != $8) e++; if (($4 < 1) != ($8 < 1)) c++; if ($9 == 1) x++ }
        END { if (n != 3200 || e || c || !x) { printf "rows %d, exact differing %d, misclassified %d\n", n, e, c; exit 1 } }' ||
        bad "adaptive $f against the full map"
done
expect_exit 2 "$COSA" map --x ck=1:10:log:4 --y dk=1:10:log:4 --scheme zoh --dt 1e-3 --coarse 4 -o "$tmp/adx"
expect_exit 2 "$COSA" map --x ck=1:10:log:4 --y dk=1:10:log:4 --scheme zoh --dt 1e-3 --adaptive --coarse 0 -o "$tmp/adx"
expect_exit 2 "$COSA" map --x ck=1:10:log:4 --y dk=1:10:log:4 --scheme zoh --dt 1e-3 --adaptive --margin -1 -o "$tmp/adx"
expect_exit 0 "$COSA" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:200 --scheme foh --adaptive -o "$tmp/adc"
grep -q '^# columns: dt FOH exact_FOH$' "$tmp/adc/rho_vs_dt.dat" || bad "adaptive curve columns"

# ---- --format bin and cosa convert --------------------------------------------------------
# The binary files are the text ones in another form: converting either way
# reproduces the other format byte for byte, so every check above on text
# files holds for the binary ones too; the pictures are the same PNG.
expect_exit 0 "$COSA" convert --help
grep -q '^Usage: cosa convert' "$tmp/out" || bad "cosa convert --help has no usage line"
bf="--x ck=1:1e10:log:24 --y dk=1:1e7:log:20 --dt 1e-3,1e-4 --scheme zoh,foh+mbcorr"
mkdir -p "$tmp/bt" "$tmp/bb" "$tmp/bc"
for fmt in text bin; do
    d=$tmp/bt
    [ "$fmt" = bin ] && d=$tmp/bb
    # shellcheck disable=SC2086
    expect_exit 0 "$COSA" map $bf --adaptive --heatmap --format "$fmt" -o "$d"
    # shellcheck disable=SC2086
    expect_exit 0 "$COSA" map --x ck=1:1e10:log:16 --y dt=1e-6:1e-2:log:9 --scheme zoh --name dt \
        --format "$fmt" -o "$d"
done
grep -q '^file .*/rho_zoh\.bin$' "$tmp/out" || grep -q "rho_zoh.bin" "$tmp/bb/rho_zoh.dat" ||
    bad "--format bin does not name its record file"
[ ! -e "$tmp/bt/rho_zoh.bin" ] && [ -s "$tmp/bb/rho_zoh.bin" ] || bad "--format: .bin files"
grep -q '^# binary rho_zoh.bin: float64 little-endian, 5 columns, 2 blocks of 24 x 20 records$' \
    "$tmp/bb/rho_zoh.dat" || bad "binary header line: $(grep '^# binary' "$tmp/bb/rho_zoh.dat")"
[ "$(grep -vc '^#' "$tmp/bb/rho_zoh.dat")" = 0 ] || bad "a binary header file holds records"
# 2 blocks x 24 x 20 records of 5 float64
[ "$(wc -c <"$tmp/bb/rho_zoh.bin")" = $((2 * 24 * 20 * 5 * 8)) ] || bad "size of rho_zoh.bin"
for f in rho_zoh rho_foh_mbcorr dt_zoh; do
    expect_exit 0 "$COSA" convert "$tmp/bt/$f.dat" "$tmp/bc/$f.dat"
    cmp -s "$tmp/bc/$f.dat" "$tmp/bb/$f.dat" && cmp -s "$tmp/bc/$f.bin" "$tmp/bb/$f.bin" ||
        bad "convert text -> bin of $f differs from map --format bin"
    expect_exit 0 "$COSA" convert "$tmp/bb/$f.dat" "$tmp/bc/${f}_text.dat"
    cmp -s "$tmp/bc/${f}_text.dat" "$tmp/bt/$f.dat" ||
        bad "convert bin -> text of $f differs from map --format text"
done
# the binary values themselves: column 4 of the records against the text file
od -A n -t f8 -v -w40 "$tmp/bb/rho_zoh.bin" | awk '{ print $4 }' >"$tmp/bvals"
grep -v '^#' "$tmp/bt/rho_zoh.dat" | awk 'NF { print $4 }' >"$tmp/tvals"
paste -d ' ' "$tmp/bvals" "$tmp/tvals" | awk '{ n++; d = $1 - $2; if (d < 0) d = -d;
    if (d > 1e-15 * ($2 < 0 ? -$2 : $2)) e++ } END { exit !(n == 960 && !e) }' ||
    bad "od of rho_zoh.bin disagrees with the text file"
if command -v gnuplot >/dev/null 2>&1; then
    for d in bt bb; do
        (cd "$tmp/$d" && gnuplot rho_all.gp rho_zoh_heat.gp dt_zoh.gp 2>"$tmp/gperr") ||
            bad "gnuplot rejects the $d scripts: $(cat "$tmp/gperr")"
    done
    for png in rho_all.png rho_zoh_heat.png dt_zoh.png; do
        cmp -s "$tmp/bt/$png" "$tmp/bb/$png" || bad "$png differs between text and bin"
    done
fi
# bad input: one line, no file left behind
expect_exit 2 "$COSA" map --x ck=1:10:log:4 --y dk=1:10:log:4 --scheme zoh --dt 1e-3 --format xml -o "$tmp/bx"
expect_exit 2 "$COSA" convert "$tmp/bt/rho_zoh.dat"
expect_exit 2 "$COSA" convert "$tmp/bt/rho_zoh.dat" "$tmp/bc/x.txt"
expect_exit 2 "$COSA" convert "$tmp/bt/rho_zoh.dat" "$tmp/bt/rho_zoh.dat"
# a missing input is bad input (the exit code table): 2
expect_exit 2 "$COSA" convert "$tmp/none.dat" "$tmp/bc/y.dat"
printf '# something else\n1 2 3\n' >"$tmp/other.dat"
expect_exit 2 "$COSA" convert "$tmp/other.dat" "$tmp/bc/y.dat"
# one record less: x groups of unequal length
awk '!/^#/ && NF { n++; if (n == 5) next } { print }' "$tmp/bt/rho_zoh.dat" >"$tmp/nogrid.dat"
expect_exit 2 "$COSA" convert "$tmp/nogrid.dat" "$tmp/bc/y.dat"
mkdir -p "$tmp/trunc"
cp "$tmp/bb/rho_zoh.dat" "$tmp/trunc/"
head -c 1000 "$tmp/bb/rho_zoh.bin" >"$tmp/trunc/rho_zoh.bin"
expect_exit 2 "$COSA" convert "$tmp/trunc/rho_zoh.dat" "$tmp/bc/y.dat"
[ -z "$(ls "$tmp/bc" | grep '^y\.\|tmp')" ] || bad "convert left files behind: $(ls "$tmp/bc")"

harness_done test_map.sh
