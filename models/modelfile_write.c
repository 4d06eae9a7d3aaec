/* modelfile_write.c -- writing models as model files: cosa_model_dump
 * writes a file model with its expressions, a model with a dump template
 * (cosa_model.dump_template) with parameter expressions, any other model
 * with numbers, and checks before writing that reading the text back gives
 * the same A, B, C, D, L and x0 bit for bit. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "modelfile_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Writing model files                                                      */
/* ------------------------------------------------------------------------ */

/* One matrix entry to write: an expression (e), a parameter name, or a number. */
struct cell {
    const mf_expr *e;
    const char *name;
    double v;
};

typedef struct cell (*cell_fn)(const void *ctx, size_t i, size_t j);

struct writer {
    FILE *f;
    const mf_t *mf; /* for expression names */
    int err;
};

static const char *slot_name(void *ctx, uint32_t id)
{
    const mf_t *mf = ctx;
    if (id < mf->nparam)
        return mf->params[id].name;
    if (id - mf->nparam < mf->nlet)
        return mf->lets[id - mf->nparam].name;
    return NULL;
}

static void wr(struct writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(w->f, fmt, ap) < 0)
        w->err = 1;
    va_end(ap);
}

static void wr_num(struct writer *w, double x)
{
    if (mf_expr_print_number(w->f, x))
        w->err = 1;
}

static int cell_number(struct cell c, double *v)
{
    if (c.name || (c.e && c.e->len))
        return 0;
    *v = c.e ? c.e->value : c.v;
    return 1;
}

static int cell_is(struct cell c, double x)
{
    double v;
    return cell_number(c, &v) && memcmp(&v, &x, sizeof v) == 0;
}

static void wr_cell(struct writer *w, struct cell c)
{
    double v;
    if (cell_number(c, &v))
        wr_num(w, v);
    else if (c.name)
        wr(w, "%s", c.name);
    else if (mf_expr_print(w->f, w->mf->pool, c.e, slot_name, (void *)w->mf))
        w->err = 1;
}

/* A block as "X = zeros", "X = eye", a full matrix, or zeros plus entries,
 * whichever is shorter; +0 entries are implied by zeros, -0 is written. */
static void wr_block(struct writer *w, const char *bn, size_t r, size_t c, cell_fn get,
                     const void *ctx, int vector)
{
    size_t nz = 0, total = r * c;
    int eye = !vector;
    for (size_t j = 0; j < c; j++)
        for (size_t i = 0; i < r; i++) {
            struct cell x = get(ctx, i, j);
            if (!cell_is(x, 0.0))
                nz++;
            if (!cell_is(x, i == j ? 1.0 : 0.0))
                eye = 0;
        }
    if (total == 0) {
        wr(w, "  %s = []\n", bn);
    } else if (nz == 0) {
        wr(w, "  %s = zeros\n", bn);
    } else if (eye) {
        wr(w, "  %s = eye\n", bn);
    } else if (total > 36 && 3 * nz < total) {
        wr(w, "  %s = zeros\n", bn);
        for (size_t j = 0; j < c; j++)
            for (size_t i = 0; i < r; i++) {
                struct cell x = get(ctx, i, j);
                if (cell_is(x, 0.0))
                    continue;
                if (vector)
                    wr(w, "  %s[%zu] = ", bn, i + 1);
                else
                    wr(w, "  %s[%zu,%zu] = ", bn, i + 1, j + 1);
                wr_cell(w, x);
                wr(w, "\n");
            }
    } else {
        wr(w, "  %s = [ ", bn);
        for (size_t i = 0; i < r; i++) {
            if (i > 0)
                wr(w, c == 1 ? "; " : "\n%*s", (int)strlen(bn) + 7, "");
            for (size_t j = 0; j < c; j++) {
                if (j > 0)
                    wr(w, ", ");
                wr_cell(w, get(ctx, i, j));
            }
        }
        wr(w, " ]\n");
    }
}

/* Text safe for a comment or a unit: control characters and, in units, the
 * characters that end a unit, become blanks. */
