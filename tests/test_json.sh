#!/bin/sh
# test_json.sh -- `--format json` of point, converge, limit, simulate, estimate, phi, bench,
# curve and map
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
# estimate: its table (one macro step per DT) and the order and statistics lines
both estimate --model twomass --scheme soh --estimator exmilne --t0 1e-2 --dt 1e-4:1e-3:log:3
both estimate --model twomass --scheme zoh --estimator exslocal --t0 1e-2 --dt 1e-4,2e-4
# simulate -o: the JSON run also writes (and lists) NAME.json, the trajectory
"$COSA" simulate --model twomass --scheme zoh --dt 1e-3 -o "$tmp/s" >"$tmp/t" 2>"$tmp/te" &&
    "$COSA" simulate --model twomass --scheme zoh --dt 1e-3 -o "$tmp/s" --format json >"$tmp/j" \
        2>"$tmp/je" || bad "simulate -o: $(cat "$tmp/te" "$tmp/je")"
sed "s|^file \(.*\)\.csv\$|&\nfile \1.json|" "$tmp/t" >"$tmp/t2"
/usr/bin/python3 "$check" "$tmp/t2" "$tmp/j" && ok || bad "simulate -o --format json"
# curve --format json: BASE.json next to BASE.dat (unchanged), the same
# records, columns and comments, number for number
datajson() { # DAT JSON
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
def constant(c):
    sys.exit("not strict JSON: " + c)
lines = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]), parse_constant=constant)
cols = [l for l in lines if l.startswith("# columns:")][0].split()[2:]
com = [l.lstrip("#").lstrip(" ") for l in lines if l.startswith("#") and not l.startswith("# columns:")]
recs = [l.split() for l in lines if l.strip() and not l.startswith("#")]
def same(t, j):
    v = float(t)
    if isinstance(j, str):
        return j == "nan" and v != v or j in ("inf", "-inf") and float(j) == v
    return not isinstance(j, bool) and float(j) == v
ok = (doc["columns"] == cols and doc["comments"] == com and len(doc["records"]) == len(recs) and
      all(len(r) == len(j) and all(map(same, r, j)) for r, j in zip(recs, doc["records"])))
sys.exit(0 if ok else "records differ")
PY
}
for x in "dt=1e-5:1e-3:log:4 --scheme zoh,foh+mbcorr" "ck=1e4:1e8:log:5 --dt 1e-3 --scheme zoh --metric e_global" \
    "dt=1e-5:3e-3:log:9 --scheme zoh --adaptive --coarse 4"; do
    # shellcheck disable=SC2086
    "$COSA" curve --x $x -o "$tmp/ct" >/dev/null 2>"$tmp/err" &&
        "$COSA" curve --x $x --format json -o "$tmp/cj" >"$tmp/cj.out" 2>"$tmp/err" || bad "curve --x $x: $(cat "$tmp/err")"
    d=$(ls "$tmp/cj"/*.dat)
    cmp -s "$d" "$tmp/ct/${d##*/}" && ok || bad "curve --x $x --format json changed the .dat"
    grep -q "^file ${d%.dat}.json\$" "$tmp/cj.out" && datajson "$d" "${d%.dat}.json" && ok ||
        bad "curve --x $x --format json: the .json and the .dat differ"
    rm -rf "$tmp/ct" "$tmp/cj"
done
"$COSA" curve --x dt=1e-5:1e-3:log:3 --scheme zoh --format json -o "$tmp/cj" >/dev/null
sed 's/\(\[0\.0001, 0\.99\)7/\18/' "$tmp/cj/rho_vs_dt.json" >"$tmp/cj/changed.json"
! cmp -s "$tmp/cj/rho_vs_dt.json" "$tmp/cj/changed.json" && ! datajson "$tmp/cj/rho_vs_dt.dat" "$tmp/cj/changed.json" 2>/dev/null &&
    ok || bad "the data checker missed a changed record"
