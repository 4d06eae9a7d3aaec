/* phi_impl.h -- private workspace for discretisation and Phi assembly. */
#ifndef COSA_PHI_IMPL_H
#define COSA_PHI_IMPL_H

#include "cosa/phi.h"
#include <lapacke.h>

struct cosa_phi_workspace {
    size_t nsub, nx, nu, ny;
    int pmax;
    size_t dimmax;
    cosa_disc_workspace *dw; /* stacked discretisation (core), cached */
    cosa_disc_workspace *dwm;/* the same for a scheme's correction model */
    const double *Ad;        /* nx x nx: cosa_disc_Ad(dw)             */
    const double *Q;         /* (pmax+1) blocks nx x nu: cosa_disc_Q  */
    cosa_expm_workspace *ew; /* order nx: exp(A* dt)                  */
    double *M;               /* nx x nx scratch                       */
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
    /* Iterative coupling (lib/phi/phi_iter.c); gsR, gsU and Y have room for
     * qmax + 1 blocks of wmax columns */
    int qmax;                /* min(pmax + 1, COSA_ORDER_MAX): largest interpolation degree */
    size_t wmax;             /* dimmax + ny: columns of [z | yhat]                        */
    double *iX;              /* nx x wmax: x^(j) over the columns                         */
    double *iH;              /* ny x wmax: the iterate yhat^(j)                            */
    double *iS;              /* ny x ny: I - S of the fixed point; the iteration matrix M  */
    double *iwr, *iwi;       /* ny: eigenvalues of M                                       */
    double *icw;             /* 4 ny: dgecon's work                                        */
    lapack_int *iciw;        /* ny: dgecon's integer work                                  */
    size_t *iridx;           /* ny: the outputs R read as relaxed iterates                 */
    size_t *ipos;            /* nsub: position of each subsystem in the sequence           */
    cosa_eig_workspace *ieig;/* order ny                                                   */
};

/* Phi of an implicit scheme or of an explicit Gauss-Seidel scheme with
 * q = p + 1 (lib/phi/phi_iter.c); arguments checked by cosa_phi_build. */
cosa_status phi_build_iter(const cosa_system *sys, const cosa_scheme *s, const cosa_layout *lay,
                           double dt, double *Phi, size_t ld, cosa_phi_workspace *w);

/* 1 if workspace w was sized for a system with the same subsystem split as
 * sys (totals and every nx_i, nu_i, ny_i) and for order p. */
int phi_workspace_fits(const cosa_phi_workspace *w, const cosa_system *sys, int p);

/* from cosa/phi.h: used only inside lib/ (not part of the installed API) */
/* Progress of cosa_nrmse: fn("NRMSE setup (K = T A - Phi T)", dim, done,
 * total, user_data) through the compensated products of its setup, then
 * fn("NRMSE", dim, done, total, user_data) per doubling step (cosa_stage_fn;
 * NULL: none). */
void cosa_nrmse_workspace_set_progress(cosa_nrmse_workspace *w, cosa_stage_fn fn,
                                       void *user_data);

#endif
