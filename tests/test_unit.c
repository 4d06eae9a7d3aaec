/* test_unit.c -- co-simulation units (lib/unit*.c): the exact linear step
 * against a closed form, input polynomials and their Taylor shift, the
 * integrators' convergence orders, CVODE against the exact step,
 * finite-difference against analytic Jacobians, argument checks. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"
#include "td/unitset_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- exact linear step ----------------------------------------------------- */

/* x' = a x + b u, u(t) = 1 + 2 t + 3 t^2: x(t) = xp(t) + (x0 - xp(0)) e^{a t},
 * xp = al + be t + ga t^2 with ga = -3 b / a, be = (2 ga - 2 b) / a,
 * al = (be - b) / a. */
static double scalar_exact(double a, double b, double x0, double t)
{
    double ga = -3.0 * b / a, be = (2.0 * ga - 2.0 * b) / a, al = (be - b) / a;
    return al + be * t + ga * t * t + (x0 - al) * exp(a * t);
}

Test(unit_linear, polynomial_input_closed_form)
{
    const double a = -2.0, b = 1.5, c = 0.7, d = -0.3, x0 = 0.4, h = 0.1;
    cosa_subsystem sub = {1, 1, 1, &a, &b, &c, &d};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    cr_assert(cosa_unit_is_linear(u));
    cr_assert_eq(cosa_unit_set_state(u, 0.0, &x0), COSA_OK);
    const double der[3] = {1.0, 2.0, 6.0}; /* u, u', u'' at t = 0 */
    cr_assert_eq(cosa_unit_set_input(u, 2, der), COSA_OK);
    double y;
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
    cr_expect_leq(fabs(y - (c * x0 + d * 1.0)), 4 * DBL_EPSILON);
    /* three steps without a new input: the polynomial is shifted each time */
    for (int k = 1; k <= 3; k++) {
        cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
        double t, x;
        cosa_unit_get_state(u, &t, &x);
        double xe = scalar_exact(a, b, x0, k * h), ue = 1 + 2 * k * h + 3 * k * h * k * h;
        cr_expect_leq(fabs(t - k * h), 4 * DBL_EPSILON);
        cr_expect_leq(fabs(x - xe), 64 * DBL_EPSILON * fabs(xe), "step %d: %.17g vs %.17g", k,
                      x, xe);
        cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
        cr_expect_leq(fabs(y - (c * xe + d * ue)), 64 * DBL_EPSILON, "output step %d", k);
    }
    /* Jacobians are the matrices; eval is the model */
    double A, B, C, D, xd;
    cr_assert_eq(cosa_unit_jacobian(u, 0.0, &x0, der, 0, &A, &B, &C, &D), COSA_OK);
    cr_expect(A == a && B == b && C == c && D == d);
    cr_assert_eq(cosa_unit_eval(u, 0.0, &x0, der, &xd, &y), COSA_OK);
    cr_expect_eq(xd, a * x0 + b * der[0]);
    cr_expect_eq(y, c * x0 + d * der[0]);
    cosa_unit_free(u);
}

/* ---- integrator orders ------------------------------------------------------ */

/* Damped oscillator s' = v, v' = -w^2 s - 2 z w v + u (kick v, drift s). */
struct osc {
    double w, z;
};
static int osc_f(double t, const double *x, const double *u, double *out, void *ud)
{
    const struct osc *o = ud;
    out[0] = x[1];
    out[1] = -o->w * o->w * x[0] - 2.0 * o->z * o->w * x[1] + u[0];
    return 0;
}
static int osc_g(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[0];
    return 0;
}
static int osc_jac(double t, const double *x, const double *u, double *A, double *B, double *C,
                   double *D, void *ud)
{
    const struct osc *o = ud;
    A[0] = 0.0, A[1] = -o->w * o->w, A[2] = 1.0, A[3] = -2.0 * o->z * o->w;
    B[0] = 0.0, B[1] = 1.0;
    C[0] = 1.0, C[1] = 0.0;
    D[0] = 0.0;
    return 0;
}
static const unsigned char osc_kick[2] = {0, 1};

/* |x(h) - exact| after one macro step h with n micro steps. */
static double one_step_error(cosa_integrator_kind kind, size_t nmicro, const double *xexact,
                             struct osc *o, double h, const double *x0, const double *der)
{
    cosa_ode ode = {2, 1, 1, osc_f, osc_g, osc_jac, osc_kick, o, 0, 0, 0};
    cosa_integrator integ = {.kind = kind, .hmicro = h / (double)nmicro};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
    cosa_unit_set_state(u, 0.0, x0);
    cosa_unit_set_input(u, 2, der);
    cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
    double x[2];
    cosa_unit_get_state(u, NULL, x);
    cosa_unit_free(u);
    return hypot(x[0] - xexact[0], (x[1] - xexact[1]) / o->w);
}

