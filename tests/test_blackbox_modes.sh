#!/bin/sh
# test_blackbox_modes.sh -- every mode of cosa simulate on black boxes, FMUs that declare no
# states (doc/simulate-black-box.md "Modes", issue 31 item 1).  The two-mass pair with subsystem
# II hidden (tests/fmu/twomass2_hid*.fmu: the declared twin's binary, no states declared) against
# the same run of the declared pair: where a mode makes the same FMU calls with the same
# arithmetic the results are equal to the last printed digit (the only right tolerance for the
# same computation); the output correction on the identified model is compared within a
# tolerance derived from the identification's fit error; the modes that need what a black box
# hides are refused in one line, exit 2.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
pair() { fmu_twomass "$1" pair 0.05 twomass1_fmi3.fmu "$2"; } # FILE FMU_II
pair "$tmp/decl.cosa" twomass2_fmi3.fmu
pair "$tmp/bb.cosa" twomass2_hid_fmi3.fmu
pair "$tmp/nofs.cosa" twomass2_hidnofs_fmi3.fmu
fmu_twomass "$tmp/both.cosa" pair 0.05 twomass1_hid_fmi3.fmu twomass2_hid_fmi2.fmu # I and II hidden
# the trajectory file without its reference columns (ref.*) and comments
traj() {
    awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^ref\./; h = 1 }
             { s = ""; for (i = 1; i <= NF; i++) if (keep[i]) s = s "," $i; print s }' "$1"
}
run() { simulate_run "$@"; } # NAME MODEL ARGS...: simulate into $tmp/NAME/r.csv, stdout $tmp/NAME.out
# the largest difference of two trajectory files over the largest magnitude, per column, the
# worst column: FILE_A FILE_B
reldiff() {
    traj "$1" >"$tmp/ra"
    traj "$2" >"$tmp/rb"
    paste -d'|' "$tmp/ra" "$tmp/rb" | awk -F'|' '
        NR == 1 { next }
        { na = split($1, a, ","); split($2, b, ",")
          for (i = 2; i <= na; i++) { d = a[i] - b[i]; d = d < 0 ? -d : d; m = a[i] < 0 ? -a[i] : a[i]
                                      if (d > dm[i]) dm[i] = d; if (m > mm[i]) mm[i] = m } }
        END { w = 0; for (i in dm) if (mm[i] > 0 && dm[i] / mm[i] > w) w = dm[i] / mm[i]
              printf "%.3g\n", w }'
}

# ---- the plain modes: Gauss-Seidel, iterated (rolled back through FMU state), multi-rate,
# held inputs, the start at t = 0: the same FMU calls, the same trajectory ----------------------
for a in "gs:zoh" "imp:zoh" "zoh --rate II=2" "zoh --input held" "zoh --start initial"; do
    # shellcheck disable=SC2086 # the scheme and its options, split on purpose
    run p_decl decl --ref none --scheme $a
    # shellcheck disable=SC2086
    run p_bb bb --ref none --scheme $a
    traj "$tmp/p_decl/r.csv" >"$tmp/p_decl.traj"
    [ "$(wc -l <"$tmp/p_decl.traj")" = 502 ] && traj "$tmp/p_bb/r.csv" | cmp -s - "$tmp/p_decl.traj" &&
        ok || bad "--scheme $a: another trajectory"
done

# ---- +ecorr: the state correction is an input offset, kappa_p L (ybar - E_p), from outputs
# alone: the same arithmetic on the same FMU calls, equal to the last digit --------------------
for f in decl bb nofs; do run "e_$f" "$f" --scheme zoh+ecorr --ref none; done
traj "$tmp/e_decl/r.csv" >"$tmp/e_decl.traj"
for f in bb nofs; do
    traj "$tmp/e_$f/r.csv" | cmp -s - "$tmp/e_decl.traj" && ok || bad "+ecorr $f: another trajectory"
    grep -q '^correction_model' "$tmp/e_$f.out" && bad "+ecorr $f: names a model it does not use" || ok
