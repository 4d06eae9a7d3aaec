#!/bin/sh
# test_osp.sh -- OSP system structures (doc/osp.md) built here from the test
# FMUs of make check (the two-mass pair, FMI 2.0):
#  - the OSP file gives the same model as the equivalent model file (`cosa
#    point` prints the same numbers digit for digit), with one connection's
#    ends written the other way round (wired by the FMUs' causality), a Real
#    InitialValue, a variable-group connection through OspModelDescription
#    files, LinearTransformation factor 2 and a Sum of the same output twice
#    (both against `connect ... * 2`);
#  - simulate with libcosim's fixedStep equals cosa's own ZOH run of the
#    model file (a different run loop: the fixed-step driver) at the end;
#  - simulate with ECCO: the step sequence recomputed from the written
#    trajectory by awk with libcosim's law (an independent implementation)
#    equals cosa's to the nanosecond; the first two steps are StepSize;
#  - every hostile or unsupported file is one line, exit code 2, nothing
#    left in TMPDIR.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
NS='xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1"'
cp "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" "$tmp/" || { echo "FAIL: no test FMUs"; exit 1; }

# osp FILE ALGORITHM CONNECTIONS [EXTRA]: the pair I, II with II.ck = 1e6
osp() {
    cat >"$1" <<END
<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure $NS>
  <BaseStepSize>0.001</BaseStepSize>
  <EndTime>0.3</EndTime>
  <Algorithm>$2</Algorithm>
  <Simulators>
    <Simulator name="I" source="twomass1_fmi2.fmu"/>
    <Simulator name="II" source="twomass2_fmi2.fmu">
      <InitialValues>
        <InitialValue variable="ck"><Real value="1e6"/></InitialValue>
      </InitialValues>
    </Simulator>
  </Simulators>
  $4
  <Connections>$3</Connections>
  <EccoConfiguration>
    <SafetyFactor>0.99</SafetyFactor><StepSize>0.0001</StepSize>
    <MinimumStepSize>0.00001</MinimumStepSize><MaximumStepSize>0.01</MaximumStepSize>
    <MinimumChangeRate>0.2</MinimumChangeRate><MaximumChangeRate>1.5</MaximumChangeRate>
    <ProportionalGain>0.2</ProportionalGain><IntegralGain>0.15</IntegralGain>
    <RelativeTolerance>${RTOL:-1e-6}</RelativeTolerance><AbsoluteTolerance>${ATOL:-1e-6}</AbsoluteTolerance>
  </EccoConfiguration>
</OspSystemStructure>
END
}
# the power bond of the force Fk and the velocity v1 it acts on; s1 written
# input first (libcosim wires by the FMUs' causality)
PLAIN='
    <VariableConnection><Variable simulator="II" name="s1"/><Variable simulator="I" name="s1"/></VariableConnection>
    <VariableConnection powerBond="b"><Variable simulator="I" name="v1" causality="output"/><Variable simulator="II" name="v1" causality="input"/></VariableConnection>
    <VariableConnection powerBond="b"><Variable simulator="I" name="Fk" causality="input"/><Variable simulator="II" name="Fk" causality="output"/></VariableConnection>'
REST='
    <VariableConnection powerBond="b"><Variable simulator="I" name="v1" causality="output"/><Variable simulator="II" name="v1" causality="input"/></VariableConnection>
    <VariableConnection powerBond="b"><Variable simulator="I" name="Fk" causality="input"/><Variable simulator="II" name="Fk" causality="output"/></VariableConnection>'
osp "$tmp/plain.xml" fixedStep "$PLAIN"
cat >"$tmp/plain.cosa" <<END
model twomass-osp
tend 0.3
fmu I = twomass1_fmi2.fmu
fmu II = twomass2_fmi2.fmu
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
sed 's/connect I.s1 -> II.s1/connect I.s1 -> II.s1 * 2/' "$tmp/plain.cosa" >"$tmp/twice.cosa"

