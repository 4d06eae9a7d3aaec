/* test_twomass_nl.c -- the nonlinear two-mass oscillator (models/twomass_nl.c)
 * through the time-domain engine: n_d = 1 is the linear twomass, analytic
 * against finite-difference Jacobians, MBCorr with difference Jacobians,
 * the CVODE reference against an independent RK4 integration of the
 * monolithic equations, and the trends of section 5 of the MBCorr paper. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define H 1e-3
#define NSTEPS 300 /* T_end = 0.3 s */

/* A twomass-nl case: the ODE subsystems, CVODE units, x0, the reference. */
struct nlcase {
    double par[64];
    cosa_odesys *os;
    cosa_unit *u[2];
    double x0[4];
    cosa_reftraj *ref;
};

static const cosa_model *nlm(void)
{
    const cosa_model *m = cosa_model_find("twomass-nl");
    cr_assert_not_null(m);
    return m;
}

static void nl_open(struct nlcase *c, double nd, const char *integrator, int with_ref)
{
    const cosa_model *m = nlm();
    memset(c, 0, sizeof *c);
    cosa_model_defaults(m, c->par);
    cr_assert_eq(cosa_model_set(m, c->par, "nd", nd), COSA_OK);
    cr_assert_eq(m->create_ode(m, c->par, &c->os), COSA_OK);
    cr_assert_eq(m->initial_state(m, c->par, c->x0), COSA_OK);
    cosa_integrator integ;
    cr_assert_eq(cosa_integrator_parse(integrator, &integ), COSA_OK);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(c->os, i), &integ, &c->u[i]), COSA_OK);
    if (with_ref)
        cr_assert_eq(tu_reftraj_cvode(2, c->u, cosa_odesys_L(c->os), c->x0, H,
                                          NSTEPS + 3, 1e-12, &c->ref),
                     COSA_OK);
}

static void nl_close(struct nlcase *c)
{
    cosa_reftraj_free(c->ref);
    cosa_unit_free(c->u[0]);
    cosa_unit_free(c->u[1]);
    cosa_odesys_free(c->os);
}

static cosa_cosim_result *run(struct nlcase *c, const char *scheme, int force_fd)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cosa_cosim_opts o = {.nsteps = NSTEPS, .master = {.force_fd = force_fd}};
    cosa_cosim_result *r = NULL;
    cosa_status st = tu_cosim_run(2, c->u, cosa_odesys_L(c->os), &s, c->ref, &o, &r);
    cr_assert_eq(st, COSA_OK, "%s: %s", scheme, cosa_strerror(st));
    return r;
}

/* ---- n_d = 1 is the linear model --------------------------------------------- */

/* f, g and the Jacobians of twomass-nl (n_d = 1) equal those of twomass
 * (through the linear adapter) to rounding, at points in every direction. */
