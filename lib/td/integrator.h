/* integrator.h -- private: the integrators of ODE units as a const descriptor
 * table (lib/td/integrator.c), in the manner of GSL's gsl_odeiv2_step_type.
 * A new integrator is a new table entry: a descriptor with its alloc, step,
 * reset and free operations; explicit Runge-Kutta methods are Butcher-tableau
 * data run by one generic stepper. */
#ifndef COSA_TD_INTEGRATOR_H
#define COSA_TD_INTEGRATOR_H

#include "cosa/td.h"

/* What an integrator sees of the ODE unit it advances: the unit (its time
 * t_c, state and input polynomial), the ODE and the configuration.  The
 * pointers stay valid for the unit's lifetime. */
struct integ_problem {
    cosa_unit *u;
    const cosa_ode *ode;
    const cosa_integrator *cfg;
};

/* xdot = f(t_c + tau, x, u(t_c + tau)); uw (nu) is scratch for the input.
 * Returns f's code (0 on success). */
int integ_rhs(const struct integ_problem *pb, double tau, const double *x, double *xdot,
              double *uw);

/* An explicit Runge-Kutta method: s stages, c_i, a_ij (j < i) and weights
 * b_j = b_num[j] / b_den (integers over a common denominator, so that the
 * weighted sum of the stages is formed exactly as written by hand). */
#define INTEG_RK_STAGES_MAX 4
struct butcher_tableau {
    int stages;
    double c[INTEG_RK_STAGES_MAX];
    double a[INTEG_RK_STAGES_MAX][INTEG_RK_STAGES_MAX];
    double b_num[INTEG_RK_STAGES_MAX];
    double b_den;
};

typedef struct integrator_type {
    const char *name;               /* canonical name ("rk4")                  */
    cosa_integrator_kind kind;
    int order;                      /* classical order (0: not an ODE method)  */
    int adaptive;                   /* 1: error-controlled internal steps      */
    int needs_kick;                 /* 1: needs cosa_ode.kick                  */
    int line_output;                /* 1: the derivatives and the mid sample of
                                       the numerical solution are those of the
                                       step's chord (forward Euler: defect
                                       paper eqs 45-47; exact for one micro
                                       step per macro step)                   */
    const struct butcher_tableau *tableau; /* explicit RK data, or NULL        */
    /* state for one unit (NULL ops: the method has no state) */
    cosa_status (*alloc)(const struct integrator_type *it, const struct integ_problem *pb,
                         void **state);
    /* advance from the unit's (t_c, x) by h into xnew (nx); on failure the
     * unit's message says why */
    cosa_status (*step)(const struct integrator_type *it, const struct integ_problem *pb,
                        void *state, double h, double *xnew);
    /* a new run starts (a new state was set): forget what was learnt */
    void (*reset)(void *state);
    /* doubles of state a snapshot must keep (0: none), and their copy */
    size_t (*saved_len)(const struct integ_problem *pb);
    void (*save)(const void *state, double *buf);
    void (*restore)(void *state, const double *buf);
    void (*free)(void *state);
} integrator_type;

/* The descriptor of kind, or NULL for COSA_INTEGRATOR_EXACT (linear units
 * only) and out-of-range kinds. */
const integrator_type *integrator_lookup(cosa_integrator_kind kind);

/* The CVODE steppers (lib/td/integrator_cvode.c). */
extern const integrator_type integrator_cvode_bdf, integrator_cvode_adams;

#endif
