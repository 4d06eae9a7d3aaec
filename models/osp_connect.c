/* osp_connect.c -- OSP system structures (osp_impl.h): connections,
 * functions and power bonds.
 *
 * A connection's direction is the FMUs' own: the end that is an output of
 * its FMU feeds the one that is an input (libcosim's connect_variables; the
 * Variable elements' causality attributes are read only as the labels of
 * power bonds, as libcosim reads them).  Variable groups come from the
 * FMUs' OspModelDescription files (MODELNAME_OspModelDescription.xml next
 * to the FMU, else next to the OSP file): nested groups pair up in order,
 * then their variables.  LinearTransformation is `-> T.IN * factor` (an
 * offset is refused: cosa's coupling is linear, u = L y); Sum and VectorSum
 * make several connections into one input whose L entries add up. */
#include "osp_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One end: subsystem, the variable's identifier, output (1) or input (0). */
struct vend {
    long sub;
    char id[256];
    int out;
};

/* Variable name of simulator sim as an end; 0, or -1 after reporting. */
static int var_end(struct ssp *s, const char *sim, const char *name, size_t line, struct vend *v)
{
    if (!sim || !name) {
        mf_perr(s->p, COSA_ESYNTAX, line, "Variable without simulator or name");
        return -1;
    }
    if ((v->sub = osp_sub_of(s, sim, line)) < 0)
        return -1;
    const struct mf_sub *sub = &s->p->mf->subs[v->sub];
    char *id = mf_ident_of(name);
    if (!id) {
        mf_nomem(s->p);
        return -1;
    }
    snprintf(v->id, sizeof v->id, "%s", id);
    free(id);
    if (mf_find_name(sub->names[DECL_Y], sub->n[DECL_Y], v->id) >= 0)
        v->out = 1;
    else if (mf_find_name(sub->names[DECL_U], sub->n[DECL_U], v->id) >= 0)
        v->out = 0;
    else {
        mf_perr(s->p, COSA_ESYNTAX, line, "simulator '%.80s': its FMU has no Real input or "
                "output '%.120s'", sim, name);
        return -1;
    }
    return 0;
}

/* A connection src -> dst (an output into an input). */
static void add_conn(struct ssp *s, const struct vend *src, const struct vend *dst, size_t line,
                     double gain, int sum)
{
    mf_t *mf = s->p->mf;
    if (!src->out || dst->out) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s.%s -> %s.%s: a connection runs from an output of "
                "its FMU to an input", mf->subs[src->sub].name, src->id,
                mf->subs[dst->sub].name, dst->id);
        return;
    }
    struct mf_conn *nc = realloc(mf->conns, (mf->nconn + 1) * sizeof *nc);
    if (!nc)
        return mf_nomem(s->p);
    mf->conns = nc;
    mf->capconn = mf->nconn + 1;
    struct mf_conn c = {mf_dup0(mf->subs[src->sub].name), mf_dup0(src->id),
                        mf_dup0(mf->subs[dst->sub].name), mf_dup0(dst->id), line, gain, sum,
                        0.0};
    if (!c.src || !c.out || !c.dst || !c.in) {
        free(c.src), free(c.out), free(c.dst), free(c.in);
        return mf_nomem(s->p);
    }
    mf->conns[mf->nconn++] = c;
}

/* Two variables joined, wired by the FMUs' causalities. */
static void var_conn(struct ssp *s, const char *sa, const char *va, const char *sb,
                     const char *vb, size_t line)
{
    struct vend a, b;
    if (osp_discrete_conn(s, sa, va, sb, vb, line)) /* Integer, Boolean, Enumeration */
        return;
    if (var_end(s, sa, va, line, &a) || var_end(s, sb, vb, line, &b))
        return;
    if (a.out == b.out) {
        mf_perr(s->p, COSA_ESYNTAX, line, "connection %.80s.%.120s -- %.80s.%.120s joins two "
                "%s of their FMUs", sa, va, sb, vb, a.out ? "outputs" : "inputs");
        return;
    }
    if (a.out)
        add_conn(s, &a, &b, line, 1.0, 0);
    else
        add_conn(s, &b, &a, line, 1.0, 0);
}

