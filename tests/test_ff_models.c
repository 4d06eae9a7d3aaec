/* test_ff_models.c -- the force/force models of the variable-order paper
 * (models/twomass_ff.c, section 6.1; models/chain_ff.c, section 6.2)
 * against independent routes: the coupling Jacobian dphi/dy and the unit
 * Jacobians against central differences with truncation and rounding bounds,
 * the stacked right-hand side x' = f(x, S phi(g(x))) against the
 * monolithic equations written by hand (twomass-ff) and against the linear
 * `chain` model's monolithic A* (chain-ff), the impulse forcing against its
 * closed form, the random choices against an independent SplitMix64 (itself
 * checked against its published outputs), and the parameter checks.
 *
 * Rounding bounds: a value computed as a sum of k rounded products has an
 * error <= gamma_k sum |terms| (gamma_k = k eps / (1 - k eps), Higham, ch. 3);
 * two routes to the same value differ by at most twice that. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

static const cosa_model *model(const char *name)
{
    const cosa_model *m = cosa_model_find(name);
    cr_assert_not_null(m, "model %s registered", name);
    return m;
}

static void setp(const cosa_model *m, double *par, const char *name, double v)
{
    cr_assert_eq(cosa_model_set(m, par, name, v), COSA_OK, "%s", name);
}

static double getp(const cosa_model *m, const double *par, const char *name)
{
    int k = cosa_model_param_index(m, name);
    cr_assert_geq(k, 0, "%s", name);
    return par[k];
}

static cosa_odesys *build(const cosa_model *m, const double *par)
{
    cosa_odesys *os = NULL;
    cosa_status st = m->create_ode(m, par, &os);
    cr_assert_eq(st, COSA_OK, "%s: %s", m->name, cosa_strerror(st));
    return os;
}

/* x' of the coupled system at (t, x): y_i = g_i(t, x_i) (no unit of these
 * models has feedthrough, so g is called with u = 0), then u = S phi(t, y)
 * (via_L = 0) or u = L y (via_L = 1), then x_i' = f_i(t, x_i, u_i).
 * Returns the first nonzero callback code. */
static int stacked_rhs(const cosa_odesys *os, int via_L, double t, const double *x, double *xd)
{
    const size_t nsub = cosa_odesys_nsub(os), nu = cosa_odesys_nu(os), ny = cosa_odesys_ny(os);
    const cosa_coupling *cp = cosa_odesys_coupling(os);
    const size_t nc = cp ? cp->nc : 0;
    double *y = calloc(ny + 1, sizeof *y), *u = calloc(nu + 1, sizeof *u);
    double *zero = calloc(nu + 1, sizeof *zero), *c = calloc(nc + 1, sizeof *c);
    cr_assert(y && u && zero && c);
    int rc = 0;
    size_t ox = 0, oy = 0, ou = 0;
    for (size_t i = 0; i < nsub && !rc; i++) {
        const cosa_ode *o = cosa_odesys_sub(os, i);
        if (o->ny)
            rc = o->g(t, x + ox, zero, y + oy, o->user_data);
        ox += o->nx;
        oy += o->ny;
    }
    if (!rc && nu) {
        if (via_L) {
            const double *L = cosa_odesys_L(os);
            for (size_t i = 0; i < nu; i++)
                for (size_t j = 0; j < ny; j++)
                    u[i] += L[i + j * nu] * y[j];
        } else {
            cr_assert_not_null(cp);
            cr_assert_eq(cp->phi(cp->ctx, t, y, c, NULL), COSA_OK);
            for (size_t i = 0; i < nu; i++)
                for (size_t s = 0; s < nc; s++)
                    u[i] += cp->S[i + s * nu] * c[s];
        }
    }
    ox = 0;
    for (size_t i = 0; i < nsub && !rc; i++) {
        const cosa_ode *o = cosa_odesys_sub(os, i);
        rc = o->f(t, x + ox, u + ou, xd + ox, o->user_data);
        ox += o->nx;
        ou += o->nu;
    }
    free(y);
    free(u);
    free(zero);
    free(c);
    return rc;
}

/* Central differences of a unit's f and g against its analytic Jacobians
 * at (t, x, u), steps hx (nx) and hu (nu).  Bound per column j with step h:
 *   truncation  h^2/6 M3_j  (m3x, m3u: M3_j >= |third derivative| of any f,
 *               g entry in that variable over [z_j - h, z_j + h]; NULL: 0),
 *   rounding    16 eps Fs / h  (each evaluation's error <= 8 eps Fs, Fs >=
 *               the sum of |terms| of any f, g entry there: <= 8 roundings;
 *               a term e^(B x) counts (3 + |B x|) times: the rounding of
 *               B x is amplified by |B x|);
 * returns the largest error / bound. */
static double check_unit_jacobian(const cosa_ode *o, double t, const double *x, const double *u,
                                  const double *hx, const double *hu, const double *m3x,
                                  const double *m3u, double Fs, const char *what)
{
    const size_t nx = o->nx, nu = o->nu, ny = o->ny;
    double *A = calloc(nx * nx + 1, sizeof *A), *B = calloc(nx * nu + 1, sizeof *B);
    double *C = calloc(ny * nx + 1, sizeof *C), *D = calloc(ny * nu + 1, sizeof *D);
    double *xp = malloc((nx + 1) * sizeof *xp), *up = malloc((nu + 1) * sizeof *up);
    double *fp = malloc((nx + 1) * sizeof *fp), *fm = malloc((nx + 1) * sizeof *fm);
    double *gp = malloc((ny + 1) * sizeof *gp), *gm = malloc((ny + 1) * sizeof *gm);
    cr_assert(A && B && C && D && xp && up && fp && fm && gp && gm);
    cr_assert_eq(o->jac(t, x, u, A, B, C, D, o->user_data), 0, "%s: jacobian", what);
    double worst = 0.0;
    for (size_t j = 0; j < nx + nu; j++) {
        const int isx = j < nx;
        const size_t col = isx ? j : j - nx;
        const double z = isx ? x[col] : u[col], h = isx ? hx[col] : hu[col];
        memcpy(xp, x, nx * sizeof *xp);
        memcpy(up, u, nu * sizeof *up);
        double *zp = isx ? &xp[col] : &up[col];
        const double zplus = z + h, zminus = z - h, step = zplus - zminus;
        *zp = zplus;
        cr_assert_eq(o->f(t, xp, up, fp, o->user_data), 0);
        if (ny)
            cr_assert_eq(o->g(t, xp, up, gp, o->user_data), 0);
        *zp = zminus;
        cr_assert_eq(o->f(t, xp, up, fm, o->user_data), 0);
        if (ny)
            cr_assert_eq(o->g(t, xp, up, gm, o->user_data), 0);
        const double hh = 0.5 * step;
        const double *m3 = isx ? m3x : m3u, M3 = m3 ? m3[col] : 0.0;
        const double tol = hh * hh / 6.0 * M3 + 16.0 * EPS * Fs / hh;
        for (size_t i = 0; i < nx + ny; i++) {
            const int isf = i < nx;
            const size_t row = isf ? i : i - nx;
            const double fd = isf ? (fp[row] - fm[row]) / step : (gp[row] - gm[row]) / step;
            const double an = isf ? (isx ? A[row + col * nx] : B[row + col * nx])
                                  : (isx ? C[row + col * ny] : D[row + col * ny]);
            const double err = fabs(fd - an);
            cr_expect_leq(err, tol, "%s: d%s%zu/d%s%zu = %.17g, differences %.17g (tol %.3g)",
                          what, isf ? "f" : "g", row, isx ? "x" : "u", col, an, fd, tol);
            worst = fmax(worst, err / tol);
        }
    }
    free(A), free(B), free(C), free(D), free(xp), free(up), free(fp), free(fm), free(gp),
        free(gm);
    return worst;
}

