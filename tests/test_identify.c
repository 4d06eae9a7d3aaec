/* test_identify.c -- black-box identification (lib/td/identify.c) and the
 * continuous model of a ZOH-sampled one (lib/core/zoh_log.c), against
 * independent routes: the Van Loan exponential run backwards through the
 * logarithm; identified discrete poles against eig(exp(A h)) of the unit's
 * own matrices, and against the closed form 1 + h lambda of a forward-Euler
 * FMU; a static gain recognised as order 0; an output that never responds;
 * an order above the bound refused in one line; the cost formula. */
#include <criterion/criterion.h>

#include "cosa.h"

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

/* Ad, Bd of (A, B) at step h from exp([[A h, B h], [0, 0]]) (cosa_expm). */
static void zoh(size_t n, size_t nu, const double *A, const double *B, double h, double *Ad,
                double *Bd)
{
    const size_t m = n + nu;
    double *M = calloc(m * m, sizeof *M), *E = calloc(m * m, sizeof *E);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            M[i + m * j] = A[i + n * j] * h;
    for (size_t j = 0; j < nu; j++)
        for (size_t i = 0; i < n; i++)
            M[i + m * (n + j)] = B[i + n * j] * h;
    cosa_expm_workspace *w = cosa_expm_workspace_alloc(m);
    cr_assert_eq(cosa_expm(m, M, m, E, m, w), COSA_OK);
    cosa_expm_workspace_free(w);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            Ad[i + n * j] = E[i + m * j];
    for (size_t j = 0; j < nu; j++)
        for (size_t i = 0; i < n; i++)
            Bd[i + n * j] = E[i + m * (n + j)];
    free(M);
    free(E);
}

