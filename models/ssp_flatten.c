/* ssp_flatten.c -- SSP import (ssp_impl.h): nested systems flattened into
 * the `fmu` subsystems and connections of a model file.
 *
 * Every FMU component becomes an `fmu` subsystem named after its path below
 * the top-level system (system names and its own joined by '_', characters
 * other than letters, digits and '_' made '_'); its source is relative to
 * the .ssd.  Each input connector of a component is traced back along the
 * connections, through the connectors of the systems it crosses (into a
 * subsystem's output connector, out of a system's input connector), to the
 * output connector of a component; the factors of the linear
 * transformations met on the way multiply into L's entry (u = L y, eq 4).
 * Every connection is checked first: both ends exist, it runs from an
 * output (or a system's own input) to an input (or a system's own output),
 * and the units of its ends agree (no unit conversion is made, unless
 * suppressUnitConversion="true"). */
#include "ssp_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* startElement / endElement of connection c: NULL when absent or empty
 * (both mean the system's own connector; OMSimulator writes ""). */
static const char *end_element(const xmlNode *c, int start)
{
    const char *e = ssp_attr(c, start ? "startElement" : "endElement");
    return e && e[0] ? e : NULL;
}

/* The parent system of system node sys, or NULL for the top. */
static xmlNode *parent_system(const struct ssp *s, xmlNode *sys)
{
    if (sys == s->top || !sys->parent || !ssp_is(sys->parent, SSP_NS_SSD, "Elements"))
        return NULL;
    return sys->parent->parent;
}

/* The element (Component or System) called name in system sys, or NULL. */
static xmlNode *element(xmlNode *sys, const char *name)
{
    for (xmlNode *t = ssp_next(sys->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Elements"))
            for (xmlNode *e = ssp_next(t->children); e; e = ssp_next(e->next))
                if ((ssp_is(e, SSP_NS_SSD, "Component") || ssp_is(e, SSP_NS_SSD, "System")) &&
                    ssp_attr(e, "name") && strcmp(ssp_attr(e, "name"), name) == 0)
                    return e;
    return NULL;
}

/* The connector called name of element (or system) e, or NULL. */
static xmlNode *connector(xmlNode *e, const char *name)
{
    for (xmlNode *t = ssp_next(e->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Connectors"))
            for (xmlNode *c = ssp_next(t->children); c; c = ssp_next(c->next))
                if (ssp_is(c, SSP_NS_SSD, "Connector") && strcmp(ssp_attr(c, "name"), name) == 0)
                    return c;
    return NULL;
}

/* The unit of a connector's type element, or NULL. */
static const char *unit_of(xmlNode *c)
{
    for (xmlNode *t = ssp_next(c->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSC, "Real") || ssp_is(t, SSP_NS_SSC, "Float64")) {
            const char *u = ssp_attr(t, "unit");
            return u && u[0] ? u : NULL; /* unit="" gives none */
        }
    return NULL;
}

/* The flattened name of component (or system) node e: its path below the
 * top system, '_'-joined, as an identifier (malloc'd). */
static char *flat_name(const struct ssp *s, xmlNode *e)
{
    char buf[1024] = "";
    for (xmlNode *n = e; n && n != s->top; n = n->parent->parent) {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s%s%s", ssp_attr(n, "name"), buf[0] ? "_" : "", buf);
        snprintf(buf, sizeof buf, "%s", tmp);
        if (!n->parent || !n->parent->parent)
            break;
    }
    return mf_ident_of(buf);
}

struct mf_sub *ssp_component_sub(struct ssp *s, const xmlNode *c)
{
    char *n = flat_name(s, (xmlNode *)c);
    struct mf_sub *r = NULL;
    for (size_t i = 0; n && i < s->p->mf->nsub; i++)
        if (strcmp(s->p->mf->subs[i].name, n) == 0)
            r = &s->p->mf->subs[i];
    free(n);
    return r;
}

/* One end of connection c in system sys: its connector node, and in
 * *source whether it is a source (an output of an element, an input of sys)
 * or a sink (an input of an element, an output of sys). */
static xmlNode *conn_end(struct ssp *s, xmlNode *sys, xmlNode *c, int start, int *source)
{
    const char *en = end_element(c, start);
    const char *cn = ssp_attr(c, start ? "startConnector" : "endConnector");
    if (!cn) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Connection without %s",
                start ? "startConnector" : "endConnector");
        return NULL;
    }
    xmlNode *e = en ? element(sys, en) : sys;
    if (!e) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Connection: system '%.80s' has no "
                "element '%.80s'", ssp_attr(sys, "name"), en);
        return NULL;
    }
    xmlNode *k = connector(e, cn);
    if (!k) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Connection: %s '%.80s' has no "
                "connector '%.80s'", ssp_is(e, SSP_NS_SSD, "Component") ? "component" : "system",
                ssp_attr(e, "name"), cn);
        return NULL;
    }
    /* data flow (the standard on ssd:Connection: start and end do not give
     * the direction, the kinds do): out of an element's output or a system's
     * own input, into an element's input or a system's own output */
    const char *kind = ssp_attr(k, "kind");
    if (strcmp(kind, "input") != 0 && strcmp(kind, "output") != 0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "ssd:Connection at %.80s%s%.80s: a "
                "connector of kind '%.40s': not supported (cosa couples outputs to inputs)",
                en ? en : "", en ? "." : "", cn, kind);
        return NULL;
    }
    *source = (strcmp(kind, "output") == 0) == (en != NULL);
    return k;
}