static void exact_oscillator(struct osc *o, double h, const double *x0, const double *der,
                             double *x)
{
    const double A[4] = {0.0, -o->w * o->w, 1.0, -2.0 * o->z * o->w}, B[2] = {0.0, 1.0},
                 C[2] = {1.0, 0.0}, D[1] = {0.0};
    cosa_subsystem sub = {2, 1, 1, A, B, C, D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    cosa_unit_set_state(u, 0.0, x0);
    cosa_unit_set_input(u, 2, der);
    cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
    cosa_unit_get_state(u, NULL, x);
    cosa_unit_free(u);
}

/* Halving the micro step divides the error by 2^order: RK4 order 4,
 * symplectic and forward Euler order 1 (fitted over 10..160 micro steps;
 * |fitted - expected| <= 0.1). */
Test(unit_ode, integrator_orders)
{
    struct osc o = {.w = 20.0, .z = 0.05};
    const double h = 0.2, x0[2] = {0.1, -1.0}, der[3] = {1.0, -3.0, 8.0};
    double xe[2];
    exact_oscillator(&o, h, x0, der, xe);
    const struct {
        cosa_integrator_kind kind;
        double order;
        size_t n0;
    } cases[] = {{COSA_INTEGRATOR_RK4, 4.0, 10},
                 {COSA_INTEGRATOR_SYMPLECTIC_EULER, 1.0, 80},
                 {COSA_INTEGRATOR_EULER, 1.0, 160}};
    for (size_t c = 0; c < 3; c++) {
        double e_prev = 0.0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        int npt = 0;
        for (size_t n = cases[c].n0; n <= 16 * cases[c].n0; n *= 2, npt++) {
            double e = one_step_error(cases[c].kind, n, xe, &o, h, x0, der);
            double lx = log((double)n), ly = log(e);
            sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
            if (e_prev > 0)
                cr_log_info("%s: n = %zu, error %.3g, ratio %.3f\n",
                            cosa_integrator_name(cases[c].kind), n, e, e_prev / e);
            e_prev = e;
        }
        double slope = -(npt * sxy - sx * sy) / (npt * sxx - sx * sx);
        cr_expect_leq(fabs(slope - cases[c].order), 0.1, "%s: fitted order %.3f, expected %g",
                      cosa_integrator_name(cases[c].kind), slope, cases[c].order);
    }
}

/* CVODE (BDF and Adams) over 20 macro steps against the exact step:
 * relative state error <= 1e-7 at rtol 1e-10 (with and without the analytic
 * df/dx; measured 1.3e-8 BDF, 3e-9 Adams: the global error of a restarted
 * multistep method is ~100 rtol here). */
Test(unit_ode, cvode_vs_exact)
{
    struct osc o = {.w = 300.0, .z = 0.02};
    const double h = 1e-3, x0[2] = {0.01, 2.0};
    const double A[4] = {0.0, -o.w * o.w, 1.0, -2.0 * o.z * o.w}, B[2] = {0.0, 1.0},
                 C[2] = {1.0, 0.0}, D[1] = {0.0};
    cosa_subsystem sub = {2, 1, 1, A, B, C, D};
    for (int variant = 0; variant < 3; variant++) {
        cosa_ode ode = {2, 1, 1, osc_f, osc_g, variant == 2 ? NULL : osc_jac, NULL, &o, 0, 0, 0};
        cosa_integrator integ;
        cosa_integrator_parse(variant == 1 ? "cvode-adams" : "cvode-bdf", &integ);
        cosa_unit *u = NULL, *ex = NULL;
        cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
        cr_assert_eq(cosa_unit_linear_create(&sub, &ex), COSA_OK);
        cosa_unit_set_state(u, 0.0, x0);
        cosa_unit_set_state(ex, 0.0, x0);
        double worst = 0.0, scale = 0.0;
        for (int k = 0; k < 20; k++) {
            double der[2] = {100.0 * sin(0.3 * k), 1e4 * cos(0.3 * k)};
            cosa_unit_set_input(u, 1, der);
            cosa_unit_set_input(ex, 1, der);
            cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK, "%s", cosa_unit_message(u));
            cr_assert_eq(cosa_unit_do_step(ex, h), COSA_OK);
            double xa[2], xb[2];
            cosa_unit_get_state(u, NULL, xa);
            cosa_unit_get_state(ex, NULL, xb);
            worst = fmax(worst, fabs(xa[0] - xb[0]));
            scale = fmax(scale, fabs(xb[0]));
        }
        cr_log_info("CVODE variant %d: relative error %.3g\n", variant, worst / scale);
        cr_expect_leq(worst / scale, 1e-7, "variant %d: %.3g", variant, worst / scale);
        cosa_unit_free(u);
        cosa_unit_free(ex);
    }
}

/* ---- finite-difference Jacobians -------------------------------------------- */

/* Nonlinear test function with known derivatives:
 *   f = [x1 x0^2 + sin(u0),  exp(0.1 x0) u1],  g = [x0 u0 u1 + x1^3]. */
static int nl_f(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[1] * x[0] * x[0] + sin(u[0]);
    out[1] = exp(0.1 * x[0]) * u[1];
    return 0;
}
static int nl_g(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[0] * u[0] * u[1] + x[1] * x[1] * x[1];
    return 0;
}
static int nl_jac(double t, const double *x, const double *u, double *A, double *B, double *C,
                  double *D, void *ud)
{
    A[0] = 2.0 * x[1] * x[0], A[1] = 0.1 * exp(0.1 * x[0]) * u[1];
    A[2] = x[0] * x[0], A[3] = 0.0;
    B[0] = cos(u[0]), B[1] = 0.0, B[2] = 0.0, B[3] = exp(0.1 * x[0]);
    C[0] = u[0] * u[1], C[1] = 3.0 * x[1] * x[1];
    D[0] = x[0] * u[1], D[1] = x[0] * u[0];
    return 0;
}

/* Central differences with steps ~ cbrt(eps) |z|: truncation + rounding
 * ~ eps^(2/3) ~ 4e-11 relative to the scale of the entries; checked at
 * 1e-8 (relative to the largest entry of each matrix). */
