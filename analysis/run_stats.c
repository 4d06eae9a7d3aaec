/* run_stats.c -- the one printer of a time-domain run's statistics
 * (run_stats.h). */
#include "run_stats.h"

#include <math.h>

void run_stats_view_of(run_stats_view *v, const cosa_run_stats *s, const cosa_unitset *set)
{
    *v = (run_stats_view){.status = "ok", .t = NAN, .units = set};
    if (!s)
        return;
    v->steps = s->steps;
    v->rejected = s->rejected;
    v->h_min = s->h_min;
    v->h_max = s->h_max;
    v->rollbacks = s->rollbacks;
    v->corrector_iterations = s->corrector_iterations;
}

/* One line per unit: what it did (cosa_unit_get_counters). */
static void print_units(FILE *f, const cosa_unitset *set)
{
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        cosa_unit_counters c;
        cosa_unit_get_counters(cosa_unitset_unit(set, i), &c);
        const char *name = cosa_unitset_unit_name(set, i);
        if (name)
            fprintf(f, "unit %s", name);
        else
            fprintf(f, "unit %zu", i);
        fprintf(f, " steps %zu restores %zu events %zu early_returns %zu defect_steps %zu\n",
                c.steps, c.restores, c.events, c.early_returns, c.defect_steps);
    }
}

void run_stats_print(FILE *f, const run_stats_view *v, unsigned mask)
{
    if (mask & RUN_STATS_STATUS) {
        fprintf(f, "status %s", v->status ? v->status : "ok");
        if (!isnan(v->t))
            fprintf(f, " t=%.15g", v->t);
        fputc('\n', f);
        if (v->reason)
            fprintf(f, "reason %s\n", v->reason);
    }
    if (mask & RUN_STATS_STEPS)
        fprintf(f, "steps %zu\n", v->steps);
    if (mask & RUN_STATS_REJECTED)
        fprintf(f, "rejected %zu\n", v->rejected);
    if (mask & RUN_STATS_H_MIN)
        fprintf(f, "h_min %.17g\n", v->h_min);
    if (mask & RUN_STATS_H_MAX)
        fprintf(f, "h_max %.17g\n", v->h_max);
    if (mask & RUN_STATS_ITER)
        fprintf(f, "rollbacks %zu\ncorrector_iterations %zu\n", v->rollbacks,
                v->corrector_iterations);
    if ((mask & RUN_STATS_UNITS) && v->units)
        print_units(f, v->units);
}
