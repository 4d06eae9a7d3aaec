/* testutil.h -- small helpers shared by the Criterion tests. */
#ifndef COSA_TESTUTIL_H
#define COSA_TESTUTIL_H

#include "cosa.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* max |a - b| over an m x n block (column-major, leading dims lda, ldb). */
static inline double tu_maxdiff(size_t m, size_t n, const double *a, size_t lda, const double *b,
                                size_t ldb)
{
    double d = 0.0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double e = fabs(a[i + j * lda] - b[i + j * ldb]);
            if (e > d || isnan(e))
                d = e;
        }
    return d;
}

/* max |a| over an m x n block. */
static inline double tu_maxabs(size_t m, size_t n, const double *a, size_t lda)
{
    double d = 0.0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            if (fabs(a[i + j * lda]) > d)
                d = fabs(a[i + j * lda]);
    return d;
}

/* Two-mass oscillator (eq 27) from the built-in model with given ck, dk. */
static inline cosa_system *tu_twomass(double ck, double dk)
{
    const cosa_model *m = cosa_model_find("twomass");
    if (!m)
        return NULL;
    double par[32];
    cosa_model_defaults(m, par);
    cosa_model_set(m, par, "ck", ck);
    cosa_model_set(m, par, "dk", dk);
    cosa_system *sys = NULL;
    if (m->create(m, par, &sys) != COSA_OK)
        return NULL;
    return sys;
}

/* Deterministic pseudo-random numbers in [-1, 1] (xorshift; tests must be
 * reproducible and independent of libc's rand). */
static inline double tu_rand(unsigned long long *state)
{
    unsigned long long x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (double)(x >> 11) / (double)(1ULL << 52) - 1.0;
}

/* The driver and the CVODE reference on a unit set made of the given units
 * (coupling L, in order) for this one call: the set only borrows the units. */
static inline cosa_status tu_cosim_run(size_t n, cosa_unit *const *u, const double *L,
                                       const cosa_scheme *s, const cosa_reftraj *ref,
                                       const cosa_cosim_opts *o, cosa_cosim_result **r)
{
    cosa_unitset *set = NULL;
    cosa_status st = cosa_unitset_create(n, u, L, NULL, &set);
    if (st == COSA_OK)
        st = cosa_cosim_run(set, s, ref, o, r);
    cosa_unitset_free(set);
    return st;
}

static inline cosa_status tu_reftraj_cvode(size_t n, cosa_unit *const *u, const double *L,
                                           const double *x0, double H, size_t nsamples,
                                           double rtol, cosa_reftraj **r)
{
    cosa_unitset *set = NULL;
    cosa_status st = cosa_unitset_create(n, u, L, NULL, &set);
    if (st == COSA_OK)
        st = cosa_reftraj_cvode(set, x0, H, nsamples, rtol, r);
    cosa_unitset_free(set);
    return st;
}

/* Diagonal d (n entries) that balances the off-diagonal row and column sums
 * of D^-1 A D, D = diag(d) (Osborne's iteration, as in LAPACK's dgebal,
 * without rounding d to powers of 2): the basis in which a mass-spring
 * block is a scaled normal matrix (d_v / d_s = its natural frequency).
 * Backward errors of scaling and squaring and of dgeev (which balances
 * first) are normwise in this basis, so tolerances are derived in it. */
static inline void tu_balance(size_t n, const double *A, size_t lda, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = 1.0;
    for (int sweep = 0; sweep < 40; sweep++)
        for (size_t i = 0; i < n; i++) {
            double r = 0.0, c = 0.0;
            for (size_t j = 0; j < n; j++)
                if (j != i) {
                    r += fabs(A[i + j * lda]) * d[j] / d[i];
                    c += fabs(A[j + i * lda]) * d[i] / d[j];
                }
            if (r > 0.0 && c > 0.0)
                d[i] *= sqrt(r / c);
        }
}

/* Opens the test FMU name of make check (in $COSA_FMUDIR, else tests/fmu)
 * into *f: cosa_fmu_open's status, its one-line message in err. */
static inline cosa_status tu_fmu_open(const char *name, cosa_fmu **f, char *err, size_t size)
{
    const char *d = getenv("COSA_FMUDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d ? d : "tests/fmu", name);
    return cosa_fmu_open(path, f, err, size);
}

/* The test FMU name, opened (the test fails with the message if not). */
static inline cosa_fmu *tu_fmu_open_ok(const char *name)
{
    char err[512];
    cosa_fmu *f = NULL;
    const cosa_status s = tu_fmu_open(name, &f, err, sizeof err);
    cr_assert_eq(s, COSA_OK, "%s: %s", name, err);
    return f;
}

#endif
