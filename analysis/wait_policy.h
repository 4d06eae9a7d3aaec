/* wait_policy.h -- OpenMP threads that sleep, not spin, while they wait;
 * single-threaded OpenBLAS. */
#ifndef COSA_WAIT_POLICY_H
#define COSA_WAIT_POLICY_H

/* Called first in main.  Unless the user chose a policy (OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT set), sets OMP_WAIT_POLICY=passive and re-executes the
 * program (/proc/self/exe, same argv, same process id): libgomp reads the
 * variable once, when it is loaded, so setting it later has no effect.
 * Likewise OPENBLAS_NUM_THREADS=1 unless the user set that variable.
 * Returns only when no re-execution happened (both already chosen, OpenMP
 * and OpenBLAS absent, running under valgrind, or exec failed): the run then goes on as
 * it is.  argv must be main's, NULL-terminated. */
void cli_wait_policy_passive(char **argv);

/* Map OpenBLAS's work buffer at the start (a factorisation of a 1 x 1
 * matrix) when there is room for it, so that a memory limit reached later
 * is an allocation error and not OpenBLAS retrying for ever. */
void cli_blas_warm(void);

#endif