Test(unit_jacobian, fd_vs_analytic)
{
    cosa_ode ode = {2, 2, 1, nl_f, nl_g, nl_jac, NULL, NULL, 0, 0, 0};
    cosa_integrator integ;
    cosa_integrator_parse("rk4", &integ);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
    const double pts[3][4] = {{0.3, -1.2, 0.5, 2.0}, {-4.0, 0.0, 1e-3, 50.0}, {0, 0, 0, 0}};
    for (int k = 0; k < 3; k++) {
        double Aa[4], Ba[4], Ca[2], Da[2], Af[4], Bf[4], Cf[2], Df[2];
        cr_assert_eq(cosa_unit_jacobian(u, 0.0, pts[k], pts[k] + 2, 0, Aa, Ba, Ca, Da), COSA_OK);
        cr_assert_eq(cosa_unit_jacobian(u, 0.0, pts[k], pts[k] + 2, 1, Af, Bf, Cf, Df), COSA_OK);
        const double *an[4] = {Aa, Ba, Ca, Da}, *fd[4] = {Af, Bf, Cf, Df};
        const size_t sz[4] = {4, 4, 2, 2};
        for (int mtx = 0; mtx < 4; mtx++) {
            double d = 0.0, s = 0.0;
            for (size_t i = 0; i < sz[mtx]; i++) {
                d = fmax(d, fabs(an[mtx][i] - fd[mtx][i]));
                s = fmax(s, fabs(an[mtx][i]));
            }
            cr_expect_leq(d, 1e-8 * fmax(s, 1.0), "point %d, matrix %c: %.3g (scale %.3g)", k,
                          "ABCD"[mtx], d, s);
        }
    }
    /* a unit without analytic Jacobians uses differences automatically */
    cosa_ode noj = ode;
    noj.jac = NULL;
    cosa_unit *v = NULL;
    cr_assert_eq(cosa_unit_ode_create(&noj, &integ, &v), COSA_OK);
    double D1[2], D2[2];
    cr_assert_eq(cosa_unit_jacobian(v, 0.0, pts[0], pts[0] + 2, 0, NULL, NULL, NULL, D1), COSA_OK);
    cr_assert_eq(cosa_unit_jacobian(u, 0.0, pts[0], pts[0] + 2, 1, NULL, NULL, NULL, D2), COSA_OK);
    cr_expect(D1[0] == D2[0] && D1[1] == D2[1]);
    cosa_unit_free(u);
    cosa_unit_free(v);
}

/* ---- step gains by central differences through snapshots ---------------------- */

/* G_w = C int_0^h e^{A(h - tau)} B w(tau/h) dtau + D of subsystem i of sys
 * (ny_i x nu_i) through the Van Loan exponential: the closed form the
 * differences must reproduce. */
static void gains_closed_form(const cosa_system *sys, size_t i, int p, double h, const double *w,
                              double *G)
{
    size_t nx, nu, ny, ox, ou, oy;
    cr_assert_eq(cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &ox, &ou, &oy), COSA_OK);
    const size_t NX = cosa_system_nx(sys), NY = cosa_system_ny(sys);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys), *C = cosa_system_C(sys),
                 *D = cosa_system_D(sys);
    cosa_vanloan_workspace *vw = cosa_vanloan_workspace_alloc(nx + (size_t)(p + 1) * nu);
    double Ad[16], Q[5 * 16], QW[16] = {0};
    cr_assert(vw && nx * nx <= 16 && nx * nu <= 16);
    cr_assert_eq(cosa_vanloan(nx, nu, p, h, A + ox + ox * NX, NX, B + ox + ou * NX, NX, Ad, nx, Q,
                              nx, nx * nu, vw),
                 COSA_OK);
    for (int m = 0; m <= p; m++)
        for (size_t c = 0; c < nx * nu; c++)
            QW[c] += w[m] * Q[(size_t)m * nx * nu + c];
    for (size_t r = 0; r < ny; r++)
        for (size_t k = 0; k < nu; k++) {
            double g = D[oy + r + (ou + k) * NY];
            for (size_t j = 0; j < nx; j++)
                g += C[oy + r + (ox + j) * NY] * QW[j + k * nx];
            G[r + k * ny] = g;
        }
    cosa_vanloan_workspace_free(vw);
}

/* For both subsystems of the two-mass oscillator (I: no feedthrough, II: D
 * holds -c_k, -d_k), p = 0..4, from a state and input polynomial away from
 * zero (the gains of a linear unit do not depend on the point): the exact
 * linear unit and an RK4 unit (micro step h/100: its discrete map's gains
 * differ from the exact ones by O((omega h_micro)^4) ~ 1e-12 relative) give
 * the closed form.  Central differences of a map that is linear in the input
 * have no truncation error, only the outputs' rounding over the difference
 * step, ~ eps |y| / d_k with d_k = cbrt(eps) |u_k|: relative to the gain
 * eps^(2/3) |y| / (|G| |u|), large when the free response dominates y (unit
 * I: |y| / (|G| |u|) ~ 2e3, so ~ 1e-7).  Afterwards the unit is where it was:
 * its next step is bitwise that of a twin that computed no gains. */
