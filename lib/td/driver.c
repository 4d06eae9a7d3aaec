/* driver.c -- one time-domain co-simulation run with the conventions of
 * doc/method.md: start on the reference at t = p H (state and the p+1 history
 * outputs from it), N macro steps, the global NRMSE of the corrected outputs
 * at the N new macro points, and divergence as a result ("diverged at t").
 * The result arrays are filled by an observer of the master (recorder), the
 * divergence test reads what it recorded. */
#include "cosa/td.h"
#include "td/energy.h"
#include "td/end_clip.h"
#include "td/evolve.h"
#include "td/failure.h"
#include "td/run_impl.h"
#include "td/stepping_impl.h"
#include "td/unit_impl.h"
#include "td/unitset_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIVERGE_FACTOR 1e6

void cosa_cosim_result_free(cosa_cosim_result *r)
{
    if (!r)
        return;
    free(r->t);
    cosa_energy_result_free(r->energy);
    if (r->events) {
        free(r->events->t);
        free(r->events->x);
        free(r->events->u);
        free(r->events->y);
        free(r->events->ybar);
        free(r->events->grid);
        free(r->events);
    }
    free(r);
}

static cosa_status result_alloc(size_t nx, size_t nu, size_t ny, size_t N, int events,
                                cosa_cosim_result **out)
{
    cosa_cosim_result *r = calloc(1, sizeof *r);
    if (!r)
        return COSA_ENOMEM;
    if (events && (!(r->events = calloc(1, sizeof *r->events)) ||
                   !(r->events->grid = calloc(N + 1, 1)))) {
        cosa_cosim_result_free(r);
        return COSA_ENOMEM;
    }
    const size_t nc = N + 1, total = nc * (1 + nx + 2 * nu + 3 * ny);
    r->t = malloc(total * sizeof(double));
    if (!r->t) {
        cosa_cosim_result_free(r);
        return COSA_ENOMEM;
    }
    for (size_t k = 0; k < total; k++)
        r->t[k] = NAN;
    r->x = r->t + nc;
    r->u = r->x + nx * nc;
    r->du = r->u + nu * nc;
    r->y = r->du + nu * nc;
    r->ybar = r->y + ny * nc;
    r->yref = r->ybar + ny * nc;
    r->nx = nx;
    r->nu = nu;
    r->ny = ny;
    r->nsteps = N;
    r->e_global = NAN;
    *out = r;
    return COSA_OK;
}

/* The recording observer: column n of the result after init (n = 0) and after
 * every committed step, and the divergence test on what it recorded. */
struct recorder {
    cosa_cosim_result *r;
    const cosa_reftraj *ref;
    size_t p, n;          /* next column */
    size_t N;             /* full steps: column N + 1 is the clipped end */
    double t_end;         /* its time */
    double factor, bound;
};

/* One more row of e's arrays (doubling the room). */
static cosa_status events_grow(cosa_cosim_events *e, size_t nx, size_t nu, size_t ny)
{
    if (e->n < e->cap)
        return COSA_OK;
    const size_t cap = e->cap ? 2 * e->cap : 16;
    double **arr[5] = {&e->t, &e->x, &e->u, &e->y, &e->ybar};
    const size_t w[5] = {1, nx, nu, ny, ny};
    for (int k = 0; k < 5; k++) {
        double *p = realloc(*arr[k], (cap * w[k] + 1) * sizeof *p);
        if (!p)
            return COSA_ENOMEM;
        *arr[k] = p;
    }
    e->cap = cap;
    return COSA_OK;
}

/* A communication point off the grid (an event) into r->events. */
static cosa_status record_event(const cosa_master *m, cosa_cosim_result *r, double t)
{
    cosa_cosim_events *e = r->events;
    const size_t nx = r->nx, nu = r->nu, ny = r->ny;
    cosa_status st = events_grow(e, nx, nu, ny);
    if (st != COSA_OK)
        return st;
    const size_t k = e->n++;
    e->t[k] = t;
    return cosa_master_get(m, NULL, e->x + k * nx, e->u + k * nu, e->y + k * ny,
                           e->ybar + k * ny, NULL);
}

