/* case.c -- the one-call API's case: a model at parameter values, and the
 * checks every call shares (the command line's --model, --model-file, --set
 * and scheme rules, as one-line messages instead of printed errors). */
#include "api_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cosa_status api_fail(char *err, size_t errsize, cosa_status st, const char *fmt, ...)
{
    if (err && errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* A new case around model m (owned: freed with the case). */
static cosa_status case_new(const cosa_model *m, cosa_model *owned, cosa_case **out, char *err,
                            size_t errsize)
{
    cosa_case *c = calloc(1, sizeof *c);
    if (!c || !(c->par = calloc(m->nparam + 1, sizeof *c->par))) {
        free(c);
        cosa_model_free(owned);
        return api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    }
    c->model = m;
    c->owned = owned;
    cosa_model_defaults(m, c->par);
    *out = c;
    return COSA_OK;
}

cosa_status cosa_case_builtin(const char *name, cosa_case **out, char *err, size_t errsize)
{
    api_clear(err, errsize);
    if (!out)
        return api_fail(err, errsize, COSA_EINVAL, "no result pointer");
    *out = NULL;
    if (!name)
        return api_fail(err, errsize, COSA_EINVAL, "no model name");
    const cosa_model *m = cosa_model_find(name);
    if (!m)
        return api_fail(err, errsize, COSA_EINVAL, "unknown model '%s' (see 'cosa models')",
                        name);
    return case_new(m, NULL, out, err, errsize);
}

cosa_status cosa_case_load(const char *path, cosa_case **out, char *err, size_t errsize)
{
    api_clear(err, errsize);
    if (!out)
        return api_fail(err, errsize, COSA_EINVAL, "no result pointer");
    *out = NULL;
    if (!path)
        return api_fail(err, errsize, COSA_EINVAL, "no model file");
    char msg[512] = "";
    cosa_model *m = NULL;
    cosa_status st = cosa_model_file_load(path, &m, msg, sizeof msg);
    if (st != COSA_OK)
        return api_fail(err, errsize, st, "%s", msg[0] ? msg : cosa_strerror(st));
    return case_new(m, m, out, err, errsize);
}

cosa_status cosa_case_set(cosa_case *c, const char *name, double value, char *err,
                          size_t errsize)
{
    api_clear(err, errsize);
    char msg[256], b[32];
    if (!c || !name)
        return api_fail(err, errsize, COSA_EINVAL, "no case or no parameter name");
    const int k = cosa_model_param_index(c->model, name);
    if (k < 0 && cosa_model_file_is_let(c->model, name))
        return api_fail(err, errsize, COSA_EPARAM, "--set %s: '%s' is derived (let), not settable",
                        name, name);
    if (k < 0)
        return api_fail(err, errsize, COSA_EPARAM, "model '%s' has no parameter '%s'",
                        c->model->name, name);
    /* the value's own rules now; bounds by other parameters when a call
     * builds the system (as --set) */
    if (cosa_param_check(c->model, (size_t)k, NULL, value, msg, sizeof msg) != COSA_OK)
        return api_fail(err, errsize, COSA_EPARAM, "--set %s=%s: %s", name,
                        cosa_number_text(b, sizeof b, value), msg);
    char *copy = strdup(name);
    char **nn = realloc(c->set_name, (c->nset + 1) * sizeof *nn);
    if (nn)
        c->set_name = nn;
    double *nv = realloc(c->set_value, (c->nset + 1) * sizeof *nv);
    if (nv)
        c->set_value = nv;
    if (!copy || !nn || !nv) {
        free(copy);
        return api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    }
    cosa_status st = cosa_model_set(c->model, c->par, name, value);
    if (st != COSA_OK) {
        free(copy);
        return api_fail(err, errsize, st, "model '%s' has no parameter '%s'", c->model->name,
                        name);
    }
    c->set_name[c->nset] = copy;
    c->set_value[c->nset++] = value;
    return COSA_OK;
}

const cosa_model *cosa_case_model(const cosa_case *c) { return c ? c->model : NULL; }
const double *cosa_case_par(const cosa_case *c) { return c ? c->par : NULL; }

void cosa_case_set_cancel(cosa_case *c, const cosa_cancel *cancel)
{
    if (c)
        c->cancel = cancel;
}

void cosa_case_free(cosa_case *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nset; i++)
        free(c->set_name[i]);
    free(c->set_name);
    free(c->set_value);
    free(c->par);
    cosa_model_free(c->owned);
    free(c);
}

cosa_status api_scheme(const char *text, cosa_scheme *s, char *err, size_t errsize)
{
    if (!text)
        return api_fail(err, errsize, COSA_EINVAL, "no scheme");
    if (cosa_scheme_parse(text, s) != COSA_OK)
        return api_fail(err, errsize, COSA_ESCHEME,
                        "unknown scheme '%s' (expected [gs:|imp:|gs-imp:]zoh|foh|soh|p0..p%d, "
                        "/Q = p or p+1 after gs:, imp:, gs-imp:, optional +mbcorr|+ocorr|+ecorr)",
                        text, COSA_ORDER_MAX);
    if (s->implicit && s->corr != COSA_CORR_NONE) {
        char nm[64];
        cosa_scheme_name(s, nm, sizeof nm);
        return api_fail(err, errsize, COSA_ESCHEME,
                        "scheme %s: corrections (+ocorr, +ecorr, +mbcorr) are not defined for "
                        "iterative schemes", nm);
    }
    return COSA_OK;
}

cosa_status api_model_failed(const cosa_case *c, cosa_status st, char *err, size_t errsize)
{
    char what[256];
    if (st == COSA_ENONFINITE &&
        cosa_model_file_nonfinite(c->model, c->par, what, sizeof what) == COSA_ENONFINITE) {
        char with[512];
        cosa_set_text(with, sizeof with, (const char *const *)c->set_name, c->set_value,
                      c->nset);
        return api_fail(err, errsize, st, "model '%s': %s%s", c->model->name, what, with);
    }
    return api_fail(err, errsize, st, "model '%s': %s", c->model->name, cosa_strerror(st));
}

/* The parameters against their ranges, naming the set value at fault. */
static cosa_status case_check(const cosa_case *c, char *err, size_t errsize)
{
    char msg[256], b[32];
    size_t k;
    if (cosa_model_check(c->model, c->par, &k, msg, sizeof msg) == COSA_OK)
        return COSA_OK;
    const cosa_param *p = &c->model->params[k];
    const char *names[3] = {p->name, p->range.lo_param, p->range.hi_param};
    for (int j = 0; j < 3; j++)
        for (size_t i = c->nset; names[j] && i-- > 0;)
            if (strcmp(c->set_name[i], names[j]) == 0)
                return api_fail(err, errsize, COSA_EPARAM, "--set %s=%s: %s", names[j],
                                cosa_number_text(b, sizeof b, c->set_value[i]), msg);
    return api_fail(err, errsize, COSA_EPARAM, "model '%s': %s", c->model->name, msg);
}

cosa_status api_x0(const cosa_case *c, size_t nx, double **x0, char *err, size_t errsize)
{
    if (!(*x0 = calloc(nx + 1, sizeof **x0)))
        return api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    cosa_status st = c->model->initial_state(c->model, c->par, *x0);
    if (st == COSA_OK)
        return COSA_OK;
    free(*x0);
    *x0 = NULL;
    char what[8];
    if (st == COSA_ENONFINITE &&
        cosa_model_file_nonfinite(c->model, c->par, what, sizeof what) == COSA_ENONFINITE)
        return api_model_failed(c, st, err, errsize);
    return api_fail(err, errsize, st, "model '%s': initial state: %s", c->model->name,
                    cosa_strerror(st));
}

cosa_status api_system(const cosa_case *c, const char *scheme_text, cosa_scheme *s,
                       cosa_system **sys, double **x0, char *err, size_t errsize)
{
    *sys = NULL;
    if (x0)
        *x0 = NULL;
    if (!c)
        return api_fail(err, errsize, COSA_EINVAL, "no case");
    cosa_status st = api_scheme(scheme_text, s, err, errsize);
    if (st != COSA_OK)
        return st;
    if (!cosa_model_is_linear(c->model))
        return api_fail(err, errsize, COSA_EUNSUPPORTED,
                        "model %s is nonlinear: Phi analysis needs a linear model (use cosa "
                        "simulate)", c->model->name);
    if ((st = case_check(c, err, errsize)) != COSA_OK)
        return st;
    if ((st = c->model->create(c->model, c->par, sys)) != COSA_OK) {
        *sys = NULL;
        return api_model_failed(c, st, err, errsize);
    }
    st = cosa_scheme_check(s, *sys);
    if (st == COSA_EUNSUPPORTED)
        api_fail(err, errsize, st,
                 "scheme '%s': corrections are defined for explicit Jacobi schemes only",
                 scheme_text);
    else if (st != COSA_OK)
        api_fail(err, errsize, st, "scheme '%s': %s", scheme_text, cosa_strerror(st));
    if (st == COSA_OK && x0)
        st = api_x0(c, cosa_system_nx(*sys), x0, err, errsize);
    if (st != COSA_OK) {
        cosa_system_free(*sys);
        *sys = NULL;
    }
    return st;
}

cosa_status api_dt(const char *what, double dt, const cosa_system *sys, char *err,
                   size_t errsize)
{
    char b[32];
    if (!(dt > 0.0) || !isfinite(dt))
        return api_fail(err, errsize, COSA_ERANGE, "%s must be a positive finite number, got %s",
                        what, cosa_number_text(b, sizeof b, dt));
    /* the discretisation exponentiates the Van Loan matrix whose top block
     * row is dt [A B] (doc/method.md): its infinity norm must stay well
     * inside the double range, as the command line's cli_dt_fits */
    const double norm = cosa_system_norm_AB(sys);
    if (!(dt * norm > 1e300))
        return COSA_OK;
    return api_fail(err, errsize, COSA_ERANGE,
                    "%s %s is too large: dt x |[A B]| = %.3g overflows the discretisation "
                    "(|[A B]| = %.3g, largest row sum; bound 1e300): at most %.3g",
                    what, cosa_number_text(b, sizeof b, dt), dt * norm, norm, 1e300 / norm);
}