Test(unit_step_gains, closed_form_linear_and_rk4)
{
    cosa_system *sys = tu_model_system("twomass", NULL);
    cosa_odesys *os = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &os), COSA_OK);
    const double h = 1e-4;
    cosa_integrator rk4;
    cosa_integrator_parse("rk4", &rk4);
    rk4.hmicro = h / 100;
    const double x0[2] = {1e-3, 40.0};
    const double uder[2 * 5] = {2e3, 3e-3, -1e5, 50.0, 3e6, -2e5, 0, 0, 0, 0};
    for (size_t i = 0; i < 2; i++)
        for (int kind = 0; kind < 2; kind++)
            for (int p = 0; p <= 4; p++) {
                cosa_unit *u = NULL, *twin = NULL;
                for (int k = 0; k < 2; k++)
                    cr_assert_eq(kind ? cosa_unit_ode_create(cosa_odesys_sub(os, i), &rk4,
                                                             k ? &twin : &u)
                                      : cosa_unit_linear_from_system(sys, i, k ? &twin : &u),
                                 COSA_OK);
                const size_t nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
                double der[2 * 5] = {0}; /* nu x (p+1), ld nu */
                for (int m = 0; m <= p && m < 3; m++)
                    for (size_t k = 0; k < nu; k++)
                        der[k + (size_t)m * nu] = uder[k + (size_t)m * 2];
                for (int k = 0; k < 2; k++) {
                    cosa_unit *v = k ? twin : u;
                    cr_assert_eq(cosa_unit_set_state(v, 0.01, x0), COSA_OK);
                    cr_assert_eq(cosa_unit_set_input(v, p, der), COSA_OK);
                }
                double lag[25], e[5], w[5], Gp[4], G0[4], Cp[4], C0[4], work[8];
                cosa_order_tables(p, lag, e, w);
                cosa_unit_snapshot *snap = NULL;
                cr_assert_eq(cosa_unit_step_gains(u, h, p + 1, w, Gp, G0, &snap, work), COSA_OK);
                const double one = 1.0;
                gains_closed_form(sys, i, p, h, w, Cp);
                gains_closed_form(sys, i, 0, h, &one, C0);
                double ya[2], yb[2], xa[2], xb[2];
                for (int k = 0; k < 2; k++) {
                    cosa_unit *v = k ? twin : u;
                    cr_assert_eq(cosa_unit_do_step(v, h), COSA_OK);
                    cr_assert_eq(cosa_unit_get_output(v, k ? yb : ya), COSA_OK);
                    cr_assert_eq(cosa_unit_get_state(v, NULL, k ? xb : xa), COSA_OK);
                }
                cr_expect(memcmp(ya, yb, ny * sizeof *ya) == 0 && memcmp(xa, xb, sizeof xa) == 0,
                          "unit %zu p %d: the step after the gains differs", i, p);
                /* the bound of each entry: the outputs' rounding, K eps |y|, over
                 * the difference step d_k (K = 100: an RK4 step is 100 micro steps,
                 * the exact one a few products), plus 1e-10 relative for RK4's own
                 * map */
                double ymax = 0.0, umax = fmax(fabs(der[0]), fabs(der[nu - 1]));
                for (size_t r = 0; r < ny; r++)
                    ymax = fmax(ymax, fabs(ya[r]));
                double worst = 0.0;
                for (size_t k = 0; k < nu; k++) {
                    const double dk = cbrt(DBL_EPSILON) * fmax(fabs(der[k]), 1e-3 * umax);
                    for (size_t r = 0; r < ny; r++) {
                        const size_t c = r + k * ny;
                        const double b = 100.0 * DBL_EPSILON * ymax / dk;
                        const double ep = fabs(Gp[c] - Cp[c]), e0 = fabs(G0[c] - C0[c]);
                        cr_expect_leq(ep, b + 1e-10 * fabs(Cp[c]),
                                      "unit %zu %s p %d: G_p(%zu,%zu) %.17g, closed form %.17g",
                                      i, kind ? "rk4" : "exact", p, r, k, Gp[c], Cp[c]);
                        cr_expect_leq(e0, b + 1e-10 * fabs(C0[c]),
                                      "unit %zu %s p %d: G_0(%zu,%zu) %.17g, closed form %.17g",
                                      i, kind ? "rk4" : "exact", p, r, k, G0[c], C0[c]);
                        worst = fmax(worst, fmax(ep / (b + 1e-10 * fabs(Cp[c])),
                                                 e0 / (b + 1e-10 * fabs(C0[c]))));
                    }
                }
                if (getenv("COSA_TEST_VERBOSE"))
                    cr_log_info("unit %zu %s p %d: error / bound %.3g\n", i,
                                kind ? "rk4" : "exact", p, worst);
                cosa_unit_snapshot_free(u, snap);
                cosa_unit_free(u);
                cosa_unit_free(twin);
            }
    cosa_odesys_free(os);
    cosa_system_free(sys);
}

/* A pass-through type without snapshots: y = u. */
static cosa_status pass_step(cosa_unit *u, double h, double *xnew)
{
    (void)u, (void)h, (void)xnew;
    return COSA_OK;
}
static cosa_status pass_eval(cosa_unit *u, double t, const double *x, const double *uin,
                             double *xdot, double *y)
{
    (void)u, (void)t, (void)x, (void)xdot;
    if (y)
        y[0] = uin[0];
    return COSA_OK;
}

/* Arguments; a type without snapshots has no step gains; a scalar closed
 * form: x' = -x + u, y = x gives G_0 = 1 - e^{-h} (bound as above). */
