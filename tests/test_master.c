/* test_master.c -- the time-domain master (lib/master.c) against the Phi
 * engine: linear units stepped by the master reproduce Phi^n z0 for every
 * Jacobi and Gauss-Seidel scheme; the same with CVODE; the monolithic
 * references; the driver (start-up, divergence) and the trajectory NRMSE.
 *
 * Trajectory comparisons are componentwise scale-free: for every entry r of
 * the information vector, max_n |z_r,n - z*_r,n| / max_n |z*_r,n|, then the
 * largest over r (x, outputs in m, m/s and N alike); an offset du_k is
 * measured against the input it corrects, max_n |(L ybar_n)_k|. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"
#include "td/master_impl.h" /* cosa_master_set_inputs (engine-private) */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

static cosa_system *model_system(const char *name, const char *const *keys, const double *vals,
                                 size_t nset, double *x0)
{
    const cosa_model *m = cosa_model_find(name);
    cr_assert_not_null(m, "model %s", name);
    double par[64];
    cosa_model_defaults(m, par);
    for (size_t k = 0; k < nset; k++)
        cr_assert_eq(cosa_model_set(m, par, keys[k], vals[k]), COSA_OK);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    if (x0)
        cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    return sys;
}

/* Units of a linear system: exact linear units, or ODE units (adapter). */
static cosa_unit **make_units(const cosa_system *sys, const cosa_integrator *integ,
                              cosa_odesys **os, cosa_unitset **set)
{
    size_t n = cosa_system_nsub(sys);
    cosa_unit **u = calloc(n, sizeof *u);
    cr_assert_not_null(u);
    *os = NULL;
    if (integ->kind != COSA_INTEGRATOR_EXACT)
        cr_assert_eq(cosa_odesys_from_linear(sys, os), COSA_OK);
    for (size_t i = 0; i < n; i++) {
        cosa_status st = integ->kind == COSA_INTEGRATOR_EXACT
                             ? cosa_unit_linear_from_system(sys, i, &u[i])
                             : cosa_unit_ode_create(cosa_odesys_sub(*os, i), integ, &u[i]);
        cr_assert_eq(st, COSA_OK, "unit %zu: %s", i, cosa_strerror(st));
    }
    cr_assert_eq(cosa_unitset_create(n, u, cosa_system_L(sys), NULL, set), COSA_OK);
    return u;
}

static void free_units(cosa_unit **u, size_t n, cosa_odesys *os, cosa_unitset *set)
{
    cosa_unitset_free(set);
    for (size_t i = 0; i < n; i++)
        cosa_unit_free(u[i]);
    free(u);
    cosa_odesys_free(os);
}

/* Largest componentwise relative difference of the master's z_n against
 * Phi^n z0 over nsteps steps. */
static double master_vs_phi_opt(const cosa_system *sys, const cosa_scheme *s, double dt,
                                const double *x0, size_t nsteps, const cosa_integrator *integ,
                                const cosa_master_opts *opt)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    const size_t d = lay.dim;
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s->order);
    tu_phibuf B = tu_phibuf_alloc(d);
    double *Phi = B.Phi, *z = B.z, *zn = B.zn, *zm = B.zm, *dmax = B.dmax, *rmax = B.rmax;
    cr_assert_not_null(w);
    cr_assert_eq(cosa_phi_build(sys, s, dt, Phi, d, w), COSA_OK);
    cr_assert_eq(cosa_z0_build(sys, s, dt, x0, z, w), COSA_OK);

    cosa_odesys *os = NULL;
    cosa_unitset *set = NULL;
    size_t nsub = cosa_system_nsub(sys);
    cosa_unit **units = make_units(sys, integ, &os, &set);
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, s, dt, opt, &m), COSA_OK);
    /* z0 = [x | ybar_0 .. ybar_{-p} | du] */
    cr_assert_eq(cosa_master_init(m, s->order * dt, z, z + lay.off_y,
                                  lay.has_du ? z + lay.off_du : NULL),
                 COSA_OK);
    for (size_t n = 1; n <= nsteps; n++) {
        tu_phi_apply(Phi, d, z, zn);
        cosa_status st = cosa_master_step(m);
        cr_assert_eq(st, COSA_OK, "step %zu: %s", n, cosa_strerror(st));
        cr_assert_eq(cosa_master_info(m, zm), COSA_OK);
        for (size_t i = 0; i < d; i++) {
            dmax[i] = fmax(dmax[i], fabs(zm[i] - z[i]));
            rmax[i] = fmax(rmax[i], fabs(z[i]));
        }
        /* du_k is an input offset: its scale is that of the input (L ybar_n)_k */
        for (size_t k = 0; lay.has_du && k < lay.nu; k++) {
            double uk = 0.0;
            for (size_t l = 0; l < lay.ny; l++)
                uk += cosa_system_L(sys)[k + l * lay.nu] * z[lay.off_y + l];
            rmax[lay.off_du + k] = fmax(rmax[lay.off_du + k], fabs(uk));
        }
    }
    double worst = 0.0;
    size_t iw = 0;
    for (size_t i = 0; i < d; i++) {
        double e = rmax[i] > 0.0 ? dmax[i] / rmax[i] : dmax[i];
        if (e > worst)
            worst = e, iw = i;
    }
    if (getenv("COSA_TEST_VERBOSE"))
        cr_log_info("p%d corr %u exec %d: worst row %zu of %zu: %.3g\n", s->order, s->corr,
                    (int)s->exec, iw, d, worst);
    cosa_master_free(m);
    free_units(units, nsub, os, set);
    cosa_phi_workspace_free(w);
    tu_phibuf_free(&B);
    return worst;
}

