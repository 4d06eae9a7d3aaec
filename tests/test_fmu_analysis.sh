#!/bin/sh
# test_fmu_analysis.sh -- what the Phi commands know of a model file's FMUs
# (README "FMU import": capabilities, nonlinear networks): cosa advise ranks
# only schemes cosa simulate can run on them and lists the others with the
# reason, in md and as JSON; point notes a scheme the FMUs cannot run, a
# fixed internal step and a documented step; a nonlinear or affine FMU is
# detected and makes the fine co-simulation simulate's default reference.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
# net NAME FMU_I FMU_II: the two-mass oscillator of two FMUs
net() {
    fmu_twomass "$tmp/$1.cosa" "$1" 0.3 "$2.fmu" "$3.fmu"
}
net full twomass1_fmi3 twomass2_fmi3
net nointerp twomass1_nointerp_fmi2 twomass2_fmi2
net noiu twomass1_noiu_fmi3 twomass2_fmi3
net nostate twomass1_nostate_fmi3 twomass2_fmi3
net fixed twomass1_fixed_fmi3 twomass2_fmi3
net nl twomass1_fmi3 twomass2nl_fmi3
net affine twomass1g_fmi3 twomass2_fmi3

# ---- advise on FMUs that can run everything: the built-in model's table ----------------
# (the explicit candidates: the iterative ones' numbers on FMUs are checked below)
expl=p0,p0+mbcorr,p1,p1+mbcorr,p2,p2+mbcorr,p3,p3+mbcorr,p4,p4+mbcorr,gs:p0,gs:p1,gs:p2
"$COSA" advise --model-file "$tmp/full.cosa" --tol 1e-2 --schemes $expl 2>"$tmp/err" | grep -v '^model ' >"$tmp/a" &&
    "$COSA" advise --model twomass --tol 1e-2 --schemes $expl | grep -v '^model ' >"$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b" && [ ! -s "$tmp/err" ] && ok ||
    bad "advise on capable FMUs differs from twomass: $(diff "$tmp/a" "$tmp/b" | head -5) $(cat "$tmp/err")"

