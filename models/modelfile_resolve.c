/* modelfile_resolve.c -- after the whole model file is read: names in
 * expressions become parameter/let slots, subsystems get their offsets in
 * the stacked system, connections become L (u = L y, eq 4), and every entry
 * must be finite at the default parameter values. */
#include "modelfile_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

long mf_find_name(char *const *names, size_t n, const char *x)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], x) == 0)
            return (long)i;
    return -1;
}

static struct mf_sub *find_sub(mf_t *mf, const char *name)
{
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0)
            return &mf->subs[i];
    return NULL;
}

/* Names in expressions -> parameter / let slots; a let may use only the
 * lets before it. */
static void resolve_names(struct mf_parser *p, size_t eof_line)
{
    mf_t *mf = p->mf;
    uint32_t *map = malloc((mf->nsym ? mf->nsym : 1) * sizeof *map);
    if (!map)
        return mf_nomem(p);
    for (size_t i = 0; i < mf->nsym; i++) {
        const char *n = mf->syms[i].name;
        long slot = -1;
        for (size_t j = 0; j < mf->nparam && slot < 0; j++)
            if (strcmp(mf->params[j].name, n) == 0)
                slot = (long)j;
        for (size_t j = 0; j < mf->nlet && slot < 0; j++)
            if (strcmp(mf->lets[j].name, n) == 0)
                slot = (long)(mf->nparam + j);
        if (slot < 0) {
            mf_perr(p, COSA_EPARAM, mf->syms[i].line, "unknown parameter '%s' (declare it with "
                    "'param %s = VALUE')", n, n);
            free(map);
            return;
        }
        map[i] = (uint32_t)slot;
    }
    cosa_status st = mf_expr_pool_remap(mf->pool, map, mf->nsym);
    free(map);
    if (st != COSA_OK) {
        mf_perr(p, st, eof_line, "internal error: unresolved name");
        return;
    }
    for (size_t k = 0; k < mf->nlet; k++) {
        long v = mf_expr_max_var(mf->pool, &mf->lets[k].e);
        if (v >= (long)(mf->nparam + k)) {
            mf_perr(p, COSA_ESYNTAX, mf->lets[k].line, "let '%s' uses '%s', which is not defined "
                    "before it", mf->lets[k].name, mf->lets[v - (long)mf->nparam].name);
            return;
        }
    }
}

/* Offsets, totals, global names; the blocks a subsystem left out (zero). */
static void resolve_layout(struct mf_parser *p, size_t eof_line)
{
    mf_t *mf = p->mf;
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        s->ox = nx;
        s->ou = nu;
        s->oy = ny;
        nx += s->n[DECL_X];
        nu += s->n[DECL_U];
        ny += s->n[DECL_Y];
        size_t tot = 0;
        for (int k = 0; k < BX0; k++) {
            size_t r, c;
            mf_block_dims(s, k, &r, &c);
            tot += r * c;
        }
        if (tot > mf->blkmax)
            mf->blkmax = tot;
        if (!s->b[BX0].given && mf_alloc_block(&s->b[BX0], s->n[DECL_X], 1, 0) != COSA_OK)
            return mf_nomem(p);
        for (int k = 0; k < BX0; k++)
            if (!s->b[k].e) {
                size_t r, c;
                mf_block_dims(s, k, &r, &c);
                if (mf_alloc_block(&s->b[k], r, c, 0) != COSA_OK)
                    return mf_nomem(p);
            }
    }
    if (nx == 0 && !mf->osp) { /* (an OSP system may hide its FMUs' states) */
        mf_perr(p, COSA_ESYNTAX, eof_line, "the model has no states");
        return;
    }
    if ((nu && ny > SIZE_MAX / sizeof(double) / nu)) {
        mf_perr(p, COSA_ESYNTAX, eof_line, "too many inputs and outputs");
        return;
    }
    mf->nx = nx;
    mf->nu = nu;
    mf->ny = ny;
    mf->L = calloc(nu * ny + 1, sizeof *mf->L);
    mf->c = calloc(nu + 1, sizeof *mf->c);
    mf->uq = calloc(nu + 1, sizeof *mf->uq);
    mf->xg = calloc(nx + 1, sizeof *mf->xg);
    mf->yg = calloc(ny + 1, sizeof *mf->yg);
    if (!mf->L || !mf->c || !mf->uq || !mf->xg || !mf->yg)
        return mf_nomem(p);
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        for (size_t j = 0; j < s->n[DECL_X]; j++)
            mf->xg[s->ox + j] = s->names[DECL_X][j];
        for (size_t j = 0; j < s->n[DECL_Y]; j++)
            mf->yg[s->oy + j] = s->names[DECL_Y][j];
        for (size_t j = 0; j < s->n[DECL_U]; j++) {
            size_t l1 = strlen(s->name), l2 = strlen(s->names[DECL_U][j]);
            char *q = malloc(l1 + l2 + 2);
            if (!q)
                return mf_nomem(p);
            memcpy(q, s->name, l1);
            q[l1] = '.';
            memcpy(q + l1 + 1, s->names[DECL_U][j], l2 + 1);
            mf->uq[s->ou + j] = q;
        }
    }
}

