#!/bin/sh
# test_advise.sh -- `cosa advise`: every row agrees with `cosa limit` run
# separately for each criterion (the smaller of the two is dt), steps and
# cost follow from dt, the recommendation is the row of least cost,
# --robust with the true model is the nominal table, and bad input gives one
# line and exit 2.
. "$(dirname "$0")/harness.sh"


range="--dt-min 1e-6 --dt-max 1e-2 --per-decade 10"
schemes=zoh,zoh+mbcorr,foh,foh+mbcorr,soh+mbcorr,gs:foh
set=" --set ck=2e5 --set dk=5e2"
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-3 --format csv --schemes $schemes $range $set >"$tmp/adv" 2>"$tmp/err" &&
    ok || bad "advise failed: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] && ok || bad "advise wrote to stderr: $(cat "$tmp/err")"
rows=$(grep -v '^scheme,' "$tmp/adv" | grep -c '^[a-zA-Z:0-9+]*,')
[ "$rows" = 6 ] && ok || bad "expected 6 table rows, got $rows"

# every row: dt_stable and dt_accurate are what `cosa limit` prints (the same
# computation, so the same %.17g digits), dt = min, steps = round(T/dt),
# cost = steps (plain) or 1.2 steps (corrected)
grep -E '^(gs:)?[A-Za-z0-9]+(\+[A-Za-z]+)?,' "$tmp/adv" | grep -v '^scheme,' |
    while IFS=, read -r s dts dta dt steps cost; do
        # shellcheck disable=SC2086
        ls=$("$COSA" limit --scheme "$s" --criterion stable $range $set | awk '$1 == "dt_max" { print $2 }')
        # shellcheck disable=SC2086
        la=$("$COSA" limit --scheme "$s" --criterion accurate --tol 1e-3 $range $set |
            awk '$1 == "dt_max" { print $2 }')
        if [ "$ls" = "$dts" ] && [ "$la" = "$dta" ]; then echo ok; else echo "bad $s: limit $ls $la vs advise $dts $dta"; fi
        awk -v s="$s" -v a="$dts" -v b="$dta" -v dt="$dt" -v n="$steps" -v c="$cost" 'BEGIN {
            m = (a + 0 < b + 0) ? a : b
            k = int(0.3 / m + 0.5)
            f = (s ~ /\+/) ? 1.2 : 1
            if (dt + 0 != m + 0) { print "bad " s ": dt " dt " is not min(" a ", " b ")"; exit }
            if (n + 0 != k) { print "bad " s ": steps " n " vs round(0.3/dt) = " k; exit }
            if ((c - n * f) > 1e-9 * c || (n * f - c) > 1e-9 * c) { print "bad " s ": cost " c; exit }
            print "ok" }'
    done >"$tmp/rows"
while read -r line; do
    case $line in ok) ok ;; *) bad "$line" ;; esac
done <"$tmp/rows"
[ "$(grep -c ok "$tmp/rows")" = 12 ] && ok || bad "row checks incomplete: $(cat "$tmp/rows")"

# sorted by cost; the recommendation is the first row
awk -F, '/^(gs:)?[A-Za-z0-9]+(\+[A-Za-z]+)?,/ && $1 != "scheme" { if ($6 + 0 < prev) bad = 1; prev = $6 + 0 }
    END { exit bad }' "$tmp/adv" && ok || bad "table not sorted by cost"
first=$(awk -F, '/^(gs:)?[A-Za-z0-9]+(\+[A-Za-z]+)?,/ && $1 != "scheme" { print $1 "," $4 "," $5; exit }' "$tmp/adv")
rec=$(awk '$1 == "recommend" { print $2 "," $4 "," $6 }' "$tmp/adv")
[ -n "$rec" ] && [ "$rec" = "$first" ] && ok || bad "recommend '$rec' is not the first row '$first'"

# --robust with factor 1 only: the robust columns equal the nominal ones
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-3 --format csv --schemes zoh+mbcorr,foh $range $set --robust ck=1:1 >"$tmp/rob" &&
    ok || bad "advise --robust failed"