# ---- FMUs that hold their inputs (FMI 2.0 without canInterpolateInputs, FMI 3.0
# without intermediate update): only degree-0 schemes are ranked, the others listed with
# the reason; the recommendation runs in cosa simulate, a listed one is refused there
for c in "nointerp:FMI 2.0 without canInterpolateInputs" "noiu:FMI 3.0 without providesIntermediateUpdate"; do
    n=${c%%:*}
    why=${c#*:}
    "$COSA" advise --model-file "$tmp/$n.cosa" --tol 1e-2 >"$tmp/a" 2>"$tmp/err"
    rec=$(sed -n 's/^recommend \([^ ]*\) dt \([^ ]*\) .*/\1 \2/p' "$tmp/a")
    # table rows: every ranked scheme has order 0 (ZOH, p0, gs:ZOH, with or without MBCorr)
    rows=$(grep '^| ' "$tmp/a" | grep -v '^| scheme' | cut -d'|' -f2 | tr -d ' ' | sort | tr '\n' ' ')
    # (the iterative candidates of degree 0 run: the FMUs can get and set their state)
    [ "$rows" = "ZOH ZOH+MBCorr gs-imp:ZOH gs:ZOH imp:ZOH " ] && ok || bad "$n: ranked rows '$rows'"
    [ "$(grep -c "^note .*: not ranked: cosa simulate cannot run it on these FMUs (FMU I: an input polynomial of degree [1-4] needs input interpolation: $why holds its inputs (degree 0)); dt on the linearised network " "$tmp/a")" = 12 ] &&
        ok || bad "$n: not-ranked notes: $(grep 'not ranked' "$tmp/a" | head -3)"
    [ "$(grep -c "^note \(imp\|gs-imp\):FOH: not ranked: cosa simulate cannot run it on these FMUs (FMU I: an input polynomial of degree 1" "$tmp/a")" = 2 ] &&
        ok || bad "$n: degree-1 iterative candidates not listed as not runnable: $(grep 'imp:' "$tmp/a" | head -3)"
    # ... and cosa simulate runs imp:ZOH on them: converged, as on the built-in model
    "$COSA" simulate --model-file "$tmp/$n.cosa" --scheme imp:zoh --dt 1e-3 --tend 0.05 >"$tmp/s" 2>"$tmp/err" &&
        grep -q '^status ok$' "$tmp/s" && grep -q '^windows_not_converged 0$' "$tmp/s" && ok ||
        bad "$n: simulate imp:zoh on the FMUs: $(cat "$tmp/err")"
    [ "${rec%% *}" = ZOH+MBCorr ] && ok || bad "$n: recommend $rec"
    "$COSA" simulate --model-file "$tmp/$n.cosa" --scheme "${rec%% *}" --dt "${rec#* }" >"$tmp/s" 2>"$tmp/err" &&
        grep -q '^status ok$' "$tmp/s" && ok || bad "$n: simulate the recommendation $rec: $(cat "$tmp/err")"
    "$COSA" simulate --model-file "$tmp/$n.cosa" --scheme p4+mbcorr --dt 1e-3 >/dev/null 2>&1
    [ $? = 2 ] && ok || bad "$n: simulate p4+mbcorr not refused"
    # point with a scheme the FMUs cannot run: a note, the linearised network's numbers, exit 0
    "$COSA" point --model-file "$tmp/$n.cosa" --scheme foh --dt 1e-3 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" point --model-file "$tmp/full.cosa" --scheme foh --dt 1e-3 >"$tmp/b" &&
        [ "$(sed 1d "$tmp/a")" = "$(sed 1d "$tmp/b")" ] &&
        grep -q "^cosa: point: note: scheme FOH cannot run on these FMUs (FMU I: an input polynomial of degree 1 needs input interpolation: $why holds its inputs (degree 0)): the numbers are the linearised network's, and cosa simulate refuses the scheme$" "$tmp/err" &&
        ok || bad "$n: point foh note: $(cat "$tmp/err")"
    "$COSA" point --model-file "$tmp/$n.cosa" --scheme zoh --dt 1e-3 >/dev/null 2>"$tmp/err" &&
        ! grep -q 'cannot run' "$tmp/err" && ok || bad "$n: point zoh noted: $(cat "$tmp/err")"
done
# a documented step (FMI 2.0 DefaultExperiment stepSize) is noted
"$COSA" point --model-file "$tmp/nointerp.cosa" --scheme zoh --dt 1e-3 >/dev/null 2>"$tmp/err" &&
    grep -q '^cosa: point: note: FMU I documents a step size of 0.0001 s (DefaultExperiment stepSize)' "$tmp/err" &&
    ok || bad "documented step note: $(cat "$tmp/err")"
# neither directional derivatives nor FMU state: no MBCorr (and no degree >= 1)
"$COSA" advise --model-file "$tmp/nostate.cosa" --tol 1e-2 --schemes zoh,zoh+mbcorr >"$tmp/a" 2>&1
grep -q '^note ZOH+MBCorr: not ranked: cosa simulate cannot run it on these FMUs (FMU I: the output correction needs Jacobians: the FMU provides neither directional derivatives nor its state (canGetAndSetFMUState))' "$tmp/a" &&
    grep -q '^recommend ZOH dt ' "$tmp/a" && ok || bad "nostate advise: $(cat "$tmp/a")"
"$COSA" advise --model-file "$tmp/noiu.cosa" --tol 1e-2 --schemes foh,soh >"$tmp/a" 2>&1 &&
    grep -q '^recommend none (no candidate can run on these FMUs)$' "$tmp/a" && ok ||
    bad "advise without a runnable candidate: $(cat "$tmp/a")"
"$COSA" simulate --model-file "$tmp/nostate.cosa" --scheme zoh+mbcorr --dt 1e-3 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "nostate: simulate zoh+mbcorr not refused"

# ---- a fixed internal step (fixedInternalStepSize): a note, the same numbers -----------
"$COSA" point --model-file "$tmp/fixed.cosa" --scheme soh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" point --model-file "$tmp/full.cosa" --scheme soh --dt 1e-4 >"$tmp/b" &&
    [ "$(sed 1d "$tmp/a")" = "$(sed 1d "$tmp/b")" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q '^cosa: point: note: FMU I takes fixed internal steps of 1e-06 s (fixedInternalStepSize): the Phi analysis assumes exact subsystems' "$tmp/err" &&
    ok || bad "fixed step note: $(cat "$tmp/err")"
for c in limit map advise; do
    case $c in
    limit) set -- limit --scheme zoh --criterion stable ;;
    map) set -- map --x II.ck=1e5:1e6:log:2 --y II.dk=1e2:1e3:log:2 --dt 1e-4 --scheme zoh -o "$tmp/map" ;;
    advise) set -- advise --tol 1e-2 --schemes zoh ;;
    esac
    "$COSA" "$@" --model-file "$tmp/fixed.cosa" >/dev/null 2>"$tmp/err" &&
        grep -q "^cosa: $c: note: FMU I takes fixed internal steps of 1e-06 s" "$tmp/err" && ok ||
        bad "fixed step note in $c: $(cat "$tmp/err")"
