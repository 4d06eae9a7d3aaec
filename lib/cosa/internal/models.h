/* cosa/internal/models.h -- the build tree's view of cosa/models.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/models.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_MODELS_H
#define COSA_INTERNAL_MODELS_H

#include "cosa/models.h"

const unsigned char *cosa_model_units_step_gains(const cosa_model_units *mu);

const cosa_odesys *cosa_model_units_odesys(const cosa_model_units *mu);

cosa_status cosa_model_file_load_flags(const char *path, unsigned flags, cosa_model **out,
                                       char *err, size_t errsize);

/* The same with the probe step [s] of identified FMUs (doc/black-box.md)
 * that declare no fixedInternalStepSize (0: their DefaultExperiment
 * stepSize, else 1e-3 s). */
cosa_status cosa_model_file_load_probe(const char *path, unsigned flags, double probe,
                                       cosa_model **out, char *err, size_t errsize);

/* The same for text in memory (len bytes, need not be NUL-terminated);
 * name_for_errors (may be NULL) prefixes messages and names the model when
 * the text has no "model" line. */
cosa_status cosa_model_file_parse(const char *text, size_t len, const char *name_for_errors,
                                  cosa_model **out, char *err, size_t errsize);

/* The interface the file asked for that FMU (`fmu NAME cs|me = PATH`:
 * COSA_FMU_IFACE_CS, _ME; else COSA_FMU_IFACE_AUTO, 0). */
int cosa_model_file_fmu_iface(const cosa_model *m, size_t i);

/* The FMU subsystem i's parameters are model parameters "NAME.VAR" (the
 * FMU's Float64/Real parameters with a start value, then its states' start
 * values, kind COSA_PARAM_INITIAL); create/update linearise the FMU again
 * where they differ from their defaults (so they can be --set and map
 * axes).  This returns the FMU variable behind the k-th FMU parameter (not
 * the states) of subsystem i and its index among m's parameters in *index,
 * or NULL past the last one or when subsystem i is no FMU. */
const char *cosa_model_file_fmu_param(const cosa_model *m, size_t i, size_t k, size_t *index);

/* The FMU's own start value (from its model description) of the k-th FMU
 * parameter of subsystem i, which may differ from the model parameter's
 * default (an SSP's parameter binding): a unit needs the parameter set
 * only where the value differs from this.  NAN where there is none. */
double cosa_model_file_fmu_param_own(const cosa_model *m, size_t i, size_t k);

/* The OSP information of model m, or NULL when m was not read from one. */
const cosa_osp_info *cosa_model_file_osp(const cosa_model *m);

/* The k-th Integer/Boolean/String start value (OSP InitialValues) of FMU
 * subsystem i: 1 with *name and *value (text), 0 past the last one. */
int cosa_model_file_fmu_text_start(const cosa_model *m, size_t i, size_t k, const char **name,
                                   const char **value);

/* When the default identification of subsystem i's FMU (one that declares
 * no states) failed: the one-line reason ("FILE:LINE: fmu NAME: PATH:
 * identification failed: ..."), and the subsystem is the FMU's declared
 * reading (its gain D) meanwhile; NULL otherwise.  The Phi commands refuse
 * such a model with this line; cosa simulate runs the FMU itself. */
const char *cosa_model_file_ident_error(const cosa_model *m, size_t i);
/* The identifications of black-box FMUs that model file m ran at parameter
 * values other than the defaults since it was read (*done) and the ones
 * answered from its cache of identified models, kept per FMU file and
 * parameter set (*reused; doc/black-box.md "Identification cache"); both 0
 * for another model.  COSA_IDENT_CACHE=off in the environment when the file
 * is read turns the cache off. */
void cosa_model_file_ident_cache_counts(const cosa_model *m, size_t *done, size_t *reused);

/* The clock connections of model file m (`connect clock S.OUT -> T.IN`,
 * README "Clocks"), checked when the file was read: their number (0 for
 * any other model), and the k-th as the subsystem indices and the FMUs' own
 * names of an output clock of subsystem *from and a triggered input clock
 * of subsystem *to (views into the model, valid while it lives).
 * cosa_model_units_create links them (cosa_unit_fmu_clock_link).
 * COSA_EINVAL for another model, k out of range or a NULL argument. */
size_t cosa_model_file_nclock_link(const cosa_model *m);

cosa_status cosa_model_file_clock_link(const cosa_model *m, size_t k, size_t *from,
                                       const char **out_clock, size_t *to, const char **in_clock);

/* The discrete connections of model file m (an SSP's or OSP file's
 * Integer, Boolean and Enumeration connections; doc/ssp.md "Discrete
 * signals"): their number (0 for any other model), and the k-th as the
 * subsystem indices and the FMUs' own variable names (views valid while m
 * lives).  They take no part in L or Phi; cosa_model_units_create links
 * them on the unit set (cosa_unitset_discrete_link).  COSA_EINVAL for
 * another model, k out of range or a NULL argument. */
size_t cosa_model_file_ndiscrete(const cosa_model *m);

cosa_status cosa_model_file_discrete(const cosa_model *m, size_t k, size_t *from,
                                     const char **out, size_t *to, const char **in);
/* The k-th discrete connection's transformation: in = gain * out + offset
 * (1 and 0 but for a Float64 one with an SSP LinearTransformation). */
cosa_status cosa_model_file_discrete_map(const cosa_model *m, size_t k, double *gain,
                                         double *offset);

/* The affine term c of model file m's coupling u = L y + c (nu entries:
 * `connect ... offset OFFSET`, an SSP LinearTransformation's offset), or
 * NULL when it is 0 or m is another model.  A view valid while m lives. */
const double *cosa_model_file_input_offset(const cosa_model *m);

/* The inputs of model file m held at a constant for the whole run (`hold`,
 * an SSP's unfed or bound FMU inputs: rows of u = L y + c with no L entry),
 * as one list for a note ("I.Fk = 3 (bound), ..."), or NULL when there are
 * none or m is another model.  A view valid while m lives. */
const char *cosa_model_file_held_inputs(const cosa_model *m);

/* 1 if name is one of the `let` names of model file m (a derived
 * quantity: not settable), else 0 (also for any other model). */
int cosa_model_file_is_let(const cosa_model *m, const char *name);

/* Where model file m stops being finite at parameter values par (m->nparam
 * entries): COSA_OK if every `let` and every entry of A, B, C, D, x0 is
 * finite; otherwise COSA_ENONFINITE and in msg (size bytes) the first
 * non-finite quantity, e.g. "A[2,1] of subsystem 'I' is not finite (-inf)"
 * or "let 'w' is not finite (nan)".  COSA_EINVAL for another model, a
 * NULL argument, or a non-finite parameter value; COSA_ENOMEM. */
cosa_status cosa_model_file_nonfinite(const cosa_model *m, const double *par, char *msg,
                                      size_t size);

#endif /* COSA_INTERNAL_MODELS_H */