/* ======================================================================== */
/* twomass-ff (section 6.1, eq 35)                                          */
/* ======================================================================== */

/* Eq 35 for all bodies at once (Newton's law, no split): xd = [x1', v1',
 * x2', v2'] and sc = the sum of |forces| / m of each row (its rounding scale). */
static void twomass_ff_direct(const cosa_model *m, const double *par, const double *x,
                              double *xd, double *sc)
{
    const double m1 = getp(m, par, "m1"), m2 = getp(m, par, "m2"), c1 = getp(m, par, "c1"),
                 c2 = getp(m, par, "c2"), cc = getp(m, par, "cc"), d1 = getp(m, par, "d1"),
                 d2 = getp(m, par, "d2"), dc = getp(m, par, "dc"), Cc = getp(m, par, "Cc"),
                 Dc = getp(m, par, "Dc"), A = getp(m, par, "Acon"), B = getp(m, par, "Bcon");
    const double w = x[2] - x[0], z = x[3] - x[1];
    const double t[4] = {cc * w, dc * z, Cc * w * w * w, Dc * z * z * z};
    const double fc = t[0] + t[1] + t[2] + t[3], FC = A == 0.0 ? 0.0 : A * exp(B * x[0]);
    double tabs = 0.0;
    for (int k = 0; k < 4; k++)
        tabs += fabs(t[k]);
    xd[0] = x[1];
    xd[1] = (-c1 * x[0] - d1 * x[1] + FC + fc) / m1;
    xd[2] = x[3];
    xd[3] = (-c2 * x[2] - d2 * x[3] - fc) / m2;
    sc[0] = sc[2] = 0.0; /* copies: exact */
    sc[1] = (fabs(c1 * x[0]) + fabs(d1 * x[1]) + fabs(FC) + tabs) / m1;
    sc[3] = (fabs(c2 * x[2]) + fabs(d2 * x[3]) + tabs) / m2;
}

/* Structure: two units [x, v] -> [x, v] with one input each, nc = 1,
 * S = [+1; -1], L = S dphi/dy(0) = [[-cc, -dc, cc, dc], [cc, dc, -cc, -dc]],
 * kick flags, names, x0 from the parameters, the paper's values. */
Test(twomass_ff, structure)
{
    const cosa_model *m = model("twomass-ff");
    cr_expect_null(m->create, "no linear form (see models/twomass_ff.c)");
    cr_expect_eq(cosa_model_is_linear(m), 0);
    double par[64];
    cosa_model_defaults(m, par);
    static const struct { const char *n; double v; } paper[] = {
        {"m1", 50}, {"m2", 1}, {"c1", 1e5}, {"c2", 1e3}, {"cc", 1e5}, {"d1", 0}, {"d2", 0},
        {"dc", 0}, {"Cc", 1e5}, {"Dc", 1e-2}, {"Acon", -1e-2}, {"Bcon", 1e7}, {"x1", -2},
        {"v1", 100}, {"x2", 0}, {"v2", -200}};
    cr_expect_eq(m->nparam, sizeof paper / sizeof *paper);
    for (size_t k = 0; k < sizeof paper / sizeof *paper; k++)
        cr_expect_eq(getp(m, par, paper[k].n), paper[k].v, "%s", paper[k].n);
    cr_expect_eq(m->tend, 1.0);
    setp(m, par, "dc", 7.0);
    cosa_odesys *os = build(m, par);
    cr_expect_eq(cosa_odesys_nsub(os), 2);
    cr_expect_eq(cosa_odesys_nx(os), 4);
    cr_expect_eq(cosa_odesys_nu(os), 2);
    cr_expect_eq(cosa_odesys_ny(os), 4);
    const cosa_coupling *cp = cosa_odesys_coupling(os);
    cr_assert_not_null(cp);
    cr_expect_eq(cp->nc, 1);
    cr_expect_eq(cp->S[0], 1.0);
    cr_expect_eq(cp->S[1], -1.0);
    const double L[8] = {-1e5, 1e5, -7, 7, 1e5, -1e5, 7, -7};
    cr_expect(memcmp(cosa_odesys_L(os), L, sizeof L) == 0, "L = S dphi/dy(0)");
    for (size_t i = 0; i < 2; i++) {
        const cosa_ode *o = cosa_odesys_sub(os, i);
        cr_expect_eq(o->nx, 2);
        cr_expect_eq(o->nu, 1);
        cr_expect_eq(o->ny, 2);
        cr_assert_not_null(o->kick);
        cr_expect(o->kick[0] == 0 && o->kick[1] == 1);
        cr_expect_not_null(o->jac);
    }
    double x0[4];
    cr_expect_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect(x0[0] == -2 && x0[1] == 100 && x0[2] == 0 && x0[3] == -200);
    cr_expect_str_eq(m->state_name(m, par, 3), "v2");
    cr_expect_str_eq(m->input_name(m, par, 1), "II.fII");
    cr_expect_str_eq(m->output_name(m, par, 2), "x2");
    cr_expect_str_eq(m->sub_name(m, par, 1), "II");
    cr_expect_null(m->input_name(m, par, 2));
    cosa_odesys_free(os);
}

/* dphi/dy against central differences.  phi is a cubic polynomial in w, z,
 * so the central difference's truncation error is known exactly:
 * (a (w + s h)^3 - a (w - s h)^3) / 2h = s (3 a w^2 + a h^2), s = dw/dy_j
 * = +-1 (a = Cc for the x columns, Dc for the v columns); with positive
 * coefficients s is the sign of dphi/dy_j.  It is subtracted; what remains
 * is rounding: phi at y +- h is a sum of 4 terms with <= 4 roundings each,
 * error <= 8 eps T (T = sum of |terms|), hence 8 eps T / h for the quotient
 * (plus 4 eps of the subtracted s a h^2). */
