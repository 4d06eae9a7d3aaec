/* test_phi_gs.c -- Gauss-Seidel propagation matrices against the independent
 * time-domain co-simulation (lib/check/linear_run.c), and structural checks. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* max_n ||z_n - Phi^n z0||_inf / max_n ||z_n||_inf over nsteps steps. */
static double phi_vs_cosim(const cosa_system *sys, const cosa_scheme *s, double dt,
                           const double *z0, size_t nsteps)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    size_t n = lay.dim;
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s->order);
    double *Phi = malloc(n * n * sizeof(double)), *traj = malloc((nsteps + 1) * n * sizeof(double));
    double *z = malloc(n * sizeof(double)), *zn = malloc(n * sizeof(double));
    cr_assert_eq(cosa_phi_build(sys, s, dt, Phi, n, w), COSA_OK);
    cr_assert_eq(cosa_check_linear_run(sys, s, dt, z0, nsteps, traj), COSA_OK);
    memcpy(z, z0, n * sizeof(double));
    double err = 0, scale = 0;
    for (size_t k = 1; k <= nsteps; k++) {
        tu_phi_apply(Phi, n, z, zn);
        for (size_t i = 0; i < n; i++) {
            err = fmax(err, fabs(z[i] - traj[i + k * n]));
            scale = fmax(scale, fabs(traj[i + k * n]));
        }
    }
    free(Phi);
    free(traj);
    free(z);
    free(zn);
    cosa_phi_workspace_free(w);
    return err / scale;
}

static void random_z0(const cosa_system *sys, const cosa_scheme *s, unsigned long long seed,
                      double *z0)
{
    cosa_layout lay;
    cosa_layout_get(sys, s, &lay);
    for (size_t i = 0; i < lay.dim; i++)
        z0[i] = tu_rand(&seed);
}

Test(phi_gs, twomass_matches_time_domain)
{
    double cases[][3] = {{2e5, 5e2, 1e-4}, {1e3, 10, 1e-3}, {1e9, 3.6e5, 3.16e-4}};
    size_t orders[2][2] = {{0, 1}, {1, 0}};
    for (size_t c = 0; c < 3; c++) {
        cosa_system *sys = tu_twomass(cases[c][0], cases[c][1]);
        for (int p = 0; p <= 4; p++)
            for (int o = 0; o < 2; o++) {
                cosa_scheme s = {.order = p, .corr = COSA_CORR_NONE, .alpha = 1,
                                 .exec = COSA_GAUSS_SEIDEL, .seq = orders[o]};
                double z0[64];
                cosa_layout lay;
                cosa_layout_get(sys, &s, &lay);
                /* x0 as in doc/method.md, history of the right magnitudes */
                random_z0(sys, &s, 1234 + p, z0);
                z0[0] = 0; z0[1] = 100; z0[2] = 0; z0[3] = -100;
                for (size_t j = 0; j < lay.nhist; j++)
                    z0[lay.off_y + j * 3 + 2] *= cases[c][0] * 1e-2;
                /* Both routes are exact up to rounding of exponentials with
                 * ||A dt|| up to ~3e4 (stiff case): 1e-10 as in the issue. */
                double r = phi_vs_cosim(sys, &s, cases[c][2], z0, 50);
                cr_expect_leq(r, 1e-10, "case %zu p=%d order %d: rel diff %g", c, p, o, r);
            }
        cosa_system_free(sys);
    }
}

/* Three subsystems with direct feedthrough and a general (non-selection)
 * coupling, every execution order. */
Test(phi_gs, random_three_subsystems_all_orders)
{
    unsigned long long seed = 42;
    double A[3][9], B[3][6], C[3][6], D[3][4];
    cosa_subsystem sub[3];
    size_t nxs[3] = {3, 2, 2}, nus[3] = {2, 2, 1}, nys[3] = {2, 1, 2};
    for (int i = 0; i < 3; i++) {
        for (size_t k = 0; k < nxs[i] * nxs[i]; k++)
            A[i][k] = tu_rand(&seed);
        for (size_t k = 0; k < nxs[i]; k++)
            A[i][k + k * nxs[i]] -= 2.5; /* stable subsystems */
        for (size_t k = 0; k < nxs[i] * nus[i]; k++)
            B[i][k] = tu_rand(&seed);
        for (size_t k = 0; k < nys[i] * nxs[i]; k++)
            C[i][k] = tu_rand(&seed);
        for (size_t k = 0; k < nys[i] * nus[i]; k++)
            D[i][k] = 0.3 * tu_rand(&seed);
        sub[i] = (cosa_subsystem){nxs[i], nus[i], nys[i], A[i], B[i], C[i], D[i]};
    }
    double L[5 * 5];
    for (int k = 0; k < 25; k++)
        L[k] = 0.5 * tu_rand(&seed);
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 3, sub, L), COSA_OK);
    size_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p <= 4; p++)
        for (int o = 0; o < 6; o++) {
            cosa_scheme s = {.order = p, .corr = 0, .alpha = 1, .exec = COSA_GAUSS_SEIDEL,
                             .seq = perms[o]};
            double z0[64];
            random_z0(sys, &s, 77 + o, z0);
            double r = phi_vs_cosim(sys, &s, 0.1, z0, 50);
            cr_expect_leq(r, 1e-10, "p=%d perm %d: rel diff %g", p, o, r);
        }
    cosa_system_free(sys);
}

/* With zero coupling Gauss-Seidel and Jacobi coincide exactly; with a
 * one-way coupling where the source runs first, GS uses interpolation and
 * differs from Jacobi. */
Test(phi_gs, limit_cases)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    double L0[9] = {0};
    cosa_system_set_coupling(sys, L0);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 2);
    cosa_scheme j = {.order = 2, .alpha = 1}, g = j;
    g.exec = COSA_GAUSS_SEIDEL;
    double P1[13 * 13], P2[13 * 13];
    cr_assert_eq(cosa_phi_build(sys, &j, 1e-4, P1, 13, w), COSA_OK);
    cr_assert_eq(cosa_phi_build(sys, &g, 1e-4, P2, 13, w), COSA_OK);
    cr_expect_leq(tu_maxdiff(13, 13, P1, 13, P2, 13), 0.0, "uncoupled: GS == Jacobi");
    cosa_phi_workspace_free(w);
    cosa_system_free(sys);

    /* invalid sequences are rejected */
    sys = tu_twomass(2e5, 5e2);
    size_t badseq[2] = {0, 0};
    g.seq = badseq;
    cr_expect_eq(cosa_scheme_check(&g, sys), COSA_EINVAL);
    cosa_system_free(sys);
}