/* ---- variable groups (OspModelDescription) ---------------------------------- */

/* The OspModelDescription of subsystem sub (loaded once), or NULL after
 * reporting at line. */
static xmlNode *model_description(struct ssp *s, struct mf_osp *o, long sub, size_t line)
{
    mf_t *mf = s->p->mf;
    if (!o->md) {
        if (!(o->md = calloc(mf->nsub + 1, sizeof *o->md))) {
            mf_nomem(s->p);
            return NULL;
        }
        o->nmd = mf->nsub;
    }
    if (o->md[sub])
        return xmlDocGetRootElement(o->md[sub]);
    const struct mf_sub *sb = &mf->subs[sub];
    const char *fmu = sb->fmu, *slash = strrchr(fmu, '/');
    char path[2][4400];
    snprintf(path[0], sizeof path[0], "%.*s/%.200s_OspModelDescription.xml",
             slash ? (int)(slash - fmu) : 1, slash ? fmu : ".", cosa_fmu_model_name(sb->fh));
    snprintf(path[1], sizeof path[1], "%s/%.200s_OspModelDescription.xml", o->file_dir,
             cosa_fmu_model_name(sb->fh));
    struct stat st;
    const int k = stat(path[0], &st) == 0 ? 0 : stat(path[1], &st) == 0 ? 1 : -1;
    if (k < 0) {
        mf_perr(s->p, COSA_ESYNTAX, line, "simulator '%.80s': no %.200s_OspModelDescription.xml "
                "(next to its FMU or the OSP file) for its variable groups", sb->name,
                cosa_fmu_model_name(sb->fh));
        return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "%.200s_OspModelDescription.xml", cosa_fmu_model_name(sb->fh));
    const size_t l0 = s->p->line;
    o->md[sub] = ssp_read_xml(s, path[k], what);
    s->p->line = l0;
    xmlNode *root = o->md[sub] ? xmlDocGetRootElement(o->md[sub]) : NULL;
    if (root && !ssp_is(root, OSP_MD_NS, "OspModelDescription") &&
        !ssp_is(root, OSP_MD_NS_01, "OspModelDescription")) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s: the root is not OspModelDescription in "
                "namespace " OSP_MD_NS " (or " OSP_MD_NS_01 ")", what);
        return NULL;
    }
    return root;
}

/* The variable group called name below n (not inside UnitDefinitions), or NULL. */
static xmlNode *find_group(xmlNode *n, const char *name)
{
    for (xmlNode *c = ssp_next(n->children); c; c = ssp_next(c->next)) {
        if (strcmp((const char *)c->name, "UnitDefinitions") == 0 ||
            strcmp((const char *)c->name, "Variable") == 0)
            continue;
        const char *cn = ssp_attr(c, "name");
        if (cn && strcmp(cn, name) == 0)
            return c;
        xmlNode *r = find_group(c, name);
        if (r)
            return r;
    }
    return NULL;
}

/* Group g's nested groups (vars 0) or its variables' refs (vars 1): count,
 * and the k-th in *out when k < count. */
static size_t group_items(xmlNode *g, int vars, size_t k, xmlNode **out)
{
    size_t n = 0;
    for (xmlNode *c = ssp_next(g->children); c; c = ssp_next(c->next)) {
        const int isvar = strcmp((const char *)c->name, "Variable") == 0;
        if (isvar != vars || !ssp_attr(c, isvar ? "ref" : "name"))
            continue;
        if (n++ == k && out)
            *out = c;
    }
    return n;
}

/* The group called name of simulator sim, or NULL after reporting. */
static xmlNode *group_of(struct ssp *s, struct mf_osp *o, const char *sim, const char *name,
                         size_t line)
{
    const long sub = sim && name ? osp_sub_of(s, sim, line) : -1;
    if (sub < 0) {
        if (s->p->st == COSA_OK)
            mf_perr(s->p, COSA_ESYNTAX, line, "VariableGroup without simulator or name");
        return NULL;
    }
    xmlNode *root = model_description(s, o, sub, line);
    xmlNode *g = root ? find_group(root, name) : NULL;
    if (root && !g)
        mf_perr(s->p, COSA_ESYNTAX, line, "simulator '%.80s' has no variable group '%.120s' in "
                "its OspModelDescription", sim, name);
    return g;
}

