#!/bin/sh
# test_step_grid.sh -- FMUs with a fixed internal step in the commands that scan
# the macro step (doc/fixed-step-fmus.md "Scanning the macro step"), the cache of
# identified models and the identified model written as numbers
# (doc/black-box.md "Identification cache", "Reusing an identified model"):
# - limit on the two-mass pair whose II is the forward-Euler black box (step
#   1e-5): dt_max = m h_s, and cosa point (another command path) finds
#   rho(m h_s) < 1 <= rho((m + 1) h_s);
# - the step grid of several FMUs is their least common multiple, steps without
#   one are refused in one line; --dt-max below h_s likewise;
# - curve and map over dt: the axis snapped to multiples, duplicates dropped;
# - advise recommends a multiple that cosa simulate runs;
# - a map over an FMU parameter with repeated parameter sets identifies once per
#   distinct set, with the same numbers as without the cache and as cosa point;
# - cosa linearize -o on the Euler pair reads back to the same rho, digit for digit.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
SRC=${COSA_SRCDIR:-.}

fmu_twomass "$tmp/eu.cosa" eu 0.3 twomass1_fmi3.fmu twomass2_euler_fmi3.fmu
fmu_twomass "$tmp/bb.cosa" bb 0.3 twomass1_fmi3.fmu twomass2_hid_fmi3.fmu
# is X a whole multiple of H (to 1e-9 relative)?
multiple() { awk -v x="$1" -v h="$2" 'BEGIN { m = x / h; r = int(m + 0.5); d = m - r
    exit !(r >= 1 && (d < 0 ? -d : d) <= 1e-9 * m) }'; }

# ---- limit: the largest good multiple, checked by cosa point --------------------------------
"$COSA" limit --model-file "$tmp/eu.cosa" --scheme zoh --criterion stable >"$tmp/l.out" 2>"$tmp/l.err" ||
    bad "limit on the Euler pair failed: $(cat "$tmp/l.err")"
m=$(sed -n 's/^cosa: limit: note: the FMUs step on a grid of h_s = 1e-05 s (FMU II): dt_max is m = \([0-9]*\) steps of it, the largest multiple that is stable below the first loss (stable at [0-9]* h_s, not at [0-9]* h_s); the continuous scan.s dt_max is .*/\1/p' "$tmp/l.err")
[ -n "$m" ] && ok || bad "limit: no grid note: $(cat "$tmp/l.err")"
m=${m:-0}
dtmax=$(val dt_max "$tmp/l.out")
awk -v a="$dtmax" -v m="$m" 'BEGIN { d = a - m * 1e-5; exit !(m > 0 && (d < 0 ? -d : d) <= 1e-12 * a) }' &&
    ok || bad "limit: dt_max $dtmax is not m = $m steps of 1e-5"
# the continuous dt_max of the note is at or above m h_s and below (m + 1) h_s
cont=$(sed -n 's/.*the continuous scan.s dt_max is \(.*\)$/\1/p' "$tmp/l.err")
awk -v c="$cont" -v m="$m" 'BEGIN { exit !(c >= m * 1e-5 && c < (m + 1) * 1e-5) }' && ok ||
    bad "limit: continuous dt_max $cont against m = $m"
dt0=$(awk -v m="$m" 'BEGIN { printf "%.17g", m * 1e-5 }')
dt1=$(awk -v m="$m" 'BEGIN { printf "%.17g", (m + 1) * 1e-5 }')
"$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt "$dt0" >"$tmp/p0" 2>"$tmp/p0.err"
"$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt "$dt1" >"$tmp/p1" 2>"$tmp/p1.err"
r0=$(val rho "$tmp/p0")
r1=$(val rho "$tmp/p1")
awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(a != "" && b != "" && a < 1 && b >= 1) }' && ok ||
    bad "point: rho($m h_s) = $r0, rho($((m + 1)) h_s) = $r1: not < 1 <= "
! grep -q "not a multiple" "$tmp/p0.err" "$tmp/p1.err" && ok || bad "point noted a multiple as off the grid"
echo "limit: m $m dt_max $dtmax (continuous $cont): rho $r0 at m h_s, $r1 at (m + 1) h_s"
# the JSON form carries the same dt_max
"$COSA" limit --model-file "$tmp/eu.cosa" --scheme zoh --criterion stable --format json 2>/dev/null |
    grep -q "\"dt_max\": $dtmax" && ok || bad "limit --format json: not dt_max $dtmax"

