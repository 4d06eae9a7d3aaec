/* modelfile.c -- model files (format: modelfile_impl.h, README "Model
 * files"): the entry points cosa_model_file_parse/load, and the lifetime and
 * small helpers of the parsed description shared by models/modelfile*.c. */
#include "modelfile_impl.h"
#include "modelfile_cache.h"
#include "ssp_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MF_MAXFILE (256u << 20) /* bytes of a model file */

const char *const mf_blk_name[NBLK] = {"A", "B", "C", "D", "x0"};

char *mf_dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *mf_dup0(const char *s) { return mf_dupn(s, strlen(s)); }

void mf_block_dims(const struct mf_sub *s, int k, size_t *r, size_t *c)
{
    size_t nx = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    switch (k) {
    case BA: *r = nx; *c = nx; break;
    case BB: *r = nx; *c = nu; break;
    case BC: *r = ny; *c = nx; break;
    case BD: *r = ny; *c = nu; break;
    default: *r = nx; *c = 1; break;
    }
}

void mf_free(mf_t *mf)
{
    if (!mf)
        return;
    free(mf->name);
    free(mf->doc);
    mf_bonds_free(mf);
    mf_icache_free(mf->icache);
    for (size_t i = 0; i < mf->nparam; i++) {
        free((char *)mf->params[i].name);
        free((char *)mf->params[i].unit);
        free((char *)mf->params[i].doc);
    }
    free(mf->params);
    free(mf->param_line);
    for (size_t i = 0; i < mf->nlet; i++)
        free(mf->lets[i].name);
    free(mf->lets);
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        free(s->name);
        free(s->fmu);
        free(s->ident_error);
        cosa_fmu_close(s->fh);
        for (size_t j = 0; s->fvar && s->fvar[j]; j++)
            free(s->fvar[j]);
        free(s->fvar);
        free(s->fown);
        for (size_t j = 0; j < s->ntext; j++) {
            free(s->tname[j]);
            free(s->tval[j]);
        }
        free(s->tname);
        free(s->tval);
        for (int d = 0; d < 3; d++) {
            for (size_t j = 0; j < s->n[d] && s->names[d]; j++)
                free(s->names[d][j]);
            free(s->names[d]);
        }
        for (int k = 0; k < NBLK; k++) {
            free(s->b[k].e);
            free(s->b[k].set);
        }
    }
    free(mf->subs);
    for (size_t i = 0; i < mf->nconn; i++) {
        free(mf->conns[i].src);
        free(mf->conns[i].out);
        free(mf->conns[i].dst);
        free(mf->conns[i].in);
    }
    free(mf->conns);
    mf_clocks_free(mf);
    mf_holds_free(mf);
    mf_discrete_free(mf);
    for (size_t i = 0; i < mf->nsym; i++)
        free(mf->syms[i].name);
    free(mf->syms);
    mf_expr_pool_free(mf->pool);
    free(mf->L);
    free(mf->c);
    if (mf->uq)
        for (size_t i = 0; i < mf->nu; i++)
            free(mf->uq[i]);
    free(mf->uq);
    free(mf->xg);
    free(mf->yg);
    mf_osp_free(mf->osp);
    if (mf->tmpdir)
        cosa_archive_remove(mf->tmpdir);
    free(mf->tmpdir);
    free(mf);
}

mf_t *mf_new(void)
{
    mf_t *mf = calloc(1, sizeof *mf);
    if (mf && !(mf->pool = mf_expr_pool_alloc())) {
        free(mf);
        return NULL;
    }
    if (mf)
        mf->tend = 1.0;
    return mf;
}

cosa_status mf_alloc_block(struct mf_block *b, size_t r, size_t c, int base)
{
    size_t n = r * c;
    b->e = calloc(n ? n : 1, sizeof *b->e);
    if (base)
        b->set = calloc(n ? n : 1, 1);
    return b->e && (!base || b->set) ? COSA_OK : COSA_ENOMEM;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

/* Model name from a file name: basename without extension, or "model". */
static char *name_from_path(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b)
        n = (size_t)(dot - b);
    if (n == 0 || n > MF_EXPR_MAXNAME)
        return mf_dup0("model");
    char *r = mf_dupn(b, n);
    if (r)
        for (char *c = r; *c; c++)
            if (!mf_ident_char(*c) && *c != '-' && *c != '.' && *c != '+')
                *c = '_';
    return r;
}

static cosa_status parse_flags(const char *text, size_t len, const char *name_for_errors,
                               unsigned flags, double probe, cosa_model **out, char *err,
                               size_t errsize);

cosa_status cosa_model_file_parse(const char *text, size_t len, const char *name_for_errors,
                                  cosa_model **out, char *err, size_t errsize)
{
    return parse_flags(text, len, name_for_errors, 0u, 0.0, out, err, errsize);
}

