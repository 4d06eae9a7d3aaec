/* fmu_impl.h -- private parts of the FMU importer (lib/td/fmu*.c). */
#ifndef COSA_FMU_IMPL_H
#define COSA_FMU_IMPL_H

#include "cosa/td.h"
#include "td/fmi2_types.h"
#include "td/fmi3_types.h"

#include <stddef.h>

/* The parsed modelDescription.xml (fmu_description.c). */
typedef struct fmu_description {
    int version;               /* 2 or 3                                         */
    char *model_name, *token;  /* modelName; instantiationToken (3) / guid (2)   */
    char *identifier;          /* CoSimulation modelIdentifier                   */
    unsigned caps;             /* COSA_FMU_CAP_* flags                           */
    int max_output_der;        /* maxOutputDerivativeOrder                        */
    int smoothness;            /* recommendedIntermediateInputSmoothness (3.0), 0 */
    double fixed_step;         /* fixedInternalStepSize (3.0), 0 if absent        */
    double default_step;       /* DefaultExperiment stepSize, 0 if absent         */
    cosa_fmu_var *vars;        /* the Float64 (3) / Real (2) variables          */
    size_t nvar;
    size_t *states, *derivs;   /* indices into vars: state i, its derivative     */
    size_t nstate;
    size_t *inputs, *outputs;  /* continuous inputs and outputs, then the clocked
                                  ones (fmu_clocks.c)                          */
    size_t nin, nout;
    size_t nin_step;           /* the first nin_step inputs are set in Step Mode;
                                  the others are clocked (3.0): set in Event
                                  Mode when a clock of theirs ticks             */
    cosa_fmu_other *other;     /* the variables cosa does not read (other types,
                                  Float64 arrays), for fmu-info              */
    size_t nother;
    double start_time, stop_time; /* DefaultExperiment (NaN where absent)     */
    cosa_fmu_clock *clocks;    /* the Clock variables (fmu_clocks.c)         */
    size_t nclock;
    int iface;                 /* the interface asked for (COSA_FMU_IFACE_*)   */
    size_t nevent;             /* Model Exchange: event indicators (3.0: the
                                  EventIndicator elements of ModelStructure;
                                  2.0: numberOfEventIndicators)               */
} fmu_description;

/* Parse path (a modelDescription.xml); 0, or -1 with a one-line message in
 * err (no file name: the caller adds it). */
int fmu_description_read(const char *path, unsigned flags, fmu_description *d, char *err,
                         size_t errsize);
/* The same with the interface iface (COSA_FMU_IFACE_*): AUTO is
 * co-simulation where the FMU offers it, else model exchange. */
int fmu_description_read_as(const char *path, int iface, unsigned flags, fmu_description *d,
                            char *err, size_t errsize);
void fmu_description_free(fmu_description *d);
/* The Clock variables of ModelVariables (mv) into d->clocks, and the
 * `clocks` attribute of d's Float64 variables resolved into indices of
 * that list (fmu_clocks.c; after the variables are read).  0, or -1 with a
 * one-line message in err (a bad intervalVariability, a clocks attribute
 * naming no Clock).  Clocked discrete Float64 outputs are appended to
 * d->outputs, clocked discrete Float64 inputs to d->inputs (after the
 * d->nin_step continuous ones). */
struct _xmlNode;
int fmu_clocks_read(struct _xmlNode *mv, fmu_description *d, char *err, size_t errsize);
void fmu_clocks_free(fmu_description *d);

/* The clock schedule of an FMU instance (fmu_clock_sched.c): when its
 * periodic input clocks tick -- t_k = t0 + shift + k * interval, k an
 * integer counter, computed afresh from the time so that a restored
 * snapshot needs no clock state -- and how often each clock ticked
 * (input clocks activated, output clocks seen active). */