# point FILE [ARGS]: cosa point's numbers (the model's name line left out)
point() {
    f=$1
    shift
    "$COSA" point --model-file "$f" --scheme zoh --dt 1e-3 "$@" 2>&1 | grep -v '^model'
}
point "$tmp/plain.cosa" --set II.ck=1e6 >"$tmp/p_ref"
grep -q '^rho ' "$tmp/p_ref" && ok || bad "point on the model file: $(head -n 2 "$tmp/p_ref")"
point "$tmp/plain.xml" >"$tmp/p_osp"
cmp -s "$tmp/p_ref" "$tmp/p_osp" && ok || bad "OSP file vs model file: $(diff "$tmp/p_ref" "$tmp/p_osp" | head -n 4)"
# the same with II a black box (no states declared, identified): its InitialValue
# ck reaches the FMU as --set II.ck does (it crashed: the binding counted the
# identified states as declared ones)
cp "$FMU/twomass2_hid_fmi2.fmu" "$tmp/" || bad "no black-box FMU"
sed 's/twomass2_fmi2.fmu/twomass2_hid_fmi2.fmu/' "$tmp/plain.xml" >"$tmp/hid.xml"
sed 's/twomass2_fmi2.fmu/twomass2_hid_fmi2.fmu/' "$tmp/plain.cosa" >"$tmp/hid.cosa"
# (Phi's figures only: the OSP file's II is identified at its InitialValues, its
# note and fitted x0 are of that model; the model file's note and x0 are of II at its
# defaults, before --set, so e_global and the notes differ)
point "$tmp/hid.cosa" --set II.ck=1e6 | grep -v '^e_\|^cosa: ' >"$tmp/p_hidref"
point "$tmp/hid.xml" | grep -v '^e_\|^cosa: ' >"$tmp/p_hid"
grep -q '^rho ' "$tmp/p_hid" && cmp -s "$tmp/p_hidref" "$tmp/p_hid" && ok ||
    bad "OSP file with a black box vs model file: $(diff "$tmp/p_hidref" "$tmp/p_hid" | head -n 4)"
# the black box is identified at its InitialValues (ck = 1e6), its x0 fitted there: e_global
# as the declared-state twin's (tolerance of tests/test_black_box.sh: 1e-8 relative)
point "$tmp/hid.xml" >"$tmp/p_hidx"
awk -v a="$(sed -n 's/^e_global //p' "$tmp/p_hidx")" -v b="$(sed -n 's/^e_global //p' "$tmp/p_ref")" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-8 * b) }' && ok ||
    bad "OSP black box e_global $(sed -n 's/^e_global //p' "$tmp/p_hidx") against the declared $(sed -n 's/^e_global //p' "$tmp/p_ref")"

# variable groups: I's port holds s1 and a nested force/velocity pair
mdesc() { # MODELNAME FORCE VELOCITY
    cat >"$tmp/$1_OspModelDescription.xml" <<END
<?xml version="1.0" encoding="utf-8"?>
<OspModelDescription xmlns="https://open-simulation-platform.com/OspModelDescription/1.0.0" version="1.0">
  <VariableGroups>
    <Generic name="port">
      <Variable ref="s1"/>
      <LinearMechanicalPort name="mech">
        <Force name="force"><Variable ref="$2"/></Force>
        <LinearVelocity name="velocity"><Variable ref="$3"/></LinearVelocity>
      </LinearMechanicalPort>
    </Generic>
  </VariableGroups>
</OspModelDescription>
END
}
mdesc twomass1 Fk v1
mdesc twomass2 Fk v1
osp "$tmp/group.xml" fixedStep '
    <VariableGroupConnection><VariableGroup simulator="I" name="port"/><VariableGroup simulator="II" name="port"/></VariableGroupConnection>'
point "$tmp/group.xml" >"$tmp/p_group"
cmp -s "$tmp/p_ref" "$tmp/p_group" && ok || bad "variable groups: $(diff "$tmp/p_ref" "$tmp/p_group" | head -n 4)"

