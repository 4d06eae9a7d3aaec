/* fmu_rules.c -- the rules a run of FMUs must meet before it starts (the
 * event points' scheme -- a question to the one table of combination rules,
 * cosa_combination_check -- and fixed internal steps), shared by cosa
 * simulate and the runnable check of the Phi commands (fmu_rules.h). */
#include "fmu_rules.h"

#include <stdio.h>

const char *fmu_event_rule(const cosa_scheme *s, int nrate, int held, int energy)
{
    /* the rules of the one table (cosa_combination_check), for event points */
    const unsigned f = COSA_COMB_EVENTS | (nrate ? COSA_COMB_MULTIRATE : 0u) |
                       (held ? COSA_COMB_HELD : 0u) | (energy ? COSA_COMB_ENERGY : 0u);
    cosa_combination_refusal why;
    return cosa_combination_check(s, f, 1, &why) == COSA_OK ? NULL : why.needs;
}

size_t fmu_step_refusal(const cosa_fmu_capability *const *caps, size_t n, double h, char *why,
                        size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (caps[i] && cosa_fmu_step_check(caps[i], h, why, size) != COSA_OK)
            return i;
    if (why && size)
        why[0] = '\0';
    return n;
}

double fmu_fixed_step_max(const cosa_fmu_capability *const *caps, size_t n, size_t *at)
{
    double hmax = 0.0;
    for (size_t i = 0; i < n; i++)
        if (caps[i] && caps[i]->fixed_step > hmax) {
            hmax = caps[i]->fixed_step;
            if (at)
                *at = i;
        }
    return hmax;
}

size_t fmu_event_grid_refusal(const cosa_fmu_capability *const *caps, const int *events, size_t n,
                              const char *const *names, char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!caps[i] || !(caps[i]->fixed_step > 0.0))
            continue;
        for (size_t e = 0; e < n; e++) {
            if (e == i || !caps[e] || !events[e])
                continue;
            /* the event FMU's grid is on i's when its step is a multiple */
            const double he = caps[e]->fixed_step;
            if (he > 0.0 && cosa_fmu_step_check(caps[i], he, NULL, 0) == COSA_OK)
                continue;
            if (why && size) {
                char g[64] = "";
                if (he > 0.0)
                    snprintf(g, sizeof g, " (it steps on a grid of %.15g s)", he);
                snprintf(why, size, "FMU %s takes fixed internal steps of %.15g s and cannot "
                         "stop at the event points of FMU %s%s", names ? names[i] : "?",
                         caps[i]->fixed_step, names ? names[e] : "?",
                         he > 0.0 ? g : ", which may fall anywhere");
            }
            return i;
        }
    }
    return n;
}
