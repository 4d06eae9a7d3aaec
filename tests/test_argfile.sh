#!/bin/sh
# test_argfile.sh -- options from a file, `cosa SUBCOMMAND @FILE` (issue 23
# item 4, analysis/argfile.c): the same options from a file and from the
# command line print byte-identical stdout (simulate, point, map -- and map's
# files are byte-identical too); comments, blank lines, "--opt value",
# "--opt=value", CRLF line ends; errors are one line naming FILE:LINE, exit 2,
# nothing on stdout.
. "$(dirname "$0")/harness.sh"

# run_cmp NAME: stdout of $tmp/cl.sh and $tmp/af.sh (two command lines) byte-identical,
# but for the wall-clock lines (map's `seconds`, simulate's `seconds_*`): they measure
# the machine, not the options
run_cmp() {
    sh "$tmp/cl.sh" >"$tmp/r1" 2>"$tmp/e1" || { bad "$1: command line failed: $(cat "$tmp/e1")"; return; }
    sh "$tmp/af.sh" >"$tmp/r2" 2>"$tmp/e2" || { bad "$1: @file failed: $(cat "$tmp/e2")"; return; }
    grep -v '^seconds' "$tmp/r1" >"$tmp/o1"
    grep -v '^seconds' "$tmp/r2" >"$tmp/o2"
    [ -s "$tmp/o1" ] || { bad "$1: no output"; return; }
    cmp -s "$tmp/o1" "$tmp/o2" && ok || bad "$1: stdout differs: $(diff "$tmp/o1" "$tmp/o2" | head -5)"
}

# ---- simulate: comments, blank lines, both option forms, a trailing comment, CRLF
printf '%s\n' '# a small run of the two-mass oscillator' '' '--model twomass' \
    '  --set ck=2e5   # the coupling spring' '--set=dk=5e2' '--scheme foh+mbcorr' \
    '--dt=1e-4' '--tend 0.005' >"$tmp/sim.args"
echo "'$COSA' simulate --model twomass --set ck=2e5 --set dk=5e2 --scheme foh+mbcorr --dt 1e-4 --tend 0.005" >"$tmp/cl.sh"
echo "'$COSA' simulate @'$tmp/sim.args'" >"$tmp/af.sh"
run_cmp "simulate"
# the file in the middle of the command line, CRLF line ends
printf -- '--set ck=2e5\r\n--set dk=5e2\r\n' >"$tmp/crlf.args"
echo "'$COSA' simulate --model twomass @'$tmp/crlf.args' --scheme foh+mbcorr --dt 1e-4 --tend 0.005" >"$tmp/af.sh"
run_cmp "simulate, CRLF file between options"

# ---- point
printf '%s\n' '--scheme zoh+mbcorr' '--dt 3.16e-4' '--set ck=1e9' '--set dk=3.6e5' >"$tmp/point.args"
echo "'$COSA' point --scheme zoh+mbcorr --dt 3.16e-4 --set ck=1e9 --set dk=3.6e5" >"$tmp/cl.sh"
echo "'$COSA' point @'$tmp/point.args'" >"$tmp/af.sh"
run_cmp "point"

# ---- map: stdout (it names the files) and the files themselves
printf '%s\n' '--x ck=1e3:1e9:log:3' '--y dk=1:1e5:log:2' '--dt 1e-3' '--scheme zoh,foh' \
    "-o $tmp/m" '--threads 1' >"$tmp/map.args"
