/* test_step_grid.c -- the stability limit on the grid of a fixed-step FMU
 * (analysis/limit_grid.c; doc/fixed-step-fmus.md) against an
 * independent route: the two-mass network whose subsystem II is the
 * forward-Euler FMU (fixed internal step h = 1e-5, states hidden, so it is
 * identified from its inputs and outputs) read from a model file, and the
 * same network built by hand from the closed form of forward Euler,
 * x+ = (I + h A2) x + h B2 u: its discrete poles are 1 + h lambda.  The
 * grid limit m must satisfy rho(m h) < 1 <= rho((m + 1) h) on the closed
 * form, the identified rho must equal the closed form's at both multiples,
 * and the integer search must find the same m from starts below and above
 * the first loss. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "limit_grid.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* M2, C2, D2, CK, DK and A2, B2, Cy, Dy: subsystem II of the two-mass
 * oscillator (tests/testutil.h) */
#define TU_TWOMASS_II
#include "testutil.h"

#define H 1e-5 /* the FMU's fixedInternalStepSize */

struct nets {
    cosa_model *m;
    cosa_system *id, *ref; /* identified (model file), closed form (by hand) */
    double *par;
};

static void nets_build(struct nets *n)
{
    const char *d = getenv("COSA_FMUDIR");
    char text[9000], err[512];
    snprintf(text, sizeof text,
             "model eu\ntend 0.3\nfmu I = %s/twomass1_fmi3.fmu\nfmu II = %s/twomass2_euler_fmi3.fmu\n"
             "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n",
             d ? d : "tests/fmu", d ? d : "tests/fmu");
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "eu", &n->m, err, sizeof err), COSA_OK,
                 "%s", err);
    cosa_model_file_ident info;
    cr_assert_eq(cosa_model_file_identified(n->m, 1, &info), 1);
    cr_assert_eq(info.fixed_step, H);
    n->par = calloc(n->m->nparam + 1, sizeof *n->par);
    cosa_model_defaults(n->m, n->par);
    cr_assert_eq(n->m->create(n->m, n->par, &n->id), COSA_OK);
    /* by hand: I as in the FMU (MBCorr eq 27), II from the closed form of
     * one Euler step through its ZOH-equivalent continuous model */
    n->ref = tu_twomass_euler_ref(H);
}

static void nets_free(struct nets *n)
{
    cosa_system_free(n->ref);
    cosa_system_free(n->id);
    free(n->par);
    cosa_model_free(n->m);
}

static double rho_at(const cosa_system *sys, const cosa_scheme *s, double dt)
{
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, s->order);
    double x0[4] = {0};
    cosa_point_result r;
    cr_assert_eq(cosa_evaluate(sys, s, dt, x0, 0.3, COSA_WANT_RHO, &r, w), COSA_OK);
    cosa_eval_workspace_free(w);
    return r.rho;
}

/* The identified II's discrete poles at its step, eig(exp(A_II h)), are
 * the closed form's 1 + h lambda(A2): the identification's pole accuracy
 * (1e-11 measured in tests/test_identify.c) plus the logarithm and the
 * exponential (O(100) roundings each of entries of size |A h| ~ 1e-2,
 * relative to poles of modulus ~1): 1e-9. */
Test(limit_grid, euler_poles_are_one_plus_h_lambda)
{
    struct nets n;
    nets_build(&n);
    const double *A = cosa_system_A(n.id);
    const size_t nx = cosa_system_nx(n.id);
    cr_assert_eq(nx, 4);
    double Ah[4], Ed[4];
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            Ah[i + 2 * j] = A[(2 + i) + nx * (2 + j)] * H;
    cosa_expm_workspace *w = cosa_expm_workspace_alloc(2);
    cr_assert_eq(cosa_expm(2, Ah, 2, Ed, 2, w), COSA_OK);
    cosa_expm_workspace_free(w);
    const double E[4] = {1 + H * A2[0], H * A2[1], H * A2[2], 1 + H * A2[3]};
    double complex mi[2], me[2];
    tu_eig2(Ed, mi);
    tu_eig2(E, me);
    for (int k = 0; k < 2; k++)
        cr_expect_leq(cabs(mi[k] - me[k]), 1e-9, "pole %d: %.17g%+.17gi against 1 + h lambda "
                      "%.17g%+.17gi", k, creal(mi[k]), cimag(mi[k]), creal(me[k]), cimag(me[k]));
    nets_free(&n);
}

