#!/bin/sh
# test_ssp_open.sh -- SSPs with Model Exchange components and open systems (doc/ssp.md
# "Model Exchange components" and "Open systems"), on systems built here from the test FMUs
# of make check:
#   - me: the two-mass oscillator with I a Model Exchange component (metwomass1_fmi3.fmu,
#     implementation="ModelExchange", and again with "any": an ME-only FMU runs as ME) next
#     to II as co-simulation -- prints exactly what the model file with `fmu I me = ...` and
#     `fmu II cs = ...` prints (point, simulate: the same FMUs run by the same code, so a
#     difference is an import error);
#   - open: I.Fk bound to a value (through the top system's input connector F0 = 3 and a
#     linear transformation, factor 2 offset 1: I.Fk = 7; and bound on the FMU input
#     itself; and with I inside a system A whose input connector nothing feeds, bound from the
#     top as "A.F0"), II.v1 fed by nothing (held at the FMU's start value, 0; once without a
#     connector for it at all) -- prints what the
#     model file with `hold I.Fk = 7` and `hold II.v1 = 0` prints; the held value acts (u.I.Fk
#     is 7 at every step of the run) and Phi does not see it (point with the value 7 prints
#     the same rho as with 0: an affine input term shifts the operating point only);
#   - hostile: a bound value of the wrong type, a bound input a connection feeds, ME asked of a
#     co-simulation-only FMU, a system without components, `hold` on a connected input or
#     twice: one line each, exit code 2, nothing left in TMPDIR.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
NS='xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"'

# same WHAT SSP COSAFILE CMD...: the SSP's stdout equals the model file's
same() {
    what=$1 ssp=$2 mf=$3
    shift 3
    "$COSA" "$@" --model-file "$ssp" >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" "$@" --model-file "$mf" >"$tmp/b" 2>"$tmp/errb" && [ -s "$tmp/b" ] &&
        cmp -s "$tmp/a" "$tmp/b" && ok ||
        bad "$what: $*: $(cat "$tmp/err" "$tmp/errb") $(diff "$tmp/a" "$tmp/b" | head -6)"
}

# ---- Model Exchange next to co-simulation --------------------------------------------------
me_ssd() { # IMPLEMENTATION-OF-I
    ssd_head twomass-me
    cat <<END
    <ssd:Elements>
      <ssd:Component name="I" source="resources/metwomass1_fmi3.fmu" implementation="$1">
$(ssd_connectors '        ' Float64 Fk:input s1:output v1:output)
      </ssd:Component>
      <ssd:Component name="II" source="resources/twomass2_fmi3.fmu" implementation="CoSimulation">
$(ssd_connectors '        ' Float64 s1:input v1:input Fk:output)
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'I.s1>II.s1' 'I.v1>II.v1' 'II.Fk>I.Fk')
    </ssd:Connections>
END
    ssd_tail 0.3 0
}
me=$tmp/me
mkdir -p "$me/resources"
cp "$FMU/metwomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" "$FMU/twomass1_fmi3.fmu" "$me/resources/"
me_ssd ModelExchange >"$me/SystemStructure.ssd"
me_ssd any >"$me/any.ssd"
cat >"$tmp/me.cosa" <<END
model twomass-me
tend 0.3
fmu I me = $FMU/metwomass1_fmi3.fmu
fmu II cs = $FMU/twomass2_fmi3.fmu
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
for ssd in "$me/SystemStructure.ssd" "$me/any.ssd"; do
    same "ME point" "$ssd" "$tmp/me.cosa" point --scheme foh+mbcorr --dt 1e-3
    same "ME simulate" "$ssd" "$tmp/me.cosa" simulate --scheme gs:foh --dt 1e-3
done
# the implementation is honoured: ME asked of a co-simulation-only FMU, and co-simulation of
# an ME-only one, are refused (hostile section below)

# ---- an open system: bound and unfed FMU inputs --------------------------------------------
open_ssd() { # how I.Fk gets its value: connector (top input F0) or fmu (bound on I.Fk)
    ssd_head twomass-open
    ssd_connectors '    ' Float64 F0:input
    [ "$1" = connector ] && ssd_binding '    ' top F0 Float64 3
    cat <<END
    <ssd:Elements>
      <ssd:Component name="I" source="resources/twomass1_fmi3.fmu">
$(ssd_connectors '        ' Float64 Fk:input s1:output v1:output)
END
    [ "$1" = fmu ] && ssd_binding '        ' I Fk Float64 7
    cat <<END
      </ssd:Component>
      <ssd:Component name="II" source="resources/twomass2_fmi3.fmu">
$(ssd_connectors '        ' Float64 s1:input v1:input Fk:output)
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'I.s1>II.s1')
END
    [ "$1" = connector ] && cat <<END
      <ssd:Connection startElement="" startConnector="F0" endElement="I" endConnector="Fk">
        <ssc:LinearTransformation factor="2" offset="1"/>
      </ssd:Connection>
