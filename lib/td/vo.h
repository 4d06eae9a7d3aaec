/* vo.h -- private parts of the variable-order engine (issue 11): the run's
 * state shared by the engine (vo_run.c), its estimators (vo_estimator.c)
 * and the polynomial helpers (vo_poly.c). */
#ifndef COSA_TD_VO_H
#define COSA_TD_VO_H

#include "cosa/td.h"

#define VO_DEGMAX (COSA_VO_KMAX + 2) /* P^{k+2} of the order test */
#define VO_NH (COSA_VO_KMAX + 4)     /* history points kept       */

/* ---- Lagrange polynomials on non-uniform nodes (vo_poly.c) ---------------- */

/* Monomial coefficients B (n x n, B[j + m n] = coefficient of s^m of the
 * basis polynomial l_j) of the Lagrange basis on the n distinct nodes s. */
void vo_lagrange_basis(int n, const double *s, double *B);
/* The polynomial through (s_j, V[:, j]), j = 0..n-1 (V: nc x n, ld ldv) as
 * monomial coefficients in s: A (nc x n, ld nc). */
void vo_poly_fit(size_t nc, int n, const double *s, const double *V, size_t ldv, double *A);
/* The divided difference f[s_0..s_d] of every component (V: nc x (d+1), ld
 * ldv) into dd (nc): the leading coefficient of the degree-d interpolant. */
void vo_divided_difference(size_t nc, int d, const double *s, const double *V, size_t ldv,
                           double *dd);

/* ---- the run ------------------------------------------------------------------ */

struct vo {
    cosa_unitset *set;
    cosa_master *m;
    size_t nunits, nx, nu, ny, nc;
    const double *S;           /* nu x nc, or NULL: S = I (nc = nu)          */
    cosa_vo_opts o;
    int feedthrough;           /* some unit has dg/du != 0: update by the loop */
    /* history, newest first: T[j] = T_{N-j}, C[:, j] = u_{N-j} */
    size_t nh;
    double T[VO_NH];
    double *C;                 /* nc x VO_NH                                  */
    /* the step being attempted: T_N -> T_N + H with degree k */
    double H;
    int k;
    double s[VO_NH];           /* s_j = (T_{N-j} - T_N) / H                   */
    double *coef;              /* nc x (VO_DEGMAX+1): polynomial in s         */
    double *cder, *uder;       /* nc, nu x (VO_DEGMAX+1): derivatives at T_N  */
    double *V;                 /* nc x (VO_DEGMAX+2): node values scratch     */
    double *xN;                /* nx: states at T_N                           */
    double *x1, *y1, *c1;      /* the step's states, outputs, u_{N+1}         */
    double *xh, *yh;           /* comparative (explicit) or predictor states  */
    double *cpred;             /* nc: P^k(T_{N+1}) (u^ext, u^pre)             */
    double *epsx, *epsu;       /* nx, nc: the error estimate                  */
    double cpos[2], cvel[2];   /* C^k, C^{k+1} of the step (eq 17, 20)        */
    unsigned char *is_vel;     /* nx                                          */
    unsigned char *cbody;      /* nx: coupling-body states                    */
    int corr_iters, corr_failed;
    /* implicit corrector */
    double *G;                 /* ny x nu: dy/du along the node's basis       */
    double *GS;                /* ny x nc: G S                                */
    cosa_status *ust;          /* nunits: statuses of the parallel gains      */
    size_t *woff;              /* nunits: each unit's slice of fdwork         */
    double *Jc, *Phy;          /* nc x nc, nc x ny                            */
    double *g, *dc, *cstar;    /* nc                                          */
    double *tmp;               /* nu: the inputs at t_s (structure)           */
    void *ipiv;                /* lapack_int[nc]                              */
    cosa_unit_snapshot **snaps;/* nunits: FD perturbations                    */
    double *fdwork;            /* per unit: nu_i (DEGMAX+1) + ny_i            */
    char msg[160];
};

/* The iteration entry of a variable-order run's coupling (lib/core/
 * iteration.c): explicit none, implicit newton (its corrector); none for o
 * NULL or an unknown coupling. */
const cosa_iteration_type *cosa_iteration_of_vo(const cosa_vo_opts *o);

/* The controller table's entries of sect. 5 (vo_control.c; lib/td/control.c
 * lists them). */
extern const cosa_controller_type vo_controller_order, vo_controller_step;

/* The attempt's error vector (v->epsx or v->epsu) from the run's
 * estimator (vo_estimator.c): +inf entries when it fails. */
void vo_estimate(struct vo *v);

/* Polynomial of the step (into v->coef) and its inputs (v->uder):
 * extrapolation of degree d through T_N..T_{N-d}, or (node1 = 1) the degree-d
 * interpolation through (T_{N+1}, c1v), T_N..T_{N-d+1}. */
void vo_build_extrapolation(struct vo *v, int d);
void vo_build_interpolation(struct vo *v, int d, const double *c1v);
/* The value of v->coef (degree d) at s = 1 into c (nc). */
void vo_poly_at_end(const struct vo *v, int d, double *c);

#endif