/* The ssc:Unit called name anywhere in the document below n, or NULL. */
static xmlNode *unit_def(xmlNode *n, const char *name)
{
    for (xmlNode *c = ssp_next(n->children); c; c = ssp_next(c->next)) {
        const char *un = ssp_attr(c, "name");
        if (ssp_is(c, SSP_NS_SSC, "Unit") && un && strcmp(un, name) == 0)
            return c;
        xmlNode *r = unit_def(c, name);
        if (r)
            return r;
    }
    return NULL;
}

/* 1 if units a and b are the same: equal names, or definitions (ssc:Unit)
 * with equal base units (SI exponents, factor, offset: "Nm" and "N.m"). */
static int same_unit(struct ssp *s, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    xmlNode *root = xmlDocGetRootElement(s->top->doc);
    xmlNode *da = unit_def(root, a), *db = unit_def(root, b);
    xmlNode *ba = NULL, *bb = NULL;
    for (xmlNode *c = da ? ssp_next(da->children) : NULL; c; c = ssp_next(c->next))
        ba = ssp_is(c, SSP_NS_SSC, "BaseUnit") ? c : ba;
    for (xmlNode *c = db ? ssp_next(db->children) : NULL; c; c = ssp_next(c->next))
        bb = ssp_is(c, SSP_NS_SSC, "BaseUnit") ? c : bb;
    if (!ba || !bb)
        return 0;
    static const char *const attr[] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad", "factor",
                                       "offset"};
    for (size_t i = 0; i < sizeof attr / sizeof *attr; i++) {
        const double dflt = strcmp(attr[i], "factor") == 0 ? 1.0 : 0.0;
        double x, y;
        if (ssp_number(s, ba, attr[i], dflt, &x) || ssp_number(s, bb, attr[i], dflt, &y) || x != y)
            return 0;
    }
    return 1;
}

/* The connector at end start (1) or end (0) of connection c of system sys,
 * or NULL (no such element or connector: conn_end reports it). */
static xmlNode *end_connector(xmlNode *sys, const xmlNode *c, int start)
{
    const char *en = end_element(c, start);
    const char *cn = ssp_attr(c, start ? "startConnector" : "endConnector");
    xmlNode *e = en ? element(sys, en) : sys;
    return e && cn ? connector(e, cn) : NULL;
}

