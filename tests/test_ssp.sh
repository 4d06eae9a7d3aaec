#!/bin/sh
# test_ssp.sh -- SSP import (README "SSP import"): systems built here from the
# test FMUs of make check -- an SSP 2.0 archive and an unpacked SSP 2.0 .ssd
# (flat, FMI 3.0 FMUs, Float64 connectors, parameters from an .ssv file and
# inline), an SSP 1.0 archive and an unpacked SSP 1.0 .ssd (a nested system,
# FMI 2.0 FMUs, Real connectors, linear transformations whose factors
# multiply along the path, a system-level .ssv) -- give the same numbers as
# the equivalent model file with `fmu` statements for point, limit, advise
# and simulate (compared digit for digit: the same FMUs linearised and run
# by the same code, so any difference is an import error); `connect ... *
# FACTOR` against the factor folded into B; every broken SSP is one line and
# exit code 2, and nothing is left in TMPDIR.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
MKZIP=$FMU/mkfmu
NS='xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"'

# ---- SSP 2.0, flat: I and II of the two-mass oscillator (FMI 3.0) ----------------------
# II's .ssv sets ck = 1e6 and dk = 999; the top system's bindings set I.v = 50 (prefix
# "I.") and II.dk = 300, which wins (an outer binding takes precedence)
flat() { # VERSION TYPE SOURCE1 SOURCE2
    cat <<END
$(ssd_head twomass-ssp "$1")
    <ssd:Elements>
      <ssd:Component name="I" type="application/x-fmu-sharedlibrary" source="$3">
$(ssd_connectors '        ' "$2" 'Fk:input:unit="N"' 's1:output:unit="m"' v1:output)
        <ssd:ElementGeometry x1="0" y1="0" x2="10" y2="10"/>
      </ssd:Component>
      <ssd:Component name="II" source="$4" implementation="CoSimulation">
        <ssd:Connectors>
          <ssd:Connector name="s1" kind="input"><ssc:$2 unit="m"/></ssd:Connector>
          <ssd:Connector name="v1" kind="input"/>
          <ssd:Connector name="Fk" kind="output"><ssc:$2 unit="N"/></ssd:Connector>
          <ssd:Connector name="ck" kind="parameter"><ssc:$2/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="resources/II.ssv"/>
        </ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'I.s1>II.s1' 'I.v1>II.v1')
      <ssd:Connection startElement="II" startConnector="Fk" endElement="I" endConnector="Fk">
        <ssc:LinearTransformation factor="1" offset="0"/>
      </ssd:Connection>
    </ssd:Connections>
    <ssd:ParameterBindings>
$(ssd_param '      ' start v "$2" 50 "$1" I.)
$(ssd_param '      ' damping II.dk "$2" 300 "$1")
    </ssd:ParameterBindings>
    <ssd:Annotations>
      <ssc:Annotation type="org.example.tool"><anything at="all"/></ssc:Annotation>
    </ssd:Annotations>
$(ssd_tail 0.3 0)
END
}
ssv() { # VERSION TYPE NAME=VALUE...
    v=$1
    t=$2
    shift 2
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<ssv:ParameterSet $NS version=\"$v\" name=\"p\"><ssv:Parameters>"
    for a in "$@"; do
        echo "  <ssv:Parameter name=\"${a%%=*}\"><ssv:$t value=\"${a#*=}\"/></ssv:Parameter>"
    done
    echo "</ssv:Parameters></ssv:ParameterSet>"
}
d2=$tmp/flat2
mkdir -p "$d2/resources"
cp "$FMU/twomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" "$d2/resources/"
flat 2.0 Float64 resources/twomass1_fmi3.fmu resources/twomass2_fmi3.fmu >"$d2/SystemStructure.ssd"
ssv 2.0 Float64 ck=1e6 dk=999 >"$d2/resources/II.ssv"
"$MKZIP" "$tmp/flat2.ssp" SystemStructure.ssd="$d2/SystemStructure.ssd" \
    resources/II.ssv="$d2/resources/II.ssv" \
    resources/twomass1_fmi3.fmu="$FMU/twomass1_fmi3.fmu" \
    resources/twomass2_fmi3.fmu="$FMU/twomass2_fmi3.fmu" || bad "mkfmu flat2.ssp"
fmu_twomass "$tmp/flat.cosa" twomass-ssp 0.3 twomass1_fmi3.fmu twomass2_fmi3.fmu
FLATSET="--set II.ck=1e6 --set II.dk=300 --set I.v=50"