static double maxabs(size_t k, const double *a)
{
    double m = 0.0;
    for (size_t i = 0; i < k; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

Test(zoh_log, round_trip_through_van_loan)
{
    /* a damped oscillator pair and a real mode, two inputs */
    const double A[9] = {-1, -5, 0.3, 5, -1, 0, 0, 0, -2}, B[6] = {1, 0, 1, 0, 2, 1};
    const double h = 0.05;
    double Ad[9], Bd[6], Al[9], Bl[6], dA[9], dB[6];
    char why[200];
    zoh(3, 2, A, B, h, Ad, Bd);
    cr_assert_eq(cosa_zoh_log(3, 2, h, Ad, Bd, Al, Bl, why, sizeof why), COSA_OK, "%s", why);
    for (int i = 0; i < 9; i++)
        dA[i] = Al[i] - A[i];
    for (int i = 0; i < 6; i++)
        dB[i] = Bl[i] - B[i];
    /* exp and log each cost O(100) roundings of entries of size |A h| (the
     * eigenvector matrix of this A has condition ~1): 1e3 eps / h on the
     * scale of |A| */
    const double tol = 1e3 * DBL_EPSILON / h;
    cr_expect_leq(maxabs(9, dA), tol * maxabs(9, A), "A error %g", maxabs(9, dA));
    cr_expect_leq(maxabs(6, dB), tol * maxabs(6, B), "B error %g", maxabs(6, dB));
    /* one input: more states than inputs (A's workspace once overran the
     * eigenvalues there: the quarter truck's wheel, "B is not real") */
    double Bd1[3], B1[3];
    zoh(3, 1, A, B, h, Ad, Bd1);
    cr_assert_eq(cosa_zoh_log(3, 1, h, Ad, Bd1, Al, B1, why, sizeof why), COSA_OK, "%s", why);
    for (int i = 0; i < 9; i++)
        dA[i] = Al[i] - A[i];
    for (int i = 0; i < 3; i++)
        dB[i] = B1[i] - B[i];
    cr_expect_leq(maxabs(9, dA), tol * maxabs(9, A), "A error %g (one input)", maxabs(9, dA));
    cr_expect_leq(maxabs(3, dB), tol * maxabs(3, B), "B error %g (one input)", maxabs(3, dB));
}

Test(zoh_log, integrator_and_refusals)
{
    /* x' = 2 u: Ad = 1, Bd = 2 h -- the mu = 1 limit of log(mu) / (mu - 1) */
    const double h = 0.1, Ad1 = 1.0, Bd1 = 0.2;
    double A, B;
    char why[200];
    cr_assert_eq(cosa_zoh_log(1, 1, h, &Ad1, &Bd1, &A, &B, why, sizeof why), COSA_OK);
    cr_expect_leq(fabs(A), 4 * DBL_EPSILON / h);
    cr_expect_leq(fabs(B - 2.0), 8 * DBL_EPSILON * 2.0);
    /* a one-step lag, a Nyquist mode, a Jordan block: one clause each */
    const double lag[4] = {0.5, 0, 0, 0}, nyq[4] = {0.5, 0, 0, -0.5}, jor[4] = {0.9, 0, 1, 0.9};
    const double Bd[2] = {1, 1};
    double Al[4], Bl[2];
    cr_expect_eq(cosa_zoh_log(2, 1, h, lag, Bd, Al, Bl, why, sizeof why), COSA_EUNSUPPORTED);
    cr_expect_not_null(strstr(why, "at 0"), "%s", why);
    cr_expect_eq(cosa_zoh_log(2, 1, h, nyq, Bd, Al, Bl, why, sizeof why), COSA_EUNSUPPORTED);
    cr_expect_not_null(strstr(why, "negative real axis"), "%s", why);
    cr_expect_eq(cosa_zoh_log(2, 1, h, jor, Bd, Al, Bl, why, sizeof why), COSA_EUNSUPPORTED);
    cr_expect_not_null(strstr(why, "ill-conditioned"), "%s", why);
}


/* The identified discrete poles against eig(ref): within the noise floor
 * (itself 10 times the Frobenius norms of the rounding bound and of the
 * two-amplitude difference) over the smallest kept Hankel singular value:
 * ERA's first-order sensitivity, the pair being well separated (eigenvector
 * condition ~1). */
static void expect_poles(const cosa_ident *id, const double *ref)
{
    double complex mi[2], mr[2];
    cr_assert_eq(id->n, 2);
    tu_eig2(id->Ad, mi);
    tu_eig2(ref, mr);
    const double tol = id->floor / id->hsv[1];
    for (int k = 0; k < 2; k++)
        if (getenv("COSA_TEST_VERBOSE"))
            fprintf(stderr, "pole %d error %.3g tol %.3g\n", k, cabs(mi[k] - mr[k]), tol);
    for (int k = 0; k < 2; k++)
        cr_expect_leq(cabs(mi[k] - mr[k]), tol, "pole %d: %g%+gi against %g%+gi (tol %g)", k,
                      creal(mi[k]), cimag(mi[k]), creal(mr[k]), cimag(mr[k]), tol);
}

Test(identify, linear_unit_poles_gain_state_and_cost)
{
    cosa_subsystem sub = {2, 2, 1, A2, B2, Cy, Dy};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    const double x0[2] = {0, -100}, u0[2] = {0, 0};
    cr_assert_eq(cosa_unit_set_state(u, 0.0, x0), COSA_OK);
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, u0, &o, &id), COSA_OK, "%s", id.why);
    double Ad[4], Bd[4];
    zoh(2, 2, A2, B2, o.h, Ad, Bd);
    expect_poles(&id, Ad);
    /* D from differences of outputs of size |Fk| ~ 1e5 around pulses that
     * move them by amp of that: 16 eps / amp relative */
    for (int j = 0; j < 2; j++)
        cr_expect_leq(fabs(id.D[j] - Dy[j]), 16 * DBL_EPSILON / o.amp * fabs(Dy[j]));
    /* the free response is the model's from the fitted x0; linear and
     * time-invariant: the two-amplitude and shifted-pulse figures at the
     * rounding level like the fit */
    cr_expect_leq(id.x0_resid, 1e-9);
    cr_expect_leq(id.fit, 1e-9);
    cr_expect_eq(id.nonlinear, 0);
    /* cost: free response, trial, two amplitudes, shifted pulses and the
     * validation input, a window of steps each */
    cr_expect_eq(id.steps, (2 + 4 * 2) * (o.window + 1));
    /* the unit is left at its operating point */
    double t, x[2];
    cosa_unit_get_state(u, &t, x);
    cr_expect(t == 0.0 && x[0] == x0[0] && x[1] == x0[1]);
    cosa_ident_free(&id);
    cosa_unit_free(u);
}

