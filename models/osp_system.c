/* osp_system.c -- OSP system structures (libcosim's OspSystemStructure.xml,
 * doc/osp.md) read into the description a model file with `fmu`
 * subsystems gives (mf_t, as the SSP importer's), so every command that
 * takes --model-file takes one.
 *
 * Simulators become `fmu` subsystems (source relative to the file, never
 * leaving its directory), their InitialValues parameter defaults (Real) or
 * start values set as text on the FMU units (Integer, Boolean, String);
 * VariableConnection, VariableGroupConnection (through the FMUs'
 * OspModelDescription files), and the functions LinearTransformation (its
 * factor), Sum and VectorSum (their sources add up in L) become `connect`
 * lines.  Every connection is wired by the FMUs' own causalities, as
 * libcosim does (the file's causality attributes only label power bonds).
 * Algorithm, BaseStepSize, EndTime, EccoConfiguration and the power bonds
 * are kept for `cosa simulate` (cosa_model_file_osp).  Whatever cosa cannot
 * use is refused in one line naming the element.  XML is read without
 * network, DTDs or entity expansion (ssp_read_xml). */
#include "osp_impl.h"

#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void mf_osp_free(struct mf_osp *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->npbc; i++) {
        free(o->pbc[i].name);
        free(o->pbc[i].v[0].var);
        free(o->pbc[i].v[1].var);
    }
    free(o->pbc);
    for (size_t i = 0; i < o->info.nbond && o->bond_names; i++)
        free(o->bond_names[i]);
    free(o->bond_names);
    free(o->bonds);
    free(o->step);
    for (size_t i = 0; i < o->nmd; i++)
        if (o->md[i])
            xmlFreeDoc(o->md[i]);
    free(o->md);
    free(o);
}

/* ---- XML helpers ---------------------------------------------------------- */

int osp_is(const xmlNode *n, const char *name) { return ssp_is(n, OSP_NS, name); }

void osp_refuse(struct ssp *s, const xmlNode *n, const char *why)
{
    char q[64];
    mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(n), "%s: not supported: %s", ssp_qname(n, q), why);
}

/* The text of a simple element, trimmed, into buf; 0, or -1 after reporting. */
int osp_text(struct ssp *s, const xmlNode *n, char *buf, size_t size)
{
    xmlChar *c = xmlNodeGetContent(n);
    const char *t = c ? (const char *)c : "";
    while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
        t++;
    size_t len = strlen(t);
    while (len && (t[len - 1] == ' ' || t[len - 1] == '\t' || t[len - 1] == '\n' ||
                   t[len - 1] == '\r'))
        len--;
    const int ok = len < size;
    if (ok)
        snprintf(buf, size, "%.*s", (int)len, t);
    xmlFree(c);
    if (!ok) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(n), "%s: text too long", ssp_qname(n, q));
        return -1;
    }
    return 0;
}

/* A finite number from text (what names it); 0, or -1 after reporting. */
int osp_number(struct ssp *s, const xmlNode *n, const char *text, const char *what, double *v)
{
    char *end;
    *v = strtod(text, &end);
    if (end == text || *end || !isfinite(*v)) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(n), "%s '%.60s' is not a finite number", what,
                text);
        return -1;
    }
    return 0;
}

/* A positive finite number as the text of element n. */
static int positive_text(struct ssp *s, const xmlNode *n, double *v)
{
    char buf[128], q[64];
    if (osp_text(s, n, buf, sizeof buf) || osp_number(s, n, buf, ssp_qname(n, q), v))
        return -1;
    if (!(*v > 0.0)) {
        mf_perr(s->p, COSA_ERANGE, ssp_line(n), "%s %g: must be positive", ssp_qname(n, q), *v);
        return -1;
    }
    return 0;
}

/* ---- simulators ------------------------------------------------------------ */

/* The subsystem of simulator name, or -1 after reporting at line. */
long osp_sub_of(struct ssp *s, const char *name, size_t line)
{
    mf_t *mf = s->p->mf;
    char *id = name ? mf_ident_of(name) : NULL;
    for (size_t i = 0; id && i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, id) == 0) {
            free(id);
            return (long)i;
        }
    free(id);
    mf_perr(s->p, COSA_ESYNTAX, line, "no simulator '%.80s'", name ? name : "(none)");
    return -1;
}