# --dt-max below the grid: one line, exit 2
"$COSA" limit --model-file "$tmp/eu.cosa" --scheme zoh --criterion stable --dt-min 1e-7 --dt-max 5e-6 \
    >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/o" ] &&
    grep -qx "cosa: limit: --dt-max 5e-06 is below the step grid h_s = 1e-05 s of FMU II (fixed internal steps): no macro step of the range can run" "$tmp/e" &&
    ok || bad "--dt-max below h_s: exit $rc, $(cat "$tmp/e")"

# ---- the grid of several FMUs: their least common multiple, or one line -----------------------
# variants of the declared-state two-mass FMUs with a fixedInternalStepSize (same binaries)
fixed() { # OUT SUB STEP
    sed -e "s/providesIntermediateUpdate=\"true\"/providesIntermediateUpdate=\"true\" fixedInternalStepSize=\"$3\"/" \
        "$SRC/tests/fmu/twomass$2_fmi3.xml" >"$tmp/md$2.xml"
    "$FMU/mkfmu" "$tmp/$1" "modelDescription.xml=$tmp/md$2.xml" \
        "binaries/x86_64-linux/twomass$2.so=$FMU/twomass$2.so" || bad "mkfmu $1"
}
fixed f1a.fmu 1 4e-6
fixed f1b.fmu 1 1.41421356e-6
fixed f2.fmu 2 1e-5
net2() { # FILE I II (paths)
    printf 'model g\ntend 0.3\nfmu I = %s\nfmu II = %s\nconnect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n' \
        "$2" "$3" >"$1"
}
net2 "$tmp/g1.cosa" "$FMU/twomass1_fixed_fmi3.fmu" "$tmp/f2.fmu" # 1e-6 and 1e-5: 1e-5
net2 "$tmp/g2.cosa" "$tmp/f1a.fmu" "$tmp/f2.fmu"                 # 4e-6 and 1e-5: 2e-5
net2 "$tmp/g3.cosa" "$tmp/f1b.fmu" "$tmp/f2.fmu"                 # 1.414e-6 and 1e-5: none
for c in "g1:1e-05" "g2:2e-05"; do
    f=${c%%:*}
    "$COSA" limit --model-file "$tmp/$f.cosa" --scheme zoh --criterion stable >"$tmp/$f.out" 2>"$tmp/$f.err"
    grep -q "^cosa: limit: note: the FMUs step on a grid of h_s = ${c#*:} s (FMUs I, II): dt_max is m = " "$tmp/$f.err" &&
        multiple "$(val dt_max "$tmp/$f.out")" "${c#*:}" && ok ||
        bad "$f: h_s ${c#*:} expected: $(cat "$tmp/$f.err") dt_max $(val dt_max "$tmp/$f.out")"
