/* test_ff_exact.c -- exact units on the linear parameter sets of the
 * force/force models (issue 23 item 6; models/twomass_ff.c, chain_ff.c,
 * lib/td/odesys_linear.c), against independent routes:
 *  - the linear system extracted from the ODE form equals eq 35 written by
 *    hand (twomass-ff) and the chain's monolithic matrix written by hand
 *    (chain-ff);
 *  - a fixed-step explicit run of the variable-order engine with exact units
 *    equals cosa_check_linear_run (lib/check/linear_run.c: a master
 *    algorithm written without the engine and without the Phi assembly) on
 *    the hand-written system, from the same start;
 *  - exact units against CVODE units agree to CVODE's tolerance;
 *  - nonlinear values (cubic terms, contact, impulses) are not declared
 *    linear, and the extraction refuses them. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cosa_model *model(const char *name)
{
    const cosa_model *m = cosa_model_find(name);
    cr_assert_not_null(m, "model %s", name);
    return m;
}

static void set(const cosa_model *m, double *par, const char *name, double v)
{
    cr_assert_eq(cosa_model_set(m, par, name, v), COSA_OK, "--set %s", name);
}

/* twomass-ff at a linear parameter set, with damping everywhere so that no
 * term is trivially zero: Cc = Dc = Acon = 0 */
static void tmff_linear(const cosa_model *m, double *par)
{
    cosa_model_defaults(m, par);
    set(m, par, "Cc", 0.0);
    set(m, par, "Dc", 0.0);
    set(m, par, "Acon", 0.0);
    set(m, par, "d1", 2.0);
    set(m, par, "d2", 0.5);
    set(m, par, "dc", 5.0);
}

/* Eq 35 with Cc = Dc = Acon = 0, by hand: mass i on spring c_i / damper d_i,
 * y = [x_i, v_i], u = [f] on mass i; f^c = cc (x2 - x1) + dc (v2 - v1) acts
 * +f^c on mass 1 and -f^c on mass 2, so L = [-cc -dc cc dc; cc dc -cc -dc]. */
static cosa_system *tmff_by_hand(const cosa_model *m, const double *par)
{
#define P(name) par[cosa_model_param_index(m, name)]
    const double m1 = P("m1"), m2 = P("m2"), c1 = P("c1"), c2 = P("c2"), d1 = P("d1"),
                 d2 = P("d2"), cc = P("cc"), dc = P("dc");
#undef P
    const double A1[4] = {0.0, -c1 / m1, 1.0, -d1 / m1}, B1[2] = {0.0, 1.0 / m1};
    const double A2[4] = {0.0, -c2 / m2, 1.0, -d2 / m2}, B2[2] = {0.0, 1.0 / m2};
    const double I2[4] = {1.0, 0.0, 0.0, 1.0}, Z[2] = {0.0, 0.0};
    const cosa_subsystem subs[2] = {{2, 1, 2, A1, B1, I2, Z}, {2, 1, 2, A2, B2, I2, Z}};
    const double L[8] = {-cc, cc, -dc, dc, cc, -cc, dc, -dc}; /* 2 x 4, column-major */
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, subs, L), COSA_OK);
    return sys;
}

/* max |a - b| over n entries, relative to max |b| */
static double rel_diff(size_t n, const double *a, const double *b)
{
    double d = 0.0, s = 0.0;
    for (size_t k = 0; k < n; k++) {
        d = fmax(d, fabs(a[k] - b[k]));
        s = fmax(s, fabs(b[k]));
    }
    return d / s;
}

/* ---- a run of the engine on the model's own units ---------------------------- */

struct run {
    cosa_system *sys; /* the reference's system                          */
    double x0[64];
};

static cosa_status ref_exact(void *ctx, size_t n, const double *t, size_t nsel,
                             const size_t *sel, double *X)
{
    (void)nsel;
    cr_assert_null(sel, "small systems: every state is kept");
    const struct run *r = ctx;
    return tu_exact_states(r->sys, r->x0, n, t, X);
}

/* A fixed-step explicit run (degree k, step H, horizon tend) of the ODE
 * system os with exact units (from its extracted linear system lin) or
 * CVODE units at rtol; the reference from refsys. */