/* An Integer/Boolean/String start value: recorded as text after checking
 * that the FMU has the variable with that type. */
static void text_start(struct ssp *s, struct mf_sub *sub, const xmlNode *v, const char *var,
                       const char *value)
{
    const char *want = (const char *)v->name;
    const cosa_fmu_other *o = NULL;
    for (size_t i = 0; i < cosa_fmu_nother(sub->fh) && !o; i++)
        if (strcmp(cosa_fmu_other_at(sub->fh, i)->name, var) == 0)
            o = cosa_fmu_other_at(sub->fh, i);
    const int same = o && (strcmp(o->type, want) == 0 ||
                           (strcmp(want, "Integer") == 0 && strcmp(o->type, "Int32") == 0));
    if (!same) {
        mf_perr(s->p, COSA_EPARAM, ssp_line(v), "InitialValue '%.120s' of simulator '%.80s': "
                "its FMU has no %s variable of that name%s%s", var, sub->name, want,
                o ? " (it is " : "", o ? o->type : "");
        if (o)
            snprintf(s->p->err + strlen(s->p->err), s->p->errsize - strlen(s->p->err), ")");
        return;
    }
    char **n2 = realloc(sub->tname, (sub->ntext + 1) * sizeof *n2);
    if (n2)
        sub->tname = n2;
    char **v2 = n2 ? realloc(sub->tval, (sub->ntext + 1) * sizeof *v2) : NULL;
    if (v2)
        sub->tval = v2;
    char *a = v2 ? mf_dup0(var) : NULL, *b = a ? mf_dup0(value) : NULL;
    if (!b) {
        free(a);
        return mf_nomem(s->p);
    }
    sub->tname[sub->ntext] = a;
    sub->tval[sub->ntext++] = b;
}

/* One InitialValue of simulator subsystem sub. */
static void initial_value(struct ssp *s, struct mf_sub *sub, xmlNode *iv)
{
    const char *var = ssp_attr(iv, "variable");
    xmlNode *v = ssp_next(iv->children);
    const char *value = v ? ssp_attr(v, "value") : NULL;
    if (!osp_is(iv, "InitialValue") || !var || !v || !value || ssp_next(v->next)) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(iv), "%s: expected InitialValue variable=\"...\" "
                "with one Real, Integer, Boolean or String value=\"...\"", ssp_qname(iv, q));
        return;
    }
    if (osp_is(v, "Real")) {
        double x;
        const long k = mf_fmu_param(sub, var);
        if (k < 0)
            mf_perr(s->p, COSA_EPARAM, ssp_line(v), "InitialValue '%.120s' of simulator "
                    "'%.80s': its FMU has no Real parameter (with a start value) or state of "
                    "that name that cosa can set", var, sub->name);
        else if (osp_number(s, v, value, "Real value", &x) == 0)
            s->p->mf->params[k].value = x;
    } else if (osp_is(v, "Integer") || osp_is(v, "Boolean") || osp_is(v, "String"))
        text_start(s, sub, v, var, value);
    else
        osp_refuse(s, v, "InitialValue types are Real, Integer, Boolean and String");
}

/* 1 if source has a ".." component. */
static int leaves(const char *source)
{
    for (const char *c = source; *c;) {
        const char *e = strchr(c, '/');
        const size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return 1;
        c += n + (e != NULL);
    }
    return 0;
}