static double master_vs_phi(const cosa_system *sys, const cosa_scheme *s, double dt,
                            const double *x0, size_t nsteps, const cosa_integrator *integ)
{
    return master_vs_phi_opt(sys, s, dt, x0, nsteps, integ, NULL);
}

static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                  COSA_CORR_MBCORR};

/* Every Jacobi scheme p = 0..4 x 4 corrections and every Gauss-Seidel scheme
 * p = 0..4 (in the given orders) of one case; returns the worst difference. */
static double all_schemes(const cosa_system *sys, double dt, const double *x0, size_t nsteps,
                          const cosa_integrator *integ, int pmax, const size_t *gs_seq,
                          double tol)
{
    double worst = 0.0;
    for (int p = 0; p <= pmax; p++) {
        for (int c = 0; c < 4; c++) {
            cosa_scheme s = {.order = p, .corr = corrs[c], .alpha = 1.0, .exec = COSA_JACOBI};
            double e = master_vs_phi(sys, &s, dt, x0, nsteps, integ);
            char nm[64];
            cosa_scheme_name(&s, nm, sizeof nm);
            cr_expect_leq(e, tol, "%s: master vs Phi^n z0 %.3g > %.3g", nm, e, tol);
            worst = fmax(worst, e);
        }
        for (int k = 0; k < 2; k++) {
            cosa_scheme s = {.order = p, .corr = 0, .alpha = 1.0, .exec = COSA_GAUSS_SEIDEL,
                             .seq = k ? gs_seq : NULL};
            double e = master_vs_phi(sys, &s, dt, x0, nsteps, integ);
            cr_expect_leq(e, tol, "gs:p%d (order %d): master vs Phi^n z0 %.3g > %.3g", p, k, e,
                          tol);
            worst = fmax(worst, e);
        }
    }
    return worst;
}

static const cosa_integrator exact = {.kind = COSA_INTEGRATOR_EXACT};

/* ---- linear units, exact integrator: Phi^n z0 to 1e-9 over 100 steps ------- */

/* all_schemes on the two-subsystem model NAME (parameters KEYS = VALS), exact units,
 * both orders of Gauss-Seidel */
static void two_units_exact(const char *name, const char *const *keys, const double *vals,
                            size_t nset)
{
    double x0[4];
    cosa_system *sys = model_system(name, keys, vals, nset, x0);
    const size_t rev[2] = {1, 0};
    double w = all_schemes(sys, 1e-4, x0, 100, &exact, 4, rev, 1e-9);
    cr_log_info("%s, exact units: worst relative difference %.3g\n", name, w);
    cosa_system_free(sys);
}

Test(master_exact, twomass_all_schemes)
{
    const char *k[] = {"ck", "dk"};
    const double v[] = {2e5, 5e2};
    two_units_exact("twomass", k, v, 2);
}

Test(master_exact, twomass_fd_direct_feedthrough) { two_units_exact("twomass-fd", NULL, NULL, 0); }

Test(master_exact, chain_three_subsystems)
{
    double x0[12];
    cosa_system *sys = model_system("chain", NULL, NULL, 0, x0);
    cr_assert_eq(cosa_system_nsub(sys), 3);
    const size_t seq[3] = {2, 0, 1};
    double w = all_schemes(sys, 1e-3, x0, 100, &exact, 4, seq, 1e-9);
    cr_log_info("chain, exact units: worst relative difference %.3g\n", w);
    cosa_system_free(sys);
}

/* alpha != 1 and the linearisation at the end of the step (constant
 * Jacobians: identical). */
