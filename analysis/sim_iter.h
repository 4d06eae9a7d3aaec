/* sim_iter.h -- `cosa simulate` with the iterative schemes imp:, gs-imp: and
 * gs:P/Q (analysis/sim_iter.c; lib/td/iterate.c; README "Iterative coupling"). */
#ifndef COSA_SIM_ITER_H
#define COSA_SIM_ITER_H

#include "cli.h"

/* The iteration's options from --iterations, --iter-tol (itol, may be NULL)
 * and --relax aitken of scheme s: --iterations K alone sweeps K times per
 * macro step; else the sweeps stop at the relative tolerance (default 1e-8)
 * with at most K (default COSA_ITER_MAX_DEFAULT).  conflict names an option
 * given that these schemes cannot take (NULL: none) and needs the rule's
 * phrase (cosa_combination_check, COSA_RULE_ITERATES).  One line and
 * CLI_EUSAGE on a bad value; --iter-tol with an explicit scheme is an error. */
int sim_iter_options(const char *cmd, const cli_case *cs, const cosa_scheme *s, const char *itol,
                     const char *conflict, const char *needs, cosa_iter_opts *io);

/* The run's iteration lines (after "steps"): iterations, relax, iter_tol,
 * iterations_mean, iterations_max, windows_not_converged, contraction. */
void sim_iter_print(const cosa_scheme *s, const cosa_iter_opts *io, const cosa_cosim_result *r);

#endif