static void simulator(struct ssp *s, xmlNode *e, double base)
{
    const char *name = ssp_attr(e, "name"), *source = ssp_attr(e, "source");
    if (!osp_is(e, "Simulator") || !name || !name[0]) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(e), "%s in Simulators: expected Simulator with a "
                "name and a source", ssp_qname(e, q));
        return;
    }
    char what[160], full[4096];
    snprintf(what, sizeof what, "Simulator '%.80s'", name);
    if (source && leaves(source)) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(e), "%s: source '%.200s' leaves the OSP "
                "file's directory (a '..' component): not supported", what, source);
        return;
    }
    /* libcosim's fixedStep steps a simulator every k = stepSize / BaseStepSize
     * base steps and holds its outputs in between (decimation; k whole:
     * libcosim would round it down with a warning; 0 is every base step) */
    double h = 0.0;
    const char *hs = ssp_attr(e, "stepSize");
    if (hs && osp_number(s, e, hs, "stepSize", &h))
        return;
    const long long hn = llround(h * 1e9), bn = llround(base * 1e9);
    if (hs && h != 0.0 && (!(h > 0.0) || hn < bn || bn <= 0 || hn % bn != 0)) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(e), "%s stepSize=%g: not a whole multiple "
                "of BaseStepSize %g (in whole nanoseconds)", what, h, base);
        return;
    }
    char *id = mf_ident_of(name);
    if (!id)
        return mf_nomem(s->p);
    for (size_t i = 0; i < s->p->mf->nsub; i++)
        if (strcmp(s->p->mf->subs[i].name, id) == 0) {
            mf_perr(s->p, COSA_ESYNTAX, ssp_line(e), "%s: a second simulator of that name", what);
            free(id);
            return;
        }
    if (ssp_source_path(s, source, ssp_line(e), what, full, sizeof full) == 0)
        mf_fmu_add(s->p, id, ssp_line(e), full, source);
    free(id);
    struct mf_osp *o = s->p->mf->osp;
    double *st = s->p->st == COSA_OK ? realloc(o->step, s->p->mf->nsub * sizeof *st) : NULL;
    if (st) {
        o->step = st;
        st[s->p->mf->nsub - 1] = h;
    } else if (s->p->st == COSA_OK)
        return mf_nomem(s->p);
    struct mf_sub *sub = s->p->st == COSA_OK ? &s->p->mf->subs[s->p->mf->nsub - 1] : NULL;
    int given = 0;
    for (xmlNode *t = sub ? ssp_next(e->children) : NULL; t && s->p->st == COSA_OK;
         t = ssp_next(t->next))
        if (osp_is(t, "InitialValues"))
            for (xmlNode *iv = ssp_next(t->children); iv && s->p->st == COSA_OK;
                 iv = ssp_next(iv->next), given = 1)
                initial_value(s, sub, iv);
        else
            osp_refuse(s, t, "unknown element in Simulator");
    /* a black box is identified as these values make it (its solver, step) */
    if (given)
        mf_ident_refresh(s->p, sub);
}


/* ---- libcosim's SSP variant ---------------------------------------------------- */

void osp_ssp_annotation(struct ssp *s, xmlNode *experiment)
{
    for (xmlNode *as = ssp_next(experiment->children); as; as = ssp_next(as->next))
        for (xmlNode *a = ssp_is(as, SSP_NS_SSD, "Annotations") ? ssp_next(as->children) : NULL;
             a && s->p->st == COSA_OK; a = ssp_next(a->next)) {
            const char *type = ssp_attr(a, "type");
            if (!ssp_is(a, SSP_NS_SSC, "Annotation") || !type ||
                strcmp(type, "com.opensimulationplatform") != 0)
                continue;
            for (xmlNode *al = ssp_next(a->children); al && s->p->st == COSA_OK;
                 al = ssp_next(al->next)) {
                xmlNode *f = ssp_is(al, OSP_NS_SSP, "Algorithm") ? ssp_next(al->children) : NULL;
                double h;
                if (!f || !ssp_is(f, OSP_NS_SSP, "FixedStepAlgorithm") || ssp_next(f->next)) {
                    osp_refuse(s, f ? f : al, "the OSP annotation cosa reads is "
                               "osp:Algorithm/osp:FixedStepAlgorithm baseStepSize");
                    return;
                }
                if (ssp_number(s, f, "baseStepSize", NAN, &h))
                    return;
                if (!(h > 0.0)) {
                    mf_perr(s->p, COSA_ERANGE, ssp_line(f), "osp:FixedStepAlgorithm "
                            "baseStepSize must be positive");
                    return;
                }
                mf_t *mf = s->p->mf;
                if (!mf->osp && !(mf->osp = calloc(1, sizeof *mf->osp)))
                    return mf_nomem(s->p);
                mf->osp->info.base_step = h;
            }
        }
}

/* ---- the root, the algorithm, the ECCO configuration ------------------------ */

