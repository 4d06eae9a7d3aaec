/* cosa/fmu.h -- FMU import: opening FMI 3.0 / 2.0 co-simulation FMUs, their variables,
 * clocks, initialisation and capabilities, as units.
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_FMU_H
#define COSA_FMU_H

#include "cosa/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* FMU import                                                               */
/* ======================================================================== */

/* ---- FMU import (lib/td/fmu*.c) ------------------------------------------ */

/* An FMI 3.0 or 2.0 co-simulation FMU, opened: unzipped into a private
 * temporary directory (removed by cosa_fmu_close), modelDescription.xml
 * parsed, the binary for this platform (binaries/x86_64-linux/ID.so for 3.0,
 * binaries/linux64/ID.so for 2.0) loaded and its functions resolved. */
typedef struct cosa_fmu cosa_fmu;

enum cosa_fmu_causality {
    COSA_FMU_PARAMETER, COSA_FMU_CALCULATED_PARAMETER, COSA_FMU_INPUT, COSA_FMU_OUTPUT,
    COSA_FMU_LOCAL, COSA_FMU_INDEPENDENT, COSA_FMU_STRUCTURAL_PARAMETER
};
enum cosa_fmu_variability { COSA_FMU_CONSTANT, COSA_FMU_FIXED, COSA_FMU_TUNABLE,
                            COSA_FMU_DISCRETE, COSA_FMU_CONTINUOUS };

/* A Float64 (3.0) or Real (2.0) variable of the model description. */
typedef struct cosa_fmu_var {
    char *name;
    unsigned vr;            /* valueReference                                 */
    int causality;          /* enum cosa_fmu_causality (default local)        */
    int variability;        /* enum cosa_fmu_variability (default continuous) */
    int has_start;
    double start;
    long derivative_of;     /* index (in the variable list) of the variable it
                               is the derivative of, or -1                     */
    int intermediate_update; /* FMI 3.0 intermediateUpdate="true": settable
                                during a step (intermediate update mode)       */
    const size_t *clocks;   /* FMI 3.0 `clocks` attribute: the clocks the
                               variable belongs to, as indices into the clock
                               list (cosa_fmu_clock_at); NULL if unclocked     */
    size_t nclocks;
} cosa_fmu_var;

/* Capability flags of the CoSimulation element (cosa_fmu_caps). */
enum {
    COSA_FMU_CAP_GET_SET_STATE = 1u << 0,     /* canGetAndSetFMUState (2: ..FMUstate) */
    COSA_FMU_CAP_DIRECTIONAL = 1u << 1,       /* providesDirectionalDerivative(s)      */
    COSA_FMU_CAP_INTERPOLATE_INPUTS = 1u << 2, /* canInterpolateInputs (2.0)          */
    COSA_FMU_CAP_INTERMEDIATE_UPDATE = 1u << 3, /* providesIntermediateUpdate (3.0)   */
    COSA_FMU_CAP_VARIABLE_STEP = 1u << 4,     /* canHandleVariableCommunicationStepSize */
    COSA_FMU_CAP_EVENT_MODE = 1u << 5,        /* hasEventMode (3.0)                     */
    COSA_FMU_CAP_EARLY_RETURN = 1u << 6,      /* canReturnEarlyAfterIntermediateUpdate  */
    COSA_FMU_CAP_CLOCKS = 1u << 7,            /* a Clock variable (3.0)                 */
    COSA_FMU_CAP_SCHEDULED = 1u << 8,         /* a ScheduledExecution element (3.0)     */
    COSA_FMU_CAP_MODEL_EXCHANGE = 1u << 9     /* imported as Model Exchange: no
                                                 CoSimulation element, cosa integrates
                                                 the FMU's derivatives itself           */
};

/* Open the FMU at path.  On failure a status (COSA_EFMU for a bad FMU,
 * COSA_EIO for an unreadable file, COSA_ENOMEM) and a one-line message in
 * err that says what is wrong (no file name: the caller adds it), nothing
 * left on disk, *out = NULL. */
cosa_status cosa_fmu_open(const char *path, cosa_fmu **out, char *err, size_t errsize);
/* The same with flags: COSA_FMU_OPEN_DISCRETE_IO makes the Real inputs and
 * outputs of variability discrete of an FMI 2.0 FMU inputs and outputs too
 * (values sampled at the communication points, as libcosim exchanges
 * them; OSP system structures, doc/osp.md). */
