/* sweep.c -- parameter sweeps: two model parameters on a grid x a list of
 * macro steps x a list of schemes, one metric (rho, e_g, e_l) per point,
 * in parallel with OpenMP.
 *
 * Determinism.  Every point is evaluated by cosa_evaluate from the point's
 * own parameters, on the thread's own system copy and workspace; the only
 * state carried from one point to the next are the discretisation caches,
 * which return bitwise what a recomputation would (they are keyed on the
 * exact matrices, dt and order).  So a value does not depend on the thread
 * that computed it, on the schedule, or on the other points, and equals what
 * `cosa point` prints for the same case.
 *
 * Loop order: grid point (parallel) / macro step / scheme.  The model is
 * updated once per point; the discretisation of a subsystem whose matrices
 * do not depend on the swept parameters (subsystem I of the two-mass
 * oscillator in a (c_k, d_k) sweep) is computed once per thread and macro
 * step and then found in the cache (lib/deflate.c keeps one entry per step);
 * that of the changing subsystems once per point and step, shared by all
 * schemes (one Van Loan exponential serves the orders <= 2). */
#include "cosa.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const metric_names[COSA_METRIC_COUNT] = {"rho", "e_global", "e_local",
                                                            "e_local_ref"};

const char *cosa_metric_name(cosa_metric m)
{
    return (unsigned)m < COSA_METRIC_COUNT ? metric_names[m] : "?";
}

cosa_status cosa_metric_parse(const char *text, cosa_metric *out)
{
    if (!text || !out)
        return COSA_EINVAL;
    for (int i = 0; i < COSA_METRIC_COUNT; i++)
        if (strcmp(text, metric_names[i]) == 0) {
            *out = (cosa_metric)i;
            return COSA_OK;
        }
    if (strcmp(text, "e_g") == 0) {
        *out = COSA_METRIC_E_GLOBAL;
        return COSA_OK;
    }
    if (strcmp(text, "e_l") == 0) {
        *out = COSA_METRIC_E_LOCAL;
        return COSA_OK;
    }
    return COSA_EINVAL;
}

double cosa_sweep_axis_value(const cosa_sweep_axis *a, size_t k)
{
    if (!a || k >= a->n)
        return NAN;
    if (k == 0)
        return a->lo;
    if (k == a->n - 1)
        return a->hi;
    const double t = (double)k / (double)(a->n - 1);
    if (a->log) {
        const double l0 = log10(a->lo), l1 = log10(a->hi);
        return pow(10.0, l0 + (l1 - l0) * t);
    }
    return a->lo + (a->hi - a->lo) * t;
}

static cosa_status axis_check(const cosa_sweep_axis *a, size_t nparam)
{
    if (a->n == 0)
        return COSA_EINVAL;
    if (a->param < 0)
        return a->param == -1 && a->n == 1 ? COSA_OK : COSA_EINVAL;
    if ((size_t)a->param >= nparam)
        return COSA_EPARAM;
    if (!isfinite(a->lo) || !isfinite(a->hi))
        return COSA_ENONFINITE;
    if (a->log && !(a->lo > 0.0 && a->hi > 0.0))
        return COSA_ERANGE;
    return COSA_OK;
}

static cosa_status spec_check(const cosa_sweep_spec *sp)
{
    if (!sp || !sp->model || !sp->model->create || !sp->model->update || !sp->dt ||
        sp->ndt == 0 || !sp->schemes || sp->nscheme == 0 ||
        (unsigned)sp->metric >= COSA_METRIC_COUNT)
        return COSA_EINVAL;
    if (sp->metric != COSA_METRIC_RHO && !sp->model->initial_state)
        return COSA_EINVAL;
    cosa_status st;
    if ((st = axis_check(&sp->x, sp->model->nparam)) != COSA_OK ||
        (st = axis_check(&sp->y, sp->model->nparam)) != COSA_OK)
        return st;
    if (sp->x.param >= 0 && sp->x.param == sp->y.param)
        return COSA_EINVAL;
    for (size_t i = 0; i < sp->ndt; i++) {
        if (!isfinite(sp->dt[i]))
            return COSA_ENONFINITE;
        if (!(sp->dt[i] > 0.0))
            return COSA_ERANGE;
    }
    if (sp->metric != COSA_METRIC_RHO && sp->tend > 0.0 && !isfinite(sp->tend))
        return COSA_ENONFINITE;
    /* overflow of the result count */
    size_t n = sp->nscheme;
    const size_t f[3] = {sp->ndt, sp->x.n, sp->y.n};
    for (int i = 0; i < 3; i++) {
        if (n > SIZE_MAX / sizeof(double) / f[i])
            return COSA_ERANGE;
        n *= f[i];
    }
    return COSA_OK;
}