Test(twomass_nl, nd1_model_equals_twomass)
{
    struct nlcase c;
    nl_open(&c, 1.0, "rk4", 0);
    cosa_system *sys = tu_model_system("twomass", NULL);
    cosa_odesys *los = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &los), COSA_OK);
    const double pts[3][6] = {{0.01, 3.0, -0.02, -7.0, 0.0, 0.0},
                              {-0.1, -90.0, 0.05, 100.0, 1.0, 2.0},
                              {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < 2; i++) {
            const cosa_ode *a = cosa_odesys_sub(c.os, i), *b = cosa_odesys_sub(los, i);
            const double *x = pts[k] + 2 * i;
            double u[2] = {i == 0 ? 1e5 * pts[k][4] : pts[k][0], i == 0 ? 0.0 : pts[k][1] + 1.0};
            double fa[2], fb[2], ga[2], gb[2], Ja[16], Jb[16];
            a->f(0.0, x, u, fa, a->user_data);
            b->f(0.0, x, u, fb, b->user_data);
            a->g(0.0, x, u, ga, a->user_data);
            b->g(0.0, x, u, gb, b->user_data);
            for (size_t r = 0; r < a->nx; r++)
                cr_expect_leq(fabs(fa[r] - fb[r]), 1e-14 * (fabs(fb[r]) + 1e5), "f point %d", k);
            for (size_t r = 0; r < a->ny; r++)
                cr_expect_leq(fabs(ga[r] - gb[r]), 1e-14 * (fabs(gb[r]) + 1e5), "g point %d", k);
            a->jac(0.0, x, u, Ja, Ja + 4, Ja + 8, Ja + 12, a->user_data);
            b->jac(0.0, x, u, Jb, Jb + 4, Jb + 8, Jb + 12, b->user_data);
            size_t nA = a->nx * a->nx, nB = a->nx * a->nu, nC = a->ny * a->nx, nD = a->ny * a->nu;
            for (size_t r = 0; r < nA; r++)
                cr_expect_leq(fabs(Ja[r] - Jb[r]), 1e-14 * fabs(Jb[r]));
            for (size_t r = 0; r < nB; r++)
                cr_expect_leq(fabs(Ja[4 + r] - Jb[4 + r]), 1e-14 * fabs(Jb[4 + r]));
            for (size_t r = 0; r < nC; r++)
                cr_expect_leq(fabs(Ja[8 + r] - Jb[8 + r]), 1e-14 * fabs(Jb[8 + r]));
            for (size_t r = 0; r < nD; r++)
                cr_expect_leq(fabs(Ja[12 + r] - Jb[12 + r]), 1e-14 * fabs(Jb[12 + r]));
        }
    cosa_odesys_free(los);
    cosa_system_free(sys);
    nl_close(&c);
}

/* Co-simulations of twomass-nl (n_d = 1, CVODE reference) and of twomass
 * (exact reference), both with CVODE units at rtol 1e-10, and the Phi
 * engine's e_g: the e_g agree to 1e-6 relative (the CVODE reference and
 * units are accurate to ~1e-9; measured ~1e-9 and ~1e-6). */
Test(twomass_nl, nd1_cosim_equals_twomass)
{
    struct nlcase c;
    nl_open(&c, 1.0, "cvode", 1);
    const cosa_model *lm = cosa_model_find("twomass");
    double par[32], x0[4];
    cosa_model_defaults(lm, par);
    cosa_system *sys = NULL;
    cr_assert_eq(lm->create(lm, par, &sys), COSA_OK);
    lm->initial_state(lm, par, x0);
    cosa_odesys *los = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &los), COSA_OK);
    cosa_integrator integ;
    cosa_integrator_parse("cvode", &integ);
    cosa_unit *lu[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(los, i), &integ, &lu[i]), COSA_OK);
    cosa_reftraj *lref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, H, NSTEPS + 3, &lref), COSA_OK);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 2);
    const char *schemes[] = {"zoh", "zoh+mbcorr", "foh+mbcorr", "soh+ecorr", "gs:foh"};
    for (int k = 0; k < 5; k++) {
        cosa_scheme s;
        cosa_scheme_parse(schemes[k], &s);
        cosa_cosim_result *a = run(&c, schemes[k], 0), *b = NULL;
        cosa_cosim_opts o = {.nsteps = NSTEPS};
        cr_assert_eq(tu_cosim_run(2, lu, cosa_system_L(sys), &s, lref, &o, &b), COSA_OK);
        cosa_point_result pr;
        cr_assert_eq(cosa_evaluate(sys, &s, H, x0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &pr, ew),
                     COSA_OK);
        double r1 = fabs(a->e_global - b->e_global) / b->e_global;
        double r2 = fabs(a->e_global - pr.err.e_global) / pr.err.e_global;
        cr_log_info("%s: e_g nl %.12g, linear %.12g, Phi %.12g (rel %.2g, %.2g)\n", schemes[k],
                    a->e_global, b->e_global, pr.err.e_global, r1, r2);
        cr_expect_leq(r1, 1e-6, "%s: nl vs linear %.3g", schemes[k], r1);
        cr_expect_leq(r2, 1e-5, "%s: nl vs Phi %.3g", schemes[k], r2);
        cosa_cosim_result_free(a);
        cosa_cosim_result_free(b);
    }
    cosa_eval_workspace_free(ew);
    cosa_reftraj_free(lref);
    cosa_unit_free(lu[0]);
    cosa_unit_free(lu[1]);
    cosa_odesys_free(los);
    cosa_system_free(sys);
    nl_close(&c);
}