# ---- SSP 1.0, nested: I inside system A (FMI 2.0), II beside it ------------------------
# II.Fk -> A.Fk (factor 2) -> A_I.Fk (factor 1.5): u = 3 y; A's .ssv sets I.c1 = 4e6
nested() { # VERSION TYPE SOURCE1 SOURCE2
    cat <<END
$(ssd_head twomass-nested "$1")
    <ssd:Elements>
      <ssd:System name="A">
        <ssd:Connectors>
          <ssd:Connector name="Fk" kind="input"><ssc:$2 unit="N"/></ssd:Connector>
          <ssd:Connector name="s1" kind="output"><ssc:$2 unit="m"/></ssd:Connector>
          <ssd:Connector name="v1" kind="output"/>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding type="application/x-ssp-parameter-set" source="resources/A.ssv"/>
        </ssd:ParameterBindings>
        <ssd:Elements>
          <ssd:Component name="I" source="$3">
$(ssd_connectors '            ' "$2" 'Fk:input:unit="N"' 's1:output:unit="m"' v1:output)
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startConnector="Fk" endElement="I" endConnector="Fk">
            <ssc:LinearTransformation factor="1.5"/>
          </ssd:Connection>
          <ssd:Connection startElement="I" startConnector="s1" endConnector="s1"/>
          <ssd:Connection startElement="I" startConnector="v1" endConnector="v1"/>
        </ssd:Connections>
      </ssd:System>
      <ssd:Component name="II" source="$4">
$(ssd_connectors '        ' "$2" 's1:input:unit="m"' v1:input 'Fk:output:unit="N"')
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'A.s1>II.s1' 'A.v1>II.v1')
      <ssd:Connection startElement="II" startConnector="Fk" endElement="A" endConnector="Fk">
        <ssc:LinearTransformation factor="2"/>
      </ssd:Connection>
    </ssd:Connections>
$(ssd_tail 0.3)
END
}
d1=$tmp/nested1
mkdir -p "$d1/resources"
cp "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" "$d1/resources/"
nested 1.0 Real resources/twomass1_fmi2.fmu resources/twomass2_fmi2.fmu >"$d1/SystemStructure.ssd"
ssv 1.0 Real I.c1=4e6 >"$d1/resources/A.ssv"
"$MKZIP" "$tmp/nested1.ssp" SystemStructure.ssd="$d1/SystemStructure.ssd" \
    resources/A.ssv="$d1/resources/A.ssv" \
    resources/twomass1_fmi2.fmu="$FMU/twomass1_fmi2.fmu" \
    resources/twomass2_fmi2.fmu="$FMU/twomass2_fmi2.fmu" || bad "mkfmu nested1.ssp"
fmu_pair twomass-nested 0.3 A_I "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" s1 v1 '* 3' >"$tmp/nested.cosa"
NESTSET="--set A_I.c1=4e6"

# same CMD...: the SSP's output equals the model file's with the parameters set (the
# model line names the model: the SSD's name, the same in both)
same() { # WHAT SSP COSAFILE "SETS" CMD...
    what=$1 ssp=$2 mf=$3 sets=$4
    shift 4
    "$COSA" "$@" --model-file "$ssp" >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" "$@" --model-file "$mf" $sets >"$tmp/b" 2>&1 && [ -s "$tmp/b" ] &&
        cmp -s "$tmp/a" "$tmp/b" && ok ||
        bad "$what: $*: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -6)"
}
for ssp in "$tmp/flat2.ssp" "$d2/SystemStructure.ssd" "$tmp/nested1.ssp" "$d1/SystemStructure.ssd"; do
    case $ssp in
    *flat*) mf=$tmp/flat.cosa sets=$FLATSET ;;
    *) mf=$tmp/nested.cosa sets=$NESTSET ;;
    esac
    for s in zoh foh+mbcorr gs:foh; do
        same "point" "$ssp" "$mf" "$sets" point --scheme $s --dt 1e-4
    done
    same "limit" "$ssp" "$mf" "$sets" limit --scheme zoh --criterion stable
    same "advise" "$ssp" "$mf" "$sets" advise --tol 1e-2
    for s in zoh soh+mbcorr gs:foh; do
        same "simulate" "$ssp" "$mf" "$sets" simulate --scheme $s --dt 1e-3
    done
done
# start and end of a connection do not give the direction, the connectors' kinds do (the
# standard on ssd:Connection): the flat system with I.s1 -> II.s1 and the factor-carrying II.Fk -> I.Fk
# written end to start is the same system
sed -e 's|startElement="I" startConnector="s1" endElement="II" endConnector="s1"|startElement="II" startConnector="s1" endElement="I" endConnector="s1"|' \
    -e 's|startElement="II" startConnector="Fk" endElement="I" endConnector="Fk"|startElement="I" startConnector="Fk" endElement="II" endConnector="Fk"|' \
    "$d2/SystemStructure.ssd" >"$d2/reversed.ssd"
