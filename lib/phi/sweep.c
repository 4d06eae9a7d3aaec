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
 * Work items.  A map has many grid points and few macro steps: an item is
 * one grid point with all its macro steps and schemes, so the model is
 * updated once per point and the discretisation of a subsystem whose
 * matrices do not depend on the swept parameters (subsystem I of the
 * two-mass oscillator in a (c_k, d_k) sweep) is computed once per thread and
 * macro step and then found in the cache (lib/deflate.c keeps one entry per
 * step); that of the changing subsystems once per point and step, shared by
 * all schemes (one Van Loan exponential serves the orders <= 2).  With fewer
 * grid points than SWEEP_POINTS_PER_THREAD per thread (a curve over dt: one
 * point, many steps) an item is one (grid point, macro step) pair, so that
 * every thread has work; a thread updates the model only when its next item
 * is at another grid point.  A listed sweep (cosa_sweep_run_list, the rounds
 * of an adaptive sweep) over many grid points has one item per run of
 * consecutive entries at one grid point, so the results of a point are not
 * split between threads that would each set it and discretise it.
 *
 * Structural parameters.  A parameter that changes the dimensions (chain's n
 * or r) cannot be applied by model->update, which then returns COSA_EINVAL;
 * the thread then builds a new system with model->create and sizes a new
 * evaluation workspace for it.  This is the only allocation inside the
 * parallel region, and happens only when the structure changes.
 *
 * Assumed model (imperfect model knowledge, cosa_sweep_spec).  A thread
 * keeps a second system, the assumed one, and sets it per grid point like
 * the true one: the assumed parameter vector of the point (the true one
 * with the fixed apar entries and the assumed axes), model->update, and
 * model->create when the structure changed.  It is touched only when some
 * scheme has an output correction (the others are model-free), and not at
 * all where the assumed vector equals the true one: there the schemes get
 * .model = NULL, as `cosa point --assume` with the true values does. */
#include "cosa/phi.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const metric_names[COSA_METRIC_COUNT] = {
    "rho", "e_global", "e_local", "e_local_ref", "E_ratio", "dE", "varsigma", "mu_measured",
    "rho_iter"};

int cosa_metric_is_error(cosa_metric m)
{
    return m == COSA_METRIC_E_GLOBAL || m == COSA_METRIC_E_LOCAL || m == COSA_METRIC_E_LOCAL_REF;
}

int cosa_metric_is_energy(cosa_metric m)
{
    return m >= COSA_METRIC_E_RATIO && m <= COSA_METRIC_MU_MEASURED;
}

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
    if (a->param == COSA_AXIS_RELAX || a->param == COSA_AXIS_ITERATIONS) {
        if (a->assumed)
            return COSA_EINVAL;
        if (!isfinite(a->lo) || !isfinite(a->hi))
            return COSA_ENONFINITE;
        for (size_t k = 0; k < a->n; k++) {
            const double v = cosa_sweep_axis_value(a, k);
            if (a->param == COSA_AXIS_RELAX ? v == 0.0 : !(nearbyint(v) >= 1.0 && v < 4e9))
                return COSA_ERANGE;
        }
        return a->log && !(a->lo > 0.0 && a->hi > 0.0) ? COSA_ERANGE : COSA_OK;
    }
    if (a->param < 0)
        return a->param == -1 && a->n == 1 && !a->assumed ? COSA_OK : COSA_EINVAL;
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
    if (sp->metric != COSA_METRIC_RHO && sp->metric != COSA_METRIC_RHO_ITER &&
        !sp->model->initial_state)
        return COSA_EINVAL;
    /* iteration metric and axes: implicit schemes only */
    if (sp->metric == COSA_METRIC_RHO_ITER || sp->x.param < -1 || sp->y.param < -1)
        for (size_t i = 0; i < sp->nscheme; i++)
            if (!sp->schemes[i].implicit)
                return COSA_EUNSUPPORTED;
    if (cosa_metric_is_energy(sp->metric)) {
        if (!sp->model->energy || !sp->model->energy_port)
            return COSA_EUNSUPPORTED;
        for (size_t i = 0; i < sp->nscheme; i++)
            if (sp->schemes[i].exec != COSA_JACOBI || sp->schemes[i].corr != COSA_CORR_NONE ||
                sp->schemes[i].implicit)
                return COSA_EUNSUPPORTED;
    }
    cosa_status st;
    if ((st = axis_check(&sp->x, sp->model->nparam)) != COSA_OK ||
        (st = axis_check(&sp->y, sp->model->nparam)) != COSA_OK)
        return st;
    if ((sp->x.param >= 0 || sp->x.param < -1) && sp->x.param == sp->y.param &&
        !sp->x.assumed == !sp->y.assumed)
        return COSA_EINVAL;
    if (sp->apar)
        for (size_t k = 0; k < sp->model->nparam; k++)
            if ((!sp->apar_fixed || sp->apar_fixed[k]) && !isfinite(sp->apar[k]))
                return COSA_ENONFINITE;
    for (size_t i = 0; i < sp->ndt; i++) {
        if (!isfinite(sp->dt[i]))
            return COSA_ENONFINITE;
        if (!(sp->dt[i] > 0.0))
            return COSA_ERANGE;
    }
    /* tend <= 0 means "the model's horizon"; NaN or Inf is an error */
    if (isnan(sp->tend) || isinf(sp->tend))
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

