/* testutil.h -- small helpers shared by the Criterion tests. */
#ifndef COSA_TESTUTIL_H
#define COSA_TESTUTIL_H

#include "cosa.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#ifdef complex /* for tests that include <complex.h> first (its I clashes with names elsewhere) */
/* The eigenvalues of a real 2 x 2 matrix M (column-major) in closed form,
 * mu[0] the one with the smaller imaginary part: the independent route for
 * the discrete poles of a second-order (sub)system. */
static inline void tu_eig2(const double *M, double complex *mu)
{
    const double tr = M[0] + M[3], det = M[0] * M[3] - M[1] * M[2];
    const double complex s = csqrt(tr * tr / 4 - det);
    mu[0] = tr / 2 - s;
    mu[1] = tr / 2 + s;
    if (cimag(mu[0]) > cimag(mu[1])) {
        double complex t = mu[0];
        mu[0] = mu[1];
        mu[1] = t;
    }
}
#endif

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

/* Frees the units a[0..n-1] and b[0..n-1] (the units of two runs compared). */
static inline void tu_unit_free_pairs(size_t n, cosa_unit **a, cosa_unit **b)
{
    for (size_t i = 0; i < n; i++) {
        cosa_unit_free(a[i]);
        cosa_unit_free(b[i]);
    }
}

/* The system of the built-in model name at its default parameters and,
 * with x0, its initial state (asserted: a test of a missing model fails). */
static inline cosa_system *tu_model_system(const char *name, double *x0)
{
    const cosa_model *m = cosa_model_find(name);
    cr_assert_not_null(m, "model %s", name);
    double par[64];
    cr_assert_leq(m->nparam, 64, "model %s: more parameters than tu_model_system holds", name);
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK, "model %s", name);
    if (x0)
        cr_assert_eq(m->initial_state(m, par, x0), COSA_OK, "model %s", name);
    return sys;
}

/* out = Phi z (Phi n x n, column-major; out and z apart), summed in the
 * order j = 0..n-1: the independent route (Phi^n z0) the time-domain runs
 * are compared with. */
static inline void tu_phi_matvec(const double *Phi, size_t n, const double *z, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (size_t j = 0; j < n; j++)
            acc += Phi[i + j * n] * z[j];
        out[i] = acc;
    }
}

/* One step of the recursion z <- Phi z (zn: n doubles of scratch). */
static inline void tu_phi_apply(const double *Phi, size_t n, double *z, double *zn)
{
    tu_phi_matvec(Phi, n, z, zn);
    memcpy(z, zn, n * sizeof *z);
}

/* The exact states of sys from x0 at the n times t (X: n columns of nx),
 * by cosa_reftraj_exact_at: the reference callback of the run tests. */
static inline cosa_status tu_exact_states(const cosa_system *sys, const double *x0, size_t n,
                                          const double *t, double *X)
{
    cosa_reftraj *r = NULL;
    cosa_status st = cosa_reftraj_exact_at(sys, x0, n, t, &r);
    if (st == COSA_OK)
        memcpy(X, r->x, n * r->nx * sizeof *X);
    cosa_reftraj_free(r);
    return st;
}

/* The shared fixture of the run tests: a built-in model (twomass) as units
 * of one integrator ("exact": its exact linear units), its unit set, its
 * initial state and, per state, whether it is a velocity (the kick flags
 * of its mechanical subsystems; 1 where a subsystem has none). */
typedef struct tu_units {
    const cosa_model *m;
    cosa_system *sys;
    cosa_odesys *os;
    cosa_unit *u[4];
    size_t n;
    cosa_unitset *set;
    double x0[16];
    unsigned char is_vel[16];
} tu_units;

