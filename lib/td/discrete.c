/* discrete.c -- the discrete signals of a unit set: Integer, Boolean and
 * Enumeration outputs of FMU units copied to inputs of FMU units at every
 * communication point and held in between (doc/ssp.md "Discrete
 * signals").  They are no part of the coupling u = L y + c: the master
 * calls cosa_unitset_discrete_exchange after it read the outputs at a
 * communication point (init, commit), before the next step; an iterated
 * scheme commits once per macro step, so the copy happens once there. */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"
#include "td/unitset_impl.h"

#include <stdio.h>
#include <stdlib.h>

struct td_link {
    size_t from, to;
    fmu_dport out, in;
};

struct td_discrete {
    struct td_link *links;
    long long *val; /* n: the values read, then set */
    size_t n;
};

void td_discrete_free(struct td_discrete *d)
{
    if (!d)
        return;
    free(d->links);
    free(d->val);
    free(d);
}

static const char *class_name(int c)
{
    return c == 'i' ? "Integer" : c == 'b' ? "Boolean" : "Enumeration";
}

cosa_status cosa_unitset_discrete_link(cosa_unitset *set, size_t from, const char *out,
                                       size_t to, const char *in, char *why, size_t whysize)
{
    if (!set || !out || !in || !why)
        return COSA_EINVAL;
    struct td_link l = {from, to, {0, 0, 0}, {0, 0, 0}};
    cosa_unit *a = cosa_unitset_unit(set, from), *b = cosa_unitset_unit(set, to);
    if (!a || !b)
        return COSA_EINVAL;
    if (!cosa_unit_fmu_name(a) || !cosa_unit_fmu_name(b)) {
        snprintf(why, whysize, "discrete signals join FMU units only");
        return COSA_EINVAL;
    }
    cosa_status st = fmu_discrete_port(a, out, 0, &l.out, why, whysize);
    if (st == COSA_OK)
        st = fmu_discrete_port(b, in, 1, &l.in, why, whysize);
    if (st != COSA_OK)
        return st;
    const int ints = (l.out.cls == 'i' || l.out.cls == 'e') && (l.in.cls == 'i' || l.in.cls == 'e');
    if (l.out.cls != l.in.cls && !ints) { /* Integer and Enumeration join: both integers */
        snprintf(why, whysize, "%s output %s.%s -> %s input %s.%s: type mismatch (a discrete "
                 "signal joins an output and an input of the same type)",
                 class_name(l.out.cls), cosa_unit_fmu_name(a), out, class_name(l.in.cls),
                 cosa_unit_fmu_name(b), in);
        return COSA_EUNSUPPORTED;
    }
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
    d->links[d->n++] = l;
    return COSA_OK;
}

size_t cosa_unitset_ndiscrete(const cosa_unitset *set)
{
    struct td_discrete *const *slot =
        set ? cosa_unitset_discrete_slot((cosa_unitset *)set) : NULL;
    return slot && *slot ? (*slot)->n : 0;
}

cosa_status cosa_unitset_discrete_exchange(cosa_unitset *set, size_t *failed)
{
    struct td_discrete *d = set ? *cosa_unitset_discrete_slot(set) : NULL;
    if (!d)
        return set ? COSA_OK : COSA_EINVAL;
    cosa_status st = COSA_OK;
    for (size_t k = 0; k < d->n && st == COSA_OK; k++) /* every value read first */
        if ((st = fmu_discrete_get(cosa_unitset_unit(set, d->links[k].from), &d->links[k].out,
                                   &d->val[k])) != COSA_OK && failed)
            *failed = d->links[k].from;
    for (size_t k = 0; k < d->n && st == COSA_OK; k++)
        if ((st = fmu_discrete_set(cosa_unitset_unit(set, d->links[k].to), &d->links[k].in,
                                   d->val[k])) != COSA_OK && failed)
            *failed = d->links[k].to;
    return st;
}