static int is_param(const xmlNode *k)
{
    const char *kind = k ? ssp_attr(k, "kind") : NULL;
    return kind && strcmp(kind, "parameter") == 0;
}

/* A connection that touches a parameter connector: it must join a parameter
 * connector of the system itself to a parameter connector of one of its
 * elements (ssp_ssv.c carries a value bound to the system's connector down
 * it); it carries no signal. */
static void check_param_connection(struct ssp *s, xmlNode *sys, xmlNode *c)
{
    xmlNode *a = end_connector(sys, c, 1), *b = end_connector(sys, c, 0);
    const char *ea = end_element(c, 1), *eb = end_element(c, 0);
    if (is_param(a) && is_param(b) && (ea == NULL) != (eb == NULL))
        return;
    const int pa = is_param(a);
    xmlNode *other = pa ? b : a;
    const char *ep = pa ? ea : eb, *eo = pa ? eb : ea;
    const char *kp = ssp_attr(c, pa ? "startConnector" : "endConnector");
    const char *ko = ssp_attr(c, pa ? "endConnector" : "startConnector");
    mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "ssd:Connection at %.80s%s%.80s: a connector "
            "of kind 'parameter' joined to %.80s%s%.80s (%s%.40s): not supported (a parameter "
            "connection joins a parameter connector of a system to one of an element of it)",
            ep ? ep : "", ep ? "." : "", kp, eo ? eo : "", eo ? "." : "", ko ? ko : "?",
            other ? "kind " : "", other ? ssp_attr(other, "kind") : "no such connector");
}

static void check_connections(struct ssp *s, xmlNode *sys)
{
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Connections")) {
            for (xmlNode *c = ssp_next(t->children); c && s->p->st == COSA_OK;
                 c = ssp_next(c->next)) {
                if (!ssp_is(c, SSP_NS_SSD, "Connection"))
                    continue;
                if (is_param(end_connector(sys, c, 1)) || is_param(end_connector(sys, c, 0))) {
                    check_param_connection(s, sys, c);
                    continue;
                }
                int sa = 0, sb = 0;
                xmlNode *a = conn_end(s, sys, c, 1, &sa);
                xmlNode *b = a ? conn_end(s, sys, c, 0, &sb) : NULL;
                if (b && sa == sb) {
                    mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "ssd:Connection %.80s -> %.80s "
                            "joins two %s: not supported (cosa couples an output to an input)",
                            ssp_attr(c, "startConnector"), ssp_attr(c, "endConnector"),
                            sa ? "sources (outputs, or inputs of the system itself)"
                               : "sinks (inputs, or outputs of the system itself)");
                    break;
                }
                if (b)
                    ssp_discrete_check_connection(s, c, a, b);
                if (s->p->st != COSA_OK)
                    break;
                const char *ua = a ? unit_of(a) : NULL, *ub = b ? unit_of(b) : NULL;
                const char *sup = ssp_attr(c, "suppressUnitConversion");
                if (ua && ub && !same_unit(s, ua, ub) && !(sup && strcmp(sup, "true") == 0) &&
                    s->p->st == COSA_OK)
                    mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "ssd:Connection %.80s -> "
                            "%.80s: units '%.40s' and '%.40s' differ: not supported: cosa makes "
                            "no unit conversion (state it as a LinearTransformation factor "
                            "with suppressUnitConversion=\"true\")",
                            ssp_attr(c, "startConnector"), ssp_attr(c, "endConnector"), ua, ub);
            }
        } else if (ssp_is(t, SSP_NS_SSD, "Elements"))
            for (xmlNode *e = ssp_next(t->children); e && s->p->st == COSA_OK;
                 e = ssp_next(e->next))
                if (ssp_is(e, SSP_NS_SSD, "System"))
                    check_connections(s, e);
}

