/* cosa/control.h -- error estimators (defects, variable-order estimators) and step
 * controllers (variable order, macro-step, PI).
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_CONTROL_H
#define COSA_CONTROL_H

#include "cosa/stepping.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Error estimators: defects ------------------------------------------- */
/* (After the defect paper, section 3; issue 12 "Per step".) */

/* On a step [t_k, t_{k+1}], H = t_{k+1} - t_k, with s in it:
 *   output polynomial  Y(s) = sum_{j<=n} y^(j)(t_{k+1}) (s - t_{k+1})^j / j!;
 *   input polynomial   U(s) = sum_{j<=m} u^(j)(t_k) (s - t_k)^j / j!;
 *   connection defect  U - Y_src (eq 17), Y_src = sum_l L_il Y_l for input i;
 *   output-defect estimate  Hhat - Y = c (s - t_{k+1})^(n+1) (eqs 30, 32), c
 *     such that Hhat(t_k + H/2) = ymid, the output sampled mid-step;
 * each measured by its RMS over the step, sqrt(int delta^2 ds / H) (run
 * figures: sqrt(sum_k H_k rms_k^2 / T)). */
typedef enum cosa_defect_control {
    COSA_DEFECT_BOTH = 0,       /* eps = max over outputs and inputs        */
    COSA_DEFECT_OUTPUT,         /* eps = max over the output defects only   */
    COSA_DEFECT_CONNECTION      /* eps = max over the connection defects    */
} cosa_defect_control;
#define COSA_DEFECT_EPS_FLOOR 1e-16 /* eps is never below this (eq 38) */

/* ---- Variable-order error estimators (lib/td/vo_estimator.c) ------------- */
/* (After the variable-order paper.) */

/* Error estimators (sect. 4): entries of a table.  Each estimates the local
 * error of a macro step and reports scaled (WRMS) norms:
 *   exlocal   eq 15: |z - z^|, z^ from a second integration with the degree
 *             k+1 extrapolation (explicit);
 *   exmilne   eq 19/20: (C^{k+1}/C^k) |z - z^|, z^ from the degree-k
 *             interpolation through (T_{N+1}, P^{k+1}(T_{N+1})) (explicit);
 *   exslocal  eq 21: |P^k(T_{N+1}) - u_{N+1}| on coupling variables (explicit);
 *   immilne   eq 22/23: (1 - C^{k+1}/C^k) |z^pre - z| (implicit);
 *   imslocal  eq 24: |u^pre_{N+1} - u_{N+1}| on coupling variables (implicit).
 * C^k: eq 17 (positions) and eq 20 (velocities) for the step's own nodes. */
/* An estimator is a const descriptor (issue 23: a user may write one and
 * pass it in cosa_run_opts.estimator).  After the step T_N -> T_N + H of
 * degree k is integrated, the engine calls estimate() with what it saw
 * (arrays borrowed for the call) and the descriptor's user_data; estimate
 * writes the error vector eps (nx entries if on_states, else nc) and
 * returns COSA_OK.  The engine takes its WRMS norms (eqs 25-27).  Any other
 * status makes the norms +inf: the step fails the local error test (as a
 * unit's failure does).  comparative (explicit coupling only): 1 = the
 * engine first integrates a comparative solution with the degree k+1
 * extrapolation, 2 = with the degree-k interpolation through
 * (T_{N+1}, P^{k+1}(T_{N+1})), 0 = none. */
typedef struct cosa_vo_step_view {
    size_t nx, nc;               /* states, coupling variables               */
    int k;                       /* the step's degree                        */
    double H;                    /* its macro step                           */
    const double *x1;            /* nx: z_{N+1}, the step's states           */
    const double *xh;            /* nx: the comparative (explicit,
                                    comparative > 0) or predictor (implicit)
                                    states; NULL for neither                 */
    const double *c1;            /* nc: u_{N+1} (updated or corrected)       */
    const double *cpred;         /* nc: P^k(T_{N+1}) (u^ext, u^pre)          */
    const unsigned char *is_vel; /* nx: 1 velocity, 0 position               */
    double cpos[2], cvel[2];     /* C^k, C^{k+1} of eqs 17, 20 on the step's
                                    nodes (cosa_vo_error_constants)          */
} cosa_vo_step_view;
typedef struct cosa_vo_estimator {
    const char *name;
    int implicit;                /* 1: implicit coupling, 0: explicit        */
    int on_states;               /* 1: eps on states (eq 32 alpha), 0: on u  */
    int comparative;             /* 0, 1 or 2 (above)                        */
    cosa_status (*estimate)(const cosa_vo_step_view *s, double *eps, void *user_data);
    void *user_data;
} cosa_vo_estimator;
const cosa_vo_estimator *cosa_vo_estimator_lookup(const char *name); /* NULL: unknown */
const char *cosa_vo_estimator_name(const cosa_vo_estimator *e);