/* 1 if input j of FMU subsystem s may stay unconnected: in an OSP system
 * (libcosim leaves such an input at its start value) when that start value
 * is 0 or absent -- u = L y then gives it the same 0. */
static int osp_open_input(const mf_t *mf, const struct mf_sub *s, size_t j)
{
    if (!mf->osp || !s->fh || j >= cosa_fmu_ninput(s->fh))
        return 0;
    const cosa_fmu_var *v = cosa_fmu_var_at(s->fh, cosa_fmu_input(s->fh, j));
    return v && (!v->has_start || v->start == 0.0);
}

/* 1 if every connection before c into the input of c is an OSP Sum's
 * source too (gi: that input; their L entries then add up). */
static int L_sum(const mf_t *mf, size_t c, size_t gi)
{
    (void)gi;
    const struct mf_conn *cn = &mf->conns[c];
    for (size_t k = 0; k < c; k++) {
        const struct mf_conn *o = &mf->conns[k];
        if (strcmp(o->dst, cn->dst) == 0 && strcmp(o->in, cn->in) == 0 && !o->sum)
            return 0;
    }
    return 1;
}

/* Connections -> L: every input exactly one source (an OSP Sum: several). */
static void resolve_connections(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    const size_t nu = mf->nu;
    size_t *src_line = calloc(nu + 1, sizeof *src_line);
    if (!src_line)
        return mf_nomem(p);
    for (size_t c = 0; c < mf->nconn && p->st == COSA_OK; c++) {
        const struct mf_conn *cn = &mf->conns[c];
        struct mf_sub *a = find_sub(mf, cn->src), *b = find_sub(mf, cn->dst);
        long o = a ? mf_find_name(a->names[DECL_Y], a->n[DECL_Y], cn->out) : -1;
        long in = b ? mf_find_name(b->names[DECL_U], b->n[DECL_U], cn->in) : -1;
        if (!a || !b)
            mf_perr(p, COSA_ESYNTAX, cn->line, "connect: unknown subsystem '%s'",
                    a ? cn->dst : cn->src);
        else if (o < 0)
            mf_perr(p, COSA_ESYNTAX, cn->line, "connect: subsystem '%s' has no output '%s'%s",
                    a->name, cn->out,
                    mf_find_name(a->names[DECL_U], a->n[DECL_U], cn->out) >= 0
                        ? " (it is an input; write OUTPUT -> INPUT)" : "");
        else if (in < 0)
            mf_perr(p, COSA_ESYNTAX, cn->line, "connect: subsystem '%s' has no input '%s'%s",
                    b->name, cn->in,
                    mf_find_name(b->names[DECL_Y], b->n[DECL_Y], cn->in) >= 0
                        ? " (it is an output; write OUTPUT -> INPUT)" : "");
        else {
            size_t gi = b->ou + (size_t)in, go = a->oy + (size_t)o;
            if (src_line[gi] && cn->sum && L_sum(mf, c, gi)) {
                mf->L[gi + go * nu] += cn->gain; /* an OSP Sum: the sources add up */
                mf->c[gi] += cn->offset;
                continue;
            }
            if (src_line[gi])
                mf_perr(p, COSA_ESYNTAX, cn->line,
                        "input %s.%s has two sources (lines %zu and %zu)", b->name, cn->in,
                        src_line[gi], cn->line);
            src_line[gi] = cn->line;
            mf->L[gi + go * nu] = cn->gain;
            mf->c[gi] = cn->offset;
        }
    }
    if (p->st == COSA_OK)
        mf_resolve_holds(p, src_line); /* inputs held constant: u = c */
    for (size_t i = 0; i < mf->nsub && p->st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        for (size_t j = 0; j < s->n[DECL_U] && p->st == COSA_OK; j++) {
            const int dfed = mf_discrete_feeds(mf, i, s->names[DECL_U][j]); /* Float64 held */
            if (dfed && src_line[s->ou + j])
                mf_perr(p, COSA_ESYNTAX, src_line[s->ou + j], "input %s.%s has two sources (a "
                        "discrete Float64 signal and line %zu)", s->name, s->names[DECL_U][j],
                        src_line[s->ou + j]);
            else if (!dfed && !src_line[s->ou + j] && !osp_open_input(mf, s, j)) {
                const char *in = s->names[DECL_U][j];
                mf_perr(p, COSA_ESYNTAX, s->decl_line[DECL_U], "input %s.%s has no source (add "
                        "'connect SUBSYSTEM.OUTPUT -> %s.%s' or 'hold %s.%s = VALUE')%s",
                        s->name, in, s->name, in, s->name, in,
                        mf->osp ? " (an OSP system leaves an input unconnected only when its "
                                  "start value is 0)" : "");
                break;
            }
        }
    }
    free(src_line);
}