/* EccoConfiguration: every one of libcosim's ten elements, once. */
static void ecco_config(struct ssp *s, struct mf_osp *o, xmlNode *e)
{
    static const char *const names[] = {"SafetyFactor", "StepSize", "MinimumStepSize",
                                        "MaximumStepSize", "MinimumChangeRate",
                                        "MaximumChangeRate", "ProportionalGain", "IntegralGain",
                                        "RelativeTolerance", "AbsoluteTolerance"};
    cosa_ecco_params *p = &o->ecco;
    double *const dst[] = {&p->safety, &p->h0, &p->hmin, &p->hmax, &p->rate_min,
                           &p->rate_max, &p->kp, &p->ki, &p->rtol, &p->atol};
    int seen[10] = {0};
    for (xmlNode *t = ssp_next(e->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        size_t k = 0;
        while (k < 10 && !osp_is(t, names[k]))
            k++;
        char buf[128];
        if (k == 10 || seen[k])
            osp_refuse(s, t, k == 10 ? "unknown element in EccoConfiguration"
                                     : "given twice in EccoConfiguration");
        else if (osp_text(s, t, buf, sizeof buf) == 0 &&
                 osp_number(s, t, buf, names[k], dst[k]) == 0)
            seen[k] = 1;
    }
    for (size_t k = 0; k < 10 && s->p->st == COSA_OK; k++)
        if (!seen[k])
            mf_perr(s->p, COSA_ESYNTAX, ssp_line(e), "EccoConfiguration without %s (libcosim "
                    "needs all ten elements)", names[k]);
    cosa_ecco_state st;
    if (s->p->st == COSA_OK && cosa_ecco_reset(p, &st) != COSA_OK)
        mf_perr(s->p, COSA_ERANGE, ssp_line(e), "EccoConfiguration: needs 0 < MinimumStepSize "
                "<= StepSize <= MaximumStepSize (whole nanoseconds), 0 < MinimumChangeRate <= "
                "MaximumChangeRate, SafetyFactor > 0, tolerances >= 0 and not both 0");
    if (s->p->st == COSA_OK)
        o->info.params = p;
}

/* The simple elements of the root (times, step, algorithm). */
static void root_scalar(struct ssp *s, struct mf_osp *o, xmlNode *t)
{
    char buf[128];
    double v;
    if (osp_is(t, "StartTime")) {
        if (osp_text(s, t, buf, sizeof buf) == 0 && osp_number(s, t, buf, "StartTime", &v) == 0 &&
            v != 0.0)
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "StartTime %g: not supported: cosa's "
                    "horizon starts at t = 0", v);
    } else if (osp_is(t, "EndTime")) {
        if (positive_text(s, t, &v) == 0) {
            s->p->mf->tend = v;
            s->p->tend_line = ssp_line(t); /* wins over the FMUs' stopTime */
            o->info.has_end = 1;
        }
    } else if (osp_is(t, "BaseStepSize")) {
        if (positive_text(s, t, &v) == 0)
            o->info.base_step = v;
    } else if (osp_text(s, t, buf, sizeof buf) == 0) { /* Algorithm */
        if (strcasecmp(buf, "ecco") == 0)
            o->info.ecco = 1;
        else if (strcasecmp(buf, "fixedStep") == 0)
            o->info.ecco = 0;
        else
            mf_perr(s->p, COSA_ESYNTAX, ssp_line(t), "Algorithm '%.40s': libcosim's are "
                    "fixedStep and ecco", buf);
    }
}

/* The document: its elements checked and read in libcosim's order
 * (simulators first: connections name them). */