Test(identify, static_gain_is_order_0)
{
    const double D[2] = {2.0, -1.0};
    cosa_subsystem sub = {0, 2, 1, NULL, NULL, NULL, D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    const double u0[2] = {1.0, 0.5};
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, u0, NULL, &id), COSA_OK, "%s", id.why);
    cr_expect_eq(id.n, 0);
    cr_expect_leq(maxabs(id.nhsv, id.hsv), id.floor, "largest Hankel singular value %g",
                  id.hsv[0]);
    for (int j = 0; j < 2; j++)
        cr_expect_leq(fabs(id.D[j] - D[j]), 64 * DBL_EPSILON / 1e-3 * fabs(D[j]));
    cosa_ident_free(&id);
    cosa_unit_free(u);
}

Test(identify, silent_output_and_undecidable_order)
{
    /* two decoupled oscillators (order 4) into one output, a second output
     * that nothing moves */
    const double A[16] = {0, -100, 0, 0, 1, -0.1, 0, 0, 0, 0, 0, -900, 0, 0, 1, -0.3};
    const double B[4] = {0, 1, 0, 1}, C[8] = {1, 0, 0, 0, 1, 0, 0, 0}, D[2] = {0, 0};
    cosa_subsystem sub = {4, 1, 2, A, B, C, D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    const double u0 = 0.0;
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    o.h = 0.01;
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, &u0, &o, &id), COSA_OK, "%s", id.why);
    cr_expect_eq(id.n, 4);
    cr_expect_eq(id.silent_out, 2);
    cosa_ident_free(&id);
    o.nmax = 2; /* below the order: every singular value stands above the floor */
    cr_expect_eq(cosa_ident_run(u, &u0, &o, &id), COSA_EUNSUPPORTED);
    cr_expect_not_null(strstr(id.why, "cannot be decided"), "%s", id.why);
    cosa_ident_free(&id);
    cosa_unit_free(u);
}

static char fmudir[4096];

static cosa_unit *fmu_unit(const char *name, cosa_fmu **f)
{
    const char *d = getenv("COSA_FMUDIR");
    char path[4400], err[512];
    snprintf(fmudir, sizeof fmudir, "%s", d ? d : "tests/fmu");
    snprintf(path, sizeof path, "%s/%s", fmudir, name);
    cr_assert_eq(cosa_fmu_open(path, f, err, sizeof err), COSA_OK, "%s", err);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(*f, "II", &u), COSA_OK);
    return u;
}

/* Hidden states, no FMU state: fresh instances replayed from t = 0; the
 * FMU integrates by RK4 on 100 substeps (local error (w h / 100)^5 / 120 ~
 * 1e-12 at w ~ 1e3 rad/s, h = 1e-3), below the floor-based tolerance */
Test(identify, hidden_fmu_without_fmu_state)
{
    cosa_fmu *f = NULL;
    cosa_unit *u = fmu_unit("twomass2_hidnofs_fmi3.fmu", &f);
    cr_assert_eq(cosa_unit_nx(u), 0);
    cr_assert_eq(cosa_unit_caps(u) & COSA_UNIT_CAN_SAVE_STATE, 0);
    const double u0[2] = {0, 0};
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, u0, NULL, &id), COSA_OK, "%s", id.why);
    double Ad[4], Bd[4];
    zoh(2, 2, A2, B2, id.h, Ad, Bd);
    expect_poles(&id, Ad);
    cr_expect_eq(id.resets, 2 + 4 * 2 + 1); /* every experiment, and back at the end */
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* Forward Euler at its fixed internal step h = 1e-5 (fixedInternalStepSize):
 * the discrete poles are those of I + h A2, i.e. 1 + h lambda (closed
 * form), not exp(lambda h) -- which differ by (h lambda)^2 / 2 ~ 5e-5 */