/* Items of a map: at least this many grid points per thread, else the
 * macro steps of a point are split over the threads. */
#define SWEEP_POINTS_PER_THREAD 4

/* Per-thread state, allocated before the parallel region (and replaced
 * when a structural parameter changes the system's dimensions). */
struct sweep_thread {
    cosa_system *sys;
    cosa_eval_workspace *ew;
    double *par, *x0;
    size_t x0_len;    /* entries of x0 */
    size_t point;     /* grid point sys and x0 are set to (SIZE_MAX: none) */
    cosa_status pst;  /* status of setting that point */
    /* assumed model (only when the sweep has one) */
    cosa_system *asys;          /* the assumed system                          */
    double *apar;               /* its parameter vector at the point           */
    const cosa_system *model;   /* .model of the corrected schemes: asys or NULL */
    cosa_status ast;            /* status of setting the assumed system         */
    /* energy metrics: the point's energy form, power port and symplectic split */
    double *W;                  /* nx x nx                                      */
    unsigned char *kick;        /* nx                                           */
    size_t *pidx;               /* the port's indices                           */
    size_t en_n, pidx_n;        /* room in W/kick (states), pidx                */
    cosa_energy_port port;
};

static void threads_free(struct sweep_thread *t, int n)
{
    if (!t)
        return;
    for (int i = 0; i < n; i++) {
        cosa_eval_workspace_free(t[i].ew);
        cosa_system_free(t[i].sys);
        cosa_system_free(t[i].asys);
        free(t[i].par);
        free(t[i].apar);
        free(t[i].x0);
        free(t[i].W);
        free(t[i].kick);
        free(t[i].pidx);
    }
    free(t);
}

/* The true parameter vector at grid point (ix, iy): the true axes. */
static void set_point(const cosa_sweep_spec *sp, double *par, size_t ix, size_t iy)
{
    if (sp->x.param >= 0 && !sp->x.assumed)
        par[sp->x.param] = cosa_sweep_axis_value(&sp->x, ix);
    if (sp->y.param >= 0 && !sp->y.assumed)
        par[sp->y.param] = cosa_sweep_axis_value(&sp->y, iy);
}

/* 1 if the spec has an assumed model (cosa_sweep_spec). */
static int spec_has_assumed(const cosa_sweep_spec *sp)
{
    return sp->apar || sp->x.assumed || sp->y.assumed;
}

/* The assumed parameter vector a at grid point (ix, iy) whose true vector
 * is p (the rule of cosa_sweep_spec): fixed apar entries, the others
 * following p, then the assumed axes. */
static void assumed_point(const cosa_sweep_spec *sp, const double *p, size_t ix, size_t iy,
                          double *a)
{
    for (size_t k = 0; k < sp->model->nparam; k++)
        a[k] = sp->apar && (!sp->apar_fixed || sp->apar_fixed[k]) ? sp->apar[k] : p[k];
    if (sp->x.assumed)
        a[sp->x.param] = cosa_sweep_axis_value(&sp->x, ix);
    if (sp->y.assumed)
        a[sp->y.param] = cosa_sweep_axis_value(&sp->y, iy);
}

