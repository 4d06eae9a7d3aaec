/* osp_fixed.c -- libcosim's fixedStep algorithm with decimation (doc/osp.md):
 * the communication points are every base step H, and unit a steps only
 * at the base steps c with c % k_a == 0, one step of k_a H, its outputs
 * held in between.  As libcosim transfers: after base step c (the count of
 * steps done) the value of output j reaches input i only if c is a
 * multiple of lcm(k_a, k_b) (a the input's unit, b the output's), and a
 * unit reads its inputs when it starts a step.  With every k = 1 this is
 * the plain Jacobi run of cosa_ecco_run at a fixed step, to the bit (the
 * same sums in the same order).  The time is integer nanoseconds, a step's
 * length as a double the difference of its ends' times (libcosim's
 * to_double_duration).  A communication point records each output as
 * its unit's last step left it (a decimated unit's held between).  The run
 * is a configuration of the one loop (evolve_run, evolve.h): the due units'
 * steps as the stepper, libcosim's clock as the controller's plan, the
 * record and the end request as observers. */
#include "cosa/td.h"
#include "td/unit_impl.h"
#include "td/unitset_impl.h"
#include "td/master_impl.h"
#include "td/osp_clock.h"
#include "td/evolve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static unsigned long long gcd_ull(unsigned long long a, unsigned long long b)
{
    while (b) {
        const unsigned long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

struct decim_run {
    cosa_unitset *set;
    size_t nunits, nu, ny;
    const double *L;
    const unsigned *k;        /* nunits                                    */
    unsigned long long *per;  /* nu x ny: the transfer period of (i, j)     */
    double *yh;               /* nu x ny: output j as input i last got it   */
    double *u, *y;            /* nu, ny                                     */
    double *yp;               /* ny: the outputs at their units' last step
                                 end (what libcosim's observers saw last)  */
    size_t *uof, *yof;        /* nu, ny: the unit of each input, output    */
    long long h_ns, tend_ns;  /* the base step and the end (nanoseconds)    */
    cosa_ecco_result *r;      /* the record (r->n points, room for cap)     */
    size_t cap;
    size_t failed, ended;     /* the unit that failed, that asked to end    */
};

/* Room for point n of the record (doubling). */
static cosa_status room(cosa_ecco_result *r, size_t n, size_t *cap)
{
    if (n < *cap)
        return COSA_OK;
    const size_t c = *cap ? 2 * *cap : 1024;
    double *t = realloc(r->t, c * sizeof *t);
    if (t)
        r->t = t;
    double *h = t ? realloc(r->h, c * sizeof *h) : NULL;
    if (h)
        r->h = h;
    double *e = h ? realloc(r->err, c * sizeof *e) : NULL;
    if (e)
        r->err = e;
    double *y = e ? realloc(r->y, c * (r->ny + 1) * sizeof *y) : NULL;
    if (!y)
        return COSA_ENOMEM;
    r->y = y;
    *cap = c;
    return COSA_OK;
}

/* The units of the inputs and outputs and the transfer periods. */
static cosa_status layout(struct decim_run *d)
{
    for (size_t a = 0; a < d->nunits; a++) {
        size_t ou, oy;
        cosa_unitset_offsets(d->set, a, NULL, &ou, &oy);
        const cosa_unit *un = cosa_unitset_unit(d->set, a);
        if (d->k[a] == 0)
            return COSA_ERANGE;
        for (size_t r = 0; r < un->nu; r++)
            d->uof[ou + r] = a;
        for (size_t r = 0; r < un->ny; r++)
            d->yof[oy + r] = a;
    }
    for (size_t j = 0; j < d->ny; j++)
        for (size_t i = 0; i < d->nu; i++) {
            const unsigned long long ka = d->k[d->uof[i]], kb = d->k[d->yof[j]];
            d->per[i + j * d->nu] = ka / gcd_ull(ka, kb) * kb;
        }
    return COSA_OK;
}

/* Base step c from t_ns: the due units read their inputs and step k H. */
static cosa_status step_units(struct decim_run *d, unsigned long long c, long long t_ns,
                              long long h_ns, size_t *failed)
{
    cosa_status dst = cosa_unitset_discrete_exchange(d->set, failed); /* discrete signals */
    if (dst != COSA_OK)
        return dst;
    for (size_t i = 0; i < d->nu; i++) { /* u = L y with the held values */
        double v = 0.0;
        for (size_t j = 0; j < d->ny; j++)
            v += d->L[i + j * d->nu] * d->yh[i + j * d->nu];
        d->u[i] = v;
    }
    for (size_t a = 0; a < d->nunits; a++) {
        if (c % d->k[a] != 0)
            continue;
        cosa_unit *un = cosa_unitset_unit(d->set, a);
        size_t ou, oy;
        cosa_unitset_offsets(d->set, a, NULL, &ou, &oy);
        const long long end = t_ns + (long long)d->k[a] * h_ns;
        cosa_status st = cosa_unit_set_input(un, 0, d->u + ou);
        if (st == COSA_OK)
            st = cosa_unit_do_step(un, osp_to_s(end) - osp_to_s(t_ns));
        if (st == COSA_OK && un->ny)
            st = cosa_unit_get_output(un, d->y + oy);
        if (st != COSA_OK) {
            *failed = a;
            return st;
        }
    }
    return COSA_OK;
}

/* After base step c (c steps done): the transfers due, and the outputs of
 * the units whose step ended there. */
static void transfer(struct decim_run *d, unsigned long long c)
{
    for (size_t j = 0; j < d->ny; j++)
        if (c % d->k[d->yof[j]] == 0)
            d->yp[j] = d->y[j];
    for (size_t j = 0; j < d->ny; j++)
        for (size_t i = 0; i < d->nu; i++)
            if (c % d->per[i + j * d->nu] == 0)
                d->yh[i + j * d->nu] = d->y[j];
}

/* ---- the run as a configuration of the one loop (evolve.h) ------------------------- */

/* The loop's clock is libcosim's: base step c (= the steps committed, none
 * is ever rejected or cut) runs from c h_ns to (c + 1) h_ns nanoseconds,
 * while simulate_until goes on (osp_clock.h); the step's length is the
 * difference of its ends in seconds. */
static evolve_end decim_plan(void *ctx, evolve_attempt *a)
{
    const struct decim_run *d = ctx;
    const long long t_ns = (long long)a->k * d->h_ns;
    if (!osp_until_more(a->k, t_ns, d->tend_ns, d->h_ns))
        return EVOLVE_DONE;
    a->tn = osp_to_s(t_ns + d->h_ns);
    a->h = a->tn - osp_to_s(t_ns);
    return EVOLVE_GO;
}

/* every step accepted, a failed one ends the run (a result) */
static const evolve_controller decim_controller = {"libcosim fixedStep", decim_plan,
                                                   evolve_fixed_decide, NULL};

/* The due units step (base step a->k); the transfers once it is committed. */
static cosa_status decim_propose(void *ctx, const evolve_attempt *a)
{
    struct decim_run *d = ctx;
    return step_units(d, a->k, (long long)a->k * d->h_ns, d->h_ns, &d->failed);
}

static cosa_status decim_commit(void *ctx, const evolve_attempt *a)
{
    transfer(ctx, a->k + 1);
    return COSA_OK;
}

/* A failed step ends the run: nothing to restore. */
static cosa_status decim_reject(void *ctx, const evolve_attempt *a)
{
    (void)ctx, (void)a;
    return COSA_OK;
}

static size_t decim_failed_unit(void *ctx) { return ((const struct decim_run *)ctx)->failed; }

static const evolve_stepper decim_stepper = {"decimated units", decim_propose, decim_commit,
                                             decim_reject, decim_failed_unit, NULL, NULL};

/* Every unit failure ends the run as a result (README "Failures"). */
static int decim_is_failure(cosa_status st) { return st != COSA_OK; }

/* The record: the communication point the step reached. */
static cosa_status decim_record(void *ctx, const evolve_attempt *a, int *halt)
{
    struct decim_run *d = ctx;
    cosa_ecco_result *r = d->r;
    (void)halt;
    cosa_status st = room(r, r->n + 2, &d->cap);
    if (st != COSA_OK)
        return st;
    r->h[r->n] = a->h;
    r->err[r->n] = NAN;
    r->t[r->n + 1] = a->tn;
    memcpy(r->y + (r->n + 1) * d->ny, d->yp, d->ny * sizeof *d->y);
    r->n++;
    return COSA_OK;
}

/* A unit asked to end the simulation at the end of its step (a decimated
 * unit's step ends k base steps on: the others run there). */
static cosa_status decim_end_asked(void *ctx, const evolve_attempt *a, int *halt)
{
    struct decim_run *d = ctx;
    const size_t iu = cosa_unitset_end_asked(d->set);
    if (iu != (size_t)-1 &&
        a->tn >= cosa_unit_time(cosa_unitset_unit(d->set, iu)) - 0.5 * osp_to_s(d->h_ns)) {
        d->ended = iu;
        *halt = 1;
    }
    return COSA_OK;
}

/* The run from the state at t = 0 into d->r (its end, failure or
 * termination a result). */
static cosa_status decim_loop(struct decim_run *d)
{
    const evolve_observer obs[] = {{.committed = decim_record, .ctx = d},
                                   {.committed = decim_end_asked, .ctx = d}};
    const evolve_config c = {.stepper = &decim_stepper, .stepper_ctx = d,
                             .controller = &decim_controller, .controller_ctx = d,
                             .observers = obs, .nobservers = 2,
                             .is_failure = decim_is_failure};
    evolve_stats es;
    cosa_ecco_result *r = d->r;
    d->failed = d->ended = (size_t)-1;
    cosa_status st = evolve_run(&c, &es);
    if (st != COSA_OK)
        return st;
    r->run = es.run;
    if (es.end == EVOLVE_FAILED) {
        cosa_unit *un = cosa_unitset_unit(d->set, d->failed);
        r->failed = 1;
        snprintf(r->reason, sizeof r->reason, "%s",
                 un && cosa_unit_message(un)[0] ? cosa_unit_message(un)
                                                : cosa_strerror(es.last.fail));
    } else if (es.end == EVOLVE_HALTED) {
        r->terminated = 1;
        r->run.end = COSA_RUN_TERMINATED;
        snprintf(r->reason, sizeof r->reason, "%s",
                 cosa_unit_message(cosa_unitset_unit(d->set, d->ended)));
    }
    return COSA_OK;
}

cosa_status cosa_osp_fixed_run(cosa_unitset *set, const double *x0, double h,
                               const unsigned *k, double tend, cosa_ecco_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || !x0 || !k)
        return COSA_EINVAL;
    const long long h_ns = osp_to_ns(h), tend_ns = osp_to_ns(tend);
    if (!isfinite(h) || !isfinite(tend) || h_ns <= 0 || !(tend > 0.0))
        return COSA_ERANGE;
    struct decim_run d = {.set = set, .nunits = cosa_unitset_count(set), .k = k,
                          .nu = cosa_unitset_nu(set), .ny = cosa_unitset_ny(set),
                          .L = cosa_unitset_L(set), .h_ns = h_ns, .tend_ns = tend_ns};
    const size_t nm = d.nu * d.ny;
    cosa_ecco_result *r = calloc(1, sizeof *r);
    d.per = calloc(nm + 1, sizeof *d.per);
    d.yh = calloc(nm + d.nu + 2 * d.ny + 1, sizeof *d.yh);
    d.uof = calloc(d.nu + d.ny + 1, sizeof *d.uof);
    cosa_status st = r && d.per && d.yh && d.uof ? COSA_OK : COSA_ENOMEM;
    if (st == COSA_OK) {
        r->ny = d.ny;
        r->t_hmax = NAN;
        d.u = d.yh + nm;
        d.y = d.u + d.nu;
        d.yp = d.y + d.ny;
        d.yof = d.uof + d.nu;
        st = room(r, 1, &d.cap);
    }
    if (st == COSA_OK)
        st = layout(&d);
    cosa_unitset_counters_reset(set);
    /* the outputs at t = 0 with u = L y (the loop solved, as cosa_ecco_run) */
    const cosa_scheme s = {.order = 0, .corr = COSA_CORR_NONE, .alpha = 1.0,
                           .exec = COSA_JACOBI};
    const cosa_master_opts mo = {.extrapolation = COSA_EXTRAP_GIVEN};
    cosa_master *m = NULL;
    if (st == COSA_OK && (st = cosa_master_create(set, &s, osp_to_s(h_ns), &mo, &m)) == COSA_OK &&
        (st = cosa_master_init_loop(m, 0.0, x0)) == COSA_OK)
        st = cosa_master_get(m, NULL, NULL, NULL, d.y, NULL, NULL);
    cosa_master_free(m);
    if (st == COSA_OK) {
        r->t[0] = 0.0;
        memcpy(r->y, d.y, d.ny * sizeof *d.y);
        transfer(&d, 0);
        const clock_t c0 = clock();
        cosa_unitset_allow_end(set, 1);
        d.r = r;
        st = decim_loop(&d);
        cosa_unitset_allow_end(set, 0);
        r->run.seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    }
    free(d.per);
    free(d.yh);
    free(d.uof);
    if (st != COSA_OK) {
        cosa_ecco_result_free(r);
        return st;
    }
    *out = r;
    return COSA_OK;
}