/* The defaults must lie in the declared ranges, and every entry must be
 * finite at the default parameter values. */
static void check_defaults(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    const cosa_model view = {.name = mf->model.name, .nparam = mf->nparam, .params = mf->params};
    double *def0 = malloc((mf->nparam + 1) * sizeof *def0);
    if (!def0)
        return mf_nomem(p);
    for (size_t i = 0; i < mf->nparam; i++)
        def0[i] = mf->params[i].value;
    for (size_t i = 0; i < mf->nparam && p->st == COSA_OK; i++) {
        char msg[256];
        if (cosa_param_check(&view, i, def0, def0[i], msg, sizeof msg) != COSA_OK)
            mf_perr(p, COSA_EPARAM, mf->param_line[i], "default of '%s' outside its range: %s",
                    mf->params[i].name, msg);
    }
    free(def0);
    if (p->st != COSA_OK)
        return;
    /* every entry must be finite at the default parameter values */
    double *vals = malloc((mf->nparam + mf->nlet + 1) * sizeof *vals);
    if (!vals)
        return mf_nomem(p);
    double *def = malloc((mf->nparam + 1) * sizeof *def);
    if (!def) {
        free(vals);
        return mf_nomem(p);
    }
    for (size_t i = 0; i < mf->nparam; i++)
        def[i] = mf->params[i].value;
    mf_eval_vals(mf, def, vals);
    free(def);
    for (size_t k = 0; k < mf->nlet && p->st == COSA_OK; k++)
        if (!isfinite(vals[mf->nparam + k]))
            mf_perr(p, COSA_ENONFINITE, mf->lets[k].line, "let '%s' is not finite (%g) at the "
                    "default parameter values", mf->lets[k].name, vals[mf->nparam + k]);
    for (size_t i = 0; i < mf->nsub && p->st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        for (int k = 0; k < NBLK && p->st == COSA_OK; k++) {
            size_t r, c;
            mf_block_dims(s, k, &r, &c);
            for (size_t j = 0; j < r * c; j++) {
                const mf_expr *e = &s->b[k].e[j];
                double v = mf_expr_eval(mf->pool, e, vals);
                if (!isfinite(v)) {
                    size_t line = e->len ? e->line : s->b[k].line;
                    if (k == BX0)
                        mf_perr(p, COSA_ENONFINITE, line, "x0[%zu] of subsystem '%s' is not "
                                "finite (%g) at the default parameter values", j + 1, s->name, v);
                    else
                        mf_perr(p, COSA_ENONFINITE, line, "%s[%zu,%zu] of subsystem '%s' is not "
                                "finite (%g) at the default parameter values", mf_blk_name[k],
                                j % r + 1, j / r + 1, s->name, v);
                    break;
                }
            }
        }
    }
    free(vals);
}

void mf_resolve(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    size_t eof_line = p->last_line ? p->last_line : 1;
    if (p->cur) {
        mf_perr(p, COSA_ESYNTAX, eof_line, "end of file inside subsystem '%s' (line %zu): "
                "missing 'end' (file truncated?)", p->cur->name, p->cur->line);
        return;
    }
    if (mf->nsub == 0) {
        mf_perr(p, COSA_ESYNTAX, eof_line, "no subsystem defined (empty or truncated file?)");
        return;
    }
    resolve_names(p, eof_line);
    if (p->st == COSA_OK)
        resolve_layout(p, eof_line);
    if (p->st == COSA_OK)
        resolve_connections(p);
    if (p->st == COSA_OK)
        mf_resolve_clocks(p);
    if (p->st == COSA_OK)
        check_defaults(p);
}