/* 1 if end start (1) or end (0) of connection c is (elem, conn). */
static int at(const xmlNode *c, int start, const char *elem, const char *conn)
{
    const char *e = end_element(c, start), *k = ssp_attr(c, start ? "startConnector"
                                                                  : "endConnector");
    return (e == NULL) == (elem == NULL) && (!e || strcmp(e, elem) == 0) && k &&
           strcmp(k, conn) == 0;
}

/* The one connection of sys that feeds (elem, conn) (elem NULL: the
 * system's own connector; a sink), or NULL; *from: 1 if its source is the
 * connection's start, 0 if its end.  Two are an error. */
static xmlNode *ending_at(struct ssp *s, xmlNode *sys, const char *elem, const char *conn,
                          int *from)
{
    xmlNode *found = NULL;
    for (xmlNode *t = ssp_next(sys->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Connections"))
            for (xmlNode *c = ssp_next(t->children); c; c = ssp_next(c->next)) {
                if (!ssp_is(c, SSP_NS_SSD, "Connection"))
                    continue;
                const int f = at(c, 0, elem, conn) ? 1 : at(c, 1, elem, conn) ? 0 : -1;
                if (f < 0)
                    continue;
                if (found) {
                    mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "%.80s%s%.80s has two sources "
                            "(connections at lines %zu and %zu)", elem ? elem : "", elem ? "." : "",
                            conn, ssp_line(found), ssp_line(c));
                    return NULL;
                }
                found = c;
                *from = f;
            }
    return found;
}

/* The factor *f and offset *o of connection c's linear transformation
 * (target = f source + o; 1 and 0 without one). */
static void transform_of(struct ssp *s, xmlNode *c, double *f, double *o)
{
    *f = 1.0, *o = 0.0;
    for (xmlNode *t = ssp_next(c->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSC, "LinearTransformation")) {
            ssp_number(s, t, "factor", 1.0, f);
            ssp_number(s, t, "offset", 0.0, o);
        }
}

/* Trace the source of connector conn of element elem (NULL: of sys itself)
 * in system sys: *src the component's node, *out its output connector's
 * name, and the connector = *gain source + *offset composed along the path
 * (both start at 1 and 0).  1 found, 0 none, -1 error; 2: the path ends at
 * an input connector that nothing feeds (an open system's), *src that
 * system's node and *out the connector's name. */
static int trace(struct ssp *s, xmlNode *sys, const char *elem, const char *conn, xmlNode **src,
                 const char **out, double *gain, double *offset, int depth)
{
    if (depth > 256) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(sys), "the connections to %.80s form a loop "
                "through system connectors", conn);
        return -1;
    }
    int from = 1;
    xmlNode *c = ending_at(s, sys, elem, conn, &from);
    if (!c)
        return s->p->st == COSA_OK ? 0 : -1;
    double f, o; /* target = f source + o along the data flow: u = G (f v + o) + O */
    transform_of(s, c, &f, &o);
    *offset += *gain * o;
    *gain *= f;
    const char *se = end_element(c, from);
    const char *sc = ssp_attr(c, from ? "startConnector" : "endConnector");
    if (!se) { /* an input connector of sys: from outside */
        xmlNode *up = parent_system(s, sys);
        const int r = up ? trace(s, up, ssp_attr(sys, "name"), sc, src, out, gain, offset,
                                 depth + 1)
                         : 0;
        if (r == 0) { /* nothing feeds it: an open system's input (ssp_open.c) */
            *src = sys;
            *out = sc;
            return 2;
        }
        return r;
    }
    xmlNode *e = element(sys, se);
    if (ssp_is(e, SSP_NS_SSD, "Component")) {
        *src = e;
        *out = sc;
        return 1;
    }
    const int r = trace(s, e, NULL, sc, src, out, gain, offset, depth + 1); /* into a subsystem */
    if (r == 0)
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "output connector '%.80s' of system '%.80s' "
                "has no source", sc, se);
    return r >= 1 ? r : -1;
}

