/* advise.c -- the one-call API's `cosa advise`: the candidates' stable and
 * accurate macro steps and costs (cosa_advise_iter), in the command's rank
 * order (cosa_advice_compare). */
#include "api_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* advise's default candidates (cosa advise --help) */
static const char default_schemes[] =
    "p0,p0+mbcorr,p1,p1+mbcorr,p2,p2+mbcorr,p3,p3+mbcorr,p4,p4+mbcorr,"
    "gs:p0,gs:p1,gs:p2,imp:p0,imp:p1,gs-imp:p0,gs-imp:p1";

void cosa_case_advise_defaults(cosa_case_advise_opts *o)
{
    if (!o)
        return;
    *o = (cosa_case_advise_opts){.crit = COSA_CRIT_ACCURATE, .tol = 0.0, .tend = 0.0,
                                 .schemes = NULL, .dt_min = 1e-7, .dt_max = 0.0,
                                 .per_decade = COSA_LIMIT_PER_DECADE, .cost_corr = 0.2,
                                 .iter_tol = COSA_ADVISE_ITER_TOL,
                                 .cost_rollback = COSA_ADVISE_COST_ROLLBACK};
}

/* The comma-separated candidates of list (a new array, *n entries). */
static cosa_status advise_schemes(const char *list, cosa_scheme **out, size_t *n, char *err,
                                  size_t errsize)
{
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    char *buf = strdup(list);
    cosa_scheme *s = calloc(cap, sizeof *s);
    cosa_status st = buf && s ? COSA_OK : api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    size_t k = 0;
    char *save = NULL;
    for (char *tok = st == COSA_OK ? strtok_r(buf, ",", &save) : NULL; tok && st == COSA_OK;
         tok = strtok_r(NULL, ",", &save))
        st = api_scheme(tok, &s[k++], err, errsize);
    if (st == COSA_OK && k == 0)
        st = api_fail(err, errsize, COSA_EINVAL, "schemes: empty candidate list");
    free(buf);
    if (st != COSA_OK) {
        free(s);
        return st;
    }
    *out = s;
    *n = k;
    return COSA_OK;
}

/* The events rule of the one combination table (cosa_combination_check,
 * as cosa simulate with its defaults: --events on, one step per unit,
 * polynomial inputs, no energy correction) for an FMU with event mode;
 * then whether a fixed-step FMU can stop at another's event points (an
 * event point is a communication point of every unit). */
static int runnable_events(const cosa_model *m, const double *par, size_t n,
                           const cosa_scheme *s, char *why, size_t size)
{
    cosa_combination_refusal no;
    for (size_t i = 0; i < n; i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        if (cap && cap->event_mode &&
            cosa_combination_check(s, COSA_COMB_EVENTS, 1, &no) != COSA_OK) {
            if (why && size)
                snprintf(why, size, "FMU %s has event mode: the event points need %s "
                                    "(cosa simulate --events on, the default; or --events off)",
                         m->sub_name(m, par, i), no.needs);
            return 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const cosa_fmu_capability *ci = cosa_model_file_fmu_capability(m, i);
        if (!ci || !(ci->fixed_step > 0.0))
            continue;
        for (size_t e = 0; e < n; e++) {
            const cosa_fmu_capability *ce = cosa_model_file_fmu_capability(m, e);
            if (e == i || !ce || !ce->event_mode ||
                (ce->fixed_step > 0.0 && cosa_fmu_step_check(ci, ce->fixed_step, NULL, 0) ==
                                             COSA_OK))
                continue;
            char g[64] = ", which may fall anywhere";
            if (ce->fixed_step > 0.0)
                snprintf(g, sizeof g, " (it steps on a grid of %.15g s)", ce->fixed_step);
            if (why && size)
                snprintf(why, size, "FMU %s takes fixed internal steps of %.15g s and cannot "
                                    "stop at the event points of FMU %s%s (or cosa simulate "
                                    "--events off)",
                         m->sub_name(m, par, i), ci->fixed_step, m->sub_name(m, par, e), g);
            return 0;
        }
    }
    return 1;
}

int cosa_case_runnable(const cosa_case *c, const cosa_scheme *s, char *why, size_t size)
{
    const cosa_model *m = c ? c->model : NULL;
    char r[256];
    if (why && size)
        why[0] = '\0';
    size_t n = 0;
    for (; m && s && m->sub_name && m->sub_name(m, c->par, n); n++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, n);
        /* nu = 1: a summary that allows any degree without inputs (as advise) */
        if (cap && cosa_fmu_capability_check(cap, 1, s, r, sizeof r) != COSA_OK) {
            if (why && size)
                snprintf(why, size, "FMU %s: %s", m->sub_name(m, c->par, n), r);
            return 0;
        }
    }
    return n ? runnable_events(m, c->par, n, s, why, size) : 1;
}

/* A candidate and whether the model's FMUs can run it: advise's row order,
 * runnable ones first, then by cost (cosa_advice_compare). */
struct ranked {
    cosa_advice a;
    int runnable;
};

