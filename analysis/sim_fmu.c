/* sim_fmu.c -- what `cosa simulate` says about its FMU units (README "FMU
 * import"): the messages the FMUs log (--fmu-log), the first Warning status of
 * each FMU, and notes on their DefaultExperiment. */
#include "sim_fmu.h"

#include <float.h>
#include <math.h>
#include <string.h>

void sim_fmu_log(void *user, const char *instance, int status, const char *category,
                 const char *message)
{
    static const char *const names[] = {"OK", "Warning", "Discard", "Error", "Fatal"};
    const char *cmd = user ? user : "simulate";
    size_t n = strlen(message);
    while (n && (message[n - 1] == '\n' || message[n - 1] == '\r'))
        n--;
    fprintf(stderr, "cosa: %s: FMU %s: [%s%s%s] %.*s\n", cmd, instance,
            status >= 0 && status <= 4 ? names[status] : "?", category[0] ? " " : "", category,
            (int)n, message);
}

void sim_fmu_warnings(const char *cmd, cosa_unit *const *units, cosa_fmu *const *fmus, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *w = fmus[i] && units[i] ? cosa_unit_fmu_warning(units[i]) : NULL;
        if (w && w[0])
            fprintf(stderr, "cosa: %s: note: %s (the first Warning; the run went on)\n", cmd, w);
    }
}

void sim_fmu_horizon(const char *cmd, cosa_fmu *const *fmus, const cosa_model *m,
                     const double *par, size_t n, double t_end)
{
    char b1[32], b2[32];
    for (size_t i = 0; i < n; i++) {
        if (!fmus[i])
            continue;
        const char *name = m->sub_name ? m->sub_name(m, par, i) : NULL;
        const double stop = cosa_fmu_stop_time(fmus[i]), start = cosa_fmu_start_time(fmus[i]);
        /* past stopTime by more than the rounding of t_end = (p + N) H */
        if (stop == stop && t_end > stop + 8.0 * DBL_EPSILON * fabs(t_end))
            fprintf(stderr, "cosa: %s: note: the run reaches t = %s, past FMU %s's stopTime %s "
                            "(DefaultExperiment)\n", cmd, cosa_number_text(b1, sizeof b1, t_end),
                    name ? name : "?", cosa_number_text(b2, sizeof b2, stop));
        if (start == start && start != 0.0)
            fprintf(stderr, "cosa: %s: note: FMU %s's DefaultExperiment startTime %s is not "
                            "used: cosa starts every unit at t = 0\n", cmd,
                    name ? name : "?", cosa_number_text(b1, sizeof b1, start));
    }
}

int sim_fmu_smoothness(const char *cmd, cosa_unit *const *units, cosa_fmu *const *fmus,
                       const cosa_model *m, const double *par, size_t n, const cosa_scheme *s,
                       const char *sname)
{
    for (size_t i = 0; i < n; i++) {
        if (!fmus[i] || !units[i])
            continue;
        cosa_fmu_capability cap;
        char why[256];
        cosa_fmu_capability_get(fmus[i], &cap);
        if (cosa_fmu_smoothness_check(&cap, cosa_unit_nu(units[i]), s, why, sizeof why) ==
            COSA_OK)
            continue;
        const char *name = m->sub_name ? m->sub_name(m, par, i) : NULL;
        cli_error(cmd, "scheme %s: FMU %s: %s; use a scheme of order <= %d", sname,
                  name ? name : "?", why, cosa_fmu_smoothness_degree(cap.smoothness));
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int sim_fmu_no_clocks(const char *cmd, cosa_fmu *const *fmus, const cosa_model *m,
                      const double *par, size_t n, const char *mode)
{
    for (size_t i = 0; fmus && i < n; i++) {
        cosa_fmu_capability cap;
        cosa_fmu_capability_get(fmus[i], &cap);
        if (!fmus[i] || !cap.clocks)
            continue;
        const char *name = m->sub_name ? m->sub_name(m, par, i) : NULL;
        cli_error(cmd, "FMU %s has clocks: %s runs no Event Mode (clocks run under the "
                       "fixed-step cosa simulate, README \"Clocks\")", name ? name : "?", mode);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}