done
for c in "limit --scheme zoh --criterion stable" "curve --scheme zoh --x dt=1e-5:1e-3:log:3" \
    "map --scheme zoh --x I.d1=1:2:lin:2 --y dt=1e-5:1e-3:log:3"; do
    # shellcheck disable=SC2086
    (cd "$tmp" && "$COSA" $c --model-file g3.cosa >o 2>e)
    rc=$?
    cmd=${c%% *}
    [ $rc = 2 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
        grep -qx "cosa: $cmd: the FMUs' fixed internal steps have no common multiple (a ratio p/q with q <= 1000 to 1e-9): FMU I steps 1.41421356e-06 s, FMU II 1e-05 s, so no macro step runs both" "$tmp/e" &&
        ok || bad "$cmd on steps without a common multiple: exit $rc, $(cat "$tmp/e")"
done
"$COSA" advise --model-file "$tmp/g3.cosa" --tol 0.01 --schemes zoh >"$tmp/o" 2>/dev/null &&
    grep -qx 'recommend none (no candidate can run on these FMUs)' "$tmp/o" &&
    grep -q "^note ZOH: not ranked: cosa simulate cannot run it on these FMUs (the FMUs' fixed internal steps have no common multiple" "$tmp/o" &&
    ok || bad "advise on steps without a common multiple: $(cat "$tmp/o")"

# ---- curve and map over dt: multiples of h_s, duplicates dropped ------------------------------
(cd "$tmp" && "$COSA" curve --model-file eu.cosa --scheme zoh --x dt=1.2e-5:3e-5:lin:5 -o cv >o 2>e) ||
    bad "curve over dt failed: $(cat "$tmp/e")"
grep -q "^cosa: curve: note: the macro steps are multiples of h_s = 1e-05 s, the step grid of FMU II (fixed internal steps): 4 of the 5 values of the dt axis moved to the nearest multiple (at least h_s), 3 distinct kept$" "$tmp/e" &&
    ok || bad "curve: snapping note: $(cat "$tmp/e")"
# 1.2, 1.65, 2.1, 2.55, 3 (x 1e-5) -> 1, 2, 2, 3, 3: rows 1e-5, 2e-5, 3e-5
awk '!/^#/ && NF { n++; x[n] = $1 } END { exit !(n == 3) }' "$tmp/cv/rho_vs_dt.dat" &&
    [ "$(awk '!/^#/ && NF { printf "%s ", $1 }' "$tmp/cv/rho_vs_dt.dat")" = "1.0000000000000001e-05 2.0000000000000002e-05 3.0000000000000004e-05 " ] &&
    grep -q '^# x dt 1.0000000000000001e-05 3.0000000000000004e-05 lin 3$' "$tmp/cv/rho_vs_dt.dat" &&
    grep -qx 'points 3' "$tmp/o" && ok || bad "curve: rows $(grep -v '^#' "$tmp/cv/rho_vs_dt.dat")"
# each row's rho is cosa point's at that step, digit for digit (the same evaluation)
"$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt 2.0000000000000002e-05 >"$tmp/p2" 2>/dev/null
[ "$(awk '!/^#/ && NF && $1 == "2.0000000000000002e-05" { print $2 }' "$tmp/cv/rho_vs_dt.dat")" = "$(val rho "$tmp/p2")" ] &&
    ok || bad "curve at 2e-5 against point: $(val rho "$tmp/p2")"
(cd "$tmp" && "$COSA" map --model-file eu.cosa --scheme zoh --x II.ck=1e5:2e5:lin:2 --y dt=1.2e-5:3e-5:lin:5 \
    -o mp >o 2>e) || bad "map over dt failed: $(cat "$tmp/e")"
grep -q "^cosa: map: note: the macro steps are multiples of h_s = 1e-05 s, .*: 4 of the 5 values of the dt axis moved .*, 3 distinct kept$" "$tmp/e" &&
    [ "$(awk '!/^#/ && NF { n++ } END { print n }' "$tmp/mp/rho_zoh.dat")" = 6 ] &&
    awk '!/^#/ && NF { m = $2 / 1e-5; r = int(m + 0.5); d = m - r; if ((d < 0 ? -d : d) > 1e-9 * m) exit 1 }' "$tmp/mp/rho_zoh.dat" &&
    ok || bad "map over dt: $(cat "$tmp/e") $(grep -v '^#' "$tmp/mp/rho_zoh.dat")"
(cd "$tmp" && "$COSA" map --model-file eu.cosa --scheme zoh --x II.ck=1e5:2e5:lin:2 --y dt=1e-5:1.2e-5:lin:3 \
    -o mp1 >o 2>e)
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/o" ] && grep -q "^cosa: map: --y dt=1e-5:1.2e-5:lin:3: one multiple of the FMUs' step grid is left after snapping: widen the range$" "$tmp/e" &&
    ok || bad "map over a dt axis of one multiple: exit $rc, $(cat "$tmp/e")"
# a --dt list is not an axis: its steps are noted, not moved (as before)
(cd "$tmp" && "$COSA" map --model-file eu.cosa --scheme zoh --dt 1.5e-5,2e-5 --x II.ck=1e5:1e6:log:2 \
    --y II.dk=100:1000:log:2 -o ml >/dev/null 2>e)
grep -q "^cosa: map: note: 1 of the 2 macro steps are not multiples" "$tmp/e" && ok ||
    bad "map --dt list: $(cat "$tmp/e")"

# ---- advise: a multiple of h_s that cosa simulate runs -----------------------------------------
"$COSA" advise --model-file "$tmp/eu.cosa" --tol 0.01 --schemes zoh,zoh+mbcorr >"$tmp/a" 2>/dev/null ||
    bad "advise on the Euler pair failed"
set -- $(awk '$1 == "recommend" { print $2, $4 }' "$tmp/a")
multiple "${2:-0}" 1e-5 && ok || bad "advise recommends dt ${2:-none}, not a multiple of 1e-5"
"$COSA" simulate --model-file "$tmp/eu.cosa" --scheme "${1:-none}" --dt "${2:-0}" --ref none >"$tmp/s" 2>"$tmp/se" &&
    grep -qx 'status ok' "$tmp/s" && ok || bad "simulate the recommendation $*: $(cat "$tmp/se")"

# ---- the identification cache ----------------------------------------------------------------
# II.ck on 3 values x I.d1 on 3 values x 2 steps: II identified at 3 parameter sets, with
# two threads (a thread asking for a set another one is identifying waits for it)
MAP="map --model-file bb.cosa --scheme zoh --x II.ck=1e5:1e6:log:3 --y I.d1=1:3:lin:3 --dt 1e-4,2e-4 --threads 2"
# shellcheck disable=SC2086
(cd "$tmp" && "$COSA" $MAP -o mc >/dev/null 2>ce) || bad "map over II.ck failed: $(cat "$tmp/ce")"
# shellcheck disable=SC2086
(cd "$tmp" && COSA_IDENT_CACHE=off "$COSA" $MAP -o mn >/dev/null 2>ne) || bad "map without the cache failed"
grep -q "^cosa: map: note: identified models at the sweep's FMU parameter values: 3 identifications, [1-9][0-9]* reused (one per FMU and distinct parameter set; doc/black-box.md)$" "$tmp/ce" &&
    ok || bad "cache note: $(cat "$tmp/ce")"
grep -q "^cosa: map: note: identified models at the sweep's FMU parameter values: [0-9]* identifications, 0 reused" "$tmp/ne" &&
    ! grep -q "3 identifications" "$tmp/ne" && ok || bad "COSA_IDENT_CACHE=off: $(cat "$tmp/ne")"
cmp -s "$tmp/mc/rho_zoh.dat" "$tmp/mn/rho_zoh.dat" && ok || bad "the cache changed the map's numbers"
# the map's value at ck = 1e6, d1 = 3, dt 2e-4 is cosa point's with those values set
"$COSA" point --model-file "$tmp/bb.cosa" --scheme zoh --dt 2e-4 --set II.ck=1e6 --set I.d1=3 >"$tmp/pc" 2>/dev/null
[ "$(awk '!/^#/ && $1 == 1000000 && $2 == 3 && $3 == 0.0002 { print $4 }' "$tmp/mc/rho_zoh.dat")" = "$(val rho "$tmp/pc")" ] &&
    ok || bad "map at ck 1e6 against point $(val rho "$tmp/pc")"
# a sweep that does not move II's parameters identifies nothing again
(cd "$tmp" && "$COSA" map --model-file bb.cosa --scheme zoh --x I.d1=1:3:lin:3 --y I.m1=5:10:lin:2 \
    --dt 1e-4 -o mi >/dev/null 2>ie)
! grep -q "identified models at the sweep" "$tmp/ie" && ok || bad "map over I's parameters: $(cat "$tmp/ie")"
# curve over an FMU parameter: the same note
(cd "$tmp" && "$COSA" curve --model-file bb.cosa --scheme zoh --x II.dk=100:1000:log:4 --dt 1e-4 \
    -o ci >/dev/null 2>ci.err)
grep -q "^cosa: curve: note: identified models at the sweep's FMU parameter values: 4 identifications, " "$tmp/ci.err" &&
    ok || bad "curve cache note: $(cat "$tmp/ci.err")"

# ---- cosa linearize: the identified fixed-step model as numbers, read back ----------------------
"$COSA" linearize --model-file "$tmp/eu.cosa" -o "$tmp/eulin.cosa" 2>/dev/null || bad "linearize -o failed"
grep -q "^# FMU II identified from its inputs and outputs: order 2 at the probe step 1e-5 s" "$tmp/eulin.cosa" &&
    ! grep -q "^fmu " "$tmp/eulin.cosa" && ok || bad "linearize: $(head -n 5 "$tmp/eulin.cosa")"
for dt in "$dt0" 1e-4; do
    "$COSA" point --model-file "$tmp/eu.cosa" --scheme zoh --dt "$dt" >"$tmp/a1" 2>/dev/null
    "$COSA" point --model-file "$tmp/eulin.cosa" --scheme zoh --dt "$dt" >"$tmp/a2" 2>/dev/null
    [ -n "$(val rho "$tmp/a1")" ] && [ "$(val rho "$tmp/a1")" = "$(val rho "$tmp/a2")" ] && ok ||
        bad "linearize round trip at $dt: rho $(val rho "$tmp/a1") against $(val rho "$tmp/a2")"
done

fmu_env_done test_step_grid.sh
