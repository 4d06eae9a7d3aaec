/* test_vo.c -- the variable-order engine (lib/td/vo_*.c, issue 11) against
 * independent routes: the error constants C^k against their closed forms;
 * fixed-step global convergence of order k+1 (explicit and implicit, k =
 * 0..4) against the exact monolithic solution; exact linear unit steps
 * against CVODE; the implicit corrector's fixed point reached by every
 * interface Jacobian; the local-error orders of `cosa estimate`'s step and
 * the estimators' est/err -> 1; a controlled run; thread independence; a
 * coupling function that equals u = L y; bad options. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- fixture: the linear two-mass oscillator as exact units ---------------- */

static cosa_vo_opts opts(tu_units *f, cosa_vo_coupling_kind c, int k, double H, double tend)
{
    return tu_vo_opts(f->is_vel, c, k, 5, H, tend);
}

/* componentwise scale-free difference of the end states of two runs:
 * max_i |a_i - b_i| / max_n |xref_i,n| */
static double end_diff(const cosa_vo_result *a, const cosa_vo_result *b)
{
    cr_assert_eq(a->steps, b->steps);
    return tu_vo_end_diff(a, b->x + b->steps * b->nx);
}

/* ---- error constants (eqs 17, 20) ------------------------------------------- */

/* Uniform steps, s_j = -j: C_vel^k are the Adams-Bashforth gammas 1, 1/2,
 * 5/12, 3/8 and C_pos^k = int_0^1 (1-s) L^k = 1/2, 1/6, 1/8, 19/180 (by hand
 * from L^1 = s, L^2 = s(s+1)/2, L^3 = s(s+1)(s+2)/6).  8-point Gauss-Legendre
 * is exact for these degrees: only rounding, a few ulps of sums of 8 terms. */
Test(vo_constants, uniform_closed_forms)
{
    const double s[4] = {0.0, -1.0, -2.0, -3.0};
    const double cv[4] = {1.0, 0.5, 5.0 / 12.0, 3.0 / 8.0};
    const double cp[4] = {0.5, 1.0 / 6.0, 1.0 / 8.0, 19.0 / 180.0};
    for (int k = 0; k < 4; k++) {
        double a, b;
        cr_assert_eq(cosa_vo_error_constants(k, s, &a, &b), COSA_OK);
        cr_expect(fabs(a - cp[k]) <= 16 * DBL_EPSILON * cp[k], "C_pos^%d = %.17g", k, a);
        cr_expect(fabs(b - cv[k]) <= 16 * DBL_EPSILON * cv[k], "C_vel^%d = %.17g", k, b);
    }
}

/* Non-uniform, k = 2, s = (0, -2): L = s (s + 2) / 3, so C_vel = (1/3 + 1)/3
 * = 4/9 and C_pos = int (1-s) s (s+2)/3 = (-1/4 - 1/3 + 1)/3 = 5/36. */
Test(vo_constants, nonuniform_closed_form)
{
    const double s[2] = {0.0, -2.0};
    double a, b;
    cr_assert_eq(cosa_vo_error_constants(2, s, &a, &b), COSA_OK);
    cr_expect(fabs(a - 5.0 / 36.0) <= 16 * DBL_EPSILON, "C_pos = %.17g", a);
    cr_expect(fabs(b - 4.0 / 9.0) <= 16 * DBL_EPSILON, "C_vel = %.17g", b);
    cr_expect_eq(cosa_vo_error_constants(-1, s, &a, &b), COSA_ERANGE);
    const double bad[2] = {0.0, 1.0}; /* a node at T_{N+1} */
    cr_expect_eq(cosa_vo_error_constants(2, bad, &a, &b), COSA_ERANGE);
}

/* ---- fixed-step convergence ---------------------------------------------------- */