static cosa_status record(const cosa_master *m, void *user_data)
{
    struct recorder *rec = user_data;
    cosa_cosim_result *r = rec->r;
    if (r->events) { /* off the grid (to rounding of the grid time): an event point */
        double tm;
        cosa_master_get(m, &tm, NULL, NULL, NULL, NULL, NULL);
        const double tg = rec->n > rec->N ? rec->t_end : (double)(rec->p + rec->n) * rec->ref->H;
        if (rec->n > 0 && !(fabs(tm - tg) <= 1e-9 * rec->ref->H))
            return record_event(m, r, tm);
        r->events->grid[rec->n] = (unsigned char)cosa_master_at_event(m);
    }
    const size_t n = rec->n++, nx = r->nx, nu = r->nu, ny = r->ny;
    r->t[n] = n > rec->N ? rec->t_end : (double)(rec->p + n) * rec->ref->H;
    cosa_master_get(m, NULL, r->x + n * nx, r->u + n * nu, r->y + n * ny, r->ybar + n * ny,
                    r->du + n * nu);
    if (n <= rec->N) /* the clipped end has no reference sample: NaN */
        memcpy(r->yref + n * ny, rec->ref->y + (rec->p + n) * ny, ny * sizeof(double));
    for (size_t k = 0; k < ny && n > 0; k++) {
        double a = fmax(fabs(r->y[k + n * ny]), fabs(r->ybar[k + n * ny]));
        if (!(a <= rec->bound)) { /* also NaN */
            r->diverged = 1;
            r->t_diverged = r->t[n];
            snprintf(r->reason, sizeof r->reason,
                     "output %zu = %.3g exceeds %.3g x the largest reference output %.3g", k, a,
                     rec->factor, r->yref_max);
            break;
        }
    }
    return COSA_OK;
}

/* The defect observer: after every committed step, the per-step output and
 * connection defects of the step (cosa_defect_step) from the master's step
 * data and the units' output derivatives at the step's end, accumulated as
 * sum H rms^2 per signal. */
struct defect_acc {
    cosa_unitset *set;
    int n;
    double *yder, *dout, *dconn, *sout, *sconn; /* ny (n+1), ny, nu, ny, nu */
    double T;
    cosa_status st;
};

static cosa_status defect_observe(const cosa_master *m, void *user_data)
{
    struct defect_acc *a = user_data;
    const size_t ny = cosa_unitset_ny(a->set), nu = cosa_unitset_nu(a->set);
    double H;
    int q;
    const double *uder, *ymid;
    cosa_status st = cosa_master_step_data(m, &H, &q, &uder, NULL, NULL, &ymid);
    if (st == COSA_OK && !ymid)
        st = COSA_EUNSUPPORTED; /* the mid sample was lost (cosa_master_mid_lost) */
    /* y^(0..n) at the step's end, with the step's input continued there */
    for (size_t i = 0; st == COSA_OK && i < cosa_unitset_count(a->set); i++) {
        cosa_unit *u = cosa_unitset_unit(a->set, i);
        size_t oy;
        cosa_unitset_offsets(a->set, i, NULL, NULL, &oy);
        const size_t nyi = cosa_unit_ny(u);
        if ((st = cosa_unit_get_output_derivatives(u, a->n, a->dout)) != COSA_OK)
            break;
        for (int j = 0; j <= a->n; j++)
            for (size_t r = 0; r < nyi; r++)
                a->yder[oy + r + (size_t)j * ny] = a->dout[r + (size_t)j * nyi];
    }
    if (st == COSA_OK)
        st = cosa_defect_step(a->set, H, q, uder, a->n, a->yder, ymid, COSA_DEFECT_BOTH, a->dout,
                              a->dconn, NULL);
    if (st != COSA_OK) {
        if (a->st == COSA_OK)
            a->st = st;
        return COSA_OK; /* the co-simulation goes on; the figures are NaN */
    }
    for (size_t l = 0; l < ny; l++)
        a->sout[l] += H * a->dout[l] * a->dout[l];
    for (size_t l = 0; l < nu; l++)
        a->sconn[l] += H * a->dconn[l] * a->dconn[l];
    a->T += H;
    return COSA_OK;
}

/* Macro point n of the energy accounting from the recorded column n, and
 * the correction force for the next step as the master's input offset (the
 * recorded input of column n then includes it). */
