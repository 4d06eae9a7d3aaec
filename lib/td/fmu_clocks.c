/* fmu_clocks.c -- the Clock variables of an FMI 3.0 modelDescription.xml
 * (causality, intervalVariability, intervalDecimal/shiftDecimal or their
 * counter/resolution forms, canBeDeactivated, priority) and the `clocks`
 * attribute of Float64 variables: which clocks a clocked variable belongs
 * to; clocked Float64 outputs join the unit's outputs.  Read after
 * fmu_description.c has read the Float64 variables. */
#include "td/fmu_impl.h"

#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const interval_names[] = {"constant", "fixed",     "calculated", "tunable",
                                             "changing", "countdown", "triggered"};
enum { N_INTERVAL = sizeof interval_names / sizeof *interval_names };

const char *cosa_fmu_interval_variability_name(int iv)
{
    return iv >= 0 && iv < N_INTERVAL ? interval_names[iv] : "?";
}

static char *attr(xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = strdup((const char *)v);
    xmlFree(v);
    return s;
}

static int is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* A number attribute: 1 and *x if present and finite, 0 if absent, -1 if
 * malformed. */
static int attr_num(xmlNode *n, const char *name, double *x)
{
    char *v = attr(n, name), *end;
    if (!v)
        return 0;
    *x = strtod(v, &end);
    const int ok = end != v && *end == '\0' && isfinite(*x);
    free(v);
    return ok ? 1 : -1;
}

/* A time attribute given as decimal (dec) or as counter / resolution;
 * *x = dflt when neither is given.  0, or -1 (malformed, or negative). */
static int time_attr(xmlNode *n, const char *dec, const char *counter, double dflt, double *x)
{
    double c, r = 1.0;
    int k = attr_num(n, dec, x);
    if (k == 0) {
        k = attr_num(n, counter, &c);
        const int kr = attr_num(n, "resolution", &r);
        if (k == 1 && kr >= 0 && r > 0.0)
            *x = c / r;
        else if (k == 0)
            *x = dflt;
        else
            k = -1;
    }
    return k < 0 || *x < 0.0 ? -1 : 0;
}

static int add_clock(fmu_description *d, xmlNode *n, char *err, size_t errsize)
{
    cosa_fmu_clock c = {0};
    char *vr = attr(n, "valueReference"), *cz = attr(n, "causality");
    char *iv = attr(n, "intervalVariability"), *end = NULL;
    c.name = attr(n, "name");
    const unsigned long v = vr ? strtoul(vr, &end, 10) : 0;
    c.vr = (unsigned)v;
    c.causality = !cz || !strcmp(cz, "local") ? COSA_FMU_LOCAL : !strcmp(cz, "input")
                  ? COSA_FMU_INPUT : !strcmp(cz, "output") ? COSA_FMU_OUTPUT : -1;
    c.interval_variability = -1;
    for (int i = 0; iv && i < N_INTERVAL; i++)
        if (!strcmp(iv, interval_names[i]))
            c.interval_variability = i;
    c.periodic = c.interval_variability >= 0 && c.interval_variability <= COSA_FMU_CLOCK_TUNABLE;
    double pr = -1.0;
    const int bad_vr = !vr || end == vr || *end != '\0' || vr[0] == '-' || v > 0xffffffffUL;
    const char *what = NULL, *val = NULL;
    if (!c.name)
        what = "name";
    else if (bad_vr)
        what = "valueReference", val = vr;
    else if (c.causality < 0)
        what = "causality", val = cz;
    else if (c.interval_variability < 0)
        what = "intervalVariability", val = iv;
    else if (time_attr(n, "intervalDecimal", "intervalCounter", NAN, &c.interval) != 0)
        what = "interval (intervalDecimal, or intervalCounter and resolution)";
    else if (time_attr(n, "shiftDecimal", "shiftCounter", 0.0, &c.shift) != 0)
        what = "shift (shiftDecimal, or shiftCounter and resolution)";
    else if (attr_num(n, "priority", &pr) < 0)
        what = "priority";
    if (what)
        snprintf(err, errsize, "modelDescription.xml: Clock '%.100s': missing or bad %s%s%.40s%s",
                 c.name ? c.name : "?", what, val ? " '" : "", val ? val : "", val ? "'" : "");
    free(vr);
    free(cz);
    free(iv);
    c.priority = (long)pr;
    char *cd = attr(n, "canBeDeactivated");
    c.can_be_deactivated = cd && !strcmp(cd, "true");
    free(cd);
    cosa_fmu_clock *nc = what ? NULL : realloc(d->clocks, (d->nclock + 1) * sizeof *nc);
    if (!nc) {
        if (!what)
            snprintf(err, errsize, "out of memory");
        free(c.name);
        return -1;
    }
    d->clocks = nc;
    d->clocks[d->nclock++] = c;
    return 0;
}

