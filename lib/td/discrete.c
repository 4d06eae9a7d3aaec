/* discrete.c -- the discrete signals of a unit set: Integer, Boolean and
 * Enumeration outputs of FMU units copied to inputs of FMU units at every
 * communication point and held in between (doc/ssp.md "Discrete
 * signals").  They are no part of the coupling u = L y + c: the master
 * calls cosa_unitset_discrete_exchange after it read the outputs at a
 * communication point (init, commit), before the next step; an iterated
 * scheme commits once per macro step, so the copy happens once there.
 * Float64/Real outputs of variability discrete or constant are discrete
 * signals too (gain * value + offset): into a continuous input they are
 * that input's row of the affine term c (held until the next point), into
 * a discrete input they are set directly. */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"
#include "td/unitset_impl.h"

#include <stdio.h>
#include <stdlib.h>

struct td_link {
    size_t from, to;
    fmu_dport out, in;
    long row;            /* Float64 into a continuous input: its row of c, else -1 */
    double gain, offset; /* Float64: the input is gain * output + offset */
};

struct td_discrete {
    struct td_link *links;
    long long *val; /* n: the values read, then set */
    double *rval;   /* n: the Float64 values read, then set */
    size_t n;
};

void td_discrete_free(struct td_discrete *d)
{
    if (!d)
        return;
    free(d->links);
    free(d->val);
    free(d->rval);
    free(d);
}

static const char *class_name(int c)
{
    return c == 'i' ? "Integer" : c == 'b' ? "Boolean" : "Enumeration";
}

/* The ports of link l (a Float64 one if out is a Float64/Real variable). */
static cosa_status link_ports(cosa_unitset *set, struct td_link *l, const char *out,
                              const char *in, char *why, size_t whysize)
{
    cosa_unit *a = cosa_unitset_unit(set, l->from), *b = cosa_unitset_unit(set, l->to);
    if (fmu_dreal_is_real(a, out) || fmu_dreal_is_real(b, in)) {
        long dummy;
        cosa_status st = fmu_dreal_port(a, out, 0, &l->out, &dummy, why, whysize);
        if (st == COSA_OK)
            st = fmu_dreal_port(b, in, 1, &l->in, &l->row, why, whysize);
        if (st != COSA_OK || l->row < 0)
            return st;
        size_t ox, ou, oy;
        if ((st = cosa_unitset_offsets(set, l->to, &ox, &ou, &oy)) != COSA_OK)
            return st;
        l->row += (long)ou;
        return cosa_unitset_input_offset_rw(set) ? COSA_OK : COSA_ENOMEM;
    }
    if (l->gain != 1.0 || l->offset != 0.0) {
        snprintf(why, whysize, "a transformation on the discrete signal %s -> %s: not "
                 "supported (Integer, Boolean and Enumeration signals are copied as they are)",
                 out, in);
        return COSA_EUNSUPPORTED;
    }
    cosa_status st = fmu_discrete_port(a, out, 0, &l->out, why, whysize);
    if (st == COSA_OK)
        st = fmu_discrete_port(b, in, 1, &l->in, why, whysize);
    if (st != COSA_OK)
        return st;
    const int ints = (l->out.cls == 'i' || l->out.cls == 'e') && (l->in.cls == 'i' || l->in.cls == 'e');
    if (l->out.cls != l->in.cls && !ints) { /* Integer and Enumeration join: both integers */
        snprintf(why, whysize, "%s output %s.%s -> %s input %s.%s: type mismatch (a discrete "
                 "signal joins an output and an input of the same type)",
                 class_name(l->out.cls), cosa_unit_fmu_name(a), out, class_name(l->in.cls),
                 cosa_unit_fmu_name(b), in);
        return COSA_EUNSUPPORTED;
    }
    return COSA_OK;
}

cosa_status cosa_unitset_discrete_link(cosa_unitset *set, size_t from, const char *out,
                                       size_t to, const char *in, char *why, size_t whysize)
{
    return cosa_unitset_discrete_link_affine(set, from, out, to, in, 1.0, 0.0, why, whysize);
}