grep -q 'startElement="II" startConnector="s1"' "$d2/reversed.ssd" && ok || bad "reversed.ssd"
same "reversed" "$d2/reversed.ssd" "$tmp/flat.cosa" "$FLATSET" point --scheme foh+mbcorr --dt 1e-4
# ... also inside a nested system, where it carries the factor 1.5 (target = 1.5 source)
sed 's|<ssd:Connection startConnector="Fk" endElement="I" endConnector="Fk">|<ssd:Connection startElement="I" startConnector="Fk" endConnector="Fk">|' \
    "$d1/SystemStructure.ssd" >"$d1/reversed.ssd"
grep -q 'startElement="I" startConnector="Fk" endConnector="Fk"' "$d1/reversed.ssd" && ok || bad "reversed nested"
same "reversed nested" "$d1/reversed.ssd" "$tmp/nested.cosa" "$NESTSET" point --scheme foh+mbcorr --dt 1e-4
# the parameters' defaults are the bound values; the horizon is stopTime
"$COSA" models --model-file "$tmp/flat2.ssp" >"$tmp/a" 2>&1 &&
    grep -q '^twomass-ssp: SSP 2.0 system top with 2 FMU components and 3 connections (natural horizon 0.3 s)$' "$tmp/a" &&
    grep -q '^  II\.ck  *1000000 ' "$tmp/a" && grep -q '^  II\.dk  *300 ' "$tmp/a" &&
    grep -q '^  I\.v  *50 ' "$tmp/a" && ok || bad "models flat2.ssp: $(cat "$tmp/a")"
"$COSA" models --model-file "$d1/SystemStructure.ssd" >"$tmp/a" 2>&1 &&
    grep -q '^  A_I\.c1  *4000000 ' "$tmp/a" && ok || bad "models nested1: $(cat "$tmp/a")"
# --set on top of the bindings
same "point --set" "$tmp/flat2.ssp" "$tmp/flat.cosa" "--set II.ck=1e6 --set II.dk=300 --set I.v=20" \
    point --scheme zoh --dt 1e-4 --set I.v=20
# a map over two component parameters (from their bound values on): the model file's map
# over the same axes, value for value (the comment header lists the defaults, which differ)
"$COSA" map --model-file "$tmp/flat2.ssp" --x II.ck=1e5:1e6:log:3 --y II.dk=100:1000:log:3 \
    --scheme zoh --dt 1e-4 -o "$tmp/map1" >/dev/null 2>"$tmp/err" &&
    "$COSA" map --model-file "$tmp/flat.cosa" --set I.v=50 --x II.ck=1e5:1e6:log:3 \
        --y II.dk=100:1000:log:3 --scheme zoh --dt 1e-4 -o "$tmp/map2" >/dev/null 2>&1 &&
    grep -v '^#' "$tmp/map1/rho_zoh.dat" >"$tmp/a" && grep -v '^#' "$tmp/map2/rho_zoh.dat" >"$tmp/b" &&
    [ "$(wc -l <"$tmp/b")" -ge 9 ] && cmp -s "$tmp/a" "$tmp/b" && ok || bad "map: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -4)"
# model-dump writes the equivalent model file (numbers, the factor 3), which reads back
# to the same Phi
"$COSA" model-dump --model-file "$tmp/nested1.ssp" -o "$tmp/dump.cosa" >/dev/null 2>&1 &&
    grep -q '^connect II.Fk -> A_I.Fk \* 3$' "$tmp/dump.cosa" &&
    "$COSA" phi --model-file "$tmp/dump.cosa" --scheme foh+mbcorr --dt 1e-4 | grep -v '^#' >"$tmp/a" &&
    "$COSA" phi --model-file "$tmp/nested.cosa" $NESTSET --scheme foh+mbcorr --dt 1e-4 | grep -v '^#' >"$tmp/b" &&
    [ -s "$tmp/b" ] && cmp -s "$tmp/a" "$tmp/b" && ok || bad "model-dump nested1.ssp: $(diff "$tmp/a" "$tmp/b" | head -4)"

