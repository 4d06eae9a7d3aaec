/* sim_blackbox.h -- what the time-domain commands do with black boxes, FMUs
 * that declare no states (analysis/sim_blackbox.c; doc/simulate-black-box.md):
 * the units run the FMU itself (no states), while the model's subsystem is
 * the identified model (issue 31), so the units' initial state leaves the
 * identified states out and the reference is the fine co-simulation. */
#ifndef COSA_SIM_BLACKBOX_H
#define COSA_SIM_BLACKBOX_H

#include "cli.h"

/* The subsystems of model m (nsub) that are black boxes -- FMUs declaring
 * no states that were identified with states, or whose identification
 * failed (not those identified as static gains): their number, and their
 * names, comma-separated, in names (size bytes). */
size_t sim_blackbox_names(const cosa_model *m, size_t nsub, char *names, size_t size);

/* The units' initial state from the model's x0 (the system sys's layout):
 * every unit's states where they are the subsystem's (a black box's
 * identified states are left out); *x0 is replaced when the layouts differ,
 * and so is *vel (per state flags; vel may be NULL).
 * CLI_OK, or CLI_EFAIL after one line (out of memory, a unit whose states
 * are neither). */
int sim_blackbox_x0(const char *cmd, const cosa_system *sys, const cosa_unitset *set,
                    double **x0, unsigned char **vel);

/* Model-based corrections of a network with black boxes (the units of m,
 * nsub of them; par its parameters): the state correction (+ecorr) is an
 * input offset and needs no model; the output correction (+ocorr, +mbcorr)
 * needs G_p and G_0, input-output maps, which the identified model gives:
 * s->model becomes sys (the model's linear system, the identified
 * subsystems in it) unless --assume set one, and note (size bytes) lists
 * them, "II (order 4, fit 3.1e-09)" (else "").
 * CLI_OK, or CLI_EUSAGE after one line: a black box whose identification
 * failed, or no linear system. */
int sim_blackbox_corr(const char *cmd, const cosa_model *m, const double *par, size_t nsub,
                      const cosa_system *sys, cosa_scheme *s, char *note, size_t size);

#endif