/* Groups ga of sa and gb of sb connected: nested groups pairwise, then the
 * variables pairwise (libcosim's connect_variable_groups). */
static void group_conn(struct ssp *s, const char *sa, xmlNode *ga, const char *sb, xmlNode *gb,
                       size_t line, int depth)
{
    for (int vars = 0; vars < 2 && s->p->st == COSA_OK; vars++) {
        const size_t na = group_items(ga, vars, 0, NULL), nb = group_items(gb, vars, 0, NULL);
        if (na != nb || depth > 32) {
            mf_perr(s->p, COSA_ESYNTAX, line, "variable groups %.80s:%.80s and %.80s:%.80s "
                    "differ in size (%zu and %zu %s)", sa, ssp_attr(ga, "name"), sb,
                    ssp_attr(gb, "name"), na, nb, vars ? "variables" : "nested groups");
            return;
        }
        for (size_t k = 0; k < na && s->p->st == COSA_OK; k++) {
            xmlNode *a = NULL, *b = NULL;
            group_items(ga, vars, k, &a);
            group_items(gb, vars, k, &b);
            if (vars)
                var_conn(s, sa, ssp_attr(a, "ref"), sb, ssp_attr(b, "ref"), line);
            else
                group_conn(s, sa, a, sb, b, line, depth + 1);
        }
    }
}

/* ---- connections ------------------------------------------------------------ */

/* The two children of a connection element, of element names first/second
 * (either order for signals); 0, or -1 after reporting. */
static int two(struct ssp *s, xmlNode *c, const char *first, const char *second, xmlNode **a,
               xmlNode **b)
{
    *a = ssp_next(c->children);
    *b = *a ? ssp_next((*a)->next) : NULL;
    const xmlNode *rest = *b ? ssp_next((*b)->next) : NULL;
    if (*a && *b && osp_is(*a, second) && osp_is(*b, first)) {
        xmlNode *t = *a;
        *a = *b;
        *b = t;
    }
    if (!*a || !*b || !osp_is(*a, first) || !osp_is(*b, second) || rest) {
        char q[64];
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "%s: expected a %s and a %s", ssp_qname(c, q),
                first, second);
        return -1;
    }
    return 0;
}

/* A VariableConnection (and its power-bond label). */
static void variable_connection(struct ssp *s, struct mf_osp *o, xmlNode *c)
{
    xmlNode *a, *b;
    if (two(s, c, "Variable", "Variable", &a, &b))
        return;
    const char *sa = ssp_attr(a, "simulator"), *sb = ssp_attr(b, "simulator");
    var_conn(s, sa, ssp_attr(a, "name"), sb, ssp_attr(b, "name"), ssp_line(c));
    const char *pb = ssp_attr(c, "powerBond");
    if (!pb || s->p->st != COSA_OK)
        return;
    struct osp_pbconn *n = realloc(o->pbc, (o->npbc + 1) * sizeof *n);
    if (!n)
        return mf_nomem(s->p);
    o->pbc = n;
    struct osp_pbconn *e = &o->pbc[o->npbc++];
    memset(e, 0, sizeof *e);
    e->line = ssp_line(c);
    e->name = mf_dup0(pb);
    xmlNode *v[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        const char *caus = ssp_attr(v[k], "causality");
        e->v[k].sub = (size_t)osp_sub_of(s, ssp_attr(v[k], "simulator"), e->line);
        e->v[k].var = mf_dup0(ssp_attr(v[k], "name"));
        e->v[k].labelled = !caus ? -1 : strcmp(caus, "input") == 0 ? 1
                           : strcmp(caus, "output") == 0 ? 0 : -2;
        if (e->v[k].labelled == -2)
            mf_perr(s->p, COSA_ESYNTAX, e->line, "causality '%.40s': libcosim's values are "
                    "input and output", caus);
    }
    if (!e->name || !e->v[0].var || !e->v[1].var)
        mf_nomem(s->p);
}

