/* phi_impl.h -- private workspace for discretisation and Phi assembly. */
#ifndef COSA_PHI_IMPL_H
#define COSA_PHI_IMPL_H

#include "cosa.h"
#include <lapacke.h>

/* Per-subsystem cache of the last discretisation: the (A_i, B_i, dt, p) it
 * was computed for.  A subsystem whose matrices did not change (e.g. the
 * uncoupled mass of a two-mass sweep over c_k, d_k) is not recomputed. */
struct cosa_disc_cache {
    int valid;
    int p;
    double dt;
    double *AB; /* copy of [A_i | B_i] (nx_i x (nx_i + nu_i)) used last */
};

struct cosa_phi_workspace {
    size_t nsub, nx, nu, ny;
    int pmax;
    size_t dimmax;
    cosa_expm_workspace *ew; /* order up to max(vanloan size, nx) */
    double *M, *E;           /* Van Loan scratch (vl x vl)          */
    size_t vl;               /* largest Van Loan order               */
    /* stacked discretisation for the current (dt, p) */
    double *Ad;              /* nx x nx                              */
    double *Q;               /* (pmax+1) blocks nx x nu              */
    struct cosa_disc_cache *cache;
    /* Phi assembly scratch */
    double *P;               /* (pmax+1) blocks nx x nu: P_j         */
    double *PL;              /* nx x ny                              */
    double *Y;               /* ny x dimmax: raw/corrected output rows */
    double *Gp, *G0;         /* ny x nu                              */
    double *IGL;             /* ny x ny                              */
    lapack_int *ipiv;        /* ny                                   */
    double *tmp_yu;          /* ny x nu                              */
    /* reference */
    double *Astar, *Cstar, *Adstar, *work_xy; /* nx*nx, ny*nx, nx*nx, nx*ny */
    double *xk, *xk1;        /* nx vectors                           */
    double *Tref;            /* dimmax x nx: reference basis T (cosa_z0_build) */
    /* Gauss-Seidel assembly */
    double *gsR;             /* (pmax+1) blocks ny x dimmax: output polynomials */
    double *gsU;             /* (pmax+1) blocks nu x dimmax: input polynomials  */
    unsigned char *done;     /* nsub flags: advanced in this macro step         */
    size_t *owner;           /* ny: subsystem owning each output                */
    size_t *sub_dims;        /* nsub x 3: nx_i, nu_i, ny_i of the system it was sized for */
};

/* 1 if workspace w was sized for a system with the same subsystem split as
 * sys (totals and every nx_i, nu_i, ny_i) and for order p. */
int cosa_phi_workspace_fits(const cosa_phi_workspace *w, const cosa_system *sys, int p);

/* Coefficient tables for order p (exact small rationals, computed in double):
 * lag[j*(p+1)+m]: monomial coefficient of s^m of the Lagrange basis l_j(s) for
 *                 nodes s = 0, -1, ..., -p;
 * e[j]          : l_j(1) = (-1)^j binom(p+1, j+1);
 * w[m]          : coefficients of w_p(s) = s(s+1)...(s+p-1)/p!  (w_0 = 1);
 * returns kappa_p = int_0^1 w_{p+1}(s) ds. */
double cosa_order_tables(int p, double *lag, double *e, double *w);

/* Lagrange basis on the p+1 nodes first, first-1, ..., first-p:
 * lag[j*(p+1)+m] = coefficient of s^m of l_j(s). */
void cosa_lagrange_table(int p, double first, double *lag);

#endif
