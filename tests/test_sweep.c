/* test_sweep.c -- the deflated propagation matrix (lib/deflate.c) against
 * the full Phi, and parameter sweeps (lib/sweep.c): thread-count
 * independence, equality with point-by-point evaluation, failed points,
 * argument checks. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "phi/deflate_impl.h"
#include "testutil.h"

#include <lapacke.h>

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- deflation ------------------------------------------------------------ */

static int by_modulus_desc(const void *a, const void *b)
{
    const double *x = a, *y = b;
    const double mx = hypot(x[0], x[1]), my = hypot(y[0], y[1]);
    return mx < my ? 1 : (mx > my ? -1 : 0);
}

/* Eigenvalues (pairs re, im) of the n x n matrix M (ld), sorted by modulus. */
static void eigs(size_t n, const double *M, size_t ld, double *lam)
{
    double *A = malloc(n * n * sizeof *A), *wr = malloc(n * sizeof *wr),
           *wi = malloc(n * sizeof *wi);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(n);
    cr_assert(A && wr && wi && ew);
    for (size_t j = 0; j < n; j++)
        memcpy(A + j * n, M + j * ld, n * sizeof *A);
    cr_assert_eq(cosa_eigenvalues(n, A, n, wr, wi, ew), COSA_OK);
    for (size_t i = 0; i < n; i++) {
        lam[2 * i] = wr[i];
        lam[2 * i + 1] = wi[i];
    }
    qsort(lam, n, 2 * sizeof *lam, by_modulus_desc);
    free(A);
    free(wr);
    free(wi);
    cosa_eig_workspace_free(ew);
}

/* Tolerances.  Phi and Phi_d are computed by different routes (Phi_d from
 * an interpolative decomposition of [B_i; D_i] and a Van Loan exponential of
 * another order), so they agree to rounding, not bitwise.  EIG_RTOL bounds
 * |lambda_d - lambda| / rho for the simple nonzero eigenvalues at these
 * points: observed <= 1e-12 for the models, <= 4e-10 for the random systems
 * (an eigenvalue with condition number ~1e6); 1e-8 leaves a factor 25.  Exact zero eigenvalues in Jordan blocks of order k are
 * smeared by rounding into clusters of radius ~ eps^(1/k) rho (k <= 6 here:
 * <= 2e-3 rho), differently in Phi and Phi_d; eigenvalues below ZERO_RTOL rho
 * count as zero and are not matched. */
#define EIG_RTOL 1e-8
#define ZERO_RTOL 1e-2

/* One-to-one: every eigenvalue of Phi_d above ZERO_RTOL rho is one of Phi,
 * and every one of Phi above it is one of Phi_d or 1 - alpha (the part of
 * du outside the row space of K); rho agrees. */
static void check_deflation(const cosa_system *sys, const cosa_scheme *s, double dt,
                            size_t expect_dim)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    const size_t n = lay.dim;
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(sys, s->order);
    deflate_workspace *dw = deflate_workspace_alloc(sys, s->order);
    cr_assert(pw && dw);
    const size_t dm = deflate_dim_max(dw);
    double *Phi = malloc(n * n * sizeof *Phi), *Pd = malloc(dm * dm * sizeof *Pd);
    double *lf = malloc(2 * n * sizeof *lf), *ld = malloc(2 * dm * sizeof *ld);
    unsigned char *used = calloc(n, 1);
    cr_assert(Phi && Pd && lf && ld && used);
    cr_assert_eq(cosa_phi_build(sys, s, dt, Phi, n, pw), COSA_OK);
    size_t nd = 0;
    cr_assert_eq(deflate_build(sys, s, dt, Pd, dm, &nd, dw), COSA_OK);
    cr_assert_leq(nd, n);
    if (expect_dim)
        cr_assert_eq(nd, expect_dim, "order of Phi_d %zu, expected %zu (Phi: %zu)", nd,
                     expect_dim, n);
    eigs(n, Phi, n, lf);
    eigs(nd, Pd, dm, ld);
    const double rho = hypot(lf[0], lf[1]);
    const double scale = rho > 1e-300 ? rho : 1.0, zero = ZERO_RTOL * scale;
    for (size_t k = 0; k < nd && hypot(ld[2 * k], ld[2 * k + 1]) > zero; k++) {
        size_t best = n;
        double bd = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (!used[i]) {
                const double d = hypot(lf[2 * i] - ld[2 * k], lf[2 * i + 1] - ld[2 * k + 1]);
                if (d < bd) {
                    bd = d;
                    best = i;
                }
            }
        cr_assert_lt(best, n);
        cr_expect_leq(bd / scale, EIG_RTOL, "eigenvalue %g%+gi of Phi_d: nearest of Phi %g away",
                      ld[2 * k], ld[2 * k + 1], bd);
        used[best] = 1;
    }
    const double oma = fabs(1.0 - s->alpha);
    for (size_t i = 0; i < n; i++)
        if (!used[i]) {
            const double m = hypot(lf[2 * i], lf[2 * i + 1]);
            const int is_oma = (s->corr & COSA_CORR_STATE) && fabs(m - oma) <= EIG_RTOL * scale;
            cr_expect(m <= zero || is_oma, "eigenvalue %g%+gi of Phi missing from Phi_d",
                      lf[2 * i], lf[2 * i + 1]);
        }
    double rd;
    cr_assert_eq(deflate_rho(sys, s, dt, &rd, dw), COSA_OK);
    cr_expect_leq(fabs(rd - rho) / scale, EIG_RTOL, "rho %.17g (deflated) vs %.17g (Phi)", rd,
                  rho);
    free(Phi);
    free(Pd);
    free(lf);
    free(ld);
    free(used);
    cosa_phi_workspace_free(pw);
    deflate_workspace_free(dw);
}

static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                  COSA_CORR_MBCORR};

