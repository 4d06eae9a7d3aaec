#!/bin/sh
# test_opt_cli.sh -- the table-driven command line (analysis/opt_table.c) as
# the commands use it: --help lists every option the command accepts (and
# every option listed is accepted); a bad value of each kind of row is one
# line "cosa: CMD: ..." naming the option and the value, exit 2, nothing on
# stdout; requires, excludes, required rows, twice-given and missing values;
# a deprecated spelling; options from an @FILE give the same stdout as on the
# command line and errors in them name FILE:LINE.
. "$(dirname "$0")/harness.sh"

# ---- help <-> rows ----------------------------------------------------------
# The options each command took before the tables (its getopt arrays and the
# shared ones it used): every one must be in --help, and every option --help
# lists must be accepted (the error, if any, must not call it unknown).
common="model model-file set alpha sequence iterations relax help"
opts_point="$common assume scheme dt tend energy rate start integrator progress"
opts_phi="$common assume scheme dt ref"
opts_demo="model model-file set dt help"
opts_limit="$common assume scheme criterion tol dt-min dt-max per-decade tend progress"
opts_converge="$common assume scheme dt-min dt-max points tend progress"
opts_advise="$common assume tol error tend schemes dt-min dt-max per-decade cost-mbcorr iter-tol cost-rollback robust format output plot progress"
opts_table="paper table format pairs set assume dt dt-min dt-max tol tend help"
opts_map="$common assume x y dt scheme metric level tend threads output name plot heatmap format progress adaptive coarse margin"
opts_curve="$common assume x dt scheme metric level tend threads output name plot progress adaptive coarse margin"
opts_bench="$common scheme dt grid egrid threads progress"
opts_models="model-file help"
opts_model_dump="model model-file set output help"
opts_linearize="model-file set jacobian output help"
opts_convert="help"
opts_fmu_info="name help"
for c in point phi demo limit converge advise table map curve bench models model-dump linearize convert fmu-info; do
    "$COSA" "$c" --help >"$tmp/help" 2>"$tmp/err" || { bad "$c --help failed: $(cat "$tmp/err")"; continue; }
    eval "want=\$opts_$(echo "$c" | tr - _)"
    for o in $want; do
        grep -qE -- "^  (-[a-z], )?--$o( |$)" "$tmp/help" && ok || bad "$c --help lacks --$o"
    done
    # every listed option is known to the parser (given without its value or
    # with a dummy one, it may be refused, but not as unknown)
    for o in $(sed -nE 's/^  (-[a-z], )?--([a-z][a-z0-9-]*).*/\2/p' "$tmp/help"); do
        [ "$o" = help ] && continue
        "$COSA" "$c" "--$o" >/dev/null 2>"$tmp/err"
        if grep -q "unknown option '--$o'" "$tmp/err"; then bad "$c lists --$o but does not know it"; else ok; fi
    done
    [ "$(tail -n 1 "$tmp/help")" = "  -h, --help           this help" ] && ok || bad "$c --help: -h is not last"
done

# ---- bad values: one line naming the option and the value, exit 2 ---------------
# refuse WANT ARGS...: exit 2, exactly one line on stderr that is "cosa: ..." and
# contains WANT, nothing on stdout
refuse() {
    want=$1
    shift
    "$COSA" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] || { bad "exit $rc (want 2): $*"; return; }
    [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^cosa: ' "$tmp/err" ||
        { bad "not one 'cosa:' line: $* -> $(cat "$tmp/err")"; return; }
    grep -qF -- "$want" "$tmp/err" && ok || bad "'$want' not in: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && bad "stdout on error: $*"
    return 0
}
P="point --scheme zoh --dt 1e-3"
# positive number, number, number >= 0
refuse "cosa: point: --tend must be a positive finite number, got 'x'" $P --tend x
refuse "--tend must be a positive finite number: '10^400' overflows" $P --tend 10^400
refuse "cosa: point: --alpha must be a finite number, got 'nan'" $P --alpha nan
refuse "cosa: advise: --cost-mbcorr must be a finite number >= 0, got '-1'" advise --tol 1e-2 --cost-mbcorr -1
# integer in a range, positive integer
refuse "cosa: limit: --per-decade must be an integer in 1..1000, got '2.5'" limit --scheme zoh --criterion stable --per-decade 2.5
refuse "cosa: converge: --points must be an integer in 2..100000, got '1'" converge --scheme zoh --points 1
refuse "cosa: bench: --grid must be a positive integer, got '0'" bench --grid 0
# a name from a table
refuse "cosa: limit: --criterion must be one of stable, accurate, local, iteration; got 'sturdy'" limit --scheme zoh --criterion sturdy
refuse "cosa: map: --format must be one of text, bin, json; got 'xml'" map --format xml
refuse "cosa: linearize: --jacobian must be one of dd, fd; got 'ad'" linearize --jacobian ad
refuse "cosa: table: --paper must be one of mbcorr, energy; got 'x'" table --paper x
# path, list, NAME=VALUE, flag
refuse "cosa: model-dump: --output needs a non-empty path" model-dump -o ""
set -- $P --energy
i=0
while [ $i -lt 17 ]; do set -- "$@" --rate II=1; i=$((i + 1)); done
refuse "cosa: point: too many --rate options (at most 16)" "$@"
refuse "cosa: point: --set expects NAME=VALUE, got 'ck'" $P --set ck
refuse "cosa: point: --set ck: 'x' is not a finite number" $P --set ck=x
refuse "cosa: phi: option '--ref' takes no value, got '--ref=1'" phi --scheme zoh --dt 1e-3 --ref=1
# the command line itself
refuse "cosa: limit: unknown option '--bogus' (see 'cosa limit --help')" limit --bogus 1
refuse "cosa: point: option '--tend' needs a value (see 'cosa point --help')" $P --tend
refuse "cosa: point: option --dt given twice (it takes one value)" $P --dt 1e-4
refuse "cosa: point: option --sequence given twice" point --scheme gs:foh --dt 1e-3 --order 2,1 --sequence 1,2
refuse "cosa: point: unexpected argument 'extra'" $P extra
# fmu-info: options before and after FILE.fmu (as getopt_long took them), each once
refuse "cosa: fmu-info: unknown option '--bogus' (see 'cosa fmu-info --help')" fmu-info --bogus x.fmu
refuse "cosa: fmu-info: option '--name' needs a value" fmu-info x.fmu --name
refuse "cosa: fmu-info: option --name given twice (it takes one value)" fmu-info --name A x.fmu --name B
refuse "cosa: fmu-info: one FMU at a time" fmu-info x.fmu --name A y.fmu
# --name is the SUB of a model file's 'fmu SUB = FILE.fmu': a name, not empty
refuse "cosa: fmu-info: --name '': a subsystem name is expected" fmu-info --name '' x.fmu
refuse "cosa: fmu-info: --name '1a': a subsystem name is expected" fmu-info x.fmu --name 1a
# an empty option name (--=VALUE) is no prefix of every option
refuse "cosa: simulate: unknown option '--=x'" simulate --=x
refuse "cosa: map: option '--s' is ambiguous" map --s zoh
# requires, excludes, required
refuse "cosa: point: --rate needs --energy (the energy paper's coupling)" $P --rate II=2
refuse "cosa: curve: --coarse needs --adaptive" curve --x dt=1e-4:1e-3:log:3 --scheme zoh --coarse 3
refuse "cosa: advise: --plot needs --output (the picture goes next to the table)" advise --tol 1e-2 --plot png
refuse "cosa: point: --model-file excludes --model (give one of them)" $P --model twomass --model-file x.cosa
refuse "cosa: limit: --criterion is required (see 'cosa limit --help')" limit --scheme zoh
refuse "cosa: map: --y is required (see 'cosa map --help')" map --x ck=1:2:lin:2 --scheme zoh --dt 1e-3

