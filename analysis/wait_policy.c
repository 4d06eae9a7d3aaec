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
 * before main, hence the re-execution.
 *
 * OpenBLAS likewise: cosa does its own threading (OpenMP over grid points,
 * small matrices), so BLAS must run single-threaded, and a threaded OpenBLAS
 * (the pthread build) starts its threads and their buffers when it is
 * loaded, where openblas_set_num_threads(1) comes too late.  Under a memory
 * limit (ulimit -v 300000) those buffers left no room for the one dgetrf
 * needs, and OpenBLAS retries that allocation for ever: `cosa map` hung.
 * With OPENBLAS_NUM_THREADS=1, read at load time, it ends in 0.1 s. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "config.h"
#include "wait_policy.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void cli_wait_policy_passive(char **argv)
{
#if defined(_OPENMP) || defined(HAVE_OPENBLAS)
    /* valgrind follows an exec only with --trace-children=yes: re-executing
     * would run the program outside it, unchecked */
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return;
    int set = 0;
#ifdef _OPENMP
    /* unless the user chose a policy */
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT")) {
        if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
            return;
        set = 1;
    }
#endif
#ifdef HAVE_OPENBLAS
    /* one BLAS thread unless the user chose a number (see the file's
     * comment: a threaded OpenBLAS can hang under a memory limit) */
    if (!getenv("OPENBLAS_NUM_THREADS")) {
        if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0)
            return;
        set = 1;
    }
#endif
    if (!set)
        return; /* the user's choices (and the re-executed process itself) */
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): go on with the libraries as loaded; the
     * variables stay set for child processes, harmless */
#else
    (void)argv;
#endif
}

/* OpenBLAS maps one work buffer (128 MB in Debian's build) on the first
 * factorisation and keeps it for the later ones; when the mapping fails it
 * retries for ever.  So it is mapped here, while the address space is still
 * free: a tight memory limit (ulimit -v) is then met by cosa's own
 * allocations, which fail with a message.  Only when room for it is seen
 * (a trial mapping of 136 MB, removed at once): otherwise the first
 * factorisation would hang here. */
void cli_blas_warm(void)
{
#ifdef HAVE_OPENBLAS
    const size_t probe = (size_t)136 << 20;
    void *p = mmap(NULL, probe, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return;
    munmap(p, probe);
    double a = 1.0;
    lapack_int piv;
    (void)LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, 1, 1, &a, 1, &piv);
#endif
}