Test(twomass_ff, dphi_dy_against_differences)
{
    const cosa_model *m = model("twomass-ff");
    double par[64];
    cosa_model_defaults(m, par);
    setp(m, par, "dc", 30.0);
    setp(m, par, "Dc", 2.0);
    cosa_odesys *os = build(m, par);
    const cosa_coupling *cp = cosa_odesys_coupling(os);
    const double cc = 1e5, dc = 30.0, Cc = 1e5, Dc = 2.0;
    unsigned long long seed = 11;
    double worst = 0.0;
    for (int k = 0; k < 20; k++) {
        double y[4] = {2 * tu_rand(&seed), 200 * tu_rand(&seed), 2 * tu_rand(&seed),
                       200 * tu_rand(&seed)};
        if (k == 0)
            memset(y, 0, sizeof y);
        double c, J[4];
        cr_assert_eq(cp->phi(cp->ctx, 0.0, y, &c, J), COSA_OK);
        for (size_t j = 0; j < 4; j++) {
            const double h = 1e-5 * fmax(fabs(y[j]), 1.0);
            double yp[4], ym[4], cpv, cmv;
            memcpy(yp, y, sizeof y);
            memcpy(ym, y, sizeof y);
            yp[j] += h;
            ym[j] -= h;
            const double step = yp[j] - ym[j], hh = 0.5 * step;
            cr_assert_eq(cp->phi(cp->ctx, 0.0, yp, &cpv, NULL), COSA_OK);
            cr_assert_eq(cp->phi(cp->ctx, 0.0, ym, &cmv, NULL), COSA_OK);
            const double w = fabs(y[2] - y[0]) + 2 * hh, z = fabs(y[3] - y[1]) + 2 * hh;
            const double T = cc * w + dc * z + Cc * w * w * w + Dc * z * z * z;
            const double trunc = copysign(hh * hh * (j % 2 ? Dc : Cc), J[j]);
            const double tol = 4.0 * EPS * fabs(trunc) + 8.0 * EPS * T / hh;
            const double err = fabs((cpv - cmv) / step - J[j] - trunc);
            cr_expect_leq(err, tol, "point %d: dphi/dy%zu = %.17g, differences %.17g", k, j,
                          J[j], (cpv - cmv) / step);
            worst = fmax(worst, err / tol);
        }
    }
    fprintf(stderr, "test_ff_models: twomass-ff dphi/dy: max error/bound %.3g\n", worst);
    cosa_odesys_free(os);
}

/* Unit Jacobians against central differences, the contact force active
 * (x1 up to 2e-6 m: Bcon x1 <= 20, |F_C| <= 5e6 N, dF_C/dx1 up to 5e13 N/m
 * against c1 = 1e5) and idle.  Steps: 1e-4 / Bcon for x1 (e^(Bcon h) - 1 =
 * 1e-4), 1e-5 max(|z|, 1) otherwise; M3 = |Acon| Bcon^3 e^(Bcon (x1 + h)) /
 * m1 (the rest is linear in each variable).  Where the contact dominates,
 * the truncation error is within 1e-4 of this Lagrange bound (e^(Bcon h)),
 * so error / bound comes close to 1 there by design. */
Test(twomass_ff, unit_jacobians_against_differences)
{
    const cosa_model *m = model("twomass-ff");
    double par[64];
    cosa_model_defaults(m, par);
    setp(m, par, "d1", 3.0);
    setp(m, par, "d2", 5.0);
    cosa_odesys *os = build(m, par);
    const double m1 = 50, m2 = 1, c1 = 1e5, c2 = 1e3, A = 1e-2, B = 1e7;
    static const double pts[4][3] = {{-2.0, 100.0, 3e5}, {1e-6, -30.0, -2e4},
                                     {2e-6, 5.0, 1.0}, {0.0, 0.0, 0.0}};
    double worst = 0.0;
    for (int k = 0; k < 4; k++) {
        const double *p = pts[k];
        const double hx[2] = {1e-4 / B, 1e-5 * fmax(fabs(p[1]), 1.0)},
                     hu[1] = {1e-5 * fmax(fabs(p[2]), 1.0)};
        const double e = exp(B * (p[0] + hx[0]));
        const double m3x[2] = {A * B * B * B * e / m1, 0.0};
        const double Fs1 = (c1 * (fabs(p[0]) + hx[0]) + 3.0 * (fabs(p[1]) + hx[1]) +
                            (3.0 + B * (fabs(p[0]) + hx[0])) * A * e + fabs(p[2]) + hu[0]) / m1 +
                           fabs(p[1]) + hx[1];
        worst = fmax(worst, check_unit_jacobian(cosa_odesys_sub(os, 0), 0.0, p, p + 2, hx, hu,
                                                m3x, NULL, Fs1, "twomass-ff I"));
        const double Fs2 = (c2 * (fabs(p[0]) + hx[1]) + 5.0 * (fabs(p[1]) + hx[1]) +
                            fabs(p[2]) + hu[0]) / m2 + fabs(p[1]) + hx[1];
        const double hx2[2] = {hx[1], hx[1]};
        worst = fmax(worst, check_unit_jacobian(cosa_odesys_sub(os, 1), 0.0, p, p + 2, hx2, hu,
                                                NULL, NULL, Fs2, "twomass-ff II"));
    }
    fprintf(stderr, "test_ff_models: twomass-ff unit Jacobians: max error/bound %.3g\n", worst);
    cosa_odesys_free(os);
}

/* The split system is eq 35: x' = f(x, S phi(g(x))) equals Newton's law for
 * both bodies evaluated directly, nonlinear (the paper's values, states
 * that reach into the contact) and linear (Cc = Dc = Acon = 0, where also
 * u = L y and the hand-written 4 x 4 matrix give it).  Both routes sum the
 * same <= 8 forces per row: difference <= 2 gamma_8 sum |forces| / m
 * (+ the division: 18 eps; 32 eps taken). */
