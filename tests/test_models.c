/* test_models.c -- built-in models twomass-fd, rotational and chain against
 * independent routes: the monolithic A* (eq 35) equals the equations of
 * motion assembled directly (Newton's law for all bodies at once), the
 * eigenvalues of A* for twomass-fd match the 2-DOF closed form, chain with
 * n = r = 2 is the two-mass oscillator of eq 27, and A* of chain does not
 * depend on how the chain is split. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static double *reference(const cosa_system *sys)
{
    size_t nx = cosa_system_nx(sys);
    double *As = malloc(nx * nx * sizeof *As);
    cr_assert_eq(cosa_system_monolithic(sys, As, NULL), COSA_OK);
    return As;
}

/* Every entry of A* within tol * (max |row| of the expected matrix). */
static void expect_rows_close(size_t n, const double *As, const double *Ae, double tol,
                              const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double rm = 0;
        for (size_t j = 0; j < n; j++)
            rm = fmax(rm, fabs(Ae[i + j * n]));
        for (size_t j = 0; j < n; j++)
            cr_expect_leq(fabs(As[i + j * n] - Ae[i + j * n]), tol * rm,
                          "%s: A*(%zu,%zu) = %.17g, expected %.17g", what, i, j, As[i + j * n],
                          Ae[i + j * n]);
    }
}

/* x' = A x for bodies with positions q and velocities q' (state order
 * [q1, q1', q2, q2', ...]) and M q'' = -K q - Cd q'  (M diagonal). */
static void second_order(size_t nb, const double *mass, const double *K, const double *Cd,
                         double *A)
{
    size_t n = 2 * nb;
    memset(A, 0, n * n * sizeof *A);
    for (size_t i = 0; i < nb; i++) {
        A[2 * i + (2 * i + 1) * n] = 1.0;
        for (size_t j = 0; j < nb; j++) {
            A[2 * i + 1 + 2 * j * n] = -K[i + j * nb] / mass[i];
            A[2 * i + 1 + (2 * j + 1) * n] = -Cd[i + j * nb] / mass[i];
        }
    }
}