# LinearTransformation factor 2 and Sum(I.s1, I.s1): both are `* 2`
point "$tmp/twice.cosa" --set II.ck=1e6 >"$tmp/p_twice"
grep -q '^rho ' "$tmp/p_twice" && ! cmp -s "$tmp/p_twice" "$tmp/p_ref" && ok ||
    bad "factor 2 changes nothing: $(head -n 2 "$tmp/p_twice")"
osp "$tmp/lt.xml" fixedStep "$REST
    <SignalConnection><Variable simulator=\"I\" name=\"s1\"/><Signal function=\"f\" name=\"in\"/></SignalConnection>
    <SignalConnection><Signal function=\"f\" name=\"out\"/><Variable simulator=\"II\" name=\"s1\"/></SignalConnection>" \
    '<Functions><LinearTransformation name="f" factor="2"/></Functions>'
point "$tmp/lt.xml" >"$tmp/p_lt"
cmp -s "$tmp/p_twice" "$tmp/p_lt" && ok || bad "LinearTransformation: $(diff "$tmp/p_twice" "$tmp/p_lt" | head -n 4)"
osp "$tmp/sum.xml" fixedStep "$REST
    <SignalConnection><Variable simulator=\"I\" name=\"s1\"/><Signal function=\"s\" name=\"in[0]\"/></SignalConnection>
    <SignalConnection><Variable simulator=\"I\" name=\"s1\"/><Signal function=\"s\" name=\"in[1]\"/></SignalConnection>
    <SignalConnection><Signal function=\"s\" name=\"out\"/><Variable simulator=\"II\" name=\"s1\"/></SignalConnection>" \
    '<Functions><Sum name="s" inputCount="2"/></Functions>'
point "$tmp/sum.xml" >"$tmp/p_sum"
cmp -s "$tmp/p_twice" "$tmp/p_sum" && ok || bad "Sum: $(diff "$tmp/p_twice" "$tmp/p_sum" | head -n 4)"

# ---- fixedStep: libcosim's loop against cosa's own ZOH run ------------------------------
"$COSA" simulate --model-file "$tmp/plain.xml" -o "$tmp/fs" >"$tmp/fs.out" 2>"$tmp/fs.err"
grep -q '^algorithm fixedStep$' "$tmp/fs.out" && grep -q '^steps 300$' "$tmp/fs.out" &&
    grep -q '^first_steps_ns 1000000 1000000' "$tmp/fs.out" && ok ||
    bad "fixedStep run: $(cat "$tmp/fs.out" "$tmp/fs.err" | head -n 5)"
# the same with II a black box (the units start where their FMUs start; the identified
# states are Phi's only: it overran the units' x0): the same FMU steps, the same last row
"$COSA" simulate --model-file "$tmp/hid.xml" -o "$tmp/fsh" >"$tmp/fsh.out" 2>"$tmp/fsh.err"
[ "$(tail -n 1 "$tmp/fsh/osp_fixedstep.csv")" = "$(tail -n 1 "$tmp/fs/osp_fixedstep.csv")" ] && ok ||
    bad "fixedStep run with a black box: $(cat "$tmp/fsh.err" | head -n 3)"
"$COSA" simulate --model-file "$tmp/plain.cosa" --set II.ck=1e6 --scheme zoh --dt 1e-3 \
    --outputs I.s1,I.v1,II.Fk -o "$tmp/zoh" >"$tmp/zoh.out" 2>&1 ||
    bad "ZOH run of the model file: $(head -n 2 "$tmp/zoh.out")"