Test(deflate, twomass_orders_and_spectra)
{
    /* [B_II; D_II] has rank 1 and D_I = 0: order nx + (p+1) r - 1 without
     * output correction, nx + (p+1) r (+ r with du) with it, r = 2. */
    const double pts[][3] = {{2e5, 5e2, 1e-4}, {1e9, 3.6e5, 3.16e-4}, {1e3, 1e6, 1e-3},
                             {1e10, 1.0, 1e-6}, {1.0, 1.0, 3.16e-3}};
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        cosa_system *sys = tu_twomass(pts[k][0], pts[k][1]);
        cr_assert(sys);
        for (int p = 0; p <= 4; p++)
            for (int c = 0; c < 4; c++) {
                cosa_scheme s = {p, corrs[c], 1.0, COSA_JACOBI, NULL, NULL, 0, 0, 0, 0.0};
                const size_t np = (size_t)p + 1;
                size_t expect = 4 + np * 2 + ((corrs[c] & COSA_CORR_STATE) ? 2 : 0) -
                                ((corrs[c] & COSA_CORR_OUTPUT) ? 0 : 1);
                check_deflation(sys, &s, pts[k][2], expect);
            }
        cosa_system_free(sys);
    }
}

Test(deflate, alpha_not_one_keeps_one_minus_alpha)
{
    /* the part of du outside the row space of K has eigenvalue 1 - alpha */
    cosa_system *sys = tu_twomass(2e5, 5e2);
    cr_assert(sys);
    const double alphas[] = {0.0, 0.3, 1.7};
    for (size_t a = 0; a < 3; a++)
        for (int p = 0; p <= 2; p++) {
            cosa_scheme s = {p, COSA_CORR_MBCORR, alphas[a], COSA_JACOBI, NULL, NULL, 0, 0, 0, 0.0};
            check_deflation(sys, &s, 1e-4, 0);
            s.corr = COSA_CORR_STATE;
            check_deflation(sys, &s, 1e-4, 0);
        }
    cosa_system_free(sys);
}

Test(deflate, other_models)
{
    const char *names[] = {"twomass-fd", "rotational", "chain"};
    for (size_t k = 0; k < 3; k++) {
        const cosa_model *m = cosa_model_find(names[k]);
        if (!m)
            continue; /* model not built in (yet) */
        double *par = calloc(m->nparam + 1, sizeof *par);
        cosa_system *sys = NULL;
        cosa_model_defaults(m, par);
        cr_assert_eq(m->create(m, par, &sys), COSA_OK);
        for (int p = 0; p <= 3; p++)
            for (int c = 0; c < 4; c++) {
                cosa_scheme s = {p, corrs[c], 1.0, COSA_JACOBI, NULL, NULL, 0, 0, 0, 0.0};
                check_deflation(sys, &s, 1e-3, 0);
            }
        cosa_system_free(sys);
        free(par);
    }
}

/* Random coupled systems: 3 subsystems, inputs wired to outputs of other
 * subsystems, some [B_i; D_i] with proportional or zero columns (r < nu)
 * and some zero rows of D (outputs that are functions of the state). */
Test(deflate, random_systems)
{
    unsigned long long st = 0x9e3779b97f4a7c15ULL;
    for (int trial = 0; trial < 12; trial++) {
        cosa_subsystem sub[3];
        double A[3][9], B[3][9], C[3][9], D[3][9];
        size_t ny_tot = 0, nu_tot = 0, oy[3];
        for (int i = 0; i < 3; i++) {
            const size_t nx = 1 + (size_t)(trial + i) % 3, nu = 1 + (size_t)(trial * 7 + i) % 3,
                         ny = 1 + (size_t)(trial * 5 + i) % 3;
            for (size_t k = 0; k < nx * nx; k++)
                A[i][k] = 0.5 * tu_rand(&st);
            for (size_t k = 0; k < nx; k++)
                A[i][k + k * nx] -= 2.0; /* stable subsystems */
            for (size_t k = 0; k < nx * nu; k++)
                B[i][k] = tu_rand(&st);
            for (size_t k = 0; k < ny * nx; k++)
                C[i][k] = tu_rand(&st);
            for (size_t k = 0; k < ny * nu; k++)
                D[i][k] = 0.3 * tu_rand(&st);
            if (nu >= 2 && trial % 3 != 2) { /* second input column = 0.7 x the first */
                for (size_t r = 0; r < nx; r++)
                    B[i][r + nx] = 0.7 * B[i][r];
                for (size_t r = 0; r < ny; r++)
                    D[i][r + ny] = 0.7 * D[i][r];
            }
            if (trial % 2 == 0) /* first output without feedthrough */
                for (size_t c = 0; c < nu; c++)
                    D[i][c * ny] = 0.0;
            sub[i] = (cosa_subsystem){nx, nu, ny, A[i], B[i], C[i], D[i]};
            oy[i] = ny_tot;
            ny_tot += ny;
            nu_tot += nu;
        }
        /* L: input k of subsystem i reads an output of subsystem (i+1) % 3 */
        double L[81] = {0};
        size_t u = 0;
        for (int i = 0; i < 3; i++) {
            const int src = (i + 1) % 3;
            for (size_t k = 0; k < sub[i].nu; k++, u++)
                L[u + (oy[src] + k % sub[src].ny) * nu_tot] = 1.0;
        }
        cosa_system *sys = NULL;
        cosa_status cst = cosa_system_create(&sys, 3, sub, L);
        if (cst == COSA_EALGLOOP)
            continue;
        cr_assert_eq(cst, COSA_OK);
        for (int p = 0; p <= 2; p++)
            for (int c = 0; c < 4; c++) {
                /* alpha = 1: with alpha != 1 the eigenvalue 1 - alpha is
                 * multiple and defective here, so rounding moves it by
                 * ~sqrt(eps) (the twomass test covers alpha != 1) */
                cosa_scheme s = {p, corrs[c], 1.0, COSA_JACOBI, NULL, NULL, 0, 0, 0, 0.0};
                check_deflation(sys, &s, 0.1, 0);
            }
        cosa_system_free(sys);
    }
}

Test(deflate, gauss_seidel_unsupported)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    deflate_workspace *dw = deflate_workspace_alloc(sys, 2);
    cosa_scheme s = {1, COSA_CORR_NONE, 1.0, COSA_GAUSS_SEIDEL, NULL, NULL, 0, 0, 0, 0.0};
    double rho;
    cr_assert_eq(deflate_rho(sys, &s, 1e-4, &rho, dw), COSA_EUNSUPPORTED);
    deflate_workspace_free(dw);
    cosa_system_free(sys);
}