static cosa_status energy_point(energy_acc *a, cosa_master *m, cosa_cosim_result *r,
                                const cosa_reftraj *ref, size_t p, size_t n, double *uoff)
{
    const size_t nx = r->nx, nu = r->nu, ny = r->ny;
    cosa_status st = energy_acc_point(a, n, r->x + n * nx, ref->x + (p + n) * nx, r->y + n * ny,
                                      uoff);
    if (st == COSA_OK)
        st = cosa_master_set_input_offset(m, uoff);
    if (st == COSA_OK)
        st = cosa_master_get(m, NULL, NULL, r->u + n * nu, NULL, NULL, NULL);
    return st;
}

/* The energy observer: at t_0 (initialized) and after every committed step,
 * the indicators of the macro point and the correction for the next step
 * (registered after the recorder, whose column it reads). */
struct energy_obs {
    energy_acc *a;
    cosa_master *m; /* the run's master: the correction is its input offset */
    cosa_cosim_result *r;
    const cosa_reftraj *ref;
    size_t p, n;
    double *uoff;
};

static cosa_status energy_observe(const cosa_master *mc, void *user_data)
{
    (void)mc;
    struct energy_obs *e = user_data;
    const size_t n = e->n++;
    if (e->r->diverged) /* the recorder stopped the run at this point */
        return COSA_OK;
    return energy_point(e->a, e->m, e->r, e->ref, e->p, n, e->uoff);
}

/* The arguments of a run: COSA_EINVAL (NULL, sizes), COSA_ERANGE. */
cosa_status td_cosim_check(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt)
{
    if (!set || !s || !ref || !opt || (opt->nobservers && !opt->observers))
        return COSA_EINVAL;
    if (!(ref->H > 0.0) || !isfinite(ref->H) || isnan(opt->diverge_factor))
        return COSA_ERANGE;
    const size_t nx = cosa_unitset_nx(set), ny = cosa_unitset_ny(set);
    const size_t N = opt->nsteps;
    if (ref->nx != nx || ref->ny != ny || ny == 0)
        return COSA_EINVAL;
    if (N == 0 || s->order < 0 || s->order > COSA_ORDER_MAX ||
        ref->nsamples < (size_t)s->order + N + 1 || opt->nobservers + 3 > COSA_MASTER_OBSERVERS ||
        (opt->defects && (opt->defect_out_order < 0 || opt->defect_out_order > COSA_UNIT_DERMAX)))
        return COSA_ERANGE;
    if (opt->h_last != 0.0 && !(opt->h_last > 0.0 && opt->h_last < ref->H))
        return COSA_ERANGE; /* also NaN */
    if (opt->h_last > 0.0 && cosa_end_clip_refusal(s, opt))
        return COSA_EUNSUPPORTED;
    return COSA_OK;
}

struct halt_ctx {
    cosa_cosim_result *r;
    cosa_unitset *set;
};

/* The divergence test of the recorder as the loop's halt; and a unit's
 * request to end the simulation (unit_end.c) after the accepted step that
 * raised it (recorded: the run reached its end): r->diverged with r->fail
 * COSA_ETERMINATED, the unit's message as the reason. */
static cosa_status halt_on_divergence(void *ctx, const evolve_attempt *a, int *halt)
{
    struct halt_ctx *hc = ctx;
    cosa_cosim_result *r = hc->r;
    const size_t iu = cosa_unitset_end_asked(hc->set);
    if (!r->diverged && iu != (size_t)-1) {
        r->diverged = 1;
        r->fail = COSA_ETERMINATED;
        r->t_diverged = a->tn;
        snprintf(r->reason, sizeof r->reason, "%s",
                 cosa_unit_message(cosa_unitset_unit(hc->set, iu)));
    }
    *halt = r->diverged;
    return COSA_OK;
}

/* The N macro steps from t = p H (and h_last > 0: the short one to the
 * end, end_clip.h): fixed steps of the one loop, on the
 * master or, for iterative schemes, the iteration driving it; a unit's
 * failure or divergence ends them as a result (r->diverged, where, why);
 * other errors are returned. */
