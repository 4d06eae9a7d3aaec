#!/bin/sh
# test_ssp_cover.sh -- SSP parameter mappings, system-level parameters and nested SSP
# packages (doc/ssp.md),
# on an SSP 1.0 system built here from the two-mass test FMUs (FMI 2.0): component I inside
# a system A, II beside it.  The values reach the FMUs through
#   - a system-level parameter: the top system's parameter connector K (bound inline to
#     1e6) -> A's parameter connector c (factor 2) -> I's parameter c1 (factor 2, offset
#     1000): A_I.c1 = 2 (2 1e6) + 1000 = 4001000;
#   - an inline ssm:ParameterMapping at the top: stiff = 2.5e5 -> II.ck (factor 4) = 1e6,
#     and II.m2 = 12, which no entry maps (applied as it is);
#   - an .ssm file at II: damping = 100 -> dk (factor 2, offset 100) = 300 and -> d2
#     (no transformation) = 100; m2 = 11 unmapped, overridden by the top's 12 (an outer
#     binding wins).
# Every value is exact in binary floating point, so the system must print exactly what the
# equivalent model file prints with those values --set (the same FMUs linearised and run by
# the same code: any difference is an import error).  Broken mappings and parameter
# connections are one line, exit code 2.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
MKZIP=$FMU/mkfmu
NS='xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping"'
d=$tmp/par
mkdir -p "$d/resources"
cp "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" "$d/resources/"
cat >"$d/SystemStructure.ssd" <<END
<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription $NS version="1.0" name="twomass-par">
  <ssd:System name="top">
$(ssd_connectors '    ' Real K:parameter Kin:input)
    <ssd:ParameterBindings>
      <ssd:ParameterBinding>
        <ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="top">
            <ssv:Parameters>
              <ssv:Parameter name="K"><ssv:Real value="1e6"/></ssv:Parameter>
              <ssv:Parameter name="stiff"><ssv:Real value="2.5e5"/></ssv:Parameter>
              <ssv:Parameter name="II.m2"><ssv:Real value="12"/></ssv:Parameter>
            </ssv:Parameters>
          </ssv:ParameterSet>
        </ssd:ParameterValues>
        <ssd:ParameterMapping>
          <ssm:ParameterMapping version="1.0">
            <ssm:MappingEntry source="stiff" target="II.ck">
              <ssc:LinearTransformation factor="4"/>
            </ssm:MappingEntry>
          </ssm:ParameterMapping>
        </ssd:ParameterMapping>
      </ssd:ParameterBinding>
    </ssd:ParameterBindings>
    <ssd:Elements>
      <ssd:System name="A">
$(ssd_connectors '        ' Real Fk:input s1:output v1:output c:parameter)
        <ssd:Elements>
          <ssd:Component name="I" source="resources/twomass1_fmi2.fmu">
$(ssd_connectors '            ' Real Fk:input s1:output v1:output c1:parameter)
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          <ssd:Connection startConnector="Fk" endElement="I" endConnector="Fk"/>
          <ssd:Connection startElement="I" startConnector="s1" endConnector="s1"/>
          <ssd:Connection startElement="I" startConnector="v1" endConnector="v1"/>
          <ssd:Connection startElement="" startConnector="c" endElement="I" endConnector="c1">
            <ssc:LinearTransformation factor="2" offset="1000"/>
            <ssd:ConnectionGeometry pointsX="1 2" pointsY="3 4"/>
          </ssd:Connection>
        </ssd:Connections>
      </ssd:System>
      <ssd:Component name="II" source="resources/twomass2_fmi2.fmu">
$(ssd_connectors '        ' Real s1:input v1:input Fk:output)
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="resources/II.ssv">
            <ssd:ParameterMapping source="resources/II.ssm"/>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
$(ssd_links '      ' 'A.s1>II.s1' 'A.v1>II.v1' 'II.Fk>A.Fk')
      <ssd:Connection startConnector="K" endElement="A" endConnector="c">
        <ssc:LinearTransformation factor="2"/>
      </ssd:Connection>
    </ssd:Connections>
$(ssd_tail 0.3)
END
cat >"$d/resources/II.ssv" <<END
<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet $NS version="1.0" name="II"><ssv:Parameters>
  <ssv:Parameter name="damping"><ssv:Real value="100"/></ssv:Parameter>
  <ssv:Parameter name="m2"><ssv:Real value="11"/></ssv:Parameter>