done

# ---- JSON: --format json on stdout, advice.json with -o: the same document ---------------
"$COSA" advise --model-file "$tmp/nointerp.cosa" --tol 1e-2 --format json >"$tmp/j" 2>/dev/null &&
    "$COSA" advise --model-file "$tmp/nointerp.cosa" --tol 1e-2 -o "$tmp/adv" >"$tmp/md" 2>/dev/null &&
    cmp -s "$tmp/j" "$tmp/adv/advice.json" && grep -q "^file $tmp/adv/advice.json$" "$tmp/md" &&
    ok || bad "advice.json differs from --format json: $(diff "$tmp/j" "$tmp/adv/advice.json" | head -5)"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/j" "$tmp/md" <<'PY' && ok || bad "JSON document: see above"
import json, sys
d = json.load(open(sys.argv[1]))
md = open(sys.argv[2]).read().split("\n")
rec = [l.split() for l in md if l.startswith("recommend ")][0]
keys = {"scheme", "rank", "runnable", "dt_stable", "dt_accurate", "dt", "steps", "cost", "usable", "why"}
c = d["candidates"]
assert len(c) == 17, len(c)  # 13 explicit, 4 iterative candidates
assert all(keys <= set(x) for x in c), "keys"
assert [x["rank"] for x in c] == list(range(1, 18))
for x in c:
    order0 = x["scheme"] in ("ZOH", "ZOH+MBCorr", "gs:ZOH", "imp:ZOH", "gs-imp:ZOH")
    assert x["runnable"] == order0, x
    if not order0:
        assert not x["usable"] and "cannot run on these FMUs: FMU I" in x["why"], x
    else:
        assert x["usable"] and x["why"] is None and x["steps"] > 0 and x["cost"] >= x["steps"], x
        assert x["dt"] == min(x["dt_stable"], x["dt_accurate"]), x
r = d["recommendation"]
assert r["scheme"] == rec[1] and r["dt"] == float(rec[3]) and r["steps"] == int(rec[5]), (r, rec)
f = d["fmus"]
assert [x["subsystem"] for x in f] == ["I", "II"]
assert f[0]["fmi"] == "2.0" and f[0]["input_degree_max"] == 0 and f[1]["input_degree_max"] > 0
assert f[0]["default_step"] == 1e-4 and f[0]["fixed_internal_step"] is None
assert f[0]["nonlinear"] is False and f[0]["affine"] is False
assert any("not ranked" in n for n in d["notes"])
PY
else
    # without python3: the structure by its lines
    [ "$(grep -c '"scheme": ' "$tmp/j")" = 18 ] && grep -q '^  "recommendation": {"scheme": "ZOH+MBCorr"' "$tmp/j" &&
        [ "$(head -c1 "$tmp/j")" = '{' ] && [ "$(tail -n1 "$tmp/j")" = '}' ] && ok || bad "JSON structure"
