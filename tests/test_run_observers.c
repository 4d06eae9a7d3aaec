/* test_run_observers.c -- observers of the master in the defect run and the
 * variable-order engine (cosa_defect_opts.observers, cosa_vo_opts.observers:
 * the FMU initialization loop iterated again where the units start, README
 * "FMU import"): initialized once, where the run starts, at the state the
 * run starts from (x0 at t = 0 for the defect run; the exact reference at
 * t_s = (k+1) H for the engine, an independent route: the matrix
 * exponential), and step_complete after every committed step. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct seen {
    size_t init, steps;
    double t;
    double x[16];
};

static cosa_status on_init(const cosa_master *m, void *user)
{
    struct seen *s = user;
    s->init++;
    return cosa_master_get(m, &s->t, s->x, NULL, NULL, NULL, NULL);
}

static cosa_status on_step(const cosa_master *m, void *user)
{
    (void)m;
    ((struct seen *)user)->steps++;
    return COSA_OK;
}

/* The two-mass units with exact integrators and an observer counting into *s */
static cosa_observer start(tu_units *f, struct seen *s)
{
    tu_units_init(f, "twomass", "exact");
    cr_assert_eq(f->n, 2);
    memset(s, 0, sizeof *s);
    return (cosa_observer){on_init, on_step, s};
}

Test(run_observers, defect_run_starts_at_x0)
{
    tu_units f;
    struct seen s;
    const cosa_observer obs = start(&f, &s);
    const cosa_defect_opts o = {.in_order = 1, .out_order = 1, .H = 1e-3, .tend = 0.02,
                                .observers = &obs, .nobservers = 1};
    cosa_defect_result *r = NULL;
    cr_assert_eq(cosa_defect_run(f.set, f.x0, f.sys, &o, &r), COSA_OK);
    cr_expect_eq(s.init, 1);
    cr_expect_eq(s.t, 0.0);
    const size_t nx = cosa_system_nx(f.sys);
    cr_expect(memcmp(s.x, f.x0, nx * sizeof *s.x) == 0, "the state at the start is x0");
    cr_expect_eq(s.steps, r->nsteps, "step_complete %zu times, %zu steps", s.steps, r->nsteps);
    cosa_defect_result_free(r);
    tu_units_free(&f);
}

Test(run_observers, vo_run_starts_at_t_s_on_the_reference)
{
    tu_units f;
    struct seen s;
    const cosa_observer obs = start(&f, &s);
    cosa_vo_opts o;
    cosa_vo_opts_default(&o);
    o.k = 1;
    o.H = 1e-3;
    o.tend = 0.01;
    o.observers = &obs;
    o.nobservers = 1;
    cosa_vo_result *r = NULL;
    cr_assert_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &r), COSA_OK);
    cr_expect_eq(s.init, 1);
    const double ts = 2.0 * o.H; /* (k + 1) H */
    cr_expect(fabs(s.t - ts) <= 4.0 * DBL_EPSILON * ts, "started at %.17g, t_s %.17g", s.t, ts);
    /* the state there: the exact reference's (copied, so equal bitwise) */
    cosa_reftraj *ref = NULL;
    const double t2[2] = {0.0, ts};
    cr_assert_eq(cosa_reftraj_exact_at(f.sys, f.x0, 2, t2, &ref), COSA_OK);
    cr_expect(memcmp(s.x, ref->x + ref->nx, ref->nx * sizeof *s.x) == 0,
              "the state at t_s is the reference's");
    cr_expect(s.steps >= r->steps, "step_complete %zu times, %zu accepted steps", s.steps,
              r->steps);
    cosa_reftraj_free(ref);
    cosa_vo_result_free(r);
    tu_units_free(&f);
}
