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
    char msg[192];    /* last failure                                        */
    void *impl;
};

#endif
