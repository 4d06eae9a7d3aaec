#!/bin/sh
# test_fmu_terminate.sh -- an FMU's request to end the simulation
# (terminateSimulation; FMI 2.0: Discard with fmi2Terminated = true) ends the
# run after the accepted step that raised it (issue 32; doc/fixed-step-fmus.md):
# status terminated t=T, the reason naming the FMU and T, exit 0, the data up
# to and including T.  The gain test FMU with t_stop = 0.35 asks in the step
# reaching t >= 0.35, i.e. [0.3, 0.4] at dt 0.1.  Independent route for the
# data: the same network without t_stop (t_stop = 1e300) run over the whole
# horizon; the FMU's request changes no value, so the terminated run's rows
# are that run's rows for t <= 0.4, digit for digit (a deterministic run of
# the same arithmetic).  Paths that cannot end a run there (--coupling) keep
# their one-line refusal.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"

# net FILE VERSION: the lag P (x' = (u - x)/tau, y = x) fed back through the
# gain G (FMI VERSION) with t_stop
net() {
    printf 'model term\ntend 1\nfmu P = %s/lag_fmi3.fmu\nfmu G = %s/gainterm_fmi%s.fmu\nconnect P.y -> G.u\nconnect G.y -> P.u\n' \
        "$FMU" "$FMU" "$2" >"$1"
}
SET="--set G.gain_k=0.5 --set P.x=1"
for v in 3 2; do
    net "$tmp/m$v.cosa" $v
    for extra in "--scheme zoh" "--scheme zoh --defects on" "--scheme imp:zoh"; do
        what="fmi$v $extra"
        rm -rf "$tmp/o" "$tmp/full"
        # the run over the whole horizon (no end asked)
        "$COSA" simulate --model-file "$tmp/m$v.cosa" --dt 0.1 $SET $extra \
            --set G.t_stop=1e300 -o "$tmp/full" >"$tmp/fullout" 2>/dev/null &&
            [ "$(val status "$tmp/fullout")" = ok ] && ok || bad "$what: the run without t_stop"
        "$COSA" simulate --model-file "$tmp/m$v.cosa" --dt 0.1 $SET \
            --set G.t_stop=0.35 $extra -o "$tmp/o" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 0 ] && ok || bad "$what: exit status $rc (want 0)"
        [ "$(val status "$tmp/out")" = "terminated t=0.4" ] && ok ||
            bad "$what: status '$(val status "$tmp/out")'"
        [ "$(val reason "$tmp/out")" = \
          "FMU G asked to end the simulation at t = 0.4 (terminateSimulation)" ] && ok ||
            bad "$what: reason '$(val reason "$tmp/out")'"
        [ "$(val steps "$tmp/out")" = 4 ] && ok || bad "$what: steps $(val steps "$tmp/out")"
        # the data rows: t = 0 .. 0.4, the full run's first five
        grep -v '^#' "$tmp"/o/*.csv | sed 1d >"$tmp/rows"
        grep -v '^#' "$tmp"/full/*.csv | sed 1d | head -5 >"$tmp/want"
        [ "$(wc -l <"$tmp/rows")" -eq 5 ] && [ -s "$tmp/want" ] && cmp -s "$tmp/rows" "$tmp/want" &&
            ok || bad "$what: the CSV rows are not the full run's up to t = 0.4"
        awk -F, 'END { exit !($1 > 0.4 - 1e-12 && $1 < 0.4 + 1e-12) }' "$tmp/rows" && ok ||
            bad "$what: the last row is not at t = 0.4"
    done
done

# OSP fixedStep: the same network as an OspSystemStructure (base step 0.1)
cp "$FMU/lag_fmi3.fmu" "$FMU/gainterm_fmi3.fmu" "$tmp/"
cat >"$tmp/osp.xml" <<END
<?xml version="1.0" encoding="UTF-8"?>
<OspSystemStructure xmlns="http://opensimulationplatform.com/MSMI/OSPSystemStructure" version="0.1">
  <BaseStepSize>0.1</BaseStepSize>
  <EndTime>1</EndTime>
  <Algorithm>fixedStep</Algorithm>
  <Simulators>
    <Simulator name="P" source="lag_fmi3.fmu"/>
    <Simulator name="G" source="gainterm_fmi3.fmu">
      <InitialValues>
        <InitialValue variable="gain.k"><Real value="0.5"/></InitialValue>
        <InitialValue variable="t_stop"><Real value="0.35"/></InitialValue>
      </InitialValues>
    </Simulator>
  </Simulators>
  <Connections>
    <VariableConnection><Variable simulator="P" name="y"/><Variable simulator="G" name="u"/></VariableConnection>
    <VariableConnection><Variable simulator="G" name="y"/><Variable simulator="P" name="u"/></VariableConnection>
  </Connections>
</OspSystemStructure>
END
"$COSA" simulate --model-file "$tmp/osp.xml" -o "$tmp/osp" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "osp: exit status (want 0): $(cat "$tmp/err")"
[ "$(val status "$tmp/out")" = "terminated t=0.4" ] && ok ||
    bad "osp: status '$(val status "$tmp/out")'"
awk -v t="$(val t_end "$tmp/out")" 'BEGIN { exit !(t > 0.4 - 1e-12 && t < 0.4 + 1e-12) }'  && ok || bad "osp: t_end $(val t_end "$tmp/out")"
grep -qx "reason FMU G asked to end the simulation at t = 0.4 (terminateSimulation)" \
    "$tmp/out" && ok || bad "osp: reason"
grep -v '^#' "$tmp/osp/osp_fixedstep.csv" | sed 1d >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" -eq 5 ] &&
    awk -F, 'END { exit !($1 > 0.4 - 1e-12 && $1 < 0.4 + 1e-12) }' "$tmp/rows" && ok ||
    bad "osp: the CSV does not end at t = 0.4 ($(wc -l <"$tmp/rows") rows)"

# OSP fixedStep with decimation (G steps 0.2 = 2 base steps: libcosim's
# decimation loop): G's step [0.2, 0.4] asks, the run ends at 0.4
sed 's|<Simulator name="G" source="gainterm_fmi3.fmu">|<Simulator name="G" source="gainterm_fmi3.fmu" stepSize="0.2">|' \
    "$tmp/osp.xml" >"$tmp/decim.xml"
"$COSA" simulate --model-file "$tmp/decim.xml" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "osp decimation: exit status (want 0): $(cat "$tmp/err")"
grep -qx "decimation G 2" "$tmp/out" && ok || bad "osp decimation: no 'decimation G 2'"
[ "$(val status "$tmp/out")" = "terminated t=0.4" ] && ok ||
    bad "osp decimation: status '$(val status "$tmp/out")'"
[ "$(val steps "$tmp/out")" = 4 ] && ok || bad "osp decimation: steps $(val steps "$tmp/out")"

# --coupling (the variable-order engine) cannot end a run there: the
# one-line refusal naming the FMU, exit 1
fails_with 1 "FMU G: fmi3DoStep at t = .* asked for termination (not supported)" \
    "--coupling refuses" "$COSA" simulate --model-file "$tmp/m3.cosa" --coupling explicit \
    --scheme zoh --dt 0.1 $SET --set G.t_stop=0.35

fmu_env_done test_fmu_terminate