done
# and it corrects: du is not all zero
awk -F, '/^#/ { next } !s { for (i = 1; i <= NF; i++) h[i] = $i; s = 1; next }
         { for (i = 1; i <= NF; i++) if (h[i] ~ /^du\./ && $i != 0) n++ }
         END { exit !(n > 0) }' "$tmp/e_bb/r.csv" && ok || bad "+ecorr: no state correction"

# ---- +ocorr, +mbcorr: G_p, G_0 from the identified model of II (its realisation is not the
# FMU's, but G_p and G_0 are input-output maps, the same for every realisation).  Tolerance:
# per step the corrected output moves by at most the model's relative error (the
# identification's fit error on a validation input, or 16 eps of the different realisation's
# arithmetic, whichever is larger) times the output's scale, and a contracting network (rho <
# 1, checked) carries each step's perturbation forward without growth, so over N = 500 steps the
# difference stays below N max(fit, 16 eps) of each column's largest magnitude.  The run must
# also move away from the uncorrected one by far more than that, or the test could not fail.
"$COSA" simulate --model-file "$tmp/decl.cosa" --dt 1e-4 --scheme zoh --ref none -o "$tmp/z" \
    --name r >/dev/null 2>&1 || bad "plain ZOH run"
for sc in zoh+ocorr zoh+mbcorr; do
    "$COSA" point --model-file "$tmp/decl.cosa" --scheme $sc --dt 1e-4 >"$tmp/pt" 2>/dev/null
    awk '$1 == "rho" { exit !($2 < 1) }' "$tmp/pt" && ok || bad "$sc: rho not below 1"
    run "c_decl" decl --scheme $sc --ref none
    for f in bb nofs both; do
        run "c_$f" "$f" --scheme $sc --ref none
        grep -q "note: scheme .*: the output correction uses the identified model of .*II (order 2, " \
            "$tmp/c_$f.err" && ok || bad "$sc $f: no note: $(cat "$tmp/c_$f.err")"
        # the largest fit error of the identified units
        fit=$(grep '^correction_model identified .*II (order 2, fit ' "$tmp/c_$f.out" |
              grep -o 'fit [^)]*' | cut -d' ' -f2 | sort -g | tail -n 1)
        [ -n "$fit" ] && ok || bad "$sc $f: no correction_model line: $(cat "$tmp/c_$f.out")"
        d=$(reldiff "$tmp/c_decl/r.csv" "$tmp/c_$f/r.csv")
        dz=$(reldiff "$tmp/c_decl/r.csv" "$tmp/z/r.csv")
        awk -v d="$d" -v dz="$dz" -v f="$fit" 'BEGIN { e = 2.220446e-16; t = 500 * (f > 16 * e ? f : 16 * e)
            exit !(d <= t && dz > 1e3 * t) }' && ok ||
            bad "$sc $f: relative difference $d to the declared twin (fit $fit), $dz to the uncorrected run"
    done
done
# a scheme the FMU cannot take stays refused by its own rule (no intermediate update: foh)
"$COSA" simulate --model-file "$tmp/bb.cosa" --dt 1e-4 --scheme foh+mbcorr >/dev/null 2>"$tmp/r.err"
[ $? != 0 ] && grep -q "intermediate-update" "$tmp/r.err" && ok || bad "foh+mbcorr: $(cat "$tmp/r.err")"

# ---- --energy: the power figures (dP, dE, the correction) come from the bond's outputs and
# are the declared twin's; E(x) is over states the black box hides: nan --------------------------
for f in decl bb; do
    cat "$tmp/$f.cosa" - >"$tmp/en_$f.cosa" <<'EOF'
energy = [ 6e5, 0, -1e5, 0
           0, 5, 0, 0
           -1e5, 0, 6e6, 0
           0, 0, 0, 5 ]
