/* map.c -- the one-call API's `cosa map`: one scheme, one macro step, a
 * metric over one or two parameter axes, into the caller's arrays by
 * cosa_sweep_run (the library's threads, bitwise the map's values). */
#include "api_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sweep axis of a; "x" or "y" in messages. */
static cosa_status map_axis(const cosa_case *c, const char *which, const cosa_case_axis *a,
                            cosa_sweep_axis *ax, char *err, size_t errsize)
{
    static const char prefix[] = "assume.";
    if (!a->name)
        return api_fail(err, errsize, COSA_EINVAL, "%s axis: no parameter name", which);
    if (a->n < 1 || a->n > 100000000)
        return api_fail(err, errsize, COSA_ERANGE, "%s axis %s: n must be 1..1e8, got %zu", which,
                        a->name, a->n);
    if (!isfinite(a->lo) || !isfinite(a->hi))
        return api_fail(err, errsize, COSA_ERANGE, "%s axis %s: lo and hi must be finite", which,
                        a->name);
    if (a->log && !(a->lo > 0.0 && a->hi > 0.0))
        return api_fail(err, errsize, COSA_ERANGE, "%s axis %s: a log axis needs lo, hi > 0",
                        which, a->name);
    if (a->n > 1 && !(a->lo != a->hi))
        return api_fail(err, errsize, COSA_ERANGE,
                        "%s axis %s: lo = hi with %zu points (a degenerate axis)", which,
                        a->name, a->n);
    ax->assumed = strncmp(a->name, prefix, sizeof prefix - 1) == 0;
    const char *p = ax->assumed ? a->name + sizeof prefix - 1 : a->name;
    ax->param = cosa_model_param_index(c->model, p);
    if (ax->param < 0 && !ax->assumed && strcmp(p, "relax") == 0)
        ax->param = COSA_AXIS_RELAX;
    if (ax->param < 0 && !ax->assumed && strcmp(p, "iterations") == 0)
        ax->param = COSA_AXIS_ITERATIONS;
    if (ax->param == -1)
        return api_fail(err, errsize, COSA_EPARAM,
                        "%s axis: model '%s' has no parameter '%s' (see 'cosa models')", which,
                        c->model->name, a->name);
    if (ax->assumed && c->model->params[ax->param].kind == COSA_PARAM_INITIAL)
        return api_fail(err, errsize, COSA_EPARAM,
                        "%s axis %s: '%s' is an initial state, not part of the assumed model "
                        "(which only the output correction uses)", which, a->name, p);
    ax->lo = a->lo;
    ax->hi = a->hi;
    ax->log = a->log != 0;
    ax->n = a->n;
    return COSA_OK;
}

cosa_status cosa_case_axis_values(const cosa_case_axis *a, double *v)
{
    if (!a || !v)
        return COSA_EINVAL;
    const cosa_sweep_axis ax = {0, a->lo, a->hi, a->log != 0, a->n, 0};
    for (size_t k = 0; k < a->n; k++)
        v[k] = cosa_sweep_axis_value(&ax, k);
    return COSA_OK;
}

cosa_status cosa_case_map(const cosa_case *c, const char *scheme, double dt, cosa_metric metric,
                          const cosa_case_axis *x, const cosa_case_axis *y, double tend,
                          int threads, double *values, cosa_status *status, size_t *nfailed,
                          char *err, size_t errsize)
{
    api_clear(err, errsize);
    return cosa_case_map_rows(c, scheme, dt, metric, x, y, tend, threads, 0, x ? x->n : 0,
                              values, status, nfailed, err, errsize);
}

cosa_status cosa_case_map_rows(const cosa_case *c, const char *scheme, double dt,
                               cosa_metric metric, const cosa_case_axis *x,
                               const cosa_case_axis *y, double tend, int threads, size_t ix0,
                               size_t ix1, double *values, cosa_status *status,
                               size_t *nfailed, char *err, size_t errsize)
{
    api_clear(err, errsize);
    cosa_scheme s;
    cosa_system *sys = NULL;
    char b1[32], b2[32];
    if (!c || !x || !values)
        return api_fail(err, errsize, COSA_EINVAL, "no case, x axis or result array");
    if ((unsigned)metric >= COSA_METRIC_COUNT)
        return api_fail(err, errsize, COSA_EINVAL, "unknown metric %d", (int)metric);
    if (isnan(tend) || isinf(tend))
        return api_fail(err, errsize, COSA_ERANGE, "tend must be finite");
    if (threads > 4096)
        return api_fail(err, errsize, COSA_ERANGE, "threads must be at most 4096, got %d",
                        threads);
    cosa_sweep_spec sp = {0};
    sp.y.param = -1;
    sp.y.n = 1;
    cosa_status st = map_axis(c, "x", x, &sp.x, err, errsize);
    if (st == COSA_OK && y)
        st = map_axis(c, "y", y, &sp.y, err, errsize);
    if (st == COSA_OK && y && sp.x.param == sp.y.param && sp.x.assumed == sp.y.assumed)
        st = api_fail(err, errsize, COSA_EINVAL, "x and y sweep the same parameter '%s'",
                      x->name);
    if (st == COSA_OK && sp.x.n > SIZE_MAX / sizeof(double) / sp.y.n)
        st = api_fail(err, errsize, COSA_ERANGE, "%zu x %zu points: too many", sp.x.n, sp.y.n);
    /* the base system: the scheme checked against it and dt against its
     * matrices, as the command line does before sweeping */
    if (st == COSA_OK)
        st = api_system(c, scheme, &s, &sys, NULL, err, errsize);
    if (st == COSA_OK)
        st = api_dt("dt", dt, sys, err, errsize);
    cosa_system_free(sys);
    if (st != COSA_OK)
        return st;
    if (tend <= 0.0)
        tend = c->model->tend;
    if (metric != COSA_METRIC_RHO && metric != COSA_METRIC_RHO_ITER && nearbyint(tend / dt) < 1)
        return api_fail(err, errsize, COSA_ERANGE, "dt %s is longer than the horizon tend %s",
                        cosa_number_text(b1, sizeof b1, dt), cosa_number_text(b2, sizeof b2, tend));
    sp.model = c->model;
    sp.par = c->par;
    sp.dt = &dt;
    sp.ndt = 1;
    sp.schemes = &s;
    sp.nscheme = 1;
    sp.metric = metric;
    sp.tend = tend;
    sp.threads = threads;
    sp.cancel = c->cancel;
    if (ix0 > ix1 || ix1 > sp.x.n)
        return api_fail(err, errsize, COSA_ERANGE, "rows %zu..%zu outside the x axis 0..%zu",
                        ix0, ix1, sp.x.n);
    if (ix0 == 0 && ix1 == sp.x.n) {
        st = cosa_sweep_run(&sp, values, status, nfailed);
    } else {
        /* the rows' grid points, x-major (cosa_sweep_index): bitwise what the
         * whole sweep writes there */
        const size_t n = (ix1 - ix0) * sp.y.n;
        size_t *list = malloc((n ? n : 1) * sizeof *list);
        if (!list)
            return api_fail(err, errsize, COSA_ENOMEM, "out of memory");
        for (size_t k = 0; k < n; k++)
            list[k] = cosa_sweep_index(&sp, 0, 0, ix0 + k / sp.y.n, k % sp.y.n);
        st = cosa_sweep_run_list(&sp, list, n, values, status, nfailed);
        free(list);
    }
    if (st != COSA_OK)
        api_fail(err, errsize, st, "%s", cosa_strerror(st));
    return st;
}
