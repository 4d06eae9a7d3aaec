/* ssp_ssv.c -- SSP import (ssp_impl.h): parameter bindings.
 *
 * A ParameterBinding of a component or a system takes its values from an
 * .ssv file (source, relative to the .ssd) or inline (ParameterValues with
 * an ssv:ParameterSet); its prefix is put before every name, then its
 * ParameterMapping (an .ssm file or inline ssm:ParameterMapping) renames:
 * every MappingEntry whose source is the name gives its target the value
 * (through the entry's ssc:LinearTransformation, factor x + offset); a name
 * no entry maps is applied as it is.  A component's names are its FMU's
 * variables; a system's are hierarchical (ELEMENT.VARIABLE,
 * ELEMENT.ELEMENT.VARIABLE for nested systems) or name a parameter
 * connector of the system (a system-level parameter): that value goes down
 * the system's parameter connections (factor and offset of their linear
 * transformations applied) into the parameters of its components or the
 * parameter connectors of its subsystems.  A value becomes the default of
 * the model parameter "COMP.VAR" (a Float64/Real FMU parameter with a start
 * value, or a state's start value: README "FMU parameters"), so --set and
 * map axes start from it.  Bindings are applied inner ones first and in
 * document order, so outer and later ones win (the standard on
 * ssd:ParameterBinding).  Refused in one line: a name that matches no such
 * variable or connector (the standard lets tools ignore it; cosa does not
 * ignore silently), a value of another type than ssv:Real / ssv:Float64
 * (type mismatch), transformations other than linear ones, sources of
 * other types or bases. */
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

/* What a (prefixed, mapped) parameter name names: an FMU parameter (k, the
 * model parameter's index) or a parameter connector of a system (sys,
 * conn: its value goes down the system's parameter connections). */
struct ssv_target {
    long k;
    xmlNode *sys;
    const char *conn;
    long hold;  /* a held input (ssp_open.c): its index, or -1 */
    int input;  /* sys, conn: an input connector of the system (ssp_open.c) */
};

/* The connector of kind kind called name of system sys, or NULL. */
static xmlNode *sys_connector(xmlNode *sys, const char *name, const char *kind)
{
    xmlNode *k = ssp_connector(sys, name);
    return k && ssp_attr(k, "kind") && strcmp(ssp_attr(k, "kind"), kind) == 0 ? k : NULL;
}

/* Resolve the hierarchical name full bound at node target (a component or
 * a system) into *t; 0, or -1 after reporting. */
static int resolve(struct ssp *s, xmlNode *target, const char *full, size_t line,
                   struct ssv_target *t)
{
    const char *rest = full;
    xmlNode *n = target;
    *t = (struct ssv_target){-1, NULL, NULL, -1, 0};
    while (ssp_is(n, SSP_NS_SSD, "System")) {
        const int input = sys_connector(n, rest, "input") != NULL;
        if (input || sys_connector(n, rest, "parameter")) { /* a system-level parameter */
            t->sys = n;   /* or the value of an input connector (ssp_open.c) */
            t->conn = rest;
            t->input = input;
            return 0;
        }
        const char *dot = strchr(rest, '.');
        xmlNode *e = dot ? element(n, rest, (size_t)(dot - rest)) : NULL;
        if (!e) {
            mf_perr(s->p, COSA_EPARAM, line, "parameter '%.120s' of system '%.80s': %s", full,
                    ssp_attr(n, "name"),
                    dot ? "no element of that name (cosa sets FMU parameters, ELEMENT.VARIABLE, "
                          "and the system's parameter and input connectors)"
                        : "names no element and no parameter connector of the system (nor an "
                          "input connector)");
            return -1;
        }
        n = e;
        rest = dot + 1;
    }
    if ((t->hold = ssp_hold_input(s, n, rest, full, line)) != -1) /* an FMU input */
        return t->hold >= 0 ? 0 : -1;
    t->k = param_of(s, n, rest, full, line);
    return t->k >= 0 ? 0 : -1;
}

