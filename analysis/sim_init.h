/* sim_init.h -- `cosa simulate`'s initialization loop of FMUs (analysis/sim_init.c,
 * README "FMU import"). */
#ifndef COSA_SIM_INIT_H
#define COSA_SIM_INIT_H

#include "cli.h"

/* What the initialization loop found (loop = 0: no FMU in an algebraic loop,
 * nothing is printed). */
typedef struct sim_init {
    cosa_fmu_init_result res;
    double *y;               /* ny: the outputs at the fixed point          */
    double *yw;              /* ny: scratch (within y's allocation)         */
    unsigned char *in_loop;  /* nunits: the units of the loop               */
    double *x;               /* nx: the master's state at its start         */
    cosa_unitset *set;       /* the units (borrowed)                        */
} sim_init;

/* Iterate the FMUs of an algebraic loop in Initialization Mode at t = 0 with
 * the model's x0 (cosa_fmu_init_loop), before the reference and the run.
 * CLI_OK (also without a loop); a loop that does not converge is one line,
 * "cosa: CMD: the initialization loop of FMUs A, B does not converge in
 * Initialization Mode: ...", naming the loop's units and the residual, and
 * CLI_EUSAGE (the network has no consistent start: a model error); a failing
 * FMU call is one line and CLI_EFAIL.  si is freed by sim_init_free. */
int sim_init_run(const char *cmd, const cosa_model *m, const double *par, cosa_unitset *set,
                 const double *x0, sim_init *si);

/* The lines "init_iterations N" and "init_output SUB.NAME VALUE" (each
 * output of the loop's units) on stdout when there was a loop. */
void sim_init_print(const cosa_model *m, const double *par, const cosa_unitset *set,
                    const sim_init *si);

/* The observer of the run's master (user_data: the sim_init of a network
 * with a loop): when the master has started, the loop's FMUs, instantiated
 * again there, are iterated in Initialization Mode once more at the master's
 * time and state (cosa_fmu_init_loop), so the FMUs that run left it with
 * consistent inputs; the master's outputs (from the reference) are not
 * changed.  A status from the loop fails the run's start. */
cosa_status sim_init_observe(const cosa_master *m, void *user_data);

void sim_init_free(sim_init *si);

#endif
