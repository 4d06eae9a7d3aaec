/* step_grid.c -- the network's step grid (step_grid.h): the least common
 * multiple h_s of the FMUs' fixed internal steps, the macro steps that every
 * one of them can take (cosa_fmu_step_check, the check cosa simulate applies
 * to --dt), and the snapping of a dt axis to it (doc/fixed-step-fmus.md). */
#include "step_grid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GRID_RTOL 1e-9   /* cosa_fmu_step_check's tolerance of a multiple  */
#define GRID_QMAX 1e3    /* largest denominator of a step ratio accepted:
                            the common step is at most 1000 times the larger */

/* The reduced fraction p/q (q <= GRID_QMAX) within GRID_RTOL of r >= 1, by
 * its continued fraction's convergents; 0 if there is none. */
static int ratio(double r, double *p, double *q)
{
    double h0 = 1.0, h1 = 0.0, k0 = 0.0, k1 = 1.0, x = r; /* p_{-1}, p_{-2}; q_{-1}, q_{-2} */
    for (int it = 0; it < 64; it++) {
        const double a = floor(x);
        const double h = a * h0 + h1, k = a * k0 + k1;
        if (k > GRID_QMAX)
            return 0;
        h1 = h0, h0 = h, k1 = k0, k0 = k;
        if (fabs(r - h / k) <= GRID_RTOL * r) {
            *p = h;
            *q = k;
            return 1;
        }
        const double f = x - a;
        if (!(f > 0.0))
            return 0;
        x = 1.0 / f;
    }
    return 0;
}

static const char *sub_name(const cosa_model *m, const double *par, size_t i)
{
    const char *n = m->sub_name ? m->sub_name(m, par, i) : NULL;
    return n ? n : "?";
}

/* Append "NAME" or ", NAME" to who (wsize > 0). */
static void add_name(char *who, size_t wsize, const char *name)
{
    const size_t len = strlen(who);
    if (len + 1 < wsize)
        snprintf(who + len, wsize - len, "%s%s", len ? ", " : "", name);
}

int step_grid(const cli_model *mod, double *hs, char *who, size_t wsize, char *why, size_t size)
{
    const cosa_model *m = mod->model;
    char names[256] = "";
    size_t nfix = 0, first = 0;
    double L = 0.0;
    *hs = 0.0;
    if (size)
        why[0] = '\0';
    for (size_t i = 0; m->sub_name && m->sub_name(m, mod->par, i); i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        if (!cap || !(cap->fixed_step > 0.0) || !isfinite(cap->fixed_step))
            continue;
        const double h = cap->fixed_step;
        add_name(names, sizeof names, sub_name(m, mod->par, i));
        double p, q;
        if (nfix++ == 0) {
            L = h;
            first = i;
        } else if (ratio(fmax(L, h) / fmin(L, h), &p, &q)) {
            L = q * fmax(L, h); /* max / min = p / q: q max = p min, the smallest common multiple */
        } else {
            if (size)
                snprintf(why, size, "the FMUs' fixed internal steps have no common multiple "
                         "(a ratio p/q with q <= 1000 to 1e-9): FMU %s steps %.15g s, FMU %s "
                         "%.15g s, so no macro step runs both",
                         sub_name(m, mod->par, first), cosa_model_file_fmu_capability(m, first)->fixed_step,
                         sub_name(m, mod->par, i), h);
            return -1;
        }
    }
    if (!nfix)
        return 0;
    /* h_s must pass every FMU's own check (the rounding of q L) */
    for (size_t i = 0; m->sub_name(m, mod->par, i); i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        char r[200];
        if (cap && cosa_fmu_step_check(cap, L, r, sizeof r) != COSA_OK) {
            if (size)
                snprintf(why, size, "the FMUs' fixed internal steps have no common multiple "
                         "that FMU %s can take: %s", sub_name(m, mod->par, i), r);
            return -1;
        }
    }
    *hs = L;
    if (wsize)
        snprintf(who, wsize, "FMU%s %s", nfix > 1 ? "s" : "", names);
    return 1;
}

double step_grid_floor(double dt, double hs)
{
    if (!(hs > 0.0) || !(dt > 0.0))
        return 0.0;
    return floor(dt / hs * (1.0 + GRID_RTOL));
}

size_t step_grid_snap(double hs, double *dt, size_t n)
{
    size_t kept = 0;
    double mprev = 0.0;
    for (size_t k = 0; k < n; k++) {
        double m = nearbyint(dt[k] / hs);
        if (m < 1.0)
            m = 1.0;
        if (kept && m == mprev)
            continue;
        /* a value already on the grid (to the step check's 1e-9) is kept as given */
        dt[kept++] = fabs(dt[k] - m * hs) <= GRID_RTOL * dt[k] ? dt[k] : m * hs;
        mprev = m;
    }
    return kept;
}

int step_grid_axis(const char *cmd, const cli_model *mod, double *dt, size_t *n)
{
    double hs;
    char who[160], why[400];
    const int g = step_grid(mod, &hs, who, sizeof who, why, sizeof why);
    if (g < 0) {
        cli_error(cmd, "%s", why);
        return CLI_EUSAGE;
    }
    if (g == 0)
        return CLI_OK;
    size_t moved = 0;
    for (size_t k = 0; k < *n; k++) {
        const double m = nearbyint(dt[k] / hs);
        moved += !(m >= 1.0 && fabs(dt[k] - m * hs) <= GRID_RTOL * dt[k]);
    }
    const size_t given = *n;
    *n = step_grid_snap(hs, dt, *n);
    char b[32];
    fprintf(stderr, "cosa: %s: note: the macro steps are multiples of h_s = %s s, the step grid "
                    "of %s (fixed internal steps): %zu of the %zu values of the dt axis moved to "
                    "the nearest multiple (at least h_s), %zu distinct kept\n",
            cmd, cosa_number_text(b, sizeof b, hs), who, moved, given, *n);
    return CLI_OK;
}

double step_grid_probe_min(const cli_model *mod, char *who, size_t wsize)
{
    const cosa_model *m = mod->model;
    double hp = 0.0;
    if (wsize)
        who[0] = '\0';
    for (size_t i = 0; m->sub_name && m->sub_name(m, mod->par, i); i++) {
        cosa_model_file_ident info;
        if (!cosa_model_file_identified(m, i, &info) || info.order == 0 || !(info.h > 0.0))
            continue;
        if (wsize)
            add_name(who, wsize, sub_name(m, mod->par, i));
        hp = hp > 0.0 ? fmin(hp, info.h) : info.h;
    }
    return hp;
}

double step_grid_dt_min(const char *cmd, const cli_model *mod, double dtmin, double dflt)
{
    if (dtmin > 0.0)
        return dtmin; /* given */
    char who[256];
    const double hp = step_grid_probe_min(mod, who, sizeof who);
    if (!(hp > dflt))
        return dflt;
    char b[32];
    fprintf(stderr, "cosa: %s: note: the scan starts at the probe step %s s of the identified "
                    "black box%s %s: an identified model is what the FMU did at multiples of that "
                    "step, below it the FMU was not observed (give --dt-min to scan lower)\n",
            cmd, cosa_number_text(b, sizeof b, hp), strchr(who, ',') ? "es" : "", who);
    return hp;
}
