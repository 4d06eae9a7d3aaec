#!/bin/sh
# test_rho_round.sh -- the stability threshold of rho near 1 (lib/phi/evaluate.c,
# lib/core/eig_bound.c): a network with a free mass (tests/freemass.cosa) has
# the eigenvalue 1 in Phi at every macro step and every scheme; computed as
# 1 + delta with delta above COSA_RHO_TOL = 1e-12 at tiny steps, it counts as
# stable within its rounding bound, so limit from --dt-min 1e-9 finds the
# same limit as from 1e-5 (where the question does not arise), and a step
# just above the limit is still unstable.
. "$(dirname "$0")/harness.sh"
MF=${COSA_SRCDIR:-.}/tests/freemass.cosa

# stable at tiny steps whatever the rounding of the eigenvalue 1
above=0
for sc in zoh gs:zoh foh; do
    for dt in 1e-9 1e-8 1e-7 1e-6; do
        "$COSA" point --model-file "$MF" --scheme $sc --dt $dt >"$tmp/p" 2>"$tmp/e" ||
            { bad "point $sc $dt: $(cat "$tmp/e")"; continue; }
        rho=$(sed -n 's/^rho //p' "$tmp/p")
        grep -qx "stable yes" "$tmp/p" && ok || bad "point $sc $dt: rho $rho counted unstable"
        awk -v r="$rho" 'BEGIN { exit !(r > 1 + 1e-12) }' && above=$((above + 1))
    done
done
# the case of the issue is met: some rho rounds above the old fixed threshold
# (on another BLAS it may not; then the checks above prove less)
[ $above -gt 0 ] || echo "note: no rho above 1 + 1e-12 here; the rounding case is not exercised"

# the limit from 1e-9 and from 1e-5: the bisection stops at a relative bracket
# of 1e-6 (COSA_LIMIT_RTOL) around the same crossing, so they agree to 2e-6
for sc in zoh foh; do
    for dm in 1e-9 1e-5; do
        "$COSA" limit --model-file "$MF" --scheme $sc --criterion stable --dt-min $dm \
            >"$tmp/l$dm" 2>"$tmp/e" || bad "limit $sc --dt-min $dm: $(cat "$tmp/e")"
    done
    a=$(sed -n 's/^dt_max //p' "$tmp/l1e-9")
    b=$(sed -n 's/^dt_max //p' "$tmp/l1e-5")
    awk -v a="$a" -v b="$b" 'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(b > 1e-4 && d <= 2e-6) }' &&
        ok || bad "limit $sc from 1e-9: $a, from 1e-5: $b"
    grep -qx "good_at_min yes" "$tmp/l1e-9" && ok || bad "limit $sc: not good at 1e-9"
    # just above the limit: unstable (the bound is at most 1e-8, not a blanket)
    dt=$(awk -v b="$b" 'BEGIN { printf "%.10g", b * 1.001 }')
    [ $sc = zoh ] && dtz=$dt
    "$COSA" point --model-file "$MF" --scheme $sc --dt "$dt" 2>/dev/null | grep -qx "stable no" &&
        ok || bad "point $sc at 1.001 x the limit ($dt): not unstable"
done
# cosa demo's '!' follows the same rule (lib/phi/rho_tol.c): at tiny steps,
# where rho rounds above 1 + 1e-12, every scheme's mark agrees with point's
# "stable" line; just above zoh's limit (dtz, from the loop above) ZOH is marked
"$COSA" demo --model-file "$MF" --dt "1e-9,$dtz" >"$tmp/demo" 2>"$tmp/e" || bad "demo: $(cat "$tmp/e")"
awk 'NR > 2 && $1 != "reference" { print $1, $2 }' "$tmp/demo" >"$tmp/cells"
[ -s "$tmp/cells" ] || bad "demo printed no scheme rows"
while read -r sc v; do
    st=$("$COSA" point --model-file "$MF" --scheme "$sc" --dt 1e-9 2>/dev/null | sed -n 's/^stable //p')
    case "$v" in *!) mark=no ;; *) mark=yes ;; esac
    [ "$st" = "$mark" ] && ok || bad "demo $sc at 1e-9: '$v', point says stable '$st'"
done <"$tmp/cells"
awk '$1 == "ZOH" { exit !($3 ~ /!$/) }' "$tmp/demo" && ok || bad "demo: ZOH at $dtz (above its limit) not marked"
harness_done test_rho_round
