/* test_energy_phi.c -- the Phi route of the energy paper (lib/phi/
 * energy_phi.c): the residual energy by doubling equals the step-by-step
 * sum; Phi_q's structure (history shift, K = 1 held input = the last
 * sample); argument checks.  (Phi route against the time-domain run:
 * tests/test_energy.sh.) */
#include <criterion/criterion.h>

#include "cosa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cosa_system *model_sys(const char *name, double *par, double *x0, double *W,
                              cosa_energy_port *port, size_t *idx)
{
    const cosa_model *m = cosa_model_find(name);
    cr_assert_not_null(m);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    const size_t nx = cosa_system_nx(sys);
    /* E(x) = x' W x by polarization of the model's energy */
    double e[64] = {0}, Ei[64];
    for (size_t i = 0; i < nx; i++) {
        e[i] = 1.0;
        cr_assert_eq(m->energy(m, par, e, &Ei[i]), COSA_OK);
        e[i] = 0.0;
        W[i + i * nx] = Ei[i];
    }
    for (size_t i = 0; i < nx; i++)
        for (size_t j = i + 1; j < nx; j++) {
            double Eij;
            e[i] = e[j] = 1.0;
            cr_assert_eq(m->energy(m, par, e, &Eij), COSA_OK);
            e[i] = e[j] = 0.0;
            W[i + j * nx] = W[j + i * nx] = 0.5 * (Eij - Ei[i] - Ei[j]);
        }
    cr_assert_eq(m->energy_port(m, par, port, idx, 64), COSA_OK);
    return sys;
}

/* The twomass-fd network at its defaults: model_sys's x0, W and port */
struct fd {
    double par[32], x0[64], W[64 * 64];
    size_t idx[64];
    cosa_energy_port port;
};

static cosa_system *twomass_fd(struct fd *f)
{
    memset(f, 0, sizeof *f);
    cosa_model_defaults(cosa_model_find("twomass-fd"), f->par);
    return model_sys("twomass-fd", f->par, f->x0, f->W, &f->port, f->idx);
}

/* Doubling against the direct sum: the same terms summed in another order,
 * so they agree to the sums' rounding, ~N eps times the largest term (E0
 * H omega here); bound 1e-9 E0. */
Test(energy_phi, doubling_equals_direct_sum)
{
    const char *models[2] = {"twomass-fd", "multi-fd"};
    for (int mi = 0; mi < 2; mi++) {
        const cosa_model *m = cosa_model_find(models[mi]);
        double par[32], x0[64], W[64 * 64] = {0};
        size_t idx[64];
        cosa_energy_port port;
        cosa_model_defaults(m, par);
        cosa_system *sys = model_sys(models[mi], par, x0, W, &port, idx);
        const size_t nsub = cosa_system_nsub(sys);
        unsigned rate[8] = {1, 3, 2, 1, 1, 1, 1, 1};
        const size_t Ns[] = {1, 2, 3, 7, 64, 1000, 1023};
        for (int p = 0; p <= 2; p++)
            for (int st0 = 0; st0 < 2; st0++)
                for (size_t k = 0; k < sizeof Ns / sizeof Ns[0]; k++) {
                    cosa_mr_scheme s = {.p = p, .integrator = COSA_MR_EXACT,
                                        .rate = nsub <= 8 ? rate : NULL, .start_initial = st0};
                    cosa_mr_energy a, b;
                    cr_assert_eq(cosa_mr_energy_eval(sys, &s, 1e-3, Ns[k], x0, W, &port, 1, &a),
                                 COSA_OK);
                    cr_assert_eq(cosa_mr_energy_eval(sys, &s, 1e-3, Ns[k], x0, W, &port, 0, &b),
                                 COSA_OK);
                    const double tol = 1e-9 * a.E0;
                    cr_expect_leq(fabs(a.dE_end - b.dE_end), tol, "%s p %d N %zu: dE %.17g %.17g",
                                  models[mi], p, Ns[k], a.dE_end, b.dE_end);
                    cr_expect_leq(fabs(a.E_end - b.E_end), tol, "%s p %d N %zu: E %.17g %.17g",
                                  models[mi], p, Ns[k], a.E_end, b.E_end);
                    cr_expect(a.E0 == b.E0 && a.E_ref_end == b.E_ref_end);
                }
        cosa_system_free(sys);
    }
}

/* Phi_q: the history shifts (identity blocks), and a K = 1 unit's held input
 * is the last sample whatever q: its columns of the older slots are 0. */