static void wr_text(struct writer *w, const char *s, int unit)
{
    for (; s && *s; s++) {
        char ch = *s;
        if ((unsigned char)ch < 0x20 || ch == 0x7f || (unit && (ch == ']' || ch == '#')))
            ch = ' ';
        if (fputc(ch, w->f) == EOF)
            w->err = 1;
    }
}

static void wr_header(struct writer *w, const cosa_model *m, const char *origin)
{
    wr(w, "# cosa model file (format: README, \"Model files\")\n");
    if (origin)
        wr(w, "# %s\n", origin);
    wr(w, "model %s", m->name);
    if (m->doc && *m->doc) {
        wr(w, "  # ");
        wr_text(w, m->doc, 0);
    }
    wr(w, "\ntend ");
    wr_num(w, m->tend);
    wr(w, "\n");
}

/* Parameter k of m (params, nparam) with value and its declared range. */
static void wr_param(struct writer *w, const cosa_model *m, size_t k, double value)
{
    const cosa_param *p = &m->params[k];
    wr(w, "%-7s %s = ", p->kind == COSA_PARAM_INITIAL ? "initial" : "param", p->name);
    wr_num(w, value);
    if (p->unit && *p->unit) {
        wr(w, " [");
        wr_text(w, p->unit, 1);
        wr(w, "]");
    }
    char range[160];
    if (cosa_param_range_text(m, k, range, sizeof range) > 0)
        wr(w, " (%s)", range);
    if (p->doc && *p->doc) {
        wr(w, "  # ");
        wr_text(w, p->doc, 0);
    }
    wr(w, "\n");
}

struct mf_cellctx {
    const struct mf_sub *s;
    int k;
    const double *M;       /* an FMU's block: numbers at rows ro.., cols co.. */
    size_t ld, ro, co;
};

static struct cell mf_cell(const void *ctx, size_t i, size_t j)
{
    const struct mf_cellctx *c = ctx;
    if (c->M)
        return (struct cell){NULL, NULL, c->M[c->ro + i + (c->co + j) * c->ld]};
    size_t r, cc;
    mf_block_dims(c->s, c->k, &r, &cc);
    return (struct cell){&c->s->b[c->k].e[i + j * r], NULL, 0.0};
}

/* 1 if parameter k is one of an FMU subsystem's ("SUB.VAR"). */
static int is_fmu_param(const mf_t *mf, size_t k)
{
    for (size_t i = 0; i < mf->nsub; i++)
        if (mf->subs[i].fh && k >= mf->subs[i].fpar0 && k < mf->subs[i].fpar0 + mf->subs[i].nfpar)
            return 1;
    return 0;
}

/* The cells of block k of s: its expressions, or for an FMU subsystem the
 * numbers of its linearisation at the parameter values (sys, x0). */
static struct mf_cellctx cells_of(const struct mf_sub *s, int k, const cosa_system *sys,
                                  const double *x0)
{
    struct mf_cellctx cc = {s, k, NULL, 0, 0, 0};
    if (!s->fh)
        return cc;
    const size_t nx = cosa_system_nx(sys), ny = cosa_system_ny(sys);
    switch (k) {
    case BA: cc.M = cosa_system_A(sys), cc.ld = nx, cc.ro = s->ox, cc.co = s->ox; break;
    case BB: cc.M = cosa_system_B(sys), cc.ld = nx, cc.ro = s->ox, cc.co = s->ou; break;
    case BC: cc.M = cosa_system_C(sys), cc.ld = ny, cc.ro = s->oy, cc.co = s->ox; break;
    case BD: cc.M = cosa_system_D(sys), cc.ld = ny, cc.ro = s->oy, cc.co = s->ou; break;
    default: cc.M = x0, cc.ld = nx, cc.ro = s->ox, cc.co = 0; break;
    }
    return cc;
}

static void wr_names(struct writer *w, const char *kw, char *const *names, size_t n)
{
    wr(w, "  %-7s", kw);
    for (size_t i = 0; i < n; i++)
        wr(w, " %s", names[i]);
    wr(w, "\n");
}