END
    echo '    </ssd:Connections>'
    ssd_tail 0.3 0
}
op=$tmp/open
mkdir -p "$op/resources"
cp "$FMU/twomass1_fmi3.fmu" "$FMU/twomass2_fmi3.fmu" "$op/resources/"
open_ssd connector >"$op/SystemStructure.ssd"
open_ssd fmu >"$op/fmu.ssd"
held() { # VALUE-OF-I.Fk
    cat <<END
model twomass-open
tend 0.3
fmu I = $FMU/twomass1_fmi3.fmu
fmu II = $FMU/twomass2_fmi3.fmu
connect I.s1 -> II.s1
hold I.Fk = $1
hold II.v1 = 0
END
}
held 7 >"$tmp/open.cosa"
held 0 >"$tmp/open0.cosa"
for ssd in "$op/SystemStructure.ssd" "$op/fmu.ssd"; do
    same "open point" "$ssd" "$tmp/open.cosa" point --scheme zoh --dt 1e-3
    same "open simulate" "$ssd" "$tmp/open.cosa" simulate --scheme zoh --dt 1e-3
done
# ... and I inside a system A whose input connector F0 nothing feeds, bound from the top
# ("A.F0" = 3; factor 2 and offset 1 inside A: A_I.Fk = 7)
{
    ssd_head twomass-open
    ssd_binding '    ' top A.F0 Float64 3
    cat <<END
    <ssd:Elements>
      <ssd:System name="A">
$(ssd_connectors '        ' Float64 F0:input s1:output)
        <ssd:Elements>
          <ssd:Component name="I" source="resources/twomass1_fmi3.fmu">
$(ssd_connectors '            ' Float64 Fk:input s1:output)
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startConnector="F0" endElement="I" endConnector="Fk">
            <ssc:LinearTransformation factor="2" offset="1"/>
          </ssd:Connection>
          <ssd:Connection startElement="I" startConnector="s1" endConnector="s1"/>
        </ssd:Connections>
      </ssd:System>
      <ssd:Component name="II" source="resources/twomass2_fmi3.fmu">
$(ssd_connectors '        ' Float64 s1:input)
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'A.s1>II.s1')
    </ssd:Connections>
END
    ssd_tail 0.3 0
} >"$op/nested.ssd"
held 7 | sed 's/\bI\./A_I./g; s/^fmu I /fmu A_I /' >"$tmp/nested.cosa"
same "nested open point" "$op/nested.ssd" "$tmp/nested.cosa" point --scheme zoh --dt 1e-3
same "nested open simulate" "$op/nested.ssd" "$tmp/nested.cosa" simulate --scheme zoh --dt 1e-3
grep -q "A_I.Fk = 7 (bound), II.v1 = 0 (the FMU's start value)" "$tmp/err" && ok ||
    bad "nested held-inputs note: $(cat "$tmp/err")"
# the note names the held inputs, once per run
"$COSA" simulate --model-file "$op/SystemStructure.ssd" --scheme foh --dt 1e-3 -o "$tmp/so" \
    >/dev/null 2>"$tmp/err"
[ "$(grep -c 'inputs held constant' "$tmp/err")" = 1 ] &&
    grep -q 'note: inputs held constant for the whole run (no connection feeds them): I.Fk = 7 (bound), II.v1 = 0 (the FMU.s start value)$' "$tmp/err" &&
    ok || bad "held-inputs note: $(cat "$tmp/err")"