/* Empty blocks: subsystems without inputs (nu_i = 0, and R = 0 coupling
 * signals in all), without outputs (ny_i = 0) or without states (nx_i = 0).
 * The deflated assembly once cleared ny x max(R, 1) doubles of a buffer
 * sized ny x nu (one double for nu = 0): a heap overflow of ny - 1 doubles.
 * rho from cosa_evaluate (deflated) must equal max |eig(Phi)| of the full
 * Phi (cosa_phi_build + cosa_spectral_radius).  Both are backward-stable
 * eigenvalue computations (dgeev) of matrices with the same nonzero
 * spectrum whose entries agree to rounding, so the dominant eigenvalue
 * differs by at most about n u ||A~|| / s, the error bound of the LAPACK
 * Users' Guide (sec. 4.8.1), with A~ the balanced Phi, s = RCONDE the
 * reciprocal condition number of the eigenvalue (dgeevx), n the order:
 * |rho_eval - rho_full| <= K n u ||A~||_1 / s,  u = DBL_EPSILON / 2,
 * K = 10 (two computations and their inputs).  Measured ratios <= 0.28 over
 * OpenBLAS Prescott/Haswell/Zen/SkylakeX and the reference BLAS/LAPACK
 * (differences up to 10.5 EPS rho; the former bound 64 EPS rho left a 6x
 * margin on SkylakeX). */
#define RHO_FULL_K 10.0

/* The LAPACK error bound n u ||A~||_1 / RCONDE of the eigenvalue of largest
 * modulus of the n x n matrix M (not modified). */
static double dominant_eig_errbound(size_t n, const double *M)
{
    lapack_int nn = (lapack_int)n, ilo, ihi;
    double *A = malloc(n * n * sizeof *A), *wr = malloc(n * sizeof *wr),
           *wi = malloc(n * sizeof *wi), *vl = malloc(n * n * sizeof *vl),
           *vr = malloc(n * n * sizeof *vr), *sc = malloc(n * sizeof *sc),
           *rce = malloc(n * sizeof *rce), *rcv = malloc(n * sizeof *rcv), abnrm;
    cr_assert(A && wr && wi && vl && vr && sc && rce && rcv);
    memcpy(A, M, n * n * sizeof *A);
    cr_assert_eq(LAPACKE_dgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', nn, A, nn, wr, wi, vl, nn,
                                vr, nn, &ilo, &ihi, sc, &abnrm, rce, rcv),
                 0, "dgeevx");
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        if (hypot(wr[i], wi[i]) > hypot(wr[k], wi[k]))
            k = i;
    double bound = (double)n * (DBL_EPSILON / 2) * abnrm / rce[k];
    free(A), free(wr), free(wi), free(vl), free(vr), free(sc), free(rce), free(rcv);
    return bound;
}

static cosa_model *parse_model(const char *text)
{
    cosa_model *m = NULL;
    char err[256] = "";
    cosa_status st = cosa_model_file_parse(text, strlen(text), "test", &m, err, sizeof err);
    cr_assert_eq(st, COSA_OK, "model file: %s (%s)", err, cosa_strerror(st));
    return m;
}

static void check_rho_full(const cosa_model *m, const char *scheme, double dt)
{
    double par[64];
    cr_assert_leq(m->nparam, 64);
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, &s, &lay), COSA_OK);
    const size_t n = lay.dim, nx = cosa_system_nx(sys);
    double *Phi = malloc(n * n * sizeof *Phi), *x0 = calloc(nx, sizeof *x0);
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(sys, s.order);
    cosa_eig_workspace *eg = cosa_eig_workspace_alloc(n);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, s.order);
    cr_assert(Phi && x0 && pw && eg && ew);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    double rho_full = NAN;
    cr_assert_eq(cosa_phi_build(sys, &s, dt, Phi, n, pw), COSA_OK);
    const double errb = dominant_eig_errbound(n, Phi);
    cr_assert_eq(cosa_spectral_radius(n, Phi, n, &rho_full, eg), COSA_OK);
    cosa_point_result r;
    cr_assert_eq(cosa_evaluate(sys, &s, dt, x0, m->tend, COSA_WANT_RHO | COSA_WANT_ERRORS, &r,
                               ew),
                 COSA_OK, "%s: cosa_evaluate", scheme);
    cr_expect_leq(fabs(r.rho - rho_full), RHO_FULL_K * errb,
                  "%s dt %g: rho %.17g (cosa_evaluate) vs %.17g (full Phi), ratio %.3g", scheme,
                  dt, r.rho, rho_full, fabs(r.rho - rho_full) / errb);
    cr_expect(r.err.e_global >= 0.0 && isfinite(r.err.e_global), "%s: e_global %g", scheme,
              r.err.e_global);
    if (s.exec == COSA_JACOBI)
        check_deflation(sys, &s, dt, 0);
    cosa_eval_workspace_free(ew);
    cosa_eig_workspace_free(eg);
    cosa_phi_workspace_free(pw);
    cosa_system_free(sys);
    free(Phi);
    free(x0);
}

static const char *const empty_schemes[] = {"zoh", "foh",  "soh+mbcorr", "p3+ocorr",
                                            "foh+ecorr", "gs:soh"};

/* check_rho_full of every scheme of empty_schemes at dt = 1e-2 and 0.3; frees m */
static void check_empty_schemes(cosa_model *m)
{
    for (size_t k = 0; k < sizeof empty_schemes / sizeof *empty_schemes; k++) {
        check_rho_full(m, empty_schemes[k], 1e-2);
        check_rho_full(m, empty_schemes[k], 0.3);
    }
    cosa_model_free(m);
}

Test(deflate, subsystem_without_inputs)
{
    /* README "Model files": one subsystem, `inputs` empty; 16 outputs, so
     * the overrun was 15 doubles */
    cosa_model *m = parse_model("model noin\ntend 1\nparam k = 4\ninitial s = 1\n"
                                "subsystem P\n  states s v\n  inputs\n"
                                "  outputs y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 y11 y12 y13 y14 y15 y16\n"
                                "  A = [ 0, 1; -k, -0.1 ]\n  C = eye\n  C[3,1] = 2\n"
                                "  C[16,2] = -1\n  x0 = [ s; 0 ]\nend\n");
    check_empty_schemes(m);
}

