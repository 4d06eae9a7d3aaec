/* ssp_package.c -- SSP import (ssp_impl.h): nested SSP packages and
 * system definitions.  A component of type application/x-ssp-package
 * names another .ssp archive; it is unzipped (into the model's private
 * directory, removed with it); one of type application/x-ssp-definition
 * names another .ssd, read where it is (its sources relative to its
 * directory).  The top-level system takes the component's place in the
 * document, under the component's name, so the flattening treats it as any nested system
 * (its connectors are the component's, its FMUs become NAME_SUB_COMP).
 * Sources inside it are relative to its own archive (no ".."), the
 * component's parameter bindings stay relative to the enclosing .ssd and
 * are applied after the package's own (an outer binding wins).  Packages
 * inside packages are expanded in turn, up to SSP_PACKAGE_DEPTH. */
#include "ssp_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SSP_PACKAGE_TYPE "application/x-ssp-package"
#define SSP_DEFINITION_TYPE "application/x-ssp-definition"
#define SSP_PACKAGE_DEPTH 8

/* Remember that sources below node n are relative to dir (archive: no ".."). */
static int remember(struct ssp *s, xmlNode *n, const char *dir, int archive)
{
    struct ssp_base_of *b = realloc(s->bases, (s->nbases + 1) * sizeof *b);
    if (!b)
        return -1;
    s->bases = b;
    if (!(b[s->nbases].dir = mf_dup0(dir)))
        return -1;
    b[s->nbases].node = n;
    b[s->nbases].archive = archive;
    s->nbases++;
    return 0;
}

struct ssp_base ssp_base_enter(struct ssp *s, const xmlNode *n)
{
    const struct ssp_base old = {s->dir, s->archive};
    for (const xmlNode *a = n; a; a = a->parent)
        for (size_t i = 0; i < s->nbases; i++)
            if (s->bases[i].node == a) {
                s->dir = s->bases[i].dir;
                s->archive = s->bases[i].archive;
                return old;
            }
    return old;
}

void ssp_base_leave(struct ssp *s, struct ssp_base b)
{
    s->dir = b.dir;
    s->archive = b.archive;
}

/* Unzip the package at path into the model's private directory: its
 * directory in dir (4096); 0, or -1 after reporting at line. */
static int unpack(struct ssp *s, const char *path, const char *what, size_t line, char *dir)
{
    mf_t *mf = s->p->mf;
    char msg[512], tmp[4096];
    cosa_status st = cosa_archive_extract(path, "SSP", tmp, sizeof tmp, msg, sizeof msg);
    if (st != COSA_OK) {
        mf_perr(s->p, st, line, "%s: %s", what, msg);
        return -1;
    }
    if (!mf->tmpdir) { /* an unpacked .ssd: the first package's directory is the model's */
        if (!(mf->tmpdir = mf_dup0(tmp))) {
            cosa_archive_remove(tmp);
            mf_nomem(s->p);
            return -1;
        }
        snprintf(dir, 4096, "%s", tmp);
        return 0;
    }
    /* below the model's directory, removed with it */
    if ((size_t)snprintf(dir, 4096, "%s/.cosa-ssp-package-%zu", mf->tmpdir, s->nbases) >= 4096 ||
        rename(tmp, dir) != 0) {
        cosa_archive_remove(tmp);
        mf_perr(s->p, COSA_EIO, line, "%s: cannot move the unpacked package into the model's "
                "directory", what);
        return -1;
    }
    return 0;
}

/* The top-level ssd:System of the .ssd at path (a package's
 * SystemStructure.ssd, member of the archive source: package 1), read into
 * *doc; NULL after reporting. */
static xmlNode *package_system(struct ssp *s, const char *ssd, const char *source, int package,
                               xmlDoc **doc)
{
    char shown[4096 + 64];
    const char *fname = s->p->fname;
    snprintf(shown, sizeof shown, "%.*s%s%s%s",
             s->archive ? (int)(strrchr(fname, ':') - fname) : 0, fname, s->archive ? ":" : "",
             s->archive || package ? source : ssd, package ? ":SystemStructure.ssd" : "");
    s->p->fname = shown;
    struct stat sb;
    xmlNode *sys = NULL;
    if (stat(ssd, &sb) != 0 || !S_ISREG(sb.st_mode))
        mf_perr(s->p, COSA_ESYNTAX, 1, package ? "not an SSP: no SystemStructure.ssd in the "
                "archive" : "cannot read the file");
    else if ((*doc = ssp_read_xml(s, ssd, package ? "SystemStructure.ssd" : "the .ssd"))) {
        xmlNode *root = xmlDocGetRootElement(*doc);
        if (!ssp_is(root, SSP_NS_SSD, "SystemStructureDescription"))
            mf_perr(s->p, COSA_ESYNTAX, root ? ssp_line(root) : 1, "the root element is not "
                    "ssd:SystemStructureDescription (namespace " SSP_NS_SSD ")");
        for (xmlNode *t = root ? ssp_next(root->children) : NULL; t && !sys; t = ssp_next(t->next))
            if (ssp_is(t, SSP_NS_SSD, "System"))
                sys = t;
        if (!sys && s->p->st == COSA_OK)
            mf_perr(s->p, COSA_ESYNTAX, ssp_line(root), "no ssd:System");
    }
    s->p->fname = fname;
    return s->p->st == COSA_OK ? sys : NULL;
}