/* ---- functions ---------------------------------------------------------------- */

/* The SignalConnection (group 0) or SignalGroupConnection (group 1) of
 * Connections element conns joining signal sig of function fn: its
 * Variable / VariableGroup element, or NULL after reporting at line. */
static xmlNode *signal_end(struct ssp *s, xmlNode *conns, int group, const char *fn,
                           const char *sig, size_t line)
{
    const char *ce = group ? "SignalGroupConnection" : "SignalConnection";
    const char *ve = group ? "VariableGroup" : "Variable", *se = group ? "SignalGroup" : "Signal";
    for (xmlNode *c = conns ? ssp_next(conns->children) : NULL; c; c = ssp_next(c->next)) {
        xmlNode *v, *g;
        if (!osp_is(c, ce) || two(s, c, ve, se, &v, &g))
            continue;
        const char *f = ssp_attr(g, "function"), *n = ssp_attr(g, "name");
        if (f && n && strcmp(f, fn) == 0 && strcmp(n, sig) == 0)
            return v;
    }
    if (s->p->st == COSA_OK)
        mf_perr(s->p, COSA_ESYNTAX, line, "function '%.80s': no %s to its signal '%.40s'", fn,
                ce, sig);
    return NULL;
}

/* LinearTransformation and Sum: in (or in[i]) -> out. */
static void scalar_function(struct ssp *s, xmlNode *f, xmlNode *conns)
{
    const char *name = ssp_attr(f, "name");
    const size_t line = ssp_line(f);
    const int sum = osp_is(f, "Sum");
    double factor = 1.0, offset = 0.0, count = 1.0;
    if (sum ? ssp_number(s, f, "inputCount", NAN, &count)
            : ssp_number(s, f, "factor", 1.0, &factor) || ssp_number(s, f, "offset", 0.0, &offset))
        return;
    if (!name || (sum && !(count >= 1.0 && count <= 1e6 && count == (double)(long)count))) {
        mf_perr(s->p, COSA_ESYNTAX, line, "%s without a name%s", sum ? "Sum" :
                "LinearTransformation", sum ? " or a whole inputCount >= 1" : "");
        return;
    }
    if (offset != 0.0) {
        mf_perr(s->p, COSA_EUNSUPPORTED, line, "LinearTransformation '%.80s' offset=%g: not "
                "supported: cosa's coupling is linear (u = L y), an offset cannot be "
                "represented", name, offset);
        return;
    }
    xmlNode *out = signal_end(s, conns, 0, name, "out", line);
    struct vend dst, src;
    if (!out || var_end(s, ssp_attr(out, "simulator"), ssp_attr(out, "name"), line, &dst))
        return;
    for (long i = 0; i < (long)count && s->p->st == COSA_OK; i++) {
        char sig[32];
        snprintf(sig, sizeof sig, sum ? "in[%ld]" : "in", i);
        xmlNode *in = signal_end(s, conns, 0, name, sig, line);
        if (in && var_end(s, ssp_attr(in, "simulator"), ssp_attr(in, "name"), line, &src) == 0)
            add_conn(s, &src, &dst, line, factor, sum);
    }
}

/* VectorSum: the j-th variables of the groups in[i] add up into the j-th
 * of out. */
