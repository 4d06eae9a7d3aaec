#!/bin/sh
# test_cli.sh -- the `cosa` command line: help, output format, and one-line
# errors with the right exit codes for bad input.
. "$(dirname "$0")/harness.sh"

# help and version go to stdout with exit 0
expect_exit 0 "$COSA" --help
expect_exit 0 "$COSA" --version
for sub in demo point phi models limit converge table model-dump; do
    expect_exit 0 "$COSA" "$sub" --help
    grep -q "^Usage: cosa $sub" "$tmp/out" || bad "cosa $sub --help has no usage line"
done

# point: name value lines, rho and rho_ref present and numeric
expect_exit 0 "$COSA" point --scheme zoh+mbcorr --dt 1e-4
for key in rho rho_ref stable dim; do
    grep -q "^$key " "$tmp/out" || bad "point output lacks '$key'"
done
awk '$1 == "rho" || $1 == "rho_ref" { if ($2 + 0 <= 0 || $2 + 0 > 2) exit 1 }' "$tmp/out" ||
    bad "point: rho out of range: $(cat "$tmp/out")"
# the same case in other spellings gives identical output
"$COSA" point --scheme ZOH+MBCorr --dt 0.0001 --set ck=2e5 >"$tmp/out2" 2>/dev/null
cmp -s "$tmp/out" "$tmp/out2" && ok || bad "point output depends on spelling of scheme/numbers"
# reference is scheme independent: rho_ref equal for zoh and soh+mbcorr
r1=$("$COSA" point --scheme zoh --dt 1e-4 | awk '$1 == "rho_ref" { print $2 }')
r2=$("$COSA" point --scheme soh+mbcorr --dt 1e-4 | awk '$1 == "rho_ref" { print $2 }')
[ -n "$r1" ] && [ "$r1" = "$r2" ] && ok || bad "rho_ref differs between schemes: $r1 vs $r2"

# phi: header names the blocks; dim rows of dim numbers
expect_exit 0 "$COSA" phi --scheme foh+mbcorr --dt 1e-4
dim=$(awk '$1 == "#" && $2 == "dim" { print $3 }' "$tmp/out")
[ "$dim" = 13 ] && ok || bad "phi foh+mbcorr dim is '$dim', expected 13 (4 + 2*3 + 3)"
grep -q 'ybar_{n-1}' "$tmp/out" && grep -q ' du \[' "$tmp/out" && ok || bad "phi header lacks block names"
rows=$(grep -vc '^#' "$tmp/out")
[ "$rows" = "$dim" ] && ok || bad "phi printed $rows rows for dim $dim"
awk -v d="$dim" '!/^#/ && NF != d { exit 1 }' "$tmp/out" && ok || bad "phi rows do not have $dim columns"
expect_exit 0 "$COSA" phi --scheme zoh --dt 1e-4 --ref

# models lists twomass with its parameters
expect_exit 0 "$COSA" models
grep -q '^twomass' "$tmp/out" && grep -q ' ck ' "$tmp/out" && ok || bad "models output lacks twomass/ck"

# demo runs
expect_exit 0 "$COSA" demo --dt 1e-4
grep -q '^ZOH+MBCorr' "$tmp/out" && ok || bad "demo lacks ZOH+MBCorr row"

# point prints the error indicators
expect_exit 0 "$COSA" point --scheme foh --dt 1e-4
for key in e_global e_local e_local_ref nsteps tend; do
    grep -q "^$key " "$tmp/out" || bad "point output lacks '$key'"
done
awk '$1 == "nsteps" && $2 != 3000 { exit 1 }' "$tmp/out" || bad "nsteps should be round(0.3/1e-4) = 3000"