fi
"$COSA" advise --model twomass --tol 1e-2 --format xml >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "^cosa: advise: --format must be md, csv or json, got 'xml'$" "$tmp/err" && ok ||
    bad "--format xml: $(cat "$tmp/err")"

# ---- nonlinear networks: eq 43's damper (n_d = 1.5) is detected; the default reference
# is then the fine co-simulation (bitwise what --ref fine prints); at n_d = 1 the damper is
# linear and the reference stays the linearised network
for s in zoh foh+mbcorr; do
    "$COSA" simulate --model-file "$tmp/nl.cosa" --scheme $s --dt 1e-4 --tend 0.03 >"$tmp/a" 2>"$tmp/err" &&
        "$COSA" simulate --model-file "$tmp/nl.cosa" --scheme $s --dt 1e-4 --tend 0.03 --ref fine >"$tmp/b" &&
        cmp -s "$tmp/a" "$tmp/b" && grep -q '^reference fine co-simulation SOH dt/64$' "$tmp/a" &&
        grep -q '^cosa: simulate: note: FMU II is nonlinear (.* from its linearisation at 10 % perturbations): the reference is the fine co-simulation' "$tmp/err" &&
        ok || bad "nonlinear default reference $s: $(diff "$tmp/a" "$tmp/b" | head -4) $(cat "$tmp/err")"
done
"$COSA" simulate --model-file "$tmp/nl.cosa" --set II.nd=1 --scheme foh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    grep -q '^reference exact (the linearised network' "$tmp/a" && [ ! -s "$tmp/err" ] && ok ||
    bad "nd = 1 is linear: $(grep reference "$tmp/a") $(cat "$tmp/err")"
"$COSA" point --model-file "$tmp/nl.cosa" --scheme zoh --dt 1e-4 >/dev/null 2>"$tmp/err" &&
    grep -q '^cosa: point: note: FMU II is nonlinear' "$tmp/err" && ok || bad "point nonlinear note: $(cat "$tmp/err")"
# an affine FMU (a constant force F0 = -98.1 N on m1 = 10 kg: 9.81 in der(v)): reported,
# and the fine co-simulation is the default reference.  The constant force only shifts the
# equilibrium (|s_eq| ~ 98.1 / 1.2e6 = 8e-5 m against an amplitude of 100/316 = 0.3 m), and
# extrapolating a constant output is exact, so e_global is the linear network's within
# 1e-3 relative (3e-4 from the shift, the fine reference's own error far below)
"$COSA" point --model-file "$tmp/affine.cosa" --scheme zoh --dt 1e-4 >/dev/null 2>"$tmp/err" &&
    grep -q '^cosa: point: note: FMU I has a constant term f(x0,u0) - A x0 - B u0 (largest entry 9.81) that its linearisation' "$tmp/err" &&
    ok || bad "affine note: $(cat "$tmp/err")"
"$COSA" simulate --model-file "$tmp/affine.cosa" --scheme foh --dt 1e-4 >"$tmp/a" 2>"$tmp/err" &&
    "$COSA" simulate --model-file "$tmp/full.cosa" --scheme foh --dt 1e-4 >"$tmp/b" &&
    grep -q '^reference fine co-simulation SOH dt/64$' "$tmp/a" &&
    grep -q '^cosa: simulate: note: FMU I has a constant term of 9.81 that its linearisation drops' "$tmp/err" &&
    awk '/^e_global/ { e[n++] = $2 } END { r = (e[0] - e[1]) / e[1]; exit !(n == 2 && r < 1e-3 && r > -1e-3) }' \
        "$tmp/a" "$tmp/b" && ok || bad "affine simulate: $(grep e_global "$tmp/a" "$tmp/b") $(cat "$tmp/err")"
"$COSA" advise --model-file "$tmp/nl.cosa" --tol 1e-2 --schemes zoh --format json 2>/dev/null |
    grep -q '"subsystem": "II", .*"nonlinear": true, "affine": ' && ok || bad "nonlinear in JSON"
fmu_env_done test_fmu_analysis.sh
