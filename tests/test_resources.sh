#!/bin/sh
# test_resources.sh -- a command line that never lies about resources
# (issue 33 item 7): runs under a memory limit end (never hang), sizes are
# checked before any work, stdout names only files that exist.
. "$(dirname "$0")/harness.sh"

# A map under ulimit -v 300000 ends: cosa runs OpenBLAS single-threaded from
# its start (analysis/wait_policy.c).  A threaded OpenBLAS starts its threads
# and buffers when it is loaded and then retried the allocation of dgetrf's
# buffer for ever.  make check exports OPENBLAS_NUM_THREADS=1: unset here, so
# that the command itself must see to it.  60 s: the run needs 0.1 s.
rm -rf "$tmp/memD"
(
    unset OPENBLAS_NUM_THREADS
    ulimit -v 300000 2>/dev/null || exit 77
    exec timeout 60 "$COSA" map --x ck=1e4:1e6:log:10 --y dk=1:1e3:log:10 --scheme zoh \
        --dt 1e-3 --threads 1 -o "$tmp/memD"
) >"$tmp/out" 2>"$tmp/err"
rc=$?
case $rc in
0) grep -q '^points 100$' "$tmp/out" && ok || bad "map under ulimit -v: no 'points 100': $(cat "$tmp/out")" ;;
77) echo "note: ulimit -v not available: memory-limit run not checked" ;;
124) bad "map under ulimit -v 300000 hung (killed after 60 s)" ;;
*) bad "map under ulimit -v 300000: exit $rc: $(head -c 300 "$tmp/err")" ;;
esac

# bench: its size under the cap of --max-points, checked before any work
# (exit 2; 4e8 points ran for ever, 1e18 said "out of memory" with exit 1).
# The two grids are held in one array of the larger grid's size: 4 x 4 x 1 x 1.
expect_exit 2 timeout 20 "$COSA" bench --grid 20000 --egrid 2 --scheme zoh --dt 1e-3 --threads 1 &&
    grep -qF "= 400000000 points, more than the cap 10000000 (raise it with --max-points N)" \
        "$tmp/err" && ok || bad "bench --grid 20000: $(cat "$tmp/err")"
usage_error "1000000000 x 1000000000 x 1 x 1" \
    bench --grid 1000000000 --scheme zoh --dt 1e-3 --threads 1
usage_error "4 x 4 x 1 x 1 = 16 points, more than the cap 15" \
    bench --grid 4 --egrid 2 --scheme zoh --dt 1e-3 --threads 1 --max-points 15
expect_exit 0 "$COSA" bench --grid 4 --egrid 2 --scheme zoh --dt 1e-3 --threads 1 --max-points 16
grep -q '^# us_per_point' "$tmp/out" && ok || bad "bench --max-points 16: $(head -3 "$tmp/out")"

# map's "file PATH" lines come only once every file is written: under a file
# size limit of 4 blocks (2048 or 4096 bytes) the data files (885 bytes)
# are written, the first script (5447) is not; the run fails (exit 1, one
# line naming the script, nothing on stdout) and no file stays.
expect_exit 1 sh -c 'ulimit -f 4 && exec "$@"' sh "$COSA" map --x ck=1e4:1e6:log:3 \
    --y dk=1:1e3:log:3 --scheme zoh --dt 1e-3 --threads 1 -o "$tmp/fsz" &&
    grep -q "rho_zoh.gp': File too large" "$tmp/err" && [ ! -e "$tmp/fsz" ] && ok ||
    bad "map under ulimit -f 4: $(cat "$tmp/err"), $(ls "$tmp/fsz" 2>&1)"

harness_done test_resources