Test(unit_step_gains, arguments_and_scalar)
{
    static const cosa_unit_type pass = {.name = "pass", .caps = COSA_UNIT_CAN_EVAL,
                                          .step = pass_step, .eval = pass_eval};
    cosa_unit *q = NULL;
    double work[8], G[4], w = 1.0;
    cosa_unit_snapshot *snap = NULL;
    cr_assert_eq(cosa_unit_create(&pass, 0, 1, 1, NULL, &q), COSA_OK);
    cr_expect_eq(cosa_unit_step_gains(q, 1e-3, 1, &w, G, NULL, &snap, work), COSA_EUNSUPPORTED);
    cosa_unit_free(q);
    cr_expect_eq(cosa_unit_step_gains(NULL, 1e-3, 1, &w, G, NULL, &snap, work), COSA_EINVAL);
    const double A = -1, B = 1, C = 1, D = 0;
    cosa_subsystem sub = {1, 1, 1, &A, &B, &C, &D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    cr_expect_eq(cosa_unit_step_gains(u, -1e-3, 1, &w, G, NULL, &snap, work), COSA_ERANGE);
    cr_expect_eq(cosa_unit_step_gains(u, 1e-3, 0, &w, G, NULL, &snap, work), COSA_EINVAL);
    /* x' = -x + u, y = x: G_0 = 1 - e^{-h} */
    cr_assert_eq(cosa_unit_step_gains(u, 1e-3, 1, &w, G, NULL, &snap, work), COSA_OK);
    cr_expect_leq(fabs(G[0] - -expm1(-1e-3)), 1e-8 * -expm1(-1e-3), "G %.17g", G[0]);
    cosa_unit_snapshot_free(u, snap);
    cosa_unit_free(u);
}

/* ---- arguments, names ---------------------------------------------------------- */

Test(unit_args, validation)
{
    struct osc o = {.w = 1.0, .z = 0.1};
    cosa_ode ode = {2, 1, 1, osc_f, osc_g, osc_jac, NULL, &o, 0, 0, 0};
    cosa_integrator integ;
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_integrator_parse("exact", &integ), COSA_OK);
    cr_expect_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_EUNSUPPORTED);
    cr_assert_eq(cosa_integrator_parse("symplectic-euler", &integ), COSA_OK);
    cr_expect_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_EUNSUPPORTED, "needs kick flags");
    cr_expect_eq(cosa_integrator_parse("rk5", &integ), COSA_EINVAL);
    cr_assert_eq(cosa_integrator_parse("Euler", &integ), COSA_OK);
    cr_expect_str_eq(cosa_integrator_name(integ.kind), "euler");
    cr_expect_str_eq(cosa_integrator_name(COSA_INTEGRATOR_CVODE_BDF), "cvode-bdf");
    cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
    double x[2] = {0, 0}, der[COSA_UNIT_DEGMAX + 2] = {0};
    cr_expect_eq(cosa_unit_set_input(u, -1, der), COSA_ERANGE);
    cr_expect_eq(cosa_unit_set_input(u, COSA_UNIT_DEGMAX + 1, der), COSA_ERANGE);
    cr_expect_eq(cosa_unit_set_input(u, 0, NULL), COSA_EINVAL);
    der[0] = NAN;
    cr_expect_eq(cosa_unit_set_input(u, 0, der), COSA_ENONFINITE);
    cr_expect_eq(cosa_unit_do_step(u, 0.0), COSA_ERANGE);
    cr_expect_eq(cosa_unit_do_step(u, -1.0), COSA_ERANGE);
    cr_expect_eq(cosa_unit_do_step(NULL, 1.0), COSA_EINVAL);
    x[1] = INFINITY;
    cr_expect_eq(cosa_unit_set_state(u, 0.0, x), COSA_ENONFINITE);
    cr_expect_eq(cosa_unit_nx(u), 2);
    cr_expect_eq(cosa_unit_nu(u), 1);
    cr_expect_eq(cosa_unit_ny(u), 1);
    cr_expect_not(cosa_unit_is_linear(u));
    cosa_unit_free(u);
    cosa_unit_free(NULL);
}

/* A right-hand side that fails: the step reports it, the state is kept. */
static int bad_f(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = 0.0;
    return t > 0.05 ? -1 : 0;
}
Test(unit_ode, callback_failure)
{
    cosa_ode ode = {1, 0, 1, bad_f, osc_g, NULL, NULL, NULL, 0, 0, 0};
    const char *kinds[] = {"rk4", "cvode"};
    for (int k = 0; k < 2; k++) {
        cosa_integrator integ;
        cosa_integrator_parse(kinds[k], &integ);
        cosa_unit *u = NULL;
        cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
        double x = 1.0, t;
        cosa_unit_set_state(u, 0.0, &x);
        cr_expect_eq(cosa_unit_do_step(u, 0.1), COSA_ENOTCONVERGED, "%s", kinds[k]);
        cr_expect_neq(cosa_unit_message(u)[0], '\0');
        cosa_unit_get_state(u, &t, &x);
        cr_expect(t == 0.0 && x == 1.0);
        cr_log_info("%s: %s\n", kinds[k], cosa_unit_message(u));
        cosa_unit_free(u);
    }
}

/* x0' = w x1, x1' = -w x0 (x0 = cos w t, x1 = -sin w t from (1, 0)), its
 * right-hand side counted. */
struct rot {
    double w;
    long nf;
};
static int rot_f(double t, const double *x, const double *u, double *out, void *ud)
{
    struct rot *r = ud;
    r->nf++;
    out[0] = r->w * x[1];
    out[1] = -r->w * x[0];
    return 0;
}