size_t cosa_sweep_size(const cosa_sweep_spec *spec)
{
    if (spec_check(spec) != COSA_OK)
        return 0;
    return spec->nscheme * spec->ndt * spec->x.n * spec->y.n;
}

size_t cosa_sweep_index(const cosa_sweep_spec *spec, size_t is, size_t it, size_t ix,
                        size_t iy)
{
    return ((is * spec->ndt + it) * spec->x.n + ix) * spec->y.n + iy;
}

/* Per-thread state, allocated before the parallel region. */
struct sweep_thread {
    cosa_system *sys;
    cosa_eval_workspace *ew;
    double *par, *x0;
};

static void threads_free(struct sweep_thread *t, int n)
{
    if (!t)
        return;
    for (int i = 0; i < n; i++) {
        cosa_eval_workspace_free(t[i].ew);
        cosa_system_free(t[i].sys);
        free(t[i].par);
        free(t[i].x0);
    }
    free(t);
}

static void set_point(const cosa_sweep_spec *sp, double *par, size_t ix, size_t iy)
{
    if (sp->x.param >= 0)
        par[sp->x.param] = cosa_sweep_axis_value(&sp->x, ix);
    if (sp->y.param >= 0)
        par[sp->y.param] = cosa_sweep_axis_value(&sp->y, iy);
}

/* One scheme at one point: the value of the metric, or NaN and a status. */
static cosa_status eval_one(const cosa_sweep_spec *sp, const cosa_scheme *s, double dt,
                            double tend, struct sweep_thread *t, double *value)
{
    cosa_point_result r;
    cosa_status st;
    *value = NAN;
    switch (sp->metric) {
    case COSA_METRIC_RHO:
        st = cosa_evaluate(t->sys, s, dt, NULL, tend, COSA_WANT_RHO, &r, t->ew);
        if (st == COSA_OK)
            *value = r.rho;
        return st;
    case COSA_METRIC_E_GLOBAL:
    case COSA_METRIC_E_LOCAL:
        /* An unstable co-simulation has e = +inf (cosa.h), known from rho
         * alone, unless the reference is unstable too (COSA_EUNSTABLEREF, as
         * cosa_evaluate reports it with errors). */
        st = cosa_evaluate(t->sys, s, dt, NULL, tend, COSA_WANT_RHO, &r, t->ew);
        if (st != COSA_OK)
            return st;
        if (r.rho > 1.0 + COSA_RHO_TOL) {
            st = cosa_evaluate(t->sys, s, dt, NULL, tend, COSA_WANT_RHO_REF, &r, t->ew);
            if (st == COSA_OK)
                *value = INFINITY;
            return st;
        }
        /* fall through */
    default:
        st = cosa_evaluate(t->sys, s, dt, t->x0, tend, COSA_WANT_RHO | COSA_WANT_ERRORS, &r,
                           t->ew);
        if (st != COSA_OK)
            return st;
        *value = sp->metric == COSA_METRIC_E_GLOBAL  ? r.err.e_global
                 : sp->metric == COSA_METRIC_E_LOCAL ? r.err.e_local
                                                     : r.err.e_local_ref;
        return COSA_OK;
    }
}