# limit: the 4th-order hold loses stability once (MBCorr paper 4.3)
expect_exit 0 "$COSA" limit --scheme p4 --criterion stable --dt-min 1e-6
awk '$1 == "dt_max" { if ($2 < 1.6e-4 || $2 > 1.9e-4) exit 1 }' "$tmp/out" || bad "p4 dt_max not in [1.6e-4, 1.9e-4]"
grep -q '^monotone yes' "$tmp/out" && ok || bad "p4 stability should be monotone"
# FOH at (1e9, 3.6e5): a stability window (Fig 5)
expect_exit 0 "$COSA" limit --scheme foh --criterion stable --set ck=1e9 --set dk=3.6e5 --dt-min 1e-6 --dt-max 1e-3
grep -q '^monotone no' "$tmp/out" && grep -q 'enters' "$tmp/out" && ok || bad "FOH window not found"
expect_exit 0 "$COSA" limit --scheme zoh+mbcorr --criterion accurate --tol 0.01 --dt-min 1e-6
# converge: table then orders
expect_exit 0 "$COSA" converge --scheme foh --points 8
grep -q '^dt e_local e_global$' "$tmp/out" && grep -q '^order_local ' "$tmp/out" && ok || bad "converge output format"
[ "$(grep -c '^[0-9]' "$tmp/out")" = 8 ] && ok || bad "converge should print 8 rows"
# table 3 (the cheapest) in csv
expect_exit 0 "$COSA" table --paper mbcorr --table 1 --pairs 2e5:5e2 --format csv
grep -q '^ZOH+MBCorr,200000,500,' "$tmp/out" && ok || bad "table csv row missing"