static inline void tu_units_init(tu_units *f, const char *model, const char *integrator)
{
    memset(f, 0, sizeof *f);
    f->m = cosa_model_find(model);
    cr_assert_not_null(f->m, "model %s", model);
    double par[64];
    cosa_model_defaults(f->m, par);
    cr_assert_eq(f->m->create(f->m, par, &f->sys), COSA_OK);
    cr_assert_leq(cosa_system_nx(f->sys), 16);
    cr_assert_eq(f->m->initial_state(f->m, par, f->x0), COSA_OK);
    cr_assert_eq(cosa_odesys_from_linear(f->sys, &f->os), COSA_OK);
    f->n = cosa_system_nsub(f->sys);
    cr_assert_leq(f->n, 4);
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse(integrator, &in), COSA_OK);
    in.rtol = 1e-12;
    size_t ox = 0;
    for (size_t i = 0; i < f->n; i++) {
        const cosa_ode *sub = cosa_odesys_sub(f->os, i);
        for (size_t k = 0; k < sub->nx; k++)
            f->is_vel[ox + k] = sub->kick ? sub->kick[k] : 1;
        ox += sub->nx;
        cr_assert_eq(in.kind == COSA_INTEGRATOR_EXACT
                         ? cosa_unit_linear_from_system(f->sys, i, &f->u[i])
                         : cosa_unit_ode_create(sub, &in, &f->u[i]),
                     COSA_OK);
    }
    cr_assert_eq(cosa_unitset_create(f->n, f->u, cosa_system_L(f->sys), NULL, &f->set), COSA_OK);
}

static inline void tu_units_free(tu_units *f)
{
    cosa_unitset_free(f->set);
    for (size_t i = 0; i < f->n; i++)
        cosa_unit_free(f->u[i]);
    cosa_odesys_free(f->os);
    cosa_system_free(f->sys);
}

/* The exact reference of a tu_units fixture (ctx) for cosa_vo_run: the
 * model is small, so every state is asked for (sel NULL). */
static inline cosa_status tu_units_ref(void *ctx, size_t n, const double *t, size_t nsel,
                                       const size_t *sel, double *X)
{
    (void)nsel;
    cr_assert_null(sel, "small systems: every state is kept");
    const tu_units *f = ctx;
    return tu_exact_states(f->sys, f->x0, n, t, X);
}

/* The options of a variable-order run: coupling c, degree k (at most
 * kmax; 0: the default), macro step H, horizon tend, the states' velocity
 * flags is_vel (tu_units.is_vel). */
static inline cosa_vo_opts tu_vo_opts(const unsigned char *is_vel, cosa_vo_coupling_kind c,
                                      int k, int kmax, double H, double tend)
{
    cosa_vo_opts o;
    cosa_vo_opts_default(&o);
    o.coupling = c;
    o.k = k;
    if (kmax > 0)
        o.kmax = kmax;
    o.H = H;
    o.tend = tend;
    o.is_vel = is_vel;
    return o;
}

/* A variable-order run of fixture f on its exact reference (asserted). */
static inline cosa_vo_result *tu_vo_run(tu_units *f, const cosa_vo_opts *o)
{
    cosa_vo_result *r = NULL;
    cosa_status st = cosa_vo_run(f->set, tu_units_ref, f, o, &r);
    cr_assert_eq(st, COSA_OK, "cosa_vo_run: %s", cosa_strerror(st));
    cr_assert_not_null(r);
    return r;
}

/* The scale-free difference of the end state of run a from b (nx values):
 * max_i |a_i - b_i| / max_n |xref_i,n| (each state on its own scale). */
static inline double tu_vo_end_diff(const cosa_vo_result *a, const double *b)
{
    const size_t nx = a->nx, N = a->steps;
    double d = 0.0;
    for (size_t i = 0; i < nx; i++) {
        double s = 0.0;
        for (size_t n = 0; n <= N; n++)
            s = fmax(s, fabs(a->xref[i + n * nx]));
        d = fmax(d, fabs(a->x[i + N * nx] - b[i]) / s);
    }
    return d;
}

/* C = A B (A m x k, B k x n, C m x n; column-major), each entry summed in
 * the order q = 0..k-1: the plain product the tests check against. */