Test(master_exact, alpha_and_lin_at_end)
{
    double x0[4];
    cosa_system *sys = model_system("twomass", NULL, NULL, 0, x0);
    cosa_scheme s = {.order = 1, .corr = COSA_CORR_MBCORR, .alpha = 0.6, .exec = COSA_JACOBI};
    double e = master_vs_phi(sys, &s, 2e-4, x0, 100, &exact);
    cr_expect_leq(e, 1e-9, "FOH+MBCorr alpha 0.6: %.3g", e);
    cosa_system_free(sys);
}

/* G_p and G_0 by central differences through the units' snapshots
 * (opt.step_gains: issue 13's finite differences through FMU state) for
 * every unit and for one of two, every Jacobi scheme with output correction
 * p = 0..4: Phi^n z0 as with the Jacobians.  The gains carry the
 * differences' rounding, ~ eps^(2/3) |y| / (|G| |u|) relative (test_unit.c:
 * up to ~1e-7 where a unit's free response dominates its outputs); the
 * corrected outputs see it through G_p L (ybar - E_p), which is small
 * against y, so the bound is 1e-7. */
Test(master_exact, step_gains)
{
    const char *names[2] = {"twomass", "chain"};
    const double dts[2] = {1e-4, 1e-3};
    for (int mdl = 0; mdl < 2; mdl++) {
        double x0[12];
        cosa_system *sys = model_system(names[mdl], NULL, NULL, 0, x0);
        const size_t n = cosa_system_nsub(sys);
        unsigned char all[3] = {1, 1, 1}, one[3] = {0, 1, 0};
        double worst = 0.0;
        for (int which = 0; which < 2; which++)
            for (int p = 0; p <= 4; p++)
                for (int c = 1; c < 4; c += 2) { /* output correction, MBCorr */
                    cosa_master_opts opt = {.step_gains = which ? one : all};
                    cosa_scheme s = {.order = p, .corr = corrs[c], .alpha = 1.0,
                                     .exec = COSA_JACOBI};
                    double e = master_vs_phi_opt(sys, &s, dts[mdl], x0, 100, &exact, &opt);
                    char nm[64];
                    cosa_scheme_name(&s, nm, sizeof nm);
                    cr_expect_leq(e, 1e-7, "%s %s, gains by steps for %s of %zu units: %.3g",
                                  names[mdl], nm, which ? "one" : "all", n, e);
                    worst = fmax(worst, e);
                }
        cr_log_info("%s, gains by steps: worst relative difference %.3g\n", names[mdl], worst);
        cosa_system_free(sys);
    }
}

/* ---- the same with CVODE (rtol 1e-10): ~1e-7 ---------------------------- */

Test(master_cvode, twomass_schemes)
{
    double x0[4];
    cosa_system *sys = model_system("twomass", NULL, NULL, 0, x0);
    cosa_integrator integ;
    cr_assert_eq(cosa_integrator_parse("cvode", &integ), COSA_OK);
    cr_assert_eq(integ.rtol, 1e-10);
    const size_t rev[2] = {1, 0};
    double w = all_schemes(sys, 1e-4, x0, 100, &integ, 2, rev, 1e-7);
    cr_log_info("twomass, CVODE BDF rtol 1e-10: worst relative difference %.3g\n", w);
    cr_assert_eq(cosa_integrator_parse("CVODE-Adams", &integ), COSA_OK);
    cr_assert_eq(integ.kind, COSA_INTEGRATOR_CVODE_ADAMS);
    cosa_scheme s = {.order = 2, .corr = COSA_CORR_MBCORR, .alpha = 1.0};
    double e = master_vs_phi(sys, &s, 1e-4, x0, 100, &integ);
    cr_expect_leq(e, 1e-7, "SOH+MBCorr, Adams: %.3g", e);
    cr_log_info("twomass, CVODE Adams rtol 1e-10, SOH+MBCorr: %.3g\n", e);
    cosa_system_free(sys);
}

/* ---- references ------------------------------------------------------------ */

/* The CVODE reference (loop solved by Newton inside the RHS) of a linear
 * system with direct feedthrough against the exact one: BDF at rtol 1e-12,
 * 300 samples of 1e-3 s. */
