/* defect_run.c -- one defect-controlled co-simulation run (defect paper
 * Algorithm 1; issue 12 section 3): a driver over the staged master with
 * the Taylor extrapolation kind and mid-step samples, the per-step defects
 * as the estimator (cosa_defect_step) and a controller from the table
 * (cosa_controller_*) choosing the next macro step from the controlled
 * defect.  Run figures: defect RMS per signal, the error of the output
 * polynomials against the exact monolithic solution, continuous in time,
 * and the step statistics. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cosa/td.h"
#include "td/evolve.h"
#include "td/failure.h"
#include "td/run_impl.h"
#include "td/unitset_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define END_RTOL 1e-12 /* a step ending within END_RTOL T of T ends at T */

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cosa_defect_result_free(cosa_defect_result *r)
{
    if (!r)
        return;
    free(r->defect_out);
    free(r->t);
    free(r->step_out);
    free(r->coef);
    free(r);
}

/* Room for cap steps in the per-step records. */
static cosa_status records_grow(cosa_defect_result *r, size_t cap)
{
    const size_t ny = r->ny, nu = r->nu, nc = (size_t)r->out_order + 1;
    double *t = realloc(r->t, 3 * cap * sizeof *t);
    if (!t)
        return COSA_ENOMEM;
    /* t, h, eps share one block: move h and eps up to their new places */
    const size_t old = r->t ? (size_t)(r->h - r->t) : 0;
    if (old) {
        memmove(t + 2 * cap, t + 2 * old, old * sizeof *t);
        memmove(t + cap, t + old, old * sizeof *t);
    }
    r->t = t;
    r->h = t + cap;
    r->eps = t + 2 * cap;
    double *so = realloc(r->step_out, (ny + nu) * cap * sizeof *so);
    if (!so)
        return COSA_ENOMEM;
    if (old)
        memmove(so + ny * cap, so + ny * old, nu * old * sizeof *so);
    r->step_out = so;
    r->step_conn = so + ny * cap;
    double *c = realloc(r->coef, ny * nc * cap * sizeof *c);
    if (!c)
        return COSA_ENOMEM;
    r->coef = c;
    return COSA_OK;
}

/* The exact monolithic output y* = C* e^{A* s} x0 at s (ny), through the
 * workspace of the caller (A*, C*, the exponential). */
struct exact_ref {
    size_t nx, ny;
    double *As, *Cs, *M, *E, *xs, *xw; /* xw: 2 nx (exact_bound) */
    const double *x0;
    cosa_expm_workspace *ew;
};

static cosa_status exact_at(struct exact_ref *e, double s, double *y)
{
    for (size_t k = 0; k < e->nx * e->nx; k++)
        e->M[k] = s * e->As[k];
    cosa_status st = cosa_expm(e->nx, e->M, e->nx, e->E, e->nx, e->ew);
    if (st != COSA_OK)
        return st;
    for (size_t i = 0; i < e->nx; i++) {
        double acc = 0.0;
        for (size_t j = 0; j < e->nx; j++)
            acc += e->E[i + j * e->nx] * e->x0[j];
        e->xs[i] = acc;
    }
    for (size_t r = 0; r < e->ny; r++) {
        double acc = 0.0;
        for (size_t j = 0; j < e->nx; j++)
            acc += e->Cs[r + j * e->ny] * e->xs[j];
        y[r] = acc;
    }
    return COSA_OK;
}

static void exact_free(struct exact_ref *e)
{
    free(e->As);
    cosa_expm_workspace_free(e->ew);
}

static cosa_status exact_init(struct exact_ref *e, const cosa_system *sys, const double *x0)
{
    memset(e, 0, sizeof *e);
    e->nx = cosa_system_nx(sys);
    e->ny = cosa_system_ny(sys);
    e->x0 = x0;
    const size_t nx = e->nx, ny = e->ny;
    e->As = malloc((4 * nx * nx + ny * nx + 3 * nx + 1) * sizeof(double));
    e->ew = cosa_expm_workspace_alloc(nx);
    if (!e->As || !e->ew) {
        exact_free(e);
        return COSA_ENOMEM;
    }
    e->Cs = e->As + nx * nx;
    e->M = e->Cs + ny * nx;
    e->E = e->M + nx * nx;
    e->xs = e->E + nx * nx;
    e->xw = e->xs + nx;
    cosa_status st = cosa_system_monolithic(sys, e->As, e->Cs);
    if (st != COSA_OK)
        exact_free(e);
    return st;
}

