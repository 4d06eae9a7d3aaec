/* energy.h -- the energy paper's indicators and correction during a run
 * (lib/td/energy.c), private to lib/td: the driver feeds it every macro
 * point and applies the correction force it returns. */
#ifndef COSA_TD_ENERGY_H
#define COSA_TD_ENERGY_H

#include "cosa/td.h"

typedef struct energy_acc energy_acc;

/* Accounting for N + 1 macro points (n = 0..N) of a run with nx states, nu
 * inputs, ny outputs over the power port (the unit set's); checks its
 * indices.  COSA_EINVAL, COSA_ENOMEM. */
cosa_status energy_acc_create(const cosa_energy_opts *opt, const cosa_energy_port *port,
                              size_t nx, size_t nu, size_t ny, size_t N, double H,
                              energy_acc **out);
void energy_acc_free(energy_acc *a);
/* Macro point n (0, 1, ... in order): the state x_n, the reference state
 * xref(t_n) and the raw outputs y_n.  With the correction, off (nu, may be
 * NULL) receives the input offset for the step [t_n, t_{n+1}]: f^c_n on the
 * port's inputs, 0 elsewhere. */
cosa_status energy_acc_point(energy_acc *a, size_t n, const double *x, const double *xref,
                             const double *y, double *off);
/* The series so far (owned by the caller after this; a is left empty). */
cosa_energy_result *energy_acc_take(energy_acc *a);

/* from cosa/run.h: used only inside lib/ (not part of the installed API) */
void cosa_energy_result_free(cosa_energy_result *r);

#endif