/* FMU component c of system sys: the `fmu` subsystem, its connectors checked
 * against the FMU's inputs and outputs. */
static void add_component(struct ssp *s, xmlNode *c)
{
    mf_t *mf = s->p->mf;
    char *name = flat_name(s, c);
    if (!name)
        return mf_nomem(s->p);
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0) {
            mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Component '%.80s': its flattened "
                    "name %s is taken (line %zu)", ssp_attr(c, "name"), name, mf->subs[i].line);
            free(name);
            return;
        }
    char full[4096], what[160];
    snprintf(what, sizeof what, "ssd:Component '%.80s'", ssp_attr(c, "name"));
    const struct ssp_base base = ssp_base_enter(s, c); /* inside a nested package: its own */
    if (ssp_source_path(s, ssp_attr(c, "source"), ssp_line(c), what, full, sizeof full) == 0) {
        s->p->fmu_iface = ssp_component_iface(c); /* as `fmu NAME cs|me = PATH` */
        mf_fmu_add(s->p, name, ssp_line(c), full, ssp_attr(c, "source"));
        s->p->fmu_iface = COSA_FMU_IFACE_AUTO;
    }
    ssp_base_leave(s, base);
    free(name);
    struct mf_sub *sub = s->p->st == COSA_OK ? &mf->subs[mf->nsub - 1] : NULL;
    for (xmlNode *t = sub ? ssp_next(c->children) : NULL; t && s->p->st == COSA_OK;
         t = ssp_next(t->next))
        for (xmlNode *k = ssp_is(t, SSP_NS_SSD, "Connectors") ? ssp_next(t->children) : NULL;
             k && s->p->st == COSA_OK; k = ssp_next(k->next)) {
            const char *kind = ssp_attr(k, "kind");
            const int d = strcmp(kind, "input") == 0 ? DECL_U
                          : strcmp(kind, "output") == 0 ? DECL_Y : -1;
            if (d < 0)
                continue; /* a parameter's connector: bindings set parameters */
            if (ssp_connector_class(s, k) != 'r') { /* a discrete signal (ssp_discrete.c) */
                ssp_discrete_component_connector(s, c, k, sub);
                continue;
            }
            char *id = mf_ident_of(ssp_attr(k, "name"));
            if (!id)
                return mf_nomem(s->p);
            if (mf_find_name(sub->names[d], sub->n[d], id) < 0 &&
                !ssp_dreal_var(sub, ssp_attr(k, "name"), d == DECL_U))
                mf_perr(s->p, COSA_ESYNTAX, ssp_line(k), "connector '%.80s' of component "
                        "'%.80s': its FMU (%.200s) has no continuous Float64 %s of that name",
                        ssp_attr(k, "name"), ssp_attr(c, "name"), ssp_attr(c, "source"), kind);
            free(id);
        }
}

/* Components of sys and its subsystems, in document order. */
static void add_components(struct ssp *s, xmlNode *sys)
{
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        for (xmlNode *e = ssp_is(t, SSP_NS_SSD, "Elements") ? ssp_next(t->children) : NULL;
             e && s->p->st == COSA_OK; e = ssp_next(e->next))
            if (ssp_is(e, SSP_NS_SSD, "Component"))
                add_component(s, e);
            else if (ssp_is(e, SSP_NS_SSD, "System"))
                add_components(s, e);
}