cosa_status cosa_sweep_run(const cosa_sweep_spec *spec, double *values, cosa_status *status,
                           size_t *nfailed)
{
    if (nfailed)
        *nfailed = 0;
    cosa_status st = spec_check(spec);
    if (st != COSA_OK)
        return st;
    if (!values)
        return COSA_EINVAL;
    const cosa_sweep_spec *sp = spec;
    const cosa_model *m = sp->model;
    const size_t np = m->nparam ? m->nparam : 1;
    const size_t nx = sp->x.n, ny = sp->y.n, npts = nx * ny;
    const size_t total = sp->nscheme * sp->ndt * npts;
    const int errors = sp->metric != COSA_METRIC_RHO;
    const double tend = sp->tend > 0.0 ? sp->tend : m->tend;
    if (errors && !(tend > 0.0 && isfinite(tend)))
        return COSA_ERANGE;

    /* Base parameters with the axes at their first point; fall back to the
     * plain base values if the model rejects that point. */
    double *par0 = calloc(np, sizeof(double));
    if (!par0)
        return COSA_ENOMEM;
    if (sp->par)
        memcpy(par0, sp->par, m->nparam * sizeof(double));
    else
        cosa_model_defaults(m, par0);
    cosa_system *proto = NULL;
    double *par_base = malloc(np * sizeof(double));
    if (!par_base) {
        free(par0);
        return COSA_ENOMEM;
    }
    memcpy(par_base, par0, np * sizeof(double));
    set_point(sp, par0, 0, 0);
    st = m->create(m, par0, &proto);
    if (st != COSA_OK) {
        memcpy(par0, par_base, np * sizeof(double));
        st = m->create(m, par0, &proto);
    }
    free(par_base);
    if (st != COSA_OK) {
        free(par0);
        return st;
    }
    int pmax = 0;
    for (size_t i = 0; i < sp->nscheme && st == COSA_OK; i++) {
        st = cosa_scheme_check(&sp->schemes[i], proto);
        if (sp->schemes[i].order > pmax)
            pmax = sp->schemes[i].order;
    }
    const size_t nxs = cosa_system_nx(proto);
    cosa_system_free(proto);
    if (st != COSA_OK) {
        free(par0);
        return st;
    }

    int nth = 1;
#ifdef _OPENMP
    nth = sp->threads > 0 ? sp->threads : omp_get_max_threads();
#endif
    if (nth < 1)
        nth = 1;
    if ((size_t)nth > npts)
        nth = (int)npts;
    struct sweep_thread *th = calloc((size_t)nth, sizeof *th);
    if (!th) {
        free(par0);
        return COSA_ENOMEM;
    }
    for (int i = 0; i < nth; i++) {
        th[i].par = malloc(np * sizeof(double));
        th[i].x0 = calloc(nxs + 1, sizeof(double));
        if (!th[i].par || !th[i].x0) {
            st = COSA_ENOMEM;
            break;
        }
        memcpy(th[i].par, par0, np * sizeof(double));
        if ((st = m->create(m, par0, &th[i].sys)) != COSA_OK)
            break;
        if (!(th[i].ew = cosa_eval_workspace_alloc(th[i].sys, pmax))) {
            st = COSA_ENOMEM;
            break;
        }
    }
    free(par0);
    if (st != COSA_OK) {
        threads_free(th, nth);
        return st;
    }

    size_t done = 0, failed = 0, next_report = 0;
    const size_t report_step = total / 1000 > 0 ? total / 1000 : 1;
    const size_t per_point = sp->ndt * sp->nscheme;

#pragma omp parallel num_threads(nth) reduction(+ : failed)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        struct sweep_thread *t = &th[tid];
#pragma omp for schedule(dynamic, 4)
        for (size_t k = 0; k < npts; k++) {
            const size_t ix = k / ny, iy = k % ny;
            set_point(sp, t->par, ix, iy);
            cosa_status pst = m->update(m, t->par, t->sys);
            if (pst == COSA_OK && errors)
                pst = m->initial_state(m, t->par, t->x0);
            for (size_t it = 0; it < sp->ndt; it++) {
                const double dt = sp->dt[it];
                const int too_long = errors && !(nearbyint(tend / dt) >= 1.0);
                for (size_t is = 0; is < sp->nscheme; is++) {
                    const size_t idx = cosa_sweep_index(sp, is, it, ix, iy);
                    double v = NAN;
                    cosa_status sst = too_long ? COSA_ERANGE : pst;
                    if (sst == COSA_OK)
                        sst = eval_one(sp, &sp->schemes[is], dt, tend, t, &v);
                    values[idx] = sst == COSA_OK ? v : NAN;
                    if (status)
                        status[idx] = sst;
                    if (sst != COSA_OK)
                        failed++;
                }
            }
            size_t now;
#pragma omp atomic capture
            now = done += per_point;
            if (tid == 0 && sp->progress && now >= next_report && now < total) {
                next_report = now + report_step;
                sp->progress(now, total, sp->user_data);
            }
        }
    }
    if (sp->progress)
        sp->progress(total, total, sp->user_data);
    threads_free(th, nth);
    if (nfailed)
        *nfailed = failed;
    return COSA_OK;
}
