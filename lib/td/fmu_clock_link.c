/* fmu_clock_link.c -- output clocks of one FMU driving triggered input
 * clocks of another (the co-simulation concepts, "Clock Support": an input
 * clock that depends on a triggered output clock of another FMU cannot be
 * predicted by the importer; it ticks when the output clock is seen active
 * in Event Mode, at the same time). */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Index of the clock called name in m, or -1. */
static long clock_named(const cosa_fmu *m, const char *name)
{
    for (size_t i = 0; name && i < m->desc.nclock; i++)
        if (strcmp(m->desc.clocks[i].name, name) == 0)
            return (long)i;
    return -1;
}

cosa_status cosa_unit_fmu_clock_link(cosa_unit *from, const char *out_clock, cosa_unit *to,
                                     const char *in_clock)
{
    if (!cosa_unit_fmu_name(from) || !cosa_unit_fmu_name(to))
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(from), *g = cosa_unit_impl(to);
    const long o = clock_named(f->fmu, out_clock), i = clock_named(g->fmu, in_clock);
    if (o < 0 || i < 0)
        return COSA_EPARAM;
    const cosa_fmu_clock *ko = &f->fmu->desc.clocks[o], *ki = &g->fmu->desc.clocks[i];
    if (ko->causality != COSA_FMU_OUTPUT || ki->causality != COSA_FMU_INPUT ||
        ki->interval_variability != COSA_FMU_CLOCK_TRIGGERED)
        return COSA_EINVAL;
    if (!g->driven && !(g->driven = calloc(g->fmu->desc.nclock, sizeof *g->driven)))
        return COSA_ENOMEM;
    fmu_clock_link *l = realloc(f->links, (f->nlinks + 1) * sizeof *l);
    if (!l)
        return COSA_ENOMEM;
    f->links = l;
    f->links[f->nlinks++] = (fmu_clock_link){to, (size_t)o, (size_t)i};
    g->driven[i]++;
    return COSA_OK;
}

unsigned cosa_unit_fmu_clock_driven(const cosa_unit *u, const char *in_clock)
{
    if (!cosa_unit_fmu_name(u))
        return 0;
    const fmu_unit *g = cosa_unit_impl(u);
    const long i = clock_named(g->fmu, in_clock);
    return i >= 0 && g->driven ? g->driven[i] : 0;
}

void fmu_clock_links_fire(cosa_unit *u, double t)
{
    fmu_unit *f = cosa_unit_impl(u);
    for (size_t k = 0; k < f->nlinks; k++) {
        const fmu_clock_link *l = &f->links[k];
        fmu_unit *g = cosa_unit_impl(l->to);
        if (!(f->clk.at && f->clk.at[l->out] == t) || !g->clk.at || l->in >= g->clk.n)
            continue;
        g->clk.at[l->in] = t;
        cosa_unit_set_next_event(l->to, t);
    }
}