Test(twomass_ff, stacked_rhs_is_eq35)
{
    const cosa_model *m = model("twomass-ff");
    for (int linear = 0; linear <= 1; linear++) {
        double par[64];
        cosa_model_defaults(m, par);
        setp(m, par, "d1", 3.0);
        setp(m, par, "d2", 5.0);
        setp(m, par, "dc", 7.0);
        if (linear) {
            setp(m, par, "Cc", 0.0);
            setp(m, par, "Dc", 0.0);
            setp(m, par, "Acon", 0.0);
        }
        cosa_odesys *os = build(m, par);
        const double m1 = 50, m2 = 1, c1 = 1e5, c2 = 1e3, cc = 1e5, d1 = 3, d2 = 5, dc = 7;
        /* A* of the linear case (column-major) */
        const double As[16] = {0, (-c1 - cc) / m1, 0, cc / m2,  1, (-d1 - dc) / m1, 0, dc / m2,
                               0, cc / m1, 0, (-c2 - cc) / m2,  0, dc / m1, 1, (-d2 - dc) / m2};
        unsigned long long seed = 5;
        double worst = 0.0;
        for (int k = 0; k < 50; k++) {
            double x[4] = {2 * tu_rand(&seed), 200 * tu_rand(&seed), 2 * tu_rand(&seed),
                           200 * tu_rand(&seed)};
            if (!linear) /* x1 > 7.1e-5 m would overflow the contact force */
                x[0] = -fabs(x[0]);
            if (k < 5) /* at the contact: Bcon x1 in [-30, 10] */
                x[0] = 1e-6 * (k - 3);
            double xd[4], xe[4], sc[4], xl[4];
            cr_assert_eq(stacked_rhs(os, 0, 0.0, x, xd), 0);
            twomass_ff_direct(m, par, x, xe, sc);
            for (int i = 0; i < 4; i++) {
                const double tol = 32.0 * EPS * sc[i];
                cr_expect_leq(fabs(xd[i] - xe[i]), tol, "%s, point %d, row %d: %.17g vs %.17g",
                              linear ? "linear" : "nonlinear", k, i, xd[i], xe[i]);
                if (tol > 0)
                    worst = fmax(worst, fabs(xd[i] - xe[i]) / tol);
                else
                    cr_expect_eq(xd[i], xe[i]);
            }
            if (!linear)
                continue;
            cr_assert_eq(stacked_rhs(os, 1, 0.0, x, xl), 0);
            for (int i = 0; i < 4; i++) {
                double ax = 0.0;
                for (int j = 0; j < 4; j++)
                    ax += As[i + 4 * j] * x[j];
                const double tol = 32.0 * EPS * sc[i];
                cr_expect_leq(fabs(xl[i] - xe[i]), tol, "u = L y, point %d row %d", k, i);
                cr_expect_leq(fabs(ax - xe[i]), tol, "A* x, point %d row %d", k, i);
                cr_expect_leq(fabs(ax - xd[i]), tol, "A* x vs S phi, point %d row %d", k, i);
                if (tol > 0)
                    worst = fmax(worst, fmax(fabs(ax - xe[i]), fabs(xl[i] - xe[i])) / tol);
            }
        }
        fprintf(stderr, "test_ff_models: twomass-ff %s rhs vs eq 35: max error/bound %.3g\n",
                linear ? "linear" : "nonlinear", worst);
        cosa_odesys_free(os);
    }
}

/* exp(Bcon x1) overflows for Bcon x1 > 709.78: f and the Jacobian say so
 * with a positive (recoverable) code, and phi stays finite. */
Test(twomass_ff, contact_overflow_is_recoverable)
{
    const cosa_model *m = model("twomass-ff");
    double par[64];
    cosa_model_defaults(m, par);
    cosa_odesys *os = build(m, par);
    const cosa_ode *o = cosa_odesys_sub(os, 0);
    const double x[2] = {1e-3, 0.0}, u[1] = {0.0};
    double f[2], A[4], B[2], C[4], D[2];
    cr_expect_gt(o->f(0.0, x, u, f, o->user_data), 0);
    cr_expect_gt(o->jac(0.0, x, u, A, B, C, D, o->user_data), 0);
    const double xok[2] = {-1e-3, 0.0};
    cr_expect_eq(o->f(0.0, xok, u, f, o->user_data), 0);
    cr_expect_eq(f[1], (-1e5 * -1e-3 + -1e-2 * exp(-1e4)) / 50.0);
    cosa_odesys_free(os);
}

/* The coupling seam end to end: CVODE (rtol 1e-10) on the unit set with
 * the model's coupling variables (cosa_unitset_set_coupling) integrates
 * eq 35 with the cubic coupling, as an independent classical RK4 of the
 * direct equations (h = 1e-6 s) does, over the paper's start to t = 0.01 s
 * (before the contact: x1 < 0).  Bound: RK4's global error ~ (h omega)^4
 * omega t with omega <= 1.2e3 1/s: 2e-11 relative; CVODE at rtol 1e-10
 * over omega t ~ 12 radians stays well below 1e-8; 1e-6 of max |x_i| leaves
 * margin and is far below the O(1) difference the linear coupling
 * (u = L y) makes. */
static void rk4_eq35(const cosa_model *m, const double *par, double *x, double t1, double h)
{
    const size_t nsteps = (size_t)llround(t1 / h);
    double k1[4], k2[4], k3[4], k4[4], xt[4], sc[4];
    for (size_t s = 0; s < nsteps; s++) {
        twomass_ff_direct(m, par, x, k1, sc);
        for (int i = 0; i < 4; i++)
            xt[i] = x[i] + 0.5 * h * k1[i];
        twomass_ff_direct(m, par, xt, k2, sc);
        for (int i = 0; i < 4; i++)
            xt[i] = x[i] + 0.5 * h * k2[i];
        twomass_ff_direct(m, par, xt, k3, sc);
        for (int i = 0; i < 4; i++)
            xt[i] = x[i] + h * k3[i];
        twomass_ff_direct(m, par, xt, k4, sc);
        for (int i = 0; i < 4; i++)
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

Test(twomass_ff, cvode_reference_with_coupling_is_eq35)
{
    const cosa_model *m = model("twomass-ff");
    double par[64], x0[4];
    cosa_model_defaults(m, par);
    cosa_odesys *os = build(m, par);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cosa_integrator integ;
    cr_assert_eq(cosa_integrator_parse("cvode", &integ), COSA_OK);
    cosa_unit *u[2];
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(os, i), &integ, &u[i]), COSA_OK);
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, cosa_odesys_L(os), NULL, &set), COSA_OK);
    cr_assert_eq(cosa_unitset_set_coupling(set, cosa_odesys_coupling(os)), COSA_OK);
    cosa_reftraj *ref = NULL;
    const double H = 1e-3;
    cosa_status st = cosa_reftraj_cvode(set, x0, H, 11, 1e-10, &ref);
    cr_assert_eq(st, COSA_OK, "%s", cosa_strerror(st));
    double x[4], xmax = 0.0, worst = 0.0;
    memcpy(x, x0, sizeof x);
    for (size_t k = 1; k < 11; k++) {
        rk4_eq35(m, par, x, H, 1e-6);
        for (int i = 0; i < 4; i++)
            xmax = fmax(xmax, fabs(x[i]));
        for (int i = 0; i < 4; i++) {
            const double e = fabs(ref->x[i + 4 * k] - x[i]);
            cr_expect_leq(e, 1e-6 * xmax, "t = %g, x%d: CVODE %.17g, RK4 %.17g", k * H, i,
                          ref->x[i + 4 * k], x[i]);
            worst = fmax(worst, e / xmax);
        }
    }
    cr_expect_lt(x[0], 0.0, "no contact before t = 0.01 s");
    fprintf(stderr, "test_ff_models: twomass-ff CVODE with coupling vs RK4 of eq 35: "
                    "max |error| / max |x| %.3g\n", worst);
    cosa_reftraj_free(ref);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_odesys_free(os);
}