awk -F, '/^(ZOH|FOH)/ { if ($4 != $7 || $5 != $8 || $6 != $9) bad = 1; n++ } END { exit bad || n != 2 }' \
    "$tmp/rob" && ok || bad "--robust ck=1:1 differs from nominal: $(cat "$tmp/rob")"
# a wrong model makes ZOH+MBCorr's robust step smaller, plain FOH's unchanged
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-3 --format csv --schemes zoh+mbcorr,foh $range $set --robust ck=0.25:4 >"$tmp/rob2" &&
    ok || bad "advise --robust 0.25:4 failed"
awk -F, '/^ZOH\+MBCorr/ { z = ($7 + 0 < $4 + 0) } /^FOH,/ { f = ($7 == $4) } END { exit !(z && f) }' \
    "$tmp/rob2" && ok || bad "--robust: expected a smaller robust step for ZOH+MBCorr only: $(cat "$tmp/rob2")"

# --assume: the assumed model of every corrected candidate; with ck = 2 x true
# it is the robust column of --robust ck=2:2
# shellcheck disable=SC2086
a1=$("$COSA" advise --tol 1e-3 --format csv --schemes zoh+mbcorr $range $set --assume ck=4e5 |
    awk -F, '/^ZOH\+MBCorr/ { print $4 }')
# shellcheck disable=SC2086
a2=$("$COSA" advise --tol 1e-3 --format csv --schemes zoh+mbcorr $range $set --robust ck=2:2 |
    awk -F, '/^ZOH\+MBCorr/ { print $7 }')
[ -n "$a1" ] && [ "$a1" = "$a2" ] && ok || bad "--assume ck=4e5 ($a1) vs --robust ck=2:2 ($a2)"
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-3 --schemes zoh $range $set --assume ck=4e5 >/dev/null 2>"$tmp/err"
grep -q '^cosa: advise: note: --assume has no effect' "$tmp/err" && ok || bad "no --assume note: $(cat "$tmp/err")"
expect_exit 2 "$COSA" advise --tol 1e-2 --assume nope=1

# markdown is the default; -o writes the table, data and script
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-2 --schemes zoh,zoh+mbcorr $range -o "$tmp/o" >"$tmp/md" && ok || bad "advise -o failed"
grep -q '^| scheme | dt_stable | dt_accurate | dt | steps | cost |$' "$tmp/md" && ok || bad "no markdown header"
for f in advise.md advise.dat advise.gp; do
    [ -s "$tmp/o/$f" ] && ok || bad "-o did not write $f"
done
if command -v gnuplot >/dev/null 2>&1; then
    (cd "$tmp/o" && gnuplot advise.gp) 2>"$tmp/gperr" && [ -s "$tmp/o/advise.png" ] && ok ||
        bad "gnuplot advise.gp: $(cat "$tmp/gperr")"
fi

# one table writer (analysis/table_writer.c, json_out.c): the JSON document holds the
# numbers of the CSV table to the bit (%.17g both: the same doubles), the notes and the
# recommendation of the text; the files of -o are what stdout shows
# shellcheck disable=SC2086
"$COSA" advise --tol 1e-3 --format json --schemes $schemes $range $set >"$tmp/adv.json" 2>"$tmp/err" &&
    ok || bad "advise --format json failed: $(cat "$tmp/err")"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/adv" "$tmp/adv.json" <<'PY' && ok || bad "advise: JSON and CSV differ"
import json, sys
text = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
rows = [l.split(",") for l in text if "," in l and not l.startswith("scheme,")]
cand = [c for c in doc["candidates"] if c["runnable"]]
assert len(rows) == len(cand) == 6, (len(rows), len(cand))
for r, c in zip(rows, cand):
    assert r[0] == c["scheme"], (r, c)
    for k, key in ((1, "dt_stable"), (2, "dt_accurate"), (3, "dt"), (5, "cost")):
        assert float(r[k]) == c[key], (r, key, c[key])
    assert int(r[4]) == c["steps"]
