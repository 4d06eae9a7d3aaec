/* ssp_ssd.c -- SSP import (ssp_impl.h, README "SSP import"): the archive or
 * the unpacked .ssd, the SystemStructureDescription document, and the check
 * that every element in it is one cosa can use.  Whatever cosa cannot use
 * (components other than FMUs and SSP packages, signal dictionaries, clocks,
 * arrays, other connector types, transformations other than linear ones)
 * is refused in one line naming the element: never ignored, never
 * converted silently.  Elements without a meaning for the simulation
 * (annotations, geometry, graphical elements, metadata, signatures, unit and
 * enumeration definitions) are skipped. */
#include "osp_impl.h"

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* XML helpers                                                              */
/* ------------------------------------------------------------------------ */

int ssp_is(const xmlNode *n, const char *ns, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
           strcmp((const char *)n->ns->href, ns) == 0 && strcmp((const char *)n->name, name) == 0;
}

const char *ssp_attr(const xmlNode *n, const char *name)
{
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (!a->ns && strcmp((const char *)a->name, name) == 0) {
            /* one text node (no entity references: they are never expanded) */
            if (!a->children)
                return "";
            if (a->children->type == XML_TEXT_NODE && !a->children->next)
                return (const char *)a->children->content;
            return NULL;
        }
    return NULL;
}

size_t ssp_line(const xmlNode *n)
{
    const long l = xmlGetLineNo(n);
    return l > 0 ? (size_t)l : 0;
}

xmlNode *ssp_next(xmlNode *c)
{
    while (c && c->type != XML_ELEMENT_NODE)
        c = c->next;
    return c;
}

const char *ssp_qname(const xmlNode *n, char buf[64])
{
    const char *pre = n->ns && n->ns->prefix ? (const char *)n->ns->prefix : NULL;
    snprintf(buf, 64, "%s%s%.40s", pre ? pre : "", pre ? ":" : "", (const char *)n->name);
    return buf;
}

xmlDoc *ssp_read_xml(struct ssp *s, const char *path, const char *what)
{
    /* no XML_PARSE_NOENT (entities stay unexpanded), no XML_PARSE_DTDLOAD,
     * no network */
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                              XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        char msg[160] = "";
        if (e && e->message)
            snprintf(msg, sizeof msg, "%s", e->message);
        msg[strcspn(msg, "\n")] = '\0';
        mf_perr(s->p, COSA_ESYNTAX, e ? (size_t)(e->line > 0 ? e->line : 0) : 0,
                "%s is not well-formed XML%s%s", what, msg[0] ? ": " : "", msg);
        xmlResetLastError();
        return NULL;
    }
    if (doc->intSubset || doc->extSubset) {
        mf_perr(s->p, COSA_EUNSUPPORTED, 1, "%s has a DOCTYPE declaration (not accepted: SSP "
                "files have none)", what);
        xmlFreeDoc(doc);
        return NULL;
    }
    return doc;
}

int ssp_source_path(struct ssp *s, const char *source, size_t line, const char *what, char *out,
                    size_t outsize)
{
    if (!source || !source[0]) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s has no source", what);
        return -1;
    }
    const char *colon = strchr(source, ':'), *slash = strchr(source, '/');
    if (source[0] == '/' || (colon && (!slash || colon < slash)) || strchr(source, '\\') ||
        strchr(source, '%') || source[0] == '#') {
        mf_perr(s->p, COSA_EUNSUPPORTED, line, "%s: source '%.200s': cosa takes relative "
                "paths only (no absolute paths, URI schemes, %%-escapes or fragments)", what,
                source);
        return -1;
    }
    for (const char *c = source; s->archive && *c;) {
        const char *e = strchr(c, '/');
        const size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            mf_perr(s->p, COSA_EUNSUPPORTED, line, "%s: source '%.200s' leaves the archive "
                    "(a '..' component)", what, source);
            return -1;
        }
        c += n + (e != NULL);
    }
    if ((size_t)snprintf(out, outsize, "%s/%s", s->dir, source) >= outsize) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s: source path too long", what);
        return -1;
    }
    return 0;
}

