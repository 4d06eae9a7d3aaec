/* test_paper.c -- the checkable statements of the MBCorr paper (listed at the
 * end of doc/method.md), each with the tolerance the issue states. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static const double X0[4] = {0, 100, 0, -100}; /* doc/method.md initial state */

static cosa_limit limit_of(double ck, double dk, const char *scheme, cosa_criterion crit,
                           double tol, double dtmin, double dtmax, cosa_crossing *cr,
                           size_t cap)
{
    cosa_system *sys = tu_twomass(ck, dk);
    cr_assert_not_null(sys);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, s.order);
    cosa_limit lim;
    cr_assert_eq(cosa_dt_limit(sys, &s, X0, 0.3, crit, tol, dtmin, dtmax, 0, cr, cap, &lim, w),
                 COSA_OK);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
    return lim;
}

/* Section 4.3: local error 1e-3 needs dt ~ 7e-6 (ZOH) and ~ 2e-4 (ZOH+MBCorr). */
Test(paper, local_error_1e3_macro_steps)
{
    cosa_limit a = limit_of(2e5, 5e2, "zoh", COSA_CRIT_LOCAL, 1e-3, 1e-7, 1e-2, NULL, 0);
    cr_expect(a.dt_max >= 5e-6 && a.dt_max <= 9e-6, "ZOH: dt for e_l = 1e-3 is %g", a.dt_max);
    cosa_limit b = limit_of(2e5, 5e2, "zoh+mbcorr", COSA_CRIT_LOCAL, 1e-3, 1e-7, 1e-2, NULL, 0);
    cr_expect(b.dt_max >= 1.5e-4 && b.dt_max <= 3e-4, "ZOH+MBCorr: dt for e_l = 1e-3 is %g",
              b.dt_max);
}

/* Section 4.3 / Fig 8: local orders p+1 (plain) and p+2 (MBCorr), +-0.1. */
Test(paper, local_convergence_orders)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    enum { NP = 36 };
    double dt[NP], el[NP];
    for (int i = 0; i < NP; i++)
        dt[i] = exp(log(1e-6) + (log(3e-3) - log(1e-6)) * i / (NP - 1));
    for (int p = 0; p <= 4; p++)
        for (int mb = 0; mb <= 1; mb++) {
            cosa_scheme s = {.order = p, .corr = mb ? COSA_CORR_MBCORR : 0, .alpha = 1};
            cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, p);
            for (int i = 0; i < NP; i++) {
                cosa_point_result r;
                cr_assert_eq(cosa_evaluate(sys, &s, dt[i], X0, 0.3,
                                           COSA_WANT_RHO | COSA_WANT_ERRORS, &r, w),
                             COSA_OK);
                el[i] = r.err.e_local;
            }
            size_t first, last;
            double order = NAN;
            cr_assert_eq(cosa_order_range(NP, dt, el, 0, 0, &first, &last), COSA_OK);
            cr_assert_eq(cosa_order_fit(last - first + 1, dt + first, el + first, &order, NULL,
                                        NULL),
                         COSA_OK);
            double expect = p + 1 + mb;
            cr_expect(fabs(order - expect) <= 0.1, "p=%d %s: local order %.3f over [%g, %g], expected %g",
                      p, mb ? "MBCorr" : "plain", order, dt[first], dt[last], expect);
            cosa_eval_workspace_free(w);
        }
    cosa_system_free(sys);
}

/* Section 4.3: the 4th-order hold loses stability at dt ~ 1.8e-4. */
Test(paper, fourth_order_hold_stability_limit)
{
    cosa_limit l = limit_of(2e5, 5e2, "p4", COSA_CRIT_STABLE, 0, 1e-7, 1e-2, NULL, 0);
    cr_expect(l.dt_max >= 1.6e-4 && l.dt_max <= 1.9e-4, "p4 stability limit %g", l.dt_max);
}

/* Section 4.1 / Fig 5: FOH at (1e9, 3.6e5) is stable in a window just below
 * dt = 3.16e-4, unstable above it and somewhat below it. */
