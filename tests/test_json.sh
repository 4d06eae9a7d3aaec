#!/bin/sh
# test_json.sh -- `--format json` of point, converge, limit and simulate
# (doc/output-formats.md): valid strict JSON holding the text form's every
# number, bit for bit (tests/json_check.py, an independent reading of both),
# the text form unchanged by the option's existence, and a full stdout
# exit 1 in JSON too.
. "$(dirname "$0")/harness.sh"
[ -x /usr/bin/python3 ] || { echo "skip - no /usr/bin/python3"; exit 77; }
check=$(dirname "$0")/json_check.py

# CMD ARGS...: text and JSON of the same run, compared
both() {
    "$COSA" "$@" >"$tmp/t" 2>"$tmp/te" || { bad "text: cosa $*: $(cat "$tmp/te")"; return; }
    "$COSA" "$@" --format json >"$tmp/j" 2>"$tmp/je" || { bad "json: cosa $*: $(cat "$tmp/je")"; return; }
    "$COSA" "$@" --format text >"$tmp/t2" 2>/dev/null && cmp -s "$tmp/t" "$tmp/t2" && ok ||
        bad "--format text differs from the default: cosa $*"
    /usr/bin/python3 "$check" "$tmp/t" "$tmp/j" && ok || bad "cosa $* --format json"
}
both point --scheme zoh+mbcorr --dt 1e-4
both point --scheme zoh --dt 1e-4 --assume ck=4e5
both point --model chain --scheme foh --dt 1e-3
both point --scheme imp:foh --dt 1e-3
both converge --scheme foh --points 8
both limit --scheme p4 --criterion stable --dt-min 1e-6
both limit --scheme zoh+mbcorr --criterion accurate --tol 0.01 --dt-min 1e-6
both simulate --model twomass --scheme zoh --dt 1e-3
both simulate --model twomass --scheme zoh --dt 1e-3 -o "$tmp/s"
# the checker fails on a changed number (it can fail): one digit off
"$COSA" point --scheme zoh --dt 1e-4 >"$tmp/t"
"$COSA" point --scheme zoh --dt 1e-4 --format json | sed 's/"rho": 0\.9/"rho": 0.8/' >"$tmp/j"
/usr/bin/python3 "$check" "$tmp/t" "$tmp/j" >/dev/null && bad "json_check missed a changed rho" || ok
# failures stay failures: nothing on stdout, one line, the exit code
expect_exit 2 "$COSA" point --scheme zoh --dt 0 --format json
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --format xml
"$COSA" converge --scheme foh --points 8 --format json >/dev/full 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "converge --format json > /dev/full"
# the worked example of doc/output-formats.md runs as written (cosa on PATH)
doc=$(dirname "$0")/../doc/output-formats.md
awk '/^```sh$/ { on = 1; next } on && /^```$/ { exit } on' "$doc" >"$tmp/example.sh"
bindir=$(cd "$(dirname "$COSA")" && pwd)
[ -s "$tmp/example.sh" ] && PATH=$bindir:$PATH sh -e "$tmp/example.sh" >"$tmp/ex.out" 2>&1 &&
    grep -q '"command": "converge"' "$tmp/ex.out" && grep -q '^exit 2$' "$tmp/ex.out" &&
    grep -q '^exit 1$' "$tmp/ex.out" && ok || bad "doc/output-formats.md example: $(tail -3 "$tmp/ex.out")"
harness_done test_json
