/* wait_policy.c -- passive OpenMP waiting by default (README "Performance",
 * threads).
 *
 * The time-domain engine (lib/td/master.c, lib/td/vo_run.c) opens one short
 * OpenMP parallel region per stage of every macro step.  With libgomp's
 * default policy a thread that reaches the end of a region first spins (up to
 * GOMP_SPINCOUNT = 300000 pause loops, milliseconds) before it sleeps; on a
 * machine whose cores are busy with other jobs that spinning takes the CPU
 * from the thread still working, and a run that needs 6 s on one thread took
 * 56-118 s on two.  With OMP_WAIT_POLICY=passive a waiting thread sleeps at
 * once: two threads are never slower than one there, and a sweep (one long
 * region) loses nothing.  libgomp reads the variable in its constructor,
 * before main, hence the re-execution. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "wait_policy.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_wait_policy_passive(char **argv)
{
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return; /* the user's choice (and the re-executed process itself) */
    /* valgrind follows an exec only with --trace-children=yes: re-executing
     * would run the program outside it, unchecked */
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): go on with libgomp's policy as loaded; the
     * variable stays set for child processes, harmless */
#else
    (void)argv;
#endif
}