typedef struct fmu_clock_sched {
    size_t n;                  /* the FMU's clocks (description order)       */
    double t0;                 /* the instance's start time                  */
    double *interval, *shift;  /* periodic input clocks; NaN for the others  */
    unsigned long *ticks;      /* per clock                                  */
    double *last;              /* the last activation time per clock: no
                                  second activation at the same time; reset
                                  when the instance's state is restored
                                  (fmu_clock_sched_forget)                     */
    double *at;                /* per clock: an output clock's last tick seen;
                                  a triggered input clock's activation asked
                                  for at that time (NaN: none)                 */
    unsigned *vr;              /* n scratch                                  */
    fmi3Clock *val;            /* n scratch                                  */
} fmu_clock_sched;
/* Resolve the schedule of the instance inst of m started at t0 (in Event
 * Mode after initialisation): constant clocks from the description; fixed,
 * calculated and tunable ones from fmi3GetIntervalDecimal and
 * fmi3GetShiftDecimal.  0; an FMU status > 1 with *fn the failing call; -1
 * with why (a clock cosa cannot activate: an aperiodic input clock, a
 * missing clock function, an interval <= 0); -2 out of memory.  A
 * triggered input clock ticks when asked for (at[i] = t: a linked output
 * clock ticked, cosa_unit_fmu_clock_link). */
int fmu_clock_sched_init(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t0,
                         const char **fn, char *why, size_t whysize);
void fmu_clock_sched_free(fmu_clock_sched *c);
/* The instance went back in time (an FMU state set): forget the last
 * activations and the triggers asked for. */
void fmu_clock_sched_forget(fmu_clock_sched *c);
/* The next tick after t (INFINITY: none). */
double fmu_clock_sched_next(const fmu_clock_sched *c, double t);
/* Whether an input clock ticks at t (to the rounding of
 * fmu_clock_sched_activate); pending: only one not activated at t yet. */
int fmu_clock_sched_due(const fmu_clock_sched *c, double t, int pending);
/* In Event Mode at t: fmi3SetClock for the periodic input clocks that tick at t, and the
 * triggered ones asked for at t
 * (to rounding: 1e-9 interval + 4 eps |t|, the drift of a time summed from
 * step lengths).  0, or the FMU's status > 1 of
 * fmi3SetClock; *nact = the clocks activated. */
int fmu_clock_sched_activate(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t,
                             size_t *nact);
/* In Event Mode at t after fmi3UpdateDiscreteStates: fmi3GetClock of the
 * output clocks, their ticks counted and at[i] = t for those active.  0,
 * or the FMU's status > 1. */
int fmu_clock_sched_collect(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t);

/* Unzip archive into a new private directory (mkdtemp under TMPDIR) whose
 * name is stored in dir (size >= 4096); entries that would leave it (an
 * absolute name or a ".." component) are refused.  0, or -1 with a message
 * in err and nothing left on disk. */
int fmu_archive_extract(const char *archive, char *dir, size_t dirsize, char *err,
                        size_t errsize);
/* Remove the directory tree dir (the extracted FMU). */
void fmu_archive_remove(const char *dir);

/* The functions of a loaded binary (NULL where the FMU does not export an
 * optional one). */
typedef struct fmu_functions3 {
    fmi3GetVersionTYPE *GetVersion;
    fmi3InstantiateCoSimulationTYPE *InstantiateCoSimulation;
    fmi3FreeInstanceTYPE *FreeInstance;
    fmi3EnterInitializationModeTYPE *EnterInitializationMode;
    fmi3ExitInitializationModeTYPE *ExitInitializationMode;
    fmi3TerminateTYPE *Terminate;
    fmi3DoStepTYPE *DoStep;
    fmi3GetFloat64TYPE *GetFloat64;
    fmi3SetFloat64TYPE *SetFloat64;
    fmi3GetFMUStateTYPE *GetFMUState;
    fmi3SetFMUStateTYPE *SetFMUState;
    fmi3FreeFMUStateTYPE *FreeFMUState;
    fmi3GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi3EnterEventModeTYPE *EnterEventMode;             /* hasEventMode */
    fmi3UpdateDiscreteStatesTYPE *UpdateDiscreteStates;
    fmi3EnterStepModeTYPE *EnterStepMode;
    /* clocks (optional: NULL when absent) */
    fmi3GetClockTYPE *GetClock;
    fmi3SetClockTYPE *SetClock;
    fmi3GetIntervalDecimalTYPE *GetIntervalDecimal;
    fmi3SetIntervalDecimalTYPE *SetIntervalDecimal;
    fmi3GetShiftDecimalTYPE *GetShiftDecimal;
    /* start values of other types (optional: NULL when absent) */
    fmi3SetInt32TYPE *SetInt32;
    fmi3SetBooleanTYPE *SetBoolean;
    fmi3SetStringTYPE *SetString;
    /* discrete signals (fmu_discrete.c; optional) */
    fmi3GetInt32TYPE *GetInt32;
    fmi3GetInt64TYPE *GetInt64;
    fmi3SetInt64TYPE *SetInt64;
    fmi3GetBooleanTYPE *GetBoolean;
    /* Model Exchange */
    fmi3InstantiateModelExchangeTYPE *InstantiateModelExchange;
    fmi3EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi3CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi3SetTimeTYPE *SetTime;
    fmi3SetContinuousStatesTYPE *SetContinuousStates;
    fmi3GetContinuousStateDerivativesTYPE *GetContinuousStateDerivatives;
    fmi3GetEventIndicatorsTYPE *GetEventIndicators;
    fmi3GetContinuousStatesTYPE *GetContinuousStates;
    fmi3GetNumberOfEventIndicatorsTYPE *GetNumberOfEventIndicators;
} fmu_functions3;