/* A file model at parameter values par, expressions kept. */
static void wr_energy(struct writer *w, const mf_t *mf);
static void wr_file_model(struct writer *w, const mf_t *mf, const double *par,
                          const cosa_system *sys, const double *x0, const char *origin)
{
    wr_header(w, &mf->model, origin);
    if (mf->nparam)
        wr(w, "\n");
    const cosa_model view = {.nparam = mf->nparam, .params = mf->params};
    /* an FMU subsystem is written as the numbers of its linearisation; its
     * parameters (names with a dot) as a comment */
    int any_fmu = 0;
    for (size_t i = 0; i < mf->nparam; i++)
        if (!is_fmu_param(mf, i))
            wr_param(w, &view, i, par[i]);
        else {
            wr(w, any_fmu ? ", %s = " : "# FMU parameters and state start values here: %s = ",
               mf->params[i].name);
            wr_num(w, par[i]);
            any_fmu = 1;
        }
    if (any_fmu)
        wr(w, "\n");
    if (mf->nlet)
        wr(w, "\n");
    for (size_t k = 0; k < mf->nlet; k++) {
        wr(w, "let %s = ", mf->lets[k].name);
        wr_cell(w, (struct cell){&mf->lets[k].e, NULL, 0.0});
        wr(w, "\n");
    }
    for (size_t i = 0; i < mf->nsub; i++) {
        const struct mf_sub *s = &mf->subs[i];
        wr(w, "\n");
        char hb[COSA_NUMBER_MAX];
        if (s->identified) /* doc/black-box.md */
            wr(w, "# FMU %s identified from its inputs and outputs: order %zu at the probe step "
               "%s s, fit error %.3g on a validation input (states xi: identified "
               "coordinates)\n", s->name, s->idinfo.order, cosa_number_format(hb, s->idinfo.h),
               s->idinfo.fit);
        wr(w, "subsystem %s\n", s->name);
        wr_names(w, "states", s->names[DECL_X], s->n[DECL_X]);
        wr_names(w, "inputs", s->names[DECL_U], s->n[DECL_U]);
        wr_names(w, "outputs", s->names[DECL_Y], s->n[DECL_Y]);
        for (int k = 0; k < NBLK; k++) {
            size_t r, c;
            mf_block_dims(s, k, &r, &c);
            struct mf_cellctx cc = cells_of(s, k, sys, x0);
            wr_block(w, mf_blk_name[k], r, c, mf_cell, &cc, k == BX0);
        }
        wr(w, "end\n");
    }
    if (mf->nsub)
        wr(w, "\n");
    for (size_t j = 0; j < mf->ny; j++) {
        /* outputs in order, each with all the inputs it feeds */
        size_t ns = 0;
        while (ns + 1 < mf->nsub && mf->subs[ns + 1].oy <= j)
            ns++;
        const struct mf_sub *a = &mf->subs[ns];
        int first = 1;
        for (size_t i = 0; i < mf->nsub; i++) {
            const struct mf_sub *b = &mf->subs[i];
            for (size_t k = 0; k < b->n[DECL_U]; k++)
                if (mf->L[b->ou + k + j * mf->nu] != 0.0) {
                    if (first)
                        wr(w, "connect %s.%s -> ", a->name, a->names[DECL_Y][j - a->oy]);
                    else
                        wr(w, ", ");
                    wr(w, "%s.%s", b->name, b->names[DECL_U][k]);
                    if (mf->L[b->ou + k + j * mf->nu] != 1.0) { /* a factor */
                        wr(w, " * ");
                        wr_num(w, mf->L[b->ou + k + j * mf->nu]);
                    }
                    if (mf->c && mf->c[b->ou + k] != 0.0) { /* u = L y + c */
                        wr(w, " offset ");
                        wr_num(w, mf->c[b->ou + k]);
                    }
                    first = 0;
                }
        }
        if (!first)
            wr(w, "\n");
    }
    for (size_t k = 0; k < mf->nhold; k++) { /* inputs held constant: u = c */
        wr(w, "hold %s.%s = ", mf->holds[k].dst, mf->holds[k].in);
        wr_num(w, mf->holds[k].value);
        wr(w, "\n");
    }
    /* the subsystems are written as their linearisation: no FMU, no clocks
     * to connect; the clock connections stay as a comment */
    for (size_t k = 0; k < mf->nclk; k++)
        wr(w, "%sconnect clock %s.%s -> %s.%s\n",
           k ? "#   " : "# FMU clock connections (not linearised): ", mf->clks[k].src,
           mf->clks[k].out, mf->clks[k].dst, mf->clks[k].in);
    /* discrete connections (SSP, OSP): not in the linearisation either */
    for (size_t k = 0; k < mf->ndconn; k++)
        wr(w, "%s%s.%s -> %s.%s\n",
           k ? "#   " : "# discrete connections (held between communication points; not in Phi): ",
           mf->subs[mf->dconns[k].from].name, mf->dconns[k].out,
           mf->subs[mf->dconns[k].to].name, mf->dconns[k].in);
    wr_energy(w, mf);
}