static int same_bits(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* ------------------------------------------------------------------------ */

Test(models, registry_lists_all)
{
    static const char *const names[] = {"twomass", "twomass-fd", "rotational", "chain"};
    for (size_t i = 0; i < 4; i++) {
        const cosa_model *m = model(names[i]);
        cr_expect_str_eq(m->name, names[i]);
        cr_expect(m->tend > 0);
        cr_expect_not_null(m->update);
        double par[32];
        cosa_model_defaults(m, par);
        cosa_system *sys;
        cr_assert_eq(m->create(m, par, &sys), COSA_OK, "%s", names[i]);
        size_t nx = cosa_system_nx(sys), nu = cosa_system_nu(sys), ny = cosa_system_ny(sys);
        for (size_t k = 0; k < nx; k++)
            cr_expect_not_null(m->state_name(m, par, k), "%s state %zu", names[i], k);
        for (size_t k = 0; k < nu; k++)
            cr_expect_not_null(m->input_name(m, par, k), "%s input %zu", names[i], k);
        for (size_t k = 0; k < ny; k++)
            cr_expect_not_null(m->output_name(m, par, k), "%s output %zu", names[i], k);
        cr_expect_null(m->state_name(m, par, nx));
        cr_assert_not_null(m->sub_name, "%s has subsystem names", names[i]);
        for (size_t k = 0; k < cosa_system_nsub(sys); k++)
            cr_expect_not_null(m->sub_name(m, par, k), "%s subsystem %zu", names[i], k);
        cr_expect_null(m->sub_name(m, par, cosa_system_nsub(sys)));
        for (size_t k = 0; k < m->nparam; k++) {
            cr_expect_not_null(m->params[k].unit);
            cr_expect_not_null(m->params[k].doc);
        }
        cosa_system_free(sys);
    }
}

/* One registry for both kinds: every built-in model is found by its name;
 * the linear ones have the linear form (create, update) and a dump template
 * but no ODE form, twomass-nl only the ODE form; all are static (no destroy
 * slot). */
Test(models, one_registry_for_linear_and_nonlinear)
{
    static const struct { const char *name; int linear; } all[] = {
        {"twomass", 1},    {"twomass-fd", 1}, {"rotational", 1},
        {"rotational-defect", 1}, {"chain", 1}, {"multi-fd", 1}, {"oscillator", 1}, {"twomass-nl", 0},
        {"twomass-fd-nl", 0}, {"pendula", 0}, {"crane", 0}, {"twomass-ff", 0},
        {"chain-ff", 0}};
    const size_t n = sizeof all / sizeof all[0];
    cr_expect_eq(cosa_model_count(), n);
    for (size_t i = 0; i < n; i++) {
        const cosa_model *m = model(all[i].name);
        cr_expect_eq(cosa_model_at(i), m, "%s is entry %zu", all[i].name, i);
        cr_expect_eq(cosa_model_is_linear(m), all[i].linear, "%s", all[i].name);
        cr_expect_eq(m->create != NULL, all[i].linear, "%s: create", all[i].name);
        cr_expect_eq(m->update != NULL, all[i].linear, "%s: update", all[i].name);
        cr_expect_eq(m->create_ode != NULL, !all[i].linear, "%s: create_ode", all[i].name);
        cr_expect_not_null(m->initial_state, "%s", all[i].name);
        cr_expect_eq(m->dump_template != NULL, all[i].linear, "%s: dump template", all[i].name);
        cr_expect_null(m->destroy, "%s is static", all[i].name);
        cosa_model_free((cosa_model *)m); /* no destroy slot: ignored */
    }
    cr_expect_null(cosa_model_at(n));
    cr_expect_null(cosa_model_find("nosuch"));
    cr_expect_null(cosa_model_find(NULL));
    cr_expect_eq(cosa_model_is_linear(NULL), 0);
    cosa_model_free(NULL);

    /* the nonlinear model builds its ODE system and initial state */
    const cosa_model *nl = model("twomass-nl");
    double par[32], x0[4];
    cosa_model_defaults(nl, par);
    cosa_odesys *os = NULL;
    cr_assert_eq(nl->create_ode(nl, par, &os), COSA_OK);
    cr_expect_eq(cosa_odesys_nsub(os), 2);
    cr_expect_eq(cosa_odesys_nx(os), 4);
    cr_expect_eq(nl->initial_state(nl, par, x0), COSA_OK);
    cr_expect_eq(x0[1], par[cosa_model_param_index(nl, "v1")]);
    cosa_odesys_free(os);
}

/* update() from other parameter values gives exactly what create() gives. */
Test(models, update_equals_create)
{
    static const struct { const char *m, *p; double v; } cases[] = {
        {"twomass-fd", "kc", 1e5}, {"twomass-fd", "cc", 3}, {"rotational", "ck", 1e3},
        {"rotational", "J2", 0.5}, {"chain", "c", 7}, {"chain", "m", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cosa_model *m = model(cases[i].m);
        double p0[32], p1[32];
        cosa_model_defaults(m, p0);
        cosa_model_defaults(m, p1);
        setp(m, p1, cases[i].p, cases[i].v);
        cosa_system *s0, *s1;
        cr_assert_eq(m->create(m, p0, &s0), COSA_OK);
        cr_assert_eq(m->create(m, p1, &s1), COSA_OK);
        cr_assert_eq(m->update(m, p1, s0), COSA_OK);
        size_t nx = cosa_system_nx(s0), nu = cosa_system_nu(s0), ny = cosa_system_ny(s0);
        cr_expect(same_bits(cosa_system_A(s0), cosa_system_A(s1), nx * nx) &&
                      same_bits(cosa_system_B(s0), cosa_system_B(s1), nx * nu) &&
                      same_bits(cosa_system_C(s0), cosa_system_C(s1), ny * nx) &&
                      same_bits(cosa_system_D(s0), cosa_system_D(s1), ny * nu) &&
                      same_bits(cosa_system_L(s0), cosa_system_L(s1), nu * ny),
                  "%s %s", cases[i].m, cases[i].p);
        cosa_system_free(s0);
        cosa_system_free(s1);
    }
}

Test(models, invalid_parameters)
{
    static const struct { const char *m, *p; double v; } cases[] = {
        {"twomass-fd", "m1", 0}, {"twomass-fd", "m2", -1}, {"rotational", "J1", 0},
        {"rotational", "J2", -2}, {"chain", "n", 0}, {"chain", "n", 2.5}, {"chain", "r", 0},
        {"chain", "r", 7}, {"chain", "r", 1.5}, {"chain", "m", 0}, {"chain", "n", 1e9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cosa_model *m = model(cases[i].m);
        double par[32], x0[64];
        cosa_model_defaults(m, par);
        setp(m, par, cases[i].p, cases[i].v);
        cosa_system *sys = (cosa_system *)1;
        cr_expect_eq(m->create(m, par, &sys), COSA_EPARAM, "%s %s = %g", cases[i].m,
                     cases[i].p, cases[i].v);
        if (strcmp(cases[i].m, "chain") == 0 && strcmp(cases[i].p, "m") != 0)
            cr_expect_eq(m->initial_state(m, par, x0), COSA_EPARAM);
    }
}

/* ---- twomass-fd ------------------------------------------------------------ */

struct fd_par {
    double m1, m2, k1, k2, kc, c1, c2, cc;
};

static void fd_params(const cosa_model *m, double *par, const struct fd_par *p)
{
    cosa_model_defaults(m, par);
    setp(m, par, "m1", p->m1);
    setp(m, par, "m2", p->m2);
    setp(m, par, "k1", p->k1);
    setp(m, par, "k2", p->k2);
    setp(m, par, "kc", p->kc);
    setp(m, par, "c1", p->c1);
    setp(m, par, "c2", p->c2);
    setp(m, par, "cc", p->cc);
}

static const struct fd_par fd_cases[] = {
    {1, 1, 10, 1000, 100, 0, 0, 0},   /* defaults */
    {1, 1, 10, 1000, 100, 1, 2, 3},   {2.5, 0.3, 1e4, 1, 1e6, 0, 10, 500},
    {10, 10, 1e6, 1e7, 2e5, 1, 2, 500}, {1, 1, 0, 0, 1, 0, 0, 0},
};

Test(twomass_fd, defaults_and_initial_state)
{
    const cosa_model *m = model("twomass-fd");
    double par[32], x0[4];
    cosa_model_defaults(m, par);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect(x0[0] == 0 && x0[1] == 100 && x0[2] == 0 && x0[3] == -100);
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_expect_eq(cosa_system_nsub(sys), 2);
    size_t nx, nu, ny;
    cosa_system_sub_dims(sys, 0, &nx, &nu, &ny, NULL, NULL, NULL);
    cr_expect(nx == 2 && nu == 2 && ny == 1, "I: x = [x1, v1], u = [x2, v2], y = [f]");
    cosa_system_sub_dims(sys, 1, &nx, &nu, &ny, NULL, NULL, NULL);
    cr_expect(nx == 2 && nu == 1 && ny == 2, "II: x = [x2, v2], u = [f], y = [x2, v2]");
    /* D of subsystem I = [-kc, -cc] (feedthrough of x2, v2 into f) */
    const double *D = cosa_system_D(sys);
    cr_expect(D[0 + 0 * 3] == -100 && D[0 + 1 * 3] == -0.0);
    cosa_system_free(sys);
}

/* Newton's law for both masses: M q'' = -K q - Cd q'. */
Test(twomass_fd, reference_equals_equations_of_motion)
{
    const cosa_model *m = model("twomass-fd");
    for (size_t c = 0; c < sizeof fd_cases / sizeof *fd_cases; c++) {
        const struct fd_par *p = &fd_cases[c];
        double par[32];
        fd_params(m, par, p);
        cosa_system *sys;
        cr_assert_eq(m->create(m, par, &sys), COSA_OK);
        double *As = reference(sys);
        double mass[2] = {p->m1, p->m2};
        double K[4] = {p->k1 + p->kc, -p->kc, -p->kc, p->k2 + p->kc};
        double Cd[4] = {p->c1 + p->cc, -p->cc, -p->cc, p->c2 + p->cc};
        double Ae[16];
        second_order(2, mass, K, Cd, Ae);
        /* each entry: at most 2 roundings in either route, and the solve with
         * the unit-triangular I - D L is exact: a few ulps of the row */
        expect_rows_close(4, As, Ae, 8 * DBL_EPSILON, "twomass-fd");
        free(As);
        cosa_system_free(sys);
    }
}

/* Roots of the characteristic polynomial of twomass-fd,
 *   p(s) = P1(s) P2(s) - Q(s)^2,  P_i = m_i s^2 + (c_i + cc) s + (k_i + kc),
 *   Q = cc s + kc,
 * in long double.  Undamped: s = +-i w with w^2 the eigenvalues of M^-1 K,
 *   w^2 = (a + b)/2 -+ sqrt(((a - b)/2)^2 + kc^2/(m1 m2)),
 *   a = (k1 + kc)/m1, b = (k2 + kc)/m2
 * (the smaller root through the product w_lo^2 w_hi^2 = det(M^-1 K), free
 * of cancellation).  Damped: Durand-Kerner (Weierstrass) iteration on the
 * monic quartic, all four roots at once, independent of LAPACK. */
static void fd_roots(const struct fd_par *p, long double complex *r)
{
    long double m1 = p->m1, m2 = p->m2, a1 = p->c1 + p->cc, a2 = p->c2 + p->cc;
    long double b1 = p->k1 + p->kc, b2 = p->k2 + p->kc, cc = p->cc, kc = p->kc;
    if (p->c1 == 0 && p->c2 == 0 && p->cc == 0) {
        long double a = b1 / m1, b = b2 / m2;
        long double w2hi = 0.5L * (a + b) + sqrtl(0.25L * (a - b) * (a - b) + kc * kc / (m1 * m2));
        long double w2lo = (a * b - kc * kc / (m1 * m2)) / w2hi;
        long double wlo = sqrtl(fmaxl(w2lo, 0.0L)), whi = sqrtl(w2hi);
        r[0] = CMPLXL(0, wlo), r[1] = CMPLXL(0, -wlo), r[2] = CMPLXL(0, whi), r[3] = CMPLXL(0, -whi);
        return;
    }
    long double c[4] = {(b1 * b2 - kc * kc) / (m1 * m2), (a1 * b2 + b1 * a2 - 2 * cc * kc) / (m1 * m2),
                        (m1 * b2 + a1 * a2 + b1 * m2 - cc * cc) / (m1 * m2), (m1 * a2 + a1 * m2) / (m1 * m2)};
    long double R = 0; /* Fujiwara's bound on |roots| */
    for (int k = 0; k < 4; k++)
        R = fmaxl(R, 2 * powl(fabsl(c[k]), 1.0L / (4 - k)));
    for (int k = 0; k < 4; k++)
        r[k] = R * cpowl(CMPLXL(0.4L, 0.9L), k);
    for (int it = 0; it < 2000; it++) {
        long double change = 0;
        for (int k = 0; k < 4; k++) {
            long double complex z = r[k], pz = (((z + c[3]) * z + c[2]) * z + c[1]) * z + c[0], d = 1;
            for (int j = 0; j < 4; j++)
                if (j != k)
                    d *= z - r[j];
            r[k] = z - pz / d;
            change = fmaxl(change, cabsl(r[k] - z) / fmaxl(cabsl(r[k]), LDBL_MIN));
        }
        if (change < 4 * LDBL_EPSILON)
            break;
    }
}

/* Eigenvalues of A* for twomass-fd against the roots above (each computed
 * eigenvalue paired with the nearest unused root), with a bound from
 * first-order perturbation theory.  dgeev (balancing, Hessenberg QR)
 * returns the exact eigenvalues of A~ + E, A~ = D^-1 A* D its balanced form,
 * ||E||_F <= c n u ||A~||_F (u = DBL_EPSILON / 2, n = 4; E also holds the
 * rounding of A*'s entries against the exact parameters), so
 *  - a simple eigenvalue lambda moves by at most ~ kappa(lambda) ||E||,
 *    kappa = ||D^-1 x|| ||D y|| / |y^T x| (Wilkinson's condition number in
 *    the balanced basis), with x the right eigenvector
 *    [phi1, s phi1, phi2, s phi2], phi in the null space of
 *    Q(s) = M s^2 + Cd s + K (state order [x1, v1, x2, v2]), and y the left
 *    one: velocity part M phi, position part (s M + Cd) phi, so that
 *    y^T x = phi^T (2 s M + Cd) phi;
 *  - the double eigenvalue 0 of the free-free undamped case (k1 = k2 = 0:
 *    rigid-body mode x = [1, 0, 1, 0] and its Jordan partner
 *    x2 = [0, 1, 0, 1], left vector y = [0, m1, 0, m2] with y^T x = 0) is a
 *    2 x 2 Jordan block: it splits into +-sqrt(y^T E x / y^T x2), i.e. by
 *    up to (||D^-1 x|| ||D y|| ||E|| / |y^T x2|)^(1/2) ~ sqrt(u ||A||) in any
 *    direction -- Re = +-6e-9 is rounding there, and "Re < 0" or a bound
 *    of 1e-12 sits on one BLAS kernel's last bits (SkylakeX gives 5.8e-9).
 * Checked: |lambda~ - lambda| <= K n u kappa ||A~||_F (simple) and
 * |lambda~ - lambda|^2 <= K n u ||D^-1 x|| ||D y|| ||A~||_F / |y^T x2|
 * (double), K = 30 (LAPACK's threshold for its scaled ratios).  Measured
 * ratios <= 1.3 (simple, kappa <= 11) and <= 0.022 (double) over OpenBLAS
 * Prescott/Haswell/Zen/SkylakeX and the reference BLAS/LAPACK.  A wrong
 * sign of a real part (an unstable pole for a stable system) is off by
 * 2 |Re lambda|, 1e9 times the bound at least. */
Test(twomass_fd, eigenvalues_match_closed_form)
{
    const cosa_model *m = model("twomass-fd");
    cosa_eig_workspace *w = cosa_eig_workspace_alloc(4);
    cr_assert_not_null(w);
    const double K = 30.0, n = 4.0, u = DBL_EPSILON / 2;
    double worst = 0.0, worst2 = 0.0;
    for (size_t c = 0; c < sizeof fd_cases / sizeof *fd_cases; c++) {
        const struct fd_par *p = &fd_cases[c];
        double par[32];
        fd_params(m, par, p);
        cosa_system *sys;
        cr_assert_eq(m->create(m, par, &sys), COSA_OK);
        double *As = reference(sys), Ac[16], d[4], wr[4], wi[4];
        memcpy(Ac, As, sizeof Ac);
        cr_assert_eq(cosa_eigenvalues(4, Ac, 4, wr, wi, w), COSA_OK);
        tu_balance(4, As, 4, d);
        double anorm = 0.0; /* ||D^-1 A* D||_F */
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++)
                anorm += pow(As[i + 4 * j] * d[j] / d[i], 2);
        anorm = sqrt(anorm);
        long double complex r[4];
        fd_roots(p, r);
        int used[4] = {0};
        const int freefree = p->k1 == 0 && p->k2 == 0 && p->c1 == 0 && p->c2 == 0 && p->cc == 0;
        for (int k = 0; k < 4; k++) {
            long double complex z = CMPLXL(wr[k], wi[k]);
            int best = -1;
            for (int j = 0; j < 4; j++)
                if (!used[j] && (best < 0 || cabsl(z - r[j]) < cabsl(z - r[best])))
                    best = j;
            used[best] = 1;
            long double complex s = r[best];
            double err = (double)cabsl(z - s);
            if (freefree && s == 0) {
                /* Jordan block at 0: x = [1,0,1,0], x2 = [0,1,0,1], y = [0,m1,0,m2] */
                double nx = hypot(1 / d[0], 1 / d[2]), ny = hypot(p->m1 * d[1], p->m2 * d[3]);
                double ratio = err * err * (p->m1 + p->m2) / (n * u * nx * ny * anorm);
                cr_expect_leq(ratio, K, "case %zu: %g%+gi vs double root 0: ratio %.3g", c,
                              wr[k], wi[k], ratio);
                worst2 = fmax(worst2, ratio);
                continue;
            }
            /* phi: null vector of Q(s) = [[q11, -q], [-q, q22]] */
            long double complex q11 = (p->m1 * s + p->c1 + p->cc) * s + p->k1 + p->kc;
            long double complex q22 = (p->m2 * s + p->c2 + p->cc) * s + p->k2 + p->kc;
            long double complex q = p->cc * s + p->kc, f1, f2;
            if (cabsl(q11) + cabsl(q) >= cabsl(q22) + cabsl(q))
                f1 = q, f2 = q11; /* row 1: q11 f1 - q f2 = 0 */
            else
                f1 = q22, f2 = q; /* row 2: -q f1 + q22 f2 = 0 */
            long double complex x[4] = {f1, s * f1, f2, s * f2};
            long double complex y[4] = {(p->m1 * s + p->c1 + p->cc) * f1 - p->cc * f2,
                                        p->m1 * f1,
                                        (p->m2 * s + p->c2 + p->cc) * f2 - p->cc * f1,
                                        p->m2 * f2};
            long double complex ytx = 0;
            long double nx = 0, ny = 0;
            for (int i = 0; i < 4; i++) {
                ytx += y[i] * x[i];
                nx += powl(cabsl(x[i]) / d[i], 2);
                ny += powl(cabsl(y[i]) * d[i], 2);
            }
            double kappa = (double)(sqrtl(nx * ny) / cabsl(ytx));
            double ratio = err / (n * u * kappa * anorm);
            cr_expect_leq(ratio, K, "case %zu: %.17g%+.17gi vs %.17Lg%+.17Lgi: ratio %.3g (kappa %.3g)",
                          c, wr[k], wi[k], creall(s), cimagl(s), ratio, kappa);
            worst = fmax(worst, ratio);
        }
        free(As);
        cosa_system_free(sys);
    }
    cr_log_info("twomass-fd eigenvalues: worst ratio %.3g (simple), %.3g (double root)", worst,
                worst2);
    cosa_eig_workspace_free(w);
}

/* ---- rotational ------------------------------------------------------------ */

Test(rotational, defaults_and_initial_state)
{
    const cosa_model *m = model("rotational");
    cr_expect_eq(m->tend, 1.0);
    double par[32], x0[4];
    cosa_model_defaults(m, par);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect(x0[0] == 0.1 && x0[1] == 0.1 && x0[2] == 0.2 && x0[3] == 0.1);
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    size_t nx, nu, ny;
    cosa_system_sub_dims(sys, 0, &nx, &nu, &ny, NULL, NULL, NULL);
    cr_expect(nx == 2 && nu == 1 && ny == 2, "A: u = [tau], y = [phi1, omega1]");
    cosa_system_sub_dims(sys, 1, &nx, &nu, &ny, NULL, NULL, NULL);
    cr_expect(nx == 2 && nu == 2 && ny == 1, "B: u = [phi1, omega1], y = [tau]");
    cr_expect_str_eq(m->input_name(m, par, 0), "A.tau");
    cosa_system_free(sys);
}

Test(rotational, reference_equals_equations_of_motion)
{
    const cosa_model *m = model("rotational");
    static const double cases[][8] = {
        /* J1, c1, d1, J2, c2, d2, ck, dk */
        {10, 1, 1, 10, 1, 2, 1, 2}, {0.5, 0, 0, 3, 7, 0.1, 1e4, 0}, {1, 1e3, 1, 2, 1, 1e-3, 5, 50},
    };
    static const char *const names[8] = {"J1", "c1", "d1", "J2", "c2", "d2", "ck", "dk"};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const double *q = cases[c];
        double par[32];
        cosa_model_defaults(m, par);
        for (int k = 0; k < 8; k++)
            setp(m, par, names[k], q[k]);
        cosa_system *sys;
        cr_assert_eq(m->create(m, par, &sys), COSA_OK);
        double *As = reference(sys);
        /* J1 w1' = -c1 p1 - d1 w1 - tau, J2 w2' = -c2 p2 - d2 w2 + tau,
         * tau = ck (p1 - p2) + dk (w1 - w2) */
        double J[2] = {q[0], q[3]};
        double K[4] = {q[1] + q[6], -q[6], -q[6], q[4] + q[6]};
        double Cd[4] = {q[2] + q[7], -q[7], -q[7], q[5] + q[7]};
        double Ae[16];
        second_order(2, J, K, Cd, Ae);
        expect_rows_close(4, As, Ae, 8 * DBL_EPSILON, "rotational");
        free(As);
        cosa_system_free(sys);
    }
}

/* ---- chain ------------------------------------------------------------------ */

/* Monolithic chain: K_ii = c (1 + [i < n]), K_i,i+1 = K_i+1,i = -c; same for d. */
static void chain_monolithic(size_t n, double m, double c, double d, double *A)
{
    double *mass = malloc(n * sizeof *mass), *K = calloc(n * n, sizeof *K),
           *Cd = calloc(n * n, sizeof *Cd);
    for (size_t i = 0; i < n; i++) {
        mass[i] = m;
        K[i + i * n] = c * (1.0 + (i + 1 < n));
        Cd[i + i * n] = d * (1.0 + (i + 1 < n));
        if (i + 1 < n) {
            K[i + (i + 1) * n] = K[i + 1 + i * n] = -c;
            Cd[i + (i + 1) * n] = Cd[i + 1 + i * n] = -d;
        }
    }
    second_order(n, mass, K, Cd, A);
    free(mass);
    free(K);
    free(Cd);
}

static cosa_system *chain_sys(double n, double r, double m, double c, double d)
{
    const cosa_model *M = model("chain");
    double par[32];
    cosa_model_defaults(M, par);
    setp(M, par, "n", n);
    setp(M, par, "r", r);
    setp(M, par, "m", m);
    setp(M, par, "c", c);
    setp(M, par, "d", d);
    cosa_system *sys;
    cr_assert_eq(M->create(M, par, &sys), COSA_OK, "chain n %g r %g", n, r);
    return sys;
}

Test(chain, defaults_layout_and_initial_state)
{
    const cosa_model *m = model("chain");
    double par[32], x0[12];
    cosa_model_defaults(m, par);
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_expect_eq(cosa_system_nsub(sys), 3);
    cr_expect_eq(cosa_system_nx(sys), 12);
    /* groups of 2 masses: u = [F (right), s_a, v_a (left)] */
    size_t nu[3], ny[3];
    for (size_t g = 0; g < 3; g++)
        cosa_system_sub_dims(sys, g, NULL, &nu[g], &ny[g], NULL, NULL, NULL);
    cr_expect(nu[0] == 1 && ny[0] == 2 && nu[1] == 3 && ny[1] == 3 && nu[2] == 2 && ny[2] == 1);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    for (size_t i = 0; i < 12; i++)
        cr_expect_eq(x0[i], i == 1 ? 1.0 : 0.0, "x0[%zu]", i);
    static const char *const in[] = {"F2", "F4", "s2", "v2", "s4", "v4"};
    static const char *const out[] = {"s2", "v2", "s4", "v4", "F2", "F4"};
    for (size_t k = 0; k < 6; k++) {
        cr_expect_str_eq(m->input_name(m, par, k), in[k]);
        cr_expect_str_eq(m->output_name(m, par, k), out[k]);
    }
    cr_expect_str_eq(m->state_name(m, par, 11), "v6");
    cr_expect_str_eq(m->sub_name(m, par, 2), "g3");
    cosa_system_free(sys);
}

Test(chain, uneven_groups)
{
    /* n = 7, r = 3: groups of 3, 2, 2 masses */
    cosa_system *sys = chain_sys(7, 3, 1, 1e4, 10);
    size_t nx[3];
    for (size_t g = 0; g < 3; g++)
        cosa_system_sub_dims(sys, g, &nx[g], NULL, NULL, NULL, NULL, NULL);
    cr_expect(nx[0] == 6 && nx[1] == 4 && nx[2] == 4);
    cosa_system_free(sys);
}

Test(chain, reference_equals_equations_of_motion)
{
    static const double cases[][5] = {
        /* n, r, m, c, d */
        {6, 3, 1, 1e4, 10}, {7, 3, 2, 5, 0.1}, {5, 5, 1, 1, 1}, {6, 1, 3, 1e6, 0},
        {10, 4, 0.1, 1e2, 1e3}, {1, 1, 1, 4, 1}, {2, 1, 1, 4, 1}, {300, 7, 1, 1e4, 10},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const double *q = cases[c];
        size_t n = (size_t)q[0], nx = 2 * n;
        cosa_system *sys = chain_sys(q[0], q[1], q[2], q[3], q[4]);
        double *As = reference(sys), *Ae = malloc(nx * nx * sizeof *Ae);
        chain_monolithic(n, q[2], q[3], q[4], Ae);
        char what[64];
        snprintf(what, sizeof what, "chain n %g r %g", q[0], q[1]);
        /* interface rows: c/m s_a through L and (I - D L)^-1 (unit
         * triangular, exact); others are copies: a few ulps of the row */
        expect_rows_close(nx, As, Ae, 8 * DBL_EPSILON, what);
        free(As);
        free(Ae);
        cosa_system_free(sys);
    }
}

/* n = r = 2 is eq 27 with m1 = m2 = m, c1 = ck = c, d1 = dk = d, c2 = d2 = 0:
 * the same arithmetic, so bit-identical matrices. */
Test(chain, two_masses_are_eq27)
{
    const cosa_model *tm = model("twomass");
    static const double cases[][3] = {{1, 1e4, 10}, {10, 2e5, 5e2}, {0.3, 7, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double m = cases[c][0], k = cases[c][1], d = cases[c][2];
        cosa_system *sc = chain_sys(2, 2, m, k, d);
        double par[32];
        cosa_model_defaults(tm, par);
        setp(tm, par, "m1", m);
        setp(tm, par, "m2", m);
        setp(tm, par, "c1", k);
        setp(tm, par, "ck", k);
        setp(tm, par, "d1", d);
        setp(tm, par, "dk", d);
        setp(tm, par, "c2", 0);
        setp(tm, par, "d2", 0);
        cosa_system *st;
        cr_assert_eq(tm->create(tm, par, &st), COSA_OK);
        cr_expect(same_bits(cosa_system_A(sc), cosa_system_A(st), 16), "A, case %zu", c);
        cr_expect(same_bits(cosa_system_B(sc), cosa_system_B(st), 12), "B, case %zu", c);
        cr_expect(same_bits(cosa_system_C(sc), cosa_system_C(st), 12), "C, case %zu", c);
        cr_expect(same_bits(cosa_system_D(sc), cosa_system_D(st), 9), "D, case %zu", c);
        cr_expect(same_bits(cosa_system_L(sc), cosa_system_L(st), 9), "L, case %zu", c);
        double *A1 = reference(sc), *A2 = reference(st);
        cr_expect(same_bits(A1, A2, 16), "A*, case %zu", c);
        free(A1);
        free(A2);
        cosa_system_free(sc);
        cosa_system_free(st);
    }
}

/* The split does not change the physics: A* for every r equals r = 1. */
Test(chain, reference_independent_of_split)
{
    size_t n = 9;
    cosa_system *s1 = chain_sys((double)n, 1, 1.5, 3e3, 2);
    double *A1 = reference(s1);
    for (size_t r = 2; r <= n; r++) {
        cosa_system *sr = chain_sys((double)n, (double)r, 1.5, 3e3, 2);
        double *Ar = reference(sr);
        char what[32];
        snprintf(what, sizeof what, "r = %zu vs r = 1", r);
        expect_rows_close(2 * n, Ar, A1, 8 * DBL_EPSILON, what);
        free(Ar);
        cosa_system_free(sr);
    }
    free(A1);
    cosa_system_free(s1);
}

Test(chain, update_keeps_structure)
{
    const cosa_model *m = model("chain");
    double par[32];
    cosa_model_defaults(m, par);
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    setp(m, par, "n", 7);
    cr_expect_eq(m->update(m, par, sys), COSA_EINVAL, "n fixes the structure");
    setp(m, par, "n", 6);
    setp(m, par, "r", 2);
    cr_expect_eq(m->update(m, par, sys), COSA_EINVAL, "r fixes the structure");
    cosa_system_free(sys);
}

Test(chain, names_beyond_999_are_null)
{
    const cosa_model *m = model("chain");
    double par[32];
    cosa_model_defaults(m, par);
    setp(m, par, "n", 1200);
    setp(m, par, "r", 2);
    cr_expect_str_eq(m->state_name(m, par, 2 * 999 - 1), "v999");
    cr_expect_null(m->state_name(m, par, 2 * 999));
    cr_expect_str_eq(m->input_name(m, par, 0), "F600");
}

Test(chain, hundreds_of_masses_are_cheap)
{
    /* n = 600 masses (nx = 1200) in 10 groups: create + update are O(n^2/r)
     * plus the stacked copy; this must not time out. */
    const cosa_model *m = model("chain");
    double par[32];
    cosa_model_defaults(m, par);
    setp(m, par, "n", 600);
    setp(m, par, "r", 10);
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    setp(m, par, "c", 2e4);
    cr_assert_eq(m->update(m, par, sys), COSA_OK);
    cr_expect_eq(cosa_system_nx(sys), 1200);
    cosa_system_free(sys);
}

/* The declared ranges (cosa_range) agree with what create() accepts, which
 * the model code checks on its own: probes at, just inside and outside every
 * bound of every built-in parameter, and off-integer values. */
Test(models, declared_ranges_agree_with_create)
{
    for (size_t i = 0; i < cosa_model_count(); i++) {
        const cosa_model *m = cosa_model_at(i);
        double def[64];
        cosa_model_defaults(m, def);
        for (size_t k = 0; k < m->nparam; k++) {
            const cosa_range *r = &m->params[k].range;
            if (!r->flags)
                continue;
            double lo = r->lo, hi = r->hi;
            if (r->lo_param)
                lo = def[cosa_model_param_index(m, r->lo_param)];
            if (r->hi_param)
                hi = def[cosa_model_param_index(m, r->hi_param)];
            double probes[8];
            size_t np = 0;
            if (r->flags & (COSA_RANGE_GT | COSA_RANGE_GE)) {
                probes[np++] = lo;
                probes[np++] = lo - 1.0;
                /* inside: not nextafter(lo): create() also refuses values whose
                 * reciprocal overflows (m = 5e-324), which no range can say */
                probes[np++] = (r->flags & COSA_RANGE_INT) ? lo + 1.0 : lo + 0.5;
            }
            if ((r->flags & (COSA_RANGE_LT | COSA_RANGE_LE)) && hi <= 64) { /* no huge chains */
                probes[np++] = hi;
                probes[np++] = hi + 1.0;
            }
            if (r->flags & COSA_RANGE_INT)
                probes[np++] = def[k] + 0.5;
            int probed = 0;
            for (size_t j = 0; j < np; j++) {
                double par[64];
                memcpy(par, def, sizeof par);
                par[k] = probes[j];
                char msg[256];
                const int declared = cosa_model_check(m, par, NULL, msg, sizeof msg) == COSA_OK;
                cosa_status st;
                if (m->create) {
                    cosa_system *sys = NULL;
                    st = m->create(m, par, &sys);
                    cosa_system_free(sys);
                } else {
                    cosa_odesys *os = NULL;
                    st = m->create_ode(m, par, &os);
                    cosa_odesys_free(os);
                }
                cr_expect_eq(declared, st == COSA_OK, "%s %s = %.17g: declared range says %s "
                             "(%s), create says %s", m->name, m->params[k].name, par[k],
                             declared ? "valid" : "invalid", msg, cosa_strerror(st));
                if (!declared)
                    cr_expect_not_null(strstr(msg, m->params[k].name), "message names it: %s",
                                       msg);
                probed++;
            }
            cr_expect_gt(probed, 0);
        }
    }
}

/* The messages name the parameter and the rule, with the values of the
 * parameters a bound refers to. */
Test(models, range_messages)
{
    static const struct { const char *m, *p; double v; const char *msg; } cases[] = {
        {"twomass", "m1", 0, "m1 must be > 0"},
        {"chain", "r", 7, "r must be an integer in 1..n (n = 6)"},
        {"chain", "n", 2.5, "n must be an integer in 1..1e5"},
        {"twomass-nl", "dkmax", 1, "dkmax must be >= dkmin (dkmin = 10)"},
        {"twomass-nl", "nd", -0.5, "nd must be > 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cosa_model *m = model(cases[i].m);
        double par[64];
        char msg[256];
        cosa_model_defaults(m, par);
        setp(m, par, cases[i].p, cases[i].v);
        size_t k;
        cr_expect_eq(cosa_model_check(m, par, &k, msg, sizeof msg), COSA_EPARAM);
        cr_expect_str_eq(msg, cases[i].msg);
        cr_expect_str_eq(m->params[k].name, cases[i].p);
    }
    char buf[64];
    const cosa_model *c = model("chain");
    cosa_param_range_text(c, (size_t)cosa_model_param_index(c, "r"), buf, sizeof buf);
    cr_expect_str_eq(buf, "integer, >= 1, <= n");
    cosa_param_range_text(c, (size_t)cosa_model_param_index(c, "c"), buf, sizeof buf);
    cr_expect_str_eq(buf, "");
    cr_expect_eq(cosa_param_check(c, 0, NULL, NAN, buf, sizeof buf), COSA_ENONFINITE);
}

/* The crane (energy paper section 4.4) starts in static equilibrium: with
 * the hydraulic force of its initial pressures the manipulator's
 * accelerations vanish and so do the pressure rates at s1' = 0 (relative to
 * the gravity term and to the rates' scale beta/l * flow); and the pressures
 * are the benchmark document's 3.1708 and 4.5292 MPa (its 5 digits), the
 * force its 8.829 kN. */
Test(models, crane_static_equilibrium)
{
    const cosa_model *m = model("crane");
    double par[32], x0[6];
    cosa_model_defaults(m, par);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect_leq(fabs(x0[4] - 3.1708e6), 50.0, "p1 = %.8g", x0[4]);
    cr_expect_leq(fabs(x0[5] - 4.5292e6), 50.0, "p2 = %.8g", x0[5]);
    cosa_odesys *os = NULL;
    cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
    const cosa_ode *M = cosa_odesys_sub(os, 0), *H = cosa_odesys_sub(os, 1);
    double yM[2], yH[1], fMv[4], fHv[2];
    cr_assert_eq(M->g(0.0, x0, NULL, yM, M->user_data), 0);
    cr_assert_eq(H->g(0.0, x0 + 4, yM, yH, H->user_data), 0);
    cr_expect_leq(fabs(yM[0] - 0.5), 1e-15, "s1 = %.17g", yM[0]);
    cr_expect_leq(fabs(yH[0] - 8829.0), 0.5, "fh = %.8g", yH[0]);
    cr_assert_eq(M->f(0.0, x0, yH, fMv, M->user_data), 0);
    cr_assert_eq(H->f(0.0, x0 + 4, yM, fHv, H->user_data), 0);
    cr_expect_leq(fabs(fMv[2]) + fabs(fMv[3]), 1e-9 * 20.0, "accelerations %g %g", fMv[2], fMv[3]);
    cr_expect_leq(fabs(fHv[0]) + fabs(fHv[1]), 1e-6 * 1e9, "pressure rates %g %g", fHv[0], fHv[1]);
    cosa_odesys_free(os);
}

/* At other pump pressures the crane's start is an equilibrium too, or the
 * model says it found none: never a start far from rest. */
Test(models, crane_equilibrium_other_pumps)
{
    const cosa_model *m = model("crane");
    const double pumps[3] = {3e6, 5e6, 12e6};
    for (int k = 0; k < 3; k++) {
        double par[32], x0[6];
        cosa_model_defaults(m, par);
        cr_assert_eq(cosa_model_set(m, par, "pP", pumps[k]), COSA_OK);
        if (m->initial_state(m, par, x0) != COSA_OK)
            continue;
        cosa_odesys *os = NULL;
        cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
        const cosa_ode *M = cosa_odesys_sub(os, 0), *H = cosa_odesys_sub(os, 1);
        double yM[2], fHv[2];
        cr_assert_eq(M->g(0.0, x0, NULL, yM, M->user_data), 0);
        cr_assert_eq(H->f(0.0, x0 + 4, yM, fHv, H->user_data), 0);
        cr_expect_leq(fabs(fHv[0]) + fabs(fHv[1]), 1e-6 * 1e9, "pP %g: pressure rates %g %g",
                      pumps[k], fHv[0], fHv[1]);
        cr_expect(x0[4] >= 1e5 && x0[4] <= pumps[k] && x0[5] >= 1e5 && x0[5] <= pumps[k],
                  "pP %g: pressures %g %g outside the valves' range", pumps[k], x0[4], x0[5]);
        cosa_odesys_free(os);
    }
}