Test(deflate, source_gain_sink)
{
    /* a source without inputs, a pure gain without states, a sink without
     * outputs and an input-only subsystem (no states, no outputs) */
    cosa_model *m = parse_model(
        "model sgs\ntend 2\nparam k = 9\nparam g = 0.5\ninitial s = 1\n"
        "subsystem S\n  states s v\n  inputs\n  outputs s v\n"
        "  A = [ 0, 1; -k, -0.2 ]\n  C = eye\n  x0 = [ s; 0 ]\nend\n"
        "subsystem G\n  states\n  inputs a b\n  outputs F\n  D = [ g, -g ]\nend\n"
        "subsystem K\n  states z\n  inputs F\n  outputs\n  A = [ -3 ]\n  B = [ 1 ]\nend\n"
        "subsystem N\n  states\n  inputs q\n  outputs\nend\n"
        "connect S.s -> G.a\nconnect S.v -> G.b, N.q\nconnect G.F -> K.F\n");
    check_empty_schemes(m);
}

/* ---- sweeps ------------------------------------------------------------------ */

static cosa_sweep_spec twomass_spec(const cosa_model *m, const cosa_scheme *s, size_t ns,
                                    const double *dt, size_t ndt, cosa_metric metric, size_t n)
{
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){cosa_model_param_index(m, "ck"), 1.0, 1e10, 1, n, 0};
    sp.y = (cosa_sweep_axis){cosa_model_param_index(m, "dk"), 1.0, 1e7, 1, n, 0};
    sp.dt = dt;
    sp.ndt = ndt;
    sp.schemes = s;
    sp.nscheme = ns;
    sp.metric = metric;
    return sp;
}

Test(sweep, axis_values)
{
    cosa_sweep_axis a = {0, 1.0, 1e10, 1, 11, 0};
    cr_assert_eq(cosa_sweep_axis_value(&a, 0), 1.0);
    cr_assert_eq(cosa_sweep_axis_value(&a, 10), 1e10);
    cr_assert_float_eq(cosa_sweep_axis_value(&a, 5), 1e5, 1e5 * 4 * DBL_EPSILON);
    cr_assert(isnan(cosa_sweep_axis_value(&a, 11)));
    cosa_sweep_axis b = {0, -1.0, 1.0, 0, 5, 0};
    cr_assert_eq(cosa_sweep_axis_value(&b, 2), 0.0);
    cr_assert_eq(cosa_sweep_axis_value(&b, 4), 1.0);
    cosa_metric mt;
    cr_assert_eq(cosa_metric_parse("e_global", &mt), COSA_OK);
    cr_assert_eq(mt, COSA_METRIC_E_GLOBAL);
    cr_assert_str_eq(cosa_metric_name(COSA_METRIC_E_LOCAL), "e_local");
    cr_assert_eq(cosa_metric_parse("nope", &mt), COSA_EINVAL);
}

Test(sweep, bad_specs)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    const double dt[1] = {1e-4}, bad_dt[1] = {-1e-4};
    double v[64];
    cosa_sweep_spec sp = twomass_spec(m, &s, 1, dt, 1, COSA_METRIC_RHO, 4);
    cr_assert_eq(cosa_sweep_size(&sp), 16);
    cosa_sweep_spec b = sp;
    b.x.lo = 0.0; /* log axis through 0 */
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_ERANGE);
    b = sp;
    b.x.param = 99;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_EPARAM);
    b = sp;
    b.y.param = b.x.param;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_EINVAL);
    b = sp;
    b.dt = bad_dt;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_ERANGE);
    b = sp;
    b.tend = NAN; /* not silently replaced by the model's horizon */
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_ENONFINITE);
    b.metric = COSA_METRIC_E_GLOBAL;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_ENONFINITE);
    b = sp;
    b.x.n = 0;
    cr_assert_eq(cosa_sweep_size(&b), 0);
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_EINVAL);
    cr_assert_eq(cosa_sweep_run(&sp, NULL, NULL, NULL), COSA_EINVAL);
    cr_assert_eq(cosa_sweep_run(NULL, v, NULL, NULL), COSA_EINVAL);
}

/* Every value equals cosa_evaluate on a fresh system and workspace, to the
 * bit, for 1 and 2 threads. */
static void check_pointwise(cosa_metric metric, size_t n)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[3];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh+mbcorr", &s[1]);
    cosa_scheme_parse("gs:soh", &s[2]);
    const double dt[2] = {1e-3, 3.1622776601683795e-5};
    cosa_sweep_spec sp = twomass_spec(m, s, 3, dt, 2, metric, n);
    const size_t total = cosa_sweep_size(&sp);
    double *v1 = malloc(total * sizeof *v1), *v2 = malloc(total * sizeof *v2);
    cosa_status *s1 = malloc(total * sizeof *s1), *s2 = malloc(total * sizeof *s2);
    cr_assert(v1 && v2 && s1 && s2);
    size_t nf1 = 99, nf2 = 99;
    sp.threads = 1;
    cr_assert_eq(cosa_sweep_run(&sp, v1, s1, &nf1), COSA_OK);
    sp.threads = 2;
    cr_assert_eq(cosa_sweep_run(&sp, v2, s2, &nf2), COSA_OK);
    cr_assert_eq(memcmp(v1, v2, total * sizeof *v1), 0, "1 and 2 threads differ");
    cr_assert_eq(memcmp(s1, s2, total * sizeof *s1), 0);
    cr_assert_eq(nf1, 0);
    cr_assert_eq(nf2, 0);
    double par[32], x0[4];
    cosa_model_defaults(m, par);
    for (size_t is = 0; is < 3; is++)
        for (size_t it = 0; it < 2; it++)
            for (size_t ix = 0; ix < n; ix++)
                for (size_t iy = 0; iy < n; iy++) {
                    par[sp.x.param] = cosa_sweep_axis_value(&sp.x, ix);
                    par[sp.y.param] = cosa_sweep_axis_value(&sp.y, iy);
                    cosa_system *sys = NULL;
                    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
                    m->initial_state(m, par, x0);
                    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, s[is].order);
                    cosa_point_result r;
                    const unsigned want = metric == COSA_METRIC_RHO
                                              ? COSA_WANT_RHO
                                              : COSA_WANT_RHO | COSA_WANT_ERRORS;
                    cr_assert_eq(cosa_evaluate(sys, &s[is], dt[it], x0, m->tend, want, &r, ew),
                                 COSA_OK);
                    const double want_v =
                        metric == COSA_METRIC_RHO ? r.rho : r.err.e_global;
                    const double got = v1[cosa_sweep_index(&sp, is, it, ix, iy)];
                    cr_assert(memcmp(&got, &want_v, sizeof got) == 0,
                              "scheme %zu dt %g ck %g dk %g: sweep %.17g, point %.17g", is,
                              dt[it], par[sp.x.param], par[sp.y.param], got, want_v);
                    cosa_eval_workspace_free(ew);
                    cosa_system_free(sys);
                }
    free(v1);
    free(v2);
    free(s1);
    free(s2);
}