bond II.Fk -> I.v1
EOF
    run "en_$f" "en_$f" --scheme zoh --energy --ref none
    run "em_$f" "en_$f" --scheme zoh --energy --mu 0.5 --ref none
    run "ea_$f" "en_$f" --scheme zoh --energy --mu auto --ref none
done
# --mu auto reads the feedthrough D of II by setting inputs and reading outputs (no states):
# mu_SR = 0.5 (eq 20: II's force depends on I's position directly), as for the twin
[ "$(val mu "$tmp/ea_bb.out")" = 0.5 ] && [ "$(val mu "$tmp/ea_decl.out")" = 0.5 ] &&
    [ "$(val dE_end "$tmp/ea_bb.out")" = "$(val dE_end "$tmp/ea_decl.out")" ] && ok ||
    bad "--mu auto: mu $(val mu "$tmp/ea_bb.out") vs $(val mu "$tmp/ea_decl.out")"
for k in dE_end U_end caps; do
    [ -n "$(val $k "$tmp/em_bb.out")" ] && [ "$(val $k "$tmp/em_bb.out")" = "$(val $k "$tmp/em_decl.out")" ] &&
        ok || bad "--energy --mu: $k $(val $k "$tmp/em_bb.out") vs $(val $k "$tmp/em_decl.out")"
done
[ "$(val dE_end "$tmp/en_bb.out")" = "$(val dE_end "$tmp/en_decl.out")" ] && ok ||
    bad "--energy: dE_end $(val dE_end "$tmp/en_bb.out") vs $(val dE_end "$tmp/en_decl.out")"
for k in E0 E_end E_ref_end varsigma_end max_varsigma mu_measured; do
    [ "$(val $k "$tmp/en_bb.out")" = nan ] && ok || bad "--energy: $k $(val $k "$tmp/en_bb.out")"
done
# the declared twin knows E but, without a reference, not E_ref
[ "$(val E0 "$tmp/en_decl.out")" != nan ] && [ "$(val E_ref_end "$tmp/en_decl.out")" = nan ] && ok ||
    bad "--energy --ref none: E0 $(val E0 "$tmp/en_decl.out"), E_ref_end $(val E_ref_end "$tmp/en_decl.out")"
grep -q "note: --energy: black box II hides its states: E, E_ref and varsigma are nan" \
    "$tmp/en_bb.err" && ok || bad "--energy: no note: $(cat "$tmp/en_bb.err")"
# the energy file's power columns (dP, dE, fcorr, U, Ucal, capped) are the twin's
cut -d, -f1,4,5,7- "$tmp/em_bb/r_energy.csv" | grep -v '^#' >"$tmp/pb"
cut -d, -f1,4,5,7- "$tmp/em_decl/r_energy.csv" | grep -v '^#' >"$tmp/pd"
[ "$(wc -l <"$tmp/pb")" = 502 ] && cmp -s "$tmp/pb" "$tmp/pd" && ok || bad "--energy: other power columns"
# independent route: dE = H sum_n (F_{n-1} v_n - F_n v_{n-1}) from the trajectory file's forces
# y.II.Fk and velocities y.I.v1 (printed to 17 digits: the same doubles); the sums differ by
# the order of rounding only, N eps of the sum of |terms|
awk -F, -v dE="$(val dE_end "$tmp/en_bb.out")" '/^#/ { next }
    !h { for (i = 1; i <= NF; i++) { if ($i == "y.II.Fk") cf = i; if ($i == "y.I.v1") cv = i }; h = 1; next }
    { if (n++) { p = F * $cv - $cf * V; s += 1e-4 * p; a += 1e-4 * (p < 0 ? -p : p) } F = $cf; V = $cv }
    END { d = s - dE; d = d < 0 ? -d : d; exit !(cf && cv && n == 501 && d <= 500 * 2.3e-16 * a + 1e-300) }' \
    "$tmp/en_bb/r.csv" && ok || bad "--energy: dE_end $(val dE_end "$tmp/en_bb.out") is not H sum dP of the trajectory"