/* ======================================================================== */
/* chain-ff (section 6.2, eqs 37-38)                                        */
/* ======================================================================== */

/* SplitMix64 written here from its definition (Steele, Lea, Flood 2014;
 * Vigna's splitmix64.c), sequentially: state += golden gamma, then mix. */
static uint64_t sm64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The documented draws of chain-ff: uniform U[i][j] for mass i = 1..n,
 * j = 0..5, the 6 (i-1) + j -th output of the generator seeded with seed. */
static double *chain_ff_draws(uint64_t seed, size_t n)
{
    double *U = malloc(6 * n * sizeof *U);
    cr_assert_not_null(U);
    uint64_t s = seed;
    for (size_t k = 0; k < 6 * n; k++)
        U[k] = (double)(sm64_next(&s) >> 11) / 9007199254740992.0;
    return U;
}

/* Knuth's selection sampling with draw j, K = floor(frac n + 1/2). */
static void chain_ff_select(const double *U, size_t n, double frac, int j, int *sel)
{
    size_t K = (size_t)floor(frac * (double)n + 0.5), got = 0;
    for (size_t i = 0; i < n; i++) {
        sel[i] = U[6 * i + j] < (double)(K - got) / (double)(n - i);
        got += (size_t)sel[i];
    }
}

/* The published first outputs of SplitMix64 for seed 1234567 (Rosetta
 * Code, "Pseudo-random numbers/Splitmix64"): this file's generator is the
 * documented one. */
Test(chain_ff, splitmix64_reference_outputs)
{
    static const uint64_t want[5] = {6457827717110365317ULL, 3203168211198807973ULL,
                                     9817491932198370423ULL, 4593380528125082431ULL,
                                     16408922859458223821ULL};
    uint64_t s = 1234567;
    for (int k = 0; k < 5; k++)
        cr_expect_eq(sm64_next(&s), want[k], "output %d", k);
}

/* Seeded initial states: the documented draws (bit for bit), the same for
 * the same seed, others for another seed; s1, v1 replace mass 1's. */
Test(chain_ff, random_initial_state)
{
    const cosa_model *m = model("chain-ff");
    double par[64];
    cosa_model_defaults(m, par);
    const size_t n = 40;
    setp(m, par, "n", (double)n);
    setp(m, par, "r", 7);
    setp(m, par, "x0max", 1e-3);
    setp(m, par, "v0max", 10);
    setp(m, par, "s1", 0.25);
    setp(m, par, "v1", -3);
    double a[80], b[80], c[80];
    for (int seed = 0; seed < 3; seed++) {
        setp(m, par, "seed", 1234567 + seed);
        cr_assert_eq(m->initial_state(m, par, a), COSA_OK);
        cr_assert_eq(m->initial_state(m, par, b), COSA_OK);
        cr_expect(memcmp(a, b, sizeof a) == 0, "same seed, same x0");
        double *U = chain_ff_draws(1234567 + (uint64_t)seed, n);
        for (size_t i = 1; i < n; i++) {
            cr_expect_eq(a[2 * i], 1e-3 * (2.0 * U[6 * i + 4] - 1.0), "x%zu(0)", i + 1);
            cr_expect_eq(a[2 * i + 1], 10.0 * (2.0 * U[6 * i + 5] - 1.0), "v%zu(0)", i + 1);
            cr_expect(fabs(a[2 * i]) <= 1e-3 && fabs(a[2 * i + 1]) <= 10.0);
        }
        cr_expect(a[0] == 0.25 && a[1] == -3.0);
        free(U);
        if (seed > 0) {
            size_t same = 0;
            for (size_t k = 2; k < 2 * n; k++)
                same += a[k] == c[k];
            cr_expect_eq(same, 0, "seed %d shares %zu values with the previous seed", seed, same);
        }
        memcpy(c, a, sizeof c);
    }
    /* x0max = v0max = 0: zeros (not -0) but mass 1 */
    setp(m, par, "x0max", 0);
    setp(m, par, "v0max", 0);
    cr_assert_eq(m->initial_state(m, par, a), COSA_OK);
    for (size_t k = 2; k < 2 * n; k++)
        cr_expect(a[k] == 0.0 && !signbit(a[k]));
}

/* Structure for n = 7, r = 3 (groups of 3, 2, 2 masses, as chain):
 * dimensions, S, L = S dphi/dy(0), kick flags, names. */
Test(chain_ff, structure)
{
    const cosa_model *m = model("chain-ff");
    cr_expect_null(m->create);
    double par[64];
    cosa_model_defaults(m, par);
    static const struct { const char *n; double v; } def[] = {
        {"n", 6}, {"r", 3}, {"m", 1}, {"c", 1e4}, {"d", 10}, {"s1", 0}, {"v1", 1}};
    for (size_t k = 0; k < sizeof def / sizeof *def; k++)
        cr_expect_eq(getp(m, par, def[k].n), def[k].v, "%s", def[k].n);
    for (size_t k = 0; k < m->nparam; k++) {
        int listed = 0;
        for (size_t j = 0; j < sizeof def / sizeof *def; j++)
            listed |= strcmp(m->params[k].name, def[j].n) == 0;
        if (!listed)
            cr_expect_eq(par[k], 0.0, "%s defaults to 0", m->params[k].name);
    }
    setp(m, par, "n", 7);
    setp(m, par, "c", 3.0);
    setp(m, par, "d", 2.0);
    cosa_odesys *os = build(m, par);
    static const size_t nx[3] = {6, 4, 4}, nu[3] = {1, 2, 1}, ny[3] = {2, 4, 2};
    cr_assert_eq(cosa_odesys_nsub(os), 3);
    for (size_t g = 0; g < 3; g++) {
        const cosa_ode *o = cosa_odesys_sub(os, g);
        cr_expect(o->nx == nx[g] && o->nu == nu[g] && o->ny == ny[g], "group %zu", g);
        for (size_t r = 0; r < o->nx; r++)
            cr_expect_eq(o->kick[r], r % 2);
    }
    const cosa_coupling *cp = cosa_odesys_coupling(os);
    cr_assert_not_null(cp);
    cr_expect_eq(cp->nc, 2);
    /* inputs [g1.fr3, g2.fl4, g2.fr5, g3.fl6]; u_1 = F4 -> +fr3, -fl4 */
    const double S[8] = {1, -1, 0, 0, 0, 0, 1, -1};
    cr_expect(memcmp(cp->S, S, sizeof S) == 0);
    /* outputs [x3 v3 | x4 v4 x5 v5 | x6 v6]; L = S dphi/dy(0), dphi1/dy =
     * [-c, -d, c, d, 0...] (F4 = c (x4 - x3) + d (v4 - v3)) */
    const double row1[8] = {-3, -2, 3, 2, 0, 0, 0, 0}, row2[8] = {0, 0, 0, 0, -3, -2, 3, 2};
    const double *L = cosa_odesys_L(os);
    for (size_t j = 0; j < 8; j++) {
        const double want[4] = {row1[j], -row1[j], row2[j], -row2[j]};
        for (size_t i = 0; i < 4; i++)
            cr_expect_eq(L[i + 4 * j], want[i], "L(%zu,%zu) = S dphi/dy(0)", i, j);
    }
    static const char *const in[] = {"fr3", "fl4", "fr5", "fl6"};
    static const char *const out[] = {"x3", "v3", "x4", "v4", "x5", "v5", "x6", "v6"};
    for (size_t k = 0; k < 4; k++)
        cr_expect_str_eq(m->input_name(m, par, k), in[k]);
    for (size_t k = 0; k < 8; k++)
        cr_expect_str_eq(m->output_name(m, par, k), out[k]);
    cr_expect_null(m->input_name(m, par, 4));
    cr_expect_null(m->output_name(m, par, 8));
    cr_expect_str_eq(m->state_name(m, par, 0), "x1");
    cr_expect_str_eq(m->state_name(m, par, 13), "v7");
    cr_expect_null(m->state_name(m, par, 14));
    cr_expect_str_eq(m->sub_name(m, par, 2), "g3");
    cr_expect_null(m->sub_name(m, par, 3));
    cosa_odesys_free(os);
    /* r = 1: one unit, no coupling */
    setp(m, par, "r", 1);
    os = build(m, par);
    cr_expect_eq(cosa_odesys_nsub(os), 1);
    cr_expect_eq(cosa_odesys_nu(os), 0);
    cr_expect_null(cosa_odesys_coupling(os));
    cosa_odesys_free(os);
}