</ssv:Parameters></ssv:ParameterSet>
END
cat >"$d/resources/II.ssm" <<END
<?xml version="1.0" encoding="UTF-8"?>
<ssm:ParameterMapping $NS version="1.0">
  <ssm:MappingEntry source="damping" target="dk">
    <ssc:LinearTransformation factor="2" offset="100"/>
  </ssm:MappingEntry>
  <ssm:MappingEntry source="damping" target="d2"/>
</ssm:ParameterMapping>
END
"$MKZIP" "$tmp/par.ssp" SystemStructure.ssd="$d/SystemStructure.ssd" \
    resources/II.ssv="$d/resources/II.ssv" resources/II.ssm="$d/resources/II.ssm" \
    resources/twomass1_fmi2.fmu="$FMU/twomass1_fmi2.fmu" \
    resources/twomass2_fmi2.fmu="$FMU/twomass2_fmi2.fmu" || bad "mkfmu par.ssp"
fmu_pair twomass-par 0.3 A_I "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" >"$tmp/par.cosa"
SETS="--set A_I.c1=4001000 --set II.ck=1e6 --set II.dk=300 --set II.d2=100 --set II.m2=12"

# the defaults cosa lists are the mapped and propagated values
for ssp in "$d/SystemStructure.ssd" "$tmp/par.ssp"; do
    "$COSA" models --model-file "$ssp" >"$tmp/a" 2>&1 &&
        grep -q '^  A_I\.c1  *4001000 ' "$tmp/a" && grep -q '^  II\.ck  *1000000 ' "$tmp/a" &&
        grep -q '^  II\.dk  *300 ' "$tmp/a" && grep -q '^  II\.d2  *100 ' "$tmp/a" &&
        grep -q '^  II\.m2  *12 ' "$tmp/a" && ok || bad "models $ssp: $(cat "$tmp/a")"
done
# same CMD...: the SSP's output equals the model file's with the values set
same() {
    ssp=$1
    shift
    "$COSA" "$@" --model-file "$ssp" >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" "$@" --model-file "$tmp/par.cosa" $SETS >"$tmp/b" 2>&1 && [ -s "$tmp/b" ] &&
        cmp -s "$tmp/a" "$tmp/b" && ok ||
        bad "$ssp: $*: $(cat "$tmp/err") $(diff "$tmp/a" "$tmp/b" | head -6)"
}
same "$d/SystemStructure.ssd" point --scheme foh+mbcorr --dt 1e-4
same "$tmp/par.ssp" point --scheme zoh --dt 1e-4
same "$tmp/par.ssp" simulate --scheme zoh --dt 1e-3
# the values matter: without them the point differs
"$COSA" point --model-file "$tmp/par.cosa" --scheme foh+mbcorr --dt 1e-4 >"$tmp/b" 2>&1 &&
    "$COSA" point --model-file "$d/SystemStructure.ssd" --scheme foh+mbcorr --dt 1e-4 >"$tmp/a" 2>&1 &&
    ! cmp -s "$tmp/a" "$tmp/b" && ok || bad "the bound values change nothing"

