/* carve.h -- a workspace carved into arrays: one calloc'ed block of doubles
 * handed out in consecutive pieces (the engine's workspaces: master.c,
 * iterate.c, unit.c, vo_run.c, linear_run.c).  Internal to lib/. */
#ifndef COSA_CORE_CARVE_H
#define COSA_CORE_CARVE_H

/* ptr = the next n doubles of the block at the cursor q (a double *
 * variable), q moved past them.  The caller sized the block for the sum of
 * its pieces.  A macro, not a function: the same code as the hand-written
 * assignments it replaced (the objects compile to the same instructions). */
#define COSA_CARVE(ptr, q, n) ((ptr) = (q), (q) += (n))

#endif /* COSA_CORE_CARVE_H */
