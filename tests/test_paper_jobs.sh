#!/bin/sh
# test_paper_jobs.sh -- the job pool of tools/paper-varorder.sh (make paper):
# with a stand-in for cosa whose runs end in an order unlike the one they
# started in, the summary is the same with PAPER_JOBS 1 and 3 (rows in
# the script's order, whatever order the runs end in), every run happens
# once, a failing run fails the script (naming the run), and a bad
# PAPER_JOBS is refused with exit 2.  The real runs' independence of the
# thread count is tests/test_varorder_cli.sh's.
srcdir=${COSA_SRCDIR:-${srcdir:-.}}
# ok, bad, $tmp (removed at exit), harness_done
. "$(dirname "$0")/harness.sh"

# the stand-in: its "result" is a checksum of its arguments (what the real
# one's numbers depend on), it sleeps longer the earlier it is started (the
# start order is counted in a file), and it fails when FAILON is among its
# arguments
cat >"$tmp/cosa" <<'EOT'
#!/bin/sh
n=$(cat "$STUB_DIR/count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$STUB_DIR/count"
args=$(printf '%s' "$*" | sed "s|$STUB_DIR/o[^ ]*|OUT|g") # the run, not its directory
echo "$args" >>"$STUB_DIR/calls"
case " $* " in *" $FAILON "*) echo "stub: failing as asked" >&2; exit 1 ;; esac
[ "$n" -lt 4 ] && sleep 0.$((4 - n))
sum=$(printf '%s' "$args" | cksum | cut -d' ' -f1)
for k in status steps rejected H_min H_mean H_max k_hist e36_all e_end corrector_iters \
    e36_coupling seconds_cosim seconds_reference cores; do
    echo "$k $k$sum"
done
EOT
chmod +x "$tmp/cosa"
STUB_DIR=$tmp
FAILON=none
export STUB_DIR FAILON

for j in 1 3; do
    rm -f "$tmp/count" "$tmp/calls"
    if PAPER_JOBS=$j GNUPLOT='' sh "$srcdir/tools/paper-varorder.sh" "$tmp/cosa" "$tmp/o$j" \
        >/dev/null 2>"$tmp/err$j"; then ok; else bad "PAPER_JOBS=$j failed: $(cat "$tmp/err$j")"; fi
    sort "$tmp/calls" >"$tmp/calls$j"
    # every run once: as many distinct calls as calls
    [ "$(wc -l <"$tmp/calls$j")" -eq "$(uniq "$tmp/calls$j" | wc -l)" ] && ok ||
        bad "PAPER_JOBS=$j: a run happened twice"
done
cmp -s "$tmp/o1/summary.md" "$tmp/o3/summary.md" && ok ||
    bad "summary with PAPER_JOBS=3 differs from 1: $(diff "$tmp/o1/summary.md" "$tmp/o3/summary.md" | head -4)"
cmp -s "$tmp/calls1" "$tmp/calls3" && ok || bad "PAPER_JOBS=3 ran other runs than 1"
# 25 rows of Ex 3, the sum of all runs (5 + 25 + 8 + 12 + 2 + 2)
[ "$(grep -c '^| [ei][xm][a-z]* | [0-3o]' "$tmp/o3/summary.md")" -eq 25 ] && ok || bad "not 25 rows of Ex 3"
[ "$(wc -l <"$tmp/calls3")" -eq 54 ] && ok || bad "$(wc -l <"$tmp/calls3") runs, not 54"
# the rows carry each run's own values (the first Ex 1 row is exlocal's)
grep -q '^| exlocal | steps[0-9]* |' "$tmp/o3/summary.md" && ok || bad "no exlocal row"

# a failing run (the implicit Ex 2 run at d = 1e5) fails the script, named
FAILON=d=1e5
rm -f "$tmp/count"
if PAPER_JOBS=2 GNUPLOT='' sh "$srcdir/tools/paper-varorder.sh" "$tmp/cosa" "$tmp/of" \
    >/dev/null 2>"$tmp/errf"; then
    bad "a failed run did not fail the script"
else
    grep -q 'failed: ex2 implicit imslocal 1e5$' "$tmp/errf" && ok || bad "the failed run is not named: $(cat "$tmp/errf")"
fi
FAILON=none

for j in 0 x -1; do
    PAPER_JOBS=$j sh "$srcdir/tools/paper-varorder.sh" "$tmp/cosa" "$tmp/ob" >/dev/null 2>"$tmp/errb"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "PAPER_JOBS" "$tmp/errb" && [ "$(wc -l <"$tmp/errb")" -eq 1 ] && ok ||
        bad "PAPER_JOBS=$j: exit $rc, $(cat "$tmp/errb")"
done

echo "test_paper_jobs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
