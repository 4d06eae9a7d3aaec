/* unit_impl.h -- private layout of a co-simulation unit (lib/unit*.c). */
#ifndef COSA_UNIT_IMPL_H
#define COSA_UNIT_IMPL_H

#include "cosa/td.h"

#include <lapacke.h>
#include <stdarg.h>

/* A unit type: how it steps and evaluates its model. */
struct cosa_unit_ops {
    const char *name;
    /* Advance u->x from u->t by h under the current input polynomial; write
     * the new state into xnew (nx).  u->t and u->x must not change. */
    cosa_status (*step)(cosa_unit *u, double h, double *xnew);
    /* xdot = f(t, x, uin), y = g(t, x, uin); either output may be NULL. */
    cosa_status (*eval)(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y);
    /* Analytic Jacobians (NULL if the unit has none); outputs may be NULL. */
    cosa_status (*jac)(cosa_unit *u, double t, const double *x, const double *uin, double *A,
                       double *B, double *C, double *D);
    void (*destroy)(cosa_unit *u); /* frees u->impl */
    void (*reset)(cosa_unit *u);   /* may be NULL: forget history on set_state */
    int linear;
};

struct cosa_unit {
    const struct cosa_unit_ops *ops;
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
    char msg[192];    /* last failure                                        */
    void *impl;
};

/* Allocate the common part (ops, dimensions, buffers); impl is left NULL. */
cosa_status cosa_unit_alloc(const struct cosa_unit_ops *ops, size_t nx, size_t nu, size_t ny,
                            cosa_unit **out);

/* u(t_in + tau) into v (nu entries), by Horner on the coefficients. */
void cosa_unit_input_at(const cosa_unit *u, double tau, double *v);

/* Record a failure message (printf-style) in u->msg. */
void cosa_unit_fail(cosa_unit *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Workspace of the loop solver for a given unit set (sizes: ny, nu totals). */
struct cosa_loop_ws {
    size_t nunits, nx, nu, ny;
    double *u, *g, *D, *J, *r; /* nu, ny, ny x nu, ny x ny, ny */
    double *Di;                /* ny x nu: one unit's D         */
    lapack_int *ipiv;          /* ny                            */
    void *owner;
};
cosa_status cosa_loop_ws_init(struct cosa_loop_ws *w, size_t nunits, cosa_unit *const *units);
void cosa_loop_ws_free(struct cosa_loop_ws *w);
/* cosa_units_loop_solve with a caller-owned workspace (no allocation). */
cosa_status cosa_units_loop_solve_ws(size_t nunits, cosa_unit *const *units, const double *L,
                                     double t, const double *x, double *y,
                                     struct cosa_loop_ws *w);

#endif
