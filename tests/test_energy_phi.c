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
    double par[32], x0[64], W[64 * 64] = {0};
    size_t idx[64];
    cosa_energy_port port;
    cosa_model_defaults(cosa_model_find("twomass-fd"), par);
    cosa_system *sys = model_sys("twomass-fd", par, x0, W, &port, idx);
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