# ---- --defects on --out-order 0: the output polynomials are the outputs themselves, the
# mid-step sample a half step from an FMU snapshot: the twin's figures --------------------------
for f in decl bb nofs; do run "d_$f" "$f" --scheme zoh --defects on --out-order 0 --ref none; done
for k in defect_out defect_conn; do
    v=$(val $k "$tmp/d_bb.out")
    [ -n "$v" ] && [ "$v" != nan ] && [ "$v" = "$(val $k "$tmp/d_decl.out")" ] && ok ||
        bad "--defects on --out-order 0: $k $v vs $(val $k "$tmp/d_decl.out")"
done
grep -q '^unit II steps 1000 restores 500 .* defect_steps 500$' "$tmp/d_bb.out" && ok ||
    bad "--defects: unit II $(grep '^unit II' "$tmp/d_bb.out")"
# without FMU state there is no snapshot; with --out-order 1 no output derivative: nan, a note
[ "$(val defect_out "$tmp/d_nofs.out")" = nan ] && grep -q "unit II cannot save its state" \
    "$tmp/d_nofs.err" && ok || bad "--defects without FMU state: $(cat "$tmp/d_nofs.err")"
run d1 bb --scheme zoh --defects on --ref none
[ "$(val defect_out "$tmp/d1.out")" = nan ] &&
    grep -q "black box II declares no states, so its output derivatives are not known (--out-order 0 needs none)" \
        "$tmp/d1.err" && ok || bad "--defects --out-order 1: $(cat "$tmp/d1.err")"

# ---- cosa defect at orders 0 (the defect paper's Algorithm 1), fixed step and defect control
# (--tol): the twin's steps and defects to the last digit; the error columns compare with the
# exact solution from the initial state, which a black box hides: nan, with a note ----------
for f in decl bb; do
    "$COSA" defect --model-file "$tmp/$f.cosa" --dt 1e-4 --integrator exact --in-order 0 \
        --out-order 0 >"$tmp/df_$f.out" 2>"$tmp/df_$f.err" || bad "defect --dt $f: exit $?"
    rm -rf "${tmp:?}/dc_$f"
    "$COSA" defect --model-file "$tmp/$f.cosa" --tol 30 --tend 0.005 --integrator exact \
        --in-order 0 --out-order 0 -o "$tmp/dc_$f" >"$tmp/dc_$f.out" 2>"$tmp/dc_$f.err" ||
        bad "defect --tol $f: exit $?"
done
for r in df dc; do
    grep -v '^error_\|^file ' "$tmp/${r}_decl.out" >"$tmp/${r}_a"
    grep -v '^error_\|^file ' "$tmp/${r}_bb.out" >"$tmp/${r}_b"
    [ "$(grep -c '^defect_out_' "$tmp/${r}_a")" = 3 ] && cmp -s "$tmp/${r}_a" "$tmp/${r}_b" && ok ||
        bad "cosa defect ($r): $(diff "$tmp/${r}_a" "$tmp/${r}_b" | head -n 3)"
    [ "$(grep -c '^error_.* nan$' "$tmp/${r}_bb.out")" = 3 ] &&
        [ "$(grep -c '^error_.* nan$' "$tmp/${r}_decl.out")" = 0 ] && ok ||
        bad "cosa defect ($r): error columns $(grep '^error_' "$tmp/${r}_bb.out" | tr '\n' ' ')"
    grep -q "note: black box II hides the initial state, so no exact solution: error_\* are nan" \
        "$tmp/${r}_bb.err" && ok || bad "cosa defect ($r): no note: $(cat "$tmp/${r}_bb.err")"