# ---- accepted spellings: --opt=value, a unique prefix, -oDIR, the deprecated --order
"$COSA" point --scheme zoh --dt 1e-3 --tend 0.01 >"$tmp/a" 2>&1 &&
    "$COSA" point --scheme=zoh --dt=1e-3 --te 0.01 >"$tmp/b" 2>&1 &&
    cmp -s "$tmp/a" "$tmp/b" && ok || bad "--opt=value / prefix spelling differs: $(diff "$tmp/a" "$tmp/b" | head -3)"
"$COSA" point --scheme gs:foh --dt 1e-4 --order 2,1 >"$tmp/a" 2>"$tmp/e" &&
    "$COSA" point --scheme gs:foh --dt 1e-4 --sequence 2,1 >"$tmp/b" 2>/dev/null &&
    cmp -s "$tmp/a" "$tmp/b" && [ "$(wc -l <"$tmp/e")" = 1 ] &&
    grep -q '^cosa: point: note: --order is deprecated.*use --sequence$' "$tmp/e" && ok ||
    bad "--order as the deprecated --sequence: $(cat "$tmp/e")"

# ---- @FILE: the same stdout as the command line; errors name FILE:LINE -----------
printf '%s\n' '# limit of FOH+MBCorr' '--scheme foh+mbcorr' '--criterion=accurate' \
    '--dt-min 1e-6   # scan from here' '--per-decade 5' >"$tmp/limit.args"
"$COSA" limit --scheme foh+mbcorr --criterion accurate --dt-min 1e-6 --per-decade 5 >"$tmp/a" 2>&1 &&
    "$COSA" limit @"$tmp/limit.args" >"$tmp/b" 2>&1 && [ -s "$tmp/a" ] &&
    cmp -s "$tmp/a" "$tmp/b" && ok || bad "limit @FILE differs: $(diff "$tmp/a" "$tmp/b" | head -3)"
printf '%s\n' '--x dt=1e-4:1e-3:log:3' '--scheme zoh,foh' "-o $tmp/c1" '--threads 1' >"$tmp/curve.args"
"$COSA" curve --x dt=1e-4:1e-3:log:3 --scheme zoh,foh -o "$tmp/c2" --threads 1 >/dev/null 2>&1 &&
    "$COSA" curve @"$tmp/curve.args" >/dev/null 2>&1 &&
    cmp -s "$tmp/c1/rho_vs_dt.dat" "$tmp/c2/rho_vs_dt.dat" && ok || bad "curve @FILE: data files differ"
printf '%s\n' '--scheme zoh' '--criterion stable' '' '--per-decade 0' >"$tmp/bad.args"
refuse "cosa: limit: $tmp/bad.args:4: --per-decade must be an integer in 1..1000, got '0'" limit @"$tmp/bad.args"
printf '%s\n' '--scheme zoh' '--criterion stable' >"$tmp/twice.args"
refuse "cosa: limit: $tmp/twice.args:2: option --criterion given twice" limit --criterion local @"$tmp/twice.args"

echo "opt cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
