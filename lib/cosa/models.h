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
    const double *step;              /* nsub: each Simulator's stepSize [s], 0 when
                                        not given (fixedStep steps it every
                                        step/base_step base steps; doc/osp.md) */
} cosa_osp_info;
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

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/models.h"
#endif
#endif /* COSA_MODELS_H */