/* Global error (eq 36 over all states) of order k+1 (sect. 4: the coupling
 * variables are O(H^(k+1)), the global error inherits it).  Measured between
 * H = 1e-4 and 5e-5 over 0.02 s, where the observed orders are within 0.06
 * of k+1 for k = 0..4; the bound 0.2 leaves room for the next term of the
 * expansion (relative size O(H omega), omega ~ 1e3 here) and still tells
 * k+1 from k or k+2. */
static void convergence(cosa_vo_coupling_kind c, cosa_vo_jacobian jac)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    for (int k = 0; k <= 4; k++) {
        double e[2];
        for (int j = 0; j < 2; j++) {
            cosa_vo_opts o = opts(&f, c, k, j ? 5e-5 : 1e-4, 0.02);
            o.jacobian = jac;
            cosa_vo_result *r = tu_vo_run(&f, &o);
            cr_assert_eq(r->status, COSA_VO_OK);
            cr_assert_eq(r->steps, j ? 400u : 200u);
            cr_assert_eq(r->rejected, 0u);
            e[j] = r->e36_all;
            cosa_vo_result_free(r);
        }
        const double order = log2(e[0] / e[1]);
        cr_expect(fabs(order - (k + 1)) < 0.2, "%s k = %d: order %.3f (e %.3g -> %.3g)",
                  c == COSA_VO_IMPLICIT ? "implicit" : "explicit", k, order, e[0], e[1]);
    }
    tu_units_free(&f);
}

Test(vo_fixed, explicit_order_k_plus_1) { convergence(COSA_VO_EXPLICIT, COSA_VO_JAC_FD); }
Test(vo_fixed, implicit_order_k_plus_1) { convergence(COSA_VO_IMPLICIT, COSA_VO_JAC_EXACT); }

/* Exact unit steps against CVODE units at rtol 1e-12 (the same scheme, the
 * same history): the difference is CVODE's own error, ~1e-12 per step
 * relative, summed over 200 steps and amplified by the coupling's
 * sensitivity; 1e-7 of the states' scale is far above it and far below the
 * scheme's own error (~1e-4 for k = 1 here). */
Test(vo_fixed, exact_units_match_cvode)
{
    tu_units fe, fc;
    tu_units_init(&fe, "twomass", "exact");
    tu_units_init(&fc, "twomass", "cvode");
    cosa_vo_opts oe = opts(&fe, COSA_VO_EXPLICIT, 1, 1e-4, 0.02);
    cosa_vo_opts oc = opts(&fc, COSA_VO_EXPLICIT, 1, 1e-4, 0.02);
    cosa_vo_result *a = tu_vo_run(&fe, &oe), *b = tu_vo_run(&fc, &oc);
    const double d = end_diff(a, b);
    cr_expect(d < 1e-7, "exact vs CVODE units: %.3g", d);
    cr_expect(a->e36_all > 1e-6, "the scheme's error %.3g must dominate", a->e36_all);
    cosa_vo_result_free(a);
    cosa_vo_result_free(b);
    tu_units_free(&fe);
    tu_units_free(&fc);
}

/* The corrector converges to the same fixed point with every interface
 * Jacobian: the Jacobian only changes the path (for these linear units the
 * exact one converges in one Newton step, fd and los in a few).  Each
 * step's fixed point is met to corr_tol = 1e-10 relative in u; over 200
 * steps the states then differ by far less than 1e-8 of their scale. */
Test(vo_fixed, implicit_jacobians_reach_the_same_fixed_point)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_vo_result *r[3];
    const cosa_vo_jacobian jac[3] = {COSA_VO_JAC_EXACT, COSA_VO_JAC_FD, COSA_VO_JAC_LOS};
    for (int j = 0; j < 3; j++) {
        cosa_vo_opts o = opts(&f, COSA_VO_IMPLICIT, 2, 1e-4, 0.02);
        o.jacobian = jac[j];
        r[j] = tu_vo_run(&f, &o);
        cr_assert_eq(r[j]->status, COSA_VO_OK);
    }
    /* exact: one Newton step and one verifying integration per macro step */
    cr_expect_eq(r[0]->corrector_iters, 2 * r[0]->steps);
    for (int j = 1; j < 3; j++) {
        const double d = end_diff(r[0], r[j]);
        cr_expect(d < 1e-8, "jacobian %d vs exact: %.3g", j, d);
        cr_expect(r[j]->corrector_iters >= r[0]->corrector_iters);
    }
    for (int j = 0; j < 3; j++)
        cosa_vo_result_free(r[j]);
    tu_units_free(&f);
}