Test(sweep, rho_equals_pointwise_any_threads) { check_pointwise(COSA_METRIC_RHO, 8); }

Test(sweep, e_global_equals_pointwise_any_threads) { check_pointwise(COSA_METRIC_E_GLOBAL, 4); }

Test(sweep, failed_points_do_not_stop_the_sweep)
{
    /* m1 from -1 to 1: m1 <= 0 is rejected by the model (COSA_EPARAM) */
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[2];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("soh+mbcorr", &s[1]);
    const double dt[1] = {1e-4};
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){cosa_model_param_index(m, "m1"), -1.0, 1.0, 0, 5, 0};
    sp.y = (cosa_sweep_axis){cosa_model_param_index(m, "ck"), 1e3, 1e6, 1, 3, 0};
    sp.dt = dt;
    sp.ndt = 1;
    sp.schemes = s;
    sp.nscheme = 2;
    sp.metric = COSA_METRIC_RHO;
    sp.threads = 2;
    double v[30];
    cosa_status st[30];
    size_t nf = 0;
    cr_assert_eq(cosa_sweep_run(&sp, v, st, &nf), COSA_OK);
    cr_assert_eq(nf, 2 * 3 * 3, "m1 = -1, -0.5, 0 for 3 ck and 2 schemes");
    for (size_t is = 0; is < 2; is++)
        for (size_t ix = 0; ix < 5; ix++)
            for (size_t iy = 0; iy < 3; iy++) {
                const size_t k = cosa_sweep_index(&sp, is, 0, ix, iy);
                if (ix <= 2) {
                    cr_assert(isnan(v[k]));
                    cr_assert_eq(st[k], COSA_EPARAM);
                } else {
                    cr_assert_eq(st[k], COSA_OK);
                    cr_assert(isfinite(v[k]) && v[k] > 0.0);
                }
            }
}

Test(sweep, unstable_points_are_inf_for_errors)
{
    /* ZOH at dt = 3.16e-3 and ck = 1e10 is unstable: e_global = +inf, as
     * cosa_evaluate gives it */
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    const double dt[1] = {3.1622776601683794e-3};
    cosa_sweep_spec sp = twomass_spec(m, &s, 1, dt, 1, COSA_METRIC_E_GLOBAL, 3);
    double v[9];
    cr_assert_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_OK);
    cr_assert(isinf(v[cosa_sweep_index(&sp, 0, 0, 2, 0)]) &&
              v[cosa_sweep_index(&sp, 0, 0, 2, 0)] > 0);
}

static size_t progress_calls, last_done, last_total;
static void progress(size_t done, size_t total, void *ud)
{
    (void)ud;
    cr_assert_geq(done, last_done);
    progress_calls++;
    last_done = done;
    last_total = total;
}

Test(sweep, progress_reaches_total)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("foh", &s);
    const double dt[2] = {1e-4, 1e-5};
    cosa_sweep_spec sp = twomass_spec(m, &s, 1, dt, 2, COSA_METRIC_RHO, 6);
    sp.progress = progress;
    sp.threads = 2;
    double v[72];
    cr_assert_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_OK);
    cr_assert_geq(progress_calls, 1);
    cr_assert_eq(last_done, 72);
    cr_assert_eq(last_total, 72);
}

/* ---- structural parameters and work items ------------------------------------ */

/* Every value of a sweep over chain's n (x) and optionally r (y) equals
 * cosa_evaluate on a system created directly for the point, to the bit,
 * for 1 and 2 threads.  model->update cannot change n or r (it returns
 * COSA_EINVAL); the sweep then rebuilds the thread's system. */
