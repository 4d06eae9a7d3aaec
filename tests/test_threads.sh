#!/bin/sh
# Waiting OpenMP threads sleep (README "Threads"): cosa runs with
# OMP_WAIT_POLICY=passive unless the user chose a policy, because libgomp's
# spinning threads made the time-domain engine 17x slower than one thread on
# a loaded machine.  With OMP_DISPLAY_ENV=verbose libgomp prints the spin
# count it runs with (0: a waiting thread sleeps at once; 300000 when no
# policy is set), once per process that loads it: the re-executed cosa
# prints last.
set -u
: "${COSA:?}"
# ok, bad, harness_done
. "$(dirname "$0")/harness.sh"
unset OMP_WAIT_POLICY GOMP_SPINCOUNT
# the other variable cosa sets before re-executing itself (wait_policy.c):
# given, so that only the OpenMP policy decides (make check exports it too)
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
spin() { # the spin count of the last libgomp report of: cosa --version
    env "$@" OMP_DISPLAY_ENV=verbose "$COSA" --version 2>&1 >/dev/null |
        awk -F"'" '/GOMP_SPINCOUNT/ { p = $2 } END { print p }'
}
reports() { env "$@" OMP_DISPLAY_ENV=verbose "$COSA" --version 2>&1 >/dev/null | grep -c GOMP_SPINCOUNT; }
s=$(spin)
if [ -z "$s" ]; then
    echo "skip - libgomp does not report OMP_DISPLAY_ENV (OpenMP off?)"
    exit 77
fi
[ "$s" = 0 ] && ok "default: passive waiting (spin count 0)" || bad "default spin count is '$s', not 0"
[ "$(reports)" = 2 ] && ok "default: cosa re-executed itself once" || bad "default: $(reports) libgomp reports (want 2)"
s=$(spin OMP_WAIT_POLICY=active)
[ -n "$s" ] && [ "$s" != 0 ] && ok "OMP_WAIT_POLICY=active is kept (spin count $s)" ||
    bad "OMP_WAIT_POLICY=active: spin count '$s'"
[ "$(spin GOMP_SPINCOUNT=1000)" = 1000 ] && [ "$(reports GOMP_SPINCOUNT=1000)" = 1 ] &&
    ok "GOMP_SPINCOUNT=1000 is kept, no re-execution" ||
    bad "GOMP_SPINCOUNT=1000: spin count '$(spin GOMP_SPINCOUNT=1000)', $(reports GOMP_SPINCOUNT=1000) reports"
# the re-executed process keeps its arguments and exit status
out=$("$COSA" point --model twomass --scheme zoh --dt 1e-3 2>&1) && echo "$out" | grep -q '^rho ' &&
    ok "arguments survive the re-execution" || bad "cosa point after the re-execution: $out"
"$COSA" point --dt 2>/dev/null
[ $? = 2 ] && ok "exit status survives the re-execution" || bad "bad usage does not exit 2"
harness_done test_threads