/* A coupling function that is u = L y itself (S = I) gives the run without
 * one, to rounding (the same sums in another order). */
static cosa_status phi_L(void *ctx, double t, const double *y, double *c, double *J)
{
    const cosa_system *sys = ctx;
    const size_t nu = cosa_system_nu(sys), ny = cosa_system_ny(sys);
    const double *L = cosa_system_L(sys);
    for (size_t i = 0; i < nu; i++) {
        double a = 0.0;
        for (size_t l = 0; l < ny; l++)
            a += L[i + l * nu] * y[l];
        c[i] = a;
    }
    if (J)
        memcpy(J, L, nu * ny * sizeof *J);
    return COSA_OK;
}

Test(vo_fixed, coupling_function_equal_to_L)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 2, 1e-4, 0.02);
    cosa_vo_result *a = tu_vo_run(&f, &o);
    const size_t nu = cosa_system_nu(f.sys);
    double S[64] = {0};
    for (size_t i = 0; i < nu; i++)
        S[i + i * nu] = 1.0;
    cosa_coupling cp = {.nc = nu, .phi = phi_L, .S = S, .ctx = f.sys};
    cr_assert_eq(cosa_unitset_set_coupling(f.set, &cp), COSA_OK);
    cr_expect_eq(cosa_unitset_nc(f.set), nu);
    cosa_vo_result *b = tu_vo_run(&f, &o);
    const double d = end_diff(a, b);
    cr_expect(d < 1e-12, "phi = L y vs u = L y: %.3g", d);
    /* the MBCorr master does not take a set with coupling variables */
    cosa_scheme zoh;
    cosa_scheme_parse("zoh", &zoh);
    cosa_master *m = NULL;
    cr_expect_eq(cosa_master_create(f.set, &zoh, 1e-4, NULL, &m), COSA_EUNSUPPORTED);
    cosa_vo_result_free(a);
    cosa_vo_result_free(b);
    tu_units_free(&f);
}

/* ---- threads --------------------------------------------------------------------- */

/* The units of a step (and the FD perturbations) run in parallel, each on
 * its own data: the result is bitwise that of one thread. */
Test(vo_threads, one_and_two_threads_bitwise)
{
#ifdef _OPENMP
    tu_units f;
    tu_units_init(&f, "twomass", "cvode");
    cosa_vo_result *r[2];
    for (int j = 0; j < 2; j++) {
        omp_set_num_threads(j + 1);
        cosa_vo_opts o = opts(&f, COSA_VO_IMPLICIT, 1, 1e-4, 0.01);
        o.estimator = cosa_vo_estimator_lookup("immilne");
        o.control = COSA_VO_CONTROL_ORDER;
        r[j] = tu_vo_run(&f, &o);
    }
    cr_expect_eq(r[0]->nattempts, r[1]->nattempts);
    cr_expect_eq(r[0]->steps, r[1]->steps);
    cr_expect(memcmp(r[0]->x, r[1]->x, (r[0]->steps + 1) * r[0]->nx * sizeof(double)) == 0,
              "1 and 2 threads differ");
    cr_expect(memcmp(r[0]->aH, r[1]->aH, r[0]->nattempts * sizeof(double)) == 0);
    cosa_vo_result_free(r[0]);
    cosa_vo_result_free(r[1]);
    tu_units_free(&f);
#else
    cr_log_warn("built without OpenMP: one thread only");
#endif
}

/* ---- controlled runs ----------------------------------------------------------- */