/* Set the thread's assumed system to grid point k, whose true vector is
 * t->par: t->model is the assumed system, or NULL where the assumed vector
 * equals the true one bit for bit; the status of the assumed model there. */
static cosa_status thread_assumed(const cosa_sweep_spec *sp, size_t k, struct sweep_thread *t)
{
    const cosa_model *m = sp->model;
    assumed_point(sp, t->par, k / sp->y.n, k % sp->y.n, t->apar);
    t->model = NULL;
    if (memcmp(t->apar, t->par, m->nparam * sizeof(double)) == 0)
        return COSA_OK;
    cosa_status st = cosa_model_check(m, t->apar, NULL, NULL, 0);
    if (st != COSA_OK)
        return st;
    st = m->update(m, t->apar, t->asys);
    if (st == COSA_EINVAL) { /* the structure changed (cosa_model.update) */
        cosa_system *sys = NULL;
        st = m->create(m, t->apar, &sys);
        if (st == COSA_OK) {
            cosa_system_free(t->asys);
            t->asys = sys;
        }
    }
    if (st == COSA_OK)
        t->model = t->asys;
    return st;
}

/* The thread's system from model->create at t->par, with an evaluation
 * workspace for schemes up to order pmax and x0 room for its states.  On
 * failure the thread keeps what it had. */
static cosa_status thread_build(const cosa_model *m, int pmax, struct sweep_thread *t)
{
    cosa_system *sys = NULL;
    cosa_status st = m->create(m, t->par, &sys);
    if (st != COSA_OK)
        return st;
    const size_t nx = cosa_system_nx(sys);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, pmax);
    double *x0 = nx > t->x0_len ? calloc(nx, sizeof(double)) : NULL;
    if (!ew || (nx > t->x0_len && !x0)) {
        cosa_eval_workspace_free(ew);
        cosa_system_free(sys);
        free(x0);
        return COSA_ENOMEM;
    }
    cosa_eval_workspace_free(t->ew);
    cosa_system_free(t->sys);
    t->ew = ew;
    t->sys = sys;
    if (x0) {
        free(t->x0);
        t->x0 = x0;
        t->x0_len = nx;
    }
    return COSA_OK;
}

/* The thread's assumed system and parameter vector, before the parallel
 * region: model->create at the assumed vector of the thread's base point
 * t->par (grid point 0), or, if the model rejects that, at t->par itself
 * (a system of the right structure; each point rewrites it anyway). */
static cosa_status thread_build_assumed(const cosa_sweep_spec *sp, struct sweep_thread *t)
{
    const cosa_model *m = sp->model;
    if (!(t->apar = malloc((m->nparam ? m->nparam : 1) * sizeof(double))))
        return COSA_ENOMEM;
    assumed_point(sp, t->par, 0, 0, t->apar);
    cosa_status st = m->create(m, t->apar, &t->asys);
    if (st != COSA_OK && st != COSA_ENOMEM)
        st = m->create(m, t->par, &t->asys);
    return st;
}

/* The energy metrics' data at the thread's point: W, the power port, the
 * symplectic split (room grown as the structure demands). */
static cosa_status thread_energy(const cosa_model *m, struct sweep_thread *t)
{
    const size_t nx = cosa_system_nx(t->sys), need = 2 * cosa_system_ny(t->sys) +
                                                     cosa_system_nu(t->sys) + 2;
    if (nx > t->en_n || !t->W) {
        double *W = malloc((nx * nx + 1) * sizeof *W);
        unsigned char *k = malloc(nx + 1);
        if (!W || !k) {
            free(W);
            free(k);
            return COSA_ENOMEM;
        }
        free(t->W);
        free(t->kick);
        t->W = W, t->kick = k, t->en_n = nx;
    }
    if (need > t->pidx_n) {
        size_t *p = malloc(need * sizeof *p);
        if (!p)
            return COSA_ENOMEM;
        free(t->pidx);
        t->pidx = p, t->pidx_n = need;
    }
    cosa_status st = cosa_model_energy_form(m, t->par, nx, t->W);
    if (st == COSA_OK)
        st = m->energy_port(m, t->par, &t->port, t->pidx, t->pidx_n);
    if (st == COSA_OK)
        cosa_system_kick_flags(t->sys, t->kick);
    return st;
}