static cosa_vo_result *vo_run(const cosa_odesys *os, const cosa_system *lin, const char *integ,
                              double rtol, cosa_system *refsys, const double *x0, int k,
                              double H, double tend)
{
    const size_t nsub = cosa_odesys_nsub(os), nx = cosa_odesys_nx(os);
    cosa_unit *u[16] = {0};
    unsigned char is_vel[64];
    cr_assert(nsub <= 16 && nx <= 64);
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse(integ, &in), COSA_OK);
    in.rtol = rtol;
    in.atol = rtol * 1e-3;
    size_t ox = 0;
    for (size_t i = 0; i < nsub; i++) {
        const cosa_ode *sub = cosa_odesys_sub(os, i);
        for (size_t j = 0; j < sub->nx; j++)
            is_vel[ox + j] = sub->kick[j];
        ox += sub->nx;
        cr_assert_eq(in.kind == COSA_INTEGRATOR_EXACT ? cosa_unit_linear_from_system(lin, i, &u[i])
                                                      : cosa_unit_ode_create(sub, &in, &u[i]),
                     COSA_OK);
    }
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(nsub, u, cosa_odesys_L(os), NULL, &set), COSA_OK);
    if (cosa_odesys_coupling(os))
        cr_assert_eq(cosa_unitset_set_coupling(set, cosa_odesys_coupling(os)), COSA_OK);
    const cosa_vo_opts o = tu_vo_opts(is_vel, COSA_VO_EXPLICIT, k, 0, H, tend);
    struct run r = {.sys = refsys};
    memcpy(r.x0, x0, nx * sizeof *x0);
    cosa_vo_result *res = NULL;
    cr_assert_eq(cosa_vo_run(set, ref_exact, &r, &o, &res), COSA_OK);
    cr_assert_eq(res->status, COSA_VO_OK, "%s", res->reason);
    cosa_unitset_free(set);
    for (size_t i = 0; i < nsub; i++)
        cosa_unit_free(u[i]);
    return res;
}

/* ---- twomass-ff ------------------------------------------------------------------ */

/* The extracted system is eq 35 by hand: the same products of the same
 * parameters (1/m, c/m, d/m; L = S dphi/dy has entries +-cc, +-dc exactly),
 * so equal to a rounding of each entry: 2 ulps of the largest. */
Test(ff_exact, twomass_ff_linear_system_is_eq35)
{
    const cosa_model *m = model("twomass-ff");
    double par[64];
    tmff_linear(m, par);
    cosa_odesys *os = NULL;
    cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
    cr_assert(cosa_odesys_is_linear(os), "Cc = Dc = Acon = 0 is linear");
    cosa_system *lin = NULL, *hand = tmff_by_hand(m, par);
    cr_assert_eq(cosa_odesys_linear_system(os, &lin), COSA_OK);
    double Al[16], Ah[16], Cl[16], Ch[16];
    cr_assert_eq(cosa_system_monolithic(lin, Al, Cl), COSA_OK);
    cr_assert_eq(cosa_system_monolithic(hand, Ah, Ch), COSA_OK);
    const double dA = rel_diff(16, Al, Ah), dC = rel_diff(16, Cl, Ch);
    cr_expect(dA <= 2 * DBL_EPSILON, "A*: %.3g", dA);
    cr_expect(dC <= 2 * DBL_EPSILON, "C*: %.3g", dC);
    cosa_system_free(lin);
    cosa_system_free(hand);
    cosa_odesys_free(os);
}

/* Exact units at a fixed step vs cosa_check_linear_run on eq 35 by hand,
 * for k = 0..3, from the same start (the engine's: x(t_s) and the history
 * ybar(t_s - j H) = C* x(t_s - j H) of the exact solution, t_s = (k+1) H).
 * The two masters take the same steps in other arithmetic (the engine
 * extrapolates u = phi(y) on the nodes, linear_run L ybar with the e_j
 * weights; different exponentials of the same blocks): each step adds
 * rounding of a few ulps of the state scale through ~dim = 4 + 4 (k+1) <= 20
 * terms, and N = 100 stable steps (rho(Phi) <= 1) add them up:
 * 20 * 100 * eps = 4.4e-13; 1e-11 leaves a factor 20 for the exponentials'
 * own accuracy (~1e-14 each, cosa_expm), and is far below the scheme's
 * error (checked: > 1e-8). */