echo "'$COSA' map --x ck=1e3:1e9:log:3 --y dk=1:1e5:log:2 --dt 1e-3 --scheme zoh,foh -o '$tmp/m' --threads 1" >"$tmp/cl.sh"
echo "'$COSA' map @'$tmp/map.args'" >"$tmp/af.sh"
sh "$tmp/cl.sh" >/dev/null 2>&1 && cp -r "$tmp/m" "$tmp/m1" && rm -rf "$tmp/m" || bad "map (command line) failed"
run_cmp "map"
for f in "$tmp"/m1/*; do
    cmp -s "$f" "$tmp/m/${f##*/}" && ok || bad "map: ${f##*/} differs between the two runs"
done
[ -n "$(ls "$tmp/m1")" ] && ok || bad "map wrote no files"

# ---- errors: one line "cosa: SUB: ...", exit 2, nothing on stdout
# err WANT ARGS...: WANT in the line (harness.sh)
err() { usage_error "$@"; }
printf '%s\n' '# line 1' '--model twomass' '--foo 3' >"$tmp/bad.args"
err "cosa: simulate: $tmp/bad.args:3: unknown option '--foo'" simulate @"$tmp/bad.args" --scheme zoh --dt 1e-3
printf '%s\n' '--scheme zoh' '' '--dt 1e-3' 'stray' >"$tmp/stray.args"
err "cosa: point: $tmp/stray.args:4: unexpected argument 'stray'" point @"$tmp/stray.args"
err "cosa: point: @$tmp/none.args: cannot read the option file" point --scheme zoh @"$tmp/none.args"
printf '%s\n' '--scheme zoh' "@$tmp/point.args" >"$tmp/nest.args"
err "cosa: point: $tmp/nest.args:2: option files do not nest" point @"$tmp/nest.args"
err "cosa: map: '@' without a file name" map @
# every number option is parsed by the option table: its @FILE line is named
# (--dt of point, simulate, table; --dt lists, --tend, --level of map and curve)
printf '%s\n' '--scheme zoh' '--dt 0' >"$tmp/dt.args"
err "cosa: point: $tmp/dt.args:2: --dt must be a positive finite number, got '0'" point @"$tmp/dt.args"
err "cosa: simulate: $tmp/dt.args:2: --dt must be a positive finite number, got '0'" simulate @"$tmp/dt.args"
printf '%s\n' '--dt 1e-3,x' >"$tmp/dtl.args"
err "cosa: map: $tmp/dtl.args:1: --dt must be positive finite numbers, got 'x'" map --x ck=1:10:log:3 --y dk=1:10:log:3 --scheme zoh @"$tmp/dtl.args"
printf '%s\n' '--dt 1e-3:0:log:3' >"$tmp/dtr.args"
err "cosa: map: $tmp/dtr.args:1: --dt expects DT[,DT...] or LO:HI:log|lin:N with positive steps, got '1e-3:0:log:3'" map --x ck=1:10:log:3 --y dk=1:10:log:3 --scheme zoh @"$tmp/dtr.args"
printf '%s\n' '--tend -1' >"$tmp/te.args"
err "cosa: curve: $tmp/te.args:1: --tend must be a positive finite number, got '-1'" curve --x dt=1e-4:1e-3:log:3 --scheme zoh @"$tmp/te.args"
printf '%s\n' '--level 1e999' >"$tmp/lv.args"
err "cosa: map: $tmp/lv.args:1: --level must be a finite number: '1e999' overflows" map --x ck=1:10:log:3 --y dk=1:10:log:3 --scheme zoh --dt 1e-3 @"$tmp/lv.args"
printf '%s\n' '--pairs 2e5:5e2' '--format csv' '--dt 0' >"$tmp/tb.args"
err "cosa: table: $tmp/tb.args:3: --dt must be a positive finite number, got '0'" table --paper mbcorr --table 1 @"$tmp/tb.args"
printf 'x\000y\n' >"$tmp/nul.args"
err "cosa: point: $tmp/nul.args:1: a NUL byte" point @"$tmp/nul.args"
# defect parses its own options: its errors name FILE:LINE too
printf '%s\n' '--model twomass' '--bogus' >"$tmp/d.args"
err "cosa: defect: $tmp/d.args:2: unknown option '--bogus'" defect @"$tmp/d.args"
# every number option is checked by the option table: an error about one from
# a file names FILE:LINE (the same words as on the command line); the file's
# last line holds the bad value, so the line number is the count of lines
# argline CMD MESSAGE LINE... : the lines to $tmp/n.args, then the error
argline() {
    c=$1 msg=$2
    shift 2
    printf '%s\n' "$@" >"$tmp/n.args"
    err "cosa: $c: $tmp/n.args:$#: $msg" "$c" @"$tmp/n.args"
}
dm='--model rotational-defect'
argline defect "--dt must be a positive finite number, got '1x'" "$dm" '--integrator euler' '--in-order 0' '--out-order 0' '--dt 1x'
argline defect "--tol expects a positive value or LO:HI:log|lin:N" "$dm" '--integrator euler' '--in-order 0' '--out-order 0' '--tol 1:2:lon:3'
argline simulate "--micro must be a positive finite number, got '1x'" '--scheme zoh' '--dt 1e-3' '--micro 1x'
argline simulate "--iter-tol must be a number in (0, 1), got '1'" '--scheme imp:zoh' '--dt 1e-3' '--iter-tol 1'
argline simulate "--output-interval must be a positive finite number, got '-1'" '--scheme zoh' '--dt 1e-3' '--output-interval -1'
argline simulate "--mu must be a finite number or auto, got 'x'" '--model twomass-fd' '--scheme zoh' '--dt 1e-3' '--energy' '--mu x'
argline simulate "--limit must be a fraction >= 0 of the coupling force or none, got '-1'" '--model twomass-fd' '--scheme zoh' '--dt 1e-3' '--energy' '--mu auto' '--limit -1'
argline simulate "--limit-abs must be a force > 0, got '0'" '--model twomass-fd' '--scheme zoh' '--dt 1e-3' '--energy' '--mu auto' '--limit-abs 0'
argline simulate "--rate 1=0: K must be an integer 1..1000000" '--model twomass-fd' '--scheme zoh' '--dt 1e-3' '--rate 1=0'
argline point "--rate expects NAME=K, got 'x'" '--model twomass-fd' '--scheme zoh' '--dt 1e-3' '--energy' '--rate x'
argline point "--iterations must be an integer in 1..1000000 or inf, got '0'" '--scheme imp:zoh' '--dt 1e-3' '--iterations 0'
argline simulate "--iterations must be an integer in 1..1000000 or inf, got 'x'" '--scheme imp:zoh' '--dt 1e-3' '--iterations x'
argline point "--relax must be a finite nonzero number, got '0'" '--scheme imp:zoh' '--dt 1e-3' '--relax 0'
argline simulate "--relax aitken:W0 needs an initial factor W0 in (0, 2], got 'aitken:3'" '--scheme imp:zoh' '--dt 1e-3' '--relax aitken:3'
argline model-dump "--probe-step must be a positive finite number, got '0'" '--model-file x.cosa' '--probe-step 0'
argline demo "--dt must be a positive finite number, got 'x'" '--dt 1e-3,x'
argline bench "--threads must be an integer in 1..4096, got '0'" '--threads 1,0'
argline map "--x ck=1:10:log:2.5: N must be a whole number >= 1" '--scheme zoh' '--dt 1e-3' '--x ck=1:10:log:2.5'
argline map "--y expects NAME=LO:HI:log|lin:N, got 'dk=1:10:lag:3'" '--scheme zoh' '--dt 1e-3' '--x ck=1:10:log:3' '--y dk=1:10:lag:3'
argline curve "--x expects NAME=LO:HI:log|lin:N, got 'ck'" '--scheme zoh' '--dt 1e-3' '--x ck'
argline advise "--robust ck: need 0 < LO <= HI, got LO = 2, HI = 1" '--tol 1e-2' '--robust ck=2:1'
argline table "--pairs: '2e5:x' is not a pair of finite numbers" '--paper mbcorr' '--table 1' '--pairs 2e5:x'
# the same words on the command line (no FILE:LINE), and the values the
# checks accept still run: aitken, step, auto, none, inf
err "cosa: simulate: --micro must be a positive finite number, got '1x'" simulate --scheme zoh --dt 1e-3 --micro 1x
expect_exit 0 "$COSA" simulate --model twomass-fd --scheme zoh --dt 1e-3 --tend 0.01 --integrator symplectic-euler --micro step --energy --mu auto --limit none --limit-abs 100
expect_exit 0 "$COSA" simulate --scheme imp:zoh --dt 1e-3 --tend 0.01 --iterations inf --relax aitken:0.5 --iter-tol 1e-6
expect_exit 0 "$COSA" point --scheme imp:zoh --dt 1e-3 --iterations 3 --relax 0.9
# a value error from a file is the usual one-line error
printf '%s\n' '--scheme zoh' '--dt -1' >"$tmp/dt.args"
err "cosa: point: " point @"$tmp/dt.args"
# after "--" nothing is expanded: '@...' is an argument like any other
err "unexpected argument '@$tmp/point.args'" point --scheme zoh --dt 1e-3 -- @"$tmp/point.args"
# an unknown option on the command line names no file
err "cosa: simulate: unknown option '--foo'" simulate --foo

echo "test_argfile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