/* Order and step control on the linear oscillator: the run ends exactly at
 * t_s + tend, the degree history adds up, and the global error is of the
 * size the tolerance asks for (rtol 1e-5 per step; eq 36 over 300 ms of a
 * lightly damped oscillation, well below 1e-2). */
Test(vo_control_run, order_control_reaches_the_end)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const char *est[3] = {"exlocal", "exmilne", "exslocal"};
    for (int e = 0; e < 3; e++) {
        cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.1);
        o.estimator = cosa_vo_estimator_lookup(est[e]);
        o.control = COSA_VO_CONTROL_ORDER;
        cosa_vo_result *r = tu_vo_run(&f, &o);
        cr_expect_eq(r->status, COSA_VO_OK, "%s: %s", est[e], r->reason);
        cr_expect_eq(r->t_end, r->t_start + 0.1);
        cr_expect_eq(r->t_start, 6 * 1e-4); /* (kmax + 1) H0 */
        size_t sum = 0;
        for (int k = 0; k <= COSA_VO_KMAX; k++)
            sum += r->k_hist[k];
        cr_expect_eq(sum, r->steps);
        cr_expect_eq(r->nattempts, r->steps + r->rejected);
        cr_expect(r->k_changes > 0, "%s: the degree never changed", est[e]);
        cr_expect(r->H_max > r->H_min);
        /* the loop's own figures (cosa_run_stats) are the engine's */
        cr_expect(r->run.end == COSA_RUN_OK && r->run.steps == r->steps &&
                  r->run.rejected == r->rejected && r->run.attempts == r->nattempts);
        cr_expect(r->run.h_min == r->H_min && r->run.h_max == r->H_max &&
                  r->run.t_end == r->t_end);
        cr_expect(r->e36_all < 1e-2, "%s: e36 %.3g", est[e], r->e36_all);
        cosa_vo_result_free(r);
    }
    tu_units_free(&f);
}

/* ---- one step from the reference (cosa estimate) ---------------------------- */

/* Local errors of orders k+3 (positions), k+2 (velocities), k+1 (u), and
 * every estimator's estimate converging to them (sect. 4): slopes over H =
 * h0, h0/2, h0 chosen per k so that the errors stay far above rounding
 * (k = 3: err_pos ~ 3e-8 of a 0.1 m amplitude at h0).  Bounds: 0.3 on the
 * error slopes (two-point slopes, measured within 0.1 of k+3, k+2, k+1),
 * est/err within 10 % of 1 at h0/2 (measured at most 4.8 %), and est/err - 1
 * linear in H for k <= 2 (its ratio between h0 and h0/2 in [1.6, 2.5],
 * measured 1.9-2.2) where it is large enough to be measured (> 0.5 %; the
 * S-estimators' est/err is 1 within 0.2 % already). */
Test(vo_estimate, orders_and_est_over_err)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const char *names[5] = {"exlocal", "exmilne", "exslocal", "immilne", "imslocal"};
    const double h0s[4] = {2e-5, 4e-5, 5e-5, 2e-4};
    for (int e = 0; e < 5; e++) {
        const cosa_vo_estimator *est = cosa_vo_estimator_lookup(names[e]);
        for (int k = 0; k <= 3; k++) {
            const double h0 = h0s[k];
            cosa_vo_estimate r[2];
            for (int j = 0; j < 2; j++) {
                cosa_vo_opts o = opts(&f, cosa_vo_estimator_implicit(est) ? COSA_VO_IMPLICIT
                                                                           : COSA_VO_EXPLICIT,
                                      k, j ? h0 / 2 : h0, 1.0);
                o.estimator = est;
                o.jacobian = COSA_VO_JAC_EXACT;
                cr_assert_eq(cosa_vo_estimate_step(f.set, tu_units_ref, &f, &o, 0.01, &r[j]),
                             COSA_OK);
            }
            double dev[2][2], err[2][2];
            const int nq = cosa_vo_estimator_on_states(est) ? 2 : 1;
            for (int j = 0; j < 2; j++) {
                err[j][0] = nq == 2 ? r[j].err_pos : r[j].err_u;
                dev[j][0] = (nq == 2 ? r[j].est_pos : r[j].est_u) / err[j][0] - 1.0;
                err[j][1] = r[j].err_vel;
                dev[j][1] = r[j].est_vel / r[j].err_vel - 1.0;
            }
            for (int q = 0; q < nq; q++) {
                const int want = nq == 2 ? k + 3 - q : k + 1;
                const double order = log2(err[0][q] / err[1][q]);
                cr_expect(fabs(order - want) < 0.3, "%s k %d: order %.3f (want %d)", names[e],
                          k, order, want);
                cr_expect(fabs(dev[1][q]) < 0.1, "%s k %d: est/err - 1 = %.4f", names[e], k,
                          dev[1][q]);
                if (k <= 2 && fabs(dev[1][q]) > 5e-3) {
                    const double ratio = dev[0][q] / dev[1][q];
                    cr_expect(ratio > 1.6 && ratio < 2.5,
                              "%s k %d: est/err - 1 not linear in H: %.4g -> %.4g", names[e], k,
                              dev[0][q], dev[1][q]);
                }
            }
        }
    }
    tu_units_free(&f);
}