static void read_root(struct ssp *s, struct mf_osp *o, xmlNode *root)
{
    if (!root || !osp_is(root, "OspSystemStructure")) {
        mf_perr(s->p, COSA_ESYNTAX, root ? ssp_line(root) : 1, "the root element is not "
                "OspSystemStructure in namespace " OSP_NS);
        return;
    }
    xmlNode *sims = NULL, *fns = NULL, *conns = NULL, *ecco = NULL;
    for (xmlNode *t = ssp_next(root->children); t && s->p->st == COSA_OK; t = ssp_next(t->next)) {
        xmlNode **slot = osp_is(t, "Simulators")          ? &sims
                         : osp_is(t, "Functions")         ? &fns
                         : osp_is(t, "Connections")       ? &conns
                         : osp_is(t, "EccoConfiguration") ? &ecco
                                                          : NULL;
        if (slot && *slot)
            osp_refuse(s, t, "given twice");
        else if (slot)
            *slot = t;
        else if (osp_is(t, "StartTime") || osp_is(t, "EndTime") || osp_is(t, "BaseStepSize") ||
                 osp_is(t, "Algorithm"))
            root_scalar(s, o, t);
        else if (!osp_is(t, "Description"))
            osp_refuse(s, t, "unknown element in OspSystemStructure");
    }
    if (s->p->st == COSA_OK && !sims)
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(root), "no Simulators");
    for (xmlNode *e = sims ? ssp_next(sims->children) : NULL; e && s->p->st == COSA_OK;
         e = ssp_next(e->next))
        simulator(s, e, o->info.base_step);
    if (s->p->st == COSA_OK && ecco)
        ecco_config(s, o, ecco);
    if (s->p->st == COSA_OK && o->info.ecco && !ecco)
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(root), "Algorithm ecco without an "
                "EccoConfiguration");
    if (s->p->st == COSA_OK)
        osp_connect(s, o, fns, conns);
    mf_fmu_rebind_moved(s->p); /* the FMUs whose Real parameters moved */
}

cosa_status mf_osp_load(const char *path, unsigned flags, double probe, cosa_model **out, char *err,
                        size_t errsize)
{
    char tmp[256];
    if (!err || !errsize) {
        err = tmp;
        errsize = sizeof tmp;
    }
    mf_t *mf = mf_new();
    struct mf_osp *o = mf ? calloc(1, sizeof *o) : NULL;
    if (!o) {
        mf_free(mf);
        snprintf(err, errsize, "%s: out of memory", path);
        return COSA_ENOMEM;
    }
    mf->osp = o;
    o->info.base_step = 0.1; /* libcosim's default */
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, errsize, "%s: cannot open%s", path,
                 stat(path, &sb) == 0 ? ": not a regular file" : "");
        mf_free(mf);
        return COSA_EIO;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1,
             slash ? path : ".");
    o->file_dir = dir;
    struct mf_parser p = {.mf = mf, .fname = path, .err = err, .errsize = errsize,
                          .st = COSA_OK, .line = 1, .flags = flags, .probe = probe};
    struct ssp s = {.p = &p, .dir = dir, .archive = 0, .version = 2};
    xmlDoc *doc = ssp_read_xml(&s, path, "the OSP system structure");
    if (doc)
        read_root(&s, o, xmlDocGetRootElement(doc));
    if (p.st == COSA_OK && !(mf->name = mf_dup0("osp")))
        mf_nomem(&p);
    if (p.st == COSA_OK) {
        char buf[256];
        snprintf(buf, sizeof buf, "OSP system structure with %zu simulator%s and %zu "
                 "connection%s, algorithm %s", mf->nsub, mf->nsub == 1 ? "" : "s", mf->nconn,
                 mf->nconn == 1 ? "" : "s", o->info.ecco ? "ecco" : "fixedStep");
        if (!(mf->doc = mf_dup0(buf)))
            mf_nomem(&p);
    }
    xmlFreeDoc(doc);
    for (size_t i = 0; i < o->nmd; i++)
        if (o->md[i])
            xmlFreeDoc(o->md[i]);
    free(o->md);
    o->md = NULL;
    o->nmd = 0;
    o->file_dir = NULL;
    if (p.st != COSA_OK) {
        mf_free(mf);
        return p.st;
    }
    cosa_status st = mf_finish(&p, out);
    if (st != COSA_OK)
        return st;
    if ((st = osp_bonds(mf_of(*out), o, path, err, errsize)) != COSA_OK) {
        cosa_model_free(*out);
        *out = NULL;
    }
    return st;
}

const cosa_osp_info *cosa_model_file_osp(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    return mf && mf->osp ? &mf->osp->info : NULL;
}

int cosa_model_file_fmu_text_start(const cosa_model *m, size_t i, size_t k, const char **name,
                                   const char **value)
{
    const mf_t *mf = mf_of(m);
    if (!mf || i >= mf->nsub || k >= mf->subs[i].ntext)
        return 0;
    if (name)
        *name = mf->subs[i].tname[k];
    if (value)
        *value = mf->subs[i].tval[k];
    return 1;
}