Test(identify, fixed_step_fmu_discrete_pole)
{
    cosa_fmu *f = NULL;
    cosa_unit *u = fmu_unit("twomass2_euler_fmi3.fmu", &f);
    cosa_fmu_capability cap;
    cosa_fmu_capability_get(f, &cap);
    cr_assert_eq(cap.fixed_step, 1e-5);
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    o.h = cap.fixed_step;
    o.window = 1024; /* ten radians of the 1e3 rad/s mode at 1e-5 */
    const double u0[2] = {0, 0};
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, u0, &o, &id), COSA_OK, "%s", id.why);
    const double h = o.h, E[4] = {1 + h * A2[0], h * A2[1], h * A2[2], 1 + h * A2[3]};
    expect_poles(&id, E);
    double Ad[4], Bd[4];
    zoh(2, 2, A2, B2, h, Ad, Bd);
    double complex me[2], mx[2];
    tu_eig2(E, me);
    tu_eig2(Ad, mx);
    cr_expect_gt(cabs(me[1] - mx[1]), id.floor / id.hsv[1],
                 "Euler and exact poles must be told apart");
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* rho(Phi) of scheme text at dt for sys */
static double rho_of(const cosa_system *sys, const char *text, double dt)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(text, &s), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 4);
    cosa_point_result r;
    const size_t nx = cosa_system_nx(sys);
    double *x0 = calloc(nx, sizeof *x0);
    cr_assert_eq(cosa_evaluate(sys, &s, dt, x0, 0.3, COSA_WANT_RHO, &r, w), COSA_OK);
    free(x0);
    cosa_eval_workspace_free(w);
    return r.rho;
}

/* The network of twomass1 with the forward-Euler FMU II read from a model
 * file (II identified at its fixed step) against the same network built by
 * hand from the closed form: II's sampled model over one internal step is
 * x+ = (I + h A2) x + h B2 u, y = C x + D u, whose continuous equivalent
 * comes from cosa_zoh_log (tested above against the Van Loan route).  rho
 * of Phi at macro steps that are multiples of h (ZOH, FOH+MBCorr) agree to
 * the poles' accuracy (1e-11 measured above; 1e-9 leaves room for its
 * amplification by the eigenvector condition of Phi). */
Test(identify, fixed_step_network_rho_against_closed_form)
{
    const char *d = getenv("COSA_FMUDIR");
    char path[4400], text[9000], err[512];
    snprintf(path, sizeof path, "%s", d ? d : "tests/fmu");
    snprintf(text, sizeof text,
             "model eu\ntend 0.3\nfmu I = %s/twomass1_fmi3.fmu\nfmu II = %s/twomass2_euler_fmi3.fmu\n"
             "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n",
             path, path);
    cosa_model *m = NULL;
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "eu", &m, err, sizeof err), COSA_OK,
                 "%s", err);
    cr_assert_eq(cosa_model_file_identified(m, 0, NULL), 0);
    cosa_model_file_ident info;
    cr_assert_eq(cosa_model_file_identified(m, 1, &info), 1);
    cr_expect_eq(info.order, 2);
    cr_expect_eq(info.h, 1e-5);
    double *par = calloc(m->nparam + 1, sizeof *par);
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);

    /* by hand: subsystem I as in the model (MBCorr eq 27), II closed form */
    cosa_system *ref = tu_twomass_euler_ref(1e-5);
    const char *schemes[2] = {"zoh", "soh"};
    const double dts[2] = {1e-4, 5e-4};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) {
            const double a = rho_of(sys, schemes[k], dts[j]), b = rho_of(ref, schemes[k], dts[j]);
            if (getenv("COSA_TEST_VERBOSE"))
                fprintf(stderr, "%s at %g: rho %.17g closed form %.17g\n", schemes[k], dts[j], a, b);
            cr_expect_leq(fabs(a - b), 1e-9 * b, "%s at %g: rho %.17g against %.17g", schemes[k],
                          dts[j], a, b);
        }
    cosa_system_free(ref);
    cosa_system_free(sys);
    free(par);
    cosa_model_free(m);
}