#define DIVERGE_FACTOR 1e6 /* the fixed-step driver's factor (driver.c) */
#define BOUND_SAMPLES 1024 /* samples of y* over [0, T] for its largest magnitude */

/* The divergence bound of README "Failures": DIVERGE_FACTOR x the largest
 * |y*_r| over [0, T], sampled at s_k = k T / BOUND_SAMPLES by x*(s_{k+1}) =
 * e^{A* T / BOUND_SAMPLES} x*(s_k) (one exponential).  A sampled maximum
 * is below the true one by at most the variation between samples, which
 * the factor 1e6 makes immaterial. */
static cosa_status exact_bound(struct exact_ref *e, double T, double *bound)
{
    const size_t nx = e->nx, ny = e->ny;
    for (size_t k = 0; k < nx * nx; k++)
        e->M[k] = (T / BOUND_SAMPLES) * e->As[k];
    cosa_status st = cosa_expm(nx, e->M, nx, e->E, nx, e->ew);
    if (st != COSA_OK)
        return st;
    double *x = e->xw, *xn = e->xw + nx;
    double ymax = 0.0;
    memcpy(x, e->x0, nx * sizeof *x);
    for (size_t k = 0; k <= BOUND_SAMPLES; k++) {
        for (size_t r = 0; r < ny; r++) {
            double acc = 0.0;
            for (size_t j = 0; j < nx; j++)
                acc += e->Cs[r + j * ny] * x[j];
            ymax = fmax(ymax, fabs(acc));
        }
        for (size_t i = 0; i < nx; i++) {
            double acc = 0.0;
            for (size_t j = 0; j < nx; j++)
                acc += e->E[i + j * nx] * x[j];
            xn[i] = acc;
        }
        memcpy(x, xn, nx * sizeof *x);
    }
    *bound = ymax > 0.0 ? DIVERGE_FACTOR * ymax : INFINITY; /* zero: no scale */
    return COSA_OK;
}

/* int_{t0}^{t0+h} sum_r (Y_r(s) - y*_r(s))^2 ds per output r (8-point
 * Gauss-Legendre: exact for the polynomial part up to degree 15; the
 * exponential part is smooth on the step), Y from coef (ny x (n+1)) about
 * t0 + h. */
static cosa_status step_error(struct exact_ref *e, double t0, double h, int n, const double *coef,
                              double *ysq, double *acc)
{
    static const double gx[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                 0.9602898564975363};
    static const double gw[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                 0.1012285362903763};
    const size_t ny = e->ny;
    for (size_t r = 0; r < ny; r++)
        acc[r] = 0.0;
    for (int k = 0; k < 8; k++) {
        const double xi = k < 4 ? -gx[3 - k] : gx[k - 4], wi = k < 4 ? gw[3 - k] : gw[k - 4];
        const double s = t0 + 0.5 * h * (xi + 1.0), ds = s - (t0 + h);
        cosa_status st = exact_at(e, s, ysq);
        if (st != COSA_OK)
            return st;
        for (size_t r = 0; r < ny; r++) {
            double Y = 0.0, p = 1.0, fact = 1.0;
            for (int j = 0; j <= n; j++) {
                if (j > 0) {
                    p *= ds;
                    fact *= j;
                }
                Y += coef[r + (size_t)j * ny] * p / fact;
            }
            const double d = Y - ysq[r];
            acc[r] += 0.5 * h * wi * d * d;
        }
    }
    return COSA_OK;
}

const char *cosa_defect_end_name(cosa_defect_end e)
{
    static const char *const names[] = {"ok", "failed", "max-steps", "hmin"};
    return (unsigned)e < sizeof names / sizeof *names ? names[e] : NULL;
}