# map --format json: NAME_SCHEME.json next to each (unchanged) .dat, the
# same records (the .dat's blank lines separate blocks: no data), columns
# and comments; also over (x, dt) and with --adaptive's 'exact' column (its
# '# columns:' line says what 0 and 1 mean after the names)
for x in "--y dk=1:100:log:3 --dt 1e-3,1e-2 --scheme zoh,foh+mbcorr" \
    "--y dt=1e-4:1e-2:log:4 --scheme zoh --metric e_global" \
    "--y dk=1:100:log:7 --dt 1e-3 --scheme zoh --adaptive --coarse 2"; do
    # shellcheck disable=SC2086
    "$COSA" map --x ck=1:1e4:log:6 $x -o "$tmp/mt" >/dev/null 2>"$tmp/err" &&
        "$COSA" map --x ck=1:1e4:log:6 $x --format json -o "$tmp/mj" >"$tmp/mj.out" 2>"$tmp/err" ||
        bad "map $x: $(cat "$tmp/err")"
    n=0
    for d in "$tmp"/mj/*.dat; do
        case $d in *_lines.dat) continue ;; esac
        n=$((n + 1))
        cmp -s "$d" "$tmp/mt/${d##*/}" && ok || bad "map $x --format json changed ${d##*/}"
        sed 's/^\(# columns:.*\) (1 = evaluated, 0 = interpolated)$/\1/' "$d" >"$tmp/d.dat"
        grep -q "^file ${d%.dat}.json\$" "$tmp/mj.out" && datajson "$tmp/d.dat" "${d%.dat}.json" &&
            ok || bad "map $x --format json: ${d##*/} and its .json differ"
    done
    [ "$n" -ge 1 ] || bad "map $x --format json: no data files"
    rm -rf "$tmp/mt" "$tmp/mj"
done
# phi --format json: the text's comments, and the matrix as one table whose
# columns are the names of the '# entries:' comment (K=NAME for K = 0, 1,
# ...) and whose rows are the text's lines of numbers, number for number;
# --format text is the default's bytes; a changed entry is found
phijson() { # TEXT JSON
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
def constant(c):
    sys.exit("not strict JSON: " + c)
lines = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]), parse_constant=constant)
com = [l.lstrip("#").lstrip(" ") for l in lines if l.startswith("#")]
rows = [l.split() for l in lines if l and not l.startswith("#")]
ent = [c for c in com if c.startswith("entries:")][0].split()[1:]
if [e.split("=", 1)[0] for e in ent] != [str(k) for k in range(len(ent))]:
    sys.exit("phi: the entries are not numbered 0, 1, ...")
names = [e.split("=", 1)[1] for e in ent]
def same(t, j):
    v = float(t)
    if isinstance(j, str):
        return j == "nan" and v != v or j in ("inf", "-inf") and float(j) == v
    return not isinstance(j, bool) and float(j) == v
tab = doc["tables"]
ok = (doc["command"] == "phi" and doc["comments"] == com and doc["fields"] == {} and
      len(tab) == 1 and tab[0]["columns"] == names and len(rows) == len(names) and
      len(tab[0]["rows"]) == len(rows) and
      all(len(r) == len(names) == len(j) and all(map(same, r, j)) for r, j in zip(rows, tab[0]["rows"])))
sys.exit(0 if ok else "phi: the text and the JSON differ")
PY
}
for c in "--scheme foh+mbcorr --dt 1e-3" "--scheme soh --dt 1e-3 --ref" \
    "--scheme zoh+mbcorr --dt 1e-4 --assume ck=1e5" "--scheme imp:zoh --dt 1e-3 --iterations 3" \
    "--model oscillator --scheme foh --dt 1e-2"; do
    # shellcheck disable=SC2086
    "$COSA" phi $c >"$tmp/pt" 2>/dev/null && "$COSA" phi $c --format json >"$tmp/pj" 2>"$tmp/err" &&
        "$COSA" phi $c --format text >"$tmp/pt2" 2>/dev/null || bad "phi $c: $(cat "$tmp/err")"
    cmp -s "$tmp/pt" "$tmp/pt2" && ok || bad "phi $c --format text differs from the default"
    phijson "$tmp/pt" "$tmp/pj" && ok || bad "phi $c --format json"
done
sed '0,/\[0\.9/s/\[0\.9/[0.8/' "$tmp/pj" >"$tmp/pj2"
! cmp -s "$tmp/pj" "$tmp/pj2" && ! phijson "$tmp/pt" "$tmp/pj2" 2>/dev/null && ok ||
    bad "the phi checker missed a changed entry"
# bench --format json: the timings of another run, so the words and counts
# of the text (metric, scheme, threads, points; the comments with their
# times and speed-ups masked) and non-negative numbers for the times
"$COSA" bench --grid 4 --egrid 2 --scheme zoh,foh --dt 1e-3 --threads 1,2 >"$tmp/bt" 2>"$tmp/err" &&
    "$COSA" bench --grid 4 --egrid 2 --scheme zoh,foh --dt 1e-3 --threads 1,2 --format json \
        >"$tmp/bj" 2>"$tmp/err" || bad "bench --format json: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/bt" "$tmp/bj" <<'PY' && ok || bad "bench: the text and the JSON differ"
import json, re, sys
def constant(c):
    sys.exit("not strict JSON: " + c)
lines = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]), parse_constant=constant)
def mask(c):
    return re.sub(r": [0-9.]+$", ": T", re.sub(r"[0-9.]+x ", "Nx ", c))
