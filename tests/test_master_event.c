/* test_master_event.c -- the master's event points (lib/td/master_event.c) on
 * the one run loop (lib/td/evolve.c), with the event test FMUs of make
 * check (COSA_FMUDIR, tests/fmu/event_fmu.c): bouncing balls driving a
 * first-order filter, and a step source with a time event.  Independent
 * routes: the balls' bounce times in closed form, the filter's exact
 * zero-order-hold response recomputed from the recorded points, and the
 * Lagrange basis on arbitrary nodes against the uniform tables. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/evolve.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPTS 256
static const double g = 9.81, e = 0.7, tau = 0.2;

typedef struct run {
    cosa_fmu *fmu[3];
    cosa_unit *unit[3];
    cosa_unitset *set;
    cosa_master *m;
    size_t n, npts;
    double t[MAXPTS], y[MAXPTS][5];
    int ev[MAXPTS];
} run;

static cosa_status rec(const cosa_master *m, void *user)
{
    run *r = user;
    if (r->npts < MAXPTS) {
        cosa_master_get(m, &r->t[r->npts], NULL, NULL, r->y[r->npts], NULL, NULL);
        r->ev[r->npts++] = cosa_master_at_event(m);
    }
    return COSA_OK;
}

/* Units named in fmus (the last one: the filter, its input the first
 * unit's first output), events on where the FMU has them, the master with
 * events, ZOH, dt 0.1 over [0, 1] on the fixed controller. */
static cosa_status run_net(run *r, size_t n, const char *const *fmus, int *failed_unit)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    const char *d = getenv("COSA_FMUDIR");
    size_t ny = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4200], err[512];
        snprintf(path, sizeof path, "%s/%s", d ? d : "tests/fmu", fmus[i]);
        cr_assert_eq(cosa_fmu_open(path, &r->fmu[i], err, sizeof err), COSA_OK, "%s", err);
        char name[8];
        snprintf(name, sizeof name, "U%zu", i);
        cr_assert_eq(cosa_unit_fmu_create(r->fmu[i], name, &r->unit[i]), COSA_OK);
        if (cosa_fmu_caps(r->fmu[i]) & COSA_FMU_CAP_EVENT_MODE)
            cr_assert_eq(cosa_unit_fmu_set_events(r->unit[i], 1), COSA_OK);
        ny += cosa_unit_ny(r->unit[i]);
    }
    double L[5] = {1.0, 0, 0, 0, 0}; /* filter input = first output */
    cr_assert_eq(cosa_unitset_create(n, r->unit, L, NULL, &r->set), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("zoh", &s), COSA_OK);
    const cosa_master_opts mo = {.events = 1};
    cr_assert_eq(cosa_master_create(r->set, &s, 0.1, &mo, &r->m), COSA_OK);
    const cosa_observer obs = {rec, rec, r};
    cosa_master_add_observer(r->m, &obs);
    double x0[5], y0[5];
    size_t nx = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        cosa_unit_get_state(r->unit[i], NULL, x0 + nx);
        cosa_unit_get_output(r->unit[i], y0 + k);
        nx += cosa_unit_nx(r->unit[i]);
        k += cosa_unit_ny(r->unit[i]);
    }
    cr_assert_eq(cosa_master_init(r->m, 0.0, x0, y0, NULL), COSA_OK);
    evolve_fixed fx;
    evolve_fixed_steps(&fx, 0.0, 0, 10, 0.1, 0.0);
    const evolve_config c = {.stepper = &evolve_stepper_master, .stepper_ctx = r->m,
                             .controller = &evolve_controller_fixed, .controller_ctx = &fx};
    evolve_stats st;
    cosa_status rs = evolve_run(&c, &st);
    if (failed_unit)
        *failed_unit = (int)cosa_master_failed_unit(r->m);
    if (rs == COSA_OK)
        cr_expect_eq(st.steps - st.last.cuts, 10, "grid steps");
    return rs;
}

static void run_free(run *r)
{
    cosa_master_free(r->m);
    cosa_unitset_free(r->set);
    for (size_t i = 0; i < r->n; i++) {
        cosa_unit_free(r->unit[i]);
        cosa_fmu_close(r->fmu[i]);
    }
}

/* The bounce times of a ball dropped from h0 in [0, T): t1 = sqrt(2 h0/g),
 * t_{k+1} = t_k + 2 e^k v1 / g. */
static size_t bounces(double h0, double T, double *tb)
{
    const double v1 = sqrt(2.0 * g * h0);
    size_t k = 0;
    for (double t = v1 / g, v = v1; t < T && k < 16; t += 2.0 * (v *= e) / g)
        tb[k++] = t;
    return k;
}

/* A point at t within tol, flagged as an event. */
static int has_point(const run *r, double t, double tol)
{
    for (size_t k = 0; k < r->npts; k++)
        if (fabs(r->t[k] - t) <= tol)
            return r->ev[k];
    return 0;
}

/* Between consecutive points the filter (last output) is the exact ZOH
 * response to its input held there, the first output at the earlier point
 * after its event: x1 = u + (x0 - u) e^{-dt/tau}.  The FMU computes the same
 * formula in the same order from its own (t, x): relative 8 eps of the
 * O(1) values (exp and two roundings). */
static void check_filter(const run *r, size_t iy)
{
    for (size_t k = 0; k + 1 < r->npts; k++) {
        const double u = r->y[k][0], x0 = r->y[k][iy];
        const double want = u + (x0 - u) * exp(-(r->t[k + 1] - r->t[k]) / tau);
        cr_expect(fabs(r->y[k + 1][iy] - want) <= 8 * DBL_EPSILON * (1.0 + fabs(want)),
                  "filter at t = %.17g: %.17g, ZOH %.17g", r->t[k + 1], r->y[k + 1][iy], want);
    }
}