/* Validation at the boundary: COSA_EINVAL (NULL, sizes), COSA_ERANGE. */
cosa_status td_defect_check(cosa_unitset *set, const double *x0, const cosa_system *exact,
                            const cosa_defect_opts *o)
{
    const size_t nx = cosa_unitset_nx(set), ny = cosa_unitset_ny(set);
    if (!set || !o || (nx && !x0) || ny == 0)
        return COSA_EINVAL;
    const int fixed = o->tol == 0.0;
    if (o->in_order < 0 || o->in_order > COSA_UNIT_DEGMAX || o->out_order < 0 ||
        o->out_order > COSA_UNIT_DERMAX || !(o->tend > 0.0) || !isfinite(o->tend) ||
        (fixed && (!(o->H > 0.0) || !isfinite(o->H))) ||
        (!fixed && (!(o->tol > 0.0) || !isfinite(o->tol) || !(o->h0 > 0.0) ||
                    !isfinite(o->h0) || o->H != 0.0)) ||
        (o->control != COSA_DEFECT_BOTH && o->control != COSA_DEFECT_OUTPUT &&
         o->control != COSA_DEFECT_CONNECTION) ||
        !(o->hmin >= 0.0) || !isfinite(o->hmin))
        return COSA_ERANGE;
    if (exact && (cosa_system_nx(exact) != nx || cosa_system_ny(exact) != ny))
        return COSA_EINVAL;
    return COSA_OK;
}

/* One run's state: the master, the controller, the reference, the result
 * being filled and the estimator's workspace. */
struct drun {
    cosa_unitset *set;
    const cosa_defect_opts *o;
    int fixed, n;
    size_t ny, nu;
    cosa_master *m;
    cosa_controller *ctl;
    cosa_defect_result *r;
    size_t cap;           /* room in r's per-step records                  */
    size_t max_steps;     /* the step limit (opts.max_steps or the default)  */
    struct exact_ref ex;
    int have_exact;
    double bound;         /* divergence: 1e6 max |y*| over [0, T] (inf: none) */
    double *work;
    double *dout, *dconn, *ytmp, *eacc; /* in work                          */
    const double *yend;   /* the proposal's output coefficients (master's)   */
    double hnext;         /* the controller's next step                      */
    evolve_fixed grid;    /* fixed: the steps to T (evolve_fixed_horizon)    */
    double tref;          /* wall time in the exact solution [s]             */
};

static void drun_free(struct drun *d)
{
    cosa_controller_free(d->ctl);
    cosa_master_free(d->m);
    if (d->have_exact)
        exact_free(&d->ex);
    free(d->work);
}

/* The result with its run figures zeroed and room for the first steps. */
static cosa_status result_alloc(struct drun *d)
{
    const size_t ny = d->ny, nu = d->nu;
    cosa_defect_result *r = d->r = calloc(1, sizeof *r);
    if (!r)
        return COSA_ENOMEM;
    r->ny = ny;
    r->nu = nu;
    r->out_order = d->n;
    r->defect_out = calloc(3 * ny + nu + 1, sizeof(double));
    if (!r->defect_out)
        return COSA_ENOMEM;
    r->defect_conn = r->defect_out + ny;
    r->error = r->defect_conn + nu;
    r->y_end = r->error + ny;
    d->cap = d->max_steps < 256 ? d->max_steps : 256;
    return records_grow(r, d->cap);
}

/* Everything a run needs: the workspace, the result, the reference, the
 * master (Jacobi, Taylor inputs of degree min(m, n), mid samples) and, for
 * a controlled run, the controller. */