/* The clocks attribute of the Float64 variable n (value references,
 * separated by white space) into the variable's index list. */
static int var_clocks(fmu_description *d, xmlNode *n, char *err, size_t errsize)
{
    char *list = attr(n, "clocks"), *vr = attr(n, "valueReference"), *end;
    if (!list || !vr) {
        free(list);
        free(vr);
        return 0;
    }
    const unsigned long me = strtoul(vr, NULL, 10);
    free(vr);
    cosa_fmu_var *var = NULL;
    for (size_t i = 0; i < d->nvar && !var; i++)
        if (d->vars[i].vr == me)
            var = &d->vars[i];
    int rc = 0;
    size_t *idx = NULL, k = 0;
    for (char *p = list; var && rc == 0;) {
        const unsigned long ref = strtoul(p, &end, 10);
        if (end == p)
            break;
        p = end;
        long c = -1;
        for (size_t j = 0; j < d->nclock && c < 0; j++)
            if (d->clocks[j].vr == ref)
                c = (long)j;
        size_t *ni = c >= 0 ? realloc(idx, (k + 1) * sizeof *ni) : NULL;
        if (!ni) {
            if (c < 0)
                snprintf(err, errsize, "modelDescription.xml: variable '%.100s': clocks names "
                         "%lu, which is no Clock", var->name, ref);
            else
                snprintf(err, errsize, "out of memory");
            rc = -1;
            break;
        }
        idx = ni;
        idx[k++] = (size_t)c;
    }
    if (rc == 0 && var && *end != '\0' && strspn(end, " \t\r\n") != strlen(end)) {
        snprintf(err, errsize, "modelDescription.xml: variable '%.100s': bad clocks '%.40s'",
                 var->name, list);
        rc = -1;
    }
    free(list);
    if (rc != 0 || !var) {
        free(idx);
        return rc;
    }
    var->clocks = idx;
    var->nclocks = k;
    return 0;
}

int fmu_clocks_read(struct _xmlNode *mv, fmu_description *d, char *err, size_t errsize)
{
    d->nin_step = d->nin;
    if (d->version != 3 || !mv)
        return 0;
    /* every Clock element marks the FMU as clocked; the scalar ones are
     * read (an array is listed with the variables cosa does not read) */
    for (xmlNode *n = mv->children; n; n = n->next) {
        if (!is(n, "Clock"))
            continue;
        d->caps |= COSA_FMU_CAP_CLOCKS;
        int array = 0;
        for (xmlNode *c = n->children; c && !array; c = c->next)
            array = is(c, "Dimension");
        if (!array && add_clock(d, n, err, errsize) != 0)
            return -1;
    }
    for (xmlNode *n = mv->children; n; n = n->next)
        if (is(n, "Float64") && var_clocks(d, n, err, errsize) != 0)
            return -1;
    /* clocked Float64 outputs (discrete: their value changes at their
     * clocks' ticks and is held in between) are outputs of the unit too;
     * clocked inputs are inputs, set in Event Mode at their clocks' ticks
     * (after the continuous ones) */
    for (int in = 0; in < 2; in++)
        for (size_t i = 0; i < d->nvar; i++) {
            const cosa_fmu_var *v = &d->vars[i];
            if (!v->nclocks || v->causality != (in ? COSA_FMU_INPUT : COSA_FMU_OUTPUT) ||
                v->variability == COSA_FMU_CONTINUOUS)
                continue;
            size_t **list = in ? &d->inputs : &d->outputs, *n = in ? &d->nin : &d->nout;
            size_t *o = realloc(*list, (*n + 1) * sizeof *o);
            if (!o) {
                snprintf(err, errsize, "out of memory");
                return -1;
            }
            *list = o;
            o[(*n)++] = i;
        }
    return 0;
}

void fmu_clocks_free(fmu_description *d)
{
    for (size_t i = 0; i < d->nclock; i++)
        free(d->clocks[i].name);
    free(d->clocks);
    for (size_t i = 0; i < d->nvar; i++)
        free((size_t *)d->vars[i].clocks);
    d->clocks = NULL;
    d->nclock = 0;
}