Test(ff_exact, twomass_ff_exact_units_equal_linear_run)
{
    const cosa_model *m = model("twomass-ff");
    double par[64], x0[4];
    tmff_linear(m, par);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cosa_odesys *os = NULL;
    cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
    cosa_system *lin = NULL, *hand = tmff_by_hand(m, par);
    cr_assert_eq(cosa_odesys_linear_system(os, &lin), COSA_OK);
    const double H = 1e-4, tend = 0.01;
    const size_t N = 100;
    for (int k = 0; k <= 3; k++) {
        cosa_vo_result *r = vo_run(os, lin, "exact", 0.0, hand, x0, k, H, tend);
        cr_assert_eq(r->steps, N);
        /* z0 at t_s = (k+1) H: [x | ybar_0 | ybar_{-1} | ... | ybar_{-k}] */
        const size_t dim = 4 + 4 * (size_t)(k + 1);
        double t[8], z0[32], *traj = calloc((N + 1) * dim, sizeof *traj);
        cr_assert_not_null(traj);
        for (int j = 0; j <= k + 1; j++)
            t[j] = j * H;
        cosa_reftraj *ref = NULL;
        cr_assert_eq(cosa_reftraj_exact_at(hand, x0, (size_t)k + 2, t, &ref), COSA_OK);
        memcpy(z0, ref->x + 4 * (k + 1), 4 * sizeof *z0);
        for (int j = 0; j <= k; j++) /* y = x for both units (C = I) */
            memcpy(z0 + 4 + 4 * j, ref->y + 4 * (k + 1 - j), 4 * sizeof *z0);
        cosa_reftraj_free(ref);
        char name[8];
        snprintf(name, sizeof name, "p%d", k);
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK);
        cr_assert_eq(cosa_check_linear_run(hand, &s, H, z0, N, traj), COSA_OK);
        const double d = tu_vo_end_diff(r, traj + N * dim);
        cr_expect(d < 1e-11, "k = %d: exact units vs linear_run: %.3g", k, d);
        cr_expect(r->e36_all > 1e-8, "k = %d: the scheme's error %.3g must dominate", k,
                  r->e36_all);
        fprintf(stderr, "test_ff_exact: twomass-ff k = %d: exact units vs linear_run %.3g "
                        "(scheme error %.3g)\n", k, d, r->e36_all);
        cosa_vo_result_free(r);
        free(traj);
    }
    cosa_system_free(lin);
    cosa_system_free(hand);
    cosa_odesys_free(os);
}

/* Exact vs CVODE units (BDF at rtol 1e-10, atol 1e-13): CVODE restarts at
 * every macro step and keeps its local error per step below ~rtol of the
 * state; over N = 100 steps these add up, amplified by the coupling's
 * sensitivity (the stable closed loop, |Phi^n| of order 1-10): 100 * 10 *
 * 1e-10 = 1e-7 of the states' scale bounds the difference.  The scheme's
 * error (> 1e-6) must stay above it for the check to mean anything. */
static void exact_vs_cvode(const cosa_model *m, const double *par, int k, double H, double tend)
{
    double x0[64];
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cosa_odesys *os = NULL;
    cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
    cosa_system *lin = NULL;
    cr_assert_eq(cosa_odesys_linear_system(os, &lin), COSA_OK);
    cosa_vo_result *a = vo_run(os, lin, "exact", 0.0, lin, x0, k, H, tend);
    cosa_vo_result *b = vo_run(os, lin, "cvode", 1e-10, lin, x0, k, H, tend);
    cr_assert_eq(a->steps, b->steps);
    const double d = tu_vo_end_diff(a, b->x + b->steps * b->nx);
    cr_expect(d < 1e-7, "%s: exact vs CVODE units: %.3g", m->name, d);
    fprintf(stderr, "test_ff_exact: %s exact vs CVODE units %.3g (scheme error %.3g)\n",
            m->name, d, a->e36_all);
    cr_expect(a->e36_all > 1e-6, "%s: the scheme's error %.3g must dominate", m->name,
              a->e36_all);
    cosa_vo_result_free(a);
    cosa_vo_result_free(b);
    cosa_system_free(lin);
    cosa_odesys_free(os);
}

Test(ff_exact, twomass_ff_exact_units_match_cvode)
{
    const cosa_model *m = model("twomass-ff");
    double par[64];
    tmff_linear(m, par);
    exact_vs_cvode(m, par, 1, 1e-4, 0.01);
}

/* ---- chain-ff ----------------------------------------------------------------------- */

/* chain-ff with Cn = Dn = 0 and neither impulses nor contacts: the
 * extracted system's monolithic A* is the chain's, written by hand with the
 * masses in order (states [x_1, v_1, ..., x_n, v_n]):
 *   m v_i' = -F_i + F_{i+1} [i < n],  F_i = c (x_i - x_{i-1}) + d (v_i - v_{i-1}),
 * x_0 = v_0 = 0.  Each entry is a sum of at most two products c/m, d/m
 * (through B L C for the coupling elements): 4 ulps of the largest. */
