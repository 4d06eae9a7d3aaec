/* unit_fmu_impl.h -- private layout of an FMU unit (lib/td/unit_fmu.c) and
 * its Event Mode (lib/td/fmu_event.c). */
#ifndef COSA_TD_UNIT_FMU_IMPL_H
#define COSA_TD_UNIT_FMU_IMPL_H

#include "td/fmu_impl.h"

/* A snapshot's FMU state and the instance it belongs to: an FMU state is
 * only valid for the instance that made it, and setting the unit's state
 * instantiates the FMU again.  The unit keeps its live snapshots in a list;
 * freeing an instance frees their FMU states through it first, and a
 * snapshot of an earlier instance cannot be restored (COSA_EFMU). */
/* A start value of an Integer (Int32), Boolean or String variable. */
struct fmu_text_start {
    unsigned vr;
    char kind;  /* 'i' Integer/Int32, 'b' Boolean, 's' String */
    int ival;   /* 'i', 'b' */
    char *sval; /* 's' */
};

typedef struct fmu_snapshot {
    void *fs;                /* the FMU state, or NULL                        */
    unsigned long serial;    /* the instance it belongs to                    */
    double *clk_last;        /* the clocks' last activations then (n = nclk)  */
    size_t nclk;
    struct fmu_snapshot *prev, *next;
} fmu_snapshot;

/* A clock link (fmu_clock_link.c): when this unit's output clock `out`
 * ticks, the triggered input clock `in` of unit `to` ticks at that time. */
typedef struct fmu_clock_link {
    cosa_unit *to;
    size_t out, in;          /* indices into the two FMUs' clock lists        */
} fmu_clock_link;

typedef struct fmu_unit {
    cosa_fmu *fmu;           /* borrowed                                      */
    cosa_unit *unit;         /* the unit this is the implementation of        */
    double *uim;             /* nu: inputs for an intermediate update         */
    double *uder;            /* nu x (DEGMAX+1): input derivatives at t_c     */
    char name[64];           /* instance name                                 */
    void *inst;              /* fmi3Instance / fmi2Component                  */
    int bad;                 /* the last (re)instantiation failed             */
    char why[1024];          /* ... and why                                   */
    char log[256];           /* the last message the FMU logged               */
    unsigned *vx, *vdx, *vu, *vy; /* value references                         */
    double *tmp;             /* max(nx, nu, ny) scratch                       */
    unsigned *starts_vr;     /* recorded start values                         */
    double *starts;
    size_t nstart;
    struct fmu_text_start *tstarts; /* start values of Integer/Boolean/String
                                       parameters (cosa_unit_fmu_set_start_text) */
    size_t ntstart;
    fmi2CallbackFunctions cb2;
    unsigned long serial;    /* counts instantiations: which instance a
                                snapshot's FMU state belongs to           */
    fmu_snapshot *snaps;     /* the live snapshots                            */
    cosa_unit *helper;       /* a second instance for points other than the
                                current one (created when first needed)      */
    unsigned long nupdate;   /* intermediate-update requests for inputs inside
                                the current fmi3DoStep                        */
    cosa_fmu_log_fn *logger; /* --fmu-log: loggingOn, messages passed on      */
    void *log_user;
    char warning[512];       /* the first Warning status, as one line         */
    int events;              /* events on (cosa_unit_fmu_set_events)          */
    int event_mode_used;     /* the instance's eventModeUsed                  */
    int early_allowed;       /* the instance's earlyReturnAllowed             */
    fmu_clock_sched clk;     /* clocks: the input clocks' ticks, the output
                                clocks seen (fmu_clock_sched.c); n = 0 without
                                clocks or event mode                          */
    fmu_clock_link *links;   /* from this unit's output clocks               */
    size_t nlinks;
    unsigned *driven;        /* per clock of the FMU: the links into it (NULL
                                until the first one)                          */
    int init_hold;           /* instantiate() stays in Initialization Mode
                                (cosa_unit_fmu_init_enter), until
                                cosa_unit_fmu_init_exit                       */
    struct fmu_me *me;       /* Model Exchange (unit_fmu_me.c), else NULL      */
    double me_next;          /* Model Exchange: the next time event (INFINITY) */
} fmu_unit;

/* One line for a failed FMU call fn at time t with status (into the unit's
 * message); COSA_EDISCARD for Discard, else COSA_EFMU (unit_fmu.c). */
cosa_status fmu_unit_fail(cosa_unit *u, const char *fn, double t, int status);
/* Note a Warning status of fn (the first one is kept; unit_fmu.c). */
void fmu_unit_warned(fmu_unit *f, const char *fn, double t, int status);

/* Event Mode of an FMU unit at time t (fmu_event.c): fmi3EnterEventMode
 * unless enter is 0 (the instance is in Event Mode already: after
 * fmi3ExitInitializationMode with eventModeUsed), fmi3UpdateDiscreteStates
 * until discreteStatesNeedUpdate is false (at most COSA_FMU_EVENT_ITER_MAX
 * calls: COSA_EUNSUPPORTED and one line otherwise), fmi3EnterStepMode; the
 * continuous states are read again into x (nx) when the FMU says they
 * changed, and the next time event is announced to the unit
 * (cosa_unit_set_next_event).  Termination asked for: COSA_EFMU.  A clock
 * importer adds its fmi3GetClock / fmi3SetClock calls here, between the
 * updates. */