static cosa_status parse_flags(const char *text, size_t len, const char *name_for_errors,
                               unsigned flags, double probe, cosa_model **out, char *err,
                               size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (out)
        *out = NULL;
    const char *fname = name_for_errors ? name_for_errors : "<model>";
    if (!out || (!text && len)) {
        if (err && errsize)
            snprintf(err, errsize, "%s: invalid argument", fname);
        return COSA_EINVAL;
    }
    /* a UTF-8 byte order mark (editors on Windows write one) is no text */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    struct mf_parser p = {.fname = fname, .err = err, .errsize = errsize, .st = COSA_OK, .line = 1,
                          .flags = flags, .probe = probe};
    /* binary junk: NUL bytes and control characters are never valid */
    size_t line = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n')
            line++;
        else if (ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\f' && ch != '\v') {
            mf_perr(&p, COSA_ESYNTAX, line, "%s byte 0x%02x: not a text file?",
                    ch ? "control" : "NUL", ch);
            return p.st;
        } else if (ch == 0x7f) {
            mf_perr(&p, COSA_ESYNTAX, line, "control byte 0x7f: not a text file?");
            return p.st;
        }
    }
    char *copy = malloc(len + 1);
    mf_t *mf = mf_new();
    if (!copy || !mf) {
        free(copy);
        mf_free(mf);
        mf_perr(&p, COSA_ENOMEM, 0, "out of memory");
        return COSA_ENOMEM;
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    p.mf = mf;
    p.s = copy;
    while (p.st == COSA_OK && p.s[p.pos] != '\0')
        mf_statement(&p);
    cosa_status st = mf_finish(&p, out);
    free(copy);
    return st;
}

cosa_status mf_finish(struct mf_parser *p, cosa_model **out)
{
    mf_t *mf = p->mf;
    if (p->st == COSA_OK)
        mf_resolve(p);
    if (p->st == COSA_OK)
        mf_resolve_energy(p);
    if (p->st == COSA_OK && !mf->name && !(mf->name = name_from_path(p->fname)))
        mf_perr(p, COSA_ENOMEM, 0, "out of memory");
    if (p->st == COSA_OK && !mf->doc && !(mf->doc = mf_dup0("")))
        mf_perr(p, COSA_ENOMEM, 0, "out of memory");
    if (p->st != COSA_OK) {
        mf_free(mf);
        return p->st;
    }
    mf_model_init(mf);
    mf_energy_init(mf);
    *out = &mf->model;
    return COSA_OK;
}

cosa_status cosa_model_file_load(const char *path, cosa_model **out, char *err, size_t errsize)
{
    return cosa_model_file_load_flags(path, 0u, out, err, errsize);
}

cosa_status cosa_model_file_load_flags(const char *path, unsigned flags, cosa_model **out,
                                       char *err, size_t errsize)
{
    return cosa_model_file_load_probe(path, flags, 0.0, out, err, errsize);
}

cosa_status cosa_model_file_load_probe(const char *path, unsigned flags, double probe,
                                       cosa_model **out, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!path || !out) {
        if (err && errsize)
            snprintf(err, errsize, "%s: invalid argument", path ? path : "(null)");
        return COSA_EINVAL;
    }
    /* an SSP (README "SSP import"): an archive or an unpacked system's .ssd */
    const size_t plen = strlen(path);
    if (plen > 4 && (strcasecmp(path + plen - 4, ".ssp") == 0 ||
                     strcasecmp(path + plen - 4, ".ssd") == 0))
        return mf_ssp_load(path, flags, probe, out, err, errsize);
    /* an OSP system structure (doc/osp.md): OspSystemStructure.xml, any *.xml */
    if (plen > 4 && strcasecmp(path + plen - 4, ".xml") == 0)
        return mf_osp_load(path, flags, probe, out, err, errsize);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errsize)
            snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
        return COSA_EIO;
    }
    size_t n = 0, cap = 0;
    char *buf = NULL;
    cosa_status st = COSA_OK;
    for (;;) {
        if (n == cap) {
            if (cap >= MF_MAXFILE) {
                if (err && errsize)
                    snprintf(err, errsize, "%s: larger than %u MiB", path, MF_MAXFILE >> 20);
                st = COSA_EIO;
                break;
            }
            size_t c = cap ? 2 * cap : 65536;
            char *b = realloc(buf, c);
            if (!b) {
                st = COSA_ENOMEM;
                if (err && errsize)
                    snprintf(err, errsize, "%s: out of memory", path);
                break;
            }
            buf = b;
            cap = c;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                if (err && errsize)
                    snprintf(err, errsize, "%s: read error: %s", path, strerror(errno));
                st = COSA_EIO;
            }
            break;
        }
    }
    fclose(f);
    if (st == COSA_OK)
        st = parse_flags(buf, n, path, flags, probe, out, err, errsize);
    free(buf);
    return st;
}