static cosa_status run_steps(cosa_master *m, cosa_iter *it, cosa_unitset *set, size_t N,
                             size_t p, double H, double h_last, const cosa_cancel *cancel,
                             cosa_cosim_result *r)
{
    evolve_fixed fixed;
    evolve_fixed_steps(&fixed, 0.0, p, N, H, h_last);
    struct halt_ctx hc = {r, set};
    const evolve_observer halt = {.committed = halt_on_divergence, .ctx = &hc};
    const evolve_config c = {.stepper = it ? &evolve_stepper_iter : &evolve_stepper_master,
                             .stepper_ctx = it ? (void *)it : (void *)m,
                             .controller = &evolve_controller_fixed,
                             .controller_ctx = &fixed,
                             .observers = &halt,
                             .nobservers = 1,
                             .is_failure = td_failure_is_result,
                             .t0 = (double)p * H,
                             .cancel = cancel};
    evolve_stats s;
    cosa_unitset_allow_end(set, 1);
    cosa_status st = evolve_run(&c, &s);
    cosa_unitset_allow_end(set, 0);
    if (st != COSA_OK)
        return st;
    if (s.end == EVOLVE_FAILED) {
        /* the step to t_{n+1} failed: nothing is recorded for it */
        size_t iu = it ? cosa_iter_failed_unit(it) : cosa_master_failed_unit(m);
        cosa_unit *un = cosa_unitset_unit(set, iu);
        r->diverged = 1;
        r->fail = s.last.fail;
        r->t_diverged = s.last.tn;
        if (un && cosa_unit_message(un)[0])
            snprintf(r->reason, sizeof r->reason, "unit %zu: %s", iu, cosa_unit_message(un));
        else
            snprintf(r->reason, sizeof r->reason, "%s", cosa_strerror(s.last.fail));
    }
    r->ndone = s.steps - s.last.cuts; /* grid steps (event points are extra) */
    r->run = s.run;
    if (r->diverged && r->fail == COSA_ETERMINATED)
        r->run.end = COSA_RUN_TERMINATED;
    if (r->run.fail_unit >= cosa_unitset_count(set))
        r->run.fail_unit = (size_t)-1;
    return COSA_OK;
}

/* The run RMS of the defects: the largest over the outputs and over the
 * inputs, sqrt(sum H rms^2 / T) (NaN when none were measured). */
static void defect_figures(const struct defect_acc *dacc, size_t ny, size_t nu,
                           cosa_cosim_result *r)
{
    if (dacc->st != COSA_OK || !(dacc->T > 0.0))
        return;
    r->defect_out = r->defect_conn = 0.0;
    for (size_t l = 0; l < ny; l++)
        r->defect_out = fmax(r->defect_out, sqrt(dacc->sout[l] / dacc->T));
    for (size_t l = 0; l < nu; l++)
        r->defect_conn = fmax(r->defect_conn, sqrt(dacc->sconn[l] / dacc->T));
}

cosa_status cosa_cosim_run(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt, cosa_cosim_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    cosa_status st = td_cosim_check(set, s, ref, opt);
    return st != COSA_OK ? st : td_cosim_exec(set, s, ref, opt, out);
}

/* Why the defects are NaN when a unit's mid-sample half step failed:
 * "unit NAME: message" into r->defect_lost. */
static void defect_lost(const cosa_master *m, const cosa_unitset *set, cosa_cosim_result *r)
{
    const char *why;
    const size_t i = cosa_master_mid_lost(m, &why);
    if (i >= cosa_unitset_count(set))
        return;
    const char *name = cosa_unitset_unit_name(set, i);
    if (name)
        snprintf(r->defect_lost, sizeof r->defect_lost, "unit %s: %s", name, why);
    else
        snprintf(r->defect_lost, sizeof r->defect_lost, "unit %zu: %s", i, why);
}

/* The defect accumulator's buffers (one block, returned for free()):
 * y^(0..n) of every output, the defects and their sums; NULL without
 * memory. */
static double *defect_buffers(struct defect_acc *d, size_t ny, size_t nu)
{
    const size_t nd = (size_t)d->n + 1;
    const size_t big = ny * nd; /* one unit's derivatives fit in dout's room */
    double *buf = calloc(ny * nd + big + 2 * nu + ny + 1, sizeof *buf);
    if (!buf)
        return NULL;
    d->yder = buf;
    d->dout = d->yder + ny * nd;
    d->dconn = d->dout + big;
    d->sout = d->dconn + nu;
    d->sconn = d->sout + ny;
    return buf;
}