cosa_status cosa_unitset_discrete_link_affine(cosa_unitset *set, size_t from, const char *out,
                                              size_t to, const char *in, double gain,
                                              double offset, char *why, size_t whysize)
{
    if (!set || !out || !in || !why)
        return COSA_EINVAL;
    struct td_link l = {from, to, {0, 0, 0}, {0, 0, 0}, -1, gain, offset};
    cosa_unit *a = cosa_unitset_unit(set, from), *b = cosa_unitset_unit(set, to);
    if (!a || !b)
        return COSA_EINVAL;
    if (!cosa_unit_fmu_name(a) || !cosa_unit_fmu_name(b)) {
        snprintf(why, whysize, "discrete signals join FMU units only");
        return COSA_EINVAL;
    }
    cosa_status st = link_ports(set, &l, out, in, why, whysize);
    if (st != COSA_OK)
        return st;
    struct td_discrete **slot = cosa_unitset_discrete_slot(set);
    if (!*slot && !(*slot = calloc(1, sizeof **slot)))
        return COSA_ENOMEM;
    struct td_discrete *d = *slot;
    struct td_link *nl = realloc(d->links, (d->n + 1) * sizeof *nl);
    if (!nl)
        return COSA_ENOMEM;
    d->links = nl;
    long long *nv = realloc(d->val, (d->n + 1) * sizeof *nv);
    if (!nv)
        return COSA_ENOMEM;
    d->val = nv;
    double *rv = realloc(d->rval, (d->n + 1) * sizeof *rv);
    if (!rv)
        return COSA_ENOMEM;
    d->rval = rv;
    d->links[d->n++] = l;
    return COSA_OK;
}

size_t cosa_unitset_ndiscrete(const cosa_unitset *set)
{
    struct td_discrete *const *slot =
        set ? cosa_unitset_discrete_slot((cosa_unitset *)set) : NULL;
    return slot && *slot ? (*slot)->n : 0;
}

/* Read link k's output (into d->val or d->rval). */
static cosa_status link_get(cosa_unitset *set, struct td_discrete *d, size_t k)
{
    const struct td_link *l = &d->links[k];
    cosa_unit *a = cosa_unitset_unit(set, l->from);
    if (l->out.kind != 'r')
        return fmu_discrete_get(a, &l->out, &d->val[k]);
    cosa_status st = fmu_dreal_get(a, &l->out, &d->rval[k]);
    d->rval[k] = l->gain * d->rval[k] + l->offset;
    return st;
}

/* Set link k's input: a Float64 into a continuous input is its row of the
 * affine term c, which the next step's coupling u = L y + c carries. */
static cosa_status link_set(cosa_unitset *set, struct td_discrete *d, size_t k)
{
    const struct td_link *l = &d->links[k];
    cosa_unit *b = cosa_unitset_unit(set, l->to);
    if (l->in.kind != 'r')
        return fmu_discrete_set(b, &l->in, d->val[k]);
    if (l->row < 0)
        return fmu_dreal_set(b, &l->in, d->rval[k]);
    double *c = cosa_unitset_input_offset_rw(set);
    if (!c)
        return COSA_ENOMEM;
    c[l->row] = d->rval[k];
    return COSA_OK;
}

cosa_status cosa_unitset_discrete_exchange(cosa_unitset *set, size_t *failed)
{
    struct td_discrete *d = set ? *cosa_unitset_discrete_slot(set) : NULL;
    if (!d)
        return set ? COSA_OK : COSA_EINVAL;
    cosa_status st = COSA_OK;
    for (size_t k = 0; k < d->n && st == COSA_OK; k++) /* every value read first */
        if ((st = link_get(set, d, k)) != COSA_OK && failed)
            *failed = d->links[k].from;
    for (size_t k = 0; k < d->n && st == COSA_OK; k++)
        if ((st = link_set(set, d, k)) != COSA_OK && failed)
            *failed = d->links[k].to;
    return st;
}