/* The rotation as a CVODE BDF unit at (t0, (1, 0)). */
static cosa_unit *rot_unit(struct rot *r, double t0)
{
    cosa_ode ode = {2, 0, 1, rot_f, osc_g, NULL, NULL, r, 0, 0, 0};
    cosa_integrator integ;
    cr_assert_eq(cosa_integrator_parse("cvode-bdf", &integ), COSA_OK);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_ode_create(&ode, &integ, &u), COSA_OK);
    const double x[2] = {1.0, 0.0};
    cr_assert_eq(cosa_unit_set_state(u, t0, x), COSA_OK);
    return u;
}

/* A step CVODE cannot advance: w = 1e15 from t = 1 needs internal steps of
 * about rtol^(1/(q+1)) / w < 1e-17, below half an ulp of t (1.1e-16), so
 * t + h = t.  The step fails as the full budget of 1e6 internal steps would
 * (CVODE's mxstep message, the unit left at t = 1), after one chunk of
 * steps: the right-hand side is evaluated far fewer than the 1e6 times the
 * budget takes (each internal step evaluates it at least once). */
Test(unit_ode, cvode_step_that_cannot_advance_fails_early)
{
    struct rot r = {.w = 1e15};
    cosa_unit *u = rot_unit(&r, 1.0);
    double x[2], t;
    cr_expect_eq(cosa_unit_do_step(u, 1e-3), COSA_ENOTCONVERGED);
    cr_expect_not_null(strstr(cosa_unit_message(u), "mxstep steps taken"), "%s",
                       cosa_unit_message(u));
    cr_expect_lt(r.nf, 100000L, "%ld evaluations", r.nf);
    cosa_unit_get_state(u, &t, x);
    cr_expect(t == 1.0 && x[0] == 1.0 && x[1] == 0.0);
    cr_log_info("stuck step: %ld evaluations: %s\n", r.nf, cosa_unit_message(u));
    cosa_unit_free(u);
}

/* A step of many chunks of internal steps (50 periods, w = 100 pi, over
 * 1 s: thousands of steps) is completed as one: the state against
 * (cos w t, -sin w t).  Bound: each internal step errs by at most about
 * rtol = 1e-10 (|x| = 1; 10 for the local error estimate's constant) and an
 * undamped oscillator keeps the errors (phase), so N steps give at most
 * 10 N rtol, with N at most the evaluations counted. */
Test(unit_ode, cvode_step_of_many_chunks)
{
    struct rot r = {.w = 100.0 * M_PI};
    cosa_unit *u = rot_unit(&r, 0.0);
    double x[2], t;
    cr_assert_eq(cosa_unit_do_step(u, 1.0), COSA_OK, "%s", cosa_unit_message(u));
    cosa_unit_get_state(u, &t, x);
    const double err = hypot(x[0] - cos(r.w), x[1] + sin(r.w));
    cr_log_info("50 periods: %ld evaluations, error %.3g\n", r.nf, err);
    cr_expect_gt(r.nf, 3 * 2000L, "more than a chunk of 2000 steps: %ld", r.nf);
    cr_expect_leq(err, 10.0 * (double)r.nf * 1e-10, "%.3g", err);
    cosa_unit_free(u);
}

/* The linear adapter derives the kick flags of a mechanical model. */
Test(odesys, linear_adapter)
{
    cosa_system *sys = tu_model_system("twomass", NULL);
    cosa_odesys *os = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &os), COSA_OK);
    cr_expect_eq(cosa_odesys_nsub(os), 2);
    cr_expect_eq(cosa_odesys_nx(os), 4);
    cr_expect_eq(cosa_odesys_nu(os), 3);
    cr_expect_eq(cosa_odesys_ny(os), 3);
    for (size_t i = 0; i < 2; i++) {
        const cosa_ode *o = cosa_odesys_sub(os, i);
        cr_assert_not_null(o->kick);
        cr_expect(o->kick[0] == 0 && o->kick[1] == 1, "sub %zu: s drifts, v kicks", i);
    }
    cr_expect_null(cosa_odesys_sub(os, 2));
    cr_expect_eq(memcmp(cosa_odesys_L(os), cosa_system_L(sys), 9 * sizeof(double)), 0);
    cosa_odesys_free(os);
    cosa_system_free(sys);
}

/* ---- units without states (nx = 0) ------------------------------------------- */

/* A linear unit with no states is the gain y = D u: a step only moves the
 * time, the Jacobian is D.  (cosa_system_create rejects nx = 0, which the
 * linear unit once relied on.)  Exact arithmetic except the products in
 * y = D u(t), a few roundings: 4 eps. */