notes = [l[5:] for l in text if l.startswith("note ")]
assert notes == doc["notes"], (notes, doc["notes"])
rec = [l.split() for l in text if l.startswith("recommend ")][0]
best = doc["recommendation"]
assert rec[1] == best["scheme"] and float(rec[3]) == best["dt"] and int(rec[5]) == best["steps"]
PY
fi
for f in md csv; do
    # shellcheck disable=SC2086
    "$COSA" advise --tol 1e-3 --format $f --schemes zoh,foh+mbcorr $range $set -o "$tmp/o$f" >"$tmp/s$f" &&
        "$COSA" advise --tol 1e-3 --format json --schemes zoh,foh+mbcorr $range $set >"$tmp/j$f" &&
        grep -E '^(\||scheme,|[A-Za-z0-9:+]+,)' "$tmp/s$f" | cmp -s - "$tmp/o$f/advise.$f" &&
        cmp -s "$tmp/j$f" "$tmp/o$f/advice.json" && ok ||
        bad "advise -o ($f): the files are not what stdout shows: $(ls "$tmp/o$f")"
done
# every write checked: a full stdout is one line and exit 1 in every format (table and
# its energy form too); a file that cannot be written to the end (a file size limit:
# EFBIG) is one line naming it and exit 1, and nothing is left
for c in "advise --tol 1e-2 --schemes zoh,foh" "advise --tol 1e-2 --schemes zoh,foh --format csv" \
    "advise --tol 1e-2 --schemes zoh,foh --format json" \
    "table --paper mbcorr --table 1 --pairs 2e5:5e2" "table --paper energy --table mu"; do
    # shellcheck disable=SC2086
    "$COSA" $c >/dev/full 2>"$tmp/err"
    rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q '^cosa: [a-z]*: cannot write to standard output: No space left on device$' "$tmp/err" &&
        ok || bad "$c >/dev/full: exit $rc, $(cat "$tmp/err")"
done
for f in md csv; do
    (ulimit -f 1 && exec "$COSA" advise --tol 1e-2 --format $f -o "$tmp/full" >/dev/null 2>"$tmp/err")
    rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: advise: cannot write '.*/advise.$f': File too large\$" "$tmp/err" &&
        [ ! -e "$tmp/full" ] && ok ||
        bad "advise -o ($f) under ulimit -f 1: exit $rc, $(cat "$tmp/err"), left $(ls -A "$tmp/full" 2>/dev/null)"
done

# bad input
expect_exit 2 "$COSA" advise
expect_exit 2 "$COSA" advise --tol 0
expect_exit 2 "$COSA" advise --tol nan
expect_exit 2 "$COSA" advise --tol -1
expect_exit 2 "$COSA" advise --tol 1e-2 --schemes ""
expect_exit 2 "$COSA" advise --tol 1e-2 --schemes zoh,bogus
expect_exit 2 "$COSA" advise --tol 1e-2 --robust ck=0:2
expect_exit 2 "$COSA" advise --tol 1e-2 --robust ck=3:2
expect_exit 2 "$COSA" advise --tol 1e-2 --robust nope=1:2
expect_exit 2 "$COSA" advise --tol 1e-2 --robust s1=1:2
expect_exit 2 "$COSA" advise --tol 1e-2 --robust ck
expect_exit 2 "$COSA" advise --tol 1e-2 --error energy
expect_exit 2 "$COSA" advise --tol 1e-2 --format xml
expect_exit 2 "$COSA" advise --tol 1e-2 --scheme zoh
expect_exit 2 "$COSA" advise --tol 1e-2 --dt-min 1e-2 --dt-max 1e-3
expect_exit 2 "$COSA" advise --tol 1e-2 --cost-mbcorr -1
expect_exit 2 "$COSA" advise --tol 1e-2 --plot png
expect_exit 2 "$COSA" advise --tol 1e-2 --model twomass-nl
expect_exit 0 "$COSA" advise --help

harness_done test_advise.sh
