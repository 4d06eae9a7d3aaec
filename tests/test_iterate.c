/* test_iterate.c -- iterative coupling in the time domain (lib/td/iterate.c)
 * against the Phi route (lib/phi/phi_iter.c), an independent assembly of the
 * same macro step from the Van Loan blocks of the whole system:
 *  - exact linear units, a fixed k: the run's z_n equals Phi^n z0;
 *  - k = 1 with q = p equals the explicit master's run (Jacobi p, gs:p);
 *  - the update ratio per sweep measured in the run equals rho_iter of
 *    cosa_phi_iter_info (the iteration matrix's spectral radius);
 *  - a run converged to a tight tolerance equals Phi(k = inf)^n z0.
 * Comparisons are componentwise scale-free as in test_master.c:
 * max_n |z_r,n - z*_r,n| / max_n |z*_r,n|, the largest over r. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cosa_system *model_system(const char *name, double *x0)
{
    return tu_model_system(name, x0);
}

struct units {
    size_t n;
    cosa_unit **u;
    cosa_unitset *set;
};

static struct units make_units(const cosa_system *sys)
{
    struct units U = {cosa_system_nsub(sys), NULL, NULL};
    U.u = calloc(U.n, sizeof *U.u);
    cr_assert_not_null(U.u);
    for (size_t i = 0; i < U.n; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &U.u[i]), COSA_OK);
    cr_assert_eq(cosa_unitset_create(U.n, U.u, cosa_system_L(sys), NULL, &U.set), COSA_OK);
    return U;
}

static void free_units(struct units *U)
{
    cosa_unitset_free(U->set);
    for (size_t i = 0; i < U->n; i++)
        cosa_unit_free(U->u[i]);
    free(U->u);
}

/* The run of scheme s (through cosa_iter with options o) against Phi(sphi)^n
 * z0 over nsteps; returns the worst componentwise relative difference and,
 * if st is not NULL, the iteration's statistics. */
static double iter_vs_phi(const cosa_system *sys, const cosa_scheme *s, const cosa_scheme *sphi,
                          const cosa_iter_opts *o, double dt, const double *x0, size_t nsteps,
                          cosa_iter_stats *st)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, sphi, &lay), COSA_OK);
    const size_t d = lay.dim;
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, sphi->order + 1);
    tu_phibuf B = tu_phibuf_alloc(d);
    double *Phi = B.Phi, *z = B.z, *zn = B.zn, *zm = B.zm, *dmax = B.dmax, *rmax = B.rmax;
    cr_assert_not_null(w);
    cr_assert_eq(cosa_phi_build(sys, sphi, dt, Phi, d, w), COSA_OK);
    cr_assert_eq(cosa_z0_build(sys, sphi, dt, x0, z, w), COSA_OK);
    struct units U = make_units(sys);
    cosa_iter *it = NULL;
    cr_assert_eq(cosa_iter_create(U.set, s, dt, NULL, o, &it), COSA_OK);
    cosa_master *m = cosa_iter_master(it);
    cr_assert_eq(cosa_master_init(m, s->order * dt, z, z + lay.off_y, NULL), COSA_OK);
    for (size_t n = 1; n <= nsteps; n++) {
        tu_phi_apply(Phi, d, z, zn);
        cr_assert_eq(cosa_iter_step(it), COSA_OK, "step %zu", n);
        cr_assert_eq(cosa_master_info(m, zm), COSA_OK);
        for (size_t i = 0; i < d; i++) {
            dmax[i] = fmax(dmax[i], fabs(zm[i] - z[i]));
            rmax[i] = fmax(rmax[i], fabs(z[i]));
        }
    }
    double worst = 0.0;
    for (size_t i = 0; i < d; i++)
        worst = fmax(worst, rmax[i] > 0.0 ? dmax[i] / rmax[i] : dmax[i]);
    if (st)
        cr_assert_eq(cosa_iter_get_stats(it, st), COSA_OK);
    cosa_iter_free(it);
    free_units(&U);
    cosa_phi_workspace_free(w);
    tu_phibuf_free(&B);
    return worst;
}

static cosa_scheme parse(const char *name, unsigned k, double relax)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK, "%s", name);
    if (s.implicit) {
        s.iterations = k;
        s.relax = relax;
    }
    return s;
}

