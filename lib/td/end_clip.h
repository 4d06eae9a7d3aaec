/* end_clip.h -- the short last step of a fixed-step run (private to
 * lib/): a horizon T that is not a whole number of macro steps H
 * ends with one step of T - n H after the n = floor(T / H) full ones
 * (evolve_clip_to_end clips it; the master takes it here). */
#ifndef COSA_TD_END_CLIP_H
#define COSA_TD_END_CLIP_H

#include "cosa/td.h"

#include <stddef.h>

/* cosa_end_clip_steps, cosa_end_clip_refusal, COSA_END_CLIP_RTOL: cosa/internal/run.h
 * (the command asks them too). */

/* The master's last step, of h (> 0; shorter than its H): the input
 * polynomial through the same history samples, now at nodes 0, -H/h,
 * -2 H/h, ... of the step h (Gauss-Seidel's interpolation too), and the
 * units step h.  With Taylor or given inputs or events it is
 * cosa_master_set_step.  The master takes no step after it (its history
 * is no longer equidistant).  COSA_EUNSUPPORTED where
 * cosa_end_clip_refusal says so; COSA_ERANGE for h not in (0, H]. */
cosa_status cosa_master_set_last_step(cosa_master *m, double h);

#endif