static cosa_status drun_setup(struct drun *d, const double *x0, const cosa_system *exact)
{
    const cosa_defect_opts *o = d->o;
    const size_t ny = d->ny, nu = d->nu;
    cosa_status st;
    d->work = calloc(3 * ny + 3 * nu + 1, sizeof *d->work);
    if (!d->work)
        return COSA_ENOMEM;
    d->dout = d->work;
    d->dconn = d->dout + ny;
    d->ytmp = d->dconn + nu;
    d->eacc = d->ytmp + ny;
    if ((st = result_alloc(d)) != COSA_OK)
        return st;
    if (exact) {
        if ((st = exact_init(&d->ex, exact, x0)) != COSA_OK)
            return st;
        d->have_exact = 1;
        const double t0 = wall_seconds();
        st = exact_bound(&d->ex, o->tend, &d->bound);
        d->tref += wall_seconds() - t0;
        if (st != COSA_OK)
            return st;
    }
    const cosa_scheme s = {.order = o->in_order, .corr = COSA_CORR_NONE, .alpha = 1.0,
                           .exec = COSA_JACOBI};
    const cosa_master_opts mo = {.extrapolation = COSA_EXTRAP_TAYLOR, .out_order = d->n,
                                 .sample_mid = 1};
    if ((st = cosa_master_create(d->set, &s, d->fixed ? o->H : o->h0, &mo, &d->m)) != COSA_OK)
        return st;
    for (size_t k = 0; k < o->nobservers; k++)
        if ((st = cosa_master_add_observer(d->m, &o->observers[k])) != COSA_OK)
            return st;
    if ((st = cosa_master_init(d->m, 0.0, x0, NULL, NULL)) != COSA_OK)
        return st;
    if (d->fixed)
        return COSA_OK;
    const cosa_controller_type *type =
        o->controller ? o->controller : cosa_controller_lookup("pi");
    cosa_controller_params cp;
    if (!type)
        return COSA_EINVAL;
    if ((st = cosa_controller_defaults(type, o->tol, &cp)) != COSA_OK ||
        (st = cosa_controller_create(type, &cp, &d->ctl)) != COSA_OK ||
        (st = cosa_controller_reset(d->ctl, o->h0)) != COSA_OK)
        return st;
    return COSA_OK;
}

/* A unit's failure on the step ending at tn: a result. */
static void unit_failed(struct drun *d, cosa_status st, double tn)
{
    size_t iu = cosa_master_failed_unit(d->m);
    cosa_unit *un = cosa_unitset_unit(d->set, iu);
    cosa_defect_result *r = d->r;
    r->failed = 1;
    r->end = COSA_DEFECT_END_FAILED;
    r->t_failed = tn;
    snprintf(r->reason, sizeof r->reason, "%s%s%s", un ? "unit: " : "",
             un && cosa_unit_message(un)[0] ? cosa_unit_message(un) : "",
             un && cosa_unit_message(un)[0] ? "" : cosa_strerror(st));
}

/* Step k [t, t + h = tn] into the records and run figures: its defects,
 * output coefficients yend and, with the reference, its error. */
static cosa_status record_step(struct drun *d, size_t k, double t, double h, double tn,
                               double eps, const double *yend)
{
    cosa_defect_result *r = d->r;
    const size_t ny = d->ny, nu = d->nu;
    const int n = d->n;
    cosa_status st;
    if (k == d->cap) {
        /* at most max_steps records: the memory stays bounded */
        d->cap = d->cap < d->max_steps / 2 ? 2 * d->cap : d->max_steps;
        if ((st = records_grow(r, d->cap)) != COSA_OK)
            return st;
    }
    for (size_t l = 0; l < ny; l++) {
        r->defect_out[l] += h * d->dout[l] * d->dout[l];
        r->step_out[l + k * ny] = d->dout[l];
    }
    for (size_t l = 0; l < nu; l++) {
        r->defect_conn[l] += h * d->dconn[l] * d->dconn[l];
        r->step_conn[l + k * nu] = d->dconn[l];
    }
    memcpy(r->coef + k * ny * (size_t)(n + 1), yend, ny * (size_t)(n + 1) * sizeof *yend);
    if (d->have_exact) {
        const double t0 = wall_seconds();
        st = step_error(&d->ex, t, h, n, yend, d->ytmp, d->eacc);
        d->tref += wall_seconds() - t0;
        if (st != COSA_OK)
            return st;
        for (size_t l = 0; l < ny; l++)
            r->error[l] += d->eacc[l];
    }
    r->t[k] = tn;
    r->h[k] = h;
    r->eps[k] = eps;
    r->eps_max = fmax(r->eps_max, eps);
    r->h_min = fmin(r->h_min, h);
    r->h_max = fmax(r->h_max, h);
    memcpy(r->y_end, yend, ny * sizeof *yend);
    return COSA_OK;
}

/* A run that stops short of T at t (the time reached). */
static void stopped(cosa_defect_result *r, cosa_defect_end end, double t)
{
    r->failed = 1;
    r->end = end;
    r->t_failed = t;
}

/* ---- Algorithm 1 as a configuration of the one loop (evolve.h) ------------------------ */

/* The estimator: the step's defects (cosa_defect_step), the controlled one
 * as the error; outputs that left the finite numbers are a failed step. */