com = [mask(l.lstrip("#").lstrip(" ")) for l in lines if l.startswith("#")]
words = [l.split() for l in lines if l and not l.startswith("#")]
tab = doc["tables"]
rows = tab[0]["rows"] if len(tab) == 1 else []
ok = (doc["command"] == "bench" and [mask(c) for c in doc["comments"]] == com and
      doc["fields"] == {} and len(tab) == 1 and tab[0]["columns"] == words[0] and
      len(rows) == len(words) - 1 == 14 and
      all(r[:2] == w[:2] and r[2] == int(w[2]) and r[3] == int(w[3]) and
          all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in r[4:]) and
          len(r) == 6 for r, w in zip(rows, words[1:])))
sys.exit(0 if ok else "bench: the text and the JSON differ")
PY
# simulate -o --format json: NAME.json holds the CSV's header row as its
# columns and every record, number for number
"$COSA" simulate --scheme foh+mbcorr --dt 1e-3 --tend 0.02 --outputs s1 -o "$tmp/sj" \
    --format json >/dev/null 2>"$tmp/err" || bad "simulate -o --format json: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/sj/twomass_foh_mbcorr.csv" "$tmp/sj/twomass_foh_mbcorr.json" <<'PY' && ok ||
import json, sys
def constant(c):
    sys.exit("not strict JSON: " + c)
lines = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]), parse_constant=constant)
com = [l.lstrip("#").lstrip(" ") for l in lines if l.startswith("#")]
rows = [l.split(",") for l in lines if l and not l.startswith("#")]
def same(t, j):
    v = float(t)
    if isinstance(j, str):
        return j == "nan" and v != v or j in ("inf", "-inf") and float(j) == v
    return not isinstance(j, bool) and float(j) == v
ok = (doc["comments"] == com and doc["columns"] == rows[0] and len(rows) > 2 and
      len(doc["records"]) == len(rows) - 1 and
      all(len(r) == len(j) and all(map(same, r, j)) for r, j in zip(rows[1:], doc["records"])))
sys.exit(0 if ok else "simulate: the .csv and the .json differ")
PY
    bad "simulate -o --format json: NAME.csv and NAME.json differ"
# a file that cannot be written to the end (a file size limit: EFBIG) is
# exit 1 and one line naming it, for the JSON files too; nothing is left
for c in "map --x ck=1:1e4:log:40 --y dk=1:100:log:40 --dt 1e-3 --scheme zoh" \
    "curve --x dt=1e-5:1e-3:log:300 --scheme zoh" "simulate --scheme zoh --dt 1e-4"; do
    # shellcheck disable=SC2086
    (ulimit -f 8 && exec "$COSA" $c --format json -o "$tmp/full" >/dev/null 2>"$tmp/err")
    rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^cosa: .*cannot write '.*': File too large\$" "$tmp/err" &&
        [ -z "$(ls -A "$tmp/full" 2>/dev/null)" ] && ok ||
        bad "$c --format json under ulimit -f 8: exit $rc, $(cat "$tmp/err"), left $(ls "$tmp/full" 2>/dev/null)"
    rm -rf "$tmp/full"
done
# the checker fails on a changed number (it can fail): one digit off
"$COSA" point --scheme zoh --dt 1e-4 >"$tmp/t"
"$COSA" point --scheme zoh --dt 1e-4 --format json | sed 's/"rho": 0\.9/"rho": 0.8/' >"$tmp/j"
/usr/bin/python3 "$check" "$tmp/t" "$tmp/j" >/dev/null && bad "json_check missed a changed rho" || ok
# failures stay failures: nothing on stdout, one line, the exit code
expect_exit 2 "$COSA" point --scheme zoh --dt 0 --format json
expect_exit 2 "$COSA" point --scheme zoh --dt 1e-4 --format xml
expect_exit 2 "$COSA" estimate --model twomass --scheme soh --estimator exmilne --t0 1e-9 --dt 1e-4 --format json
"$COSA" estimate --model twomass --scheme soh --estimator exmilne --t0 1e-2 --dt 1e-4 --format json >/dev/full 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "estimate --format json > /dev/full: $(cat "$tmp/err")"
"$COSA" converge --scheme foh --points 8 --format json >/dev/full 2>"$tmp/err"
[ $? = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "converge --format json > /dev/full"
# the worked example of doc/output-formats.md runs as written (cosa on PATH)
doc=$(dirname "$0")/../doc/output-formats.md
awk '/^```sh$/ { on = 1; next } on && /^```$/ { exit } on' "$doc" >"$tmp/example.sh"
bindir=$(cd "$(dirname "$COSA")" && pwd)
[ -s "$tmp/example.sh" ] && (cd "$tmp" && PATH=$bindir:$PATH sh -e "$tmp/example.sh") >"$tmp/ex.out" 2>&1 &&
    grep -q '"command": "converge"' "$tmp/ex.out" && grep -q '^exit 2$' "$tmp/ex.out" &&
    grep -q '^exit 1$' "$tmp/ex.out" && ok || bad "doc/output-formats.md example: $(tail -3 "$tmp/ex.out")"
harness_done test_json
