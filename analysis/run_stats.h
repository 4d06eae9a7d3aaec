/* run_stats.h -- the statistics every time-domain run prints (issue 23
 * item 5), from one printer: the common lines
 *   status NAME [t=T]   (and "reason WHY" when there is one)
 *   steps N
 *   rejected N
 *   h_min H
 *   h_max H
 * each where a command has always printed it, then the lines of the run's
 * iterations and units:
 *   rollbacks N
 *   corrector_iterations N
 *   unit NAME steps S restores R events E early_returns K   (one per unit)
 * A command prints groups of lines where its output has them (a mask of
 * RUN_STATS_*), always in this order. */
#ifndef COSA_RUN_STATS_H
#define COSA_RUN_STATS_H

#include "cosa.h"

#include <stdio.h>

typedef struct run_stats_view {
    const char *status;    /* "ok", "diverged", "failed", ...                  */
    double t;              /* the status's time, " t=%.15g" (NaN: none)        */
    const char *reason;    /* the reason line (NULL: none)                     */
    size_t steps, rejected;
    double h_min, h_max;
    size_t rollbacks, corrector_iterations;
    const cosa_unitset *units; /* the unit lines' units (NULL: none); names
                                  from cosa_unitset_unit_name, else the index */
} run_stats_view;

enum {
    RUN_STATS_STATUS = 1u << 0,   /* status, reason                          */
    RUN_STATS_STEPS = 1u << 1,
    RUN_STATS_REJECTED = 1u << 2,
    RUN_STATS_H_MIN = 1u << 3,
    RUN_STATS_H_MAX = 1u << 4,
    RUN_STATS_ITER = 1u << 5,     /* rollbacks, corrector_iterations         */
    RUN_STATS_UNITS = 1u << 6,    /* one line per unit                       */
    RUN_STATS_COMMON = RUN_STATS_STATUS | RUN_STATS_STEPS | RUN_STATS_REJECTED |
                       RUN_STATS_H_MIN | RUN_STATS_H_MAX,
    RUN_STATS_NEW = RUN_STATS_ITER | RUN_STATS_UNITS
};

/* A view of a run's statistics (steps, rejected, h_min, h_max, rollbacks,
 * corrector iterations) and its units; status "ok", no time, no reason. */
void run_stats_view_of(run_stats_view *v, const cosa_run_stats *s, const cosa_unitset *set);
/* The lines of the groups in mask, in the order above. */
void run_stats_print(FILE *f, const run_stats_view *v, unsigned mask);

#endif