/* A unit without inputs (as the Reference FMUs' Dahlquist): its mode is
 * seen through the free response's column of the Hankel matrix only.
 * x' = -k x, y = x, x0 = 1: order 1, pole exp(-k h) within the floor-based
 * bound, and C x0 = y(0) = 1 from the fitted initial state. */
Test(identify, no_inputs_free_response)
{
    const double A = -2.0, C = 1.0;
    cosa_subsystem sub = {1, 0, 1, &A, NULL, &C, NULL};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    const double x0 = 1.0;
    cr_assert_eq(cosa_unit_set_state(u, 0.0, &x0), COSA_OK);
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    o.h = 0.1;
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, NULL, &o, &id), COSA_OK, "%s", id.why);
    cr_assert_eq(id.n, 1);
    cr_expect_leq(fabs(id.Ad[0] - exp(A * o.h)), id.floor / id.hsv[0], "pole %.17g", id.Ad[0]);
    /* least squares on exact data over 65 rows: ~1e4 eps */
    cr_expect_leq(fabs(id.C[0] * id.x0[0] - 1.0), 1e-12, "C x0 = %.17g", id.C[0] * id.x0[0]);
    double Ac;
    char why[200];
    cr_assert_eq(cosa_zoh_log(1, 0, o.h, id.Ad, NULL, &Ac, NULL, why, sizeof why), COSA_OK);
    cr_expect_leq(fabs(Ac - A), id.floor / id.hsv[0] / o.h / exp(A * o.h), "A %.17g", Ac);
    cosa_ident_free(&id);
    cosa_unit_free(u);
}

/* The lag FMU (forward Euler at 1e-5 like twomass2_euler, its output computed
 * only inside doStep, at the start of its last internal step): read after a
 * step of one internal step h with the input u held, y = C x_k + D u_k, so in
 * the held reading x_{k+1} = E x_k + h B u_k, y = C' x_{k+1} + D' u_k with
 * E = I + h A2, C' = C E^-1, D' = D - C E^-1 h B (closed form; E^-1 of the
 * 2 x 2 by its adjugate).  Identified: the poles of E (no pole at 0), the
 * flag, and D' -- which differs from D by ~5e-4 relative, far above its
 * error: D' = D~ - C Bd carries the realisation's error, which the validation
 * error (relative to the response) bounds; 100 times it. */
static void lag_closed_form(double h, double *E, double *Cl, double *Dl)
{
    const double e[4] = {1 + h * A2[0], h * A2[1], h * A2[2], 1 + h * A2[3]};
    const double det = e[0] * e[3] - e[1] * e[2];
    const double Ei[4] = {e[3] / det, -e[1] / det, -e[2] / det, e[0] / det};
    memcpy(E, e, sizeof e);
    for (int a = 0; a < 2; a++) /* C' = Cy E^-1 (1 x 2) */
        Cl[a] = Cy[0] * Ei[0 + 2 * a] + Cy[1] * Ei[1 + 2 * a];
    for (int j = 0; j < 2; j++) /* D' = Dy - C' h B2 */
        Dl[j] = Dy[j] - h * (Cl[0] * B2[0 + 2 * j] + Cl[1] * B2[1 + 2 * j]);
}