Test(reference, cvode_vs_exact)
{
    double x0[4];
    cosa_system *sys = model_system("twomass-fd", NULL, NULL, 0, x0);
    cosa_reftraj *ex = NULL, *cv = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, 1e-3, 301, &ex), COSA_OK);
    cosa_odesys *os = NULL;
    cosa_unitset *set = NULL;
    cosa_integrator integ;
    cosa_integrator_parse("cvode", &integ);
    cosa_unit **u = make_units(sys, &integ, &os, &set);
    cr_assert_eq(cosa_reftraj_cvode(set, x0, 1e-3, 301, 1e-12, &cv),
                 COSA_OK);
    double worst = 0.0;
    for (size_t r = 0; r < 3; r++) {
        double d = 0.0, m = 0.0;
        for (size_t k = 0; k < 301; k++) {
            d = fmax(d, fabs(cv->y[r + 3 * k] - ex->y[r + 3 * k]));
            m = fmax(m, fabs(ex->y[r + 3 * k]));
        }
        worst = fmax(worst, d / m);
    }
    cr_log_info("CVODE reference vs exact: %.3g (relative, %ld steps)\n", worst, cv->nsteps);
    cr_expect_leq(worst, 1e-9, "CVODE reference vs exact %.3g", worst);
    cosa_reftraj_free(ex);
    cosa_reftraj_free(cv);
    free_units(u, 2, os, set);
    cosa_system_free(sys);
}

/* A reference from samples (cosa_reftraj_samples): cubics come back exactly
 * from irregular samples (Lagrange interpolation of degree 3 reproduces
 * them; the bound is rounding: the weights of four nodes sum to 1 and are
 * at most ~3 in size here, so 1e-13 of the values' scale); samples at the
 * macro points are taken bitwise; sin(t) sampled 0.01 apart is within the
 * interpolation error bound max|f^(4)| max|prod (t - t_i)| / 4!, the product
 * at most dt^4 (the first and last intervals; 9/16 dt^4 between the middle
 * nodes): 4.17e-10; bad input is refused. */
Test(reference, from_samples)
{
    enum { N = 400 };
    double t[N], Y[2 * N], X[N], S[N];
    for (size_t k = 0; k < N; k++) {
        t[k] = 0.01 * (double)k + (k && k + 1 < N ? 0.003 * sin(7.0 * (double)k) : 0.0);
        Y[2 * k] = 1.0 - 2.0 * t[k] + 3.0 * t[k] * t[k] - 0.5 * t[k] * t[k] * t[k];
        Y[2 * k + 1] = 4.0 * t[k] * t[k];
        X[k] = -t[k] * t[k] * t[k];
        S[k] = sin(0.01 * (double)k);
    }
    const double H = 0.0137, x0 = 0.0;
    const size_t ns = (size_t)(t[N - 1] / H) + 1;
    cosa_reftraj *r = NULL;
    cr_assert_eq(cosa_reftraj_samples(1, 2, N, t, X, NULL, Y, H, ns, &r), COSA_OK);
    double worst = 0.0;
    for (size_t k = 0; k < ns; k++) {
        const double tk = (double)k * H;
        const double y0 = 1.0 - 2.0 * tk + 3.0 * tk * tk - 0.5 * tk * tk * tk, y1 = 4.0 * tk * tk;
        worst = fmax(worst, fmax(fabs(r->y[2 * k] - y0) / 33.0, fabs(r->y[2 * k + 1] - y1) / 64.0));
        worst = fmax(worst, fabs(r->x[k] + tk * tk * tk) / 64.0);
    }
    cr_expect_leq(worst, 1e-13, "cubics from samples: %.3g of their scale", worst);
    cosa_reftraj_free(r);
    /* sin, regular samples not at the macro points; without states */
    double tr[N];
    for (size_t k = 0; k < N; k++)
        tr[k] = 0.01 * (double)k;
    cr_assert_eq(cosa_reftraj_samples(1, 1, N, tr, NULL, &x0, S, H, ns, &r), COSA_OK);
    double es = 0.0;
    for (size_t k = 0; k < ns; k++)
        es = fmax(es, fabs(r->y[k] - sin((double)k * H)));
    cr_expect_leq(es, 4.17e-10, "sin from samples 0.01 apart: %.3g", es);
    cr_expect(r->x[0] == x0 && isnan(r->x[1]), "states without columns: x0, then NaN");
    cosa_reftraj_free(r);
    /* samples at the macro points are taken as they are (H = 0.02: every other) */
    cr_assert_eq(cosa_reftraj_samples(1, 1, N, tr, NULL, &x0, S, 0.02, 100, &r), COSA_OK);
    for (size_t k = 0; k < 100; k++)
        cr_expect(r->y[k] == S[2 * k], "sample %zu not taken bitwise", k);
    cosa_reftraj_free(r);
    /* refusals */
    cr_expect_eq(cosa_reftraj_samples(1, 1, N, tr, NULL, &x0, S, H, ns + 2, &r), COSA_ERANGE,
                 "samples that end before the run");
    cr_expect_eq(cosa_reftraj_samples(1, 1, N - 1, tr + 1, NULL, &x0, S + 1, H, 10, &r),
                 COSA_ERANGE, "samples that start after t = 0");
    double tb[3] = {0.0, 0.02, 0.02}, yb[3] = {0, 1, 2};
    cr_expect_eq(cosa_reftraj_samples(0, 1, 3, tb, NULL, NULL, yb, 0.01, 2, &r), COSA_EINVAL,
                 "times that do not increase");
    tb[2] = 0.03;
    yb[1] = NAN;
    cr_expect_eq(cosa_reftraj_samples(0, 1, 3, tb, NULL, NULL, yb, 0.01, 2, &r), COSA_ENONFINITE);
    yb[1] = 1.0;
    cr_expect_eq(cosa_reftraj_samples(1, 1, 3, tb, NULL, NULL, yb, 0.01, 2, &r), COSA_EINVAL,
                 "no states and no x0");
    cr_expect_eq(cosa_reftraj_samples(0, 1, 3, tb, NULL, NULL, yb, -0.01, 2, &r), COSA_ERANGE);
    cr_expect_null(r);
}

