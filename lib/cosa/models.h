/* cosa/models.h -- the registry of built-in models (models/) and model
 * files.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_MODELS_H
#define COSA_MODELS_H

#include "cosa/core.h"
#include <stdio.h> /* FILE, for cosa_model_dump */

#ifdef __cplusplus
extern "C" {
#endif

/* The model descriptor (cosa_model, cosa_param, cosa_range) and its
 * helpers (cosa_model_defaults, cosa_model_check, ...) are core objects:
 * cosa/core.h. */

/* ------------------------------------------------------------------------ */
/* Models (models/)                                                         */
/* ------------------------------------------------------------------------ */

/* Registry of built-in models: the linear ones (twomass, twomass-fd,
 * rotational, chain, ...), then the nonlinear ones (twomass-nl, the energy
 * paper's, twomass-ff and chain-ff last). */
size_t cosa_model_count(void);
const cosa_model *cosa_model_at(size_t i);           /* NULL if i >= count */
const cosa_model *cosa_model_find(const char *name); /* NULL if unknown */

/* ------------------------------------------------------------------------ */
/* Unit sets of a model (models/unitset_build.c)                            */
/* ------------------------------------------------------------------------ */

/* Time-domain objects (cosa/td.h), named here only. */
typedef struct cosa_integrator cosa_integrator;
typedef struct cosa_unit cosa_unit;
typedef struct cosa_unitset cosa_unitset;
typedef struct cosa_fmu cosa_fmu;

/* What a method needs of an FMU unit (cosa_model_units_opts.need); an FMU
 * that lacks it is refused with the capability in
 * cosa_model_units_error.missing. */
enum {
    COSA_MODEL_UNITS_NEED_STATE = 1u << 0,       /* snapshots (canGetAndSetFMUState):
                                                    rejected steps, restored runs  */
    COSA_MODEL_UNITS_NEED_DIRECTIONAL = 1u << 1, /* directional derivatives          */
    COSA_MODEL_UNITS_NEED_JACOBIAN = 1u << 2     /* Jacobians: directional derivatives
                                                    (unless force_fd), else the state
                                                    for finite differences          */
};
/* (Output derivatives need nothing of an FMU: cosa derives them from the
 * unit's Jacobians, not from fmi3GetOutputDerivatives.) */

/* How cosa_model_units_create builds the units of a model.  Subsystems of a
 * model file written `fmu NAME = PATH` are FMU units (the FMU itself, its
 * parameters set where they differ from its own start values); the others
 * are linear units of the linear form (integ->kind COSA_INTEGRATOR_EXACT)
 * or ODE units with integrator integ (cvode, rk4, symplectic Euler, ...).
 * sys and os are the model's forms at par when the caller has them (they
 * stay the caller's); NULL: built here where needed (and owned by the
 * result). */
typedef struct cosa_model_units_opts {
    const cosa_integrator *integ; /* required                                       */
    const cosa_system *sys;       /* linear form at par, or NULL                    */
    const cosa_odesys *os;        /* ODE form at par, or NULL                       */
    unsigned need;                /* COSA_MODEL_UNITS_NEED_* of FMU units           */
    int force_fd;                 /* FMU Jacobians by finite differences through the
                                     state even where directional derivatives exist */
    int coupling;                 /* put the ODE form's coupling variables u = phi(y)
                                     and band onto the set (cosa_unitset_set_coupling) */
    int fmu_linearized;           /* `fmu` subsystems as units of their linearisation
                                     (the linear form), not the FMU itself          */
    /* an FMU logger (cosa_fmu_log_fn; NULL: logging off) and its user data */
    void (*log)(void *user, const char *instance, int status, const char *category,
                const char *message);
    void *log_user;
} cosa_model_units_opts;

/* Why cosa_model_units_create failed: the subsystem (sub; nsub when no
 * subsystem in particular), its FMU's path (NULL for no FMU), the
 * COSA_MODEL_UNITS_NEED_* capability the FMU lacks (0: another failure),
 * what the FMU has (COSA_FMU_CAP_*), and one line from the FMU or the
 * importer (or ""). */
typedef struct cosa_model_units_error {
    size_t sub;
    const char *fmu;
    unsigned missing;
    unsigned caps;
    char msg[512];
} cosa_model_units_error;

/* The units of model m at parameter values par and their unit set
 * (u = L y, or coupling variables with opts->coupling).  Status: COSA_OK;
 * COSA_EINVAL (NULL argument, no integrator, exact units of a model without
 * a linear form); COSA_EUNSUPPORTED (an FMU lacks a capability of
 * opts->need: err->missing; or the integrator cannot run a subsystem, e.g.
 * symplectic Euler without a position/velocity split: err->fmu NULL);
 * COSA_EFMU or another status from an FMU (err->msg says why); the status
 * of building the ODE form, a unit or the set.  err may be NULL.  Free the
 * result with cosa_model_units_free. */
typedef struct cosa_model_units cosa_model_units;
cosa_status cosa_model_units_create(const cosa_model *m, const double *par,
                                    const cosa_model_units_opts *opts, cosa_model_units **out,
                                    cosa_model_units_error *err);
void cosa_model_units_free(cosa_model_units *mu);
/* The unit set; its units (nsub entries, in subsystem order); the FMUs
 * behind them (nsub entries, NULL where a unit is no FMU); how many are
 * FMUs; per subsystem 1 where an FMU's MBCorr gains come from its own steps
 * (no directional derivatives, or force_fd: cosa_master_opts.step_gains),
 * else 0; the ODE form the units use (NULL with linear units only). */
cosa_unitset *cosa_model_units_set(const cosa_model_units *mu);
size_t cosa_model_units_count(const cosa_model_units *mu);
cosa_unit *const *cosa_model_units_units(const cosa_model_units *mu);
cosa_fmu *const *cosa_model_units_fmus(const cosa_model_units *mu);
size_t cosa_model_units_nfmu(const cosa_model_units *mu);
const unsigned char *cosa_model_units_step_gains(const cosa_model_units *mu);
const cosa_odesys *cosa_model_units_odesys(const cosa_model_units *mu);

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
enum { COSA_MODEL_FILE_FMU_FD = 1u << 0, COSA_MODEL_FILE_FMU_DD = 1u << 1,
       /* black boxes (doc/black-box.md): every FMU identified from its
        * input/output behaviour (cosa_ident_run), or none (an FMU without
        * declared states is then its static gain D, as before); neither: an
        * FMU without declared states is identified, the others linearised */
       COSA_MODEL_FILE_FMU_IDENTIFY = 1u << 2, COSA_MODEL_FILE_FMU_DECLARED = 1u << 3 };
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
/* The interface the file asked for that FMU (`fmu NAME cs|me = PATH`:
 * COSA_FMU_IFACE_CS, _ME; else COSA_FMU_IFACE_AUTO, 0). */
int cosa_model_file_fmu_iface(const cosa_model *m, size_t i);
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

/* OSP system structures (models/osp_system.c, doc/osp.md): a path ending in
 * .xml is read as libcosim's OspSystemStructure.xml into the same model an
 * SSP gives; what the file says beyond the network: */
typedef struct cosa_ecco_params cosa_ecco_params;
typedef struct cosa_power_bond cosa_power_bond;
typedef struct cosa_osp_info {
    int ecco;                        /* Algorithm: 1 ecco, 0 fixedStep (default) */
    double base_step;                /* BaseStepSize [s] (libcosim's default 0.1) */
    int has_end;                     /* EndTime given (it is the model's tend)   */
    const cosa_ecco_params *params;  /* EccoConfiguration, or NULL               */
    size_t nbond;                    /* power bonds, resolved into u/y indices   */
    const cosa_power_bond *bonds;
    const char *const *bond_names;   /* nbond: their powerBond names            */
    size_t nsub, nx;                 /* simulators; states their FMUs declare   */
    const double *L;                 /* the coupling u = L y (nu x ny)          */
} cosa_osp_info;
/* The OSP information of model m, or NULL when m was not read from one. */
const cosa_osp_info *cosa_model_file_osp(const cosa_model *m);
/* The k-th Integer/Boolean/String start value (OSP InitialValues) of FMU
 * subsystem i: 1 with *name and *value (text), 0 past the last one. */
int cosa_model_file_fmu_text_start(const cosa_model *m, size_t i, size_t k, const char **name,
                                   const char **value);
/* An identified FMU subsystem (doc/black-box.md): its order, the probe
 * step and figures of the identification at the default parameter values. */
typedef struct cosa_model_file_ident {
    const char *name;  /* the subsystem's name (a view into the model)        */
    size_t order;      /* states of the identified model (0: a static gain)   */
    double h;          /* probe step [s]; Phi is exact at multiples of it for
                          a sampled FMU (fixed_step > 0)                       */
    double fixed_step; /* the FMU's fixedInternalStepSize, 0 if none          */
    double fit;        /* relative output error on the validation input       */
    double nonlin;     /* relative difference of two amplitudes' responses    */
    double tvar;       /* relative difference of a pulse one step later's     */
    int nonlinear;     /* nonlin above max(fit, COSA_LINEARITY_TOL)            */
    double x0_resid;   /* how badly x0 explains the free response (x0 = 0 when
                          this is above 1e-6)                                 */
    size_t steps;      /* FMU steps the identification took                   */
    int silent_out;    /* index + 1 of an output no input moves, else 0        */
    int y_offset;      /* 1: its free response is a transient around constant
                          outputs (affine): x0 relative to that equilibrium   */
    int step_outputs;  /* 1: the FMU updates its outputs only in doStep (an
                          input set shows one step later): identified in the
                          held reading, as a co-simulation reads it           */
} cosa_model_file_ident;
/* 1 with *info (may be NULL) when subsystem i of model file m is an
 * identified FMU, else 0 (also for any other model). */
int cosa_model_file_identified(const cosa_model *m, size_t i, cosa_model_file_ident *info);
/* The number of subsystems of model file m (0 for any other model). */
size_t cosa_model_file_nsub(const cosa_model *m);
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