# the last row's outputs (y columns) of both; the OSP CSV: t,h,err,I.s1,I.v1,II.Fk
last_osp=$(tail -n 1 "$tmp/fs/osp_fixedstep.csv" | cut -d, -f1,4-6)
zcsv=$(ls "$tmp"/zoh/*.csv | head -n 1)
hdr=$(grep -v '^#' "$zcsv" | head -n 1)
last_zoh=$(grep -v '^#' "$zcsv" | tail -n 1)
# the same FMU steps; only the step's double (t + h - t in nanoseconds) may
# differ from H in the last bits: 300 steps of a stable oscillator keep the
# difference below 1e-9 relative to the output's scale (measured: 0)
echo "$hdr" | awk -F, -v z="$last_zoh" -v o="$last_osp" '
    BEGIN { n = split(z, zv, ","); split(o, ov, ",") }
    { for (i = 1; i <= NF; i++) col[$i] = i }
    END {
        if (!("y.I.s1" in col)) { print "no column y.I.s1"; exit 1 }
        bad = (zv[1] - ov[1]) ^ 2 > 1e-24
        split("I.s1 I.v1 II.Fk", nm, " ")
        for (k = 1; k <= 3; k++) {
            a = zv[col["y." nm[k]]]; b = ov[k + 1]
            s = (a < 0 ? -a : a) + 1e-300
            if ((a - b < 0 ? b - a : a - b) > 1e-9 * s) { print nm[k], a, b; bad = 1 }
        }
        exit bad
    }' >"$tmp/cmp.out" && ok || bad "fixedStep vs ZOH at the end: $(cat "$tmp/cmp.out") ($hdr)"

# ---- ECCO: the steps recomputed with libcosim's law -------------------------------------
# tolerances at which the steps vary (at 1e-6 they sit on MinimumStepSize)
RTOL=1e-3 ATOL=100 osp "$tmp/ecco.xml" ecco "$PLAIN"
"$COSA" simulate --model-file "$tmp/ecco.xml" --tend 0.05 -o "$tmp/ec" >"$tmp/ec.out" 2>&1
grep -q '^algorithm ecco$' "$tmp/ec.out" && grep -q '^first_steps_ns 100000 100000 ' "$tmp/ec.out" &&
    ok || bad "ECCO run: $(head -n 12 "$tmp/ec.out")"
# power a = input_a output_a = I.Fk (held: II.Fk of the previous point) x I.v1,
# power b = input_b output_b = II.v1 (held: I.v1 before) x II.Fk; the law in
# integer nanoseconds from the times of the CSV (t, h, err, I.s1, I.v1, II.Fk)
awk -F, '
    /^#/ || /^t,/ { next }
    { n++; T[n] = $1; V[n] = $5; F[n] = $6 }
    END {
        h = 100000; prev = 1.0; bad = 0
        for (k = 1; k < n; k++) {
            t0 = sprintf("%.0f", T[k] * 1e9) + 0; t1 = sprintf("%.0f", T[k + 1] * 1e9) + 0
            if (t1 - t0 != h) { printf "step %d: %d ns, expected %d\n", k, t1 - t0, h; bad = 1; break }
            if (!((t1 - t0) in seen)) { seen[t1 - t0] = 1; nd++ }
            if (k < 2) continue
            dt = t1 / 1e9 - t0 / 1e9
            r = F[k] * V[k + 1] - V[k] * F[k + 1]; if (r < 0) r = -r
            e = r * dt / (100 + 1e-3 * r * dt)
            if (prev == 0 || e == 0) { prev = e; continue }
            g = 0.99 * e ^ (-0.35) * prev ^ 0.2
            g = g < 0.2 ? 0.2 : g > 1.5 ? 1.5 : g
            prev = e
            h = int(g * dt * 1e9)
            h = h < 10000 ? 10000 : h > 10000000 ? 10000000 : h
        }
        if (n < 100 || nd < 50) { print "only", n, "points,", nd, "step sizes"; bad = 1 }
        exit bad
    }' "$tmp/ec/osp_ecco.csv" >"$tmp/law.out" && ok || bad "ECCO steps against the law: $(head -n 3 "$tmp/law.out")"
# --algorithm overrides the file: fixed steps of BaseStepSize, or --dt
"$COSA" simulate --model-file "$tmp/ecco.xml" --algorithm fixedStep --dt 2e-3 >"$tmp/o2" 2>&1 &&
    grep -q '^steps 150$' "$tmp/o2" && grep -q '^dt 0.002$' "$tmp/o2" && ok ||
    bad "--algorithm fixedStep --dt: $(head -n 8 "$tmp/o2")"
"$COSA" simulate --model-file "$tmp/plain.xml" --algorithm ecco --tend 0.01 >"$tmp/o3" 2>&1 &&
    grep -q '^algorithm ecco$' "$tmp/o3" && grep -q '^bond b$' "$tmp/o3" && ok ||
    bad "--algorithm ecco: $(head -n 8 "$tmp/o3")"
"$COSA" simulate --model-file "$tmp/plain.xml" --fmu-log --tend 0.01 >/dev/null 2>&1 && ok ||
    bad "--fmu-log on an OSP run"

# ---- libcosim's SSP variant: the OSP annotation of the default experiment --------------
cat >"$tmp/osp.ssd" <<END
<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="twomass-osp" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations">
  <ssd:System name="top">
    <ssd:Elements>
      <ssd:Component name="I" source="twomass1_fmi2.fmu"><ssd:Connectors>
        <ssd:Connector name="Fk" kind="input"><ssc:Real/></ssd:Connector>
        <ssd:Connector name="s1" kind="output"><ssc:Real/></ssd:Connector>
        <ssd:Connector name="v1" kind="output"><ssc:Real/></ssd:Connector>
      </ssd:Connectors></ssd:Component>
      <ssd:Component name="II" source="twomass2_fmi2.fmu"><ssd:Connectors>
        <ssd:Connector name="s1" kind="input"><ssc:Real/></ssd:Connector>
        <ssd:Connector name="v1" kind="input"><ssc:Real/></ssd:Connector>
        <ssd:Connector name="Fk" kind="output"><ssc:Real/></ssd:Connector>
      </ssd:Connectors></ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="I" startConnector="s1" endElement="II" endConnector="s1"/>
      <ssd:Connection startElement="I" startConnector="v1" endElement="II" endConnector="v1"/>
      <ssd:Connection startElement="II" startConnector="Fk" endElement="I" endConnector="Fk"/>
    </ssd:Connections>
  </ssd:System>
  <ssd:DefaultExperiment stopTime="0.3"><ssd:Annotations>
    <ssc:Annotation type="com.opensimulationplatform">
      <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="1e-3"/></osp:Algorithm>
    </ssc:Annotation>
  </ssd:Annotations></ssd:DefaultExperiment>
</ssd:SystemStructureDescription>
END
osp "$tmp/plain0.xml" fixedStep "$PLAIN"
sed 's|<InitialValue variable="ck"><Real value="1e6"/></InitialValue>||' "$tmp/plain0.xml" >"$tmp/plain1.xml"
"$COSA" simulate --model-file "$tmp/osp.ssd" --algorithm fixedStep -o "$tmp/sv" --name s >"$tmp/sv.out" 2>&1
"$COSA" simulate --model-file "$tmp/plain1.xml" -o "$tmp/sv" --name x >"$tmp/sx.out" 2>&1
# the same FMUs stepped by the same loop: the trajectories equal to the last digit
# (the first line names the model)
sed 1d "$tmp/sv/x.csv" >"$tmp/x1"
grep -q '^dt 0.001$' "$tmp/sv.out" && grep -q '^steps 300$' "$tmp/sv.out" && [ -s "$tmp/x1" ] &&
    sed 1d "$tmp/sv/s.csv" | cmp -s - "$tmp/x1" && ok ||
    bad "the SSP variant vs the OSP file: $(head -n 6 "$tmp/sv.out")"

# ---- a stateless network: the gain FMU (y = k u, no states), its input left open ---------
# (start value 0, as libcosim leaves it): it runs under libcosim's algorithms; Phi commands
# refuse it in one line (below)
cp "$FMU/gain_fmi2.fmu" "$tmp/" || bad "no gain FMU"
cat >"$tmp/nostates.xml" <<END
<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure $NS>
  <BaseStepSize>0.01</BaseStepSize>
  <EndTime>0.1</EndTime>
  <Simulators><Simulator name="G" source="gain_fmi2.fmu"/></Simulators>
</OspSystemStructure>
END
"$COSA" simulate --model-file "$tmp/nostates.xml" >"$tmp/ns.out" 2>&1 &&
    grep -q '^steps 10$' "$tmp/ns.out" && grep -q '^status ok$' "$tmp/ns.out" && ok ||
    bad "stateless OSP network: $(head -n 3 "$tmp/ns.out")"
# a Boolean InitialValue reaches the FMU: this one does not export fmi2SetBoolean
sed 's|<Simulator name="G" source="gain_fmi2.fmu"/>|<Simulator name="G" source="gain_fmi2.fmu"><InitialValues><InitialValue variable="on"><Boolean value="false"/></InitialValue></InitialValues></Simulator>|' \
    "$tmp/nostates.xml" >"$tmp/bool.xml"
"$COSA" simulate --model-file "$tmp/bool.xml" >"$tmp/b.out" 2>"$tmp/b.err"
[ $? = 2 ] && grep -q 'does not export fmi2SetBoolean' "$tmp/b.err" && [ "$(wc -l <"$tmp/b.err")" = 1 ] &&
    ok || bad "Boolean InitialValue: $(cat "$tmp/b.err")"
sed 's|<Boolean value="false"/>|<Integer value="3"/>|' "$tmp/bool.xml" >"$tmp/int.xml"
"$COSA" simulate --model-file "$tmp/int.xml" >"$tmp/b.out" 2>"$tmp/b.err"
[ $? = 2 ] && grep -q "no Integer variable" "$tmp/b.err" && ok ||
    bad "Integer InitialValue of a Boolean: $(cat "$tmp/b.err")"

# ---- hostile and unsupported files: one line, exit 2 ------------------------------------
one_line() { # NAME ARGS...: exit 2 and one line on stderr
    name=$1
    shift
    "$COSA" "$@" >"$tmp/h.out" 2>"$tmp/h.err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/h.err")" = 1 ] && ok ||
        bad "$name: exit $rc, stderr: $(head -n 3 "$tmp/h.err")"
}
hostile() { # NAME SED-EXPRESSION: plain.xml edited
    sed "$2" "$tmp/plain.xml" >"$tmp/bad.xml"
    one_line "$1" simulate --model-file "$tmp/bad.xml"
}
hostile traversal 's|source="twomass1_fmi2.fmu"|source="../twomass1_fmi2.fmu"|'
hostile absolute "s|source=\"twomass1_fmi2.fmu\"|source=\"$tmp/twomass1_fmi2.fmu\"|"
hostile uri 's|source="twomass1_fmi2.fmu"|source="http://example.org/a.fmu"|'
hostile doctype 's|<OspSystemStructure|<!DOCTYPE x [<!ENTITY a "aaaa">]><OspSystemStructure|'
hostile not-xml 's|</Simulators>|</Simulator>|'
hostile namespace 's|MSMI/OSPSystemStructure|MSMI/Other|'
hostile unknown 's|<EndTime>|<Foo/><EndTime>|'
hostile start-time 's|<EndTime>|<StartTime>1</StartTime><EndTime>|'
hostile algorithm 's|>fixedStep<|>rk4<|'
hostile ecco-config 's|<SafetyFactor>0.99</SafetyFactor>||;s|>fixedStep<|>ecco<|'
hostile ecco-range 's|<StepSize>0.0001|<StepSize>1|;s|>fixedStep<|>ecco<|'
hostile bond-one 's|powerBond="b"><Variable simulator="I" name="Fk"|><Variable simulator="I" name="Fk"|'
hostile bond-label 's|name="Fk" causality="input"|name="Fk"|'
hostile step-size-fraction 's|<Simulator name="I" |<Simulator name="I" stepSize="0.0015" |'
grep -qx "cosa: simulate: .*bad.xml:7: Simulator 'I' stepSize=0.0015: not a whole multiple of BaseStepSize 0.001 (in whole nanoseconds)" "$tmp/h.err" && ok || bad "step-size fraction: $(cat "$tmp/h.err")"
hostile initial-unknown 's|variable="ck"|variable="nosuch"|'
hostile initial-type 's|<Real value="1e6"/>|<String value="x"/>|'
hostile initial-value 's|<Real value="1e6"/>|<Real value="abc"/>|'
hostile two-outputs 's|<Variable simulator="II" name="s1"/>|<Variable simulator="II" name="Fk"/>|'
hostile no-variable 's|<Variable simulator="II" name="s1"/>|<Variable simulator="II" name="zz"/>|'
hostile no-simulator 's|<Variable simulator="II" name="s1"/>|<Variable simulator="III" name="s1"/>|'
sed 's|<VariableConnection><Variable simulator="II" name="s1"/><Variable simulator="I" name="s1"/></VariableConnection>|<VariableGroupConnection><VariableGroup simulator="I" name="nosuch"/><VariableGroup simulator="II" name="port"/></VariableGroupConnection>|' \
    "$tmp/plain.xml" >"$tmp/bad.xml"
one_line group-unknown simulate --model-file "$tmp/bad.xml"
sed 's|<VariableGroupConnection>|<VariableGroupConnection powerBond="g">|' "$tmp/group.xml" >"$tmp/bad.xml"
one_line group-bond simulate --model-file "$tmp/bad.xml"
sed 's|factor="2"|factor="2" offset="1"|' "$tmp/lt.xml" >"$tmp/bad.xml"
one_line offset simulate --model-file "$tmp/bad.xml"
sed 's|name="in\[1\]"|name="in[7]"|' "$tmp/sum.xml" >"$tmp/bad.xml"
one_line sum-signal simulate --model-file "$tmp/bad.xml"
one_line ecco-model-file simulate --model-file "$tmp/plain.cosa" --algorithm ecco
one_line ecco-scheme simulate --model-file "$tmp/plain.xml" --algorithm ecco --scheme foh
one_line ecco-dt simulate --model-file "$tmp/ecco.xml" --dt 1e-3
one_line osp-plot simulate --model-file "$tmp/plain.xml" --plot png
one_line osp-integrator simulate --model-file "$tmp/plain.xml" --integrator rk4
one_line no-states point --model-file "$tmp/nostates.xml" --scheme zoh --dt 1e-3
[ ! -e "$tmp/bad.csv" ] && ok || bad "a refused file wrote output"
# libcosim's algorithms use no linear form: a stateless FMU whose default identification
# fails (gainshort: its doStep stops short) is run all the same -- and fails in the run, at
# the FMU's own step (exit 1), not at the load; the Phi commands refuse it at the load
mkdir -p "$tmp/gs"
cp "$FMU/gainshort_fmi3.fmu" "$tmp/gs/"
cat >"$tmp/gs/OspSystemStructure.xml" <<END
<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
  <BaseStepSize>0.01</BaseStepSize>
  <EndTime>0.1</EndTime>
  <Algorithm>fixedStep</Algorithm>
  <Simulators><Simulator name="G" source="gainshort_fmi3.fmu"/></Simulators>
</OspSystemStructure>
END
"$COSA" simulate --model-file "$tmp/gs/OspSystemStructure.xml" >/dev/null 2>"$tmp/gs.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$tmp/gs.err")" = 1 ] && ! grep -q identification "$tmp/gs.err" &&
    grep -q '^cosa: simulate: fixedStep run: ' "$tmp/gs.err" && ok || bad "gainshort under fixedStep: exit $rc, $(cat "$tmp/gs.err")"
"$COSA" point --model-file "$tmp/gs/OspSystemStructure.xml" --scheme zoh --dt 0.01 >/dev/null 2>"$tmp/gs.err"
[ $? = 2 ] && grep -q 'fmu G: gainshort_fmi3.fmu: identification failed' "$tmp/gs.err" && ok ||
    bad "gainshort, point: $(cat "$tmp/gs.err")"
fmu_env_done test_osp.sh