static void check_chain(cosa_metric metric, int with_r)
{
    const cosa_model *m = cosa_model_find("chain");
    cr_assert_not_null(m);
    cosa_scheme s[3];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh+mbcorr", &s[1]);
    cosa_scheme_parse("gs:soh", &s[2]);
    const double dt[2] = {1e-3, 4e-3};
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){cosa_model_param_index(m, "n"), 3.0, 6.0, 0, 4, 0};
    /* r = 1 would leave no coupling signals (ny = 0: no error metric) */
    sp.y = with_r ? (cosa_sweep_axis){cosa_model_param_index(m, "r"), 2.0, 3.0, 0, 2, 0}
                  : (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.dt = dt;
    sp.ndt = 2;
    sp.schemes = s;
    sp.nscheme = 3;
    sp.metric = metric;
    const size_t total = cosa_sweep_size(&sp);
    cr_assert_gt(total, 0);
    double *v[2] = {malloc(total * sizeof(double)), malloc(total * sizeof(double))};
    cosa_status *st[2] = {malloc(total * sizeof(cosa_status)),
                          malloc(total * sizeof(cosa_status))};
    cr_assert(v[0] && v[1] && st[0] && st[1]);
    for (int k = 0; k < 2; k++) {
        size_t nf = 99;
        sp.threads = k + 1;
        cr_assert_eq(cosa_sweep_run(&sp, v[k], st[k], &nf), COSA_OK);
        cr_expect_eq(nf, 0, "%d thread(s): %zu failed points", k + 1, nf);
    }
    cr_assert_eq(memcmp(v[0], v[1], total * sizeof(double)), 0, "1 and 2 threads differ");
    double par[16], x0[64];
    const int ir = cosa_model_param_index(m, "r");
    cr_assert_geq(ir, 0);
    cosa_model_defaults(m, par);
    for (size_t ix = 0; ix < sp.x.n; ix++)
        for (size_t iy = 0; iy < sp.y.n; iy++) {
            par[sp.x.param] = cosa_sweep_axis_value(&sp.x, ix);
            if (with_r)
                par[sp.y.param] = cosa_sweep_axis_value(&sp.y, iy);
            cosa_system *sys = NULL;
            cr_assert_eq(m->create(m, par, &sys), COSA_OK);
            cr_assert_leq(cosa_system_nx(sys), 64);
            cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
            cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 2);
            cr_assert_not_null(ew);
            for (size_t is = 0; is < 3; is++)
                for (size_t it = 0; it < 2; it++) {
                    const size_t idx = cosa_sweep_index(&sp, is, it, ix, iy);
                    cosa_point_result r;
                    const unsigned want = metric == COSA_METRIC_RHO
                                              ? COSA_WANT_RHO
                                              : COSA_WANT_RHO | COSA_WANT_ERRORS;
                    cosa_status pst =
                        cosa_evaluate(sys, &s[is], dt[it], x0, m->tend, want, &r, ew);
                    double want_v = metric == COSA_METRIC_RHO ? r.rho : r.err.e_global;
                    if (metric != COSA_METRIC_RHO && pst == COSA_OK &&
                        r.rho > 1.0 + COSA_RHO_TOL)
                        want_v = INFINITY;
                    cr_expect_eq(st[0][idx], pst, "n %g r %g: status %d vs %d", par[sp.x.param],
                                 par[ir], (int)st[0][idx], (int)pst);
                    if (pst != COSA_OK)
                        continue;
                    cr_expect(memcmp(&v[0][idx], &want_v, sizeof want_v) == 0,
                              "scheme %zu dt %g n %g r %g: sweep %.17g, point %.17g", is,
                              dt[it], par[sp.x.param], par[ir], v[0][idx], want_v);
                }
            cosa_eval_workspace_free(ew);
            cosa_system_free(sys);
        }
    for (int k = 0; k < 2; k++) {
        free(v[k]);
        free(st[k]);
    }
}

Test(sweep, structural_parameter_n) { check_chain(COSA_METRIC_RHO, 0); }

Test(sweep, structural_parameters_n_r_e_global) { check_chain(COSA_METRIC_E_GLOBAL, 1); }

/* A curve over dt (one grid point, many macro steps) runs on every thread:
 * a model whose update waits until two threads have called it (each thread
 * updates once, at its first item of the point) -- with a single thread
 * doing all the work it times out.  Values bit-identical to one thread. */
static const cosa_model *rv_base;
static atomic_int rv_arrived;
static atomic_int rv_timed_out;

static cosa_status rv_update(const cosa_model *m, const double *par, cosa_system *sys)
{
    atomic_fetch_add(&rv_arrived, 1);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (atomic_load(&rv_arrived) < 2) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > 10.0) {
            atomic_store(&rv_timed_out, 1);
            break;
        }
    }
    return rv_base->update(rv_base, par, sys);
}

Test(sweep, dt_curve_uses_the_threads)
{
    rv_base = cosa_model_find("twomass");
    cosa_model rv = *rv_base;
    rv.update = rv_update;
    cosa_scheme s[2];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("soh+mbcorr", &s[1]);
    enum { NDT = 64 };
    double dt[NDT];
    cosa_sweep_axis da = {0, 1e-6, 1e-2, 1, NDT, 0};
    for (size_t k = 0; k < NDT; k++)
        dt[k] = cosa_sweep_axis_value(&da, k);
    cosa_sweep_spec sp = {0};
    sp.model = &rv;
    sp.x = sp.y = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.dt = dt;
    sp.ndt = NDT;
    sp.schemes = s;
    sp.nscheme = 2;
    sp.metric = COSA_METRIC_E_GLOBAL;
    double v1[2 * NDT], v2[2 * NDT];
    sp.threads = 2;
    cr_assert_eq(cosa_sweep_run(&sp, v2, NULL, NULL), COSA_OK);
    cr_expect_eq(atomic_load(&rv_arrived), 2, "%d thread(s) updated the model",
                 atomic_load(&rv_arrived));
    cr_expect_not(atomic_load(&rv_timed_out), "only one thread worked on the dt curve");
    sp.model = rv_base;
    sp.threads = 1;
    cr_assert_eq(cosa_sweep_run(&sp, v1, NULL, NULL), COSA_OK);
    cr_assert_eq(memcmp(v1, v2, sizeof v1), 0, "1 and 2 threads differ");
    for (size_t k = 0; k < 2 * NDT; k++)
        cr_assert(!isnan(v1[k]));
}

/* ---- listed and adaptive sweeps ---------------------------------------------- */

/* A listed sweep writes exactly the listed results, bitwise those of the
 * full sweep, in any order; an index past the end is refused. */
Test(sweep, list_equals_full)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[2];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh+mbcorr", &s[1]);
    const double dt[2] = {1e-3, 1e-4};
    cosa_sweep_spec sp = twomass_spec(m, s, 2, dt, 2, COSA_METRIC_E_GLOBAL, 6);
    const size_t total = cosa_sweep_size(&sp);
    double *full = malloc(total * sizeof *full), *part = malloc(total * sizeof *part);
    size_t *list = malloc(total * sizeof *list), n = 0;
    cr_assert_eq(cosa_sweep_run(&sp, full, NULL, NULL), COSA_OK);
    for (size_t i = 0; i < total; i++)
        part[i] = -7.0; /* untouched marker */
    for (size_t i = total; i-- > 0;) /* every third, backwards */
        if (i % 3 == 1)
            list[n++] = i;
    size_t nf = 99;
    cr_assert_eq(cosa_sweep_run_list(&sp, list, n, part, NULL, &nf), COSA_OK);
    cr_expect_eq(nf, 0);
    for (size_t i = 0; i < total; i++)
        if (i % 3 == 1)
            cr_expect(memcmp(&part[i], &full[i], sizeof(double)) == 0, "result %zu", i);
        else
            cr_expect_eq(part[i], -7.0, "result %zu written though not listed", i);
    list[0] = total;
    cr_expect_eq(cosa_sweep_run_list(&sp, list, 1, part, NULL, NULL), COSA_EINVAL);
    cr_expect_eq(cosa_sweep_run_list(&sp, NULL, 0, part, NULL, NULL), COSA_OK);
    free(full);
    free(part);
    free(list);
}