/* ---- bad options ------------------------------------------------------------------- */

Test(vo_bad, options_rejected)
{
    tu_units f, fc;
    tu_units_init(&f, "twomass", "exact");
    tu_units_init(&fc, "twomass", "cvode");
    cosa_vo_result *r = NULL;
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
    o.estimator = cosa_vo_estimator_lookup("immilne"); /* the other coupling */
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_EUNSUPPORTED);
    o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
    o.control = COSA_VO_CONTROL_STEP; /* no estimator */
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_EUNSUPPORTED);
    o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
    o.kmax = 9;
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE);
    o = opts(&f, COSA_VO_EXPLICIT, 4, 1e-4, 0.01);
    o.kmax = 3; /* degree above kmax */
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE);
    const double bad[][2] = {{0.0, 1}, {-1e-5, 1}, {NAN, 1}, {INFINITY, 1}};
    for (size_t i = 0; i < 4; i++) {
        o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
        o.rtol = bad[i][0];
        cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE, "rtol %g",
                     bad[i][0]);
        o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
        o.sf = bad[i][0];
        cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE, "sf %g", bad[i][0]);
    }
    o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
    o.rmin = 1.0;
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE);
    o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.01);
    o.rmax = 1.0;
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE);
    o = opts(&f, COSA_VO_EXPLICIT, 1, -1e-4, 0.01);
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_ERANGE);
    /* exact Jacobian on CVODE (nonlinear-capable) units */
    o = opts(&fc, COSA_VO_IMPLICIT, 1, 1e-4, 0.01);
    o.jacobian = COSA_VO_JAC_EXACT;
    cr_expect_eq(cosa_vo_run(fc.set, tu_units_ref, &fc, &o, &r), COSA_EUNSUPPORTED);
    cr_expect_null(r);
    /* estimate: t0 before (k+1) H */
    cosa_vo_estimate est;
    o = opts(&f, COSA_VO_EXPLICIT, 2, 1e-3, 0.01);
    o.estimator = cosa_vo_estimator_lookup("exmilne");
    cr_expect_eq(cosa_vo_estimate_step(f.set, tu_units_ref, &f, &o, 2e-3, &est), COSA_ERANGE);
    cr_expect_null(cosa_vo_estimator_lookup("nope"));
    tu_units_free(&f);
    tu_units_free(&fc);
}

/* A unit rate K > 1 on the unit set: the engine hands every unit one
 * polynomial over the macro step and steps it once (the given inputs), so
 * a rate would be ignored; the combination rules refuse it (COSA_EUNSUPPORTED,
 * both couplings) before any step, and the same set with rates 1 runs. */
