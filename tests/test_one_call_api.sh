#!/bin/sh
# The one-call API (lib/cosa/api.h) against the command line:
#  - doc/one-call-api.md's C example is tests/api/simulate_fmus.c, verbatim,
#    and it simulates a model file of the test FMUs in four calls;
#  - it runs without a reference: its status, reference, steps and the
#    outputs at the end are, digit for digit (%.17g), those of 'cosa simulate
#    --ref none' on the same file (the same units and run: bitwise equal);
#  - an FMI 2.0 network and the foh+mbcorr scheme (Jacobians of the FMUs)
#    likewise; a bad file is one line and exit 1.
. "${COSA_SRCDIR:-.}/tests/fmu_env.sh"
EX=${COSA_API_EXAMPLE:-tests/api/simulate_fmus}

awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$COSA_SRCDIR/doc/one-call-api.md" >"$tmp/doc.c"
[ -s "$tmp/doc.c" ] && cmp -s "$tmp/doc.c" "$COSA_SRCDIR/tests/api/simulate_fmus.c" && ok ||
    bad "doc/one-call-api.md's first \`\`\`c block differs from tests/api/simulate_fmus.c"
calls=$(grep -o "cosa_case_[a-z_]*(" "$COSA_SRCDIR/tests/api/simulate_fmus.c" | sort -u | wc -l)
[ "$calls" -le 4 ] && ok || bad "the example calls $calls functions of the API, more than four"

for v in 3 2; do
    fmu_twomass "$tmp/net$v.cosa" twomass-fmu 0.3 twomass1_fmi$v.fmu twomass2_fmi$v.fmu
    "$EX" "$tmp/net$v.cosa" >"$tmp/api" 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok ||
        bad "FMI $v: the example failed: $(cat "$tmp/err")"
    mkdir -p "$tmp/o$v"
    "$COSA" simulate --model-file "$tmp/net$v.cosa" --scheme zoh --dt 1e-3 --tend 0.1 --ref none \
        -o "$tmp/o$v" >"$tmp/cli" 2>/dev/null || bad "FMI $v: cosa simulate failed"
    ! grep -q '^e_global' "$tmp/api" "$tmp/cli" && ok || bad "FMI $v: an e_global line without a reference"
    for k in status reference steps; do
        a=$(grep "^$k " "$tmp/api")
        b=$(grep "^$k " "$tmp/cli")
        [ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "FMI $v: '$a' vs simulate's '$b'"
    done
    # the last row of the trajectory file: the raw outputs y.* at t = 0.1
    csv=$tmp/o$v/twomass-fmu_zoh.csv
    hdr=$(grep -v '^#' "$csv" | head -1)
    last=$(tail -1 "$csv")
    n=0
    for name in $(awk '/^y\./ { print $1 }' "$tmp/api"); do
        col=$(echo "$hdr" | tr ',' '\n' | grep -nx "$name" | cut -d: -f1)
        want=$(echo "$last" | cut -d, -f"${col:-999}")
        got=$(awk -v k="$name" '$1 == k { print $2 }' "$tmp/api")
        [ -n "$col" ] && [ "$got" = "$want" ] && ok || bad "FMI $v: $name = $got, simulate's $want"
        n=$((n + 1))
    done
    [ "$n" = 3 ] && ok || bad "FMI $v: $n outputs, expected 3"
done

# a file that does not exist: one line naming it, exit 1
"$EX" "$tmp/none.cosa" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'none.cosa' "$tmp/err" && ok ||
    bad "missing file: $(cat "$tmp/err")"

fmu_env_done test_one_call_api