Test(paper, foh_stability_window)
{
    cosa_crossing cr[16];
    cosa_limit l = limit_of(1e9, 3.6e5, "foh", COSA_CRIT_STABLE, 0, 1e-5, 1e-3, cr, 16);
    cr_expect(!l.monotone, "rho(dt) should not be monotone");
    /* find a window [enter, leave] containing dt just below 3.2e-4 */
    int found = 0;
    for (size_t k = 0; k + 1 < l.ncross && k + 1 < 16; k++)
        if (cr[k].enters && !cr[k + 1].enters && cr[k].dt < 3.16e-4 && cr[k + 1].dt <= 3.2e-4 &&
            cr[k + 1].dt > 2.5e-4)
            found = 1;
    cr_expect(found, "no stability window ending just below 3.2e-4");
    /* unstable on both sides */
    cosa_system *sys = tu_twomass(1e9, 3.6e5);
    cosa_scheme s;
    cosa_scheme_parse("foh", &s);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 1);
    cosa_point_result r;
    cosa_evaluate(sys, &s, 3.3e-4, NULL, 0.3, COSA_WANT_RHO, &r, w);
    cr_expect_gt(r.rho, 1.0, "dt = 3.3e-4 should be unstable (rho %g)", r.rho);
    cosa_evaluate(sys, &s, 5e-5, NULL, 0.3, COSA_WANT_RHO, &r, w);
    cr_expect_gt(r.rho, 1.0, "dt = 5e-5 should be unstable (rho %g)", r.rho);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}

/* Section 4.2: at dt = 3.16e-4, plain ZOH has no accurate point (e_g <= 0.01)
 * on c_k in [1, 1e10], d_k in [1, 1e7]; ZOH+MBCorr has a substantial accurate
 * region (>= 20 % of a 40x40 log grid).  And Phi* is stable everywhere. */
Test(paper, accuracy_regions_at_dt_316e_6, .timeout = 120)
{
    enum { G = 40 };
    const double dt = 3.16e-4;
    cosa_scheme zoh, mb;
    cosa_scheme_parse("zoh", &zoh);
    cosa_scheme_parse("zoh+mbcorr", &mb);
    cosa_system *sys = tu_twomass(1, 1);
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 0);
    int acc_zoh = 0, acc_mb = 0, unstable_ref = 0, failed = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            par[cosa_model_param_index(m, "ck")] = pow(10.0, 10.0 * i / (G - 1));
            par[cosa_model_param_index(m, "dk")] = pow(10.0, 7.0 * j / (G - 1));
            cr_assert_eq(m->update(m, par, sys), COSA_OK);
            cosa_point_result r;
            cosa_status st = cosa_evaluate(sys, &zoh, dt, X0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &r, w);
            if (st == COSA_EUNSTABLEREF || r.rho_ref > 1.0)
                unstable_ref++;
            else if (st != COSA_OK)
                failed++;
            else if (r.err.e_global <= 0.01)
                acc_zoh++;
            st = cosa_evaluate(sys, &mb, dt, X0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &r, w);
            if (st == COSA_OK && r.err.e_global <= 0.01)
                acc_mb++;
            else if (st != COSA_OK)
                failed++;
        }
    cr_expect_eq(unstable_ref, 0, "Phi* unstable at %d points", unstable_ref);
    cr_expect_eq(failed, 0, "%d evaluations failed", failed);
    cr_expect_eq(acc_zoh, 0, "plain ZOH accurate at %d of %d points", acc_zoh, G * G);
    cr_expect_geq(acc_mb, G * G / 5, "ZOH+MBCorr accurate at only %d of %d points", acc_mb, G * G);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}

/* Phi* is stable for every dt (the coupled system is stable), over the map
 * ranges and dt from 1e-6 to 10^-2.5. */
Test(paper, reference_always_stable)
{
    const double dts[] = {1e-6, 3.16e-6, 1e-5, 3.16e-5, 1e-4, 3.16e-4, 1e-3, 3.16e-3};
    cosa_scheme s = {.order = 0, .alpha = 1};
    cosa_system *sys = tu_twomass(1, 1);
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 0);
    double worst = 0;
    for (int i = 0; i < 11; i++)
        for (int j = 0; j < 8; j++) {
            par[cosa_model_param_index(m, "ck")] = pow(10.0, i);
            par[cosa_model_param_index(m, "dk")] = pow(10.0, j);
            cr_assert_eq(m->update(m, par, sys), COSA_OK);
            for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
                cosa_point_result r;
                cr_assert_eq(cosa_evaluate(sys, &s, dts[k], NULL, 0.3, COSA_WANT_RHO_REF, &r, w),
                             COSA_OK, "ck=1e%d dk=1e%d dt=%g", i, j, dts[k]);
                cr_assert(isfinite(r.rho_ref) && r.rho_ref > 0);
                worst = fmax(worst, r.rho_ref);
            }
        }
    cr_expect_leq(worst, 1.0, "max rho(Phi*) = %.17g", worst);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}
