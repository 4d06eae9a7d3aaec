/* unitset_impl.h -- private accessors of a unit set (lib/td/unitset.c) that
 * only lib/td uses: rates, port, coupling, band, inputs, counters. */
#ifndef COSA_TD_UNITSET_IMPL_H
#define COSA_TD_UNITSET_IMPL_H

#include "cosa/td.h"

/* from cosa/units.h: used only inside lib/ (not part of the installed API) */
unsigned cosa_unitset_rate(const cosa_unitset *set, size_t i); /* 1 if none */

const cosa_energy_port *cosa_unitset_port(const cosa_unitset *set);

int cosa_unitset_has_coupling(const cosa_unitset *set);

int cosa_unitset_band(const cosa_unitset *set, size_t *lower, size_t *upper);

/* S (nu x nc), or NULL without a coupling (S = I). */
const double *cosa_unitset_coupling_S(const cosa_unitset *set);

/* c = phi(t, y) (nc) and J = dphi/dy (nc x ny; may be NULL); without a
 * coupling c = L y, J = L.  COSA_ENONFINITE if phi gives NaN/Inf. */
cosa_status cosa_unitset_coupling_eval(const cosa_unitset *set, double t, const double *y,
                                       double *c, double *J);

/* The inputs of outputs y: u = S phi(t, y) (or L y), dudy = du/dy (nu x ny;
 * may be NULL).  Uses the set's scratch (not for concurrent use). */
cosa_status cosa_unitset_inputs(cosa_unitset *set, double t, const double *y, double *u,
                                double *dudy);

/* Every unit's counters to zero (cosa_unit_counters_reset): each run does
 * this at its start, so the counters are that run's. */
void cosa_unitset_counters_reset(cosa_unitset *set);

/* cosa_unitset_loop_solve, also reporting the Newton iterations done and the
 * residual ||y - g(t, x, L y)||_inf at the last iterate evaluated (NULL:
 * not wanted); on success the residual is the one before the last update. */
cosa_status cosa_unitset_loop_solve_stats(cosa_unitset *set, double t, const double *x,
                                          double *y, int *iterations, double *residual);

/* Taylor inputs (defect paper eq 15, Algorithm 1 step 1): every unit's input
 * polynomial of degree q is set to u^(j) = L y^(j), j = 0..q, from the
 * stacked output derivatives yder (ny x (q+1) at least, ld ldy >= ny) at the
 * units' current time.  Uses the set's workspace. */
cosa_status cosa_unitset_set_taylor_inputs(cosa_unitset *set, int q, const double *yder,
                                           size_t ldy);

/* THE coupling evaluation every time-domain route uses: rows r0 .. r0+nr-1
 * of U = L Y + c e_0' for ncol columns of Y (ny x ncol, ld ldy): column 0 a
 * value of the outputs, columns 1.. their derivatives or polynomial
 * coefficients, which the constant c does not enter.  U ld ldu >= nr. */
void cosa_unitset_couple(const cosa_unitset *set, size_t r0, size_t nr, size_t ncol,
                         const double *Y, size_t ldy, double *U, size_t ldu);

/* Discrete signals (discrete.c): the set's list (NULL: none), where
 * discrete.c keeps it; td_discrete_free releases one (NULL is ignored). */
struct td_discrete;
struct td_discrete **cosa_unitset_discrete_slot(cosa_unitset *set);
void td_discrete_free(struct td_discrete *d);
/* The affine term c of u = L y + c for writing (nu entries), made (zeros)
 * if the set has none; NULL when out of memory or nu = 0.  The discrete
 * Float64 signals that feed continuous inputs write their rows of it. */
double *cosa_unitset_input_offset_rw(cosa_unitset *set);

#endif /* COSA_TD_UNITSET_IMPL_H */