/* ---- Jacobians ------------------------------------------------------------------ */

/* Analytic against central differences in the three regimes of eq 43
 * (unclamped, clamped at d_kmax, clamped at d_kmin) and at w = v2 - v1 = 0.
 * The points keep the difference steps (~6e-6 |z|) inside one regime;
 * agreement 1e-7 relative to the largest entry of each matrix (measured
 * ~1e-10: central differences err by ~eps^(2/3)). */
Test(twomass_nl, jacobian_fd_vs_analytic)
{
    const struct {
        double nd, x[2], u[2];
        const char *what;
    } pts[] = {
        {1.5, {0.01, -100.0}, {0.02, 100.0}, "unclamped"},
        {2.0, {0.01, 60.0}, {-0.03, 10.0}, "clamped at dkmax"},
        {1.5, {0.05, 1e-3 + 1e-5}, {0.04, 1e-3}, "clamped at dkmin"},
        {1.75, {0.05, 2.0}, {0.04, 2.0}, "w = 0 (dkmin)"},
        {1.0, {0.05, 2.0}, {0.04, 3.0}, "linear"},
    };
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        struct nlcase c;
        nl_open(&c, pts[k].nd, "rk4", 0);
        cosa_unit *u = c.u[1]; /* subsystem II holds the nonlinearity */
        double Aa[4], Ba[4], Ca[2], Da[2], Af[4], Bf[4], Cf[2], Df[2];
        cr_assert_eq(cosa_unit_jacobian(u, 0.0, pts[k].x, pts[k].u, 0, Aa, Ba, Ca, Da), COSA_OK);
        cr_assert_eq(cosa_unit_jacobian(u, 0.0, pts[k].x, pts[k].u, 1, Af, Bf, Cf, Df), COSA_OK);
        const double *an[4] = {Aa, Ba, Ca, Da}, *fd[4] = {Af, Bf, Cf, Df};
        const size_t sz[4] = {4, 4, 2, 2};
        double worst = 0.0;
        for (int m = 0; m < 4; m++) {
            double d = 0.0, s = 0.0;
            for (size_t i = 0; i < sz[m]; i++) {
                d = fmax(d, fabs(an[m][i] - fd[m][i]));
                s = fmax(s, fabs(an[m][i]));
            }
            worst = fmax(worst, d / s);
            cr_expect_leq(d, 1e-7 * s, "%s: matrix %c differs by %.3g (scale %.3g)",
                          pts[k].what, "ABCD"[m], d, s);
        }
        cr_log_info("%s (n_d = %g): dF/dw = %g, FD vs analytic %.2g\n", pts[k].what, pts[k].nd,
                    Ca[1], worst);
        nl_close(&c);
    }
}

/* MBCorr with finite-difference Jacobians reproduces MBCorr with analytic
 * ones: e_g to 1e-6 relative and the corrected outputs to 1e-6 of their
 * largest magnitude (per output), for n_d = 1.5 (unclamped most of the
 * time) and 2 (clamped at first). */