int ssp_number(struct ssp *s, const xmlNode *n, const char *attr, double dflt, double *v)
{
    const char *t = ssp_attr(n, attr);
    *v = dflt;
    if (!t)
        return 0;
    char *end;
    const char *b = t;
    while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')
        b++;
    *v = strtod(b, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == b || *end || !isfinite(*v)) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(n), "%s: %s='%.60s' is not a finite number",
                ssp_qname(n, q), attr, t);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* What cosa can use                                                        */
/* ------------------------------------------------------------------------ */

/* Elements skipped wherever they stand: no meaning for the simulation. */
static int skipped(const xmlNode *n)
{
    static const char *const ssd[] = {"Annotations", "ElementGeometry", "ConnectorGeometry",
                                      "ConnectionGeometry", "SystemGeometry",
                                      "GraphicalElements", "MetaData", "Signature"};
    for (size_t i = 0; i < sizeof ssd / sizeof *ssd; i++)
        if (ssp_is(n, SSP_NS_SSD, ssd[i]))
            return 1;
    return ssp_is(n, SSP_NS_SSC, "Annotations") || ssp_is(n, SSP_NS_SSC, "Description");
}

static void refuse(struct ssp *s, const xmlNode *n, const char *why)
{
    char q[64];
    const char *name = ssp_attr(n, "name");
    mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(n), "%s%s%.80s%s: not supported: %s",
            ssp_qname(n, q), name ? " '" : "", name ? name : "", name ? "'" : "", why);
}

/* A connector: kind, one type of Real (SSP 1.0) / Float64 (2.0), no arrays
 * or clocks. */
static void check_connector(struct ssp *s, xmlNode *c)
{
    const char *kind = ssp_attr(c, "kind");
    if (!ssp_attr(c, "name") || !kind) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "%s without name or kind", ssp_qname(c, q));
        return;
    }
    for (xmlNode *t = ssp_next(c->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        if (skipped(t))
            continue;
        if (ssp_is(t, SSP_NS_SSC, "Real"))
            continue;
        if (ssp_is(t, SSP_NS_SSC, "Float64") && s->version == 2)
            continue;
        if (ssp_type_class(s, t)) /* Integer, Boolean, Enumeration: discrete signals */
            continue;
        char q[64], why[200];
        if (ssp_is(t, SSP_NS_SSC, "Float64"))
            snprintf(why, sizeof why, "ssc:Float64 is SSP 2.0's, the file says version 1.0 "
                     "(use ssc:Real)");
        else
            snprintf(why, sizeof why, "%s (cosa couples %s signals and exchanges Integer, "
                     "Boolean and Enumeration ones: no other types, arrays or clocks)",
                     ssp_qname(t, q), s->version == 2 ? "ssc:Float64 or ssc:Real" : "ssc:Real");
        refuse(s, c, why);
    }
}

static void check_connectors(struct ssp *s, xmlNode *cs)
{
    for (xmlNode *c = ssp_next(cs->children); c && s->p->st == COSA_OK; c = ssp_next(c->next))
        if (ssp_is(c, SSP_NS_SSD, "Connector"))
            check_connector(s, c);
        else if (!skipped(c))
            refuse(s, c, "unknown element in ssd:Connectors");
}

/* A connection: no indices, at most a linear transformation without offset
 * (u = L y is linear: an offset has no place in it). */
static void check_connection(struct ssp *s, xmlNode *c)
{
    if (ssp_attr(c, "startIndices") || ssp_attr(c, "endIndices")) {
        refuse(s, c, "startIndices/endIndices (array connectors)");
        return;
    }
    for (xmlNode *t = ssp_next(c->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        if (skipped(t))
            continue;
        if (!ssp_is(t, SSP_NS_SSC, "LinearTransformation")) {
            refuse(s, t, "cosa takes ssc:LinearTransformation only");
            continue;
        }
        double factor, offset;
        if (ssp_number(s, t, "factor", 1.0, &factor) || ssp_number(s, t, "offset", 0.0, &offset))
            return;
        (void)offset; /* a signal connection's offset is refused by ssp_flatten.c, which
                         knows the connectors' kinds (a parameter connection's applies) */
        if (factor == 0.0)
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "ssc:LinearTransformation factor=0: "
                    "not supported (a connection that carries nothing)");
    }
}