typedef struct fmu_functions2 {
    fmi2GetVersionTYPE *GetVersion;
    fmi2InstantiateTYPE *Instantiate;
    fmi2FreeInstanceTYPE *FreeInstance;
    fmi2SetupExperimentTYPE *SetupExperiment;
    fmi2EnterInitializationModeTYPE *EnterInitializationMode;
    fmi2ExitInitializationModeTYPE *ExitInitializationMode;
    fmi2TerminateTYPE *Terminate;
    fmi2DoStepTYPE *DoStep;
    fmi2GetRealTYPE *GetReal;
    fmi2SetRealTYPE *SetReal;
    fmi2SetRealInputDerivativesTYPE *SetRealInputDerivatives;
    fmi2GetFMUstateTYPE *GetFMUstate;
    fmi2SetFMUstateTYPE *SetFMUstate;
    fmi2FreeFMUstateTYPE *FreeFMUstate;
    fmi2GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi2SetIntegerTYPE *SetInteger; /* start values of other types (optional) */
    fmi2SetBooleanTYPE *SetBoolean;
    fmi2SetStringTYPE *SetString;
    fmi2GetIntegerTYPE *GetInteger; /* discrete signals (fmu_discrete.c; optional) */
    fmi2GetBooleanTYPE *GetBoolean;
    fmi2GetBooleanStatusTYPE *GetBooleanStatus; /* a Discard's fmi2Terminated (optional) */
    fmi2GetRealStatusTYPE *GetRealStatus;       /* its fmi2LastSuccessfulTime (optional) */
    /* Model Exchange */
    fmi2EnterEventModeTYPE *EnterEventMode;
    fmi2NewDiscreteStatesTYPE *NewDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi2SetTimeTYPE *SetTime;
    fmi2SetContinuousStatesTYPE *SetContinuousStates;
    fmi2GetDerivativesTYPE *GetDerivatives;
    fmi2GetEventIndicatorsTYPE *GetEventIndicators;
    fmi2GetContinuousStatesTYPE *GetContinuousStates;
} fmu_functions2;

struct cosa_fmu {
    char dir[4096];       /* the unzipped FMU (removed on close)   */
    char res3[4200];      /* FMI 3.0 resourcePath: DIR/resources/ (absolute)  */
    char res2[3 * 4200];  /* FMI 2.0 fmuResourceLocation: file:// URI of it   */
    fmu_description desc;
    void *lib;            /* dlopen handle                        */
    fmu_functions3 f3;    /* version 3                            */
    fmu_functions2 f2;    /* version 2                            */
};

/* from cosa/fmu.h: used only inside lib/ (not part of the installed API) */
/* recommendedIntermediateInputSmoothness of the CoSimulation element (3.0;
 * 0 when absent or for 2.0): the number of continuous derivatives the FMU
 * recommends for inputs set during a step. */
int cosa_fmu_input_smoothness(const cosa_fmu *fmu);

cosa_status cosa_fmu_open_as(const char *path, int iface, cosa_fmu **out, char *err,
                             size_t errsize);

#endif