static cosa_status defect_estimate(void *ctx, evolve_attempt *a)
{
    struct drun *d = ctx;
    int q;
    const double *uder, *ymid;
    cosa_master_step_data(d->m, NULL, &q, &uder, NULL, &d->yend, &ymid);
    cosa_status st = cosa_defect_step(d->set, a->h, q, uder, d->n, d->yend, ymid, d->o->control,
                                      d->dout, d->dconn, &a->err);
    if (st == COSA_ENONFINITE) {
        a->fail = st;
        a->fail_estimate = 1;
        return COSA_OK;
    }
    return st;
}

static const evolve_estimator defect_estimator = {"defects", defect_estimate};

/* The controllers' clock: the step limit; fixed steps by the one
 * fixed-step rule (evolve_fixed_plan: full steps of H, the last one ending
 * at T, or a short one to T), the controlled step shortened to end at T. */
static evolve_end plan_fixed(void *ctx, evolve_attempt *a)
{
    struct drun *d = ctx;
    if (a->k == d->max_steps)
        return EVOLVE_LIMIT;
    return evolve_fixed_plan(&d->grid, a);
}

static evolve_end plan_controlled(void *ctx, evolve_attempt *a)
{
    struct drun *d = ctx;
    if (a->k == d->max_steps)
        return EVOLVE_LIMIT;
    a->h = d->hnext;
    a->tn = a->t + a->h;
    evolve_clip_to_end(a, d->o->tend, END_RTOL, 0);
    return EVOLVE_GO;
}

/* Every measured step is accepted (Algorithm 1 never rejects); a failed
 * one ends the run, the last one too. */
static cosa_status decide_fixed(void *ctx, const evolve_attempt *a, evolve_decision *dec)
{
    (void)ctx;
    dec->accept = a->fail == COSA_OK;
    dec->end = !dec->accept ? EVOLVE_FAILED : a->last ? EVOLVE_DONE : EVOLVE_GO;
    return COSA_OK;
}

/* The floor of the controlled step: opts.hmin, or COSA_DEFECT_HMIN for 0. */
static double defect_hmin(const cosa_defect_opts *o)
{
    return o->hmin > 0.0 ? o->hmin : COSA_DEFECT_HMIN;
}

/* ... and the controller of the table chooses the next step from the
 * controlled defect, with the floor hmin. */
static cosa_status decide_controlled(void *ctx, const evolve_attempt *a, evolve_decision *dec)
{
    struct drun *d = ctx;
    decide_fixed(ctx, a, dec);
    if (dec->end != EVOLVE_GO)
        return COSA_OK;
    cosa_status st = cosa_controller_next(d->ctl, a->h, a->err, &d->hnext, NULL);
    if (st == COSA_OK && d->hnext < defect_hmin(d->o))
        dec->end = EVOLVE_HMIN;
    return st;
}

static const evolve_controller defect_controllers[] = {
    {"fixed", plan_fixed, decide_fixed, NULL},
    {"controlled", plan_controlled, decide_controlled, NULL},
};

/* The recording observer: the committed step into the records. */
static cosa_status record_committed(void *ctx, const evolve_attempt *a, int *halt)
{
    struct drun *d = ctx;
    cosa_status st = record_step(d, a->k, a->t, a->h, a->tn, a->err, d->yend);
    /* divergence (README "Failures"): an output at tn beyond the bound */
    for (size_t l = 0; st == COSA_OK && l < d->ny; l++)
        if (!(fabs(d->yend[l]) <= d->bound)) {
            stopped(d->r, COSA_DEFECT_END_FAILED, a->tn);
            snprintf(d->r->reason, sizeof d->r->reason,
                     "output %zu = %.3g exceeds %.3g x the largest exact output %.3g", l,
                     fabs(d->yend[l]), DIVERGE_FACTOR, d->bound / DIVERGE_FACTOR);
            *halt = 1;
            break;
        }
    return st;
}

/* The run (Algorithm 1): the one loop with the defects as the estimator;
 * ends at T or at a failure, the step limit or the floor (a result). */