/* ---- Step controllers: variable order and macro-step control ------------- */
/* (After the variable-order paper; issue 11.) */

/* Order and macro-step control (sect. 5, Figs 6-7), after every attempted
 * macro step T_N -> T_N + H_N of degree k:
 *  1. local error test (eqs 25-27): the step passes if its error norm
 *     (max(err_pos, err_vel) for estimators on states, err_u for those on
 *     coupling variables) is <= 1 and the corrector (implicit) converged;
 *     M = N + 1 if it passed, else M = N (eq 28);
 *  2. order (order = 1 only; sect. 5.2.2): with SDN(j) of the history ending
 *     at T_M (hist->sdn),
 *       k = 1 and SDN(1) <= SDN(2)/2                   -> k_new = 0,
 *       k > 1 and max(SDN(k), SDN(k-1)) <= SDN(k+1)    -> k_new = k - 1,
 *       N_fail > 5 -> 0;  N_fail > 3 -> min(k_new, 1);
 *     then, only after a passed step whose decrease tests left k unchanged,
 *     with k < kmax and N_succ > k:
 *       k = 0 and SDN(2) < SDN(1)/2                    -> 1,
 *       k > 0 and SDN(k) <= min(SDN(k+1), SDN(k+2))    -> k - 1,
 *       k > 0 and SDN(k+2) < SDN(k+1)                  -> k + 1;
 *     N_succ counts passed steps in a row at degree k; a degree change, a
 *     failed step or a step smaller than its predecessor restarts it (the
 *     next passed step counts 1);
 *  3. step (sect. 5.3, eqs 32-34): unchanged degree: r = min((SF err_pos)^(-1/(k+3)),
 *     (SF err_vel)^(-1/(k+2))) or (SF err_u)^(-1/(k+1)); changed degree:
 *     r = (SF ||eps~||)^(-1/(k_new+1)) with eps~ of eq 31 (hist->etilde); r =
 *     inf for a zero norm; then N_fail = 0: H = rmax H_N if r >= rmax,
 *     min(0.9, max(rmin, r)) H_N if r < 1, else H_N; N_fail = 1:
 *     min(0.9, max(0.25, 0.9 r)) H_N; N_fail > 1 or a failed corrector:
 *     0.25 H_N; H <= hmin: the run stops (decision.stop). */
typedef struct cosa_vo_control_params {
    int order;        /* 1: order and step size; 0: step size only          */
    int kmax;         /* 0..COSA_VO_KMAX                                     */
    double sf;        /* safety factor SF > 0 (6)                            */
    double rmin;      /* < 1 (0.5)                                           */
    double rmax;      /* > 1 (2)                                             */
    double hmin;      /* > 0 (1e-12): a positive floor                       */
} cosa_vo_control_params;
#define COSA_VO_KMAX 8

/* What the controller knows of the attempted step. */
typedef struct cosa_vo_control_input {
    double H;          /* H_N                                                */
    int k;             /* its degree                                         */
    int state_est;     /* 1: estimator on states (eq 32 alpha), 0: on u (beta) */
    double err_pos, err_vel; /* WRMS norms (state estimators)                */
    double err_u;      /* WRMS norm (coupling-variable estimators)           */
    int corr_failed;   /* 1: the implicit corrector did not converge         */
} cosa_vo_control_input;

/* The history the order and step decisions read, ending at T_M (passed = 1:
 * M = N + 1, the new point included; 0: M = N):
 *   sdn(ctx, passed, j)     SDN(j), j >= 1: the WRMS norm (weights atol_u +
 *                           rtol |u_M|) of j! times the leading coefficient
 *                           of P^j through T_M .. T_{M-j}, written in
 *                           s = (t - T_M) / H_N; negative: not available
 *                           (too little history: that test is skipped);
 *   etilde(ctx, passed, k)  the WRMS norm of eps~ (eq 31) of degree k at
 *                           T_{M+1} = T_M + H_N. */