# the hold acts: the input column u.I.Fk is exactly 7 at every step (c is added to a row
# with no L entry: 0 + 7 is exact)
csv=$(ls "$tmp"/so/*.csv 2>/dev/null | head -1)
[ -n "$csv" ] && awk -F, '/^#/ { next } /^t,/ { for (i = 1; i <= NF; i++) if ($i == "u.I.Fk") k = i; next }
    k { n++; if ($k != 7) bad = 1 } END { exit !(k && n > 250 && !bad) }' "$csv" &&
    ok || bad "u.I.Fk is not held at 7 in $csv"
# ... and Phi does not see it: rho with the value 7 equals rho with 0 (and the offsets'
# note says so)
for s in zoh foh+mbcorr; do
    "$COSA" point --model-file "$tmp/open.cosa" --scheme $s --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" point --model-file "$tmp/open0.cosa" --scheme $s --dt 1e-3 >"$tmp/b" 2>/dev/null &&
        grep -q '^rho ' "$tmp/a" && [ "$(grep '^rho ' "$tmp/a")" = "$(grep '^rho ' "$tmp/b")" ] &&
        grep -q "offsets (u = L y + c) shift the operating point only" "$tmp/err" &&
        ok || bad "rho changes with the held value ($s): $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b")"
done
# ... while the run does (the value moves I)
"$COSA" simulate --model-file "$tmp/open0.cosa" --scheme foh --dt 1e-3 -o "$tmp/so0" \
    >/dev/null 2>&1 && ! cmp -s "$csv" "$(ls "$tmp"/so0/*.csv | head -1)" && ok ||
    bad "the held value changes nothing"
# model-dump writes the holds; the dump reads back to the same point output
"$COSA" model-dump --model-file "$op/SystemStructure.ssd" -o "$tmp/dump.cosa" >/dev/null 2>"$tmp/err" &&
    grep -q '^hold I.Fk = 7$' "$tmp/dump.cosa" && grep -q '^hold II.v1 = 0$' "$tmp/dump.cosa" &&
    ok || bad "model-dump holds: $(cat "$tmp/err") $(grep hold "$tmp/dump.cosa" 2>/dev/null)"

# ---- hostile ---------------------------------------------------------------------------------
refused() { # FILE WANT
    "$COSA" point --model-file "$1" --scheme zoh --dt 1e-3 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^cosa: point: .*$2" "$tmp/err" && ok || bad "refused $1 (rc $rc): $(cat "$tmp/err")"
}
sed 's|<ssv:Float64 value="3"/>|<ssv:Integer value="3"/>|' "$op/SystemStructure.ssd" >"$op/int.ssd"
refused "$op/int.ssd" "int.ssd:[0-9]*: parameter 'F0': ssv:Integer value for a Float64 variable"
sed 's|<ssv:Float64 value="7"/>|<ssv:Boolean value="true"/>|' "$op/fmu.ssd" >"$op/bool.ssd"
refused "$op/bool.ssd" "bool.ssd:[0-9]*: parameter 'Fk': ssv:Boolean value for a Float64 variable"
sed 's|name="Fk"><ssv:Float64 value="7"|name="Fk"><ssv:Float64 value="x7"|' "$op/fmu.ssd" >"$op/nan.ssd"
refused "$op/nan.ssd" "ssv:Float64: value='x7' is not a finite number"
sed 's|<ssv:Parameter name="Fk">|<ssv:Parameter name="Fk">|; s|<ssd:Connection startElement="I" startConnector="s1" endElement="II" endConnector="s1"/>|&<ssd:Connection startElement="II" startConnector="Fk" endElement="I" endConnector="Fk"/>|' \
    "$op/fmu.ssd" >"$op/fed.ssd"
refused "$op/fed.ssd" "parameter 'Fk': input 'Fk' of component 'I' is fed by a connection"
sed 's|source="resources/metwomass1_fmi3.fmu"|source="resources/twomass1_fmi3.fmu"|' \
    "$me/SystemStructure.ssd" >"$me/cs.ssd"
refused "$me/cs.ssd" "fmu I: resources/twomass1_fmi3.fmu: .*"
sed 's|implementation="ModelExchange"|implementation="CoSimulation"|' "$me/SystemStructure.ssd" >"$me/me.ssd"
refused "$me/me.ssd" "fmu I: resources/metwomass1_fmi3.fmu: .*"
cat >"$tmp/empty.ssd" <<END
<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription $NS version="2.0" name="empty">
  <ssd:System name="params">
    <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Float64/></ssd:Connector></ssd:Connectors>
  </ssd:System>
</ssd:SystemStructureDescription>
END
refused "$tmp/empty.ssd" "empty.ssd:5: ssd:System 'params': no components (no FMU to simulate)"
{ held 7; echo "connect II.Fk -> I.Fk"; } >"$tmp/twice.cosa"
refused "$tmp/twice.cosa" "input I.Fk is held at a value and has a source (line 8)"
{ held 7; echo "hold I.Fk = 1"; } >"$tmp/twice2.cosa"
refused "$tmp/twice2.cosa" "twice2.cosa:8: hold: input I.Fk is held twice (line 6)"
{ held 7; echo "hold I.F = 1"; } >"$tmp/noin.cosa"
refused "$tmp/noin.cosa" "noin.cosa:8: hold: subsystem 'I' has no input 'F'"
{ held 7; echo "hold I.Fk = 1/0"; } >"$tmp/inf.cosa"
refused "$tmp/inf.cosa" "inf.cosa:8: .*not finite"
fmu_env_done test_ssp_open