/* Set the thread's system (and x0 for error metrics, and the assumed
 * system when assumed is set) to grid point k (ix = k / y.n, iy = k % y.n);
 * the status of the point (the assumed model's in t->ast). */
static cosa_status thread_point(const cosa_sweep_spec *sp, int pmax, int errors, int assumed,
                                size_t k, struct sweep_thread *t)
{
    if (t->point == k)
        return t->pst;
    const cosa_model *m = sp->model;
    set_point(sp, t->par, k / sp->y.n, k % sp->y.n);
    /* a point outside the declared parameter ranges fails (NaN, COSA_EPARAM) */
    cosa_status st = cosa_model_check(m, t->par, NULL, NULL, 0);
    if (st == COSA_OK)
        st = m->update(m, t->par, t->sys);
    if (st == COSA_EINVAL) /* the structure changed (cosa_model.update) */
        st = thread_build(m, pmax, t);
    if (st == COSA_OK && errors)
        st = m->initial_state(m, t->par, t->x0);
    if (st == COSA_OK && cosa_metric_is_energy(sp->metric))
        st = thread_energy(m, t);
    t->ast = st == COSA_OK && assumed ? thread_assumed(sp, k, t) : COSA_OK;
    t->point = k;
    t->pst = st;
    return st;
}

/* One scheme at one point: the value of the metric, or NaN and a status. */
static cosa_status eval_one(const cosa_sweep_spec *sp, const cosa_scheme *s, double dt,
                            double tend, struct sweep_thread *t, double *value)
{
    cosa_point_result r;
    cosa_status st;
    *value = NAN;
    if (cosa_metric_is_energy(sp->metric)) {
        cosa_mr_scheme ms = {.integrator = COSA_MR_SYMPLECTIC_EULER, .start_initial = 1};
        if (sp->energy)
            ms = *sp->energy;
        ms.p = s->order;
        ms.kick = t->kick;
        const double nst = nearbyint(tend / dt);
        if (!(nst >= 1.0 && nst <= 1e15))
            return COSA_ERANGE;
        cosa_mr_energy e;
        st = cosa_mr_energy_eval(t->sys, &ms, dt, (size_t)nst, t->x0, t->W, &t->port, 0, &e);
        if (st != COSA_OK)
            return st;
        *value = sp->metric == COSA_METRIC_E_RATIO    ? e.E_end / e.E_ref_end
                 : sp->metric == COSA_METRIC_DE       ? e.dE_end
                 : sp->metric == COSA_METRIC_VARSIGMA ? e.varsigma_end
                                                      : e.mu_measured;
        return COSA_OK;
    }
    switch (sp->metric) {
    case COSA_METRIC_RHO_ITER:
        st = cosa_evaluate(t->sys, s, dt, NULL, tend, COSA_WANT_ITER, &r, t->ew);
        if (st == COSA_OK)
            *value = r.iter.rho_iter;
        return st;
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
        if (r.rho > 1.0 + r.rho_tol) {
            st = cosa_evaluate(t->sys, s, dt, NULL, tend, COSA_WANT_RHO_REF, &r, t->ew);
            if (st == COSA_OK)
                *value = INFINITY;
            return st;
        }
        /* fall through */
    default: {
        /* e_global, e_local fall through with r.rho = rho(Phi) from above:
         * it is not computed again (e_local_ref comes here directly) */
        const int given = sp->metric == COSA_METRIC_E_GLOBAL || sp->metric == COSA_METRIC_E_LOCAL;
        st = cosa_evaluate(t->sys, s, dt, t->x0, tend,
                           COSA_WANT_RHO | COSA_WANT_ERRORS | (given ? COSA_GIVEN_RHO : 0u), &r,
                           t->ew);
        if (st != COSA_OK)
            return st;
        *value = sp->metric == COSA_METRIC_E_GLOBAL  ? r.err.e_global
                 : sp->metric == COSA_METRIC_E_LOCAL ? r.err.e_local
                                                     : r.err.e_local_ref;
        return COSA_OK;
    }
    }
}