Test(twomass_nl, mbcorr_fd_jacobians)
{
    const double nds[2] = {1.5, 2.0};
    const char *schemes[] = {"zoh+mbcorr", "foh+mbcorr", "soh+ocorr"};
    for (int j = 0; j < 2; j++) {
        struct nlcase c;
        nl_open(&c, nds[j], "cvode", 1);
        for (int k = 0; k < 3; k++) {
            cosa_cosim_result *a = run(&c, schemes[k], 0), *b = run(&c, schemes[k], 1);
            cr_assert_eq(a->diverged, b->diverged);
            double worst = 0.0;
            for (size_t l = 0; l < 3 && !a->diverged; l++) {
                double d = 0.0, s = 0.0;
                for (size_t n = 0; n <= NSTEPS; n++) {
                    d = fmax(d, fabs(a->ybar[l + 3 * n] - b->ybar[l + 3 * n]));
                    s = fmax(s, fabs(a->ybar[l + 3 * n]));
                }
                worst = fmax(worst, d / s);
            }
            double re = a->diverged ? 0.0 : fabs(a->e_global - b->e_global) / a->e_global;
            cr_log_info("n_d = %g, %s: e_g %.10g (analytic) vs %.10g (FD): rel %.2g, outputs "
                        "%.2g\n", nds[j], schemes[k], a->e_global, b->e_global, re, worst);
            cr_expect_leq(re, 1e-6, "n_d %g %s: e_g rel %.3g", nds[j], schemes[k], re);
            cr_expect_leq(worst, 1e-6, "n_d %g %s: outputs rel %.3g", nds[j], schemes[k], worst);
            cosa_cosim_result_free(a);
            cosa_cosim_result_free(b);
        }
        nl_close(&c);
    }
}

/* ---- the reference against an independent integration ------------------------- */

/* The monolithic equations written out (no units, no loop solver):
 *   F = c_k (s2 - s1) + d_eff(v2 - v1) (v2 - v1),
 *   m1 v1' = -c1 s1 - d1 v1 + F,  m2 v2' = -c2 s2 - d2 v2 - F,
 * integrated by classical RK4 with 2e-6 s steps. */
static void mono_rhs(const double *p, const double *x, double *xd)
{
    /* m1 m2 c1 c2 d1 d2 ck dk nd dkmin dkmax */
    double w = x[3] - x[1];
    double de = fmax(fmin(p[7] * pow(fabs(w), p[8] - 1.0), p[10]), p[9]);
    double F = p[6] * (x[2] - x[0]) + de * w;
    xd[0] = x[1];
    xd[1] = (-p[2] * x[0] - p[4] * x[1] + F) / p[0];
    xd[2] = x[3];
    xd[3] = (-p[3] * x[2] - p[5] * x[3] - F) / p[1];
}