/* The energy matrix's entry (i, j) (stored row-major as written). */
static struct cell energy_cell(const void *ctx, size_t i, size_t j)
{
    const mf_t *mf = ctx;
    return (struct cell){&mf->W[i * mf->nx + j], NULL, 0.0};
}

/* energy = [...] and the bonds of a file model (energy paper). */
static void wr_energy(struct writer *w, const mf_t *mf)
{
    if (!mf->port_dim)
        return;
    wr(w, "\n# the energy paper: E = x' W x over the states, and the power bonds\n");
    wr_block(w, "energy", mf->nx, mf->nx, energy_cell, mf, 0);
    for (size_t b = 0; b < mf->nbond; b++) {
        wr(w, "bond ");
        for (size_t c = 0; c < mf->bonds[b].dim; c++)
            wr(w, "%s%s", c ? ", " : "", mf->bonds[b].force[c]);
        wr(w, " ->");
        for (size_t c = 0; c < mf->bonds[b].dim; c++)
            wr(w, "%s %s", c ? "," : "", mf->bonds[b].vel[c]);
        wr(w, "\n");
    }
}

static int same_system(const cosa_system *a, const cosa_system *b)
{
    size_t n = cosa_system_nsub(a);
    if (n != cosa_system_nsub(b))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t da[6], db[6];
        cosa_system_sub_dims(a, i, &da[0], &da[1], &da[2], &da[3], &da[4], &da[5]);
        cosa_system_sub_dims(b, i, &db[0], &db[1], &db[2], &db[3], &db[4], &db[5]);
        if (memcmp(da, db, sizeof da) != 0)
            return 0;
    }
    size_t nx = cosa_system_nx(a), nu = cosa_system_nu(a), ny = cosa_system_ny(a);
    return mf_same_bits(cosa_system_A(a), nx, cosa_system_A(b), nx, nx) &&
           mf_same_bits(cosa_system_B(a), nx, cosa_system_B(b), nx, nu) &&
           mf_same_bits(cosa_system_C(a), ny, cosa_system_C(b), ny, nx) &&
           mf_same_bits(cosa_system_D(a), ny, cosa_system_D(b), ny, nu) &&
           mf_same_bits(cosa_system_L(a), nu, cosa_system_L(b), nu, ny);
}

/* Parse text, build it at the parameter values of m/par (matched by name;
 * every parameter of the text must exist in m) and compare with sys, x0. */