/* The limit on the grid: cosa_dt_limit, then the integer search; on the
 * closed form rho(m h) < 1 <= rho((m + 1) h), the identified rho equal to
 * the closed form's at both (1e-9: the poles' accuracy above, amplified by
 * Phi's eigenvector condition by at most 100 here), and the same m from
 * starts below (5e-4) and above (5e-3) the first loss: rho > 1 on the whole
 * of (1.33e-3, 8.3e-3) (the crossings of the continuous scan). */
Test(limit_grid, euler_network_limit_against_closed_form)
{
    struct nets n;
    nets_build(&n);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("zoh", &s), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(n.id, s.order);
    cosa_crossing cr[8];
    cosa_limit lim;
    cr_assert_eq(cosa_dt_limit(n.id, &s, NULL, 0.3, COSA_CRIT_STABLE, 0.01, 1e-9, 1e-2, 20, cr, 8,
                               &lim, w),
                 COSA_OK);
    double m = 0.0;
    size_t nev = 0;
    cr_assert_eq(limit_grid(n.id, &s, NULL, 0.3, COSA_CRIT_STABLE, 0.01, H, &lim, 1000.0,
                                    &m, &nev, w),
                 COSA_OK);
    cr_assert_geq(m, 1.0);
    cr_expect_leq(m * H, lim.dt_max, "m h %.17g above the continuous dt_max %.17g", m * H,
                  lim.dt_max);
    cr_expect_leq(nev, 8, "%zu evaluations from the continuous start", nev);
    const double r0 = rho_at(n.ref, &s, m * H), r1 = rho_at(n.ref, &s, (m + 1) * H);
    cr_expect_lt(r0, 1.0, "closed form rho(%g h) = %.17g", m, r0);
    cr_expect_geq(r1, 1.0, "closed form rho(%g h) = %.17g", m + 1, r1);
    const double i0 = rho_at(n.id, &s, m * H), i1 = rho_at(n.id, &s, (m + 1) * H);
    cr_expect_leq(fabs(i0 - r0), 1e-9 * r0, "rho(m h) %.17g against %.17g", i0, r0);
    cr_expect_leq(fabs(i1 - r1), 1e-9 * r1, "rho((m+1) h) %.17g against %.17g", i1, r1);
    /* the integer search from other starts: doubling brackets, bisection */
    const double starts[2] = {5e-4, 5e-3};
    for (int k = 0; k < 2; k++) {
        cosa_limit c = lim;
        c.dt_max = starts[k];
        double mk = 0.0;
        cr_assert_eq(limit_grid(n.id, &s, NULL, 0.3, COSA_CRIT_STABLE, 0.01, H, &c,
                                        1000.0, &mk, &nev, w),
                     COSA_OK);
        cr_expect_eq(mk, m, "from dt %g: m %g, not %g", starts[k], mk, m);
        cr_expect_leq(nev, 30, "%zu evaluations from dt %g", nev, starts[k]);
    }
    /* every multiple good up to m_max: m = m_max; h itself not good: m = 0 */
    double mm = 0.0;
    cr_assert_eq(limit_grid(n.id, &s, NULL, 0.3, COSA_CRIT_STABLE, 0.01, H, &lim, 50.0,
                                    &mm, &nev, w),
                 COSA_OK);
    cr_expect_eq(mm, 50.0);
    cr_assert_eq(limit_grid(n.id, &s, NULL, 0.3, COSA_CRIT_ACCURATE, 1e-300, H, &lim,
                                    1000.0, &mm, &nev, w),
                 COSA_EINVAL, "the error criteria need x0");
    double x0[4] = {0, 100, 0, 0};
    cr_assert_eq(limit_grid(n.id, &s, x0, 0.3, COSA_CRIT_ACCURATE, 1e-300, H, &lim,
                                    1000.0, &mm, &nev, w),
                 COSA_OK);
    cr_expect_eq(mm, 0.0, "no multiple has e_global <= 1e-300");
    cosa_eval_workspace_free(w);
    nets_free(&n);
}