/* value < level on both sides of the comparison */
static int below(double v, double level) { return v < level; }

/* An adaptive map against the full one: exact points bitwise equal, every
 * point classified the same (this set has no sub-cell islands), every
 * point with a differently classified neighbour exact, fewer evaluations;
 * coarse = 1 is the full map. */
static void check_adaptive(cosa_metric metric, double level, size_t n, size_t coarse)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[3];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh+mbcorr", &s[1]);
    cosa_scheme_parse("soh", &s[2]);
    const double dt[2] = {10e-4, 10e-5};
    cosa_sweep_spec sp = twomass_spec(m, s, 3, dt, 2, metric, n);
    const size_t total = cosa_sweep_size(&sp);
    double *full = malloc(total * sizeof *full), *ad = malloc(total * sizeof *ad);
    unsigned char *ex = malloc(total);
    cosa_status *st = malloc(total * sizeof *st);
    cr_assert_eq(cosa_sweep_run(&sp, full, NULL, NULL), COSA_OK);
    const cosa_adaptive_opts o = {level, coarse, 1.0, metric != COSA_METRIC_RHO};
    size_t nf = 99, nev = 0;
    cr_assert_eq(cosa_sweep_adaptive(&sp, &o, ad, st, ex, &nf, &nev), COSA_OK);
    cr_expect_eq(nf, 0);
    size_t nexact = 0;
    for (size_t i = 0; i < total; i++) {
        nexact += ex[i];
        cr_expect_eq(st[i], COSA_OK);
        if (ex[i])
            cr_expect(memcmp(&ad[i], &full[i], sizeof(double)) == 0, "exact point %zu", i);
        cr_expect_eq(below(ad[i], level), below(full[i], level),
                     "point %zu: full %.17g, adaptive %.17g", i, full[i], ad[i]);
    }
    cr_expect_eq(nexact, nev);
    for (size_t is = 0; is < 3; is++)
        for (size_t it = 0; it < 2; it++)
            for (size_t ix = 0; ix < n; ix++)
                for (size_t iy = 0; iy < n; iy++) {
                    const size_t i = cosa_sweep_index(&sp, is, it, ix, iy);
                    const size_t nb[2] = {ix + 1 < n ? cosa_sweep_index(&sp, is, it, ix + 1, iy) : i,
                                          iy + 1 < n ? cosa_sweep_index(&sp, is, it, ix, iy + 1) : i};
                    for (int k = 0; k < 2; k++)
                        if (below(full[i], level) != below(full[nb[k]], level))
                            cr_expect(ex[i] && ex[nb[k]], "a contour between %zu and %zu, not exact",
                                      i, nb[k]);
                }
    if (coarse == 1)
        cr_expect_eq(nev, total);
    else
        cr_expect_lt(nev, total / 2, "evaluated %zu of %zu", nev, total);
    free(full);
    free(ad);
    free(ex);
    free(st);
}

/* The bookkeeping between rounds runs the planes side by side: with 1, 2
 * and 3 threads the adaptive map is bitwise the same (values, exact flags,
 * evaluation count), and so is the full map at its exact points. */
Test(adaptive, same_for_any_threads)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[3];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh+mbcorr", &s[1]);
    cosa_scheme_parse("soh", &s[2]);
    const double dt[2] = {10e-4, 10e-5};
    cosa_sweep_spec sp = twomass_spec(m, s, 3, dt, 2, COSA_METRIC_RHO, 40);
    const size_t total = cosa_sweep_size(&sp);
    double *v[3];
    unsigned char *ex[3];
    size_t nev[3];
    const cosa_adaptive_opts o = {1.0, 6, 1.0, 0};
    for (int k = 0; k < 3; k++) {
        v[k] = malloc(total * sizeof *v[k]);
        ex[k] = malloc(total);
        sp.threads = k + 1;
        cr_assert_eq(cosa_sweep_adaptive(&sp, &o, v[k], NULL, ex[k], NULL, &nev[k]), COSA_OK);
    }
    for (int k = 1; k < 3; k++) {
        cr_expect_eq(memcmp(v[0], v[k], total * sizeof *v[0]), 0, "1 and %d threads differ", k + 1);
        cr_expect_eq(memcmp(ex[0], ex[k], total), 0, "exact flags: 1 and %d threads", k + 1);
        cr_expect_eq(nev[0], nev[k]);
    }
    cr_expect_lt(nev[0], total / 2); /* the refinement did run (not the full grid) */
    for (int k = 0; k < 3; k++) {
        free(v[k]);
        free(ex[k]);
    }
}

Test(adaptive, rho_map) { check_adaptive(COSA_METRIC_RHO, 1.0, 48, 8); }
Test(adaptive, e_global_map) { check_adaptive(COSA_METRIC_E_GLOBAL, 0.01, 24, 4); }
Test(adaptive, coarse_one_is_the_full_map) { check_adaptive(COSA_METRIC_RHO, 1.0, 12, 1); }

/* A curve over dt (the plane is (dt)): FOH at ck = 1e9, dk = 3.6e5 is stable
 * only in a window below 3.16e-4 (MBCorr paper Fig 5); the adaptive curve
 * keeps both crossings. */