# ---- broken: one line, exit code 2 ------------------------------------------------------
variant() { # NAME SED-SCRIPT [FILE]: the system with FILE (default the .ssd) edited
    rm -rf "$tmp/$1"
    cp -r "$d" "$tmp/$1"
    f=${3:-SystemStructure.ssd}
    sed "$2" "$d/$f" >"$tmp/$1/$f"
    cmp -s "$d/$f" "$tmp/$1/$f" && bad "variant $1: the edit changed nothing"
}
refused() { # NAME PATTERN
    "$COSA" point --model-file "$tmp/$1/SystemStructure.ssd" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^cosa: point: .*$2" "$tmp/err" && ok || bad "refused $1 (rc $rc): $(cat "$tmp/err")"
}
variant boolmap 's|<ssm:MappingEntry source="damping" target="d2"/>|<ssm:MappingEntry source="damping" target="d2"><ssc:BooleanMappingTransformation/></ssm:MappingEntry>|' resources/II.ssm
refused boolmap "resources/II.ssm:[0-9]*: ssc:BooleanMappingTransformation on a parameter: not supported"
variant badtarget 's|target="d2"|target="d3"|' resources/II.ssm
refused badtarget "resources/II.ssm:[0-9]*: parameter 'd3': component 'II' has no Float64 parameter"
variant ssmroot 's|ssm:ParameterMapping|ssm:ParameterMap|g' resources/II.ssm
refused ssmroot "ssd:ParameterMapping: expected ssm:ParameterMapping .* in the .ssm"
variant nossm 's|resources/II.ssm|resources/none.ssm|'
refused nossm "SystemStructure.ssd:[0-9]*: ssd:ParameterMapping: source 'resources/none.ssm': no such file"
variant maptype 's|<ssd:ParameterMapping source=|<ssd:ParameterMapping type="text/x-other" source=|'
refused maptype "ssd:ParameterMapping type 'text/x-other': not supported"
variant nosyspar 's|<ssv:Parameter name="K">|<ssv:Parameter name="Q">|'
refused nosyspar "parameter 'Q' of system 'top': names no element and no parameter connector"
variant upward 's|startConnector="K" endElement="A" endConnector="c"|startConnector="K" endElement="A" endConnector="s1"|'
refused upward "ssd:Connection at K: a connector of kind 'parameter' joined to A.s1 (kind output): not supported"
variant intpar 's|<ssv:Parameter name="K"><ssv:Real value="1e6"/>|<ssv:Parameter name="K"><ssv:Integer value="7"/>|'
refused intpar "parameter 'K': ssv:Integer value for a Float64 variable"
# ---- a nested SSP package ----------------------------------------------------------------
# System A as an SSP of its own (A.ssp: I with the parameter connection c -> I.c1, and its
# own binding I.d1 = 3), a component of type application/x-ssp-package in the top system
# (whose binding of A sets I.d1 = 5: the outer binding wins).  The same network as above,
# A's FMU named A_I again, with A_I.d1 = 5 besides.
pk=$tmp/pkg
mkdir -p "$pk/inner/resources" "$pk/outer/resources"
cp "$FMU/twomass1_fmi2.fmu" "$pk/inner/resources/"
{
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<ssd:SystemStructureDescription $NS version=\"1.0\" name=\"A-package\">"
    sed -n '/<ssd:System name="A">/,/^      <\/ssd:System>/p' "$d/SystemStructure.ssd" |
        sed 's|<ssd:Elements>|<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet version="1.0" name="A"><ssv:Parameters><ssv:Parameter name="I.d1"><ssv:Real value="3"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>\n&|'
    echo '  <ssd:DefaultExperiment stopTime="7"/>'
    echo '</ssd:SystemStructureDescription>'
} >"$pk/inner/SystemStructure.ssd"
grep -q 'name="I.d1"' "$pk/inner/SystemStructure.ssd" && ok || bad "inner package .ssd"
"$MKZIP" "$pk/outer/resources/A.ssp" SystemStructure.ssd="$pk/inner/SystemStructure.ssd" \
    resources/twomass1_fmi2.fmu="$FMU/twomass1_fmi2.fmu" || bad "mkfmu A.ssp"
PKGCOMP='      <ssd:Component name="A" type="application/x-ssp-package" source="resources/A.ssp">\
        <ssd:Connectors>\
          <ssd:Connector name="Fk" kind="input"><ssc:Real/></ssd:Connector>\
          <ssd:Connector name="s1" kind="output"><ssc:Real/></ssd:Connector>\
          <ssd:Connector name="v1" kind="output"><ssc:Real/></ssd:Connector>\
          <ssd:Connector name="c" kind="parameter"><ssc:Real/></ssd:Connector>\
        </ssd:Connectors>\
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet version="1.0" name="outer"><ssv:Parameters><ssv:Parameter name="I.d1"><ssv:Real value="5"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>\
      </ssd:Component>'
sed "/<ssd:System name=\"A\">/,/^      <\/ssd:System>/c\\
$PKGCOMP" "$d/SystemStructure.ssd" >"$pk/outer/SystemStructure.ssd"
cp "$d/resources/II.ssv" "$d/resources/II.ssm" "$FMU/twomass2_fmi2.fmu" "$pk/outer/resources/"
grep -q 'application/x-ssp-package' "$pk/outer/SystemStructure.ssd" &&
    ! grep -q 'twomass1' "$pk/outer/SystemStructure.ssd" && ok || bad "outer .ssd"