/* Newton on the algebraic loop gives y = C* x (eq 35). */
Test(reference, loop_solve_is_cstar)
{
    double x0[4];
    cosa_system *sys = model_system("twomass-fd", NULL, NULL, 0, x0);
    double Cs[12], y[3] = {0}, ys[3];
    cr_assert_eq(cosa_system_monolithic(sys, NULL, Cs), COSA_OK);
    const double x[4] = {0.01, -3.0, -0.02, 5.0};
    for (int r = 0; r < 3; r++) {
        ys[r] = 0.0;
        for (int c = 0; c < 4; c++)
            ys[r] += Cs[r + 3 * c] * x[c];
    }
    cosa_odesys *os = NULL;
    cosa_unitset *set = NULL;
    cosa_unit **u = make_units(sys, &exact, &os, &set);
    cr_assert_eq(cosa_unitset_loop_solve(set, 0.0, x, y), COSA_OK);
    for (int r = 0; r < 3; r++)
        cr_expect_leq(fabs(y[r] - ys[r]), 1e-14 * (fabs(ys[r]) + 1e-300) + 1e-300,
                      "y[%d] = %.17g vs %.17g", r, y[r], ys[r]);
    /* init_loop puts y0 into every history slot */
    cosa_scheme s = {.order = 2, .alpha = 1.0};
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, &s, 1e-4, NULL, &m), COSA_OK);
    cr_assert_eq(cosa_master_init_loop(m, 0.0, x), COSA_OK);
    double z[4 + 9];
    cr_assert_eq(cosa_master_info(m, z), COSA_OK);
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++)
            cr_expect_eq(z[4 + 3 * j + r], y[r]);
    cosa_master_free(m);
    free_units(u, 2, os, set);
    cosa_system_free(sys);
}

/* ---- driver --------------------------------------------------------------- */

/* e_global of the time-domain driver (exact units, exact reference) equals
 * cosa_evaluate's (Phi engine) for a stable case. */
Test(driver, e_global_matches_phi_engine)
{
    double x0[4];
    cosa_system *sys = model_system("twomass", NULL, NULL, 0, x0);
    const double dt = 1e-3;
    const size_t N = 300;
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 2);
    cosa_odesys *os = NULL;
    cosa_unitset *set = NULL;
    cosa_unit **u = make_units(sys, &exact, &os, &set);
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, dt, N + 3, &ref), COSA_OK);
    const char *names[] = {"zoh+mbcorr", "foh+mbcorr", "soh+mbcorr", "gs:foh"};
    for (int k = 0; k < 4; k++) {
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(names[k], &s), COSA_OK);
        cosa_point_result pr;
        cr_assert_eq(cosa_evaluate(sys, &s, dt, x0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &pr, ew),
                     COSA_OK);
        cosa_cosim_opts o = {.nsteps = N};
        cosa_cosim_result *r = NULL;
        cr_assert_eq(cosa_cosim_run(set, &s, ref, &o, &r), COSA_OK);
        cr_assert_not(r->diverged, "%s diverged: %s", names[k], r->reason);
        cr_assert_eq(r->ndone, N);
        cr_expect(r->run.end == COSA_RUN_OK && r->run.steps == N && r->run.rejected == 0);
        double rel = fabs(r->e_global - pr.err.e_global) / pr.err.e_global;
        cr_log_info("%s: e_g time domain %.10g, Phi engine %.10g (rel %.2g)\n", names[k],
                    r->e_global, pr.err.e_global, rel);
        cr_expect_leq(rel, 1e-7, "%s: e_g %.17g vs %.17g", names[k], r->e_global,
                      pr.err.e_global);
        cr_expect_eq(r->t[0], s.order * dt);
        cr_expect_leq(fabs(r->t[N] - (s.order + N) * dt), 1e-15);
        cosa_cosim_result_free(r);
    }
    cosa_reftraj_free(ref);
    free_units(u, 2, os, set);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
}

