/* failure.h -- the one failure policy of the time-domain runs (README
 * "Failures"): which statuses of a step end a run as a result (status line,
 * figures up to where it stopped) and which are errors. */
#ifndef COSA_TD_FAILURE_H
#define COSA_TD_FAILURE_H

#include "cosa/core.h"

/* 1: a failure of the step that is a result of the run -- divergence (the
 * outputs or a unit's integration leave the finite numbers or do not
 * converge), a singular algebraic loop or output correction met during the
 * run, a LAPACK failure on the run's matrices, a unit that could not complete
 * its step (an FMU's Discard, a fixed-step integrator past its micro-step
 * limit); 0: an error (a broken FMU: Error, Fatal or a refused answer; bad
 * arguments; memory; anything else). */
int td_failure_is_result(cosa_status st);

#endif