done
# the controlled run's steps (the per-step file: t, H, eps and every defect) are the twin's
grep -v '^#' "$tmp/dc_decl/pair_exact_m0_n0.csv" >"$tmp/dc_a.csv"
grep -v '^#' "$tmp/dc_bb/pair_exact_m0_n0.csv" >"$tmp/dc_b.csv"
[ "$(val steps "$tmp/dc_bb.out")" -gt 100 ] && cmp -s "$tmp/dc_a.csv" "$tmp/dc_b.csv" && ok ||
    bad "cosa defect --tol: other steps ($(val steps "$tmp/dc_bb.out") steps)"

# ---- OSP files: libcosim's fixedStep and ECCO on the black box: the twin's run --------------
cp "$FMU/twomass1_fmi2.fmu" "$FMU/twomass2_fmi2.fmu" "$FMU/twomass2_hid_fmi2.fmu" "$tmp/" ||
    bad "no FMI 2.0 test FMUs"
for ii in twomass2_fmi2 twomass2_hid_fmi2; do
    osp_twomass "$tmp/$ii.xml" 0.001 0.05 ecco "$ii.fmu"
    for a in ecco fixedStep; do
        rm -rf "${tmp:?}/o_${ii}_$a"
        "$COSA" simulate --model-file "$tmp/$ii.xml" --algorithm $a -o "$tmp/o_${ii}_$a" --name r \
            >"$tmp/o.out" 2>"$tmp/o.err" && [ "$(val status "$tmp/o.out")" = ok ] && ok ||
            bad "OSP $a $ii: exit $?: $(grep -v note "$tmp/o.err")"
    done
done
for a in ecco fixedStep; do
    [ "$(grep -vc '^#' "$tmp/o_twomass2_fmi2_$a/r.csv")" -gt 50 ] &&
        cmp -s "$tmp/o_twomass2_fmi2_$a/r.csv" "$tmp/o_twomass2_hid_fmi2_$a/r.csv" && ok ||
        bad "OSP $a: the black box's run is not the twin's"
done

# ---- refused, one line each (besides the identification's notes), exit 2 -------------------
refuse() { # WHAT PATTERN ARGS...
    what=$1
    pat=$2
    shift 2
    "$COSA" "$@" >/dev/null 2>"$tmp/r.all"
    rc=$?
    grep -v '^cosa: [a-z]*: note: ' "$tmp/r.all" >"$tmp/r.err"
    [ $rc = 2 ] && one_line "$tmp/r.err" && grep -q "$pat" "$tmp/r.err" && ok ||
        bad "$what: exit $rc: $(cat "$tmp/r.err")"
}
# the variable-order engine runs black boxes (tests/test_vo_blackbox.sh), but not with an
# estimator that compares states
refuse coupling-control "estimator immilne compares the states of two integrations (z - z^), which black box II hides" \
    simulate --model-file "$tmp/bb.cosa" --coupling implicit --estimator immilne --control order --scheme zoh --dt 1e-4
refuse defect "black box II declares no states: the defect estimate needs the output derivatives C x' + D u', which a black box does not give (--out-order 0 needs none)" \
    defect --model-file "$tmp/bb.cosa" --dt 1e-4 --integrator exact --in-order 0 --out-order 1
refuse defect-tol "black box II declares no states: the defect estimate needs the output derivatives" \
    defect --model-file "$tmp/bb.cosa" --tol 1e-3 --integrator exact --in-order 1 --out-order 2
# a black box whose identification failed (the gain FMU whose doStep returns short): no model
# to correct its outputs on
sed "s|twomass2_hid_fmi3.fmu|gainshort_fmi3.fmu|; s|connect II.Fk -> I.Fk|connect II.y -> I.Fk|; s|connect I.s1 -> II.s1|connect I.s1 -> II.u|; /I.v1 -> II.v1/d" \
    "$tmp/bb.cosa" >"$tmp/short.cosa"
refuse ocorr-failed "scheme ZOH+ocorr: black box II declares no states and its identification failed: the output correction needs its identified model (use +ecorr, or the scheme without a correction)" \
    simulate --model-file "$tmp/short.cosa" --scheme zoh+ocorr --dt 1e-4
fmu_env_done test_blackbox_modes
