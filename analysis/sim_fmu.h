/* sim_fmu.h -- what `cosa simulate` says about its FMU units (analysis/sim_fmu.c):
 * --fmu-log, Warning statuses, DefaultExperiment. */
#ifndef COSA_SIM_FMU_H
#define COSA_SIM_FMU_H

#include "cli.h"

/* The FMU logger of --fmu-log (cosa_fmu_log_fn): one line per message on
 * stderr, "cosa: simulate: FMU NAME: [STATUS CATEGORY] MESSAGE" (user: the
 * command's name). */
void sim_fmu_log(void *user, const char *instance, int status, const char *category,
                 const char *message);

/* One note line on stderr per FMU unit that returned Warning (the first
 * one); units[i] is an FMU unit where fmus[i] is not NULL. */
void sim_fmu_warnings(const char *cmd, cosa_unit *const *units, cosa_fmu *const *fmus, size_t n);

/* One note line per FMU whose DefaultExperiment stopTime the run passes
 * (t_end: the last macro point) or whose startTime is not 0 (cosa starts
 * every unit at t = 0), named by the model's subsystem names. */
void sim_fmu_horizon(const char *cmd, cosa_fmu *const *fmus, const cosa_model *m,
                     const double *par, size_t n, double t_end);

/* The input smoothness rule (cosa_fmu_smoothness_check, the one advise's
 * ranking applies too): an FMU whose recommendedIntermediateInputSmoothness
 * K >= 1 is below scheme s's input degree is one line, "cosa: CMD: scheme
 * SNAME: FMU NAME: ...", and CLI_EUSAGE; else CLI_OK. */
int sim_fmu_smoothness(const char *cmd, cosa_unit *const *units, cosa_fmu *const *fmus,
                       const cosa_model *m, const double *par, size_t n, const cosa_scheme *s,
                       const char *sname);

/* The modes without event mode (simulate --coupling, defect) cannot drive
 * an FMU's clocks: an FMU with Clock variables is one line, "cosa: CMD: FMU
 * NAME has clocks: MODE runs no Event Mode (...)", and CLI_EUSAGE; else
 * CLI_OK. */
int sim_fmu_no_clocks(const char *cmd, cosa_fmu *const *fmus, const cosa_model *m,
                      const double *par, size_t n, const char *mode);

#endif