Test(unit_linear, no_states_is_a_gain)
{
    const double D[2] = {-3.0, 0.5}; /* 1 x 2 */
    cosa_subsystem sub = {0, 2, 1, NULL, NULL, NULL, D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    cr_expect(cosa_unit_nx(u) == 0 && cosa_unit_nu(u) == 2 && cosa_unit_ny(u) == 1);
    cr_expect(cosa_unit_is_linear(u));
    cr_assert_eq(cosa_unit_set_state(u, 0.5, NULL), COSA_OK);
    const double der[4] = {1.0, 2.0, 0.5, -1.0}; /* u(0.5) = (1, 2), u' = (0.5, -1) */
    cr_assert_eq(cosa_unit_set_input(u, 1, der), COSA_OK);
    double y = NAN, t = NAN;
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
    cr_expect_leq(fabs(y - (-3.0 * 1.0 + 0.5 * 2.0)), 4 * DBL_EPSILON * 4.0, "y %.17g", y);
    cr_assert_eq(cosa_unit_do_step(u, 0.1), COSA_OK);
    cr_assert_eq(cosa_unit_get_state(u, &t, NULL), COSA_OK);
    cr_expect_leq(fabs(t - 0.6), 4 * DBL_EPSILON);
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
    const double ye = -3.0 * (1.0 + 0.1 * 0.5) + 0.5 * (2.0 - 0.1 * 1.0);
    cr_expect_leq(fabs(y - ye), 4 * DBL_EPSILON * 4.0, "y %.17g vs %.17g", y, ye);
    /* Jacobians: D (analytic and by differences: exact for a linear map up to
     * the rounding of the difference quotient, ~eps / cbrt(eps) relative) */
    for (int fd = 0; fd <= 1; fd++) {
        double Dj[2] = {NAN, NAN};
        const double uin[2] = {0.3, -0.7};
        cr_assert_eq(cosa_unit_jacobian(u, 0.0, NULL, uin, fd, NULL, NULL, NULL, Dj), COSA_OK);
        for (int k = 0; k < 2; k++)
            cr_expect_leq(fabs(Dj[k] - D[k]), 1e-10 * fabs(D[k]), "fd %d: D[%d] = %.17g", fd, k,
                          Dj[k]);
        cr_assert_eq(cosa_unit_eval(u, 0.0, NULL, uin, NULL, &y), COSA_OK);
        cr_expect_leq(fabs(y - (-3.0 * 0.3 + 0.5 * -0.7)), 4 * DBL_EPSILON * 4.0);
    }
    cosa_unit_free(u);
    /* validation as for units with states */
    cosa_subsystem bad = {0, 2, 1, NULL, NULL, NULL, NULL};
    cr_expect_eq(cosa_unit_linear_create(&bad, &u), COSA_EINVAL);
    const double Dnan[2] = {1.0, NAN};
    bad.D = Dnan;
    cr_expect_eq(cosa_unit_linear_create(&bad, &u), COSA_ENONFINITE);
    cr_expect_null(u);
}

/* A plant with a pure-gain controller (no states) from a model file: the
 * time-domain driver with exact linear units (what `cosa simulate` runs by
 * default) reproduces the Phi engine's e_global, and RK4 units (100 micro
 * steps per macro step) the exact units' trajectory. */
static const char plant_gain[] = "model plantgain\n"
                                 "tend 0.5\n"
                                 "param k = 100\n"
                                 "param g = 3\n"
                                 "initial s0 = 1\n"
                                 "subsystem P\n"
                                 "  states s v\n"
                                 "  inputs F\n"
                                 "  outputs s v\n"
                                 "  A = [ 0, 1; -k, -1 ]\n"
                                 "  B = [ 0; 1 ]\n"
                                 "  C = eye\n"
                                 "  D = zeros\n"
                                 "  x0 = [ s0; 0 ]\n"
                                 "end\n"
                                 "subsystem K\n"
                                 "  states\n"
                                 "  inputs s v\n"
                                 "  outputs F\n"
                                 "  D = [ -g, -0.5 ]\n"
                                 "end\n"
                                 "connect P.s -> K.s\n"
                                 "connect P.v -> K.v\n"
                                 "connect K.F -> P.F\n";

Test(unit_linear, pure_gain_subsystem_simulates_like_phi)
{
    cosa_model *m = NULL;
    char err[200] = "";
    cr_assert_eq(cosa_model_file_parse(plant_gain, sizeof plant_gain - 1, "plantgain", &m, err,
                                       sizeof err),
                 COSA_OK, "%s", err);
    double par[8], x0[2];
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    const double dt = 1e-2;
    const size_t N = 50; /* tend / dt */
    cosa_unit *ex[2] = {NULL, NULL}, *rk[2] = {NULL, NULL};
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &ex[i]), COSA_OK, "unit %zu", i);
    cr_expect_eq(cosa_unit_nx(ex[1]), 0);
    cosa_odesys *os = NULL;
    cosa_integrator rk4;
    cr_assert_eq(cosa_integrator_parse("rk4", &rk4), COSA_OK);
    cr_assert_eq(cosa_odesys_from_linear(sys, &os), COSA_OK);
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(os, i), &rk4, &rk[i]), COSA_OK);
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, dt, N + 4, &ref), COSA_OK);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 3);
    cr_assert_not_null(ew);
    const char *names[] = {"zoh", "foh", "soh+mbcorr", "p3+ocorr", "foh+ecorr", "gs:foh"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(names[k], &s), COSA_OK);
        cosa_point_result pr;
        cr_assert_eq(cosa_evaluate(sys, &s, dt, x0, m->tend, COSA_WANT_RHO | COSA_WANT_ERRORS,
                                   &pr, ew),
                     COSA_OK);
        cr_assert_eq(pr.nsteps, N);
        cosa_cosim_opts o = {.nsteps = N};
        cosa_cosim_result *re = NULL, *rr = NULL;
        cr_assert_eq(tu_cosim_run(2, ex, cosa_system_L(sys), &s, ref, &o, &re), COSA_OK,
                     "%s (exact units)", names[k]);
        cr_assert_eq(tu_cosim_run(2, rk, cosa_system_L(sys), &s, ref, &o, &rr), COSA_OK,
                     "%s (rk4 units)", names[k]);
        cr_assert(!re->diverged && !rr->diverged, "%s diverged", names[k]);
        /* exact units vs Phi^n z0: the same numbers by another route; e_global
         * differs by the rounding of the two trajectories (an absolute floor
         * ~ N eps, cosa.h) -- 1e-7 relative as in test_master, plus 1e-12 */
        cr_expect_leq(fabs(re->e_global - pr.err.e_global), 1e-7 * pr.err.e_global + 1e-12,
                      "%s: e_global %.17g (simulate, exact) vs %.17g (Phi engine)", names[k],
                      re->e_global, pr.err.e_global);
        /* RK4 at h = dt/100: global error ~ T w^5 h^4 / 120 ~ 1e-13 relative
         * here (w = 10 rad/s); 1e-9 of the output scale */
        double dmax = 0.0, ymax = 0.0;
        for (size_t n = 0; n <= N; n++)
            for (size_t l = 0; l < 3; l++) {
                dmax = fmax(dmax, fabs(rr->ybar[l + 3 * n] - re->ybar[l + 3 * n]));
                ymax = fmax(ymax, fabs(re->yref[l + 3 * n]));
            }
        cr_expect_leq(dmax, 1e-9 * ymax, "%s: rk4 vs exact units %.3g (scale %.3g)", names[k],
                      dmax, ymax);
        cr_expect_leq(fabs(rr->e_global - re->e_global), 1e-7 * re->e_global + 1e-9,
                      "%s: e_global %.17g (rk4) vs %.17g (exact)", names[k], rr->e_global,
                      re->e_global);
        cosa_cosim_result_free(re);
        cosa_cosim_result_free(rr);
    }
    cosa_eval_workspace_free(ew);
    cosa_reftraj_free(ref);
    tu_unit_free_pairs(2, ex, rk);
    cosa_odesys_free(os);
    cosa_system_free(sys);
    cosa_model_free(m);
}

