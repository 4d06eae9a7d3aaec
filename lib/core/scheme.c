/* scheme.c -- coupling schemes: parsing, names, validation, and the
 * information-vector layout of doc/method.md. */
#include "cosa/core.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Case-insensitive prefix match; on success advances *p past the prefix. */
static int eat(const char **p, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)(*p)[i]) != word[i])
            return 0;
    *p += n;
    return 1;
}

cosa_status cosa_scheme_parse(const char *text, cosa_scheme *out)
{
    if (!text || !out)
        return COSA_EINVAL;
    cosa_scheme s = {.order = -1, .corr = COSA_CORR_NONE, .alpha = 1.0,
                     .exec = COSA_JACOBI, .seq = NULL, .model = NULL, .relax = 1.0};
    const char *p = text;
    if (eat(&p, "gs:"))
        s.exec = COSA_GAUSS_SEIDEL;
    else if (eat(&p, "gs-imp:"))
        s.exec = COSA_GAUSS_SEIDEL, s.implicit = 1;
    else if (eat(&p, "imp:"))
        s.implicit = 1;
    else
        (void)eat(&p, "jacobi:");
    if (eat(&p, "zoh"))
        s.order = 0;
    else if (eat(&p, "foh"))
        s.order = 1;
    else if (eat(&p, "soh"))
        s.order = 2;
    else if (tolower((unsigned char)*p) == 'p' && isdigit((unsigned char)p[1]) &&
             !isdigit((unsigned char)p[2])) {
        s.order = p[1] - '0';
        p += 2;
    } else
        return COSA_ESCHEME;
    /* "/Q": interpolation degree q = p or p + 1 (Gauss-Seidel or implicit) */
    if (*p == '/') {
        if (!isdigit((unsigned char)p[1]) || isdigit((unsigned char)p[2]) ||
            (s.exec != COSA_GAUSS_SEIDEL && !s.implicit))
            return COSA_ESCHEME;
        const int q = p[1] - '0';
        if (q != s.order && q != s.order + 1)
            return COSA_ESCHEME;
        s.q_extra = q - s.order;
        p += 2;
    }
    if (*p == '+') {
        p++;
        if (eat(&p, "mbcorr"))
            s.corr = COSA_CORR_MBCORR;
        else if (eat(&p, "ecorr"))
            s.corr = COSA_CORR_STATE;
        else if (eat(&p, "ocorr"))
            s.corr = COSA_CORR_OUTPUT;
        else
            return COSA_ESCHEME;
    }
    if (*p != '\0' || s.order > COSA_ORDER_MAX || COSA_SCHEME_Q(&s) > COSA_ORDER_MAX)
        return COSA_ESCHEME;
    *out = s;
    return COSA_OK;
}

void cosa_scheme_name(const cosa_scheme *s, char *buf, size_t size)
{
    static const char *const base[] = {"ZOH", "FOH", "SOH"};
    static const char *const suffix[] = {"", "+ocorr", "+ecorr", "+MBCorr"};
    if (!buf || size == 0)
        return;
    if (!s || s->order < 0 || s->corr > COSA_CORR_MBCORR) {
        snprintf(buf, size, "invalid");
        return;
    }
    char ord[16], q[8] = "";
    if (s->order <= 2)
        snprintf(ord, sizeof ord, "%s", base[s->order]);
    else
        snprintf(ord, sizeof ord, "p%d", s->order);
    if (s->q_extra)
        snprintf(q, sizeof q, "/%d", COSA_SCHEME_Q(s));
    const char *pre = s->implicit ? (s->exec == COSA_GAUSS_SEIDEL ? "gs-imp:" : "imp:")
                                  : (s->exec == COSA_GAUSS_SEIDEL ? "gs:" : "");
    snprintf(buf, size, "%s%s%s%s", pre, ord, q, suffix[s->corr]);
}

cosa_status cosa_scheme_check(const cosa_scheme *s, const cosa_system *sys)
{
    if (!s)
        return COSA_EINVAL;
    if (s->order < 0 || s->order > COSA_ORDER_MAX || s->corr > COSA_CORR_MBCORR ||
        (s->exec != COSA_JACOBI && s->exec != COSA_GAUSS_SEIDEL))
        return COSA_ESCHEME;
    if (!isfinite(s->alpha))
        return COSA_ENONFINITE;
    if ((s->exec == COSA_GAUSS_SEIDEL || s->implicit) && s->corr != COSA_CORR_NONE)
        return COSA_EUNSUPPORTED; /* corrections are defined for explicit Jacobi only */
    if (s->q_extra < 0 || s->q_extra > 1 || COSA_SCHEME_Q(s) > COSA_ORDER_MAX ||
        (s->q_extra && s->exec != COSA_GAUSS_SEIDEL && !s->implicit))
        return COSA_ESCHEME;
    if (s->implicit && !(isfinite(s->relax) && s->relax != 0.0))
        return COSA_ERANGE;
    if (s->model && sys && s->model != sys) {
        size_t n = cosa_system_nsub(sys);
        if (cosa_system_nsub(s->model) != n)
            return COSA_EMODELSHAPE;
        for (size_t i = 0; i < n; i++) {
            size_t a[6], b[6];
            cosa_system_sub_dims(sys, i, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            cosa_system_sub_dims(s->model, i, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
            if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2])
                return COSA_EMODELSHAPE;
        }
    }
    if (s->exec == COSA_GAUSS_SEIDEL && s->seq && sys) {
        size_t n = cosa_system_nsub(sys);
        unsigned char *seen = calloc(n ? n : 1, 1);
        if (!seen)
            return COSA_ENOMEM;
        cosa_status st = COSA_OK;
        for (size_t i = 0; i < n && st == COSA_OK; i++) {
            if (s->seq[i] >= n || seen[s->seq[i]])
                st = COSA_EINVAL;
            else
                seen[s->seq[i]] = 1;
        }
        free(seen);
        return st;
    }
    return COSA_OK;
}

cosa_status cosa_layout_get(const cosa_system *sys, const cosa_scheme *s, cosa_layout *out)
{
    if (!sys || !s || !out)
        return COSA_EINVAL;
    cosa_status st = cosa_scheme_check(s, sys);
    if (st != COSA_OK)
        return st;
    cosa_layout l;
    l.nx = cosa_system_nx(sys);
    l.ny = cosa_system_ny(sys);
    l.nu = cosa_system_nu(sys);
    l.nhist = (size_t)s->order + 1;
    l.has_du = (s->corr & COSA_CORR_STATE) ? 1 : 0;
    l.off_x = 0;
    l.off_y = l.nx;
    l.off_du = l.off_y + l.nhist * l.ny;
    l.dim = l.off_du + (l.has_du ? l.nu : 0);
    *out = l;
    return COSA_OK;
}
