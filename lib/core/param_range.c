/* param_range.c -- declared parameter ranges (cosa_range): checking a value
 * against them, and writing them as text for `cosa models`, messages and
 * model files. */
#include "cosa/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The value of a bound: the number, or the parameter it names (in par). */
static int bound_value(const cosa_model *m, const char *pname, double number, const double *par,
                       double *out)
{
    if (!pname) {
        *out = number;
        return 1;
    }
    if (!par)
        return 0;
    int j = cosa_model_param_index(m, pname);
    if (j < 0)
        return 0;
    *out = par[j];
    return 1;
}

static int bound_text(char *buf, size_t size, const char *pname, double number)
{
    if (pname)
        return snprintf(buf, size, "%s", pname);
    char b[COSA_NUMBER_MAX];
    return snprintf(buf, size, "%s", cosa_number_format(b, number));
}

int cosa_param_range_text(const cosa_model *m, size_t k, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    if (!m || k >= m->nparam)
        return 0;
    const cosa_range *r = &m->params[k].range;
    char lo[80], hi[80];
    bound_text(lo, sizeof lo, r->lo_param, r->lo);
    bound_text(hi, sizeof hi, r->hi_param, r->hi);
    const char *parts[3];
    char p1[96], p2[96];
    size_t n = 0;
    if (r->flags & COSA_RANGE_INT)
        parts[n++] = "integer";
    if (r->flags & (COSA_RANGE_GT | COSA_RANGE_GE)) {
        snprintf(p1, sizeof p1, "%s %s", r->flags & COSA_RANGE_GT ? ">" : ">=", lo);
        parts[n++] = p1;
    }
    if (r->flags & (COSA_RANGE_LT | COSA_RANGE_LE)) {
        snprintf(p2, sizeof p2, "%s %s", r->flags & COSA_RANGE_LT ? "<" : "<=", hi);
        parts[n++] = p2;
    }
    int len = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t at = (size_t)len;
        len += snprintf(at < size ? buf + at : NULL, at < size ? size - at : 0, "%s%s",
                        i ? ", " : "", parts[i]);
    }
    return len;
}

/* The rule as prose for a message: "must be > 0", "must be an integer in
 * 1..n (n = 5)", "must be >= dkmin (dkmin = 10)". */
static void rule_text(const cosa_model *m, const cosa_range *r, const double *par, char *buf,
                      size_t size)
{
    char lo[80], hi[80], lov[40] = "", hiv[40] = "";
    double v;
    bound_text(lo, sizeof lo, r->lo_param, r->lo);
    bound_text(hi, sizeof hi, r->hi_param, r->hi);
    char b[COSA_NUMBER_MAX];
    if (r->lo_param && bound_value(m, r->lo_param, r->lo, par, &v))
        snprintf(lov, sizeof lov, "%s = %s", r->lo_param, cosa_number_format(b, v));
    if (r->hi_param && bound_value(m, r->hi_param, r->hi, par, &v))
        snprintf(hiv, sizeof hiv, "%s = %s", r->hi_param, cosa_number_format(b, v));
    const int has_lo = (r->flags & (COSA_RANGE_GT | COSA_RANGE_GE)) != 0;
    const int has_hi = (r->flags & (COSA_RANGE_LT | COSA_RANGE_LE)) != 0;
    const char *glo = r->flags & COSA_RANGE_GT ? ">" : ">=";
    const char *ghi = r->flags & COSA_RANGE_LT ? "<" : "<=";
    char vals[96] = "";
    if (lov[0] || hiv[0])
        snprintf(vals, sizeof vals, " (%s%s%s)", lov, lov[0] && hiv[0] ? ", " : "", hiv);
    if ((r->flags & COSA_RANGE_INT) && (r->flags & COSA_RANGE_GE) && (r->flags & COSA_RANGE_LE))
        snprintf(buf, size, "must be an integer in %s..%s%s", lo, hi, vals);
    else if (has_lo && has_hi)
        snprintf(buf, size, "must be %s%s %s and %s %s%s",
                 r->flags & COSA_RANGE_INT ? "an integer " : "", glo, lo, ghi, hi, vals);
    else if (has_lo)
        snprintf(buf, size, "must be %s%s %s%s", r->flags & COSA_RANGE_INT ? "an integer " : "",
                 glo, lo, vals);
    else if (has_hi)
        snprintf(buf, size, "must be %s%s %s%s", r->flags & COSA_RANGE_INT ? "an integer " : "",
                 ghi, hi, vals);
    else
        snprintf(buf, size, "must be an integer");
}

cosa_status cosa_param_check(const cosa_model *m, size_t k, const double *par, double value,
                             char *msg, size_t size)
{
    if (size)
        msg[0] = '\0';
    if (!m || k >= m->nparam)
        return COSA_EINVAL;
    const cosa_param *p = &m->params[k];
    if (!isfinite(value)) {
        if (size)
            snprintf(msg, size, "%s must be finite", p->name);
        return COSA_ENONFINITE;
    }
    const cosa_range *r = &p->range;
    int ok = 1;
    double b;
    if ((r->flags & COSA_RANGE_INT) && value != floor(value))
        ok = 0;
    if (ok && (r->flags & (COSA_RANGE_GT | COSA_RANGE_GE)) &&
        bound_value(m, r->lo_param, r->lo, par, &b))
        ok = r->flags & COSA_RANGE_GT ? value > b : value >= b;
    if (ok && (r->flags & (COSA_RANGE_LT | COSA_RANGE_LE)) &&
        bound_value(m, r->hi_param, r->hi, par, &b))
        ok = r->flags & COSA_RANGE_LT ? value < b : value <= b;
    if (ok)
        return COSA_OK;
    if (size) {
        char rule[256];
        rule_text(m, r, par, rule, sizeof rule);
        snprintf(msg, size, "%s %s", p->name, rule);
    }
    return COSA_EPARAM;
}

cosa_status cosa_model_check(const cosa_model *m, const double *par, size_t *culprit, char *msg,
                             size_t size)
{
    if (size)
        msg[0] = '\0';
    if (!m || (!par && m->nparam))
        return COSA_EINVAL;
    for (size_t k = 0; k < m->nparam; k++) {
        cosa_status st = cosa_param_check(m, k, par, par[k], msg, size);
        if (st != COSA_OK) {
            if (culprit)
                *culprit = k;
            return st;
        }
    }
    return COSA_OK;
}