static void vector_sum(struct ssp *s, struct mf_osp *o, xmlNode *f, xmlNode *conns)
{
    const char *name = ssp_attr(f, "name");
    const size_t line = ssp_line(f);
    double count, dim;
    if (ssp_number(s, f, "inputCount", NAN, &count) || ssp_number(s, f, "dimension", NAN, &dim))
        return;
    if (!name || !(count >= 1.0 && count <= 1e6 && count == (double)(long)count) ||
        !(dim >= 1.0 && dim <= 1e6 && dim == (double)(long)dim)) {
        mf_perr(s->p, COSA_ESYNTAX, line, "VectorSum needs a name and whole inputCount, "
                "dimension >= 1");
        return;
    }
    xmlNode *og = signal_end(s, conns, 1, name, "out", line);
    const char *osim = og ? ssp_attr(og, "simulator") : NULL;
    xmlNode *outg = og ? group_of(s, o, osim, ssp_attr(og, "name"), line) : NULL;
    for (long i = 0; outg && i < (long)count && s->p->st == COSA_OK; i++) {
        char sig[32];
        snprintf(sig, sizeof sig, "in[%ld]", i);
        xmlNode *ig = signal_end(s, conns, 1, name, sig, line);
        const char *isim = ig ? ssp_attr(ig, "simulator") : NULL;
        xmlNode *ing = ig ? group_of(s, o, isim, ssp_attr(ig, "name"), line) : NULL;
        if (ing && (group_items(ing, 1, 0, NULL) < (size_t)dim ||
                    group_items(outg, 1, 0, NULL) < (size_t)dim)) {
            mf_perr(s->p, COSA_ESYNTAX, line, "VectorSum '%.80s': a variable group has fewer "
                    "than %ld variables", name, (long)dim);
            return;
        }
        for (long j = 0; ing && j < (long)dim && s->p->st == COSA_OK; j++) {
            xmlNode *a = NULL, *b = NULL;
            struct vend src, dst;
            group_items(ing, 1, (size_t)j, &a);
            group_items(outg, 1, (size_t)j, &b);
            if (var_end(s, isim, ssp_attr(a, "ref"), line, &src) == 0 &&
                var_end(s, osim, ssp_attr(b, "ref"), line, &dst) == 0)
                add_conn(s, &src, &dst, line, 1.0, 1);
        }
    }
}

void osp_connect(struct ssp *s, struct mf_osp *o, xmlNode *functions, xmlNode *connections)
{
    for (xmlNode *c = connections ? ssp_next(connections->children) : NULL;
         c && s->p->st == COSA_OK; c = ssp_next(c->next))
        if (osp_is(c, "VariableConnection"))
            variable_connection(s, o, c);
        else if (osp_is(c, "VariableGroupConnection")) {
            xmlNode *a, *b;
            if (ssp_attr(c, "powerBond")) { /* (libcosim fails on it: no labels) */
                osp_refuse(s, c, "powerBond on a variable group (a bond needs the "
                           "causality labels of two VariableConnections)");
                break;
            }
            if (two(s, c, "VariableGroup", "VariableGroup", &a, &b))
                break;
            const char *sa = ssp_attr(a, "simulator"), *sb = ssp_attr(b, "simulator");
            xmlNode *ga = group_of(s, o, sa, ssp_attr(a, "name"), ssp_line(c));
            xmlNode *gb = ga ? group_of(s, o, sb, ssp_attr(b, "name"), ssp_line(c)) : NULL;
            if (gb)
                group_conn(s, sa, ga, sb, gb, ssp_line(c), 0);
        } else if (!osp_is(c, "SignalConnection") && !osp_is(c, "SignalGroupConnection"))
            osp_refuse(s, c, "unknown element in Connections");
    for (xmlNode *f = functions ? ssp_next(functions->children) : NULL; f && s->p->st == COSA_OK;
         f = ssp_next(f->next))
        if (osp_is(f, "LinearTransformation") || osp_is(f, "Sum"))
            scalar_function(s, f, connections);
        else if (osp_is(f, "VectorSum"))
            vector_sum(s, o, f, connections);
        else
            osp_refuse(s, f, "libcosim's functions are LinearTransformation, Sum and VectorSum");
}

/* ---- power bonds --------------------------------------------------------------- */

/* A bond variable in u/y indices; 0, or -1 when its FMU has no such input
 * or output. */