/* The linear transformation of node n (a connection or a mapping entry)
 * applied to x: factor x + offset (x unchanged without one); 0, or -1
 * after reporting a transformation cosa does not apply to Float64 values. */
static int transform(struct ssp *s, xmlNode *n, double *x)
{
    for (xmlNode *t = ssp_next(n->children); t; t = ssp_next(t->next)) {
        if (ssp_is(t, SSP_NS_SSC, "Annotations") || ssp_is(t, SSP_NS_SSM, "Annotations") ||
            ssp_is(t, SSP_NS_SSD, "Annotations") || ssp_is(t, SSP_NS_SSD, "ConnectionGeometry"))
            continue;
        char q[64];
        double f, o;
        if (!ssp_is(t, SSP_NS_SSC, "LinearTransformation")) {
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "%s on a parameter: not supported "
                    "(cosa sets Float64 parameters: ssc:LinearTransformation only)",
                    ssp_qname(t, q));
            return -1;
        }
        if (ssp_number(s, t, "factor", 1.0, &f) || ssp_number(s, t, "offset", 0.0, &o))
            return -1;
        *x = f * *x + o;
    }
    return 0;
}

/* Value x for the parameter connector conn of system sys: down every
 * parameter connection of sys that starts there (its linear transformation
 * applied), into an FMU parameter or a subsystem's parameter connector. */
static void propagate(struct ssp *s, xmlNode *sys, const char *conn, double x, const char *full,
                      int depth)
{
    if (depth > 64)
        return mf_perr(s->p, COSA_ESYNTAX, ssp_line(sys), "parameter '%.120s': parameter "
                       "connections nested more than 64 deep", full);
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        for (xmlNode *c = ssp_is(t, SSP_NS_SSD, "Connections") ? ssp_next(t->children) : NULL;
             c && s->p->st == COSA_OK; c = ssp_next(c->next)) {
            if (!ssp_is(c, SSP_NS_SSD, "Connection"))
                continue;
            int own = -1; /* the end at sys's own connector conn */
            for (int e = 0; e < 2 && own < 0; e++) {
                const char *k = ssp_attr(c, e ? "startConnector" : "endConnector");
                if (!ssp_end_element(c, e) && k && strcmp(k, conn) == 0)
                    own = e;
            }
            const char *en = own >= 0 ? ssp_end_element(c, !own) : NULL;
            const char *kn = own >= 0 ? ssp_attr(c, own ? "endConnector" : "startConnector") : NULL;
            if (!en || !kn)
                continue; /* not this connector's (flatten checked the kinds) */
            double y = x;
            if (transform(s, c, &y) != 0)
                return;
            xmlNode *e = ssp_element(sys, en);
            if (ssp_is(e, SSP_NS_SSD, "System")) {
                propagate(s, e, kn, y, full, depth + 1);
                continue;
            }
            const long k = param_of(s, e, kn, full, ssp_line(c));
            if (k >= 0)
                s->p->mf->params[k].value = y;
        }
}

static void assign(struct ssp *s, const struct ssv_target *t, double x, const char *full)
{
    if (t->hold >= 0)
        ssp_hold_bind(s, t->hold, x);
    else if (t->input)
        ssp_hold_bind_connector(s, t->sys, t->conn, x);
    else if (t->k >= 0)
        s->p->mf->params[t->k].value = x;
    else
        propagate(s, t->sys, t->conn, x, full, 0);
}

/* The Float64 value of ssv:Parameter pn (name full, for messages): 0, or
 * -1 after reporting. */