Test(energy_phi, structure)
{
    struct fd f;
    cosa_system *sys = twomass_fd(&f);
    const size_t nx = 4, ny = 3, d = cosa_mr_dim(sys, 2);
    cr_assert_eq(d, nx + 3 * ny);
    double *Phi = calloc(d * d, sizeof *Phi);
    cosa_mr_scheme s = {.p = 2, .integrator = COSA_MR_EXACT};
    cr_assert_eq(cosa_mr_phi(sys, &s, 2, 1e-3, Phi, d), COSA_OK);
    for (size_t m = 0; m < 2; m++)
        for (size_t r = 0; r < ny; r++)
            for (size_t c = 0; c < d; c++)
                cr_expect_eq(Phi[nx + (m + 1) * ny + r + c * d],
                             c == nx + m * ny + r ? 1.0 : 0.0);
    for (size_t r = 0; r < nx + ny; r++)
        for (size_t c = nx + ny; c < d; c++)
            cr_expect_eq(Phi[r + c * d], 0.0, "row %zu col %zu", r, c);
    /* a unit with K = 2 and FOH sees the older sample: nonzero columns there */
    unsigned rate[2] = {1, 2};
    s.rate = rate;
    cr_assert_eq(cosa_mr_phi(sys, &s, 1, 1e-3, Phi, d), COSA_OK);
    double older = 0.0;
    for (size_t r = 2; r < nx; r++) /* mass 2's states */
        older += fabs(Phi[r + (nx + ny) * d]);
    cr_expect(older > 0.0);
    /* arguments */
    cr_expect_eq(cosa_mr_phi(sys, &s, 3, 1e-3, Phi, d), COSA_ERANGE);
    cr_expect_eq(cosa_mr_phi(sys, &s, 1, -1e-3, Phi, d), COSA_ERANGE);
    s.integrator = COSA_MR_SYMPLECTIC_EULER; /* needs the kick flags */
    cr_expect_eq(cosa_mr_phi(sys, &s, 1, 1e-3, Phi, d), COSA_EINVAL);
    free(Phi);
    cosa_system_free(sys);
}

/* Held inputs with K = 1 and p = 0 are ZOH: the Phi route with exact unit
 * steps is the Phi engine's ZOH matrix (another construction: Van Loan per
 * unit and Lagrange weights here, the stacked discretisation there), to
 * rounding (1e-12 of the largest entry), also for units with many more
 * outputs than states and inputs (their output rows and scratch). */
static void check_zoh(size_t nsub, const cosa_subsystem *subs, const double *L)
{
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, nsub, subs, L), COSA_OK);
    cosa_scheme zoh = {.order = 0, .corr = COSA_CORR_NONE, .alpha = 1.0, .exec = COSA_JACOBI};
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, &zoh, &lay), COSA_OK);
    const size_t d = cosa_mr_dim(sys, 0);
    cr_assert_eq(lay.dim, d);
    double *P1 = calloc(d * d, sizeof *P1), *P2 = calloc(d * d, sizeof *P2);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 0);
    cr_assert(P1 && P2 && w);
    cosa_mr_scheme s = {.p = 0, .integrator = COSA_MR_EXACT};
    cr_assert_eq(cosa_mr_phi(sys, &s, 0, 0.05, P1, d), COSA_OK);
    cr_assert_eq(cosa_phi_build(sys, &zoh, 0.05, P2, d, w), COSA_OK);
    double dm = 0.0, sc = 0.0;
    for (size_t k = 0; k < d * d; k++) {
        dm = fmax(dm, fabs(P1[k] - P2[k]));
        sc = fmax(sc, fabs(P2[k]));
    }
    cr_expect_leq(dm, 1e-12 * sc, "Phi route vs ZOH: %.3g of %.3g", dm, sc);
    cosa_phi_workspace_free(w);
    free(P1);
    free(P2);
    cosa_system_free(sys);
}

Test(energy_phi, zoh_with_many_outputs)
{
    /* four units, one state, one input, two outputs each, in a ring */
    const double A[4] = {-1.0, -2.0, -0.5, -3.0}, B[4] = {1.0, 0.5, 2.0, 1.5};
    const double C[4][2] = {{1.0, 0.3}, {0.7, -1.0}, {2.0, 0.1}, {-0.4, 1.2}};
    const double Dz[2] = {0.0, 0.0};
    cosa_subsystem subs[4];
    for (int i = 0; i < 4; i++)
        subs[i] = (cosa_subsystem){1, 1, 2, &A[i], &B[i], C[i], Dz};
    double L[4 * 8] = {0}; /* unit i's input = output 0 of unit i+1 */
    for (int i = 0; i < 4; i++)
        L[i + (size_t)(2 * ((i + 1) % 4)) * 4] = 1.0;
    check_zoh(4, subs, L);
    /* one unit with six outputs and feedthrough, one with one output */
    const double A0 = -1.0, B0 = 1.0, C0[6] = {1, 2, 3, 4, 5, 6}, D0[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    const double A1 = -2.0, B1 = 1.0, C1 = 1.0, D1 = 0.0;
    cosa_subsystem two[2] = {{1, 1, 6, &A0, &B0, C0, D0}, {1, 1, 1, &A1, &B1, &C1, &D1}};
    double L2[2 * 7] = {0};
    L2[0 + 6 * 2] = 1.0; /* unit 0's input: unit 1's output */
    L2[1 + 0 * 2] = 1.0; /* unit 1's input: unit 0's first output */
    check_zoh(2, two, L2);
}

Test(energy_phi, order_out_of_range)
{
    struct fd f;
    cosa_system *sys = twomass_fd(&f);
    double *x0 = f.x0, *W = f.W;
    const cosa_energy_port *port = &f.port;
    cosa_mr_scheme s = {.p = -1, .integrator = COSA_MR_EXACT};
    cosa_mr_energy e;
    double om[4], mu[4];
    size_t nm = 4;
    cr_expect_eq(cosa_mr_energy_eval(sys, &s, 1e-3, 10, x0, W, port, 0, &e), COSA_ERANGE);
    cr_expect_eq(cosa_mr_energy_modes(sys, &s, 1e-3, W, port, &nm, om, mu), COSA_ERANGE);
    s.p = COSA_ORDER_MAX + 1;
    cr_expect_eq(cosa_mr_energy_eval(sys, &s, 1e-3, 10, x0, W, port, 0, &e), COSA_ERANGE);
    cosa_system_free(sys);
}