enum {
    COSA_FMU_OPEN_DISCRETE_IO = 1u << 0,
    COSA_FMU_OPEN_CS = 1u << 1, /* the co-simulation interface (COSA_FMU_IFACE_CS)   */
    COSA_FMU_OPEN_ME = 1u << 2  /* the model-exchange interface (COSA_FMU_IFACE_ME) */
};
/* The flag of interface iface (COSA_FMU_IFACE_AUTO, _CS, _ME: 0, CS, ME). */
#define COSA_FMU_OPEN_IFACE(iface) ((unsigned)(iface) << 1)
/* The interface of an FMU that offers both: AUTO (cosa_fmu_open)
 * co-simulation where the FMU has a CoSimulation element, else Model
 * Exchange; CS and ME insist (a missing element is one line in err). */
enum { COSA_FMU_IFACE_AUTO = 0, COSA_FMU_IFACE_CS = 1, COSA_FMU_IFACE_ME = 2 };
/* Unload the binary and remove the temporary directory; NULL is a no-op. */
void cosa_fmu_close(cosa_fmu *fmu);

/* Unzip archive (an FMU, an SSP; kind names it in messages: "not an SSP:
 * ...") into a new private directory under $TMPDIR, whose name is stored in
 * dir (dirsize >= 4096 for long TMPDIRs); an entry with an absolute name or
 * a ".." component is refused before anything is written.  COSA_OK, or
 * COSA_ESYNTAX (not a zip archive, a corrupt or escaping entry), COSA_EIO
 * (cannot read the file or write the directory), COSA_ENOMEM, COSA_EINVAL,
 * with a one-line message in err (no file name) and nothing left on disk.
 * Remove the directory with cosa_archive_remove. */
cosa_status cosa_archive_extract(const char *archive, const char *kind, char *dir,
                                 size_t dirsize, char *err, size_t errsize);

int cosa_fmu_version(const cosa_fmu *fmu);                 /* 2 or 3            */
const char *cosa_fmu_model_name(const cosa_fmu *fmu);
const char *cosa_fmu_identifier(const cosa_fmu *fmu);      /* modelIdentifier   */
size_t cosa_fmu_nvar(const cosa_fmu *fmu);
const cosa_fmu_var *cosa_fmu_var_at(const cosa_fmu *fmu, size_t i);
/* The continuous states (the variables whose derivatives ModelStructure
 * lists), inputs and outputs, as indices into the variable list (SIZE_MAX
 * for i out of range). */
size_t cosa_fmu_nstate(const cosa_fmu *fmu);
size_t cosa_fmu_state(const cosa_fmu *fmu, size_t i);
size_t cosa_fmu_ninput(const cosa_fmu *fmu);
size_t cosa_fmu_input(const cosa_fmu *fmu, size_t i);
size_t cosa_fmu_noutput(const cosa_fmu *fmu);
size_t cosa_fmu_output(const cosa_fmu *fmu, size_t i);
/* A variable cosa does not read: another type than Float64/Real (type is the
 * element's name: Int32, Boolean, String, ...) or an array ("Float64 array",
 * "Clock array", ...).  Scalar Clock variables are not listed here: they are
 * cosa_fmu_clock_at's. */
typedef struct cosa_fmu_other {
    char *name;
    char *type;             /* "Int32", ..., "Float64 array"                  */
    unsigned vr;
    int causality;          /* enum cosa_fmu_causality                        */
    int variability;        /* enum cosa_fmu_variability                      */
} cosa_fmu_other;

/* FMI 3.0 Clock variables (lib/td/fmu_clocks.c; scalar ones: a Clock
 * array is a "Clock array" of cosa_fmu_other_at, which cosa does not drive).  intervalVariability: constant, fixed,
 * calculated and tunable clocks are periodic (interval and shift known to
 * the importer: from the description for constant ones, from
 * fmi3GetIntervalDecimal/fmi3GetShiftDecimal after initialization for the
 * others); changing and countdown clocks are aperiodic, their next interval
 * told by the FMU; triggered clocks tick when the importer (input) or the
 * FMU (output) says. */
enum cosa_fmu_interval_variability {
    COSA_FMU_CLOCK_CONSTANT, COSA_FMU_CLOCK_FIXED, COSA_FMU_CLOCK_CALCULATED,
    COSA_FMU_CLOCK_TUNABLE, COSA_FMU_CLOCK_CHANGING, COSA_FMU_CLOCK_COUNTDOWN,
    COSA_FMU_CLOCK_TRIGGERED
};
typedef struct cosa_fmu_clock {
    char *name;
    unsigned vr;               /* valueReference                              */
    int causality;             /* enum cosa_fmu_causality: input (the importer
                                  activates it), output (the FMU ticks it) or
                                  local                                        */
    int interval_variability;  /* enum cosa_fmu_interval_variability          */
    int periodic;              /* constant, fixed, calculated or tunable      */
    double interval;           /* intervalDecimal [s], or intervalCounter /
                                  resolution; NaN when the description gives
                                  neither                                      */
    double shift;              /* shiftDecimal [s] (or shiftCounter /
                                  resolution); 0 when absent: the first tick
                                  of a periodic clock is at start + shift      */
    int can_be_deactivated;    /* canBeDeactivated                            */
    long priority;             /* priority, -1 when absent                    */
} cosa_fmu_clock;
/* The Clock variables in the description's order; clock_at returns NULL
 * for i out of range. */