Test(twomass_nl, reference_vs_independent_rk4)
{
    const double nds[2] = {1.5, 2.0};
    for (int j = 0; j < 2; j++) {
        struct nlcase c;
        nl_open(&c, nds[j], "cvode", 1);
        const cosa_model *m = nlm();
        double p[11];
        const char *names[11] = {"m1", "m2", "c1", "c2", "d1", "d2", "ck", "dk", "nd", "dkmin",
                                 "dkmax"};
        for (int i = 0; i < 11; i++)
            p[i] = c.par[cosa_model_param_index(m, names[i])];
        double x[4], k1[4], k2[4], k3[4], k4[4], xt[4];
        memcpy(x, c.x0, sizeof x);
        const int sub = 500; /* RK4 steps per macro step: 2e-6 s */
        const double h = H / sub;
        double dmax[4] = {0}, smax[4] = {0};
        for (int n = 1; n <= 100; n++) {
            for (int s = 0; s < sub; s++) {
                mono_rhs(p, x, k1);
                for (int i = 0; i < 4; i++)
                    xt[i] = x[i] + 0.5 * h * k1[i];
                mono_rhs(p, xt, k2);
                for (int i = 0; i < 4; i++)
                    xt[i] = x[i] + 0.5 * h * k2[i];
                mono_rhs(p, xt, k3);
                for (int i = 0; i < 4; i++)
                    xt[i] = x[i] + h * k3[i];
                mono_rhs(p, xt, k4);
                for (int i = 0; i < 4; i++)
                    x[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
            }
            for (int i = 0; i < 4; i++) {
                dmax[i] = fmax(dmax[i], fabs(x[i] - c.ref->x[i + 4 * n]));
                smax[i] = fmax(smax[i], fabs(x[i]));
            }
        }
        double worst = 0.0;
        for (int i = 0; i < 4; i++)
            worst = fmax(worst, dmax[i] / smax[i]);
        cr_log_info("n_d = %g: CVODE reference vs RK4 (0.1 s): %.2g relative\n", nds[j], worst);
        cr_expect_leq(worst, 1e-7, "n_d = %g: reference vs RK4 %.3g", nds[j], worst);
        nl_close(&c);
    }
}

/* ---- section 5 of the MBCorr paper ---------------------------------------------- */

/* With CVODE units (rtol 1e-10) at dT = 1e-3, T_end = 0.3 s:
 *  - ZOH: the improvement e_g(plain)/e_g(MBCorr) shrinks as n_d grows, and
 *    for some n_d plain ZOH diverges while ZOH+MBCorr does not;
 *  - e_g grows with n_d for every MBCorr scheme (diverged = +inf);
 *  - the deviation noted in Table 4's caption: plain ZOH is more accurate at
 *    n_d = 1.25 than at n_d = 1 (the extra damping helps it). */
Test(twomass_nl, paper_section5_trends, .timeout = 120)
{
    const double nds[5] = {1.0, 1.25, 1.5, 1.75, 2.0};
    const char *schemes[4] = {"zoh", "zoh+mbcorr", "foh+mbcorr", "soh+mbcorr"};
    double eg[4][5];
    int div[4][5];
    for (int j = 0; j < 5; j++) {
        struct nlcase c;
        nl_open(&c, nds[j], "cvode", 1);
        for (int k = 0; k < 4; k++) {
            cosa_cosim_result *r = run(&c, schemes[k], 0);
            eg[k][j] = r->e_global;
            div[k][j] = r->diverged;
            cr_log_info("n_d = %g, %s: %s e_g %.4g\n", nds[j], schemes[k],
                        r->diverged ? "diverged" : "", r->e_global);
            cosa_cosim_result_free(r);
        }
        nl_close(&c);
    }
    double prev = INFINITY;
    int stabilised = 0;
    for (int j = 0; j < 5; j++) {
        if (div[0][j] && !div[1][j])
            stabilised = 1;
        if (div[0][j] || div[1][j])
            continue;
        double ratio = eg[0][j] / eg[1][j];
        cr_expect_lt(ratio, prev, "ZOH improvement at n_d = %g: %.3g, not below %.3g", nds[j],
                     ratio, prev);
        prev = ratio;
    }
    cr_expect(stabilised, "no n_d where plain ZOH diverges and ZOH+MBCorr does not");
    for (int k = 1; k < 4; k++)
        for (int j = 1; j < 5; j++) {
            double a = div[k][j - 1] ? INFINITY : eg[k][j - 1];
            double b = div[k][j] ? INFINITY : eg[k][j];
            cr_expect_geq(b, a, "%s: e_g(%g) = %.3g < e_g(%g) = %.3g", schemes[k], nds[j], b,
                          nds[j - 1], a);
        }
    cr_expect_lt(eg[0][1], eg[0][0], "plain ZOH: e_g(1.25) = %.3g, e_g(1) = %.3g", eg[0][1],
                 eg[0][0]);
}

/* Other integrators on the nonlinear model: RK4 with a fine micro step
 * approaches CVODE; symplectic Euler uses the model's kick flags. */
Test(twomass_nl, fixed_step_integrators)
{
    struct nlcase c;
    nl_open(&c, 1.5, "cvode", 1);
    cosa_cosim_result *ref = run(&c, "foh+mbcorr", 0);
    cosa_integrator integ;
    const char *names[2] = {"rk4", "symplectic-euler"};
    const double micro[2] = {1e-5, 1e-7}, tol[2] = {1e-5, 2e-2};
    for (int k = 0; k < 2; k++) {
        cosa_integrator_parse(names[k], &integ);
        integ.hmicro = micro[k];
        for (int i = 0; i < 2; i++) {
            cosa_unit_free(c.u[i]);
            cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(c.os, i), &integ, &c.u[i]),
                         COSA_OK);
        }
        cosa_cosim_result *r = run(&c, "foh+mbcorr", 0);
        double rel = fabs(r->e_global - ref->e_global) / ref->e_global;
        cr_log_info("%s (micro %g): e_g %.10g vs CVODE %.10g (rel %.2g)\n", names[k], micro[k],
                    r->e_global, ref->e_global, rel);
        cr_expect_leq(rel, tol[k], "%s: %.3g", names[k], rel);
        cosa_cosim_result_free(r);
    }
    cosa_cosim_result_free(ref);
    nl_close(&c);
}