static void expand_all(struct ssp *s, xmlNode *n, int depth);

/* Package (1) or definition (0) component c: its system in its place. */
static void expand(struct ssp *s, xmlNode *c, int package, int depth)
{
    const char *name = ssp_attr(c, "name");
    char what[160], path[4096], dir[4096];
    snprintf(what, sizeof what, "ssd:Component '%.80s'", name ? name : "?");
    if (!name || !name[0])
        return mf_perr(s->p, COSA_ESYNTAX, ssp_line(c), "ssd:Component without a name");
    if (depth >= SSP_PACKAGE_DEPTH)
        return mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "%s: SSP packages or system "
                       "definitions nested more than %d deep: not supported", what, SSP_PACKAGE_DEPTH);
    const struct ssp_base outer = ssp_base_enter(s, c);
    xmlDoc *doc = NULL;
    xmlNode *sys = NULL, *copy = NULL;
    char ssd[4096 + 32];
    int archive = 1; /* a package's sources stay inside it; a definition's as the .ssd's */
    const int found = ssp_source_path(s, ssp_attr(c, "source"), ssp_line(c), what, path,
                                      sizeof path) == 0;
    if (found && package && unpack(s, path, what, ssp_line(c), dir) == 0) {
        snprintf(ssd, sizeof ssd, "%s/SystemStructure.ssd", dir);
        sys = package_system(s, ssd, ssp_attr(c, "source"), 1, &doc);
    } else if (found && !package) { /* relative to its own directory */
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        snprintf(ssd, sizeof ssd, "%s", path);
        archive = s->archive;
        sys = package_system(s, ssd, ssp_attr(c, "source"), 0, &doc);
    }
    if (sys && !(copy = xmlDocCopyNode(sys, c->doc, 1)))
        mf_nomem(s->p);
    xmlFreeDoc(doc);
    /* the component's declared connectors are the package system's */
    for (xmlNode *t = copy ? ssp_next(c->children) : NULL; t && s->p->st == COSA_OK;
         t = ssp_next(t->next))
        for (xmlNode *k = ssp_is(t, SSP_NS_SSD, "Connectors") ? ssp_next(t->children) : NULL;
             k && s->p->st == COSA_OK; k = ssp_next(k->next)) {
            const char *kn = ssp_attr(k, "name"), *kk = ssp_attr(k, "kind");
            xmlNode *m = kn ? ssp_connector(copy, kn) : NULL;
            if (!m || !kk || !ssp_attr(m, "kind") || strcmp(kk, ssp_attr(m, "kind")) != 0)
                mf_perr(s->p, COSA_ESYNTAX, ssp_line(k), "%s: connector '%.80s' (%.20s) is no "
                        "connector of that kind of its system '%.80s'", what,
                        kn ? kn : "?", kk ? kk : "no kind", ssp_attr(copy, "name"));
        }
    if (s->p->st != COSA_OK || !copy) {
        xmlFreeNode(copy);
        ssp_base_leave(s, outer);
        return;
    }
    xmlSetProp(copy, (const xmlChar *)"name", (const xmlChar *)name);
    /* the component's bindings: after the package's own, relative to the .ssd */
    for (xmlNode *t = ssp_next(c->children), *next; t && s->p->st == COSA_OK; t = next) {
        next = ssp_next(t->next);
        if (ssp_is(t, SSP_NS_SSD, "ParameterBindings")) {
            xmlUnlinkNode(t);
            xmlAddChild(copy, t);
            if (remember(s, t, s->dir, s->archive) != 0)
                mf_nomem(s->p);
        }
    }
    if (s->p->st == COSA_OK && remember(s, copy, dir, archive) != 0)
        mf_nomem(s->p);
    ssp_base_leave(s, outer);
    xmlReplaceNode(c, copy);
    xmlFreeNode(c);
    if (s->p->st == COSA_OK)
        expand_all(s, copy, depth + 1);
}

static void expand_all(struct ssp *s, xmlNode *n, int depth)
{
    for (xmlNode *e = ssp_next(n->children), *next; e && s->p->st == COSA_OK; e = next) {
        next = ssp_next(e->next);
        const char *type = ssp_attr(e, "type");
        if (ssp_is(e, SSP_NS_SSD, "Component") && type && (strcmp(type, SSP_PACKAGE_TYPE) == 0 ||
                                                           strcmp(type, SSP_DEFINITION_TYPE) == 0))
            expand(s, e, strcmp(type, SSP_PACKAGE_TYPE) == 0, depth);
        else if (ssp_is(e, SSP_NS_SSD, "System") || ssp_is(e, SSP_NS_SSD, "Elements"))
            expand_all(s, e, depth);
    }
}

void ssp_packages(struct ssp *s, xmlNode *root)
{
    for (xmlNode *t = root ? ssp_next(root->children) : NULL; t && s->p->st == COSA_OK;
         t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSD, "System"))
            expand_all(s, t, 0);
}

void ssp_bases_free(struct ssp *s)
{
    for (size_t i = 0; i < s->nbases; i++)
        free(s->bases[i].dir);
    free(s->bases);
    s->bases = NULL;
    s->nbases = 0;
}