static int bond_index(const mf_t *mf, const struct osp_bondvar *v, int *input, size_t *index)
{
    const struct mf_sub *sub = &mf->subs[v->sub];
    char *id = mf_ident_of(v->var);
    const long u = id ? mf_find_name(sub->names[DECL_U], sub->n[DECL_U], id) : -1;
    const long y = id ? mf_find_name(sub->names[DECL_Y], sub->n[DECL_Y], id) : -1;
    free(id);
    *input = u >= 0;
    *index = u >= 0 ? sub->ou + (size_t)u : sub->oy + (size_t)y;
    return u >= 0 || y >= 0 ? 0 : -1;
}

/* Bond b from its two connections ca, cb (libcosim's add_power_bonds: in
 * the first, the end labelled input is input_a, the output output_b; in
 * the second, input_b and output_a). */
static int make_bond(const mf_t *mf, const struct osp_pbconn *ca, const struct osp_pbconn *cb,
                     cosa_power_bond *b, char *why, size_t whysize)
{
    const struct osp_pbconn *c[2] = {ca, cb};
    static const int slot[2][2] = {{3, 0}, {1, 2}}; /* [conn][labelled input?] */
    int set[4] = {0};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            const struct osp_bondvar *v = &c[i]->v[k];
            if (v->labelled < 0) {
                snprintf(why, whysize, "line %zu: both variables of a power-bond connection "
                         "need causality=\"input\" or \"output\"", c[i]->line);
                return -1;
            }
            const int sl = slot[i][v->labelled];
            if (set[sl]++ || bond_index(mf, v, &b->input[sl], &b->index[sl])) {
                snprintf(why, whysize, "line %zu: %s", c[i]->line, set[sl] > 1
                         ? "a power-bond connection needs one end labelled input and one "
                           "output" : "a bond variable is no input or output of its FMU");
                return -1;
            }
        }
    return 0;
}

cosa_status osp_bonds(const mf_t *mf, struct mf_osp *o, const char *path, char *err,
                      size_t errsize)
{
    size_t nb = 0;
    for (size_t i = 0; i < o->npbc; i++) {
        size_t same = 0, first = i;
        for (size_t j = 0; j < o->npbc; j++)
            if (strcmp(o->pbc[j].name, o->pbc[i].name) == 0) {
                same++;
                first = j < first ? j : first;
            }
        if (same != 2) {
            snprintf(err, errsize, "%s:%zu: the power bond %.80s does not have 2 connections "
                     "(%zu found)", path, o->pbc[i].line, o->pbc[i].name, same);
            return COSA_ESYNTAX;
        }
        nb += first == i;
    }
    if (o->info.ecco && nb == 0) {
        snprintf(err, errsize, "%s: Algorithm ecco needs power bonds (VariableConnection "
                 "powerBond=\"NAME\"): none were found", path);
        return COSA_ESYNTAX;
    }
    o->bonds = calloc(nb + 1, sizeof *o->bonds);
    o->bond_names = calloc(nb + 1, sizeof *o->bond_names);
    if (!o->bonds || !o->bond_names) {
        snprintf(err, errsize, "%s: out of memory", path);
        return COSA_ENOMEM;
    }
    for (size_t i = 0; i < o->npbc; i++) {
        size_t j = i + 1;
        while (j < o->npbc && strcmp(o->pbc[j].name, o->pbc[i].name) != 0)
            j++;
        if (j == o->npbc)
            continue; /* the second of its pair */
        char why[200];
        cosa_power_bond *b = &o->bonds[o->info.nbond];
        if (make_bond(mf, &o->pbc[i], &o->pbc[j], b, why, sizeof why)) {
            snprintf(err, errsize, "%s: power bond %.80s: %s", path, o->pbc[i].name, why);
            return COSA_ESYNTAX;
        }
        if (!(o->bond_names[o->info.nbond++] = mf_dup0(o->pbc[i].name))) {
            snprintf(err, errsize, "%s: out of memory", path);
            return COSA_ENOMEM;
        }
    }
    o->info.nsub = mf->nsub;
    o->info.nx = mf->nx;
    o->info.L = mf->L;
    o->info.step = o->step;
    o->info.bonds = o->bonds;
    o->info.bond_names = (const char *const *)o->bond_names;
    return COSA_OK;
}