static int verify_text(const char *text, size_t len, const cosa_model *m, const double *par,
                       const cosa_system *sys, const double *x0)
{
    cosa_model *fm = NULL;
    cosa_system *s2 = NULL;
    double *p2 = NULL, *x2 = NULL;
    int ok = 0;
    if (cosa_model_file_parse(text, len, "<dump>", &fm, NULL, 0) != COSA_OK)
        goto done;
    p2 = malloc((fm->nparam + 1) * sizeof *p2);
    x2 = malloc((cosa_system_nx(sys) + 1) * sizeof *x2);
    if (!p2 || !x2)
        goto done;
    for (size_t i = 0; i < fm->nparam; i++) {
        int k = cosa_model_param_index(m, fm->params[i].name);
        if (k < 0)
            goto done;
        p2[i] = par[k];
    }
    if (fm->create(fm, p2, &s2) != COSA_OK || !same_system(sys, s2) ||
        fm->initial_state(fm, p2, x2) != COSA_OK ||
        memcmp(x0, x2, cosa_system_nx(sys) * sizeof *x0) != 0 ||
        memcmp(&fm->tend, &m->tend, sizeof m->tend) != 0)
        goto done;
    ok = 1;
done:
    cosa_system_free(s2);
    free(p2);
    free(x2);
    cosa_model_free(fm);
    return ok;
}

static int is_fixed(const cosa_model_template *t, const char *name)
{
    for (size_t i = 0; t->fixed && t->fixed[i]; i++)
        if (strcmp(t->fixed[i], name) == 0)
            return 1;
    return 0;
}

/* A model with an expression template (cosa_model.dump_template), into a
 * memory buffer. */
static int text_template(const cosa_model_template *t, const cosa_model *m, const double *par,
                         char **text, size_t *len)
{
    FILE *f = open_memstream(text, len);
    if (!f)
        return -1;
    struct writer w = {f, NULL, 0};
    char origin[160];
    snprintf(origin, sizeof origin, "written by cosa %s model-dump --model %s", cosa_version(),
             m->name);
    wr_header(&w, m, origin);
    wr(&w, "\n");
    for (size_t i = 0; i < m->nparam; i++) {
        if (!is_fixed(t, m->params[i].name)) {
            wr_param(&w, m, i, par[i]);
        } else {
            wr(&w, "# %s = ", m->params[i].name);
            wr_num(&w, par[i]);
            wr(&w, " (fixed in this file)\n");
        }
    }
    wr(&w, "\n");
    if (t->text)
        wr(&w, "%s", t->text);
    else if (t->write(f, m, par))
        w.err = 1;
    if (fclose(f) != 0)
        w.err = 1;
    if (w.err) {
        free(*text);
        *text = NULL;
    }
    return w.err ? -1 : 0;
}

/* Generic built-in model, numbers only. */
struct num_ctx {
    const double *M;
    size_t ld, ro, co;     /* block at rows ro.., cols co.. of M (ld) */
    const char *const *pn; /* x0: parameter name per entry or NULL    */
};

static struct cell num_cell(const void *ctx, size_t i, size_t j)
{
    const struct num_ctx *c = ctx;
    if (c->pn && c->pn[c->ro + i])
        return (struct cell){NULL, c->pn[c->ro + i], 0.0};
    return (struct cell){NULL, NULL, c->M[c->ro + i + (c->co + j) * c->ld]};
}

/* A name usable in a model file: identifier characters only, unique among
 * used[0..n); otherwise prefix + (k + 1). */
static char *clean_name(const char *s, char *const *used, size_t n, const char *prefix, size_t k)
{
    char buf[MF_EXPR_MAXNAME + 1];
    size_t m = 0;
    for (; s && *s && m < MF_EXPR_MAXNAME; s++)
        buf[m++] = mf_ident_char(*s) ? *s : '_';
    buf[m] = '\0';
    int ok = m > 0 && mf_ident_start(buf[0]) && mf_find_name(used, n, buf) < 0;
    if (!ok)
        snprintf(buf, sizeof buf, "%s%zu", prefix, k + 1);
    return mf_dup0(buf);
}

/* The coupling as a selection: src[i] the output feeding input i; 1 if L is
 * not one 1 per input row. */