/* Linear chain-ff (Cn = Dn = 0, no impulses or contacts) is the linear
 * `chain` at the same n, r, m, c, d: x' = f(x, S phi(g(x))) (and with
 * u = L y) equals chain's monolithic A* x (eq 35 of the MBCorr paper,
 * cosa_system_monolithic; same state order [x1, v1, ..., xn, vn]) at random
 * states, for several splits; and the initial states agree.  Bound: A*
 * comes from one LU solve of I - D L (entries 0, +-1, +-c, +-d; growth 1),
 * its entries err by a few eps of their row's size; each route sums <= 6
 * forces per row (2 gamma_6): 64 eps sum_j |A*_ij x_j| covers both. */
Test(chain_ff, linear_is_chain)
{
    const cosa_model *mf = model("chain-ff"), *mc = model("chain");
    static const struct { double n, r, m, c, d; } cases[] = {
        {6, 3, 1, 1e4, 10}, {7, 3, 0.1, 1e7, 1e4}, {5, 1, 2, 3e3, 0},
        {2, 2, 1, 1e4, 10}, {9, 9, 0.5, 1e5, 50}, {10, 4, 1e-2, 2.5e6, 25}};
    double worst = 0.0;
    for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
        double pf[64], pc[64];
        cosa_model_defaults(mf, pf);
        cosa_model_defaults(mc, pc);
        const char *names[5] = {"n", "r", "m", "c", "d"};
        const double vals[5] = {cases[q].n, cases[q].r, cases[q].m, cases[q].c, cases[q].d};
        for (int k = 0; k < 5; k++) {
            setp(mf, pf, names[k], vals[k]);
            setp(mc, pc, names[k], vals[k]);
        }
        cosa_odesys *os = build(mf, pf);
        cosa_system *sys = NULL;
        cr_assert_eq(mc->create(mc, pc, &sys), COSA_OK);
        const size_t nx = cosa_system_nx(sys);
        cr_assert_eq(cosa_odesys_nx(os), nx);
        double *As = malloc(nx * nx * sizeof *As), *x = malloc(nx * sizeof *x);
        double *xd = malloc(nx * sizeof *xd), *xl = malloc(nx * sizeof *xl);
        double *x0f = malloc(nx * sizeof *x0f), *x0c = malloc(nx * sizeof *x0c);
        cr_assert(As && x && xd && xl && x0f && x0c);
        cr_assert_eq(cosa_system_monolithic(sys, As, NULL), COSA_OK);
        unsigned long long seed = 3 + q;
        for (int k = 0; k < 20; k++) {
            for (size_t i = 0; i < nx; i++)
                x[i] = (i % 2 ? 10.0 : 1e-3) * tu_rand(&seed);
            cr_assert_eq(stacked_rhs(os, 0, 0.3, x, xd), 0);
            cr_assert_eq(stacked_rhs(os, 1, 0.3, x, xl), 0);
            for (size_t i = 0; i < nx; i++) {
                double ax = 0.0, sc = 0.0;
                for (size_t j = 0; j < nx; j++) {
                    ax += As[i + j * nx] * x[j];
                    sc += fabs(As[i + j * nx] * x[j]);
                }
                const double tol = 64.0 * EPS * sc;
                cr_expect_leq(fabs(xd[i] - ax), tol, "case %zu point %d row %zu: %.17g vs A* x "
                              "%.17g", q, k, i, xd[i], ax);
                cr_expect_leq(fabs(xl[i] - ax), tol, "case %zu point %d row %zu (u = L y)", q,
                              k, i);
                if (tol > 0)
                    worst = fmax(worst, fmax(fabs(xd[i] - ax), fabs(xl[i] - ax)) / tol);
            }
        }
        cr_assert_eq(mf->initial_state(mf, pf, x0f), COSA_OK);
        cr_assert_eq(mc->initial_state(mc, pc, x0c), COSA_OK);
        cr_expect(memcmp(x0f, x0c, nx * sizeof *x0f) == 0, "case %zu: x0", q);
        free(As), free(x), free(xd), free(xl), free(x0f), free(x0c);
        cosa_system_free(sys);
        cosa_odesys_free(os);
    }
    fprintf(stderr, "test_ff_models: linear chain-ff vs chain A*: max error/bound %.3g\n", worst);
}

/* Unit Jacobians of the nonlinear chain (the paper's c, d, Cn, Dn; contacts
 * with its Acon, Bcon on half the masses; impulses) against central
 * differences at random states (x in [-1e-4, 3e-5] m: Bcon x <= 15;
 * |v| <= 10 m/s; inputs up to 1e5 N), and dphi/dy likewise.  M3: each x
 * (v) enters <= 2 elements, (w^3)''' = 6: 12 |Cn| / m (12 |Dn| / m), plus
 * for x the contact's |Acon| Bcon^3 e^(Bcon (x + h)) / m.  Fs: every force of a row
 * bounded (2 elements, contact, impulse, input). */