cosa_status fmu_event_mode(cosa_unit *u, double t, int enter, double *x);
/* The clocks of an instance with eventModeUsed just initialised at t (in
 * Event Mode): its schedule (fmu_clock_sched_init); COSA_OK, or
 * COSA_EUNSUPPORTED / COSA_EFMU with one line in f->why (fmu_event.c). */
cosa_status fmu_clocks_start(cosa_unit *u, double t);
/* After the output clocks of u were read in Event Mode at t: the linked
 * triggered input clocks asked for, their units' next event set to t (the
 * master runs their Event Mode at this point; fmu_clock_link.c). */
void fmu_clock_links_fire(cosa_unit *u, double t);

/* ---- Model Exchange (unit_fmu_me.c) ---- */
/* The integrator and scratch of an ME FMU unit u (f->me). */
cosa_status fmu_me_create(cosa_unit *u);
void fmu_me_free(fmu_unit *f);
cosa_status fmu_me_set_integrator(cosa_unit *u, const cosa_integrator *cfg);
/* fmi3InstantiateModelExchange / fmi2Instantiate(fmi2ModelExchange);
 * log3 is the FMI 3.0 logger (an fmi3LogMessageCallback). */
void *fmu_me_instantiate(fmu_unit *f, void *log3, const fmi2CallbackFunctions *cb2);
/* After ExitInitializationMode: event iteration, Continuous-Time Mode, the
 * initialised states into x (nx); 0, or -1 with one line in f->why. */
int fmu_me_initialised(fmu_unit *f, double t, double *x);
/* The model at (t, x, uin): the derivatives into xdot, outputs into y
 * (either may be NULL); the instance is left at that point. */
cosa_status fmu_me_eval(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y);
cosa_status fmu_me_step(cosa_unit *u, double h, double *xnew);
void fmu_me_reset(fmu_unit *f);
cosa_status fmu_me_save(cosa_unit *u, void **blob);
cosa_status fmu_me_restore(cosa_unit *u, const void *blob);
void fmu_me_free_state(cosa_unit *u, void *blob);

/* ---- discrete signals (fmu_discrete.c) ---- */
/* An Integer, Boolean or Enumeration input or output of an FMU unit, as
 * cosa gets or sets it: value reference, transfer kind ('4' 32-bit, '8'
 * 64-bit, 'b' Boolean) and class (cosa_fmu_discrete_class). */
typedef struct fmu_dport {
    unsigned vr;
    char kind;
    int cls;
} fmu_dport;
/* The port of FMU unit u's discrete input (input 1) or output (0) name:
 * COSA_OK; COSA_EPARAM (no such variable), COSA_EUNSUPPORTED (a type cosa
 * does not exchange, a get/set function the FMU does not export) with one
 * clause in why; COSA_EINVAL for a unit that is no FMU. */
cosa_status fmu_discrete_port(cosa_unit *u, const char *name, int input, fmu_dport *p,
                              char *why, size_t whysize);
/* Get the value of output port p / set input port p (0 or 1 for a
 * Boolean); a failing FMU call fails the unit (one line), a value out of
 * an Int32's range is COSA_ERANGE. */
cosa_status fmu_discrete_get(cosa_unit *u, const fmu_dport *p, long long *v);
/* A Float64 (FMI 3.0) or Real (FMI 2.0) variable as a discrete signal
 * (fmu_discrete.c): an output of variability discrete, fixed, tunable or
 * constant (input = 0), or an input (input = 1; *row its index among the
 * unit's continuous inputs, whose value the set's affine term c carries,
 * or -1 for an input of variability discrete, set directly).  kind 'r',
 * cls 'r'.  COSA_EPARAM (no such variable, a continuous output: it is
 * coupled through L), COSA_EUNSUPPORTED (Float32, clocked) with one clause
 * in why. */
cosa_status fmu_dreal_port(cosa_unit *u, const char *name, int input, fmu_dport *p,
                           long *row, char *why, size_t whysize);
/* 1 if name is a Float64/Real variable of u's FMU (or a Float32 one). */
int fmu_dreal_is_real(cosa_unit *u, const char *name);
cosa_status fmu_dreal_get(cosa_unit *u, const fmu_dport *p, double *v);
cosa_status fmu_dreal_set(cosa_unit *u, const fmu_dport *p, double v);
cosa_status fmu_discrete_set(cosa_unit *u, const fmu_dport *p, long long v);

/* from cosa/fmu.h: used only inside lib/ (not part of the installed API) */
/* Leave Initialization Mode (fmi3/fmi2ExitInitializationMode); COSA_OK if
 * u is not in it.  COSA_EFMU with one line if the FMU fails. */
cosa_status cosa_unit_fmu_init_exit(cosa_unit *u);

#endif
