/* test_run_observers.c -- observers of the master in the defect run and the
 * variable-order engine (cosa_defect_opts.observers, cosa_vo_opts.observers:
 * the FMU initialization loop iterated again where the units start, README
 * "FMU import"): initialized once, where the run starts, at the state the
 * run starts from (x0 at t = 0 for the defect run; the exact reference at
 * t_s = (k+1) H for the engine, an independent route: the matrix
 * exponential), and step_complete after every committed step. */
#include <criterion/criterion.h>

#include "cosa.h"

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

/* twomass as exact linear units */
struct fx {
    cosa_system *sys;
    cosa_unit *u[2];
    cosa_unitset *set;
    double x0[16];
};

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    const cosa_model *m = cosa_model_find("twomass");
    cr_assert_not_null(m);
    double par[64];
    cosa_model_defaults(m, par);
    cr_assert_eq(m->create(m, par, &f->sys), COSA_OK);
    cr_assert_eq(m->initial_state(m, par, f->x0), COSA_OK);
    cr_assert_eq(cosa_system_nsub(f->sys), 2);
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(f->sys, i, &f->u[i]), COSA_OK);
    cr_assert_eq(cosa_unitset_create(2, f->u, cosa_system_L(f->sys), NULL, &f->set), COSA_OK);
}

static void fx_free(struct fx *f)
{
    cosa_unitset_free(f->set);
    cosa_unit_free(f->u[0]);
    cosa_unit_free(f->u[1]);
    cosa_system_free(f->sys);
}

Test(run_observers, defect_run_starts_at_x0)
{
    struct fx f;
    fx_init(&f);
    struct seen s = {0};
    const cosa_observer obs = {on_init, on_step, &s};
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
    fx_free(&f);
}

static cosa_status ref_exact(void *ctx, size_t n, const double *t, size_t nsel,
                             const size_t *sel, double *X)
{
    (void)nsel;
    cr_assert_null(sel);
    struct fx *f = ctx;
    cosa_reftraj *r = NULL;
    cosa_status st = cosa_reftraj_exact_at(f->sys, f->x0, n, t, &r);
    if (st == COSA_OK)
        memcpy(X, r->x, n * r->nx * sizeof *X);
    cosa_reftraj_free(r);
    return st;
}

Test(run_observers, vo_run_starts_at_t_s_on_the_reference)
{
    struct fx f;
    fx_init(&f);
    struct seen s = {0};
    const cosa_observer obs = {on_init, on_step, &s};
    cosa_vo_opts o;
    cosa_vo_opts_default(&o);
    o.k = 1;
    o.H = 1e-3;
    o.tend = 0.01;
    o.observers = &obs;
    o.nobservers = 1;
    cosa_vo_result *r = NULL;
    cr_assert_eq(cosa_vo_run(f.set, ref_exact, &f, &o, &r), COSA_OK);
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
    fx_free(&f);
}