Test(ff_exact, chain_ff_linear_system_is_the_chain)
{
    const cosa_model *m = model("chain-ff");
    double par[64];
    cosa_model_defaults(m, par);
    set(m, par, "n", 7);
    set(m, par, "r", 3);
    set(m, par, "d", 3.0);
    cosa_odesys *os = NULL;
    cr_assert_eq(m->create_ode(m, par, &os), COSA_OK);
    cr_assert(cosa_odesys_is_linear(os));
    cosa_system *lin = NULL;
    cr_assert_eq(cosa_odesys_linear_system(os, &lin), COSA_OK);
    enum { n = 7, nx = 2 * n };
    const double c = par[cosa_model_param_index(m, "c")], d = 3.0,
                 mm = par[cosa_model_param_index(m, "m")];
    double Ah[nx * nx] = {0}, Al[nx * nx], Cl[64 * nx];
#define A(i, j) Ah[(i) + (j) * nx]
    for (int i = 0; i < n; i++) {
        const int x = 2 * i, v = x + 1;
        A(x, v) = 1.0;
        /* -F_i: on x_i, v_i and (i > 0) x_{i-1}, v_{i-1} */
        A(v, x) -= c / mm, A(v, v) -= d / mm;
        if (i > 0)
            A(v, x - 2) += c / mm, A(v, v - 2) += d / mm;
        if (i + 1 < n) /* +F_{i+1} */
            A(v, x + 2) += c / mm, A(v, v + 2) += d / mm, A(v, x) -= c / mm, A(v, v) -= d / mm;
    }
#undef A
    cr_assert_eq(cosa_system_nx(lin), (size_t)nx);
    cr_assert_eq(cosa_system_monolithic(lin, Al, Cl), COSA_OK);
    const double dA = rel_diff(nx * nx, Al, Ah);
    cr_expect(dA <= 4 * DBL_EPSILON, "A*: %.3g", dA);
    cosa_system_free(lin);
    cosa_odesys_free(os);
}

Test(ff_exact, chain_ff_exact_units_match_cvode)
{
    const cosa_model *m = model("chain-ff");
    double par[64];
    cosa_model_defaults(m, par);
    set(m, par, "n", 6);
    set(m, par, "r", 3);
    exact_vs_cvode(m, par, 2, 1e-3, 0.1);
}

/* ---- nonlinear values stay nonlinear ------------------------------------------------ */

Test(ff_exact, nonlinear_values_are_not_linear)
{
    const cosa_model *tm = model("twomass-ff"), *cm = model("chain-ff");
    const char *const tnames[] = {"Cc", "Dc", "Acon"};
    for (int j = 0; j < 3; j++) {
        double par[64];
        tmff_linear(tm, par);
        set(tm, par, tnames[j], 1e-3); /* one nonlinear term back */
        cosa_odesys *os = NULL;
        cr_assert_eq(tm->create_ode(tm, par, &os), COSA_OK);
        cr_expect(!cosa_odesys_is_linear(os), "twomass-ff with %s != 0", tnames[j]);
        cosa_system *lin = NULL;
        cr_expect_eq(cosa_odesys_linear_system(os, &lin), COSA_EUNSUPPORTED);
        cr_expect_null(lin);
        cosa_odesys_free(os);
    }
    /* chain-ff: cubic damping; contacts on every mass; impulses on every mass */
    const char *const cset[3][4] = {{"Dn", "1", NULL, NULL},
                                    {"fcon", "1", "Acon", "-1e-2"},
                                    {"fimp", "1", "delta", "1e-4"}};
    for (int j = 0; j < 3; j++) {
        double par[64];
        cosa_model_defaults(cm, par);
        for (int q = 0; q < 4 && cset[j][q]; q += 2)
            set(cm, par, cset[j][q], atof(cset[j][q + 1]));
        if (j == 2) {
            set(cm, par, "dFmax", 1.0);
            set(cm, par, "dFmin", 0.5);
            set(cm, par, "dtimp", 1e-3);
        }
        cosa_odesys *os = NULL;
        cr_assert_eq(cm->create_ode(cm, par, &os), COSA_OK);
        cr_expect(!cosa_odesys_is_linear(os), "chain-ff case %d", j);
        cosa_odesys_free(os);
    }
    /* the defaults of twomass-ff are nonlinear */
    double par[64];
    cosa_model_defaults(tm, par);
    cosa_odesys *os = NULL;
    cr_assert_eq(tm->create_ode(tm, par, &os), COSA_OK);
    cr_expect(!cosa_odesys_is_linear(os));
    cosa_odesys_free(os);
}