/* An unstable scheme stops with a status and a time, e_global = inf, and no
 * NaN in the recorded part of the trajectory. */
Test(driver, divergence_is_a_result)
{
    double x0[4];
    const char *k[] = {"ck", "dk"};
    const double v[] = {1e9, 3.6e5};
    cosa_system *sys = model_system("twomass", k, v, 2, x0);
    const double dt = 1e-3;
    const size_t N = 300;
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 0);
    cosa_point_result pr;
    cr_assert_eq(cosa_evaluate(sys, &s, dt, x0, 0.3, COSA_WANT_RHO, &pr, ew), COSA_OK);
    cr_assert_gt(pr.rho, 1.0, "test case should be unstable, rho = %g", pr.rho);
    cosa_odesys *os = NULL;
    cosa_unitset *set = NULL;
    cosa_unit **u = make_units(sys, &exact, &os, &set);
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, dt, N + 1, &ref), COSA_OK);
    cosa_cosim_opts o = {.nsteps = N};
    cosa_cosim_result *r = NULL;
    cr_assert_eq(cosa_cosim_run(set, &s, ref, &o, &r), COSA_OK);
    cr_assert(r->diverged);
    cr_expect(isinf(r->e_global) && r->e_global > 0);
    cr_expect(isfinite(r->t_diverged) && r->t_diverged > 0 && r->t_diverged <= 0.3 + 1e-12);
    cr_expect_lt(r->ndone, N);
    /* the loop's figures: stopped by the divergence test or a failed step */
    cr_expect(r->run.steps == r->ndone &&
              (r->run.end == COSA_RUN_HALTED || r->run.end == COSA_RUN_FAILED));
    cr_expect_neq(r->reason[0], '\0');
    for (size_t n = 0; n < r->ndone; n++)
        for (size_t j = 0; j < 3; j++)
            cr_expect(isfinite(r->ybar[j + 3 * n]), "NaN at step %zu", n);
    cr_log_info("ZOH at ck = 1e9: diverged at t = %g (%s)\n", r->t_diverged, r->reason);
    cosa_cosim_result_free(r);
    cosa_reftraj_free(ref);
    free_units(u, 2, os, set);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
}

/* ---- trajectory NRMSE against closed forms ------------------------------- */

Test(traj_nrmse, closed_forms)
{
    /* component 0: r_n = (-1)^n (mean 0, var 1 for N even), y = r + c: e_0 = |c|;
     * component 1: r_n = a n, n = 1..N (var = a^2 (N^2 - 1)/12), y = r + d (-1)^n:
     *              e_1 = |d| / (|a| sqrt((N^2 - 1)/12));
     * component 2: constant 7 (left out). */
    enum { N = 40 };
    const double c = 0.25, a = 3.0, d = 0.5;
    double y[3 * N], r[3 * N];
    for (int n = 0; n < N; n++) {
        double sgn = n % 2 ? -1.0 : 1.0;
        r[3 * n] = sgn;
        y[3 * n] = sgn + c;
        r[3 * n + 1] = a * (n + 1);
        y[3 * n + 1] = a * (n + 1) + d * sgn;
        r[3 * n + 2] = 7.0;
        y[3 * n + 2] = 7.5;
    }
    double e0 = c, e1 = d / (a * sqrt((N * N - 1) / 12.0));
    double expect = sqrt((e0 * e0 + e1 * e1) / 2.0), e;
    size_t nc;
    cr_assert_eq(cosa_traj_nrmse(3, N, y, 3, r, 3, &e, &nc), COSA_OK);
    cr_expect_eq(nc, 2);
    cr_expect_leq(fabs(e - expect), 8 * N * DBL_EPSILON * expect, "%.17g vs %.17g", e, expect);
    /* NRMSE(x, x) = 0 */
    cr_assert_eq(cosa_traj_nrmse(3, N, r, 3, r, 3, &e, &nc), COSA_OK);
    cr_expect_eq(e, 0.0);
    /* a non-finite output: inf, never NaN */
    y[3 * 5 + 1] = NAN;
    cr_assert_eq(cosa_traj_nrmse(3, N, y, 3, r, 3, &e, NULL), COSA_OK);
    cr_expect(isinf(e));
    /* errors */
    cr_expect_eq(cosa_traj_nrmse(3, 0, y, 3, r, 3, &e, NULL), COSA_ERANGE);
    cr_expect_eq(cosa_traj_nrmse(1, N, y + 2, 3, r + 2, 3, &e, NULL), COSA_ERANGE);
    cr_expect_eq(cosa_traj_nrmse(3, N, y, 2, r, 3, &e, NULL), COSA_EINVAL);
    r[0] = INFINITY;
    cr_expect_eq(cosa_traj_nrmse(3, N, y, 3, r, 3, &e, NULL), COSA_ENONFINITE);
}

