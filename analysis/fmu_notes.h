/* fmu_notes.h -- what the Phi commands say about a model file's FMUs
 * (analysis/fmu_notes.c). */
#ifndef COSA_FMU_NOTES_H
#define COSA_FMU_NOTES_H

#include "cli.h"

/* 1 if every FMU of the model can run scheme s in cosa simulate, else 0
 * with "FMU NAME: reason" in why (size > 0).  Models without FMUs: 1. */
int fmu_scheme_runnable(const cli_model *mod, const cosa_scheme *s, char *why, size_t size);

/* Notes on stderr ("cosa: CMD: note: ...") for a model file with FMUs: an
 * FMU with a fixed internal step (or a documented step size), an FMU that
 * is nonlinear or has a constant term the linearisation drops (at the
 * parameter values mod->par), one note naming the FMUs that use events or
 * clocks (Phi sees the linearisation between events only), and every scheme
 * of schemes[0..ns) that the FMUs cannot run (ns = 0: none; the input
 * smoothness cap included).  Nothing for other models.  Returns the
 * number of nonlinear or affine FMUs. */
int fmu_notes(const char *cmd, const cli_model *mod, const cosa_scheme *schemes, size_t ns);

/* Notes on stderr for the FMUs of model m that were identified from their
 * inputs and outputs (black boxes, doc/black-box.md): per FMU the order,
 * the probe step, the fit error and the FMU steps spent; a sampled FMU
 * (fixed internal step: Phi exact at multiples of it); nonlinear responses
 * with their figure; an output that never responds; a free response the
 * model does not explain from a state (x0 = 0).  Nothing for other models. */
void fmu_ident_notes(const char *cmd, const cosa_model *m, int dynamic);

/* A note for every identified FMU that is a sampled system (a fixed
 * internal step h) when the macro step dt is not a whole multiple of h (to
 * 1e-9 relative): Phi is exact only at multiples (cosa point, phi). */
void fmu_ident_dt_note(const char *cmd, const cosa_model *m, double dt);
/* The same for the n macro steps of a sweep (map, curve): one note per
 * sampled FMU counting the steps that are not multiples of its step. */
void fmu_ident_dt_list_note(const char *cmd, const cosa_model *m, const double *dt, size_t n);
/* After a sweep (map, curve): one note on stderr with the identifications
 * of black-box FMUs the sweep ran at parameter values other than the
 * defaults and the ones it reused from the cache (modelfile_cache.h);
 * nothing when there were none. */
void fmu_ident_cache_note(const char *cmd, const cosa_model *m);

/* The end of a one-scheme Phi command's case (converge, limit, point):
 * the initial state x0 (cli_model_x0), the assumed model (cli_assume_system
 * for sys under scheme s, which it may adjust) and the notes on stderr (the
 * --assume note, fmu_notes).  CLI_OK, or the one-line error's exit code. */
int fmu_case_finish(const char *cmd, cli_case *cs, cosa_scheme *s, cosa_system *sys,
                    double **x0, cosa_system **model);

/* 1 if every FMU of model m at parameter values par is linear (no affine
 * term, no curvature: cosa_model_file_fmu_linearity), else 0 with "FMU NAME
 * is nonlinear" or "... has a constant term" in why.  Models without FMUs,
 * and FMUs whose check fails, count as linear. */
int fmu_network_linear(const cosa_model *m, const double *par, char *why, size_t size);

#endif