Test(chain_ff, jacobians_against_differences)
{
    const cosa_model *m = model("chain-ff");
    double par[64];
    cosa_model_defaults(m, par);
    static const struct { const char *n; double v; } set[] = {
        {"n", 11}, {"r", 4}, {"m", 0.1}, {"c", 1e7}, {"d", 1e4}, {"Cn", 1e14}, {"Dn", 1e2},
        {"fimp", 0.3}, {"dFmin", 1e6}, {"dFmax", 5e6}, {"tper", 0.05}, {"delta", 1e-5},
        {"dtimp", 2.5e-3}, {"fcon", 0.5}, {"Acon", -1e-2}, {"Bcon", 5e5}, {"seed", 42}};
    for (size_t k = 0; k < sizeof set / sizeof *set; k++)
        setp(m, par, set[k].n, set[k].v);
    cosa_odesys *os = build(m, par);
    const double mm = 0.1, c = 1e7, d = 1e4, Cn = 1e14, Dn = 1e2, A = 1e-2, B = 5e5;
    const double xmax = 1e-4, vmax = 10.0, umax = 1e5, hx = 1e-4 / B;
    unsigned long long seed = 17;
    double worst = 0.0;
    for (int k = 0; k < 10; k++)
        for (size_t g = 0; g < cosa_odesys_nsub(os); g++) {
            const cosa_ode *o = cosa_odesys_sub(os, g);
            double x[16], u[2], hxs[16], hus[2], m3x[16];
            for (size_t i = 0; i < o->nx; i++) {
                x[i] = i % 2 ? vmax * tu_rand(&seed) : -3.5e-5 + 6.5e-5 * tu_rand(&seed);
                hxs[i] = i % 2 ? 1e-5 * fmax(fabs(x[i]), 1.0) : hx;
            }
            for (size_t i = 0; i < o->nu; i++) {
                u[i] = umax * tu_rand(&seed);
                hus[i] = 1e-5 * fmax(fabs(u[i]), 1.0);
            }
            const double e = exp(B * (3e-5 + hx)), wmax = 2 * xmax, zmax = 2 * vmax + 1;
            for (size_t i = 0; i < o->nx; i++)
                m3x[i] = i % 2 ? 12.0 * Dn / mm : (12.0 * Cn + A * B * B * B * e) / mm;
            const double Fel = c * wmax + d * zmax + Cn * wmax * wmax * wmax + Dn * zmax * zmax * zmax;
            const double Fs = (2.0 * Fel + (3.0 + B * xmax) * A * e + 5e6 + umax) / mm + vmax + 1;
            char what[32];
            snprintf(what, sizeof what, "chain-ff g%zu", g + 1);
            worst = fmax(worst, check_unit_jacobian(o, 0.05 + 1e-3 * k, x, u, hxs, hus, m3x,
                                                    NULL, Fs, what));
        }
    /* dphi/dy: cubic in w, z; the truncation s a h^2 (s = dw/dy_j = +-1 or 0,
     * the sign of dphi_s/dy_j as c, d, Cn, Dn > 0) subtracted as for
     * twomass-ff; phi_s does not depend on the other outputs (differences 0) */
    const cosa_coupling *cp = cosa_odesys_coupling(os);
    const size_t nc = cp->nc, ny = cosa_odesys_ny(os);
    double y[32], J[3 * 32], cv[3], cpv[3], cmv[3];
    cr_assert_leq(ny, 32);
    for (int k = 0; k < 10; k++) {
        for (size_t j = 0; j < ny; j++)
            y[j] = j % 2 ? vmax * tu_rand(&seed) : xmax * tu_rand(&seed);
        cr_assert_eq(cp->phi(cp->ctx, 0.0, y, cv, J), COSA_OK);
        for (size_t j = 0; j < ny; j++) {
            const double h = j % 2 ? 1e-5 * fmax(fabs(y[j]), 1.0) : 1e-9;
            double yp[32], ym[32];
            memcpy(yp, y, ny * sizeof *y);
            memcpy(ym, y, ny * sizeof *y);
            yp[j] += h;
            ym[j] -= h;
            const double step = yp[j] - ym[j], hh = 0.5 * step;
            cr_assert_eq(cp->phi(cp->ctx, 0.0, yp, cpv, NULL), COSA_OK);
            cr_assert_eq(cp->phi(cp->ctx, 0.0, ym, cmv, NULL), COSA_OK);
            const double wm = 2 * xmax + 2 * hh, zm = 2 * vmax + 2 * hh;
            const double T = c * wm + d * zm + Cn * wm * wm * wm + Dn * zm * zm * zm;
            for (size_t s = 0; s < nc; s++) {
                const double Jsj = J[s + j * nc];
                const double trunc = Jsj == 0.0 ? 0.0 : copysign(hh * hh * (j % 2 ? Dn : Cn), Jsj);
                const double tol = 4.0 * EPS * fabs(trunc) + 8.0 * EPS * T / hh;
                const double err = fabs((cpv[s] - cmv[s]) / step - Jsj - trunc);
                if (Jsj == 0.0)
                    cr_expect_eq(cpv[s], cmv[s], "phi%zu does not depend on y%zu", s, j);
                cr_expect_leq(err, tol, "dphi%zu/dy%zu = %.17g, differences %.17g", s, j,
                              J[s + j * nc], (cpv[s] - cmv[s]) / step);
                worst = fmax(worst, err / tol);
            }
        }
    }
    fprintf(stderr, "test_ff_models: chain-ff unit Jacobians and dphi/dy: max error/bound %.3g\n",
            worst);
    cosa_odesys_free(os);
}

/* Closed form of the impulse train (section 6.2), every pulse summed:
 * sum_{alpha >= 0, alpha tper <= t + 1} 1/2 [tanh((t - t_a)/delta) -
 * tanh((t - t_a - dt)/delta)]. */
static double pulses(double t, double tper, double delta, double dt)
{
    double s = 0.0;
    for (int a = 0; a == 0 || (tper > 0 && a * tper <= t + 1.0); a++) {
        const double ta = a * tper;
        s += 0.5 * (tanh((t - ta) / delta) - tanh((t - ta - dt) / delta));
    }
    return s;
}

/* The impulse force at known times equals dF_i times the closed form: with
 * c = d = 0 (no element forces), x = 0 and no inputs, m v_i' = F_imp,i(t).
 * The masses chosen and the signs of dF_i are the documented draws
 * (|dF_i| = dFmin = dFmax = 1000 N).  Bound: the pulses the model skips are
 * +-(1 - 1) = 0 exactly (|arg| > 20: tanh rounds to +-1); the others are
 * summed in the same order: 8 eps |dF| (sum of |terms| <= 2). */