/* ---- argument validation --------------------------------------------------- */

Test(master_args, validation)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_unitset *set = f.set;
    cosa_unit **u = f.u;
    cosa_master *m = NULL;
    cosa_scheme s = {.order = 0, .alpha = 1.0};
    const double *L = cosa_system_L(f.sys);
    cosa_unitset *bad_set = NULL;
    cr_expect_eq(cosa_master_create(set, &s, 0.0, NULL, &m), COSA_ERANGE);
    cr_expect_eq(cosa_master_create(set, &s, NAN, NULL, &m), COSA_ERANGE);
    cr_expect_eq(cosa_master_create(NULL, &s, 1e-3, NULL, &m), COSA_EINVAL);
    cr_expect_eq(cosa_unitset_create(0, u, L, NULL, &bad_set), COSA_EINVAL);
    cr_expect_eq(cosa_unitset_create(2, u, NULL, NULL, &bad_set), COSA_EINVAL);
    cr_expect_null(bad_set);
    s.order = COSA_ORDER_MAX + 1;
    cr_expect_neq(cosa_master_create(set, &s, 1e-3, NULL, &m), COSA_OK);
    s = (cosa_scheme){.order = 1, .corr = COSA_CORR_MBCORR, .alpha = 1.0,
                      .exec = COSA_GAUSS_SEIDEL};
    cr_expect_eq(cosa_master_create(set, &s, 1e-3, NULL, &m), COSA_EUNSUPPORTED);
    const size_t bad[2] = {0, 0};
    s = (cosa_scheme){.order = 1, .alpha = 1.0, .exec = COSA_GAUSS_SEIDEL, .seq = bad};
    cr_expect_eq(cosa_master_create(set, &s, 1e-3, NULL, &m), COSA_EINVAL);
    cr_expect_null(m);
    tu_units_free(&f);
}

/* The input builders' compositions as cosa_master_opts documents them
 * (cosa/stepping.h): TAYLOR and GIVEN plain Jacobi without corrections,
 * GIVEN without mid samples, gains by steps or held inputs; events on the
 * history's extrapolation without rates, held inputs or mid samples; rates
 * and held inputs plain Jacobi without the mid sample or gains by steps;
 * only TAYLOR and GIVEN change the step, only GIVEN takes the caller's
 * inputs, TAYLOR and corrected schemes do not start from x0. */
static cosa_status try_create(cosa_unitset *set, const char *scheme, const cosa_master_opts *o,
                              cosa_master **keep)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK, "%s", scheme);
    cosa_master *m = NULL;
    const cosa_status st = cosa_master_create(set, &s, 1e-3, o, &m);
    cr_expect((st == COSA_OK) == (m != NULL), "%s: status %d, master %p", scheme, st, (void *)m);
    if (keep)
        *keep = m;
    else
        cosa_master_free(m);
    return st;
}

