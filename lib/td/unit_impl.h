/* unit_impl.h -- private layout of a co-simulation unit (lib/td/unit*.c).
 * The built-in unit types (linear, ODE) read these fields directly; unit
 * types outside lib/td/ use the accessors of cosa/td.h. */
#ifndef COSA_TD_UNIT_IMPL_H
#define COSA_TD_UNIT_IMPL_H

#include "cosa/td.h"

struct cosa_unit {
    const cosa_unit_type *type;
    size_t nx, nu, ny;
    double t;         /* current time t_c                                   */
    double *x;        /* nx: current state (owner of all double buffers)    */
    int deg;          /* degree of the input polynomial                     */
    double t_in;      /* origin of the input polynomial                     */
    double *coef;     /* nu x (COSA_UNIT_DEGMAX+1), ld nu:
                         u(t_in + tau) = sum_k coef_k tau^k                 */
    double *uwork;    /* nu: input value scratch                            */
    double *xnew;     /* nx: step result                                    */
    /* finite-difference scratch */
    double *fdx, *fdu, *fdf1, *fdf2, *fdg1, *fdg2; /* nx, nu, nx, nx, ny, ny */
    /* the last step, which fixes the state derivatives (issue 12 section 1) */
    int stepped;      /* 1: a step since the last set_state                  */
    double h_last;    /* its length                                          */
    int sdeg;         /* degree of its input polynomial                      */
    double *xprev;    /* nx: the state at its start                          */
    double *scoef;    /* nu x (COSA_UNIT_DEGMAX+1): its input polynomial,
                         about its start                                     */
    /* derivative and mid-sample scratch */
    double *xbak, *cbak;   /* nx, nu x (DEGMAX+1): state and input at step start */
    double *xder, *uder;   /* nx x (DERMAX+1), nu x (DERMAX+1)                 */
    double *jA, *jB, *jC, *jD; /* nx x nx, nx x nu, ny x nx, ny x nu          */
    double *xmid;          /* nx                                                */
    char msg[512];    /* last failure                                        */
    cosa_unit_counters count; /* what the unit did (cosa_unit_get_counters)  */
    /* events (lib/td/unit_event.c) */
    int events;       /* the type handles events (cosa_unit_set_events)      */
    int may_stop;     /* the current step may end early (do_step_event)      */
    double h_done;    /* the current step's length as done (<= h)            */
    int pending;      /* Event Mode is pending at the unit's time            */
    double t_event;   /* the next time event announced (INFINITY: none)      */
    /* an end of the simulation the unit asked for (lib/td/unit_end.c) */
    int end_ok;       /* the caller ends the run on request (else the type refuses) */
    int end_asked;    /* the last step asked for the end at its end           */
    void *impl;
};

/* The model rule for the state derivatives at the unit's current point
 * (the default of cosa_unit_type.state_derivatives): x' = f(t_c, x, u),
 * x^(j) = A x^(j-1) + B u^(j-1) for j >= 2 with A = df/dx, B = df/du at
 * (t_c, x, u^(0)) (cosa_unit_jacobian).  xder, uder as that operation. */
/* Derivatives d^j/dtau^j of sum_m c_m tau^m (degree deg, nu rows, ld nu) at
 * tau, j = 0..n, into out (nu x (n+1), ld nu). */
void unit_poly_derivs(size_t nu, int deg, const double *c, double tau, int n, double *out);

/* A reference trajectory of nx states and ny outputs at nsamples samples
 * H apart, zeroed (lib/td/reftraj.c; also used by reftraj_cosim.c). */
cosa_status reftraj_alloc(size_t nx, size_t ny, size_t nsamples, double H, cosa_reftraj **out);

/* Central-difference step for entry j of z (length n): cbrt(eps) max(|z_j|,
 * 1e-3 ||z||_inf) (cbrt(eps) if z is 0), exactly representable. */
double unit_fd_step(size_t n, const double *z, size_t j);

cosa_status unit_model_derivatives(cosa_unit *u, int n, const double *uder, double *xder);

/* from cosa/units.h: used only inside lib/ (not part of the installed API) */
int cosa_unit_input_degree(const cosa_unit *u);

/* The last step since the state was set: returns 1 and its length *h and the
 * state at its start *xprev (nx; either pointer may be NULL), or 0 if no
 * step was taken since cosa_unit_set_state. */
int cosa_unit_last_step(const cosa_unit *u, double *h, const double **xprev);

void cosa_unit_counters_reset(cosa_unit *u);

/* For type implementers: the counters to update (NULL for u NULL). */
cosa_unit_counters *cosa_unit_counters_of(cosa_unit *u);

/* For type implementers: events on or off for this unit (the master asks
 * cosa_unit_has_events); inside step, whether the caller accepts an early
 * end, and the end reached (h_done < h: early; ignored when the caller does
 * not accept it) with event = 1 when Event Mode is pending there; the next
 * time event (INFINITY or NaN: none). */
void cosa_unit_set_events(cosa_unit *u, int on);

int cosa_unit_step_may_stop(const cosa_unit *u);

void cosa_unit_step_stopped(cosa_unit *u, double h_done, int event);

/* An end of the simulation a unit asks for (an FMU's terminateSimulation;
 * lib/td/unit_end.c).  A run path that can end a run there allows it on
 * every unit (cosa_unitset_allow_end) for the run and off again after; a
 * type asks only where allowed (else it fails the step as before), after a
 * completed step, with its message (cosa_unit_fail) saying who asked and
 * when.  set_state and restore (a rollback) forget the request: only an
 * accepted step ends a run. */
void cosa_unit_allow_end(cosa_unit *u, int on);
int cosa_unit_end_allowed(const cosa_unit *u);
void cosa_unit_ask_end(cosa_unit *u);
int cosa_unit_end_asked(const cosa_unit *u);
/* Every unit of set: allow_end(on). */
void cosa_unitset_allow_end(cosa_unitset *set, int on);
/* The first unit of set that asked for the end, or (size_t)-1. */
size_t cosa_unitset_end_asked(const cosa_unitset *set);

void cosa_unit_set_next_event(cosa_unit *u, double t);

void *cosa_odesys_data(const cosa_odesys *s);

#endif