Test(chain_ff, impulses_closed_form)
{
    const cosa_model *m = model("chain-ff");
    const size_t n = 8;
    static const double tpers[2] = {0.05, 0.0}, fimps[2] = {0.5, 1.0};
    for (int q = 0; q < 4; q++) {
        const double tper = tpers[q % 2], fimp = fimps[q / 2], delta = 1e-3, dt = 2.5e-3;
        double par[64];
        cosa_model_defaults(m, par);
        static const char *const nm[] = {"n", "r", "c", "d", "dFmin", "dFmax", "delta", "dtimp",
                                         "seed"};
        const double v[] = {(double)n, 3, 0, 0, 1000, 1000, delta, dt, 99};
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            setp(m, par, nm[k], v[k]);
        setp(m, par, "tper", tper);
        setp(m, par, "fimp", fimp);
        cosa_odesys *os = build(m, par);
        double *U = chain_ff_draws(99, n);
        int sel[8];
        chain_ff_select(U, n, fimp, 0, sel);
        size_t nsel = 0;
        for (size_t i = 0; i < n; i++)
            nsel += (size_t)sel[i];
        cr_expect_eq(nsel, (size_t)floor(fimp * n + 0.5), "exactly round(fimp n) masses");
        static const double ts[] = {0.0, 1e-3, 2.5e-3, 4e-3, 0.0495, 0.0512, 0.0525, 0.1013, 0.37};
        double x[16] = {0}, xd[16];
        for (size_t k = 0; k < sizeof ts / sizeof *ts; k++) {
            cr_assert_eq(stacked_rhs(os, 0, ts[k], x, xd), 0);
            const double P = pulses(ts[k], tper, delta, dt);
            for (size_t i = 0; i < n; i++) {
                const double dF = !sel[i] ? 0.0 : U[6 * i + 3] < 0.5 ? -1000.0 : 1000.0;
                cr_expect_leq(fabs(xd[2 * i + 1] - dF * P), 8.0 * EPS * 1000.0,
                              "tper %g fimp %g t %g mass %zu: %.17g vs %.17g", tper, fimp, ts[k],
                              i + 1, xd[2 * i + 1], dF * P);
                cr_expect_eq(xd[2 * i], 0.0);
            }
        }
        /* the closed form itself: tanh(dt / 2 delta) at the middle of the first
         * pulse, 0 long after it without tper */
        cr_expect_leq(fabs(pulses(dt / 2, tper, delta, dt) - tanh(dt / (2 * delta))), 4 * EPS);
        if (tper == 0.0)
            cr_expect_eq(pulses(0.37, tper, delta, dt), 0.0);
        free(U);
        cosa_odesys_free(os);
        /* delta = 0: no impulses */
        setp(m, par, "delta", 0);
        os = build(m, par);
        cr_assert_eq(stacked_rhs(os, 0, 1e-3, x, xd), 0);
        for (size_t i = 0; i < 2 * n; i++)
            cr_expect_eq(xd[i], 0.0);
        cosa_odesys_free(os);
    }
}

/* Contacts on exactly round(fcon n) masses, the documented ones: with
 * c = d = 0, Acon = -2, Bcon = 3 and x_i = 0.1, m v_i' = -2 e^0.3 there, 0
 * elsewhere; and an overflowing exp is a recoverable failure of f. */
Test(chain_ff, contacts)
{
    const cosa_model *m = model("chain-ff");
    const size_t n = 10;
    double par[64];
    cosa_model_defaults(m, par);
    static const char *const nm[] = {"n", "r", "c", "d", "fcon", "Acon", "Bcon", "seed"};
    const double v[] = {(double)n, 4, 0, 0, 0.3, -2, 3, 7};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        setp(m, par, nm[k], v[k]);
    cosa_odesys *os = build(m, par);
    double *U = chain_ff_draws(7, n);
    int sel[10];
    chain_ff_select(U, n, 0.3, 1, sel);
    double x[20], xd[20];
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = 0.1;
        x[2 * i + 1] = 0.0;
    }
    cr_assert_eq(stacked_rhs(os, 0, 0.0, x, xd), 0);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(xd[2 * i + 1], sel[i] ? -2.0 * exp(3.0 * 0.1) : 0.0, "mass %zu", i + 1);
        count += xd[2 * i + 1] != 0.0;
    }
    cr_expect_eq(count, 3);
    setp(m, par, "Bcon", 1e4);
    cosa_odesys_free(os);
    os = build(m, par);
    cr_expect_gt(stacked_rhs(os, 0, 0.0, x, xd), 0, "exp(1e3) overflows: recoverable");
    free(U);
    cosa_odesys_free(os);
}

/* Parameters the model cannot build: COSA_EPARAM from create_ode and
 * initial_state, and the declared ranges say so too (but for the count of
 * pulses summed at once, which no range can state: more than 1e6 when
 * dtimp / tper = 1e12). */
Test(chain_ff, bad_parameters)
{
    const cosa_model *m = model("chain-ff");
    static const struct { const char *a; double va; const char *b; double vb; int declared; }
        bad[] = {{"r", 7, NULL, 0, 1},        {"n", 1, "r", 1, 1},     {"n", 6.5, NULL, 0, 1},
                 {"r", 0, NULL, 0, 1},        {"r", 2.5, NULL, 0, 1},  {"m", 0, NULL, 0, 1},
                 {"seed", 0.5, NULL, 0, 1},   {"seed", -1, NULL, 0, 1}, {"fimp", 1.5, NULL, 0, 1},
                 {"fcon", -0.1, NULL, 0, 1},  {"dFmin", 2, "dFmax", 1, 1},
                 {"tper", -1, NULL, 0, 1},    {"delta", -1, NULL, 0, 1},
                 {"x0max", -1, NULL, 0, 1},
                 {"tper", 1e-12, "dtimp", 1, 0}};
    double base[64];
    cosa_model_defaults(m, base);
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        double par[64], x0[64];
        memcpy(par, base, sizeof par);
        if (!bad[k].declared) { /* with impulses */
            setp(m, par, "fimp", 0.5);
            setp(m, par, "delta", 1e-3);
        }
        setp(m, par, bad[k].a, bad[k].va);
        if (bad[k].b)
            setp(m, par, bad[k].b, bad[k].vb);
        cosa_odesys *os = NULL;
        cr_expect_eq(m->create_ode(m, par, &os), COSA_EPARAM, "%s = %g", bad[k].a, bad[k].va);
        cr_expect_null(os);
        cr_expect_eq(m->initial_state(m, par, x0), COSA_EPARAM, "%s = %g", bad[k].a, bad[k].va);
        cr_expect_eq(cosa_model_check(m, par, NULL, NULL, 0) != COSA_OK, bad[k].declared,
                     "%s = %g: declared range", bad[k].a, bad[k].va);
    }
    const cosa_model *t = model("twomass-ff");
    double par[64];
    cosa_model_defaults(t, par);
    setp(t, par, "m2", 0);
    cosa_odesys *os = NULL;
    cr_expect_eq(t->create_ode(t, par, &os), COSA_EPARAM);
    cr_expect_null(os);
}