Test(vo_bad, unit_rates_refused)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const unsigned rate[2] = {1, 2}, one[2] = {1, 1};
    cr_assert_eq(cosa_unitset_set_rates(f.set, rate), COSA_OK);
    cosa_vo_result *r = NULL;
    const cosa_vo_coupling_kind c[2] = {COSA_VO_EXPLICIT, COSA_VO_IMPLICIT};
    for (int k = 0; k < 2; k++) {
        cosa_vo_opts o = opts(&f, c[k], 1, 1e-4, 2e-3);
        cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_EUNSUPPORTED, "%d", k);
        cr_expect_null(r);
    }
    cr_assert_eq(cosa_unitset_set_rates(f.set, one), COSA_OK);
    for (int k = 0; k < 2; k++) {
        cosa_vo_opts o = opts(&f, c[k], 1, 1e-4, 2e-3);
        cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_OK, "%d", k);
        /* the horizon of 20 steps of H (control none: no step change) */
        cr_expect(r && r->steps == 20, "%d: %zu steps", k, r ? r->steps : 0);
        cosa_vo_result_free(r);
        r = NULL;
    }
    tu_units_free(&f);
}

/* ---- the controller table: sect. 5's rules and the PI law behind one ops table -- */

/* "order" and "step" sit in the controller table with decide(); their
 * scalar next() is the same rules for a degree-0 estimate on u: a passing
 * error err gives r = (SF err)^-1 with the limits of sect. 5.3 (err = 1/24:
 * r = 4 >= rmax -> 2 H; err = 4: the step fails, the first failure repeats
 * it with min(0.9, max(0.25, 0.9 r)) H = 0.25 H since 0.9/24 < 0.25). */
Test(vo_control_run, controller_table_entries)
{
    const cosa_controller_type *o = cosa_controller_lookup("order");
    const cosa_controller_type *s = cosa_controller_lookup("step");
    cr_assert_not_null(o);
    cr_assert_not_null(s);
    cr_expect_not_null(o->decide);
    cr_expect_null(cosa_controller_lookup("pi")->decide);
    cosa_controller_params p;
    cr_assert_eq(cosa_controller_defaults(s, 1.0, &p), COSA_OK);
    cr_expect_eq(p.vo.sf, 6.0);
    cr_expect_eq(p.grow, 2.0);
    cosa_controller *c = NULL;
    cr_assert_eq(cosa_controller_create(s, &p, &c), COSA_OK);
    cr_assert_eq(cosa_controller_reset(c, 1e-3), COSA_OK);
    double hn;
    int acc;
    cr_assert_eq(cosa_controller_next(c, 1e-3, 1.0 / 24.0, &hn, &acc), COSA_OK);
    cr_expect_eq(acc, 1);
    cr_expect_eq(hn, 2e-3);
    cr_assert_eq(cosa_controller_next(c, 2e-3, 4.0, &hn, &acc), COSA_OK);
    cr_expect_eq(acc, 0);
    cr_expect_eq(hn, 0.25 * 2e-3);
    cosa_controller_free(c);
}

/* The engine takes any entry of the table: "step" keeps the degree, and the
 * defect paper's PI law (no decide(): next() on the error norm, tol 1)
 * drives a run to its end as well. */
Test(vo_control_run, step_and_pi_controllers_in_the_engine)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const char *names[2] = {"step", "pi"};
    for (int j = 0; j < 2; j++) {
        cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 2, 1e-4, 0.05);
        o.estimator = cosa_vo_estimator_lookup("exmilne");
        o.control = COSA_VO_CONTROL_STEP;
        o.controller = cosa_controller_lookup(names[j]);
        cosa_vo_result *r = tu_vo_run(&f, &o);
        cr_expect_eq(r->status, COSA_VO_OK, "%s: %s", names[j], r->reason);
        cr_expect_eq(r->k_hist[2], r->steps, "%s changed the degree", names[j]);
        cr_expect_eq(r->k_changes, 0u);
        cr_expect_eq(r->t_end, r->t_start + 0.05);
        cr_expect(r->H_max > r->H_min, "%s: the step never changed", names[j]);
        cosa_vo_result_free(r);
    }
    tu_units_free(&f);
}