static void check_system(struct ssp *s, xmlNode *sys, int depth);

static void check_component(struct ssp *s, xmlNode *c)
{
    const char *type = ssp_attr(c, "type"), *impl = ssp_attr(c, "implementation");
    if (type && strcmp(type, "application/x-fmu-sharedlibrary") != 0) {
        char why[320];
        snprintf(why, sizeof why, "type '%.80s' (cosa imports FMU components, "
                 "application/x-fmu-sharedlibrary, and systems, "
                 "application/x-ssp-package, application/x-ssp-definition)", type);
        refuse(s, c, why);
        return;
    }
    if (impl && strcmp(impl, "any") != 0 && strcmp(impl, "CoSimulation") != 0 &&
        strcmp(impl, "ModelExchange") != 0) {
        char why[160];
        snprintf(why, sizeof why, "implementation '%.40s' (cosa runs FMUs as CoSimulation, "
                 "ModelExchange or any)", impl);
        refuse(s, c, why);
        return;
    }
    if (!ssp_attr(c, "name")) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Component without a name");
        return;
    }
    for (xmlNode *t = ssp_next(c->children); t && s->p->st == COSA_OK; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "Connectors"))
            check_connectors(s, t);
        else if (!skipped(t) && !ssp_is(t, SSP_NS_SSD, "ParameterBindings"))
            refuse(s, t, "unknown element in ssd:Component");
}

static void check_elements(struct ssp *s, xmlNode *es, int depth)
{
    for (xmlNode *e = ssp_next(es->children); e && s->p->st == COSA_OK; e = ssp_next(e->next))
        if (ssp_is(e, SSP_NS_SSD, "Component"))
            check_component(s, e);
        else if (ssp_is(e, SSP_NS_SSD, "System"))
            check_system(s, e, depth + 1);
        else if (ssp_is(e, SSP_NS_SSD, "SignalDictionaryReference"))
            refuse(s, e, "signal dictionaries");
        else if (!skipped(e))
            refuse(s, e, "unknown element in ssd:Elements");
}

static void check_system(struct ssp *s, xmlNode *sys, int depth)
{
    if (depth > 32) {
        refuse(s, sys, "systems nested more than 32 deep");
        return;
    }
    if (!ssp_attr(sys, "name")) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(sys), "ssd:System without a name");
        return;
    }
    for (xmlNode *t = ssp_next(sys->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        if (ssp_is(t, SSP_NS_SSD, "Connectors"))
            check_connectors(s, t);
        else if (ssp_is(t, SSP_NS_SSD, "Elements"))
            check_elements(s, t, depth);
        else if (ssp_is(t, SSP_NS_SSD, "Connections")) {
            for (xmlNode *c = ssp_next(t->children); c && s->p->st == COSA_OK;
                 c = ssp_next(c->next))
                if (ssp_is(c, SSP_NS_SSD, "Connection"))
                    check_connection(s, c);
                else if (!skipped(c))
                    refuse(s, c, "unknown element in ssd:Connections");
        } else if (ssp_is(t, SSP_NS_SSD, "SignalDictionaries"))
            refuse(s, t, "signal dictionaries");
        else if (!skipped(t) && !ssp_is(t, SSP_NS_SSD, "ParameterBindings"))
            refuse(s, t, "unknown element in ssd:System");
    }
}