static inline void tu_matmul(size_t m, size_t n, size_t k, const double *A, const double *B,
                             double *C)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0.0;
            for (size_t q = 0; q < k; q++)
                s += A[i + q * m] * B[q + j * k];
            C[i + j * m] = s;
        }
}

/* The buffers of a comparison of a run with Phi^n z0 (dimension d): Phi
 * (d x d), z, zn (tu_phi_apply), zm (the run's z), dmax, rmax (zeroed):
 * one allocation, asserted; tu_phibuf_free releases it. */
typedef struct tu_phibuf {
    double *Phi, *z, *zn, *zm, *dmax, *rmax;
} tu_phibuf;

static inline tu_phibuf tu_phibuf_alloc(size_t d)
{
    tu_phibuf b;
    b.Phi = calloc(d * d + 5 * d + 1, sizeof *b.Phi);
    cr_assert_not_null(b.Phi);
    b.z = b.Phi + d * d;
    b.zn = b.z + d;
    b.zm = b.zn + d;
    b.dmax = b.zm + d;
    b.rmax = b.dmax + d;
    return b;
}

static inline void tu_phibuf_free(tu_phibuf *b)
{
    free(b->Phi);
    b->Phi = NULL;
}

#ifdef TU_TWOMASS_II
/* Subsystem II of the two-mass oscillator (MBCorr paper eq 27, the defaults, as in the
 * test FMU twomass2): x = (s2, v2), u = (s1, v1), y = Fk = ck (s2 - s1) + dk (v2 - v1);
 * A2, B2 column-major 2x2, Cy, Dy 1x2. Defined by the files that #define TU_TWOMASS_II. */
#define M2 10.0
#define C2 1e7
#define D2 2.0
#define CK 2e5
#define DK 500.0
static const double A2[4] = {0, -(C2 + CK) / M2, 1, -(D2 + DK) / M2};
static const double B2[4] = {0, CK / M2, 0, DK / M2};
static const double Cy[2] = {CK, DK}, Dy[2] = {-CK, -DK};

/* The two-mass network by hand: subsystem I continuous (MBCorr eq 27, m1 = 10, c1 = 1e6,
 * d1 = 1), II the ZOH-equivalent continuous model (cosa_zoh_log) of the step x' = E x +
 * h B2 u of length h, with outputs y = Cii x + Dii u; u = [Fk -> I, s1 -> II, v1 -> II],
 * y = [s1, v1, Fk]. */
static inline cosa_system *tu_twomass_zoh_ref(double h, const double *E, const double *Cii,
                                               const double *Dii)
{
    const double m1 = 10, c1 = 1e6, d1 = 1;
    const double AI[4] = {0, -c1 / m1, 1, -d1 / m1}, BI[2] = {0, 1 / m1};
    const double CI[4] = {1, 0, 0, 1}, DI[2] = {0, 0};
    const double hB[4] = {h * B2[0], h * B2[1], h * B2[2], h * B2[3]};
    double Ac[4], Bc[4];
    char why[200];
    cr_assert_eq(cosa_zoh_log(2, 2, h, E, hB, Ac, Bc, why, sizeof why), COSA_OK, "%s", why);
    cosa_subsystem subs[2] = {{2, 1, 2, AI, BI, CI, DI}, {2, 2, 1, Ac, Bc, Cii, Dii}};
    const double L[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
    cosa_system *ref = NULL;
    cr_assert_eq(cosa_system_create(&ref, 2, subs, L), COSA_OK);
    return ref;
}

/* tu_twomass_zoh_ref when II is stepped by explicit Euler at h (the FMU twomass2_euler):
 * E = I + h A2, outputs Cy, Dy. */
static inline cosa_system *tu_twomass_euler_ref(double h)
{
    const double E[4] = {1 + h * A2[0], h * A2[1], h * A2[2], 1 + h * A2[3]};
    return tu_twomass_zoh_ref(h, E, Cy, Dy);
}
#endif

#endif