/* One result: scheme is, step it at the thread's current point (set by
 * thread_point), into values/status at idx; 1 if it failed. */
static int eval_item(const cosa_sweep_spec *sp, struct sweep_thread *t, cosa_status pst,
                     int errors, int assumed, double tend, size_t is, size_t it, size_t idx,
                     double *values, cosa_status *status)
{
    const double dt = sp->dt[it];
    const int too_long = errors && !(nearbyint(tend / dt) >= 1.0);
    double v = NAN;
    cosa_status sst = too_long ? COSA_ERANGE : pst;
    const cosa_scheme *s = &sp->schemes[is];
    cosa_scheme sa, si;
    if (sp->x.param < -1 || sp->y.param < -1) { /* iteration axes set the scheme */
        const size_t k = idx % (sp->x.n * sp->y.n), ixy[2] = {k / sp->y.n, k % sp->y.n};
        const cosa_sweep_axis *ax[2] = {&sp->x, &sp->y};
        si = *s;
        for (int a = 0; a < 2; a++) {
            const double av = cosa_sweep_axis_value(ax[a], ixy[a]);
            if (ax[a]->param == COSA_AXIS_RELAX)
                si.relax = av;
            else if (ax[a]->param == COSA_AXIS_ITERATIONS)
                si.iterations = (unsigned)nearbyint(av);
        }
        s = &si;
    }
    if (sst == COSA_OK && assumed && (s->corr & COSA_CORR_OUTPUT)) {
        sst = t->ast;
        sa = *s;
        sa.model = t->model;
        s = &sa;
    }
    if (sst == COSA_OK)
        sst = eval_one(sp, s, dt, tend, t, &v);
    values[idx] = sst == COSA_OK ? v : NAN;
    if (status)
        status[idx] = sst;
    return sst != COSA_OK;
}

/* A work item not evaluated because the sweep was cancelled: its results
 * NaN with status COSA_ECANCELLED; returns how many. */
static size_t skip_item(const cosa_sweep_spec *sp, const size_t *list, size_t item,
                        size_t split, size_t per_item, double *values, cosa_status *status)
{
    if (list) {
        values[list[item]] = NAN;
        if (status)
            status[list[item]] = COSA_ECANCELLED;
        return 1;
    }
    const size_t k = item / split, ix = k / sp->y.n, iy = k % sp->y.n;
    const size_t it0 = (item % split) * per_item;
    for (size_t it = it0; it < it0 + per_item; it++)
        for (size_t is = 0; is < sp->nscheme; is++) {
            const size_t idx = cosa_sweep_index(sp, is, it, ix, iy);
            values[idx] = NAN;
            if (status)
                status[idx] = COSA_ECANCELLED;
        }
    return per_item * sp->nscheme;
}

/* The sweep: every result (list NULL) or the nlist results listed. */
/* The prototype system (structure, scheme checks, the threads' first
 * systems): the first grid point the model accepts, else the plain base
 * values par0; only when neither is valid does the sweep fail (with the
 * status of the first point).  So an invalid default of a swept parameter
 * does not matter; invalid points become NaN.  par0 becomes the prototype's
 * parameters; *pmax the highest order of the schemes, *corrected whether
 * one corrects outputs. */