# ---- connect ... * FACTOR: u = FACTOR y ---------------------------------------------------
# twomass.cosa with II.Fk -> I.Fk * 2 against the same file with the 2 folded into B (the
# column of F_k): the same A*, hence rho equal up to the round-off of the different
# matrix-exponential scaling (B enters the Van Loan matrix's norm): eigenvalue round-off
# ~1e-12 (doc/method.md), checked at 1e-10 relative
src=${COSA_SRCDIR:-.}
sed 's/^connect II.Fk -> I.Fk$/connect II.Fk -> I.Fk * 2/' "$src/data/models/twomass.cosa" >"$tmp/g2.cosa"
sed 's|^        1/m1 \]$|        2/m1 ]|' "$src/data/models/twomass.cosa" >"$tmp/b2.cosa"
grep -q 'I.Fk \* 2' "$tmp/g2.cosa" && grep -q '2/m1 \]' "$tmp/b2.cosa" && ok || bad "factor test files"
for s in zoh foh+mbcorr; do
    "$COSA" point --model-file "$tmp/g2.cosa" --scheme $s --dt 1e-4 >"$tmp/a" &&
        "$COSA" point --model-file "$tmp/b2.cosa" --scheme $s --dt 1e-4 >"$tmp/b" &&
        awk 'FNR == 1 { f++ } $1 == "rho" { r[f] = $2 }
            END { d = r[1] - r[2]; if (d < 0) d = -d; exit !(r[2] > 0 && d <= 1e-10 * r[2]) }' \
            "$tmp/a" "$tmp/b" && ok || bad "factor 2, $s: $(grep '^rho ' "$tmp/a" "$tmp/b")"
done
"$COSA" point --model-file "$tmp/g2.cosa" --scheme zoh --dt 1e-4 >"$tmp/a" &&
    "$COSA" point --model-file "$src/data/models/twomass.cosa" --scheme zoh --dt 1e-4 >"$tmp/b" &&
    ! cmp -s "$tmp/a" "$tmp/b" && ok || bad "the factor changes nothing"
"$COSA" model-dump --model-file "$tmp/g2.cosa" 2>&1 | grep -q '^connect II.Fk -> I.Fk \* 2$' && ok ||
    bad "model-dump writes the factor"
printf 'subsystem S\n states x\n inputs u\n outputs y\n A = [-1]\n B = [1]\n C = [1]\n D = [0]\nend\nconnect S.y -> S.u * 0\n' >"$tmp/g0.cosa"
"$COSA" point --model-file "$tmp/g0.cosa" --scheme zoh --dt 1e-2 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'factor of S.u must be finite and not 0' "$tmp/err" && ok || bad "factor 0: $(cat "$tmp/err")"

# ---- LinearTransformation offset: u = L y + c ----------------------------------------------
# (1) the SSP's offset 0.5 on II.Fk -> I.Fk is the model file's `connect ... offset 0.5`:
# simulate digit for digit (the same FMUs run by the same code: a difference is an import
# error), its reference the fine co-simulation (the linearised network has no c) with a note
mkdir -p "$tmp/offset/resources" && cp "$d2/resources/"* "$tmp/offset/resources/"
sed 's|factor="1" offset="0"|factor="1" offset="0.5"|' "$d2/SystemStructure.ssd" \
    >"$tmp/offset/SystemStructure.ssd"
sed 's|^connect II.Fk -> I.Fk$|connect II.Fk -> I.Fk offset 0.5|' "$tmp/flat.cosa" >"$tmp/flatoff.cosa"
grep -q 'offset="0.5"' "$tmp/offset/SystemStructure.ssd" && grep -q 'I.Fk offset 0.5$' "$tmp/flatoff.cosa" &&
    ok || bad "offset test files"
"$COSA" simulate --scheme zoh --dt 1e-3 --model-file "$tmp/offset/SystemStructure.ssd" >"$tmp/a" \
    2>"$tmp/err" && "$COSA" simulate --scheme zoh --dt 1e-3 --model-file "$tmp/flatoff.cosa" $FLATSET \
    >"$tmp/b" 2>/dev/null && grep -q '^reference fine' "$tmp/b" && cmp -s "$tmp/a" "$tmp/b" &&
    grep -q 'note: the connections have offsets (u = L y + c).*fine co-simulation' "$tmp/err" && ok ||
    bad "offset simulate: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -6)"
# ... and it acts: u.I.Fk at t = 0 is the offset-free run's + 0.5 (the outputs at t = 0 are
# the initial ones in both; 0.5 on |F| ~ 1e4 is exact to ~1e-12 absolute)
"$COSA" simulate --model-file "$tmp/offset/SystemStructure.ssd" --scheme zoh --dt 1e-3 -o "$tmp/so1" \
    >/dev/null 2>&1 && "$COSA" simulate --model-file "$d2/SystemStructure.ssd" --scheme zoh --dt 1e-3 \
    -o "$tmp/so0" >/dev/null 2>&1 &&
    awk -F, '/^#/ || /^t,/ { next } FNR == NR { if (!a) a = $2; next } { if (!b) b = $2 }
        END { d = a - b - 0.5; if (d < 0) d = -d; exit !(d <= 1e-9) }' "$tmp"/so1/*.csv "$tmp"/so0/*.csv &&
    ok || bad "offset: u.I.Fk(0) - u0.I.Fk(0) != 0.5"