/* Fixed k on exact units is Phi^n z0.  Both routes assemble the same affine
 * step from Van Loan blocks (the run per unit, Phi over the stacked system),
 * so they differ by rounding: ~1e-15 per step relative to |z|, grown over
 * 100 steps of spectral radius <= 1 by at most ~100 x and by the outputs'
 * amplification |Phi| ~ 10 of the iterate: 1e-10 is a 10^2 margin. */
Test(iterate, fixed_k_is_phi_n)
{
    const char *models[] = {"twomass", "oscillator"};
    const double dts[] = {1e-3, 1e-2};
    const struct {
        const char *name;
        unsigned k;
        double relax;
    } cases[] = {{"imp:zoh", 3, 1.0},    {"imp:foh", 2, 0.7},   {"imp:zoh/1", 4, 1.0},
                 {"gs-imp:zoh", 3, 1.0}, {"gs-imp:foh/2", 2, 1.3}, {"gs:foh/2", 1, 1.0},
                 {"imp:soh", 5, 0.9}};
    for (size_t mi = 0; mi < 2; mi++) {
        double x0[16];
        cosa_system *sys = model_system(models[mi], x0);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            cosa_scheme s = parse(cases[c].name, cases[c].k, cases[c].relax);
            cosa_iter_opts o = {.iterations = cases[c].k, .tol = 1e-8};
            double e = iter_vs_phi(sys, &s, &s, &o, dts[mi], x0, 100, NULL);
            cr_log_info("%s %s k=%u w=%g: %.3g\n", models[mi], cases[c].name, cases[c].k,
                        cases[c].relax, e);
            cr_expect_leq(e, 1e-10, "%s %s: run vs Phi^n z0 %.3g", models[mi], cases[c].name, e);
        }
        cosa_system_free(sys);
    }
}

/* k = 1 with q = p is the explicit scheme: the run of imp:p (k = 1) and of
 * gs-imp:p (k = 1) against Phi of the explicit Jacobi p and gs:p (built by
 * the explicit Phi code, lib/phi/phi.c, not phi_iter.c); the same rounding
 * argument, 1e-10. */
Test(iterate, one_sweep_is_explicit)
{
    double x0[16];
    cosa_system *sys = model_system("twomass", x0);
    const char *imp[] = {"imp:zoh", "imp:foh", "imp:p3", "gs-imp:zoh", "gs-imp:soh"};
    const char *expl[] = {"zoh", "foh", "p3", "gs:zoh", "gs:soh"};
    for (size_t c = 0; c < 5; c++) {
        cosa_scheme s = parse(imp[c], 1, 1.0), se = parse(expl[c], 0, 1.0);
        cosa_iter_opts o = {.iterations = 1, .tol = 1e-8};
        double e = iter_vs_phi(sys, &s, &se, &o, 1e-3, x0, 100, NULL);
        cr_log_info("%s k=1 vs %s: %.3g\n", imp[c], expl[c], e);
        cr_expect_leq(e, 1e-10, "%s (k = 1) vs Phi of %s: %.3g", imp[c], expl[c], e);
    }
    cosa_system_free(sys);
}

/* The contraction measured in the run (sqrt of the update ratio over two
 * sweeps, late in the iteration) is rho(T(omega)) of the iteration matrix:
 * the update obeys d_j = T d_{j-1} exactly for linear units, so the ratio
 * tends to rho(T) with the next eigenvalue's share decaying as
 * (|mu_2| / rho)^j; the mean over windows is within a few percent (2 %). */
Test(iterate, contraction_is_rho_iter)
{
    const struct {
        const char *model, *scheme;
        double dt, relax;
    } cases[] = {{"twomass", "imp:zoh", 1e-3, 1.0},     {"twomass", "imp:foh", 1e-3, 0.8},
                 {"twomass", "gs-imp:zoh", 1e-3, 1.0},  {"oscillator", "imp:foh", 0.1, 1.0},
                 {"oscillator", "imp:zoh", 0.05, 0.6},  {"oscillator", "gs-imp:foh", 0.1, 1.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double x0[16];
        cosa_system *sys = model_system(cases[c].model, x0);
        cosa_scheme s = parse(cases[c].scheme, 60, cases[c].relax);
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s.order + 1);
        cosa_iter_info info;
        cr_assert_eq(cosa_phi_iter_info(sys, &s, cases[c].dt, &info, w), COSA_OK);
        cosa_iter_opts o = {.iterations = 60, .tol = 1e-8};
        cosa_iter_stats st;
        (void)iter_vs_phi(sys, &s, &s, &o, cases[c].dt, x0, 20, &st);
        cr_log_info("%s %s dt %g w %g: contraction %.6g rho_iter %.6g (%zu windows)\n",
                    cases[c].model, cases[c].scheme, cases[c].dt, cases[c].relax, st.contraction,
                    info.rho_iter, st.nest);
        cr_expect_gt(st.nest, 0);
        cr_expect_leq(fabs(st.contraction - info.rho_iter), 0.02 * info.rho_iter,
                      "%s %s: contraction %.6g vs rho_iter %.6g", cases[c].model, cases[c].scheme,
                      st.contraction, info.rho_iter);
        cosa_phi_workspace_free(w);
        cosa_system_free(sys);
    }
}

