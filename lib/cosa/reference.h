/* cosa/reference.h -- reference trajectories (the monolithic solution, sampled) and
 * their distance (NRMSE).
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_REFERENCE_H
#define COSA_REFERENCE_H

#include "cosa/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* References: trajectories and their distance                              */
/* ======================================================================== */

/* ---- Reference trajectories (the monolithic solution, sampled) -------------- */

/* "Reference" names three different things in cosa; each has its own name:
 * the reference *trajectory* here (time-domain samples of the monolithic
 * solution), the reference *propagation matrix* Phi* (cosa_phi_ref_build)
 * and the *monolithic* system matrices A*, C* (cosa_system_monolithic).
 *
 * A reference trajectory sampled at t_k = k H, k = 0..nsamples-1. */
typedef struct cosa_reftraj {
    size_t nx, ny, nsamples;
    double H;
    double *x;    /* nx x nsamples, column k = x(t_k)  */
    double *y;    /* ny x nsamples, column k = y(t_k)  */
    int exact;    /* 1: matrix exponential, 0: CVODE    */
    double rtol;  /* CVODE tolerance (0 when exact)     */
    long nsteps;  /* CVODE internal steps (0 when exact) */
    int loop;     /* cosa_reftraj_cosim: 1 when it solved an algebraic
                     loop at every fine point                        */
    int none;     /* cosa_reftraj_none: no reference -- only the start-up
                     samples are known, the rest NaN                 */
} cosa_reftraj;

/* No reference (black boxes, doc/simulate-black-box.md): a trajectory of
 * nsamples samples at H with the unit set's sizes whose first samples are
 * known's (may be NULL: then x(0) is the units' current states), the rest
 * NaN, and none = 1.  A fixed-step run on it (cosa_cosim_run, cosa_run)
 * starts as usual, computes no e_global (NaN) and takes its divergence
 * bound from the known samples' outputs (none: no bound but finiteness
 * when they are all 0).  COSA_EINVAL (sizes, known longer than nsamples),
 * COSA_ERANGE (H). */
cosa_status cosa_reftraj_none(const cosa_unitset *set, const cosa_reftraj *known, double H,
                              size_t nsamples, cosa_reftraj **out);

/* Exact reference of a linear coupled system: x_{k+1} = exp(A* H) x_k,
 * y_k = C* x_k (eq 35). */
cosa_status cosa_reftraj_exact(const cosa_system *sys, const double *x0, double H,
                               size_t nsamples, cosa_reftraj **out);
/* The same at the given times (strictly increasing, times[0] = 0, else
 * COSA_ERANGE): x(t_k) = exp(A* t_k) x0, one exponential per sample; H = 0. */
cosa_status cosa_reftraj_exact_at(const cosa_system *sys, const double *x0, size_t nsamples,
                                  const double *times, cosa_reftraj **out);
/* Reference of any unit set: the coupled system as one ODE,
 * x' = f(t, x, L y) with y = g(t, x, L y) solved by Newton inside the
 * right-hand side (the set's loop solver, warm-started), integrated by CVODE
 * BDF at relative tolerance rtol (e.g. 1e-12) from x0 at t = 0 and stopped at
 * every sample.  Two passes: the first finds the amplitude m_i of every state
 * over the samples, the second integrates with atol_i = rtol max(m_i, 1e-6
 * max_j m_j).  Uses only the units' model evaluations (cosa_unit_eval,
 * cosa_unit_jacobian), not their integrators or states.  COSA_ENOTCONVERGED
 * if CVODE fails. */
cosa_status cosa_reftraj_cvode(cosa_unitset *set, const double *x0, double H, size_t nsamples,
                               double rtol, cosa_reftraj **out);
/* Reference of a unit set by a fine co-simulation of the same units (for
 * units cosa cannot integrate as one ODE, e.g. nonlinear FMUs): scheme s
 * (e.g. SOH) at macro step H / factor from x0 at t = 0 (outputs from the
 * algebraic loop: cosa_master_init_loop), sampled every factor steps: x and
 * the (corrected) outputs.  Its error is the fine scheme's, O((H/factor)^(p+1))
 * plus its start-up.  The units are left at the end of the run (the
 * co-simulation that uses the reference sets their states again).
 * exact = 0, rtol = 0, nsteps = fine macro steps.
 * When units with direct feedthrough close an algebraic loop at x0
 * (cosa_unitset_find_loop), extrapolating the loop's outputs is unstable
 * (README "FMU import": an eigenvalue mu of D L under extrapolation of order
 * p is stable iff every (p+1)-th root w of (mu - 1)/mu has |1 - w| > 1, for
 * real mu < 0 iff |mu| < 1/(2^(p+1) - 1)); the loop is then solved at every
 * fine point instead (cosa_unitset_loop_solve at the committed states), the
 * degree-p extrapolation runs on those consistent outputs, the outputs
 * sampled are them, and loop = 1.  s must then be plain Jacobi (no
 * corrections: COSA_EUNSUPPORTED).  Without a loop the run is the plain
 * one, bitwise. */
cosa_status cosa_reftraj_cosim(cosa_unitset *set, const cosa_scheme *s, const double *x0,
                               double H, size_t nsamples, unsigned factor, cosa_reftraj **out);
/* A reference from n samples computed elsewhere (e.g. a monolithic
 * simulation tool's result): times t (strictly increasing, covering [0,
 * (nsamples - 1) H] within 1e-9 H), outputs Y (ny x n) and states X (nx x n)
 * or, without them (X = NULL), only the initial state x0 (the states at the
 * other samples are then NaN: a co-simulation can start from it at t = 0
 * only, i.e. p = 0).  The value at t_k = k H is the sample there (within
 * 1e-9 H), else the cubic through the four nearest samples (the two or three
 * there are when n < 4): exact for cubics, error O(dt^4 y'''') for smooth
 * data sampled dt apart.  exact = 0, rtol = 0, nsteps = n.  COSA_EINVAL for
 * times that do not increase, COSA_ERANGE when they do not cover the run,
 * COSA_ENONFINITE for NaN/Inf. */
cosa_status cosa_reftraj_samples(size_t nx, size_t ny, size_t n, const double *t, const double *X,
                                 const double *x0, const double *Y, double H, size_t nsamples,
                                 cosa_reftraj **out);
void cosa_reftraj_free(cosa_reftraj *r);

/* ---- NRMSE of sampled trajectories (lib/td/trajectory_nrmse.c) ----------- */

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/reference.h"
#endif
#endif /* COSA_REFERENCE_H */