static int ranked_compare(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    if (a->runnable != b->runnable)
        return a->runnable ? -1 : 1;
    return cosa_advice_compare(&a->a, &b->a);
}

cosa_status cosa_case_advise(const cosa_case *c, const cosa_case_advise_opts *o,
                             cosa_advice *out, size_t cap, size_t *n,
                             cosa_case_advise_opts *used, char *err, size_t errsize)
{
    api_clear(err, errsize);
    if (!c || !o || !n)
        return api_fail(err, errsize, COSA_EINVAL, "no case, options or count pointer");
    cosa_case_advise_opts u = *o;
    if (!(u.tol > 0.0 && isfinite(u.tol)))
        return api_fail(err, errsize, COSA_ERANGE, "tol must be a positive finite number");
    if (u.crit != COSA_CRIT_ACCURATE && u.crit != COSA_CRIT_LOCAL)
        return api_fail(err, errsize, COSA_EINVAL, "criterion must be accurate (global) or local");
    if (!isfinite(u.tend) || u.tend < 0.0 || !isfinite(u.dt_max) || u.dt_max < 0.0 ||
        !(u.dt_min > 0.0) || !isfinite(u.cost_corr) || u.cost_corr < 0.0 ||
        u.per_decade < 1 || u.per_decade > 1000)
        return api_fail(err, errsize, COSA_ERANGE,
                        "tend, dt_max >= 0, dt_min > 0, cost_corr >= 0 finite and per_decade "
                        "1..1000 expected");
    cosa_scheme *schemes = NULL;
    size_t ns = 0;
    cosa_status st = advise_schemes(u.schemes ? u.schemes : default_schemes, &schemes, &ns, err,
                                    errsize);
    if (st != COSA_OK)
        return st;
    *n = ns;
    cosa_system *sys = NULL;
    double *x0 = NULL;
    cosa_eval_workspace *ew = NULL;
    cosa_advice *adv = NULL;
    /* the system (through the plain scheme p0), then every candidate
     * checked against it */
    cosa_scheme p0;
    st = api_system(c, "p0", &p0, &sys, &x0, err, errsize);
    for (size_t i = 0; st == COSA_OK && i < ns; i++)
        if ((st = cosa_scheme_check(&schemes[i], sys)) != COSA_OK) {
            char nm[64];
            cosa_scheme_name(&schemes[i], nm, sizeof nm);
            api_fail(err, errsize, st, "scheme '%s': %s", nm, cosa_strerror(st));
        }
    if (st == COSA_OK && cosa_system_ny(sys) == 0)
        st = api_fail(err, errsize, COSA_EUNSUPPORTED,
                      "model '%s' has no outputs: accuracy (NRMSE) and time-domain runs are "
                      "undefined (stability: cosa point, limit --criterion stable, map, curve)",
                      c->model->name);
    if (st == COSA_OK) {
        u.tend = u.tend > 0.0 ? u.tend : c->model->tend;
        if (u.dt_max == 0.0)
            u.dt_max = 1e-2 < u.tend ? 1e-2 : u.tend;
        if (!(u.dt_min < u.dt_max))
            st = api_fail(err, errsize, COSA_ERANGE, "dt_min (%g) must be smaller than dt_max (%g)",
                          u.dt_min, u.dt_max);
        else if (u.dt_max > u.tend)
            st = api_fail(err, errsize, COSA_ERANGE, "dt_max %g is longer than the horizon %g s",
                          u.dt_max, u.tend);
    }
    if (st == COSA_OK && cap < ns)
        st = api_fail(err, errsize, COSA_ERANGE, "%zu candidates, room for %zu", ns, cap);
    int pmax = 0;
    for (size_t i = 0; st == COSA_OK && i < ns; i++)
        pmax = schemes[i].order > pmax ? schemes[i].order : pmax;
    if (st == COSA_OK && (!(ew = cosa_eval_workspace_alloc(sys, pmax)) ||
                          !(adv = calloc(ns, sizeof *adv))))
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    if (st == COSA_OK) {
        cosa_eval_workspace_set_cancel(ew, c->cancel);
        st = cosa_advise_iter(sys, x0, u.tend, u.crit, u.tol, schemes, ns, u.dt_min, u.dt_max,
                              u.per_decade, u.cost_corr, u.iter_tol, u.cost_rollback, adv, ew);
        if (st != COSA_OK)
            api_fail(err, errsize, st, "%s", cosa_strerror(st));
    }
    struct ranked *rk = st == COSA_OK ? calloc(ns, sizeof *rk) : NULL;
    if (st == COSA_OK && !rk)
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    if (st == COSA_OK) {
        for (size_t i = 0; i < ns; i++) {
            rk[i].a = adv[i];
            rk[i].runnable = cosa_case_runnable(c, &schemes[i], NULL, 0);
        }
        qsort(rk, ns, sizeof *rk, ranked_compare);
        for (size_t i = 0; i < ns; i++)
            out[i] = rk[i].a;
        if (used)
            *used = u;
    }
    free(rk);
    free(adv);
    cosa_eval_workspace_free(ew);
    free(x0);
    cosa_system_free(sys);
    free(schemes);
    return st;
}