/* The coupling's affine term (u = L y + c, an SSP LinearTransformation
 * offset): cosa_unitset_couple against the sums written out here, c in the
 * value column only (a constant has no derivatives), a row range equal to
 * the rows of the whole, cosa_unitset_inputs the same value; c = 0 is no
 * offset, a NaN is refused.  L of twomass has one entry 1 per row, so every
 * sum has one nonzero product: agreement to 2 eps relative. */
Test(unitset_offset, couple_against_written_sums)
{
    cosa_system *sys = tu_twomass(2e5, 500.0);
    cr_assert_not_null(sys);
    cosa_unit *un[2] = {NULL, NULL};
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &un[i]), COSA_OK);
    cosa_unitset *set = NULL;
    const double *L = cosa_system_L(sys);
    cr_assert_eq(cosa_unitset_create(2, un, L, NULL, &set), COSA_OK);
    const size_t nu = cosa_unitset_nu(set), ny = cosa_unitset_ny(set);
    cr_assert_eq(nu, 3u);
    cr_assert_eq(ny, 3u);
    cr_expect_null(cosa_unitset_input_offset(set));
    const double c[3] = {50.0, -0.25, 3.0}, zero[3] = {0.0, 0.0, 0.0};
    cr_assert_eq(cosa_unitset_set_input_offset(set, c), COSA_OK);
    cr_assert_not_null(cosa_unitset_input_offset(set));
    unsigned long long seed = 7;
    double Y[9], U[9], Ur[6], u[3];
    for (size_t k = 0; k < 9; k++)
        Y[k] = 1e3 * tu_rand(&seed);
    cosa_unitset_couple(set, 0, nu, 3, Y, ny, U, nu);
    for (size_t j = 0; j < 3; j++)
        for (size_t r = 0; r < nu; r++) {
            double s = j == 0 ? c[r] : 0.0;
            for (size_t l = 0; l < ny; l++)
                s += L[r + l * nu] * Y[l + j * ny];
            cr_expect(fabs(U[r + j * nu] - s) <= 2.0 * DBL_EPSILON * fabs(s), "U(%zu,%zu) %.17g, "
                      "written %.17g", r, j, U[r + j * nu], s);
        }
    cosa_unitset_couple(set, 1, 2, 3, Y, ny, Ur, 2); /* rows 1..2 alone */
    for (size_t j = 0; j < 3; j++)
        for (size_t r = 0; r < 2; r++)
            cr_expect_eq(Ur[r + j * 2], U[1 + r + j * nu]);
    cr_assert_eq(cosa_unitset_inputs(set, 0.0, Y, u, NULL), COSA_OK);
    for (size_t r = 0; r < nu; r++)
        cr_expect_eq(u[r], U[r]);
    cr_assert_eq(cosa_unitset_set_input_offset(set, zero), COSA_OK);
    cr_expect_null(cosa_unitset_input_offset(set));
    cosa_unitset_couple(set, 0, nu, 1, Y, ny, u, nu);
    for (size_t r = 0; r < nu; r++)
        cr_expect(fabs(u[r] - (U[r] - c[r])) <= 2.0 * DBL_EPSILON * fabs(U[r]) + 1e-13 * fabs(c[r]));
    const double bad[3] = {1.0, NAN, 0.0};
    cr_expect_eq(cosa_unitset_set_input_offset(set, bad), COSA_ENONFINITE);
    cr_expect_null(cosa_unitset_input_offset(set));
    cr_expect_eq(cosa_unitset_set_input_offset(NULL, c), COSA_EINVAL);
    cosa_unitset_free(set);
    for (size_t i = 0; i < 2; i++)
        cosa_unit_free(un[i]);
    cosa_system_free(sys);
}