Test(adaptive, curve_over_dt_keeps_the_window)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    par[cosa_model_param_index(m, "ck")] = 1e9;
    par[cosa_model_param_index(m, "dk")] = 3.6e5;
    cosa_scheme s;
    cosa_scheme_parse("foh", &s);
    enum { N = 300 };
    double dt[N];
    for (size_t k = 0; k < N; k++)
        dt[k] = pow(10.0, -6.0 + 3.5 * (double)k / (N - 1));
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.par = par;
    sp.x = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.y = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.dt = dt;
    sp.ndt = N;
    sp.schemes = &s;
    sp.nscheme = 1;
    sp.metric = COSA_METRIC_RHO;
    double full[N], ad[N];
    unsigned char ex[N];
    cr_assert_eq(cosa_sweep_run(&sp, full, NULL, NULL), COSA_OK);
    const cosa_adaptive_opts o = {1.0, 8, 1.0, 0};
    size_t nev;
    cr_assert_eq(cosa_sweep_adaptive(&sp, &o, ad, NULL, ex, NULL, &nev), COSA_OK);
    size_t crossings = 0;
    for (size_t k = 0; k < N; k++) {
        cr_expect_eq(below(ad[k], 1.0), below(full[k], 1.0), "dt %g", dt[k]);
        if (k + 1 < N && below(full[k], 1.0) != below(full[k + 1], 1.0)) {
            crossings++;
            cr_expect(ex[k] && ex[k + 1]);
        }
    }
    cr_expect_geq(crossings, 2, "the window has two ends");
    cr_expect_lt(nev, N / 2);
}

Test(adaptive, bad_options)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    const double dt = 1e-3;
    cosa_sweep_spec sp = twomass_spec(m, &s, 1, &dt, 1, COSA_METRIC_RHO, 4);
    double v[16];
    unsigned char ex[16];
    const cosa_adaptive_opts bad[] = {{1.0, 0, 1.0, 0},  {1.0, 8, -1.0, 0}, {NAN, 8, 1.0, 0},
                                      {0.0, 8, 1.0, 0},  {-1.0, 8, 1.0, 1}, {1.0, 8, INFINITY, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_eq(cosa_sweep_adaptive(&sp, &bad[i], v, NULL, ex, NULL, NULL), COSA_ERANGE,
                     "case %zu", i);
    cr_expect_eq(cosa_sweep_adaptive(&sp, NULL, v, NULL, ex, NULL, NULL), COSA_EINVAL);
}

/* A synthetic plane through the list-function seam: value 2 everywhere
 * except a 9 x 9 block in the far corner (detected by the coarse grid) and
 * a line one point wide, a = b + 3, running from that block to the opposite
 * edge between the coarse points, both at 0.5.  With margin 0 no coarse
 * cell along the line hints at it (its corners all read 2); only contour
 * tracing from the block follows it.  Without tracing the line is lost. */
#define THIN_N 65
static double thin_value(size_t a, size_t b)
{
    return (a >= THIN_N - 9 && b >= THIN_N - 9) || a == b + 3 ? 0.5 : 2.0;
}

static cosa_status thin_list(const cosa_sweep_spec *sp, const size_t *list, size_t n,
                             double *values, cosa_status *status, size_t *nfailed, void *data)
{
    size_t *calls = data;
    ++*calls;
    for (size_t i = 0; i < n; i++) {
        const size_t k = list[i] % (sp->x.n * sp->y.n);
        values[list[i]] = thin_value(k / sp->y.n, k % sp->y.n);
        if (status)
            status[list[i]] = COSA_OK;
    }
    if (nfailed)
        *nfailed = 0;
    return COSA_OK;
}

Test(adaptive, tracing_follows_a_thin_valley)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    const double dt = 1e-3;
    cosa_sweep_spec sp = twomass_spec(m, &s, 1, &dt, 1, COSA_METRIC_RHO, THIN_N);
    const size_t total = cosa_sweep_size(&sp);
    double *v = malloc(total * sizeof *v);
    unsigned char *ex = malloc(total);
    const cosa_adaptive_opts o = {1.0, 16, 0.0, 0};
    size_t calls = 0, nev = 0;
    cr_assert_eq(cosa_sweep_adaptive_with(&sp, &o, thin_list, &calls, v, NULL, ex, NULL, &nev),
                 COSA_OK);
    for (size_t a = 0; a < THIN_N; a++)
        for (size_t b = 0; b < THIN_N; b++) {
            const size_t i = a * THIN_N + b;
            cr_expect_eq(v[i] < 1.0, thin_value(a, b) < 1.0, "point (%zu, %zu): %g", a, b, v[i]);
            /* both ends of every level crossing evaluated */
            if (a + 1 < THIN_N && (thin_value(a, b) < 1.0) != (thin_value(a + 1, b) < 1.0))
                cr_expect(ex[i] && ex[i + THIN_N], "crossing (%zu, %zu)-(%zu, %zu)", a, b, a + 1, b);
            if (b + 1 < THIN_N && (thin_value(a, b) < 1.0) != (thin_value(a, b + 1) < 1.0))
                cr_expect(ex[i] && ex[i + 1], "crossing (%zu, %zu)-(%zu, %zu)", a, b, a, b + 1);
        }
    /* the line and its two neighbour lines, the block's rim, the coarse
     * grid: far fewer than all points, though more than one round */
    cr_expect_lt(nev, total / 2, "evaluated %zu of %zu", nev, total);
    cr_expect_gt(calls, 2);
    free(v);
    free(ex);
}

/* The progress of an adaptive map runs once through all grid points: never
 * backwards over the rounds, the total only at the very end. */
static size_t ad_ends;
static void ad_progress(size_t done, size_t total, void *ud)
{
    (void)ud;
    cr_assert_geq(done, last_done, "progress went back from %zu to %zu", last_done, done);
    cr_assert_leq(done, total);
    ad_ends += done == total;
    progress_calls++;
    last_done = done;
    last_total = total;
}

Test(adaptive, progress_through_the_rounds)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[2];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("foh", &s[1]);
    const double dt[2] = {1e-3, 1e-4};
    cosa_sweep_spec sp = twomass_spec(m, s, 2, dt, 2, COSA_METRIC_RHO, 40);
    sp.progress = ad_progress;
    const size_t total = cosa_sweep_size(&sp);
    double *v = malloc(total * sizeof *v);
    unsigned char *ex = malloc(total);
    const cosa_adaptive_opts o = {1.0, 8, 1.0, 0};
    progress_calls = last_done = last_total = ad_ends = 0;
    size_t nev = 0;
    cr_assert_eq(cosa_sweep_adaptive(&sp, &o, v, NULL, ex, NULL, &nev), COSA_OK);
    cr_expect_gt(progress_calls, 1);
    cr_expect_eq(ad_ends, 1, "the total is reported once, at the end");
    cr_expect_eq(last_done, total);
    cr_expect_eq(last_total, total);
    cr_expect_lt(nev, total);
    free(v);
    free(ex);
}