size_t cosa_fmu_nclock(const cosa_fmu *fmu);
const cosa_fmu_clock *cosa_fmu_clock_at(const cosa_fmu *fmu, size_t i);
/* DefaultExperiment's startTime and stopTime (NaN where not given). */
double cosa_fmu_start_time(const cosa_fmu *fmu);
double cosa_fmu_stop_time(const cosa_fmu *fmu);

/* The FMU as a unit (lib/td/unit_fmu.c; the FMU must outlive the unit): its
 * continuous states, inputs and outputs in the description's order (FMI 3.0
 * clocked outputs and inputs after them: a clocked input is set only in the
 * Event Mode of its clock's tick, README "Clocks"); one FMU
 * instance named instance_name (NULL: the model identifier), instantiated
 * again whenever the unit's state is set (start values of the states = the
 * state, initialisation at the unit's time), starting at t = 0 with the
 * states' start values.  Input polynomials of degree >= 1 need an FMI 2.0
 * FMU with canInterpolateInputs (fmi2SetRealInputDerivatives) or an FMI 3.0
 * FMU with providesIntermediateUpdate and intermediateUpdate inputs (set to
 * the polynomial's value whenever the FMU asks during a step); else the step
 * fails with COSA_EUNSUPPORTED and says why.  eval and the Jacobians
 * (directional derivatives; without them the generic central differences)
 * run on the FMU at its current time and state, elsewhere on a second
 * instance initialised at that time with those states as start values
 * (assumes no hidden state beyond states and parameters); snapshots need
 * get/set FMU state.
 * An fmi3DoStep whose lastSuccessfulTime is not t + h (to rounding) fails
 * with COSA_EFMU; one that was given a polynomial of degree >= 1 and never
 * asked for its inputs inside the step (intermediate update declared, not
 * used) with COSA_EUNSUPPORTED.  The FMU gets its resources/ directory at
 * instantiation (3.0: a path ending in '/'; 2.0: a file:// URI).
 * A failing FMU call gives COSA_EFMU (COSA_EDISCARD for a Discard: the step
 * could not be completed, a result of the run) and one line in
 * cosa_unit_message;
 * when the first instantiation fails, create returns COSA_EFMU with *out
 * set nonetheless, so that cosa_unit_message says why (free it). */
cosa_status cosa_unit_fmu_create(cosa_fmu *fmu, const char *instance_name, cosa_unit **out);
/* Record a start value for the FMU variable called name (a parameter) and
 * re-instantiate with it (at the unit's time and state).  COSA_EPARAM for
 * an unknown name, COSA_EINVAL if u is not an FMU unit. */
cosa_status cosa_unit_fmu_set_start(cosa_unit *u, const char *name, double value);
/* A = df/dx, B = df/du, C = dg/dx, D = dg/du (column-major, ld = rows) of the
 * FMU unit at its current time and state with the inputs at their start
 * values (0 without one): its operating point after cosa_unit_fmu_create.
 * From the directional derivatives when the FMU provides them and force_fd
 * is 0; else central differences, the states perturbed through fresh
 * instances (their start values; no doStep) and the inputs through eval,
 * steps cbrt(eps) max(|z_j|, 1e-3 ||z||_inf) (cbrt(eps) for z = 0).  The
 * unit is left at its operating point.  An FMU without continuous states
 * (a gain, a table) has only D (A, B, C are empty). */
cosa_status cosa_unit_fmu_linearize(cosa_unit *u, int force_fd, double *A, double *B, double *C,
                                    double *D);
/* A message an FMU logged: the instance's name, the status it logged with
 * (0 OK .. 4 Fatal), its category and text (one message, maybe several
 * lines). */
typedef void cosa_fmu_log_fn(void *user, const char *instance, int status, const char *category,
                             const char *message);