/* The run's figures once its steps are done: the iteration's statistics
 * (it may be NULL), the defects (dacc NULL: none, NaN) and e_global
 * (inf after divergence; NaN where the NRMSE is undefined, and without a
 * reference: noref). */
static cosa_status run_figures(cosa_iter *it, const struct defect_acc *dacc, int noref,
                               cosa_cosim_result *r)
{
    const size_t ny = r->ny, N = r->nsteps - (size_t)r->clipped; /* the grid points */
    if (it) {
        r->iterative = 1;
        cosa_iter_get_stats(it, &r->iter);
        r->run.rollbacks += r->iter.rollbacks;
        r->run.corrector_iterations = r->iter.sweeps;
    }
    r->defect_out = r->defect_conn = NAN;
    if (dacc)
        defect_figures(dacc, ny, r->nu, r);
    if (noref) /* cosa_reftraj_none: nothing to compare with */
        return COSA_OK;
    /* a run a unit ended (terminateSimulation): over the horizon reached */
    const int ended = r->diverged && r->fail == COSA_ETERMINATED;
    if (r->diverged && !ended) {
        r->e_global = INFINITY;
        return COSA_OK;
    }
    const size_t Ne = ended ? (r->ndone < N ? r->ndone : N) : N;
    cosa_status st = cosa_traj_nrmse(ny, Ne, r->ybar + ny, ny, r->yref + ny, ny, &r->e_global,
                                     &r->ncomp);
    /* undefined: one macro point (N = 1), or all outputs constant: NaN */
    return st == COSA_ERANGE ? COSA_OK : st;
}

