/* cosa/models.h -- the model descriptor, the registry of built-in models
 * (models/) and model files.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_MODELS_H
#define COSA_MODELS_H

#include "cosa/core.h"
#include <stdio.h> /* FILE, for cosa_model_dump */

#ifdef __cplusplus
extern "C" {
#endif

/* The ODE form of a model is a time-domain object (cosa/td.h); models.h only
 * names it, so that the Phi layer's sweeps (which use the linear form) do not
 * depend on the time-domain layer. */
typedef struct cosa_odesys cosa_odesys;

/* ------------------------------------------------------------------------ */
/* Models (models/)                                                         */
/* ------------------------------------------------------------------------ */

/* A named scalar model parameter.  Initial-state entries are parameters too
 * (kind COSA_PARAM_INITIAL) so that --set works on them. */
typedef enum { COSA_PARAM_MODEL = 0, COSA_PARAM_INITIAL = 1 } cosa_param_kind;

/* The declared range of a parameter: any combination of a lower bound
 * (> or >=), an upper bound (< or <=) and "integer".  A bound is the number
 * lo/hi, or the current value of another parameter of the model when
 * lo_param/hi_param names one (e.g. chain's r <= n).  flags 0: any finite
 * value.  Written as in model files: "> 0", "integer, >= 1, <= n". */
enum {
    COSA_RANGE_GT = 1u,  /* value >  lower bound */
    COSA_RANGE_GE = 2u,  /* value >= lower bound */
    COSA_RANGE_LT = 4u,  /* value <  upper bound */
    COSA_RANGE_LE = 8u,  /* value <= upper bound */
    COSA_RANGE_INT = 16u /* an integer            */
};

typedef struct cosa_range {
    unsigned flags;
    double lo, hi;
    const char *lo_param, *hi_param; /* NULL: the numbers lo, hi */
} cosa_range;

typedef struct cosa_param {
    const char *name;
    double value;       /* default */
    const char *unit;
    const char *doc;
    cosa_param_kind kind;
    cosa_range range;   /* values create() accepts (zero: any finite value) */
} cosa_param;

typedef struct cosa_model cosa_model;

/* How cosa_model_dump writes a model with parameter expressions: the
 * subsystems and connections of a model file in terms of the model's
 * parameter names (the header and the param lines are generated), either
 * fixed text or written by write() for the parameter values par (returns 0,
 * or -1 on a write error).  Parameters named in fixed (NULL-terminated; may
 * be NULL) are structural: the text holds their values, so they are written
 * as comments, not as settable params.  A template is used only if reading
 * it back reproduces the model's system bit for bit. */
typedef struct cosa_model_template {
    const char *text;
    int (*write)(FILE *f, const cosa_model *m, const double *par);
    const char *const *fixed;
} cosa_model_template;

/* A model: a parameterised family of coupled systems, in a linear form, an
 * ODE form, or both.  Parameters are m->params (values passed as par, in
 * that order); callbacks return COSA_EPARAM for parameter values they
 * cannot build.
 *
 * Linear form (create != NULL, cosa_model_is_linear): create() builds a new
 * coupled linear system; update() rewrites an existing system of the same
 * model in place (fast path for sweeps; may touch only the subsystems that
 * depend on the changed parameters; COSA_EINVAL when the structure changed).
 * Phi analyses need this form.
 *
 * ODE form (create_ode != NULL): create_ode() builds the coupled nonlinear
 * system for time-domain co-simulation.  When it is NULL (every linear
 * built-in model and model files), a time-domain run uses
 * cosa_odesys_from_linear of create()'s system instead.
 *
 * initial_state() writes x0 (nx entries) for either form.  The name
 * callbacks are optional (may be NULL) and return NULL past the end.
 * data is the model's private description (NULL if it has none).
 * dump_template (may be NULL) is how cosa_model_dump keeps expressions.
 * destroy (NULL for static models) frees a model made at run time (model
 * files); call it through cosa_model_free. */
struct cosa_model {
    const char *name;
    const char *doc;
    size_t nparam;
    const cosa_param *params;
    double tend;  /* natural horizon [s] for accuracy analyses and simulate */
    /* linear form (both NULL for a nonlinear model) */
    cosa_status (*create)(const cosa_model *m, const double *par, cosa_system **out);
    cosa_status (*update)(const cosa_model *m, const double *par, cosa_system *sys);
    /* ODE form (NULL: cosa_odesys_from_linear of the linear form) */
    cosa_status (*create_ode)(const cosa_model *m, const double *par, cosa_odesys **out);
    cosa_status (*initial_state)(const cosa_model *m, const double *par, double *x0);
    /* optional names of states, inputs, outputs and subsystems (the latter
     * for --sequence of Gauss-Seidel schemes) */
    const char *(*state_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*input_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*output_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*sub_name)(const cosa_model *m, const double *par, size_t k);
    const void *data;
    const cosa_model_template *dump_template;
    void (*destroy)(cosa_model *m);
    /* energy paper (optional, both or neither): the mechanical energy E(x) of
     * the whole system at the stacked state x, and its power port at the
     * parameter values par, whose index arrays go into idx (nidx entries;
     * COSA_ERANGE if that is too small) */
    cosa_status (*energy)(const cosa_model *m, const double *par, const double *x, double *E);
    cosa_status (*energy_port)(const cosa_model *m, const double *par, cosa_energy_port *port,
                               size_t *idx, size_t nidx);
};

/* Registry of built-in models: the linear ones (twomass, twomass-fd,
 * rotational, chain, ...), then the nonlinear ones (twomass-nl, the energy
 * paper's, twomass-ff and chain-ff last). */
size_t cosa_model_count(void);
const cosa_model *cosa_model_at(size_t i);           /* NULL if i >= count */
const cosa_model *cosa_model_find(const char *name); /* NULL if unknown */

/* 1 if m has a linear form (m->create), else 0 (also for NULL). */
int cosa_model_is_linear(const cosa_model *m);

/* Index of a parameter by name, or -1. */
int cosa_model_param_index(const cosa_model *m, const char *name);

/* Copy the defaults into par (m->nparam entries). */
void cosa_model_defaults(const cosa_model *m, double *par);

/* Set parameter `name` to value in par; COSA_EPARAM if unknown,
 * COSA_ENONFINITE if value is not finite. */
cosa_status cosa_model_set(const cosa_model *m, double *par, const char *name, double value);

/* Check value for parameter k of m against its declared range.  Bounds
 * given by other parameters are read from par; with par NULL they are
 * skipped (only the numeric rules are checked, e.g. for a --set value before
 * the other parameters are known).  COSA_OK, or COSA_EPARAM with one line in
 * msg (if size > 0) that names the parameter and the rule, e.g.
 * "m1 must be > 0", "r must be an integer in 1..n (n = 5)";
 * COSA_ENONFINITE for NaN/inf, COSA_EINVAL for NULL m or k out of range. */
cosa_status cosa_param_check(const cosa_model *m, size_t k, const double *par, double value,
                             char *msg, size_t size);

/* Check every parameter in par (m->nparam values) against its range (as
 * cosa_param_check with par); the first violation's index goes to *culprit
 * (may be NULL) and its message to msg. */
cosa_status cosa_model_check(const cosa_model *m, const double *par, size_t *culprit, char *msg,
                             size_t size);

/* The range of parameter k in model-file syntax ("> 0", "integer, >= 1,
 * <= n"; "" for any value) into buf; returns the length it needs, as
 * snprintf. */
int cosa_param_range_text(const cosa_model *m, size_t k, char *buf, size_t size);

/* Free a model made at run time through its destroy slot; NULL and static
 * models (destroy == NULL, e.g. the built-in ones) are ignored.  Systems
 * created from the model stay valid. */
void cosa_model_free(cosa_model *m);

/* ------------------------------------------------------------------------ */
/* Model files (models/modelfile*.c)                                       */
/* ------------------------------------------------------------------------ */

/* Read a model file (format: README, "Model files") into a new model whose
 * create/update/initial_state/names work like a built-in model's; matrix
 * entries are expressions of the file's parameters, compiled once.
 * On failure *out is NULL and err (if errsize > 0) holds one line
 * "path:line: message" (or "path: message" when the file cannot be read).
 * Status: COSA_EIO (cannot read), COSA_ESYNTAX (malformed text, missing or
 * misshaped blocks, unknown subsystem/input/output names, an input with no
 * or two sources), COSA_EPARAM (unknown parameter in an expression),
 * COSA_ENONFINITE (a number, or an entry at the default parameter values,
 * is not finite), COSA_ERANGE (tend <= 0), COSA_ENOMEM.
 * A path ending in .ssp (an archive) or .ssd (an unpacked system) is read
 * as an SSP 1.0/2.0 system of FMUs (README "SSP import"): the same model a
 * model file with `fmu` subsystems and `connect` lines gives; what cosa
 * cannot use is refused (COSA_EUNSUPPORTED, one line naming the element).
 * Free the model with cosa_model_free. */
cosa_status cosa_model_file_load(const char *path, cosa_model **out, char *err, size_t errsize);

/* The same with flags: how `fmu` subsystems are linearised --
 * COSA_MODEL_FILE_FMU_FD central differences even where the FMU has
 * directional derivatives; COSA_MODEL_FILE_FMU_DD directional derivatives
 * or an error; neither: directional derivatives when the FMU has them. */
enum { COSA_MODEL_FILE_FMU_FD = 1u << 0, COSA_MODEL_FILE_FMU_DD = 1u << 1 };
cosa_status cosa_model_file_load_flags(const char *path, unsigned flags, cosa_model **out,
                                       char *err, size_t errsize);

/* The same for text in memory (len bytes, need not be NUL-terminated);
 * name_for_errors (may be NULL) prefixes messages and names the model when
 * the text has no "model" line. */
cosa_status cosa_model_file_parse(const char *text, size_t len, const char *name_for_errors,
                                  cosa_model **out, char *err, size_t errsize);

/* Write model m (with a linear form) at parameter values par (m->nparam
 * entries; NULL = the defaults) as a model file to f.  Reading the file back
 * gives bit-identical A, B, C, D, L and x0 (hence the same Phi to the last
 * bit); this is checked before anything is written.  File models keep their
 * expressions; other models keep parameter expressions through their
 * dump_template (the built-in linear ones have one; chain's fixes n and r),
 * otherwise entries are numbers and only initial-state parameters stay
 * settable.
 * Status: COSA_EINVAL (NULL f or m, or m has no linear form),
 * COSA_ENONFINITE (a parameter or x0 entry is not finite),
 * m->create's status for invalid par, COSA_EUNSUPPORTED if the coupling is
 * not a 0/1 selection, COSA_EIO on a write error. */
cosa_status cosa_model_dump(FILE *f, const cosa_model *m, const double *par);

/* The FMU behind subsystem i of a model file (`fmu NAME = PATH`: the path as
 * opened, relative to the working directory), or NULL (another model, a
 * matrix subsystem, i out of range).  The model's linear form is the FMU's
 * linearisation; `cosa simulate` runs the FMU itself (cosa_unit_fmu_create). */
const char *cosa_model_file_fmu(const cosa_model *m, size_t i);
/* What the FMU behind subsystem i can do (cosa/td.h: input degree,
 * directional derivatives, FMU state, fixed internal step), read when the
 * file was loaded; NULL when subsystem i is no FMU. */
typedef struct cosa_fmu_capability cosa_fmu_capability;
const cosa_fmu_capability *cosa_model_file_fmu_capability(const cosa_model *m, size_t i);
/* How far the FMU behind subsystem i, at parameter values par (m->nparam),
 * is from the linearisation the model uses there (cosa/td.h,
 * cosa_unit_linearity: an affine term, curvature at perturbed states and
 * inputs).  COSA_EINVAL when subsystem i is no FMU; an FMU failure's status. */
typedef struct cosa_linearity cosa_linearity;
cosa_status cosa_model_file_fmu_linearity(const cosa_model *m, const double *par, size_t i,
                                          cosa_linearity *out);
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

#ifdef __cplusplus
}
#endif
#endif /* COSA_MODELS_H */