/* Linearising at the end of the step is an option; for n_d = 1 (constant
 * Jacobians) it is the same scheme. */
Test(twomass_nl, linearisation_point)
{
    struct nlcase c;
    nl_open(&c, 1.0, "cvode", 1);
    cosa_scheme s;
    cosa_scheme_parse("soh+mbcorr", &s);
    cosa_cosim_opts o = {.nsteps = NSTEPS, .master = {.lin_at_end = 1}};
    cosa_cosim_result *a = run(&c, "soh+mbcorr", 0), *b = NULL;
    cr_assert_eq(tu_cosim_run(2, c.u, cosa_odesys_L(c.os), &s, c.ref, &o, &b), COSA_OK);
    cr_expect_leq(fabs(a->e_global - b->e_global), 1e-12 * a->e_global);
    cosa_cosim_result_free(a);
    cosa_cosim_result_free(b);
    nl_close(&c);
    nl_open(&c, 1.5, "cvode", 1);
    a = run(&c, "zoh+mbcorr", 0);
    cosa_scheme_parse("zoh+mbcorr", &s);
    cr_assert_eq(tu_cosim_run(2, c.u, cosa_odesys_L(c.os), &s, c.ref, &o, &b), COSA_OK);
    cr_log_info("n_d = 1.5, ZOH+MBCorr: e_g %.6g (start), %.6g (end)\n", a->e_global,
                b->e_global);
    cr_expect(isfinite(b->e_global) && b->e_global != a->e_global);
    cosa_cosim_result_free(a);
    cosa_cosim_result_free(b);
    nl_close(&c);
}

/* Parameter validation of the model. */
Test(twomass_nl, parameters)
{
    const cosa_model *m = nlm();
    double par[64];
    cosa_model_defaults(m, par);
    cr_expect_eq(par[cosa_model_param_index(m, "nd")], 1.0);
    cr_expect_eq(par[cosa_model_param_index(m, "dkmin")], 10.0);
    cr_expect_eq(par[cosa_model_param_index(m, "dkmax")], 1e4);
    cr_expect_eq(cosa_model_set(m, par, "nosuch", 1.0), COSA_EPARAM);
    cr_expect_eq(cosa_model_set(m, par, "nd", NAN), COSA_ENONFINITE);
    cosa_odesys *os = NULL;
    cosa_model_set(m, par, "nd", 0.0);
    cr_expect_eq(m->create_ode(m, par, &os), COSA_EPARAM);
    cosa_model_defaults(m, par);
    cosa_model_set(m, par, "dkmin", 2e4);
    cr_expect_eq(m->create_ode(m, par, &os), COSA_EPARAM);
    cr_expect_null(os);
    cr_expect_null(cosa_model_find("twomass")->create_ode);
    /* then twomass-fd-nl, pendula, crane, twomass-ff, chain-ff */
    cr_expect_eq(cosa_model_at(cosa_model_count() - 6), m);
    cr_expect_null(cosa_model_at(cosa_model_count()));
}