static int coupling_sources(const cosa_system *sys, size_t *src)
{
    size_t nu = cosa_system_nu(sys), ny = cosa_system_ny(sys);
    const double *L = cosa_system_L(sys);
    for (size_t i = 0; i < nu; i++) {
        size_t cnt = 0;
        for (size_t j = 0; j < ny; j++)
            if (L[i + j * nu] != 0.0) {
                cnt++;
                src[i] = j;
                if (L[i + j * nu] != 1.0)
                    cnt = 99;
            }
        if (cnt != 1)
            return 1;
    }
    return 0;
}

/* pn[i]: the initial-state parameter that x0[i] copies, probed one at a time
 * (pp, xp: scratch of nparam and nx). */
static void initial_params(const cosa_model *m, const double *par, const double *x0, size_t nx,
                           const char **pn, double *pp, double *xp)
{
    for (size_t k = 0; k < m->nparam; k++) {
        if (m->params[k].kind != COSA_PARAM_INITIAL)
            continue;
        memcpy(pp, par, m->nparam * sizeof *pp);
        pp[k] = par[k] + 1.0 == par[k] ? 2.0 * par[k] : par[k] + 1.0;
        if (pp[k] == par[k] || !isfinite(pp[k]))
            pp[k] = 1.0;
        if (m->initial_state(m, pp, xp) != COSA_OK)
            continue;
        size_t diff = 0, at = 0;
        for (size_t i = 0; i < nx; i++)
            if (memcmp(&xp[i], &x0[i], sizeof xp[i]) != 0) {
                diff++;
                at = i;
            }
        if (diff == 1 && !pn[at] && memcmp(&x0[at], &par[k], sizeof x0[at]) == 0 &&
            memcmp(&xp[at], &pp[k], sizeof xp[at]) == 0)
            pn[at] = m->params[k].name;
    }
}

/* The names of subsystem i and of its states, inputs and outputs (new
 * strings into subn, xn, un, yn); -1: out of memory. */
static int sub_names(const cosa_model *m, const double *par, const cosa_system *sys, size_t i,
                     char **subn, char **xn, char **un, char **yn)
{
    size_t snx, snu, sny, ox, ou, oy;
    cosa_system_sub_dims(sys, i, &snx, &snu, &sny, &ox, &ou, &oy);
    /* subsystem name: sub_name, else the common prefix "P." of its
     * input names (stripped from the input names when it matches) */
    const char *pre = NULL;
    size_t pl = 0;
    for (size_t j = 0; j < snu; j++) {
        const char *q = m->input_name ? m->input_name(m, par, ou + j) : NULL;
        const char *dot = q ? strchr(q, '.') : NULL;
        if (!dot || (pre && ((size_t)(dot - q) != pl || strncmp(q, pre, pl) != 0))) {
            pre = NULL;
            break;
        }
        pre = q;
        pl = (size_t)(dot - q);
    }
    char pbuf[MF_EXPR_MAXNAME + 1];
    snprintf(pbuf, sizeof pbuf, "%.*s", (int)(pl < MF_EXPR_MAXNAME ? pl : 0), pre ? pre : "");
    const char *sn = m->sub_name ? m->sub_name(m, par, i) : NULL;
    if (sn && pre && strcmp(sn, pbuf) != 0)
        pre = NULL;
    subn[i] = clean_name(sn ? sn : pbuf, subn, i, "S", i);
    if (!subn[i])
        return -1;
    for (size_t j = 0; j < snx; j++) {
        const char *q = m->state_name ? m->state_name(m, par, ox + j) : NULL;
        if (!(xn[ox + j] = clean_name(q, xn + ox, j, "x", j)))
            return -1;
    }
    for (size_t j = 0; j < snu; j++) {
        const char *q = m->input_name ? m->input_name(m, par, ou + j) : NULL;
        if (q && pre)
            q += pl + 1;
        if (!(un[ou + j] = clean_name(q, un + ou, j, "u", j)))
            return -1;
    }
    for (size_t j = 0; j < sny; j++) {
        const char *q = m->output_name ? m->output_name(m, par, oy + j) : NULL;
        if (!(yn[oy + j] = clean_name(q, yn + oy, j, "y", j)))
            return -1;
    }
    return 0;
}