static int value_of(struct ssp *s, xmlNode *pn, const char *full, double *x)
{
    char q[64];
    xmlNode *v = ssp_next(pn->children);
    while (v && ssp_is(v, SSP_NS_SSC, "Annotations"))
        v = ssp_next(v->next);
    if (!v) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(pn), "ssv:Parameter '%.120s' has no value", full);
        return -1;
    }
    if (!ssp_is(v, SSP_NS_SSV, "Real") && !ssp_is(v, SSP_NS_SSV, "Float64")) {
        mf_perr(s->p, COSA_EPARAM, ssp_line(v), "parameter '%.120s': %s value for a "
                "Float64 variable (type mismatch: give ssv:Real or ssv:Float64)", full,
                ssp_qname(v, q));
        return -1;
    }
    if (ssp_number(s, v, "value", 0.0, x) != 0)
        return -1;
    if (!ssp_attr(v, "value")) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(v), "parameter '%.120s' without a value", full);
        return -1;
    }
    return 0;
}

/* Parameter full (prefixed) with value x through the mapping map (an
 * ssm:ParameterMapping, or NULL): every entry whose source is full gives
 * its target the transformed value; a name no entry maps is applied as it
 * is (the standard on ssd:ParameterMapping). */
static void apply_mapped(struct ssp *s, xmlNode *target, xmlNode *map, const char *mapfile,
                         const char *full, double x, size_t line)
{
    const char *fname = s->p->fname;
    struct ssv_target t;
    int mapped = 0;
    for (xmlNode *m = map ? ssp_next(map->children) : NULL; m && s->p->st == COSA_OK;
         m = ssp_next(m->next)) {
        const char *src = ssp_attr(m, "source"), *dst = ssp_attr(m, "target");
        if (!ssp_is(m, SSP_NS_SSM, "MappingEntry") || !src || strcmp(src, full) != 0)
            continue;
        double y = x;
        mapped = 1;
        if (!dst || !dst[0])
            return mf_perr(s->p, COSA_ESYNTAX, ssp_line(m), "ssm:MappingEntry without a target");
        s->p->fname = mapfile ? mapfile : fname; /* messages name the .ssm and its line */
        if (transform(s, m, &y) == 0 && resolve(s, target, dst, ssp_line(m), &t) == 0)
            assign(s, &t, y, dst);
        s->p->fname = fname;
    }
    if (!mapped && resolve(s, target, full, line, &t) == 0)
        assign(s, &t, x, full);
}

/* One ssv:ParameterSet applied at target with prefix, through map. */
static void apply_set(struct ssp *s, xmlNode *target, xmlNode *set, const char *prefix,
                      xmlNode *map, const char *mapfile)
{
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
            /* the prefix first, then the mapping (the standard on the prefix) */
            char full[512];
            snprintf(full, sizeof full, "%s%s", prefix, name);
            double x;
            if (value_of(s, pn, full, &x) != 0)
                break;
            apply_mapped(s, target, map, mapfile, full, x, ssp_line(pn));
        }
    }
}

/* An .ssv or .ssm file named by source (relative to the .ssd), read; NULL
 * after reporting at line.  Messages about it name it as shown (*shown). */
static xmlDoc *read_source(struct ssp *s, const xmlNode *at, const char *source, size_t line,
                           const char *what, const char *kind, char *shown, size_t shownsize)
{
    char path[4096];
    const struct ssp_base base = ssp_base_enter(s, at); /* inside a nested package: its own */
    const int bad = ssp_source_path(s, source, line, what, path, sizeof path);
    ssp_base_leave(s, base);
    if (bad)
        return NULL;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s: source '%.200s': %s", what, source,
                access(path, F_OK) == 0 ? "not a regular file" : "no such file");
        return NULL;
    }
    const char *fname = s->p->fname;
    if (s->archive)
        snprintf(shown, shownsize, "%.*s:%s", (int)(strrchr(fname, ':') - fname), fname, source);
    else
        snprintf(shown, shownsize, "%s", path);
    s->p->fname = shown;
    xmlDoc *doc = ssp_read_xml(s, path, kind);
    s->p->fname = fname;
    return doc;
}

