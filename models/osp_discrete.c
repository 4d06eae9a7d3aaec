/* osp_discrete.c -- OSP system structures (osp_impl.h): a VariableConnection
 * of two Integer, Boolean or Enumeration variables is a discrete signal,
 * wired by the FMUs' causalities as the Real ones are, copied at every
 * communication point and held in between (doc/ssp.md "Discrete signals",
 * doc/osp.md); no part of L or Phi.  So is a connection from a Float64
 * output of variability constant, fixed or tunable (FMI 3.0 also discrete)
 * to a Float64 input (doc/ssp.md "Float64 outputs that are not
 * continuous"). */
#include "osp_impl.h"

#include <stdio.h>
#include <string.h>

static const cosa_fmu_other *other_of(const struct mf_sub *sub, const char *name)
{
    for (size_t i = 0; sub->fh && i < cosa_fmu_nother(sub->fh); i++)
        if (strcmp(cosa_fmu_other_at(sub->fh, i)->name, name) == 0)
            return cosa_fmu_other_at(sub->fh, i);
    return NULL;
}

/* 1 if variable name of sub is a Float64/Real output that is no
 * continuous output of the model (variability constant, fixed or tunable;
 * FMI 3.0 also discrete: FMI 2.0's discrete ones are outputs of an OSP
 * system's FMUs, sampled as libcosim does). */
static int dreal_out(const struct mf_sub *sub, const char *name)
{
    return ssp_dreal_var(sub, name, 0);
}

/* A Float64 output of such a variability joined to a Float64 input: a
 * discrete connection (copied at every base step, held), added; 1 if so. */
static int dreal_conn(struct ssp *s, long ia, const char *va, long ib, const char *vb,
                      size_t line)
{
    const mf_t *mf = s->p->mf;
    const struct mf_sub *a = &mf->subs[ia], *b = &mf->subs[ib];
    const int ao = dreal_out(a, va), bo = !ao && dreal_out(b, vb);
    if (!ao && !bo)
        return 0;
    if ((ao ? mf_discrete_add(s->p->mf, (size_t)ia, va, (size_t)ib, vb, line)
            : mf_discrete_add(s->p->mf, (size_t)ib, vb, (size_t)ia, va, line)) != COSA_OK)
        mf_nomem(s->p);
    return 1;
}

int osp_discrete_conn(struct ssp *s, const char *sa, const char *va, const char *sb,
                      const char *vb, size_t line)
{
    if (!sa || !va || !sb || !vb)
        return 0; /* var_end reports it */
    const long ia = osp_sub_of(s, sa, line), ib = ia < 0 ? -1 : osp_sub_of(s, sb, line);
    if (ia < 0 || ib < 0)
        return 1;
    const mf_t *mf = s->p->mf;
    const cosa_fmu_other *a = other_of(&mf->subs[ia], va), *b = other_of(&mf->subs[ib], vb);
    const int ca = a ? cosa_fmu_discrete_class(a->type) : 0;
    const int cb = b ? cosa_fmu_discrete_class(b->type) : 0;
    if (!ca && !cb)
        return dreal_conn(s, ia, va, ib, vb, line); /* else Real ones: var_conn's */
    const int ints = (ca == 'i' || ca == 'e') && (cb == 'i' || cb == 'e');
    if ((ca != cb && !ints) || !a || !b) { /* Integer and Enumeration join: both integers */
        mf_perr(s->p, COSA_EUNSUPPORTED, line, "connection %.80s.%.120s -- %.80s.%.120s joins "
                "%s to %s: type mismatch: not supported (cosa converts no types)", sa, va, sb,
                vb, a ? a->type : "a Real variable or none", b ? b->type : "a Real variable or none");
        return 1;
    }
    const int ao = a->causality == COSA_FMU_OUTPUT, bo = b->causality == COSA_FMU_OUTPUT;
    const int ai = a->causality == COSA_FMU_INPUT, bi = b->causality == COSA_FMU_INPUT;
    if (!((ao && bi) || (ai && bo))) {
        mf_perr(s->p, COSA_ESYNTAX, line, "connection %.80s.%.120s -- %.80s.%.120s: a discrete "
                "connection joins an output of its FMU to an input", sa, va, sb, vb);
        return 1;
    }
    if ((ao ? mf_discrete_add(s->p->mf, (size_t)ia, va, (size_t)ib, vb, line)
            : mf_discrete_add(s->p->mf, (size_t)ib, vb, (size_t)ia, va, line)) != COSA_OK)
        mf_nomem(s->p);
    return 1;
}