/* The root: namespace, version, one system, the default experiment. */
static void check_root(struct ssp *s, xmlNode *root)
{
    struct mf_parser *p = s->p;
    if (!root || strcmp((const char *)root->name, "SystemStructureDescription") != 0) {
        mf_perr(p, COSA_ESYNTAX, root ? ssp_line(root) : 1, "the root element is not "
                "ssd:SystemStructureDescription");
        return;
    }
    if (!ssp_is(root, SSP_NS_SSD, "SystemStructureDescription")) {
        mf_perr(p, COSA_ESYNTAX, ssp_line(root), "SystemStructureDescription in namespace "
                "'%.120s' (SSP 1.0 and 2.0 use " SSP_NS_SSD ")",
                root->ns && root->ns->href ? (const char *)root->ns->href : "(none)");
        return;
    }
    const char *v = ssp_attr(root, "version");
    if (!v || (strcmp(v, "1.0") != 0 && strcmp(v, "2.0") != 0)) {
        mf_perr(p, COSA_EUNSUPPORTED, ssp_line(root), "SystemStructureDescription version "
                "'%.20s': cosa reads SSP 1.0 and 2.0", v ? v : "(none)");
        return;
    }
    s->version = v[0] - '0';
    for (xmlNode *t = ssp_next(root->children); t && p->st == COSA_OK; t = ssp_next(t->next)) {
        if (ssp_is(t, SSP_NS_SSD, "System")) {
            if (s->top) {
                refuse(s, t, "a second top-level system");
                return;
            }
            s->top = t;
            check_system(s, t, 0);
        } else if (ssp_is(t, SSP_NS_SSD, "DefaultExperiment")) {
            double t0, t1;
            osp_ssp_annotation(s, t); /* libcosim's SSP variant: an OSP system */
            if (p->st != COSA_OK)
                return;
            if (ssp_number(s, t, "startTime", 0.0, &t0) || ssp_number(s, t, "stopTime", 1.0, &t1))
                return;
            if (t0 != 0.0)
                mf_perr(p, COSA_EUNSUPPORTED, ssp_line(t), "ssd:DefaultExperiment startTime=%g: "
                        "not supported: cosa's horizon starts at t = 0", t0);
            else if (!(t1 > 0.0))
                mf_perr(p, COSA_ERANGE, ssp_line(t), "ssd:DefaultExperiment stopTime=%g: the "
                        "horizon must be positive", t1);
            else if (ssp_attr(t, "stopTime")) {
                /* the SSD's own horizon wins over the FMUs' DefaultExperiments
                 * (as a model file's 'tend' line does, modelfile_fmu.c) */
                p->mf->tend = t1;
                p->tend_line = ssp_line(t) ? ssp_line(t) : 1;
            }
        } else if (!skipped(t) && !ssp_is(t, SSP_NS_SSD, "Units") &&
                   !ssp_is(t, SSP_NS_SSD, "Enumerations"))
            refuse(s, t, "unknown element in ssd:SystemStructureDescription");
    }
    if (p->st == COSA_OK && !s->top)
        mf_perr(p, COSA_ESYNTAX, ssp_line(root), "no ssd:System");
}

/* ------------------------------------------------------------------------ */
/* Entry                                                                    */
/* ------------------------------------------------------------------------ */

/* The model's name from the SSD's (letters, digits, _ - . +). */
static char *model_name(const char *n)
{
    size_t len = n ? strlen(n) : 0;
    if (len == 0 || len > MF_EXPR_MAXNAME)
        return mf_dup0("ssp");
    char *r = mf_dup0(n);
    for (char *c = r; c && *c; c++)
        if (!mf_ident_char(*c) && *c != '-' && *c != '.' && *c != '+')
            *c = '_';
    return r;
}

/* Unpack (archive) or locate (.ssd) the system: s->dir, the .ssd's path in
 * ssd, the name shown in messages in shown; 0, or -1 with err set. */