# model files: every built-in model dumped and reloaded gives the same Phi to the last bit
for m in $("$COSA" models | awk -F: '/^Nonlinear/ { exit } /^[a-z]/ { print $1 }'); do
    "$COSA" model-dump --model "$m" -o "$tmp/$m.cosa" 2>"$tmp/err" || bad "model-dump $m: $(cat "$tmp/err")"
    "$COSA" phi --model "$m" --scheme foh+mbcorr --dt 1e-3 | grep -v '^#' >"$tmp/a"
    "$COSA" phi --model-file "$tmp/$m.cosa" --scheme foh+mbcorr --dt 1e-3 | grep -v '^#' >"$tmp/b"
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && ok || bad "model-dump round trip of $m changes Phi"
done
# ... and --set works on the dumped twomass file (parameters kept as expressions)
"$COSA" point --model twomass --scheme zoh --dt 1e-4 --set ck=3e7 >"$tmp/a"
"$COSA" point --model-file "$tmp/twomass.cosa" --scheme zoh --dt 1e-4 --set ck=3e7 >"$tmp/b"
[ "$(grep '^rho ' "$tmp/a")" = "$(grep '^rho ' "$tmp/b")" ] && ok || bad "--set on a dumped model file"
# shipped example files load
for f in "${srcdir:-.}"/data/models/*.cosa; do
    expect_exit 0 "$COSA" point --model-file "$f" --scheme zoh --dt 1e-4
done
# malformed model files: one line naming file and line, exit 2
printf 'model x\nparam a = 1\nsubsystem S\n states q\n A = [ -a ]\n' >"$tmp/bad1.cosa"
expect_exit 2 "$COSA" point --model-file "$tmp/bad1.cosa" --scheme zoh --dt 1e-3
grep -q 'bad1.cosa:[0-9]' "$tmp/err" && ok || bad "model file error lacks file:line: $(cat "$tmp/err")"
printf '\001\002\377binary junk\n' >"$tmp/bad2.cosa"
expect_exit 2 "$COSA" point --model-file "$tmp/bad2.cosa" --scheme zoh --dt 1e-3
expect_exit 2 "$COSA" point --model-file "$tmp/nonexistent.cosa" --scheme zoh --dt 1e-3
expect_exit 2 "$COSA" point --model twomass --model-file "$tmp/twomass.cosa" --scheme zoh --dt 1e-3
expect_exit 2 "$COSA" model-dump --model twomass --scheme zoh

# Gauss-Seidel: names and 1-based indices give the same order
g1=$("$COSA" point --scheme gs:foh --dt 1e-4 --order II,I | awk '$1 == "rho" { print $2 }')
g2=$("$COSA" point --scheme gs:foh --dt 1e-4 --order 2,1 | awk '$1 == "rho" { print $2 }')
g3=$("$COSA" point --scheme gs:foh --dt 1e-4 | awk '$1 == "rho" { print $2 }')
[ -n "$g1" ] && [ "$g1" = "$g2" ] && ok || bad "--order II,I and 2,1 differ: $g1 vs $g2"
[ "$g1" != "$g3" ] && ok || bad "--order II,I should differ from the default order"
expect_exit 2 "$COSA" point --scheme gs:foh --dt 1e-4 --order 2,2
expect_exit 2 "$COSA" point --scheme gs:foh --dt 1e-4 --order 1
expect_exit 2 "$COSA" point --scheme gs:foh --dt 1e-4 --order III,I
expect_exit 2 "$COSA" point --scheme foh --dt 1e-4 --order 1,2
# --sequence is the name of the execution order; --order still works for it,
# with a one-line deprecation note on stderr
g4=$("$COSA" point --scheme gs:foh --dt 1e-4 --sequence II,I 2>"$tmp/err" | awk '$1 == "rho" { print $2 }')
[ -n "$g4" ] && [ "$g4" = "$g1" ] && ok || bad "--sequence II,I and --order II,I differ: $g4 vs $g1"
[ ! -s "$tmp/err" ] && ok || bad "--sequence printed on stderr: $(cat "$tmp/err")"
"$COSA" point --scheme gs:foh --dt 1e-4 --order II,I >/dev/null 2>"$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^cosa: point: note: --order is deprecated.*use --sequence$' "$tmp/err" &&
    ok || bad "--order should print one deprecation note, got: $(cat "$tmp/err")"
expect_exit 2 "$COSA" point --scheme gs:foh --dt 1e-4 --sequence 2,2
expect_exit 2 "$COSA" point --scheme foh --dt 1e-4 --sequence 1,2
grep -q -- '--sequence applies to Gauss-Seidel' "$tmp/err" && ok || bad "--sequence on Jacobi: $(cat "$tmp/err")"
"$COSA" point --help | grep -q -- '--sequence LIST' && ok || bad "point --help lacks --sequence"

# a nonlinear model (twomass-nl) has no linear form: every command that needs
# one refuses it with one line naming the model, exit 2
nl_msg='model twomass-nl is nonlinear: Phi analysis needs a linear model (use cosa simulate)'
for args in "point --scheme zoh --dt 1e-3" "phi --scheme gs:zoh --dt 1e-3 --order II,I" \
    "limit --scheme zoh --criterion stable" "converge --scheme zoh" "demo" \
    "map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3 --scheme zoh --metric rho -o $tmp/nlmap" \
    "curve --x dt=1e-4:1e-3:log:2 --scheme zoh --metric rho -o $tmp/nlcurve" "bench"; do
    sub=${args%% *}
    # shellcheck disable=SC2086
    expect_exit 2 "$COSA" $args --model twomass-nl
    grep -qxF "cosa: $sub: $nl_msg" "$tmp/err" && ok || bad "$sub --model twomass-nl: $(cat "$tmp/err")"
done
expect_exit 2 "$COSA" model-dump --model twomass-nl
grep -qxF "cosa: model-dump: model twomass-nl is nonlinear: model files describe linear models only" \
    "$tmp/err" && ok || bad "model-dump --model twomass-nl: $(cat "$tmp/err")"

# ---- imperfect model knowledge: --assume NAME=VALUE (README) --------------------------
# the true values as the assumed ones: the same output, plus the 'assume' lines, no note
for args in "point --scheme zoh+mbcorr --dt 1e-4 --set dk=300" \
    "limit --scheme foh+mbcorr --criterion accurate --dt-min 1e-6" \
    "converge --scheme soh+mbcorr --points 6" \
    "table --paper mbcorr --table 1 --pairs 2e5:5e2,1e9:3.6e5 --format csv"; do
    # shellcheck disable=SC2086
    "$COSA" $args >"$tmp/a" 2>&1
    # shellcheck disable=SC2086
    "$COSA" $args --assume c1=1e6 --assume m2=10 >"$tmp/b" 2>"$tmp/err"
    if [ "${args%% *}" = table ]; then
        sed 's/,assume$//; s/,m2=10;c1=1000000$//' "$tmp/b" >"$tmp/c"
    else
        grep -v '^#* *assume ' "$tmp/b" >"$tmp/c"
    fi
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/c" && [ ! -s "$tmp/err" ] && ok ||
        bad "${args%% *} --assume with the true values changes the output: $(diff "$tmp/a" "$tmp/c" | head -3) $(cat "$tmp/err")"
done
[ "$(grep -c '^assume ' "$tmp/b")" = 0 ] && grep -q '^[A-Z].*,m2=10;c1=1000000$' "$tmp/b" && ok ||
    bad "table csv lacks the assume column"
expect_exit 0 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume ck=4e5 --assume dk=250
[ "$(sed -n '2,3p' "$tmp/out" | tr '\n' ' ')" = "assume ck 400000 assume dk 250 " ] && ok ||
    bad "point should print the assumed values after the model: $(head -4 "$tmp/out")"
# a mismatch changes rho of ZOH+MBCorr, not of plain ZOH (which says so in one note)
rho() { awk '$1 == "rho" { print $2 }' "$1"; }
"$COSA" point --scheme zoh+mbcorr --dt 1e-4 >"$tmp/a"
"$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume ck=4e5 >"$tmp/b" 2>"$tmp/err"
[ -n "$(rho "$tmp/a")" ] && [ "$(rho "$tmp/a")" != "$(rho "$tmp/b")" ] && [ ! -s "$tmp/err" ] && ok ||
    bad "--assume ck=4e5 should change rho of ZOH+MBCorr: $(rho "$tmp/a") vs $(rho "$tmp/b")"
"$COSA" point --scheme zoh --dt 1e-4 >"$tmp/a"
"$COSA" point --scheme zoh --dt 1e-4 --assume ck=4e5 >"$tmp/b" 2>"$tmp/err"
st=$?
[ "$st" = 0 ] && [ -n "$(rho "$tmp/a")" ] && [ "$(rho "$tmp/a")" = "$(rho "$tmp/b")" ] && ok ||
    bad "--assume should leave rho of plain ZOH alone: $(rho "$tmp/a") vs $(rho "$tmp/b") (exit $st)"
grep -qxF 'cosa: point: note: --assume has no effect on ZOH (no output correction)' "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "plain ZOH with --assume: note expected, got: $(cat "$tmp/err")"
"$COSA" point --scheme p1+ecorr --dt 1e-4 --assume ck=4e5 >/dev/null 2>"$tmp/err"
grep -q 'no effect on FOH+ecorr' "$tmp/err" && ok || bad "+ecorr is model-free: $(cat "$tmp/err")"
# bad --assume: one line, exit 2 (unknown parameter named; initial states refused)
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume nosuch=1
grep -qxF "cosa: point: --assume: model 'twomass' has no parameter 'nosuch'" "$tmp/err" && ok ||
    bad "unknown assumed parameter: $(cat "$tmp/err")"
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume v1=3
grep -q "initial state" "$tmp/err" && ok || bad "assumed initial state: $(cat "$tmp/err")"
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume ck=nan
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume ck
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume ck=1e5x
expect_exit 2 "$COSA" limit --scheme zoh+mbcorr --criterion stable --assume nosuch=1
expect_exit 2 "$COSA" converge --scheme zoh+mbcorr --assume nosuch=1
expect_exit 2 "$COSA" table --paper mbcorr --table 1 --assume nosuch=1
expect_exit 2 "$COSA" point --model chain --scheme foh+mbcorr --dt 1e-3 --assume n=3
expect_exit 2 "$COSA" demo --assume ck=1
expect_exit 2 "$COSA" phi --scheme zoh+mbcorr --dt 1e-4 --assume nosuch=1
# phi --assume: the x rows (0..3) are those of the true Phi, the ybar rows are not
"$COSA" phi --scheme zoh+mbcorr --dt 1e-4 | grep -v '^#' >"$tmp/phi0"
"$COSA" phi --scheme zoh+mbcorr --dt 1e-4 --assume ck=4e5 >"$tmp/phi1.all"
grep -q '^# assume ck 400000$' "$tmp/phi1.all" && ok || bad "phi --assume: no '# assume' line"
grep -v '^#' "$tmp/phi1.all" >"$tmp/phi1"
[ "$(head -4 "$tmp/phi0")" = "$(head -4 "$tmp/phi1")" ] && ok || bad "phi --assume changed the x rows"
[ "$(sed -n 5,7p "$tmp/phi0")" != "$(sed -n 5,7p "$tmp/phi1")" ] && ok || bad "phi --assume left the ybar rows"
# an assumed value outside the parameter's range fails as --set would (exit 2)
expect_exit 2 "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume m1=0
grep -qxF "cosa: point: --assume m1=0: m1 must be > 0" "$tmp/err" &&
    ok || bad "rejected assumed model: $(cat "$tmp/err")"
# an assumed model whose correction is not solvable: G_p = c dt exactly for
# the integrator (a = 0) and the gain g = 1/(c dt) closes I - G_p L to zero;
# the point fails with its reason, exit 1, as the same model given with --set
cat >"$tmp/loop.cosa" <<EOF_MODEL
model loop
tend 1
param a = 1
param c = 0.5
param g = 0.5
initial x0 = 1
subsystem P
  states x
  inputs v
  outputs w
  A = [ -a ]
  B = [ 1 ]
  C = [ c ]
  D = zeros
  x0 = [ x0 ]
end
$(model_sub G '' u y D=g)
connect G.y -> P.v
connect P.w -> G.u
EOF_MODEL
expect_exit 0 "$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh+mbcorr --dt 0.25
expect_exit 1 "$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh+mbcorr --dt 0.25 \
    --set a=0 --set c=4 --set g=1
cp "$tmp/err" "$tmp/err_set"
expect_exit 1 "$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh+mbcorr --dt 0.25 \
    --assume a=0 --assume c=4 --assume g=1
grep -q 'I - G_p L is singular' "$tmp/err" && cmp -s "$tmp/err" "$tmp/err_set" && ok ||
    bad "singular assumed correction: $(cat "$tmp/err") vs $(cat "$tmp/err_set")"
expect_exit 0 "$COSA" point --model-file "$tmp/loop.cosa" --scheme zoh --dt 0.25 \
    --assume a=0 --assume c=4 --assume g=1
# table 4 (nonlinear, online linearisation) refuses --assume
expect_exit 2 "$COSA" table --paper mbcorr --table 4 --assume dk=1
grep -q 'table 4' "$tmp/err" && ok || bad "table 4 --assume: $(cat "$tmp/err")"
for sub in point limit converge table; do
    "$COSA" $sub --help | grep -q -- '--assume NAME=VALUE' && ok || bad "$sub --help lacks --assume"
done

# bad input: one line on stderr, exit 2
expect_exit 2 "$COSA"
expect_exit 2 "$COSA" nosuch
expect_exit 2 "$COSA" point --scheme zohh --dt 1e-4
expect_exit 2 "$COSA" point --scheme p9 --dt 1e-4
expect_exit 2 "$COSA" point --scheme zoh --dt -1e-4
expect_exit 2 "$COSA" point --scheme zoh --dt 0
expect_exit 2 "$COSA" point --scheme zoh --dt nan
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4x
expect_exit 2 "$COSA" point --scheme zoh
expect_exit 2 "$COSA" point --dt 1e-4
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --set ck=nan
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --set ck=inf
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --set nosuch=1
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --set ck
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --model nosuch
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --bogus
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 extra
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --alpha abc
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --set m1=0
expect_exit 2 "$COSA" point --scheme gs:zoh+mbcorr --dt 1e-4
expect_exit 2 "$COSA" models extra
expect_exit 2 "$COSA" limit --scheme zoh
expect_exit 2 "$COSA" limit --scheme zoh --criterion sturdy
expect_exit 2 "$COSA" limit --scheme zoh --criterion stable --dt-min 1e-2 --dt-max 1e-3
expect_exit 2 "$COSA" limit --scheme zoh --criterion accurate --tol -1
expect_exit 2 "$COSA" limit --scheme zoh --criterion stable --dt 1e-4
expect_exit 2 "$COSA" converge --scheme zoh --points 1
expect_exit 2 "$COSA" converge --scheme zoh --dt-max 1
expect_exit 2 "$COSA" table --paper mbcorr --table 5
expect_exit 2 "$COSA" table --paper other --table 1
expect_exit 2 "$COSA" table --paper mbcorr --table 1 --format xml
expect_exit 2 "$COSA" table --paper mbcorr --table 1 --pairs 1e5
expect_exit 2 "$COSA" table --paper mbcorr --table 1 --scheme zoh
expect_exit 2 "$COSA" point --scheme zoh --dt 1 --tend 0.3

# ---- issue 14 findings fixed here: strict numbers, lists, models, --name ------------
expect_exit 2 "$COSA" point --scheme zoh --dt 0x10
expect_exit 2 "$COSA" point --scheme zoh --dt " 1e-3"
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-3 --set ck=infinity
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3,,1e-4 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3, --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3,1e-3 --scheme zoh -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3 --scheme zoh,ZOH -o "$tmp/u"
expect_exit 2 "$COSA" table --paper mbcorr --table 1 --pairs ""
expect_exit 2 "$COSA" models --set x
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 --name "a b" -o "$tmp/u"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3 --scheme zoh --name ../x -o "$tmp/u"
expect_exit 2 "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh --name 'q"x' -o "$tmp/u"
expect_exit 0 "$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh --name fig_1.5-a -o "$tmp/u"
# cosa models lists the nonlinear models in a section of their own
"$COSA" models >"$tmp/out"
grep -q '^Nonlinear models' "$tmp/out" && grep -q '^twomass-nl: ' "$tmp/out" && ok ||
    bad "cosa models lacks the nonlinear section"

# rho is defined where the NRMSE is not: one macro step in the horizon, more
# steps than the error sums take, outputs that do not move -> rho, rho_ref,
# stable, e_* nan and a note saying why, exit 0
for args in "--dt 0.2" "--dt 1e-16"; do
    # shellcheck disable=SC2086
    "$COSA" point --scheme zoh $args >"$tmp/out" 2>"$tmp/err" && ok || bad "point $args failed: $(cat "$tmp/err")"
    grep -q '^rho 0\.' "$tmp/out" && grep -q '^stable ' "$tmp/out" && grep -q '^e_global nan$' "$tmp/out" &&
        grep -q '^note ' "$tmp/out" && ok || bad "point $args: $(cat "$tmp/out")"
done
cat >"$tmp/still.cosa" <<EOM
model still
tend 1
$(model_sub I a u y A=0 B=0 C=1 D=0 x0=1)
$(model_sub II b v z A=0 B=0 C=1 D=0 x0=2)
connect I.y -> II.v
connect II.z -> I.u
EOM
"$COSA" point --model-file "$tmp/still.cosa" --scheme zoh --dt 0.1 >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^note all outputs constant' "$tmp/out" && grep -q '^rho 1$' "$tmp/out" && ok ||
    bad "point on constant outputs: $(cat "$tmp/out" "$tmp/err")"

# exit codes: bad input is 2, also a singular algebraic loop and an unstable
# reference (the system given cannot be analysed as asked)
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-3 --set c1=-1e6
grep -q 'monolithic reference is unstable' "$tmp/err" && ok || bad "unstable reference message: $(cat "$tmp/err")"
expect_exit 2 "$COSA" limit --scheme zoh --criterion accurate --set c1=-1e6
expect_exit 2 "$COSA" converge --scheme zoh --set c1=-1e6
sed -e 's/^model still/model loop1/' -e 's/A = \[ 0 \]/A = [ -1 ]/' -e 's/B = \[ 0 \]/B = [ 1 ]/' \
    -e 's/D = \[ 0 \]/D = [ 1 ]/' "$tmp/still.cosa" >"$tmp/loop1.cosa"
expect_exit 2 "$COSA" point --model-file "$tmp/loop1.cosa" --scheme zoh --dt 0.1
grep -q 'algebraic loop not solvable' "$tmp/err" && ok || bad "algebraic loop message: $(cat "$tmp/err")"

# -o naming a file: "not a directory", exit 2, before any computation (no stdout)
: >"$tmp/plainfile"
expect_exit 2 "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 -o "$tmp/plainfile"
grep -q 'not a directory' "$tmp/err" && ok || bad "-o file: $(cat "$tmp/err")"
expect_exit 2 "$COSA" map --x ck=1:10:log:2 --y dk=1:10:log:2 --dt 1e-3 --scheme zoh -o "$tmp/plainfile"

# a single-valued option given twice is an error (the last no longer wins silently);
# --set and --assume are repeatable
expect_exit 2 "$COSA" point --scheme zoh --scheme foh --dt 1e-3
grep -q 'option --scheme given twice' "$tmp/err" && ok || bad "repeated option: $(cat "$tmp/err")"
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-3 --dt 1e-4
expect_exit 2 "$COSA" point --scheme gs:foh --dt 1e-3 --order 2,1 --sequence 1,2
expect_exit 0 "$COSA" point --scheme zoh --dt 1e-3 --set ck=1e5 --set dk=1e2

# --help: "-h, --help" is the last line; commands that reject --dt (limit,
# converge, advise) do not list it; map and curve list --scheme and --dt once
for c in point limit converge map curve phi simulate advise; do
    [ "$("$COSA" $c --help | tail -n 1)" = "  -h, --help           this help" ] && ok || bad "$c --help: -h is not last"
done
for c in limit converge advise; do
    "$COSA" $c --help | grep -q '^  --dt DT ' && bad "$c --help lists --dt" || ok
done
for c in map curve; do
    [ "$("$COSA" $c --help | grep -c '^  --scheme ')" = 1 ] && [ "$("$COSA" $c --help | grep -c '^  --dt ')" = 1 ] &&
        ok || bad "$c --help lists --scheme or --dt twice"
done

# e_global at the rounding floor (~N eps of the rounding in Phi) gets a note
"$COSA" point --scheme zoh --dt 1e-14 >"$tmp/out" && grep -q '^note e_global is at or below the rounding floor' "$tmp/out" &&
    ok || bad "no rounding-floor note at dt = 1e-14: $(tail -2 "$tmp/out")"
"$COSA" point --scheme zoh --dt 1e-4 | grep -q '^note' && bad "a note at dt = 1e-4" || ok

# declared parameter ranges: the --set (or --assume) and the rule are named
expect_msg() { # expect_msg TEXT CMD...: exit 2, one line containing TEXT
    msg_want=$1
    shift
    expect_exit 2 "$@"
    grep -qF -- "$msg_want" "$tmp/err" && ok || bad "'$*': expected '$msg_want', got: $(cat "$tmp/err")"
}
expect_msg "--set m1=0: m1 must be > 0" "$COSA" point --scheme zoh --dt 1e-4 --set m1=0
expect_msg "--set n=0: n must be an integer in 1..1e5" "$COSA" point --model chain --scheme zoh --dt 1e-3 --set n=0
expect_msg "--set n=2.5: n must be an integer in 1..1e5" "$COSA" point --model chain --scheme zoh --dt 1e-3 --set n=2.5
expect_msg "--set r=7: r must be an integer in 1..n (n = 6)" "$COSA" point --model chain --scheme zoh --dt 1e-3 --set r=7
expect_msg "--set n=2: r must be an integer in 1..n (n = 2)" "$COSA" limit --model chain --scheme zoh --criterion stable --set n=2
expect_msg "--set nd=0: nd must be > 0" "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --set nd=0
expect_msg "--set dkmax=1: dkmax must be >= dkmin (dkmin = 10)" "$COSA" simulate --model twomass-nl --scheme zoh --dt 1e-3 --set dkmax=1
expect_msg "--assume m1=-1: m1 must be > 0" "$COSA" point --scheme zoh+mbcorr --dt 1e-4 --assume m1=-1
expect_msg "--set J1=0: J1 must be > 0" "$COSA" defect --model rotational-defect --integrator euler --in-order 0 --out-order 0 --dt 1e-2 --set J1=0
# springs and dampers may be negative (active elements): ck = -1 is computed
expect_exit 0 "$COSA" point --scheme zoh --dt 1e-4 --set ck=-1
# cosa models prints the ranges
"$COSA" models | grep -E '^  m1 +10 +kg +> 0 +mass 1$' >/dev/null && ok || bad "cosa models: no range column for m1"
"$COSA" models | grep -E '^  r +3 +integer, >= 1, <= n ' >/dev/null && ok || bad "cosa models: no range for chain r"
# a model file's ranges: --set checks them, the default is checked at load time
cat >"$tmp/range.cosa" <<EOM
param n = 4 (integer, >= 1, <= 10)
param k = 2 [N/m] (> 0, <= n)
$(model_sub P x u y A=-k B=1 C=1 D=0)
subsystem Q
  states z
  inputs w
  outputs q
  A = [ -n ]
  B = [ 1 ]
  C = [ 1 ]
  D = zeros
end
connect P.y -> Q.w
connect Q.q -> P.u
EOM
expect_exit 0 "$COSA" point --model-file "$tmp/range.cosa" --scheme zoh --dt 0.1
expect_msg "--set k=5: k must be > 0 and <= n (n = 4)" "$COSA" point --model-file "$tmp/range.cosa" --scheme zoh --dt 0.1 --set k=5
sed 's/param k = 2 /param k = 20 /' "$tmp/range.cosa" >"$tmp/range2.cosa"
expect_msg "range2.cosa:2: default of 'k' outside its range: k must be > 0 and <= n (n = 4)" "$COSA" point --model-file "$tmp/range2.cosa" --scheme zoh --dt 0.1

# a model without outputs (a file without inputs and outputs, chain with r = 1):
# one rule, one message in every subcommand: stability is computed, accuracy
# and time-domain runs are refused with the same line (point: nan and a note)
cat >"$tmp/lonely.cosa" <<EOM
param c = 1
$(model_sub S 'x v' '' '' 'A=0, 1; -c, 0')
EOM
for mod in "--model-file $tmp/lonely.cosa" "--model chain --set r=1"; do
    for c in "limit --scheme zoh --criterion stable" "phi --scheme zoh --dt 0.1" "demo" \
        "curve --x dt=0.01:0.1:log:3 --scheme zoh -o $tmp/lc" \
        "map --x c=1:2:lin:2 --y dt=0.01:0.1:log:2 --scheme zoh -o $tmp/lm"; do
        # shellcheck disable=SC2086
        expect_exit 0 "$COSA" $c $mod
    done
    # shellcheck disable=SC2086
    # nothing is exchanged, so the co-simulation is the monolithic system: rho = rho_ref
    # (both of exp(A dt), built by different routes: 1e-14 relative, ~50 eps)
    "$COSA" point --scheme zoh --dt 0.1 $mod >"$tmp/out" 2>&1 &&
        awk '$1 == "rho" { r = $2 } $1 == "rho_ref" { q = $2 } END { d = r - q; exit !(r > 0 && d * d <= 1e-28 * q * q) }' "$tmp/out" &&
        grep -q '^e_global nan$' "$tmp/out" && grep -qx 'note model has no outputs: accuracy (NRMSE) undefined' "$tmp/out" &&
        ok || bad "point without outputs: $(cat "$tmp/out")"
    for c in "limit --scheme zoh --criterion accurate" "converge --scheme zoh" "advise --tol 0.01" \
        "simulate --scheme zoh --dt 0.1" "curve --x dt=0.01:0.1:log:3 --scheme zoh --metric e_global -o $tmp/lc2" \
        "map --x c=1:2:lin:2 --y dt=0.01:0.1:log:2 --scheme zoh --metric e_local -o $tmp/lm2" \
        "defect --integrator euler --in-order 0 --out-order 0 --dt 0.1"; do
        # shellcheck disable=SC2086
        expect_msg "has no outputs: accuracy (NRMSE) and time-domain runs are undefined (stability: cosa point, limit --criterion stable, map, curve)" \
            "$COSA" $c $mod
    done
done
[ ! -e "$tmp/lc2" ] && [ ! -e "$tmp/lm2" ] && ok || bad "refused map/curve left a directory"

# settings are echoed in the shortest form that reads back to the same double
"$COSA" point --scheme zoh --dt 3.16e-4 | grep -qx 'dt 0.000316' && ok || bad "point: dt not shortest"
"$COSA" limit --scheme zoh --criterion accurate --tend 0.3 | grep -qx 'tol 0.01' && ok || bad "limit: tol not shortest"
"$COSA" simulate --scheme zoh --dt 1e-3 --tend 0.01 | grep -qx 'tend 0.01' && ok || bad "simulate: tend not shortest"
for v in 0.1 0.33333333333333331 1.0000000000000002e-05 3e-300 123456789 0.000316; do
    got=$("$COSA" point --scheme zoh --tend 1e300 --dt "$v" 2>/dev/null | awk '$1 == "dt" { print $2 }')
    # the same double: compared as %.17g of both (awk reads doubles)
    awk -v a="$got" -v b="$v" 'BEGIN { exit !(a != "" && sprintf("%.17g", a) == sprintf("%.17g", b)) }' &&
        ok || bad "dt $v echoed as '$got'"
done

# --progress: stdout unchanged, stderr ends with the closing line, exit 0
for c in "point --scheme zoh --dt 1e-3" "limit --scheme zoh --criterion stable" \
    "converge --scheme zoh --points 4" "advise --tol 0.01 --schemes zoh,foh" \
    "simulate --scheme zoh --dt 1e-3 --tend 0.01"; do
    name=${c%% *}
    # shellcheck disable=SC2086
    "$COSA" $c >"$tmp/plain" 2>/dev/null
    # shellcheck disable=SC2086
    if "$COSA" $c --progress >"$tmp/prog" 2>"$tmp/progerr" && cmp -s "$tmp/plain" "$tmp/prog" &&
        tail -n 1 "$tmp/progerr" | grep -Eq "^$name: done in [0-9.]+ s \(" && ! grep -q '^cosa:' "$tmp/progerr"; then
        ok
    else
        bad "$name --progress: $(cat "$tmp/progerr")"
    fi
done
"$COSA" bench --grid 4 --egrid 2 --scheme zoh --dt 1e-3 --threads 1 --progress 2>"$tmp/progerr" >/dev/null &&
    grep -q '^bench: rho ZOH, 1 thread: 16 points in' "$tmp/progerr" && ok || bad "bench --progress: $(cat "$tmp/progerr")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