static cosa_status sweep_prototype(const cosa_sweep_spec *sp, double *par0, int *pmax,
                                   int *corrected)
{
    const cosa_model *m = sp->model;
    const size_t np = m->nparam ? m->nparam : 1;
    const size_t npts = sp->x.n * sp->y.n, ny = sp->y.n;
    cosa_system *proto = NULL;
    double *par_base = malloc(np * sizeof(double));
    if (!par_base)
        return COSA_ENOMEM;
    memcpy(par_base, par0, np * sizeof(double));
    cosa_status st0 = COSA_OK, st = COSA_EPARAM;
    for (size_t k = 0; k < npts && st != COSA_OK && st != COSA_ENOMEM; k++) {
        memcpy(par0, par_base, np * sizeof(double));
        set_point(sp, par0, k / ny, k % ny);
        st = cosa_model_check(m, par0, NULL, NULL, 0);
        if (st == COSA_OK)
            st = m->create(m, par0, &proto);
        if (k == 0)
            st0 = st;
    }
    if (st != COSA_OK && st != COSA_ENOMEM) {
        memcpy(par0, par_base, np * sizeof(double));
        st = cosa_model_check(m, par0, NULL, NULL, 0);
        if (st == COSA_OK)
            st = m->create(m, par0, &proto);
        if (st != COSA_OK)
            st = st0;
    }
    free(par_base);
    if (st != COSA_OK)
        return st;
    *pmax = 0;
    *corrected = 0;
    for (size_t i = 0; i < sp->nscheme && st == COSA_OK; i++) {
        st = cosa_scheme_check(&sp->schemes[i], proto);
        if (sp->schemes[i].order > *pmax)
            *pmax = sp->schemes[i].order;
        *corrected |= (sp->schemes[i].corr & COSA_CORR_OUTPUT) != 0;
    }
    cosa_system_free(proto);
    return st;
}

/* nth thread workspaces, each with its copy of par0 and its systems. */
static cosa_status sweep_threads(const cosa_sweep_spec *sp, const double *par0, int pmax,
                                 int assumed, int nth, struct sweep_thread **out)
{
    const cosa_model *m = sp->model;
    const size_t np = m->nparam ? m->nparam : 1;
    cosa_status st = COSA_OK;
    struct sweep_thread *th = *out = calloc((size_t)nth, sizeof *th);
    if (!th)
        return COSA_ENOMEM;
    for (int i = 0; i < nth && st == COSA_OK; i++) {
        th[i].point = SIZE_MAX;
        if (!(th[i].par = malloc(np * sizeof(double)))) {
            st = COSA_ENOMEM;
            break;
        }
        memcpy(th[i].par, par0, np * sizeof(double));
        st = thread_build(m, pmax, &th[i]);
        if (st == COSA_OK && assumed)
            st = thread_build_assumed(sp, &th[i]);
    }
    if (st != COSA_OK) {
        threads_free(th, nth);
        *out = NULL;
    }
    return st;
}

/* The work items of a listed sweep over many grid points: the runs of
 * consecutive entries at one grid point (cosa_sweep_adaptive lists its
 * results by grid point), as start offsets into the list, *ngrp of them
 * and an end mark.  One thread sets the point once and its schemes share
 * the point's discretisations, as in a full sweep.  NULL: out of memory. */
static size_t *list_groups(const size_t *list, size_t nlist, size_t npts, size_t *ngrp)
{
    size_t *grp = malloc((nlist + 1) * sizeof *grp), n = 0;
    if (!grp)
        return NULL;
    for (size_t i = 0; i < nlist; i++)
        if (i == 0 || list[i] % npts != list[i - 1] % npts)
            grp[n++] = i;
    grp[n] = nlist;
    *ngrp = n;
    return grp;
}

static cosa_status sweep_exec(const cosa_sweep_spec *spec, const size_t *list, size_t nlist,
                              double *values, cosa_status *status, size_t *nfailed)
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
    const int errors = sp->metric != COSA_METRIC_RHO && sp->metric != COSA_METRIC_RHO_ITER;
    const double tend = sp->tend > 0.0 ? sp->tend : m->tend;
    if (errors && !(tend > 0.0 && isfinite(tend)))
        return COSA_ERANGE;

    double *par0 = calloc(np, sizeof(double));
    if (!par0)
        return COSA_ENOMEM;
    if (sp->par)
        memcpy(par0, sp->par, m->nparam * sizeof(double));
    else
        cosa_model_defaults(m, par0);
    int pmax = 0, corrected = 0;
    st = sweep_prototype(sp, par0, &pmax, &corrected);
    /* the assumed model matters only to schemes with an output correction */
    const int assumed = spec_has_assumed(sp) && corrected;
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
    /* work items: a grid point with all its macro steps (maps), or one
     * (grid point, macro step) pair when the points are too few */
    const size_t split = npts < SWEEP_POINTS_PER_THREAD * (size_t)nth ? sp->ndt : 1;
    const size_t per_item = sp->ndt / split;
    size_t nitems = list ? nlist : npts * split;
    if (list)
        for (size_t i = 0; i < nlist; i++)
            if (list[i] >= total) {
                free(par0);
                return COSA_EINVAL;
            }
    /* a list over many grid points: one item per run at a grid point (few
     * points: one entry per item, so that every thread has work) */
    size_t *grp = list && split == 1 ? list_groups(list, nlist, npts, &nitems) : NULL;
    if (list && split == 1 && !grp) {
        free(par0);
        return COSA_ENOMEM;
    }

    if ((size_t)nth > nitems)
        nth = (int)nitems;
    struct sweep_thread *th = NULL;
    st = sweep_threads(sp, par0, pmax, assumed, nth, &th);
    free(par0);
    if (st != COSA_OK) {
        free(grp);
        return st;
    }
    size_t done = 0, failed = 0, next_report = 0;
    const size_t todo = list ? nlist : total;
    const size_t report_step = todo / 1000 > 0 ? todo / 1000 : 1;
    const size_t item_values = list ? 1 : per_item * sp->nscheme;
    const int chunk = grp ? 4 : list ? 16 : split > 1 ? 1 : 4;

    size_t skipped = 0;
