/* step_grid.h -- the network's step grid: the macro steps every FMU with a
 * fixed internal step can take (analysis/step_grid.c), for the Phi commands
 * that scan the macro step (limit, map and curve over dt, advise). */
#ifndef COSA_STEP_GRID_H
#define COSA_STEP_GRID_H

#include "cli.h"

#include <stddef.h>

/* The common step h_s of the model's FMUs with a fixed internal step
 * (fixedInternalStepSize): their least common multiple when the steps are
 * commensurate (the ratio of the larger to the smaller a fraction p/q with
 * q <= 1000, to 1e-9 relative, so h_s = q times the larger; and h_s passes
 * cosa_fmu_step_check of every FMU).  Returns 0 (and *hs = 0)
 * without such FMUs, 1 with *hs and the FMUs in who ("FMU II", "FMUs L, M";
 * wsize > 0), or -1 with the one-line reason in why (size > 0) naming the
 * FMUs and their steps. */
int step_grid(const cli_model *mod, double *hs, char *who, size_t wsize, char *why,
              size_t size);

/* The number m of whole steps hs in dt, rounded down (m hs within 1e-9
 * relative of dt counts as reaching it); 0 when dt < hs. */
double step_grid_floor(double dt, double hs);

/* A dt axis snapped to the grid: every dt[k] becomes the nearest multiple of
 * hs, at least hs (m = max(1, round(dt / hs)), dt = m hs; a value already
 * within 1e-9 of a multiple is kept as given); a value with the same m as
 * the one kept before it is dropped (an axis is monotone, so equal values
 * are neighbours).  Returns the number kept (<= n). */
size_t step_grid_snap(double hs, double *dt, size_t n);

/* For a dt axis of map or curve (over_dt): snap dt[0..*n) to the model's
 * grid (step_grid_snap) with one note on stderr ("cosa: CMD: note: ...")
 * when the model has fixed-step FMUs; CLI_OK, or CLI_EUSAGE after the
 * one-line error when their steps have no common multiple. */
int step_grid_axis(const char *cmd, const cli_model *mod, double *dt, size_t *n);

/* The smallest probe step of the model's identified black boxes with states
 * (doc/black-box.md), their names in who (wsize > 0); 0 without any. */
double step_grid_probe_min(const cli_model *mod, char *who, size_t wsize);

/* The lower end of a dt scan (limit, advise): dtmin when the user gave one
 * (> 0), else the larger of dflt and the black boxes' smallest probe step,
 * with one note on stderr when the probe step wins (an identified model is
 * what the FMU did at multiples of its probe step: below it, its Phi is a
 * fractional power of what was observed, and a structural eigenvalue 1 --
 * a free mass -- rounds above 1 + COSA_RHO_TOL at tiny steps). */
double step_grid_dt_min(const char *cmd, const cli_model *mod, double dtmin, double dflt);

#endif