/* Converged to tol = 1e-13 (relative, on the iterate), the run is the fixed
 * point Phi(k = inf): a step's iterate error <= tol |y| / (1 - rho_iter)
 * (rho_iter <= 0.25 here), carried through ~100 steps of a stable Phi:
 * ~1e-11 relative; 1e-9 leaves the solve's conditioning a margin. */
Test(iterate, converged_is_phi_inf)
{
    double x0[16];
    const char *models[] = {"twomass", "oscillator"};
    const double dts[] = {1e-3, 1e-2};
    const char *names[] = {"imp:zoh", "imp:foh", "gs-imp:foh", "imp:zoh/1"};
    for (size_t mi = 0; mi < 2; mi++) {
        cosa_system *sys = model_system(models[mi], x0);
        for (size_t c = 0; c < 4; c++) {
            cosa_scheme s = parse(names[c], 0, 1.0);
            cosa_iter_opts o = {.iterations = 100, .converge = 1, .tol = 1e-13};
            cosa_iter_stats st;
            double e = iter_vs_phi(sys, &s, &s, &o, dts[mi], x0, 100, &st);
            cr_log_info("%s %s converged: %.3g, %zu sweeps, max %u, %zu not converged\n",
                        models[mi], names[c], e, st.sweeps, st.sweeps_max, st.not_converged);
            cr_expect_eq(st.not_converged, 0, "%s %s", models[mi], names[c]);
            cr_expect_leq(e, 1e-9, "%s %s: converged run vs Phi(inf)^n z0 %.3g", models[mi],
                          names[c], e);
        }
        cosa_system_free(sys);
    }
}

/* Aitken's relaxation converges to the same fixed point (it changes only how
 * fast; on Gauss-Seidel, preCICE's serial-implicit setting, where M is 1 x 1
 * here and the secant is exact), and bad arguments are refused before
 * anything is allocated. */
Test(iterate, aitken_and_arguments)
{
    double x0[16];
    cosa_system *sys = model_system("oscillator", x0);
    cosa_scheme s = parse("gs-imp:foh", 0, 0.5);
    /* tol 1e-10, well above rounding: at 1e-13 the stopping rule was decided
     * by the last bits (an -O1 sanitizer build needed 14 sweeps in a window) */
    cosa_iter_opts o = {.iterations = 100, .converge = 1, .tol = 1e-10, .aitken = 1};
    cosa_iter_stats st;
    double e = iter_vs_phi(sys, &s, &s, &o, 0.1, x0, 50, &st);
    cr_log_info("aitken: %.3g, %zu sweeps\n", e, st.sweeps);
    cr_expect_eq(st.not_converged, 0);
    cr_expect_leq(st.sweeps_max, 5, "the secant of a 1 x 1 M: %u sweeps", st.sweeps_max);
    cr_expect_leq(e, 1e-9, "aitken vs Phi(inf)^n z0 %.3g", e);
    struct units U = make_units(sys);
    cosa_iter *it = NULL;
    cosa_scheme ex = parse("foh", 0, 1.0), mb = parse("foh+mbcorr", 0, 1.0);
    cr_expect_eq(cosa_iter_create(U.set, &ex, 0.1, NULL, &o, &it), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_iter_create(U.set, &mb, 0.1, NULL, &o, &it), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_iter_create(U.set, &s, -0.1, NULL, &o, &it), COSA_ERANGE);
    cosa_iter_opts bad = o;
    bad.tol = 0.0;
    cr_expect_eq(cosa_iter_create(U.set, &s, 0.1, NULL, &bad, &it), COSA_ERANGE);
    cr_expect_eq(cosa_iter_create(NULL, &s, 0.1, NULL, &o, &it), COSA_EINVAL);
    cr_expect_null(it);
    free_units(&U);
    cosa_system_free(sys);
}
