#!/bin/sh
# test_mpi.sh -- sweeps over MPI processes (./configure --with-mpi): the files
# of `mpirun --oversubscribe -n 3 cosa map|curve` are bitwise those of one
# threaded process, for full and adaptive maps, a curve, and an error metric;
# bad input gives one cosa line (process 0) and exit 2 from every process.
: "${COSA:?}"
if [ -z "${MPIRUN:-}" ]; then
    echo "skip - no mpirun (configure --with-mpi)"
    exit 77
fi
# mpirun refuses root unless told (CI runs as root)
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
. "$(dirname "$0")/harness.sh"
mpi() { "$MPIRUN" --oversubscribe -n 3 "$@"; }

same_files() { # DIR1 DIR2 WHAT
    n=0
    for f in "$1"/*; do
        n=$((n + 1))
        cmp -s "$f" "$2/$(basename "$f")" || { bad "$3: $(basename "$f") differs"; return; }
    done
    [ "$n" -gt 0 ] && [ "$(ls "$1" | wc -l)" = "$(ls "$2" | wc -l)" ] && ok || bad "$3: file lists differ"
}

m="--x ck=1e3:1e10:log:24 --y dk=1:1e6:log:20 --scheme zoh,foh+mbcorr,soh --dt 1e-3,1e-4"
for extra in "" "--adaptive --coarse 4" "--metric e_global" "--metric e_global --adaptive"; do
    # shellcheck disable=SC2086
    "$COSA" map $m $extra --threads 2 -o "$tmp/one" >/dev/null 2>&1 || bad "map $extra (one process)"
    # shellcheck disable=SC2086
    mpi "$COSA" map $m $extra --threads 1 -o "$tmp/three" >"$tmp/out" 2>"$tmp/err" || bad "map $extra (3 processes): $(cat "$tmp/err")"
    same_files "$tmp/one" "$tmp/three" "map $extra"
    [ "$(grep -c '^points ' "$tmp/out")" = 1 ] && ok || bad "map $extra: stdout not from process 0 only: $(cat "$tmp/out")"
    rm -rf "$tmp/one" "$tmp/three"
done
c="--x dt=1e-6:1e-2:log:60 --scheme foh,zoh+mbcorr --set ck=1e9 --set dk=3.6e5"
# shellcheck disable=SC2086
"$COSA" curve $c -o "$tmp/c1" >/dev/null && mpi "$COSA" curve $c -o "$tmp/c3" >/dev/null 2>&1 ||
    bad "curve"
same_files "$tmp/c1" "$tmp/c3" "curve"
# a binary map: the same files as one process
b="--x ck=1:1e10:log:20 --y dk=1:1e7:log:16 --dt 1e-3,1e-4 --scheme zoh,foh+mbcorr --adaptive --format bin"
# shellcheck disable=SC2086
"$COSA" map $b -o "$tmp/b1" >/dev/null && mpi "$COSA" map $b -o "$tmp/b3" >/dev/null 2>&1 || bad "bin map"
same_files "$tmp/b1" "$tmp/b3" "bin map"
# cosa table is not split (its work is seconds): every process computes it,
# process 0 prints it once
"$COSA" table --paper mbcorr --table 1 >"$tmp/t1" && mpi "$COSA" table --paper mbcorr --table 1 >"$tmp/t3" 2>/dev/null &&
    cmp -s "$tmp/t1" "$tmp/t3" && ok || bad "table under mpirun: $(diff "$tmp/t1" "$tmp/t3" | head -5)"
# bad input: one line (process 0), exit 2
mpi "$COSA" map --x ck=1:10:log:3 --y nosuch=1:2:lin:2 --scheme zoh --dt 1e-3 -o "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" != 0 ] && [ "$(grep -c '^cosa: ' "$tmp/err")" = 1 ] && grep -q "has no parameter 'nosuch'" "$tmp/err" &&
    ok || bad "bad input under mpirun: exit $rc, $(cat "$tmp/err")"
harness_done test_mpi.sh
