/* end_clip.h -- the short last step of a fixed-step run (private to lib/
 * and analysis/): a horizon T that is not a whole number of macro steps H
 * ends with one step of T - n H after the n = floor(T / H) full ones
 * (evolve_clip_to_end clips it; the master takes it here). */
#ifndef COSA_TD_END_CLIP_H
#define COSA_TD_END_CLIP_H

#include "cosa/td.h"

#include <stddef.h>

/* The number of full macro steps of H in the horizon T (> 0, H > 0) and
 * the rest *h_last = T - n H (0 when T is a whole number of steps to
 * END_CLIP_RTOL: 0.3 / 1e-4 counts as 3000 steps exactly).  Returns n
 * (0: T shorter than H). */
size_t cosa_end_clip_steps(double T, double H, double *h_last);

/* A rest below END_CLIP_RTOL T (relative, against the rounding of T / H
 * and of n H: a few eps, far above) is no step. */
#define END_CLIP_RTOL 1e-9

/* Why a fixed-step run of the scheme s with the options o cannot take a
 * short last step (its master or loop assumes equal steps), NULL when it
 * can: the iterative schemes and gs:P/Q, the output and state corrections
 * (their weights are for equal steps), the energy indicators (sampled on
 * the reference's grid). */
const char *cosa_end_clip_refusal(const cosa_scheme *s, const cosa_cosim_opts *o);

/* The master's last step, of h (> 0; shorter than its H): the input
 * polynomial through the same history samples, now at nodes 0, -H/h,
 * -2 H/h, ... of the step h (Gauss-Seidel's interpolation too), and the
 * units step h.  With Taylor or given inputs or events it is
 * cosa_master_set_step.  The master takes no step after it (its history
 * is no longer equidistant).  COSA_EUNSUPPORTED where
 * cosa_end_clip_refusal says so; COSA_ERANGE for h not in (0, H]. */
cosa_status cosa_master_set_last_step(cosa_master *m, double h);

#endif