/* One "connect" line per input, from its source src[], with its offset
 * (c: u = L y + c; NULL: none). */
static void wr_connects(struct writer *w, const cosa_system *sys, const size_t *src,
                        const double *c, char **subn, char **un, char **yn)
{
    const size_t nsub = cosa_system_nsub(sys);
    for (size_t i = 0; i < nsub; i++) {
        size_t snu, ou;
        cosa_system_sub_dims(sys, i, NULL, &snu, NULL, NULL, &ou, NULL);
        for (size_t j = 0; j < snu; j++) {
            size_t y = src[ou + j], sy = 0, oy = 0, ny_s = 0;
            for (sy = 0; sy < nsub; sy++) {
                cosa_system_sub_dims(sys, sy, NULL, NULL, &ny_s, NULL, NULL, &oy);
                if (y >= oy && y < oy + ny_s)
                    break;
            }
            wr(w, "connect %s.%s -> %s.%s", subn[sy], yn[y], subn[i], un[ou + j]);
            if (c && c[ou + j] != 0.0) {
                wr(w, " offset ");
                wr_num(w, c[ou + j]);
            }
            wr(w, "\n");
        }
    }
}

static int text_numeric(const cosa_model *m, const double *par, const cosa_system *sys,
                        const double *x0, char **text, size_t *len)
{
    size_t nsub = cosa_system_nsub(sys), nx = cosa_system_nx(sys), nu = cosa_system_nu(sys),
           ny = cosa_system_ny(sys);
    /* the coupling must be a selection: one 1 per input row */
    size_t *src = malloc((nu + 1) * sizeof *src);
    if (!src)
        return -1;
    if (coupling_sources(sys, src) != 0) {
        free(src);
        return 1;
    }
    /* initial-state parameters that x0 entries copy (probed one at a time) */
    const char **pn = calloc(nx + 1, sizeof *pn);
    double *pp = malloc((m->nparam + 1) * sizeof *pp), *xp = malloc((nx + 1) * sizeof *xp);
    int ret = -1;
    FILE *f = NULL;
    char **names = NULL;
    if (!pn || !pp || !xp)
        goto done;
    initial_params(m, par, x0, nx, pn, pp, xp);
    /* names: subsystems from a common "SUB." prefix of their inputs */
    names = calloc(nsub + nx + nu + ny + 1, sizeof *names);
    if (!names)
        goto done;
    f = open_memstream(text, len);
    if (!f)
        goto done;
    struct writer w = {f, NULL, 0};
    char origin[160];
    snprintf(origin, sizeof origin, "written by cosa %s model-dump --model %s (numeric)",
             cosa_version(), m->name);
    wr_header(&w, m, origin);
    int any_model = 0;
    for (size_t k = 0; k < m->nparam; k++)
        if (m->params[k].kind == COSA_PARAM_MODEL) {
            if (!any_model)
                wr(&w, "\n# entries are numbers for these values:\n#");
            any_model = 1;
            wr(&w, " %s = ", m->params[k].name);
            wr_num(&w, par[k]);
        }
    wr(&w, "\n");
    for (size_t k = 0; k < m->nparam; k++)
        if (m->params[k].kind == COSA_PARAM_INITIAL)
            for (size_t i = 0; i < nx; i++)
                if (pn[i] == m->params[k].name)
                    wr_param(&w, m, k, par[k]);
    char **subn = names, **xn = names + nsub, **un = xn + nx, **yn = un + nu;
    for (size_t i = 0; i < nsub; i++) {
        size_t snx, snu, sny, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &snx, &snu, &sny, &ox, &ou, &oy);
        if (sub_names(m, par, sys, i, subn, xn, un, yn) != 0)
            goto done;
        wr(&w, "\nsubsystem %s\n", subn[i]);
        wr_names(&w, "states", xn + ox, snx);
        wr_names(&w, "inputs", un + ou, snu);
        wr_names(&w, "outputs", yn + oy, sny);
        struct num_ctx a = {cosa_system_A(sys), nx, ox, ox, NULL},
                       b = {cosa_system_B(sys), nx, ox, ou, NULL},
                       c = {cosa_system_C(sys), ny, oy, ox, NULL},
                       d = {cosa_system_D(sys), ny, oy, ou, NULL},
                       x = {x0, nx, ox, 0, pn};
        wr_block(&w, "A", snx, snx, num_cell, &a, 0);
        wr_block(&w, "B", snx, snu, num_cell, &b, 0);
        wr_block(&w, "C", sny, snx, num_cell, &c, 0);
        wr_block(&w, "D", sny, snu, num_cell, &d, 0);
        wr_block(&w, "x0", snx, 1, num_cell, &x, 1);
        wr(&w, "end\n");
    }
    wr(&w, "\n");
    wr_connects(&w, sys, src, cosa_model_file_input_offset(m), subn, un, yn);
    ret = w.err ? -1 : 0;