static cosa_status drun_loop(struct drun *d)
{
    const cosa_defect_opts *o = d->o;
    cosa_defect_result *r = d->r;
    const double T = o->tend;
    d->hnext = d->fixed ? o->H : o->h0;
    if (d->fixed) {
        evolve_fixed_horizon(&d->grid, 0.0, T, o->H);
        d->grid.tend = T; /* the records end at T itself (n H to rounding) */
    }
    r->h_min = INFINITY;
    if (!d->have_exact)
        d->bound = INFINITY; /* no reference: only numbers that leave the doubles */
    const evolve_observer rec = {.committed = record_committed, .ctx = d};
    const evolve_config c = {.stepper = &evolve_stepper_master_h, .stepper_ctx = d->m,
                             .estimator = &defect_estimator, .estimator_ctx = d,
                             .controller = &defect_controllers[!d->fixed], .controller_ctx = d,
                             .observers = &rec, .nobservers = 1, .is_failure = td_failure_is_result};
    evolve_stats s;
    cosa_status st = evolve_run(&c, &s);
    if (st != COSA_OK)
        return st;
    if (s.end == EVOLVE_FAILED && s.last.fail_estimate) { /* the co-simulation blew up */
        stopped(r, COSA_DEFECT_END_FAILED, s.last.tn);
        snprintf(r->reason, sizeof r->reason, "the outputs or their derivatives left the "
                                              "finite numbers");
    } else if (s.end == EVOLVE_FAILED)
        unit_failed(d, s.last.fail, s.last.tn);
    else if (s.end == EVOLVE_LIMIT) {
        stopped(r, COSA_DEFECT_END_MAX_STEPS, s.t);
        snprintf(r->reason, sizeof r->reason, "%zu steps taken before T = %.17g", s.steps, T);
    } else if (s.end == EVOLVE_HMIN) {
        stopped(r, COSA_DEFECT_END_HMIN, s.t);
        snprintf(r->reason, sizeof r->reason, "the next macro step %.17g is below hmin %.17g",
                 d->hnext, defect_hmin(o));
    }
    /* EVOLVE_HALTED: the divergence test (record_committed) said why */
    r->nsteps = s.steps;
    r->t_end = r->failed ? s.t : T;
    r->run = s.run;
    r->run.t_end = r->t_end;
    if (r->run.fail_unit >= cosa_unitset_count(d->set))
        r->run.fail_unit = (size_t)-1;
    return COSA_OK;
}

/* The run figures from the sums over the steps. */
static void finish(cosa_defect_result *r, double T, int have_exact)
{
    const size_t k = r->nsteps;
    r->h_avg = k ? r->t_end / (double)k : NAN;
    if (!k)
        r->h_min = r->h_max = NAN;
    const double span = r->t_end > 0.0 ? r->t_end : T;
    for (size_t l = 0; l < r->ny; l++) {
        r->defect_out[l] = sqrt(r->defect_out[l] / span);
        r->error[l] = have_exact ? sqrt(r->error[l] / span) : NAN;
    }
    for (size_t l = 0; l < r->nu; l++)
        r->defect_conn[l] = sqrt(r->defect_conn[l] / span);
}

cosa_status cosa_defect_run(cosa_unitset *set, const double *x0, const cosa_system *exact,
                            const cosa_defect_opts *o, cosa_defect_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    cosa_status st = td_defect_check(set, x0, exact, o);
    return st != COSA_OK ? st : td_defect_exec(set, x0, exact, o, out);
}

/* The run itself, on a description td_defect_check accepted (run_impl.h). */
cosa_status td_defect_exec(cosa_unitset *set, const double *x0, const cosa_system *exact,
                           const cosa_defect_opts *o, cosa_defect_result **out)
{
    *out = NULL;
    cosa_status st = COSA_OK;
    cosa_unitset_counters_reset(set); /* the units' counters are this run's */
    struct drun d = {.set = set, .o = o, .fixed = o->tol == 0.0, .n = o->out_order,
                     .ny = cosa_unitset_ny(set), .nu = cosa_unitset_nu(set),
                     .max_steps = o->max_steps ? o->max_steps : COSA_DEFECT_MAX_STEPS};
    if ((st = drun_setup(&d, x0, exact)) == COSA_OK && (st = drun_loop(&d)) == COSA_OK) {
        finish(d.r, o->tend, d.have_exact);
        d.r->seconds_reference = d.have_exact ? d.tref : NAN;
        *out = d.r;
        d.r = NULL;
    }
    drun_free(&d);
    cosa_defect_result_free(d.r);
    return st;
}