typedef struct cosa_vo_history {
    double (*sdn)(void *ctx, int passed, int j);
    double (*etilde)(void *ctx, int passed, int k);
    void *ctx;
} cosa_vo_history;

/* The controller's memory between attempts (zero it, then cosa_vo_control_reset). */
typedef struct cosa_vo_control_state {
    int nfail;         /* failed attempts of the current step                */
    int nsucc;         /* passed steps in a row at the current degree        */
    int restart;       /* the next passed step restarts nsucc                */
    double hprev;      /* the last passed step (0: none yet)                 */
} cosa_vo_control_state;

typedef struct cosa_vo_decision {
    int accept;        /* 1: the step passed (commit), 0: repeat it          */
    int k;             /* degree of the next attempt                         */
    double H;          /* its macro step                                     */
    double r;          /* r^rho before the limits (inf: zero norm)           */
    int stop;          /* 1: H <= hmin, the run stops                        */
} cosa_vo_decision;

/* ---- Step-size controllers ------------------------------------------------- */

/* A controller turns the error measure err of the step h just taken into the
 * next step (as SUNDIALS' SUNAdaptController_EstimateStep and GSL's
 * gsl_odeiv2_control hadjust).  Variants are const descriptors in a table;
 * the generic layer (lib/td/control.c) validates arguments and keeps the
 * parameters and the type's state (nstate <= 4 doubles), so stepping never
 * allocates.  Parameters: tol the target of err (> 0); kp, ki gains; grow
 * the largest growth per step, h_next <= grow h (> 1; +inf: no cap). */
typedef struct cosa_controller_params {
    double tol;
    double kp, ki;
    double grow;
    cosa_vo_control_params vo; /* the order and step rules' ("order", "step";
                                  vo.rmax is grow); the others keep hmin     */
} cosa_controller_params;

/* A controller type:
 *   defaults  fill the type's default kp, ki, grow (tol is the caller's);
 *   reset     a new run starts with the step h0;
 *   next      from (h, err > 0) the next step *hnext > 0 and whether the step
 *             just taken is accepted (*accept = 1) or must be repeated with
 *             *hnext (0: the caller restores the units, cosa_master_reject);
 *             the state is updated. */
typedef struct cosa_controller_type {
    const char *name;
    int nstate;
    void (*defaults)(cosa_controller_params *p);
    cosa_status (*reset)(const cosa_controller_params *p, double *state, double h0);
    cosa_status (*next)(const cosa_controller_params *p, double *state, double h, double err,
                        double *hnext, int *accept);
    /* (may be NULL) the variable-order engine's decision after an attempt
     * (cosa_controller_decide): step, acceptance and the next degree; NULL:
     * the generic layer drives next() with the attempt's error norm and
     * keeps the degree */
    cosa_status (*decide)(const cosa_controller_params *p, double *state,
                          const cosa_vo_control_input *in, const cosa_vo_history *hist,
                          cosa_vo_decision *out);
} cosa_controller_type;

/* The table: "pi" -- the PI law on the logarithm of the error of the defect
 * paper (eq 39; defaults KP = 0.13, KI = 1/15, grow = 2, eq 50):
 *   e = ln tol - ln err;  I' = I + KI e;  H' = exp(I' + KP e);
 *   H_next = min(H', grow h);  I = I' + ln H_next - ln H';  I_0 = ln h0;
 * it always accepts (the paper's method is non-iterative).
 * "fixed" -- h_next = h0 whatever err: a constant step inside a controlled
 *   run (its estimator still runs every step; the steps' times are summed
 *   and the last one ends at T by the one end clip).  A run with no
 *   controller (NULL) takes the fixed-step rule instead: floor(T/H) steps on
 *   the grid t0 + k H and a short last one to T (doc/architecture.md).
 * "order", "step" -- the variable-order paper's order and macro-step control
 * (sect. 5, cosa_vo_control_decide; "step" keeps the degree): their decide()
 * is the engine's; their next() is the same rules for a scalar error norm
 * err (<= 1 passes) of a degree-0 estimate on coupling variables, r = (SF
 * err)^-1, with the limits of sect. 5.3. */
size_t cosa_controller_type_count(void);
const cosa_controller_type *cosa_controller_type_at(size_t i); /* NULL past the end */
const cosa_controller_type *cosa_controller_lookup(const char *name); /* NULL: unknown */

typedef struct cosa_controller cosa_controller;

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/control.h"
#endif
#endif /* COSA_CONTROL_H */