/* Two balls (h0 = 1 and 0.6) and the filter on the first: every bounce in
 * [0, 1] is a communication point flagged as an event; the first ball is
 * past the second's bounces and is rolled back (restores, counted); each
 * ball went through Event Mode once per bounce.  Tolerance of the bounce
 * times: the FMU finds each crossing from a state carried over the previous
 * points, a few roundings per point on O(1) values: 1e-13 > 30 points x 3
 * roundings x eps x max |v|/g ~ 1e-14 (scale-free in the small times). */
Test(master_event, bounces_are_communication_points)
{
    static const char *const fmus[] = {"ball_fmi3.fmu", "ball2_fmi3.fmu", "filter_fmi3.fmu"};
    run r;
    cr_assert_eq(run_net(&r, 3, fmus, NULL), COSA_OK, "%s %s", cosa_unit_message(r.unit[0]),
                 cosa_unit_message(r.unit[1]));
    double tb[16];
    const double h0[2] = {1.0, 0.6};
    for (int b = 0; b < 2; b++) {
        const size_t nb = bounces(h0[b], 1.0, tb);
        for (size_t k = 0; k < nb; k++)
            cr_expect(has_point(&r, tb[k], 1e-13), "ball %d bounce %zu at %.17g", b, k, tb[k]);
        cosa_unit_counters c;
        cosa_unit_get_counters(r.unit[b], &c);
        cr_expect_eq(c.events, nb, "ball %d: %zu events, %zu bounces", b, c.events, nb);
    }
    cosa_unit_counters c0;
    cosa_unit_get_counters(r.unit[0], &c0);
    cr_expect(c0.restores >= 1, "the first ball rolled back: %zu restores", c0.restores);
    /* grid points continue: 0.1 k all present (the fixed controller plans grid point n
     * at n H, one rounding as 0.1 * k, also after a cut (evolve.c evolve_fixed_plan); 1e-15,
     * 4.5 ulp(1), only admits a few roundings more on the way to the recorded time) */
    for (int k = 0; k <= 10; k++) {
        int found = 0;
        for (size_t j = 0; j < r.npts; j++)
            found |= fabs(r.t[j] - 0.1 * k) <= 1e-15;
        cr_expect(found, "grid point %d", k);
    }
    check_filter(&r, 4);
    run_free(&r);
}

/* The step source's time event at 0.35 cuts the step [0.3, 0.4]: a point
 * there, flagged, the output 1 from it on; the filter's ZOH response. */
Test(master_event, time_event_is_a_communication_point)
{
    static const char *const fmus[] = {"stepsrc_fmi3.fmu", "filter_fmi3.fmu"};
    run r;
    cr_assert_eq(run_net(&r, 2, fmus, NULL), COSA_OK, "%s", cosa_unit_message(r.unit[0]));
    cr_expect(has_point(&r, 0.35, 0.0), "a point at 0.35");
    for (size_t k = 0; k < r.npts; k++)
        cr_expect_eq(r.y[k][0], r.t[k] >= 0.35 ? 1.0 : 0.0, "y(%.17g)", r.t[k]);
    check_filter(&r, 1);
    run_free(&r);
}

/* The first ball cannot get and set its state: rolled back to the second's
 * bounce it cannot be -- one line naming it, COSA_EFMU. */
Test(master_event, no_fmu_state_is_named)
{
    static const char *const fmus[] = {"ballnostate_fmi3.fmu", "ball2_fmi3.fmu",
                                       "filter_fmi3.fmu"};
    run r;
    int iu;
    cr_assert_eq(run_net(&r, 3, fmus, &iu), COSA_EFMU);
    cr_expect_eq(iu, 0);
    cr_expect(strstr(cosa_unit_message(r.unit[0]), "FMU U0 stepped past the event") &&
                  strstr(cosa_unit_message(r.unit[0]), "canGetAndSetFMUState"),
              "%s", cosa_unit_message(r.unit[0]));
    run_free(&r);
}

/* The Lagrange basis on arbitrary nodes: on uniform nodes the tables of
 * the runs without events (to 16 eps of the O(binom) coefficients), and on
 * uneven nodes it reproduces a polynomial of degree p (an identity). */
Test(master_event, lagrange_on_actual_nodes)
{
    for (int p = 0; p <= 3; p++) {
        double s[4], a[16], b[16];
        for (int j = 0; j <= p; j++)
            s[j] = -(double)j;
        cosa_lagrange_nodes(p, s, a);
        cosa_lagrange_table(p, 0.0, b);
        for (int k = 0; k < (p + 1) * (p + 1); k++)
            cr_expect(fabs(a[k] - b[k]) <= 16 * DBL_EPSILON * (1.0 + fabs(b[k])), "p %d", p);
        const double sn[4] = {0.0, -0.013, -1.013, -2.013}; /* a short step after an event */
        cosa_lagrange_nodes(p, sn, a);
        /* q(s) = 1 + 2 s - s^2 + 0.5 s^3 truncated to degree p */
        const double qc[4] = {1.0, 2.0, -1.0, 0.5};
        for (int m = 0; m <= p; m++) {
            double c = 0.0, scale = 0.0;
            for (int j = 0; j <= p; j++) {
                double q = 0.0;
                for (int i = p; i >= 0; i--)
                    q = q * sn[j] + qc[i];
                c += a[j * (p + 1) + m] * q;
                scale += fabs(a[j * (p + 1) + m] * q);
            }
            cr_expect(fabs(c - qc[m]) <= 64 * DBL_EPSILON * scale, "p %d m %d: %.17g", p, m, c);
        }
    }
}