#pragma omp parallel num_threads(nth) reduction(+ : failed, skipped)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        struct sweep_thread *t = &th[tid];
#pragma omp for schedule(dynamic, chunk)
        for (size_t item = 0; item < nitems; item++) {
            /* the list entries of the item: a run at one grid point, or one */
            const size_t e0 = grp ? grp[item] : item, e1 = grp ? grp[item + 1] : item + 1;
            /* cancelled: the remaining items only mark their results */
            if (sp->cancel && cosa_cancel_requested(sp->cancel)) {
                for (size_t e = e0; e < e1; e++) /* e = item without a list */
                    skipped += skip_item(sp, list, e, split, per_item, values, status);
                continue;
            }
            if (list) {
                for (size_t e = e0; e < e1; e++) {
                    /* idx = (is * ndt + it) * npts + k (cosa_sweep_index) */
                    const size_t idx = list[e], k = idx % npts, rest = idx / npts;
                    const cosa_status pst = thread_point(sp, pmax, errors, assumed, k, t);
                    failed += (size_t)eval_item(sp, t, pst, errors, assumed, tend,
                                                rest / sp->ndt, rest % sp->ndt, idx, values,
                                                status);
                }
            } else {
                const size_t k = item / split, ix = k / ny, iy = k % ny;
                const size_t it0 = (item % split) * per_item;
                const cosa_status pst = thread_point(sp, pmax, errors, assumed, k, t);
                for (size_t it = it0; it < it0 + per_item; it++)
                    for (size_t is = 0; is < sp->nscheme; is++)
                        failed += (size_t)eval_item(sp, t, pst, errors, assumed, tend, is, it,
                                                    cosa_sweep_index(sp, is, it, ix, iy),
                                                    values, status);
            }
            size_t now;
            const size_t nv = list ? e1 - e0 : item_values;
#pragma omp atomic capture
            now = done += nv;
            if (tid == 0 && sp->progress && now >= next_report && now < todo) {
                next_report = now + report_step;
                sp->progress(now, todo, sp->user_data);
            }
        }
    }
    if (sp->progress)
        sp->progress(todo, todo, sp->user_data);
    threads_free(th, nth);
    free(grp);
    if (nfailed)
        *nfailed = failed;
    return skipped ? COSA_ECANCELLED : COSA_OK;
}

cosa_status cosa_sweep_run(const cosa_sweep_spec *spec, double *values, cosa_status *status,
                           size_t *nfailed)
{
    return sweep_exec(spec, NULL, 0, values, status, nfailed);
}

cosa_status cosa_sweep_run_list(const cosa_sweep_spec *spec, const size_t *list, size_t n,
                                double *values, cosa_status *status, size_t *nfailed)
{
    if (!list && n)
        return COSA_EINVAL;
    if (n == 0) { /* nothing to evaluate: only the spec is checked */
        if (nfailed)
            *nfailed = 0;
        return spec_check(spec);
    }
    return sweep_exec(spec, list, n, values, status, nfailed);
}