/* `connect` lines for the input connectors of the components of sys. */
static void add_connections(struct ssp *s, xmlNode *sys)
{
    mf_t *mf = s->p->mf;
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        for (xmlNode *e = ssp_is(t, SSP_NS_SSD, "Elements") ? ssp_next(t->children) : NULL;
             e && s->p->st == COSA_OK; e = ssp_next(e->next)) {
            if (ssp_is(e, SSP_NS_SSD, "System")) {
                add_connections(s, e);
                continue;
            }
            if (!ssp_is(e, SSP_NS_SSD, "Component"))
                continue;
            struct mf_sub *dst = ssp_component_sub(s, e);
            for (xmlNode *u = ssp_next(e->children); u && s->p->st == COSA_OK;
                 u = ssp_next(u->next))
                for (xmlNode *k = ssp_is(u, SSP_NS_SSD, "Connectors") ? ssp_next(u->children)
                                                                      : NULL;
                     k && s->p->st == COSA_OK; k = ssp_next(k->next)) {
                    if (strcmp(ssp_attr(k, "kind"), "input") != 0)
                        continue;
                    xmlNode *src = NULL;
                    const char *out = NULL;
                    double gain = 1.0, offset = 0.0;
                    int from;
                    xmlNode *c = ending_at(s, sys, ssp_attr(e, "name"), ssp_attr(k, "name"),
                                           &from);
                    const int r = c ? trace(s, sys, ssp_attr(e, "name"), ssp_attr(k, "name"),
                                            &src, &out, &gain, &offset, 0) : 0;
                    if (r == 2 && dst) { /* held: an open system's input (ssp_open.c) */
                        char *in = mf_ident_of(ssp_attr(k, "name"));
                        if (!in)
                            return mf_nomem(s->p);
                        ssp_hold_open(s, dst, in, ssp_line(k), src, out, gain, offset);
                        free(in);
                    }
                    if (r != 1)
                        continue; /* no source: held at its start value (ssp_hold_rest) */
                    struct mf_sub *a = ssp_component_sub(s, src);
                    if (a && dst && ssp_dreal_var(a, out, 0)) { /* discrete Float64 */
                        if (mf_discrete_add_real(mf, (size_t)(a - mf->subs), out,
                                                 (size_t)(dst - mf->subs), ssp_attr(k, "name"),
                                                 ssp_line(c), gain, offset) != COSA_OK)
                            return mf_nomem(s->p);
                        continue;
                    }
                    if (ssp_connector_class(s, k) != 'r') { /* discrete: no part of L */
                        if (a && dst &&
                            mf_discrete_add(mf, (size_t)(a - mf->subs), out,
                                            (size_t)(dst - mf->subs), ssp_attr(k, "name"),
                                            ssp_line(c)) != COSA_OK)
                            return mf_nomem(s->p);
                        continue;
                    }
                    char *o = mf_ident_of(out), *in = mf_ident_of(ssp_attr(k, "name"));
                    char *sn = a ? mf_dup0(a->name) : NULL, *dn = dst ? mf_dup0(dst->name) : NULL;
                    struct mf_conn *nc = NULL;
                    if (o && in && sn && dn) {
                        nc = realloc(mf->conns, (mf->nconn + 1) * sizeof *nc);
                        if (nc)
                            mf->conns = nc;
                    }
                    if (!nc) {
                        free(o), free(in), free(sn), free(dn);
                        return mf_nomem(s->p);
                    }
                    mf->capconn = mf->nconn + 1;
                    mf->conns[mf->nconn++] = (struct mf_conn){sn, o, dn, in, ssp_line(c), gain, 0,
                                                             offset};
                }
        }
}

void ssp_flatten(struct ssp *s)
{
    check_connections(s, s->top);
    if (s->p->st == COSA_OK)
        add_components(s, s->top);
    if (s->p->st == COSA_OK)
        add_connections(s, s->top);
    if (s->p->st == COSA_OK)
        ssp_hold_rest(s); /* FMU inputs nothing feeds keep their start values */
}

const char *ssp_end_element(const xmlNode *c, int start)
{
    return end_element(c, start);
}

xmlNode *ssp_element(xmlNode *sys, const char *name)
{
    return element(sys, name);
}

xmlNode *ssp_connector(xmlNode *e, const char *name)
{
    return connector(e, name);
}