Test(identify, output_lag_fmu_held_reading)
{
    cosa_fmu *f = NULL;
    cosa_unit *u = fmu_unit("twomass2_lag_fmi3.fmu", &f);
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    o.h = 1e-5;
    o.window = 1024;
    const double u0[2] = {0, 0};
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, u0, &o, &id), COSA_OK, "%s", id.why);
    double E[4], Cl[2], Dl[2];
    lag_closed_form(o.h, E, Cl, Dl);
    expect_poles(&id, E);
    cr_expect_eq(id.step_outputs, 1);
    for (int j = 0; j < 2; j++) {
        if (getenv("COSA_TEST_VERBOSE"))
            fprintf(stderr, "D'[%d] %.17g closed form %.17g (D %g) fit %.3g\n", j, id.D[j], Dl[j],
                    Dy[j], id.fit);
        cr_expect_leq(fabs(id.D[j] - Dl[j]), 100 * id.fit * fabs(Dl[j]), "D'[%d] %.17g against %.17g",
                      j, id.D[j], Dl[j]);
        cr_expect_gt(fabs(Dl[j] - Dy[j]), 100 * id.fit * fabs(Dl[j]), "D' must differ from D");
    }
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
    /* an ordinary FMU reads the same either way: not flagged, D as measured */
    u = fmu_unit("twomass2_hid_fmi3.fmu", &f);
    cr_assert_eq(cosa_ident_run(u, u0, NULL, &id), COSA_OK, "%s", id.why);
    cr_expect_eq(id.step_outputs, 0);
    for (int j = 0; j < 2; j++)
        cr_expect_leq(fabs(id.D[j] - Dy[j]), 16 * DBL_EPSILON / 1e-3 * fabs(Dy[j]));
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* The network of twomass1 with the lag FMU II (FMI 3.0 at its fixed step,
 * FMI 2.0 at the probe step 1e-3 = 100 internal steps) read from a model
 * file, against the same network built by hand from the closed form above
 * (continuous equivalent of (E, h B2) by cosa_zoh_log, outputs C', D'): rho
 * at multiples of h to 1e-9, as for the Euler FMU. */
Test(identify, output_lag_network_rho_against_closed_form)
{
    const char *d = getenv("COSA_FMUDIR");
    const char *fmus[2] = {"twomass2_lag_fmi3.fmu", "twomass2_lag_fmi2.fmu"};
    const double h = 1e-5;
    double E[4], Cl[2], Dl[2];
    lag_closed_form(h, E, Cl, Dl);
    cosa_system *ref = tu_twomass_zoh_ref(h, E, Cl, Dl);
    for (int v = 0; v < 2; v++) {
        char path[4400], text[9000], err[512];
        snprintf(path, sizeof path, "%s", d ? d : "tests/fmu");
        snprintf(text, sizeof text,
                 "model lag\ntend 0.3\nfmu I = %s/twomass1_fmi3.fmu\nfmu II = %s/%s\n"
                 "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n",
                 path, path, fmus[v]);
        cosa_model *m = NULL;
        cr_assert_eq(cosa_model_file_parse(text, strlen(text), "lag", &m, err, sizeof err),
                     COSA_OK, "%s", err);
        cosa_model_file_ident info;
        cr_assert_eq(cosa_model_file_identified(m, 1, &info), 1);
        cr_expect_eq(info.step_outputs, 1);
        double *par = calloc(m->nparam + 1, sizeof *par);
        cosa_model_defaults(m, par);
        cosa_system *sys = NULL;
        cr_assert_eq(m->create(m, par, &sys), COSA_OK);
        const double dts[2] = {1e-4, 1e-3};
        for (int j = 0; j < 2; j++) {
            const double a = rho_of(sys, "zoh", dts[j]), b = rho_of(ref, "zoh", dts[j]);
            if (getenv("COSA_TEST_VERBOSE"))
                fprintf(stderr, "%s at %g: rho %.17g closed form %.17g\n", fmus[v], dts[j], a, b);
            cr_expect_leq(fabs(a - b), 1e-9 * b, "%s at %g: rho %.17g against %.17g", fmus[v],
                          dts[j], a, b);
        }
        cosa_system_free(sys);
        free(par);
        cosa_model_free(m);
    }
    cosa_system_free(ref);
}