# ... composed along a nested path: II.Fk -> A.Fk (factor 2, offset 10), A.Fk -> I.Fk
# (factor 1.5, offset 4): I.Fk = 1.5 (2 Fk + 10) + 4 = 3 Fk + 19 (exact in binary), the
# model file's `* 3 offset 19`, digit for digit
sed -e 's|<ssc:LinearTransformation factor="1.5"/>|<ssc:LinearTransformation factor="1.5" offset="4"/>|' \
    -e 's|<ssc:LinearTransformation factor="2"/>|<ssc:LinearTransformation factor="2" offset="10"/>|' \
    "$d1/SystemStructure.ssd" >"$d1/offset.ssd"
sed 's|^connect II.Fk -> A_I.Fk \* 3$|connect II.Fk -> A_I.Fk * 3 offset 19|' "$tmp/nested.cosa" >"$tmp/nestoff.cosa"
[ "$(grep -c 'offset="' "$d1/offset.ssd")" = 2 ] && grep -q 'A_I.Fk \* 3 offset 19$' "$tmp/nestoff.cosa" &&
    "$COSA" simulate --scheme foh --dt 1e-3 --model-file "$d1/offset.ssd" >"$tmp/a" 2>/dev/null &&
    "$COSA" simulate --scheme foh --dt 1e-3 --model-file "$tmp/nestoff.cosa" $NESTSET >"$tmp/b" 2>/dev/null &&
    [ -s "$tmp/b" ] && cmp -s "$tmp/a" "$tmp/b" && ok || bad "nested offsets: $(diff "$tmp/a" "$tmp/b" | head -4)"
# model-dump of the SSP (the FMUs linearised) keeps the offset on its connection
"$COSA" model-dump --model-file "$tmp/offset/SystemStructure.ssd" 2>/dev/null |
    grep -q '^connect II.Fk -> I.Fk offset 0.5$' && ok || bad "model-dump of the SSP's offset"
# (2) point and limit do not see it (Phi is about deviations): the offset-free SSP's output,
# byte for byte, and one note says why
for cmd in "point --scheme zoh --dt 1e-4" "limit --scheme zoh --criterion stable"; do
    "$COSA" $cmd --model-file "$tmp/offset/SystemStructure.ssd" >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" $cmd --model-file "$d2/SystemStructure.ssd" >"$tmp/b" 2>/dev/null && [ -s "$tmp/b" ] &&
        cmp -s "$tmp/a" "$tmp/b" &&
        grep -q "note: the connections' offsets (u = L y + c) shift the operating point only" "$tmp/err" &&
        ok || bad "offset $cmd: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -4)"
done
# (3) an independent route: twomass.cosa with I.s1 -> II.s1 offset 0.001 against the same
# network with the offset moved into a bias input of II (a third input b, its B and D columns
# those of s1 times 0.001, fed by a stateless-in-effect source whose output is x = 1 with A = 0:
# e^0 = I keeps it exactly 1).  Both runs do the same arithmetic up to where the constant is
# added (c after L y against D_b b inside II), so they agree to round-off, k n eps |y| over
# 100 macro steps of a contracting scheme: 1e-12 relative to each column's largest value.
# The reference columns are left out: the offset run's is CVODE (rtol 1e-12), the bias run's
# exact.
sed 's/^connect I.s1  -> II.s1$/connect I.s1  -> II.s1 offset 0.001/' "$src/data/models/twomass.cosa" \
    >"$tmp/o1.cosa"
awk '/^  inputs  s1 v1$/ { print "  inputs  s1 v1 b"; next }
     /^  B = \[ 0,      0$/ { print "  B = [ 0,      0,      0"; next }
     /^        ck\/m2,  dk\/m2 \]$/ { print "        ck/m2,  dk/m2,  0.001*ck/m2 ]"; next }
     /^  D = \[ -ck, -dk \]/ { print "  D = [ -ck, -dk, -0.001*ck ]"; next }
     { print }
     END { print "subsystem bias\n  states z\n  inputs w\n  outputs one\n  A = [ 0 ]\n  B = [ 0 ]";
           print "  C = [ 1 ]\n  D = [ 0 ]\n  x0 = [ 1 ]\nend\nconnect bias.one -> II.b\nconnect I.s1 -> bias.w" }' \
    "$src/data/models/twomass.cosa" >"$tmp/o2.cosa"
grep -q 'II.s1 offset 0.001$' "$tmp/o1.cosa" && [ "$(grep -c '0.001\*ck' "$tmp/o2.cosa")" = 2 ] &&
    ok || bad "offset route files"
"$COSA" simulate --model-file "$tmp/o1.cosa" --scheme zoh --dt 1e-4 --tend 0.01 -o "$tmp/r1" >/dev/null 2>&1 &&
    "$COSA" simulate --model-file "$tmp/o2.cosa" --scheme zoh --dt 1e-4 --tend 0.01 -o "$tmp/r2" >/dev/null 2>&1 &&
    awk -F, '/^#/ { next }
        /^t,/ { f = FILENAME == ARGV[1] ? 1 : 2; for (i = 1; i <= NF; i++) col[f, $i] = i; next }
        FILENAME == ARGV[1] { n1++; for (k in want) v1[n1, k] = $(col[1, k]); next }
        { n2++; for (k in want) { x = $(col[2, k]); d = v1[n2, k] - x; if (d < 0) d = -d
              if (d > dm[k]) dm[k] = d; if (x < 0) x = -x; if (x > sm[k]) sm[k] = x } }
        END { if (n1 != n2 || n1 < 100) exit 1
              for (k in want) { if (!(dm[k] <= 1e-12 * sm[k]) || sm[k] == 0) exit 1 } }
        BEGIN { want["y.I.s1"]; want["y.I.v1"]; want["y.II.Fk"]; want["u.I.Fk"] }' \
        "$tmp"/r1/*.csv "$tmp"/r2/*.csv && ok || bad "offset against the bias input"
# the offset is not a no-op: without it u.II.s1(0) = 0, with it 0.001
grep -v '^#' "$tmp"/r1/*.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "u.II.s1") c = i; next }
    NR == 2 { exit !($c == 0.001) }' && ok || bad "offset u.II.s1(0)"
# (4) model-dump writes it, and the dump runs the same
"$COSA" model-dump --model-file "$tmp/o1.cosa" -o "$tmp/o1dump.cosa" >/dev/null 2>&1 &&
    grep -q '^connect I.s1 -> II.s1 offset 0.001$' "$tmp/o1dump.cosa" &&
    "$COSA" simulate --model-file "$tmp/o1dump.cosa" --scheme zoh --dt 1e-4 --tend 0.01 >"$tmp/a" 2>&1 &&
    "$COSA" simulate --model-file "$tmp/o1.cosa" --scheme zoh --dt 1e-4 --tend 0.01 >"$tmp/b" 2>&1 &&
    grep '^e_global ' "$tmp/a" >"$tmp/a1" && grep '^e_global ' "$tmp/b" >"$tmp/b1" && [ -s "$tmp/b1" ] &&
    cmp -s "$tmp/a1" "$tmp/b1" && ok || bad "model-dump offset: $(cat "$tmp/a1" "$tmp/b1")"
# defect compares with the exact monolithic solution, which has no c: refused in one line
"$COSA" defect --model-file "$tmp/o1.cosa" --integrator exact --in-order 0 --out-order 1 --dt 1e-4 \
    --tend 1e-3 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q '^cosa: defect: the connections have offsets (u = L y + c): not supported here' "$tmp/err" &&
    ok || bad "defect offsets: $(cat "$tmp/err")"
printf 'subsystem S\n states x\n inputs u\n outputs y\n A = [-1]\n B = [1]\n C = [1]\n D = [0]\nend\nconnect S.y -> S.u offset 1/0\n' >"$tmp/oinf.cosa"
"$COSA" point --model-file "$tmp/oinf.cosa" --scheme zoh --dt 1e-2 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'oinf.cosa:10: .*not finite' "$tmp/err" && ok || bad "offset inf: $(cat "$tmp/err")"

# ---- broken SSPs: one line, exit code 2 ----------------------------------------------------
# variant NAME SED-SCRIPT: the flat 2.0 .ssd edited, as an unpacked system
variant() {
    mkdir -p "$tmp/$1/resources"
    cp "$d2/resources/"* "$tmp/$1/resources/"
    sed "$2" "$d2/SystemStructure.ssd" >"$tmp/$1/SystemStructure.ssd"
}
refused() { # FILE PATTERN
    "$COSA" point --model-file "$1" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^cosa: point: .*$2" "$tmp/err" && ok || bad "refused $1 (rc $rc): $(cat "$tmp/err")"
}
variant nofmu 's|resources/twomass2_fmi3.fmu|resources/none.fmu|'
refused "$tmp/nofmu/SystemStructure.ssd" "SystemStructure.ssd:[0-9]*: fmu II: resources/none.fmu: cannot read"
variant nocomp 's|startElement="II" startConnector="Fk"|startElement="III" startConnector="Fk"|'
refused "$tmp/nocomp/SystemStructure.ssd" "system 'top' has no element 'III'"
variant noconn 's|endElement="II" endConnector="v1"|endElement="II" endConnector="w1"|'
refused "$tmp/noconn/SystemStructure.ssd" "component 'II' has no connector 'w1'"
variant fmuconn 's|<ssd:Connector name="v1" kind="input"/>|<ssd:Connector name="w1" kind="input"/>|; s|endElement="II" endConnector="v1"|endElement="II" endConnector="w1"|'
refused "$tmp/fmuconn/SystemStructure.ssd" "connector 'w1' of component 'II': its FMU .* has no continuous Float64 input"
variant twoout 's|startElement="I" startConnector="s1" endElement="II" endConnector="s1"|startElement="I" startConnector="s1" endElement="II" endConnector="Fk"|'
refused "$tmp/twoout/SystemStructure.ssd" "ssd:Connection s1 -> Fk joins two sources"
variant parconn 's|startElement="I" startConnector="s1" endElement="II" endConnector="s1"|startElement="I" startConnector="s1" endElement="II" endConnector="ck"|'
refused "$tmp/parconn/SystemStructure.ssd" "at II.ck: a connector of kind 'parameter' joined to I.s1 (kind output): not supported"
variant sigdict 's|    </ssd:Elements>|      <ssd:SignalDictionaryReference name="D" dictionary="x"/>\n    </ssd:Elements>|'
refused "$tmp/sigdict/SystemStructure.ssd" "ssd:SignalDictionaryReference 'D': not supported: signal dictionaries"
variant nonfmu 's|<ssd:Component name="II" source|<ssd:Component name="II" type="text/plain" source|'
refused "$tmp/nonfmu/SystemStructure.ssd" "ssd:Component 'II': not supported: type 'text/plain'"
variant clock 's|<ssd:Connector name="v1" kind="input"/>|<ssd:Connector name="v1" kind="input"><ssc:Clock/></ssd:Connector>|'
refused "$tmp/clock/SystemStructure.ssd" "ssd:Connector 'v1': not supported: ssc:Clock"
variant inttype 's|<ssd:Connector name="v1" kind="input"/>|<ssd:Connector name="v1" kind="input"><ssc:Integer/></ssd:Connector>|'
refused "$tmp/inttype/SystemStructure.ssd" "ssd:Connection v1 -> v1 joins a Float64/Real connector to an Integer one: type mismatch"
variant strtype 's|<ssd:Connector name="v1" kind="input"/>|<ssd:Connector name="v1" kind="input"><ssc:String/></ssd:Connector>|'
refused "$tmp/strtype/SystemStructure.ssd" "ssd:Connector 'v1': not supported: ssc:String"
variant units 's|<ssd:Connector name="s1" kind="input"><ssc:Float64 unit="m"/>|<ssd:Connector name="s1" kind="input"><ssc:Float64 unit="mm"/>|'
refused "$tmp/units/SystemStructure.ssd" "units 'm' and 'mm' differ: not supported"
variant namespace 's|SSP1/SystemStructureDescription"|SSP2/SystemStructureDescription"|'
refused "$tmp/namespace/SystemStructure.ssd" "SystemStructureDescription in namespace 'http://ssp-standard.org/SSP2/"
variant version 's|version="2.0" name="twomass-ssp"|version="3.0" name="twomass-ssp"|'
refused "$tmp/version/SystemStructure.ssd" "version '3.0': cosa reads SSP 1.0 and 2.0"
variant xml 's|</ssd:Elements>|</ssd:Element>|'
refused "$tmp/xml/SystemStructure.ssd" "SystemStructure.ssd:[0-9]*: the .ssd is not well-formed XML"
variant doctype 's|^<?xml version="1.0" encoding="UTF-8"?>$|&\n<!DOCTYPE x [ <!ENTITY a "b"> ]>|'
refused "$tmp/doctype/SystemStructure.ssd" "DOCTYPE"
variant start 's|startTime="0" stopTime="0.3"|startTime="1" stopTime="1.3"|'
refused "$tmp/start/SystemStructure.ssd" "startTime=1: not supported"
variant badparam 's|name="II.dk"|name="II.dkk"|'
refused "$tmp/badparam/SystemStructure.ssd" "parameter 'II.dkk': component 'II' has no Float64 parameter"
variant mapping 's|<ssd:ParameterBinding source="resources/II.ssv"/>|<ssd:ParameterBinding source="resources/II.ssv"><ssd:ParameterMapping source="m.ssm"/></ssd:ParameterBinding>|'
refused "$tmp/mapping/SystemStructure.ssd" "SystemStructure.ssd:[0-9]*: ssd:ParameterMapping: source 'm.ssm': no such file"
variant abs 's|source="resources/twomass1_fmi3.fmu"|source="/tmp/twomass1_fmi3.fmu"|'
refused "$tmp/abs/SystemStructure.ssd" "source '/tmp/twomass1_fmi3.fmu': cosa takes relative paths only"
variant unconnected 's|<ssd:Connection startElement="I" startConnector="v1" endElement="II" endConnector="v1"/>||'
# an input no connection feeds keeps the FMU's start value (an open system: test_ssp_open.sh)
"$COSA" simulate --model-file "$tmp/unconnected/SystemStructure.ssd" --scheme zoh --dt 1e-3 \
    --tend 0.01 >/dev/null 2>"$tmp/err" && grep -q "inputs held constant .*: II.v1 = 0 (the FMU's start value)" \
    "$tmp/err" && ok || bad "unconnected II.v1 not held: $(cat "$tmp/err")"
# an .ssv of the wrong type (ssv:Integer for the Float64 ck), in the .ssv's own line
variant ssvtype 's|x|x|'
ssv 2.0 Integer ck=7 >"$tmp/ssvtype/resources/II.ssv"
refused "$tmp/ssvtype/SystemStructure.ssd" "ssvtype/resources/II.ssv:[0-9]*: parameter 'ck': ssv:Integer value for a Float64 variable (type mismatch"
variant ssvns 's|x|x|'
ssv 2.0 Float64 ck=7 | sed 's|SSP1/SystemStructureParameterValues|SSP9/X|' >"$tmp/ssvns/resources/II.ssv"
refused "$tmp/ssvns/SystemStructure.ssd" "expected ssv:ParameterSet (namespace"
variant nossv 's|resources/II.ssv|resources/none.ssv|'
refused "$tmp/nossv/SystemStructure.ssd" "SystemStructure.ssd:[0-9]*: ssd:ParameterBinding: source 'resources/none.ssv': no such file"
mkdir -p "$tmp/dir.ssd"
refused "$tmp/dir.ssd" "dir.ssd: cannot open: not a regular file"
# archives: an entry escaping the directory; no SystemStructure.ssd; not a zip; a '..' source
"$MKZIP" "$tmp/escape.ssp" SystemStructure.ssd="$d2/SystemStructure.ssd" \
    ../cosa-ssp-escape.txt=@x || bad "mkfmu escape.ssp"
refused "$tmp/escape.ssp" "escape.ssp: not an SSP: archive entry '../cosa-ssp-escape.txt' would be written outside the SSP's directory"
[ ! -e "$TMPDIR/cosa-ssp-escape.txt" ] && [ ! -e "$tmp/cosa-ssp-escape.txt" ] && ok || bad "escape.ssp wrote outside"
"$MKZIP" "$tmp/nossd.ssp" other.ssd="$d2/SystemStructure.ssd" || bad "mkfmu nossd.ssp"
refused "$tmp/nossd.ssp" "no SystemStructure.ssd in the archive"
cp "$d2/SystemStructure.ssd" "$tmp/notzip.ssp"
refused "$tmp/notzip.ssp" "not an SSP: not a zip archive"
sed 's|source="resources/twomass2_fmi3.fmu"|source="../twomass2_fmi3.fmu"|' "$d2/SystemStructure.ssd" >"$tmp/dotdot.ssd"
"$MKZIP" "$tmp/dotdot.ssp" SystemStructure.ssd="$tmp/dotdot.ssd" resources/II.ssv="$d2/resources/II.ssv" \
    resources/twomass1_fmi3.fmu="$FMU/twomass1_fmi3.fmu" || bad "mkfmu dotdot.ssp"
refused "$tmp/dotdot.ssp" "dotdot.ssp:SystemStructure.ssd:[0-9]*: ssd:Component 'II': source '../twomass2_fmi3.fmu' leaves the archive"
# SSP 1.0 with SSP 2.0's ssc:Float64
sed 's|ssc:Real unit="N"|ssc:Float64 unit="N"|' "$d1/SystemStructure.ssd" >"$d1/f64.ssd"
refused "$d1/f64.ssd" "ssc:Float64 is SSP 2.0's, the file says version 1.0"
# a system input that nothing feeds
sed 's|<ssd:Connection startElement="II" startConnector="Fk" endElement="A" endConnector="Fk">|<ssd:Connection startElement="II" startConnector="Fk" endElement="A" endConnector="s1">|' \
    "$d1/SystemStructure.ssd" >"$d1/open.ssd"
refused "$d1/open.ssd" "ssd:Connection Fk -> s1 joins two sources"
refused "$tmp/none.ssp" "none.ssp: cannot read"
"$COSA" models --model-file "$tmp/ssvtype/SystemStructure.ssd" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "models, broken: $(cat "$tmp/err")"
fmu_env_done test_ssp.sh
