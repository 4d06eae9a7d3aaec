/* modelfile_hold.c -- inputs held at a constant for the whole run
 * (modelfile_impl.h, doc/ssp.md "Open systems", doc/model-files.md).
 *
 * A held input is a row of the coupling u = L y + c with no entry in L and
 * c = its value: the affine term a connection's offset already is, with no
 * source.  The run holds it at that value; Phi, about deviations from the
 * operating point, does not see it (the offsets' note).  Model files write
 * one as `hold SUB.IN = VALUE`; the SSP importer makes one of an FMU input
 * that no connection feeds (FMI: an unconnected input keeps its start
 * value) or whose value a parameter binding gives. */
#include "modelfile_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cosa_status mf_hold_add(mf_t *mf, char *dst, char *in, size_t line, double value, int how)
{
    struct mf_hold *h = realloc(mf->holds, (mf->nhold + 1) * sizeof *h);
    if (!h) {
        free(dst);
        free(in);
        return COSA_ENOMEM;
    }
    mf->holds = h;
    h[mf->nhold++] = (struct mf_hold){dst, in, line, value, how};
    return COSA_OK;
}

long mf_hold_find(const mf_t *mf, const char *dst, const char *in)
{
    for (size_t k = 0; k < mf->nhold; k++)
        if (strcmp(mf->holds[k].dst, dst) == 0 && strcmp(mf->holds[k].in, in) == 0)
            return (long)k;
    return -1;
}

static const struct mf_sub *sub_named(const mf_t *mf, const char *name)
{
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0)
            return &mf->subs[i];
    return NULL;
}

/* The note's list: "I.Fk = 3 (bound), II.v1 = 0 (start value)". */
static void note_list(struct mf_parser *p)
{
    static const char *const how[] = {"hold", "the FMU's start value", "bound"};
    mf_t *mf = p->mf;
    size_t len = 1;
    for (size_t k = 0; k < mf->nhold; k++)
        len += strlen(mf->holds[k].dst) + strlen(mf->holds[k].in) + 64;
    free(mf->held_note);
    if (!(mf->held_note = malloc(len)))
        return mf_nomem(p);
    size_t at = 0;
    for (size_t k = 0; k < mf->nhold; k++) {
        const struct mf_hold *h = &mf->holds[k];
        at += (size_t)snprintf(mf->held_note + at, len - at, "%s%s.%s = %.15g (%s)",
                               k ? ", " : "", h->dst, h->in, h->value, how[h->how]);
    }
}

void mf_resolve_holds(struct mf_parser *p, size_t *src_line)
{
    mf_t *mf = p->mf;
    for (size_t k = 0; k < mf->nhold && p->st == COSA_OK; k++) {
        const struct mf_hold *h = &mf->holds[k];
        const struct mf_sub *s = sub_named(mf, h->dst);
        const long in = s ? mf_find_name(s->names[DECL_U], s->n[DECL_U], h->in) : -1;
        if (!s) {
            mf_perr(p, COSA_ESYNTAX, h->line, "hold: unknown subsystem '%s'", h->dst);
            break;
        }
        if (in < 0) {
            mf_perr(p, COSA_ESYNTAX, h->line, "hold: subsystem '%s' has no input '%s'", h->dst,
                    h->in);
            break;
        }
        const size_t gi = s->ou + (size_t)in;
        if (src_line[gi]) {
            mf_perr(p, COSA_ESYNTAX, h->line, "input %s.%s is held at a value and has a source "
                    "(line %zu): give one of them", h->dst, h->in, src_line[gi]);
            break;
        }
        src_line[gi] = h->line ? h->line : 1;
        mf->c[gi] = h->value; /* u = L y + c with no L entry: u = c */
    }
    if (p->st == COSA_OK && mf->nhold)
        note_list(p);
}

void mf_holds_free(mf_t *mf)
{
    for (size_t k = 0; k < mf->nhold; k++) {
        free(mf->holds[k].dst);
        free(mf->holds[k].in);
    }
    free(mf->holds);
    free(mf->held_note);
    mf->holds = NULL;
    mf->held_note = NULL;
    mf->nhold = 0;
}

const char *cosa_model_file_held_inputs(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    return mf ? mf->held_note : NULL;
}