"$MKZIP" "$pk/outer.ssp" SystemStructure.ssd="$pk/outer/SystemStructure.ssd" \
    resources/A.ssp="$pk/outer/resources/A.ssp" resources/II.ssv="$d/resources/II.ssv" \
    resources/II.ssm="$d/resources/II.ssm" \
    resources/twomass2_fmi2.fmu="$FMU/twomass2_fmi2.fmu" || bad "mkfmu outer.ssp"
SETS="$SETS --set A_I.d1=5"
for ssp in "$pk/outer/SystemStructure.ssd" "$pk/outer.ssp"; do
    "$COSA" models --model-file "$ssp" >"$tmp/a" 2>&1 &&
        grep -q '^twomass-par: SSP 1.0 system top with 2 FMU components and 3 connections (natural horizon 0.3 s)$' "$tmp/a" &&
        grep -q '^  A_I\.c1  *4001000 ' "$tmp/a" && grep -q '^  A_I\.d1  *5 ' "$tmp/a" &&
        grep -q '^  II\.ck  *1000000 ' "$tmp/a" && ok || bad "models $ssp: $(cat "$tmp/a")"
done
same "$pk/outer/SystemStructure.ssd" point --scheme foh+mbcorr --dt 1e-4
same "$pk/outer.ssp" simulate --scheme zoh --dt 1e-3
# the same system A as an .ssd of its own (application/x-ssp-definition), read where it is: its
# FMU source relative to its own directory
cp -r "$pk/outer" "$pk/def"
rm "$pk/def/resources/A.ssp"
mkdir -p "$pk/def/resources/A/resources"
cp "$pk/inner/SystemStructure.ssd" "$pk/def/resources/A/A.ssd"
cp "$FMU/twomass1_fmi2.fmu" "$pk/def/resources/A/resources/"
sed -i 's|type="application/x-ssp-package" source="resources/A.ssp"|type="application/x-ssp-definition" source="resources/A/A.ssd"|' "$pk/def/SystemStructure.ssd"
grep -q 'source="resources/A/A.ssd"' "$pk/def/SystemStructure.ssd" && ok || bad "def .ssd"
same "$pk/def/SystemStructure.ssd" point --scheme foh+mbcorr --dt 1e-4
# an .ssd that is its own component: one line at the depth limit, not a hang
mkdir -p "$pk/self"
echo "<ssd:SystemStructureDescription $NS version=\"1.0\" name=\"loop\"><ssd:System name=\"top\"><ssd:Elements><ssd:Component name=\"A\" type=\"application/x-ssp-definition\" source=\"SystemStructure.ssd\"/></ssd:Elements></ssd:System></ssd:SystemStructureDescription>" >"$pk/self/SystemStructure.ssd"
"$COSA" point --model-file "$pk/self/SystemStructure.ssd" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "ssd:Component 'A': SSP packages or system definitions nested more than 8 deep: not supported" "$tmp/err" &&
    ok || bad "self-referencing .ssd: $(cat "$tmp/err")"
# broken packages: one line, exit code 2, nothing left behind
cp -r "$pk/outer" "$pk/nopkg" && rm "$pk/nopkg/resources/A.ssp"
"$COSA" point --model-file "$pk/nopkg/SystemStructure.ssd" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "ssd:Component 'A': .*cannot" "$tmp/err" &&
    ok || bad "missing package: $(cat "$tmp/err")"
cp -r "$pk/outer" "$pk/badconn"
sed -i 's|<ssd:Connector name="v1" kind="output"><ssc:Real/></ssd:Connector>\(.*\)$|<ssd:Connector name="w1" kind="output"><ssc:Real/></ssd:Connector>\1|' "$pk/badconn/SystemStructure.ssd"
"$COSA" point --model-file "$pk/badconn/SystemStructure.ssd" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "ssd:Component 'A': connector 'w1' (output) is no connector of that kind of its system 'A'" "$tmp/err" &&
    ok || bad "package connector: $(cat "$tmp/err")"
cp "$pk/inner/SystemStructure.ssd" "$pk/notzip.ssp"
cp -r "$pk/outer" "$pk/notzip" && cp "$pk/notzip.ssp" "$pk/notzip/resources/A.ssp"
"$COSA" point --model-file "$pk/notzip/SystemStructure.ssd" --scheme zoh --dt 1e-4 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "ssd:Component 'A': not an SSP: not a zip archive" "$tmp/err" &&
    ok || bad "package not a zip: $(cat "$tmp/err")"
fmu_env_done test_ssp_cover.sh
