/* modelfile_clock.c -- the statement `connect clock S.OUT -> T.IN [, U.IN
 * ...]` of model files (README "Clocks"): an output clock of the FMU
 * subsystem S drives a triggered input clock of the FMU subsystem T (the
 * co-simulation concepts' "Clock Support": such an input clock cannot be
 * predicted by the importer; it ticks when the output clock is seen active
 * in S's Event Mode, at the same time).  Checked when the file is read,
 * against the FMUs the file keeps open; applied to the units by
 * cosa_model_units_create (models/unitset_build.c) through
 * cosa_unit_fmu_clock_link. */
#include "modelfile_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cosa_status mf_clock_link_add(mf_t *mf, char *src, char *out, char *dst, char *in, size_t line)
{
    struct mf_clock_link *l = realloc(mf->clks, (mf->nclk + 1) * sizeof *l);
    if (!l) {
        free(src);
        free(out);
        free(dst);
        free(in);
        return COSA_ENOMEM;
    }
    mf->clks = l;
    mf->clks[mf->nclk++] = (struct mf_clock_link){src, out, dst, in, line, 0, 0, 0, 0};
    return COSA_OK;
}

void mf_clocks_free(mf_t *mf)
{
    for (size_t i = 0; i < mf->nclk; i++) {
        free(mf->clks[i].src);
        free(mf->clks[i].out);
        free(mf->clks[i].dst);
        free(mf->clks[i].in);
    }
    free(mf->clks);
    mf->clks = NULL;
    mf->nclk = 0;
}

/* Index of the clock of fmu written as name (its model-file identifier:
 * other characters than letters, digits and '_' become '_'), or -1; -2
 * when out of memory. */
static long clock_of(const cosa_fmu *fmu, const char *name)
{
    for (size_t k = 0; k < cosa_fmu_nclock(fmu); k++) {
        char *id = mf_ident_of(cosa_fmu_clock_at(fmu, k)->name);
        if (!id)
            return -2;
        const int same = strcmp(id, name) == 0;
        free(id);
        if (same)
            return (long)k;
    }
    return -1;
}

/* The FMU subsystem called name and the clock called clock in it, or -1
 * after one line (file:line) saying which is missing. */
static int endpoint(struct mf_parser *p, const struct mf_clock_link *l, const char *name,
                    const char *clock, size_t *sub, size_t *k)
{
    const mf_t *mf = p->mf;
    long i = -1;
    for (size_t j = 0; j < mf->nsub && i < 0; j++)
        if (strcmp(mf->subs[j].name, name) == 0)
            i = (long)j;
    if (i < 0) {
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: unknown subsystem '%s'", name);
        return -1;
    }
    const struct mf_sub *s = &mf->subs[i];
    if (!s->fh) {
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: subsystem '%s' is no FMU (clocks "
                "connect 'fmu' subsystems)", name);
        return -1;
    }
    const long c = clock_of(s->fh, clock);
    if (c == -2) {
        mf_nomem(p);
        return -1;
    }
    if (c < 0) {
        char list[200] = "";
        size_t len = 0;
        for (size_t j = 0; j < cosa_fmu_nclock(s->fh) && len < sizeof list; j++) {
            const int w = snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "",
                                   cosa_fmu_clock_at(s->fh, j)->name);
            len += w > 0 ? (size_t)w : 0;
        }
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: FMU subsystem '%s' has no clock "
                "'%s' (%s%s)", name, clock, len ? "its clocks: " : "it has no Clock variables",
                list);
        return -1;
    }
    *sub = (size_t)i;
    *k = (size_t)c;
    return 0;
}

/* One link: both ends exist, the source is an output clock, the target a
 * triggered input clock of another FMU subsystem, and it is new. */
static void resolve_one(struct mf_parser *p, size_t n)
{
    mf_t *mf = p->mf;
    struct mf_clock_link *l = &mf->clks[n];
    if (endpoint(p, l, l->src, l->out, &l->from, &l->kout) ||
        endpoint(p, l, l->dst, l->in, &l->to, &l->kin))
        return;
    const cosa_fmu_clock *o = cosa_fmu_clock_at(mf->subs[l->from].fh, l->kout);
    const cosa_fmu_clock *i = cosa_fmu_clock_at(mf->subs[l->to].fh, l->kin);
    if (o->causality != COSA_FMU_OUTPUT)
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: %s.%s is %s clock, not an output "
                "clock (write OUTPUT_CLOCK -> INPUT_CLOCK)", l->src, l->out,
                o->causality == COSA_FMU_INPUT ? "an input" : "a local");
    else if (i->causality != COSA_FMU_INPUT)
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: %s.%s is %s clock, not an input "
                "clock (write OUTPUT_CLOCK -> INPUT_CLOCK)", l->dst, l->in,
                i->causality == COSA_FMU_OUTPUT ? "an output" : "a local");
    else if (i->interval_variability != COSA_FMU_CLOCK_TRIGGERED)
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: input clock %s.%s is %s, not "
                "triggered (cosa activates the periodic ones itself; only a triggered input "
                "clock can be driven by an output clock)", l->dst, l->in,
                cosa_fmu_interval_variability_name(i->interval_variability));
    else if (l->from == l->to)
        mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: %s.%s -> %s.%s: a clock connection "
                "joins two FMU subsystems (not an FMU to itself)", l->src, l->out, l->dst,
                l->in);
    for (size_t m = 0; m < n && p->st == COSA_OK; m++) {
        const struct mf_clock_link *e = &mf->clks[m];
        if (e->from == l->from && e->kout == l->kout && e->to == l->to && e->kin == l->kin)
            mf_perr(p, COSA_ESYNTAX, l->line, "connect clock: %s.%s -> %s.%s is given twice "
                    "(first at line %zu)", l->src, l->out, l->dst, l->in, e->line);
    }
}

void mf_resolve_clocks(struct mf_parser *p)
{
    for (size_t n = 0; n < p->mf->nclk && p->st == COSA_OK; n++)
        resolve_one(p, n);
}

size_t cosa_model_file_nclock_link(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    return mf ? mf->nclk : 0;
}

cosa_status cosa_model_file_clock_link(const cosa_model *m, size_t k, size_t *from,
                                       const char **out_clock, size_t *to, const char **in_clock)
{
    const mf_t *mf = mf_of(m);
    if (!mf || k >= mf->nclk || !from || !out_clock || !to || !in_clock)
        return COSA_EINVAL;
    const struct mf_clock_link *l = &mf->clks[k];
    *from = l->from;
    *to = l->to;
    *out_clock = cosa_fmu_clock_at(mf->subs[l->from].fh, l->kout)->name;
    *in_clock = cosa_fmu_clock_at(mf->subs[l->to].fh, l->kin)->name;
    return COSA_OK;
}