/* The run itself, on a description td_cosim_check accepted (run_impl.h). */
cosa_status td_cosim_exec(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                          const cosa_cosim_opts *opt, cosa_cosim_result **out)
{
    *out = NULL;
    cosa_status st = COSA_OK;
    cosa_unitset_counters_reset(set); /* the units' counters are this run's */
    const size_t nx = cosa_unitset_nx(set), nu = cosa_unitset_nu(set),
                 ny = cosa_unitset_ny(set);
    const size_t N = opt->nsteps;
    /* p0: the first macro point's index on the reference (p: doc/method.md's
     * start on the reference at t = p H; 0: from the initial state) */
    const size_t np = (size_t)s->order + 1, p = opt->start_initial ? 0 : (size_t)s->order;
    const double H = ref->H;
    double factor = opt->diverge_factor > 0.0 ? opt->diverge_factor : DIVERGE_FACTOR;

    cosa_master *m = NULL;
    cosa_iter *it = NULL; /* iterative schemes: the iteration drives the master */
    const int iterative = cosa_iteration_of(s)->iterates;
    cosa_cosim_result *r = NULL;
    double *yhist = NULL;
    cosa_master_opts mopt = opt->master;
    struct defect_acc dacc = {.set = set, .n = opt->defect_out_order};
    double *dbuf = NULL;
    /* the combination rules of the one table (lib/core/combination.c): an
     * iterative scheme starts on the reference without the energy correction;
     * event points take plain explicit Jacobi without energy; the energy
     * correction acts on plain Jacobi couplings only (the master checks its
     * own: multi-rate, held inputs, input builders) */
    const unsigned features =
        (opt->start_initial ? COSA_COMB_INITIAL : 0u) | (opt->energy ? COSA_COMB_ENERGY : 0u) |
        (opt->energy && opt->energy->correct ? COSA_COMB_ENERGY_CORRECT : 0u) |
        (opt->master.events ? COSA_COMB_EVENTS : 0u);
    if ((st = cosa_combination_check(s, features, 0, NULL)) != COSA_OK)
        return st;
    if (opt->defects && !iterative && !opt->master.events) { /* (no mid sample with given inputs) */
        /* the mid sample comes from a snapshot: the steps are unchanged;
         * a half step a unit cannot take loses the sample, not the run */
        mopt.sample_mid = 2;
        if (!(dbuf = defect_buffers(&dacc, ny, nu)))
            return COSA_ENOMEM;
    }
    energy_acc *eacc = NULL;
    double *uoff = NULL;
    if (opt->energy &&
        ((st = energy_acc_create(opt->energy, cosa_unitset_port(set), nx, nu, ny, N, H, &eacc)) !=
             COSA_OK ||
         !(uoff = calloc(nu + 1, sizeof *uoff)))) {
        free(dbuf);
        energy_acc_free(eacc);
        return st != COSA_OK ? st : COSA_ENOMEM;
    }
    /* the scheme's iterations, or to the iteration entry's default tolerance */
    const cosa_iter_opts io = {.tol = cosa_iteration_of(s)->tol, .converge = s->iterations == 0};
    st = cosa_coupling_stepper_create(set, s, H, &mopt, opt->iter ? opt->iter : &io, &it, &m);
    if (st != COSA_OK) {
        free(dbuf);
        energy_acc_free(eacc);
        free(uoff);
        return st;
    }
    const int clip = opt->h_last > 0.0; /* the end clip (end_clip.h) */
    const double t_end = clip ? (double)(p + N) * H + opt->h_last : 0.0;
    if ((st = result_alloc(nx, nu, ny, N + (size_t)clip, mopt.events, &r)) != COSA_OK)
        goto fail;
    r->clipped = clip;
    yhist = malloc(ny * np * sizeof *yhist);
    if (!yhist) {
        st = COSA_ENOMEM;
        goto fail;
    }
    /* start-up: x = x_ref(pH), ybar_{-j} = y_ref((p-j)H) */
    double ymax = 0.0;
    for (size_t k = 0; k < ny * (p + N + 1); k++)
        ymax = fmax(ymax, fabs(ref->y[k]));
    r->yref_max = ymax;
    /* no reference (cosa_reftraj_none): the bound from the start-up samples,
     * none (finite values only) when their outputs are all 0 */
    const double bound = ref->none && !(ymax > 0.0) ? INFINITY : factor * ymax;
    struct recorder rec = {.r = r, .ref = ref, .p = p, .N = N, .t_end = t_end,
                           .factor = factor, .bound = bound};
    const cosa_observer recorder = {.initialized = record, .step_complete = record,
                                    .user_data = &rec};
    cosa_master_add_observer(m, &recorder);
    const cosa_observer defect_obs = {.step_complete = defect_observe, .user_data = &dacc};
    if (opt->defects && !mopt.events)
        cosa_master_add_observer(m, &defect_obs);
    struct energy_obs eobs = {eacc, m, r, ref, p, 0, uoff};
    const cosa_observer energy_obs = {.initialized = energy_observe,
                                      .step_complete = energy_observe, .user_data = &eobs};
    if (eacc)
        cosa_master_add_observer(m, &energy_obs);
    for (size_t k = 0; k < opt->nobservers; k++)
        cosa_master_add_observer(m, &opt->observers[k]);
    if (opt->start_initial)
        st = cosa_master_init_initial(m, 0.0, ref->x);
    else {
        for (size_t j = 0; j < np; j++)
            memcpy(yhist + j * ny, ref->y + (p - j) * ny, ny * sizeof *yhist);
        st = cosa_master_init(m, (double)p * H, ref->x + p * nx, yhist, NULL);
    }
    if (st != COSA_OK)
        goto fail;
    if ((st = run_steps(m, it, set, N, p, H, opt->h_last, opt->cancel, r)) != COSA_OK)
        goto fail;
    if (eacc)
        r->energy = energy_acc_take(eacc);
    if ((st = run_figures(it, opt->defects && !mopt.events ? &dacc : NULL, ref->none, r)) !=
        COSA_OK)
        goto fail;
    if (mopt.sample_mid)
        defect_lost(m, set, r);
    free(yhist);
    free(dbuf);
    free(uoff);
    energy_acc_free(eacc);
    if (it)
        cosa_iter_free(it); /* with its master */
    else
        cosa_master_free(m);
    *out = r;
    return COSA_OK;
fail:
    free(yhist);
    free(dbuf);
    free(uoff);
    energy_acc_free(eacc);
    if (it)
        cosa_iter_free(it); /* with its master */
    else
        cosa_master_free(m);
    cosa_cosim_result_free(r);
    return st;
}