static int locate(const char *path, int archive, mf_t *mf, char *dir, char *ssd, char *shown,
                  char *err, size_t errsize, cosa_status *st)
{
    char msg[512];
    if (archive) {
        *st = cosa_archive_extract(path, "SSP", dir, 4096, msg, sizeof msg);
        if (*st != COSA_OK) {
            snprintf(err, errsize, "%s: %s", path, msg);
            return -1;
        }
        if (!(mf->tmpdir = mf_dup0(dir))) {
            cosa_archive_remove(dir);
            *st = COSA_ENOMEM;
            snprintf(err, errsize, "%s: out of memory", path);
            return -1;
        }
        snprintf(ssd, 4096 + 32, "%s/SystemStructure.ssd", dir);
        snprintf(shown, 4096 + 32, "%s:SystemStructure.ssd", path);
        struct stat sb;
        if (stat(ssd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            *st = COSA_ESYNTAX;
            snprintf(err, errsize, "%s: not an SSP: no SystemStructure.ssd in the archive", path);
            return -1;
        }
        return 0;
    }
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *st = COSA_EIO;
        snprintf(err, errsize, "%s: cannot open%s", path, f ? ": not a regular file" : "");
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, 4096, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else
        snprintf(dir, 4096, ".");
    snprintf(ssd, 4096 + 32, "%s", path);
    snprintf(shown, 4096 + 32, "%s", path);
    return 0;
}

cosa_status mf_ssp_load(const char *path, unsigned flags, double probe, cosa_model **out, char *err,
                        size_t errsize)
{
    const size_t len = strlen(path);
    const int archive = strcasecmp(path + len - 4, ".ssp") == 0;
    char tmp[256];
    if (!err || !errsize) {
        err = tmp;
        errsize = sizeof tmp;
    }
    mf_t *mf = mf_new();
    if (!mf) {
        snprintf(err, errsize, "%s: out of memory", path);
        return COSA_ENOMEM;
    }
    char dir[4096], ssd[4096 + 32], shown[4096 + 32];
    cosa_status st = COSA_OK;
    if (locate(path, archive, mf, dir, ssd, shown, err, errsize, &st) != 0) {
        mf_free(mf);
        return st;
    }
    struct mf_parser p = {.mf = mf, .fname = shown, .err = err, .errsize = errsize,
                          .st = COSA_OK, .line = 1, .flags = flags, .probe = probe};
    struct ssp s = {.p = &p, .dir = dir, .archive = archive};
    xmlDoc *doc = ssp_read_xml(&s, ssd, archive ? "SystemStructure.ssd" : "the .ssd");
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (doc)
        ssp_packages(&s, root); /* nested SSPs: their systems in their components' places */
    if (doc && p.st == COSA_OK)
        check_root(&s, root);
    if (p.st == COSA_OK && !(mf->name = model_name(ssp_attr(root, "name"))))
        mf_nomem(&p);
    if (p.st == COSA_OK)
        ssp_flatten(&s);
    if (p.st == COSA_OK && mf->nsub == 0) /* parameter-only systems */
        mf_perr(&p, COSA_EUNSUPPORTED, ssp_line(s.top), "ssd:System '%.80s': no components "
                "(no FMU to simulate)", ssp_attr(s.top, "name"));
    if (p.st == COSA_OK) {
        const char *d = ssp_attr(root, "description");
        char buf[512];
        char disc[96] = ""; /* discrete connections: named only where there are some */
        if (mf->ndconn)
            snprintf(disc, sizeof disc, " (and %zu discrete: held between communication points)",
                     mf->ndconn);
        snprintf(buf, sizeof buf, "SSP %d.0 system %.200s with %zu FMU component%s and %zu "
                 "connection%s%s%s%.200s", s.version, ssp_attr(s.top, "name"), mf->nsub,
                 mf->nsub == 1 ? "" : "s", mf->nconn, mf->nconn == 1 ? "" : "s", disc,
                 d && d[0] ? ": " : "", d ? d : "");
        if (!(mf->doc = mf_dup0(buf)))
            mf_nomem(&p);
    }
    if (p.st == COSA_OK)
        ssp_bind(&s);
    xmlFreeDoc(doc);
    ssp_bases_free(&s);
    free(s.holds);
    if (p.st != COSA_OK) {
        mf_free(mf);
        return p.st;
    }
    const int osp = mf->osp != NULL;
    struct mf_osp *o = mf->osp;
    cosa_status st2 = mf_finish(&p, out);
    if (st2 == COSA_OK && osp && (st2 = osp_bonds(mf_of(*out), o, path, err, errsize)) != COSA_OK) {
        cosa_model_free(*out);
        *out = NULL;
    }
    return st2;
}