done:
    if (f && fclose(f) != 0)
        ret = -1;
    if (ret != 0 && f) {
        free(*text);
        *text = NULL;
    }
    if (names)
        for (size_t i = 0; i < nsub + nx + nu + ny; i++)
            free(names[i]);
    free(names);
    free(src);
    free(pn);
    free(pp);
    free(xp);
    return ret;
}

cosa_status cosa_model_dump(FILE *f, const cosa_model *m, const double *par)
{
    if (!f || !m || !m->create || !m->initial_state)
        return COSA_EINVAL;
    double *def = NULL;
    if (!par) {
        def = malloc((m->nparam + 1) * sizeof *def);
        if (!def)
            return COSA_ENOMEM;
        cosa_model_defaults(m, def);
        par = def;
    }
    cosa_system *sys = NULL;
    double *x0 = NULL;
    char *text = NULL;
    size_t len = 0;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < m->nparam; i++)
        if (!isfinite(par[i])) {
            st = COSA_ENONFINITE; /* a model file can only hold finite values */
            goto done;
        }
    if ((st = m->create(m, par, &sys)) != COSA_OK)
        goto done;
    x0 = malloc((cosa_system_nx(sys) + 1) * sizeof *x0);
    if (!x0) {
        st = COSA_ENOMEM;
        goto done;
    }
    if ((st = m->initial_state(m, par, x0)) != COSA_OK)
        goto done;
    for (size_t i = 0; i < cosa_system_nx(sys); i++)
        if (!isfinite(x0[i])) {
            st = COSA_ENONFINITE;
            goto done;
        }
    const mf_t *mf = mf_of(m);
    if (mf) {
        FILE *mem = open_memstream(&text, &len);
        if (!mem) {
            st = COSA_ENOMEM;
            goto done;
        }
        struct writer w = {mem, mf, 0};
        wr_file_model(&w, mf, par, sys, x0, "written by cosa model-dump");
        if (fclose(mem) != 0 || w.err) {
            st = COSA_ENOMEM;
            goto done;
        }
        if (!verify_text(text, len, m, par, sys, x0)) {
            st = COSA_EUNSUPPORTED; /* cannot happen: printing is exact */
            goto done;
        }
    } else {
        if (m->dump_template && text_template(m->dump_template, m, par, &text, &len) == 0 &&
            !verify_text(text, len, m, par, sys, x0)) {
            free(text);
            text = NULL;
        }
        if (!text) {
            int r = text_numeric(m, par, sys, x0, &text, &len);
            if (r != 0) {
                st = r > 0 ? COSA_EUNSUPPORTED : COSA_ENOMEM;
                goto done;
            }
            if (!verify_text(text, len, m, par, sys, x0)) {
                st = COSA_EUNSUPPORTED;
                goto done;
            }
        }
    }
    if (fwrite(text, 1, len, f) != len || fflush(f) != 0)
        st = COSA_EIO;
done:
    free(text);
    free(x0);
    free(def);
    cosa_system_free(sys);
    return st;
}