/* FMI 3.0 events (lib/td/fmu_event.c; README "Events"): on = 1 instantiates
 * the FMU again (at the unit's time and state) with eventModeUsed, and
 * earlyReturnAllowed when it declares canReturnEarlyAfterIntermediateUpdate;
 * its steps then may end early at an event (cosa_unit_do_step_event) and
 * Event Mode runs fmi3EnterEventMode, fmi3UpdateDiscreteStates until no
 * further update is needed (at most COSA_FMU_EVENT_ITER_MAX calls, else
 * COSA_EUNSUPPORTED and one line), fmi3EnterStepMode, and reads
 * nextEventTime.  A plain cosa_unit_do_step handles the events inside the
 * step.  on = 0: today's instantiation (no event mode; an FMU asking for
 * event handling fails the step).  COSA_EUNSUPPORTED for on = 1 and an FMU
 * without hasEventMode, or whose binary does not export
 * fmi3EnterEventMode, fmi3UpdateDiscreteStates and fmi3EnterStepMode (one line); COSA_EINVAL if u is not an FMU unit; COSA_EFMU if
 * the new instance fails (cosa_unit_message says why).  An fmi3DoStep that
 * returns early when that was not allowed fails with COSA_EUNSUPPORTED. */
#define COSA_FMU_EVENT_ITER_MAX 100

/* The initialization loop (lib/td/fmu_init.c, README "FMU import"). */
typedef struct cosa_fmu_init_result {
    int loop;          /* 1: FMU units with direct feedthrough are in an algebraic
                          loop (a cycle of u = L y through D != 0); 0: nothing done */
    int iterations;    /* Newton iterations in Initialization Mode              */
    double residual;   /* ||y - g(t, x, L y)||_inf at the last iterate          */
} cosa_fmu_init_result;

/* What an FMU can do for a master (lib/td/fmu_capability.c), read from its
 * model description: the summary a model file carries per FMU subsystem
 * (cosa_model_file_fmu_capability) and every command consults. */
typedef struct cosa_fmu_capability {
    int fmi_version;          /* 2 or 3                                          */
    int input_degree_max;     /* largest input polynomial degree a step accepts:
                                 COSA_UNIT_DEGMAX with FMI 2.0
                                 canInterpolateInputs (fmi2SetRealInputDerivatives
                                 takes any order) or FMI 3.0
                                 providesIntermediateUpdate with every input
                                 intermediateUpdate="true"; else 0 (held inputs);
                                 COSA_UNIT_DEGMAX for an FMU without inputs      */
    int max_output_derivative_order; /* maxOutputDerivativeOrder (what
                                 fmi2/3GetOutputDerivatives may be asked; cosa
                                 extrapolates outputs itself, so it does not
                                 bound the input degree)                         */
    int directional;          /* providesDirectionalDerivative(s): Jacobians     */
    int fmu_state;            /* canGetAndSetFMUState: snapshots, finite
                                 differences through the FMU's state             */
    int variable_step;        /* canHandleVariableCommunicationStepSize          */
    double fixed_step;        /* fixedInternalStepSize (3.0) [s]; 0: not given   */
    double default_step;      /* DefaultExperiment stepSize [s]; 0: not given    */
    int event_mode;           /* hasEventMode (3.0)                              */
    int early_return;         /* canReturnEarlyAfterIntermediateUpdate (3.0)     */
    int clocks;               /* has Clock variables (3.0)                       */
    int scheduled;            /* offers ScheduledExecution too (3.0; cosa uses
                                 CoSimulation only)                              */
    int smoothness;           /* recommendedIntermediateInputSmoothness (0: none) */
    char degree_why[160];     /* why input_degree_max is 0 ("" otherwise)        */
    int model_exchange;       /* imported as Model Exchange (no CoSimulation
                                 element): cosa integrates it, so any input
                                 degree, any step and snapshots (the state is
                                 the continuous states) -- input_degree_max,
                                 variable_step and fmu_state say so            */
} cosa_fmu_capability;

/* The largest input polynomial degree that recommendedIntermediateInputSmoothness
 * k allows (README "FMU import"): k for k >= 1 (derivatives above the k the
 * FMU's solver is built for come from the extrapolation's least accurate
 * terms), COSA_UNIT_DEGMAX for k = 0 or absent (the standard's default). */
int cosa_fmu_smoothness_degree(int k);
/* The capability summary of fmu into *cap (zeroed for NULL fmu). */
void cosa_fmu_capability_get(const cosa_fmu *fmu, cosa_fmu_capability *cap);
/* Whether a co-simulation unit of this FMU can run scheme s: its input
 * polynomials have degree s->order (none needed without inputs: nu = 0),
 * within the smoothness cap (cosa_fmu_smoothness_check),
 * and an output correction (MBCorr) without an assumed model (s->model)
 * needs Jacobians -- directional derivatives, or the FMU's state for finite
 * differences through it.  COSA_OK, or COSA_EUNSUPPORTED with the reason in
 * why (one clause, no FMU name; may be NULL); COSA_EINVAL for NULL cap/s. */
cosa_status cosa_fmu_capability_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size);

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/fmu.h"
#endif
#endif /* COSA_FMU_H */
