/* ssp_ssv.c -- SSP import (ssp_impl.h): parameter bindings.
 *
 * A ParameterBinding of a component or a system takes its values from an
 * .ssv file (source, relative to the .ssd) or inline (ParameterValues with
 * an ssv:ParameterSet); its prefix is put before every name.  A component's
 * names are its FMU's variables; a system's are hierarchical
 * (ELEMENT.VARIABLE, ELEMENT.ELEMENT.VARIABLE for nested systems).  A value
 * becomes the default of the model parameter "COMP.VAR" (a Float64/Real FMU
 * parameter with a start value, or a state's start value: README "FMU
 * parameters"), so --set and map axes start from it.  Bindings are applied
 * inner ones first and in document order, so outer and later ones win (the
 * standard on ssd:ParameterBinding).  Refused in one line: a name that matches no such
 * variable (the standard lets tools ignore it; cosa does not ignore
 * silently), a value of another type than ssv:Real / ssv:Float64 (type
 * mismatch), parameter mappings, sources of other types or bases. */
#include "ssp_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The element called name in system sys, or NULL. */
static xmlNode *element(xmlNode *sys, const char *name, size_t n)
{
    for (xmlNode *t = ssp_next(sys->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Elements"))
            for (xmlNode *e = ssp_next(t->children); e; e = ssp_next(e->next)) {
                const char *en = ssp_attr(e, "name");
                if ((ssp_is(e, SSP_NS_SSD, "Component") || ssp_is(e, SSP_NS_SSD, "System")) &&
                    en && strlen(en) == n && strncmp(en, name, n) == 0)
                    return e;
            }
    return NULL;
}

/* The model parameter behind variable var of component node c, or -1 after
 * reporting (line: the parameter's). */
static long param_of(struct ssp *s, xmlNode *c, const char *var, const char *full, size_t line)
{
    const struct mf_sub *sub = ssp_component_sub(s, c);
    if (!sub || !sub->fh)
        return -1;
    const long k = mf_fmu_param(sub, var);
    if (k >= 0)
        return k;
    mf_perr(s->p, COSA_EPARAM, line, "parameter '%.120s': component '%.80s' has no Float64 "
            "parameter (with a start value) or state '%.120s' that cosa can set", full,
            ssp_attr(c, "name"), var);
    return -1;
}

/* The component node and variable named by the hierarchical name full
 * (prefix applied) bound at node target (a component or a system); the
 * model parameter's index, or -1 after reporting. */
static long resolve(struct ssp *s, xmlNode *target, const char *full, size_t line)
{
    const char *rest = full;
    xmlNode *n = target;
    while (ssp_is(n, SSP_NS_SSD, "System")) {
        const char *dot = strchr(rest, '.');
        xmlNode *e = dot ? element(n, rest, (size_t)(dot - rest)) : NULL;
        if (!e) {
            mf_perr(s->p, COSA_EPARAM, line, "parameter '%.120s' of system '%.80s': %s (cosa "
                    "sets the parameters of FMU components: ELEMENT.VARIABLE)", full,
                    ssp_attr(n, "name"), dot ? "no element of that name"
                                             : "names no element (system parameters are not "
                                               "supported)");
            return -1;
        }
        n = e;
        rest = dot + 1;
    }
    return param_of(s, n, rest, full, line);
}

/* One ssv:ParameterSet applied at target with prefix. */
static void apply_set(struct ssp *s, xmlNode *target, xmlNode *set, const char *prefix)
{
    mf_t *mf = s->p->mf;
    if (!ssp_is(set, SSP_NS_SSV, "ParameterSet")) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(set), "expected ssv:ParameterSet (namespace "
                SSP_NS_SSV "), found '%.60s' in namespace '%.120s'", (const char *)set->name,
                set->ns && set->ns->href ? (const char *)set->ns->href : "(none)");
        return;
    }
    for (xmlNode *t = ssp_next(set->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        char q[64];
        if (!ssp_is(t, SSP_NS_SSV, "Parameters")) {
            if (!ssp_is(t, SSP_NS_SSV, "Units") && !ssp_is(t, SSP_NS_SSV, "Enumerations") &&
                !ssp_is(t, SSP_NS_SSC, "Annotations") && !ssp_is(t, SSP_NS_SSV, "MetaData") &&
                !ssp_is(t, SSP_NS_SSV, "Signature"))
                mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "%s in ssv:ParameterSet: not "
                        "supported", ssp_qname(t, q));
            continue;
        }
        for (xmlNode *pn = ssp_next(t->children); pn && s->p->st == COSA_OK;
             pn = ssp_next(pn->next)) {
            const char *name = ssp_attr(pn, "name");
            if (!ssp_is(pn, SSP_NS_SSV, "Parameter") || !name) {
                mf_perr(s->p, COSA_ESYNTAX, ssp_line(pn), "%s in ssv:Parameters: expected "
                        "ssv:Parameter with a name", ssp_qname(pn, q));
                break;
            }
            xmlNode *v = ssp_next(pn->children);
            while (v && ssp_is(v, SSP_NS_SSC, "Annotations"))
                v = ssp_next(v->next);
            char full[512];
            snprintf(full, sizeof full, "%s%s", prefix, name);
            const long k = v ? resolve(s, target, full, ssp_line(pn)) : -1;
            if (!v)
                mf_perr(s->p, COSA_ESYNTAX, ssp_line(pn), "ssv:Parameter '%.120s' has no value",
                        name);
            if (k < 0)
                break;
            if (!ssp_is(v, SSP_NS_SSV, "Real") && !ssp_is(v, SSP_NS_SSV, "Float64")) {
                mf_perr(s->p, COSA_EPARAM, ssp_line(v), "parameter '%.120s': %s value for a "
                        "Float64 variable (type mismatch: give ssv:Real or ssv:Float64)", full,
                        ssp_qname(v, q));
                break;
            }
            double x;
            if (ssp_number(s, v, "value", 0.0, &x) != 0)
                break;
            if (!ssp_attr(v, "value")) {
                mf_perr(s->p, COSA_ESYNTAX, ssp_line(v), "parameter '%.120s' without a value",
                        full);
                break;
            }
            mf->params[k].value = x;
        }
    }
}