/* An affine unit (twomass1 with the constant force F0 = -98.1 N, gravity on
 * m1 = 10 kg; declared states, identified on request): its free response from
 * (s, v) = (0, 100) is a transient around the equilibrium s = F0 / c1, v = 0,
 * so no state of the linear model explains it, a state plus constant output
 * offsets does: x0 relative to the equilibrium, C x0 = y(0) - y_eq =
 * (-F0 / c1, 100) (closed form).  The least squares reproduce the free
 * response to x0_resid (measured 1e-11 relative); 1e-8 of |y(0)| leaves room
 * for C's error (the fit error) times x0. */
Test(identify, affine_unit_offset_and_state)
{
    cosa_fmu *f = NULL;
    cosa_unit *u = fmu_unit("twomass1g_fmi3.fmu", &f);
    const double u0 = 0.0, F0 = -98.1, c1 = 1e6;
    cosa_ident id;
    cr_assert_eq(cosa_ident_run(u, &u0, NULL, &id), COSA_OK, "%s", id.why);
    cr_assert_eq(id.n, 2);
    cr_expect_eq(id.y_offset, 1);
    cr_expect_leq(id.x0_resid, COSA_IDENT_X0_RESID);
    const double want[2] = {-F0 / c1, 100.0};
    for (int i = 0; i < 2; i++) {
        const double y = id.C[i] * id.x0[0] + id.C[i + 2] * id.x0[1];
        if (getenv("COSA_TEST_VERBOSE"))
            fprintf(stderr, "C x0 [%d] %.17g closed form %.17g (resid %.3g)\n", i, y, want[i],
                    id.x0_resid);
        cr_expect_leq(fabs(y - want[i]), 1e-8 * 100.0, "C x0 [%d] %.17g against %.17g", i, y,
                      want[i]);
    }
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
    /* without the force: explained by a state alone, no offset */
    u = fmu_unit("twomass1_fmi3.fmu", &f);
    cr_assert_eq(cosa_ident_run(u, &u0, NULL, &id), COSA_OK, "%s", id.why);
    cr_expect_eq(id.y_offset, 0);
    cr_expect_leq(id.x0_resid, 1e-9);
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* A true delay beyond the held input: two states, z1+ = u (the input held
 * over the step), z2+ = z1, y = z2, so the output after step k is u_{k-1}.
 * The held reading's Markov parameters are 0, 1, 0, ...: order 1 with
 * A_d = 0, which is singular: refused in one line (no continuous model). */
static cosa_status dl_step(cosa_unit *u, double h, double *xnew)
{
    double v;
    cosa_unit_input_at(u, 0.0, &v);
    xnew[0] = v;
    xnew[1] = cosa_unit_state(u)[0];
    (void)h;
    return COSA_OK;
}

static cosa_status dl_eval(cosa_unit *u, double t, const double *x, const double *uin,
                           double *xdot, double *y)
{
    (void)u, (void)t, (void)uin;
    if (xdot)
        xdot[0] = xdot[1] = 0.0;
    if (y)
        y[0] = x[1];
    return COSA_OK;
}

Test(identify, true_delay_refused)
{
    static const cosa_unit_type delay = {.name = "delay", .step = dl_step, .eval = dl_eval};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_create(&delay, 2, 1, 1, NULL, &u), COSA_OK);
    const double u0 = 0.0;
    cosa_ident id;
    cr_expect_eq(cosa_ident_run(u, &u0, NULL, &id), COSA_EUNSUPPORTED);
    cr_expect_not_null(strstr(id.why, "A_d is singular"), "%s", id.why);
    cr_expect_null(strchr(id.why, '\n'));
    cosa_ident_free(&id);
    cosa_unit_free(u);
}