/* The ssm:ParameterMapping of ssd:ParameterMapping m (inline, or from its
 * source: *doc then holds it, shown its name); NULL after reporting. */
static xmlNode *mapping_of(struct ssp *s, xmlNode *m, xmlDoc **doc, char *shown, size_t size)
{
    const char *type = ssp_attr(m, "type"), *source = ssp_attr(m, "source");
    const char *base = ssp_attr(m, "sourceBase");
    xmlNode *r = NULL;
    if (type && strcmp(type, "application/x-ssp-parameter-mapping") != 0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(m), "ssd:ParameterMapping type '%.80s': not "
                "supported (application/x-ssp-parameter-mapping only)", type);
        return NULL;
    }
    if (base && strcmp(base, "SSD") != 0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(m), "ssd:ParameterMapping sourceBase "
                "'%.40s': not supported (sources relative to the .ssd only)", base);
        return NULL;
    }
    if (source && source[0]) {
        *doc = read_source(s, m, source, ssp_line(m), "ssd:ParameterMapping", "the .ssm", shown,
                           size);
        r = *doc ? xmlDocGetRootElement(*doc) : NULL;
    } else {
        r = ssp_next(m->children);
        while (r && ssp_is(r, SSP_NS_SSD, "Annotations"))
            r = ssp_next(r->next);
    }
    if (s->p->st != COSA_OK)
        return NULL;
    if (!r || !ssp_is(r, SSP_NS_SSM, "ParameterMapping")) {
        mf_perr(s->p, COSA_ESYNTAX, r ? ssp_line(r) : ssp_line(m), "ssd:ParameterMapping: "
                "expected ssm:ParameterMapping (namespace " SSP_NS_SSM ")%s", *doc ? " in the "
                ".ssm" : "");
        return NULL;
    }
    return r;
}

/* One ssd:ParameterBinding of node target (its ParameterMapping applied). */
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
    xmlNode *values = NULL, *map = NULL;
    xmlDoc *mapdoc = NULL;
    char mapshown[4096 + 64];
    for (xmlNode *t = ssp_next(b->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        char q[64];
        if (ssp_is(t, SSP_NS_SSD, "ParameterValues") && !(source && source[0]) && !values)
            values = ssp_next(t->children) ? ssp_next(t->children) : t;
        else if (ssp_is(t, SSP_NS_SSD, "ParameterMapping") && !map && !mapdoc)
            map = mapping_of(s, t, &mapdoc, mapshown, sizeof mapshown);
        else if (!ssp_is(t, SSP_NS_SSD, "Annotations") && !ssp_is(t, SSP_NS_SSD, "MetaData") &&
                 !ssp_is(t, SSP_NS_SSD, "Signature"))
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "%s in ssd:ParameterBinding: not "
                    "supported%s", ssp_qname(t, q),
                    ssp_is(t, SSP_NS_SSD, "ParameterMapping") ? " (a second mapping)"
                    : ssp_is(t, SSP_NS_SSD, "ParameterValues") ? " (given with a source)" : "");
    }
    const char *fname = s->p->fname;
    if (s->p->st == COSA_OK && values) {
        apply_set(s, target, values, prefix ? prefix : "", map, mapdoc ? mapshown : NULL);
    } else if (s->p->st == COSA_OK && (!source || !source[0])) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(b), "ssd:ParameterBinding without a source or "
                "ParameterValues");
    } else if (s->p->st == COSA_OK) {
        char shown[4096 + 64];
        xmlDoc *doc = read_source(s, b, source, ssp_line(b), "ssd:ParameterBinding", "the .ssv",
                                  shown, sizeof shown);
        s->p->fname = shown; /* messages about the values name the .ssv */
        if (doc)
            apply_set(s, target, xmlDocGetRootElement(doc), prefix ? prefix : "", map,
                      mapdoc ? mapshown : NULL);
        xmlFreeDoc(doc);
        s->p->fname = fname;
    }
    xmlFreeDoc(mapdoc);
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