/* One ssd:ParameterBinding of node target. */
static void bind_one(struct ssp *s, xmlNode *target, xmlNode *b)
{
    const char *type = ssp_attr(b, "type"), *base = ssp_attr(b, "sourceBase");
    const char *source = ssp_attr(b, "source"), *prefix = ssp_attr(b, "prefix");
    if (type && strcmp(type, "application/x-ssp-parameter-set") != 0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(b), "ssd:ParameterBinding type '%.80s': not "
                "supported (application/x-ssp-parameter-set only)", type);
        return;
    }
    if (base && strcmp(base, "SSD") != 0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(b), "ssd:ParameterBinding sourceBase "
                "'%.40s': not supported (sources relative to the .ssd only)", base);
        return;
    }
    int done = 0;
    for (xmlNode *t = ssp_next(b->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        char q[64];
        if (ssp_is(t, SSP_NS_SSD, "ParameterValues") && !(source && source[0]) && !done) {
            apply_set(s, target, ssp_next(t->children) ? ssp_next(t->children) : t,
                      prefix ? prefix : "");
            done = 1;
        } else if (!ssp_is(t, SSP_NS_SSD, "Annotations") && !ssp_is(t, SSP_NS_SSD, "MetaData") &&
                   !ssp_is(t, SSP_NS_SSD, "Signature"))
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "%s in ssd:ParameterBinding: not "
                    "supported%s", ssp_qname(t, q),
                    ssp_is(t, SSP_NS_SSD, "ParameterMapping") ? " (parameter mappings)"
                    : ssp_is(t, SSP_NS_SSD, "ParameterValues") ? " (given with a source)" : "");
    }
    if (s->p->st != COSA_OK || done)
        return;
    char path[4096], shown[4096 + 64];
    if (!source || !source[0]) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(b), "ssd:ParameterBinding without a source or "
                "ParameterValues");
        return;
    }
    if (ssp_source_path(s, source, ssp_line(b), "ssd:ParameterBinding", path, sizeof path) != 0)
        return;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(b), "ssd:ParameterBinding: source '%.200s': %s",
                source, access(path, F_OK) == 0 ? "not a regular file" : "no such file");
        return;
    }
    /* messages about the .ssv name it, as shown */
    const char *fname = s->p->fname;
    if (s->archive)
        snprintf(shown, sizeof shown, "%.*s:%s", (int)(strrchr(fname, ':') - fname), fname,
                 source);
    else
        snprintf(shown, sizeof shown, "%s", path);
    s->p->fname = shown;
    xmlDoc *doc = ssp_read_xml(s, path, "the .ssv");
    if (doc)
        apply_set(s, target, xmlDocGetRootElement(doc), prefix ? prefix : "");
    xmlFreeDoc(doc);
    s->p->fname = fname;
}

/* The bindings of node n (a component or a system). */
static void bind_node(struct ssp *s, xmlNode *n)
{
    for (xmlNode *t = ssp_next(n->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "ParameterBindings"))
            for (xmlNode *b = ssp_next(t->children); b && s->p->st == COSA_OK;
                 b = ssp_next(b->next))
                if (ssp_is(b, SSP_NS_SSD, "ParameterBinding"))
                    bind_one(s, n, b);
}

/* Components and subsystems of sys first, then sys's own bindings. */
static void bind_system(struct ssp *s, xmlNode *sys)
{
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        for (xmlNode *e = ssp_is(t, SSP_NS_SSD, "Elements") ? ssp_next(t->children) : NULL;
             e && s->p->st == COSA_OK; e = ssp_next(e->next))
            if (ssp_is(e, SSP_NS_SSD, "Component"))
                bind_node(s, e);
            else if (ssp_is(e, SSP_NS_SSD, "System"))
                bind_system(s, e);
    bind_node(s, sys);
}

void ssp_bind(struct ssp *s)
{
    bind_system(s, s->top);
    /* FMUs whose parameters moved from their own start values: linearised
     * again there (their blocks hold the linearisation at the defaults) */
    mf_fmu_rebind_moved(s->p);
}