Test(master_args, input_builders)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_unitset *set = f.set;
    const double *x0 = f.x0;
    const unsigned char gains[2] = {1, 1};
    const double uder[2] = {0.0, 0.0};
    cosa_master *m = NULL;
    /* TAYLOR */
    cosa_master_opts o = {.extrapolation = COSA_EXTRAP_TAYLOR, .out_order = 2};
    cr_expect_eq(try_create(set, "gs:foh", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "foh+mbcorr", &o, NULL), COSA_EUNSUPPORTED);
    o.out_order = COSA_UNIT_DERMAX + 1;
    cr_expect_eq(try_create(set, "foh", &o, NULL), COSA_ERANGE);
    o.out_order = 2;
    o.events = 1;
    cr_expect_eq(try_create(set, "foh", &o, NULL), COSA_EUNSUPPORTED);
    o.events = 0;
    o.held = 1;
    cr_expect_eq(try_create(set, "foh", &o, NULL), COSA_EUNSUPPORTED);
    o.held = 0;
    o.sample_mid = 1;
    cr_assert_eq(try_create(set, "foh", &o, &m), COSA_OK);
    cr_expect_eq(cosa_master_set_step(m, 5e-4), COSA_OK);
    cr_expect_eq(cosa_master_set_inputs(m, 0, uder), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_master_init_initial(m, 0.0, x0), COSA_EUNSUPPORTED);
    cosa_master_free(m);
    /* GIVEN */
    o = (cosa_master_opts){.extrapolation = COSA_EXTRAP_GIVEN};
    cr_expect_eq(try_create(set, "gs:zoh", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "zoh+ecorr", &o, NULL), COSA_EUNSUPPORTED);
    const cosa_master_opts given_bad[] = {
        {.extrapolation = COSA_EXTRAP_GIVEN, .sample_mid = 1},
        {.extrapolation = COSA_EXTRAP_GIVEN, .step_gains = gains},
        {.extrapolation = COSA_EXTRAP_GIVEN, .held = 1},
        {.extrapolation = COSA_EXTRAP_GIVEN, .events = 1}};
    for (size_t k = 0; k < 4; k++)
        cr_expect_eq(try_create(set, "zoh", &given_bad[k], NULL), COSA_EUNSUPPORTED, "%zu", k);
    cr_assert_eq(try_create(set, "foh", &o, &m), COSA_OK);
    cr_expect_eq(cosa_master_set_inputs(m, 0, uder), COSA_OK);
    cr_expect_eq(cosa_master_set_step(m, 5e-4), COSA_OK);
    cosa_master_free(m);
    /* HISTORY, held, events */
    o = (cosa_master_opts){.extrapolation = (cosa_extrapolation)7};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EINVAL);
    const cosa_master_opts hist_bad[] = {{.events = 1, .sample_mid = 1},
                                         {.events = 1, .held = 1},
                                         {.held = 1, .sample_mid = 1},
                                         {.held = 1, .step_gains = gains}};
    for (size_t k = 0; k < 4; k++)
        cr_expect_eq(try_create(set, "zoh", &hist_bad[k], NULL), COSA_EUNSUPPORTED, "%zu", k);
    o = (cosa_master_opts){.events = 1};
    cr_expect_eq(try_create(set, "gs:zoh", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_OK);
    o = (cosa_master_opts){.held = 1};
    cr_expect_eq(try_create(set, "gs:zoh", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "foh+mbcorr", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "foh", &o, NULL), COSA_OK);
    cr_assert_eq(try_create(set, "foh+mbcorr", NULL, &m), COSA_OK);
    cr_expect_eq(cosa_master_set_step(m, 5e-4), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_master_set_inputs(m, 0, uder), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_master_init_initial(m, 0.0, x0), COSA_EUNSUPPORTED);
    cosa_master_free(m);
    cr_expect_eq(try_create(set, "imp:zoh", NULL, NULL), COSA_EUNSUPPORTED); /* iterate.c's */
    cr_expect_eq(try_create(set, "gs:zoh/1", NULL, NULL), COSA_EUNSUPPORTED);
    /* unit rates: plain Jacobi, no mid sample or gains by steps */
    const unsigned rate[2] = {2, 1};
    cr_assert_eq(cosa_unitset_set_rates(set, rate), COSA_OK);
    cr_expect_eq(try_create(set, "gs:zoh", NULL, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "zoh+ocorr", NULL, NULL), COSA_EUNSUPPORTED);
    o = (cosa_master_opts){.sample_mid = 1};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EUNSUPPORTED);
    o = (cosa_master_opts){.step_gains = gains};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EUNSUPPORTED);
    o = (cosa_master_opts){.events = 1};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EUNSUPPORTED);
    o = (cosa_master_opts){.extrapolation = COSA_EXTRAP_TAYLOR, .out_order = 1};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EUNSUPPORTED);
    /* given inputs: one step of H per unit, so a rate is refused, not ignored */
    o = (cosa_master_opts){.extrapolation = COSA_EXTRAP_GIVEN};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(try_create(set, "foh", NULL, NULL), COSA_OK);
    o = (cosa_master_opts){.held = 1};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_OK);
    const unsigned one[2] = {1, 1};
    cr_assert_eq(cosa_unitset_set_rates(set, one), COSA_OK);
    o = (cosa_master_opts){.extrapolation = COSA_EXTRAP_GIVEN};
    cr_expect_eq(try_create(set, "zoh", &o, NULL), COSA_OK);
    tu_units_free(&f);
}
