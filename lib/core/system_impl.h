/* system_impl.h -- private layout of cosa_system. */
#ifndef COSA_SYSTEM_IMPL_H
#define COSA_SYSTEM_IMPL_H

#include "cosa/core.h"
#include <lapacke.h>

struct cosa_sub_info {
    size_t nx, nu, ny;  /* dimensions                         */
    size_t ox, ou, oy;  /* offsets into stacked x, u, y       */
    unsigned long gen;  /* bumped whenever the matrices change */
};

struct cosa_system {
    size_t nsub, nx, nu, ny;
    struct cosa_sub_info *sub;
    /* Stacked block-diagonal matrices (eq 5), column-major, ld = rows. */
    double *A, *B, *C, *D;
    double *L;            /* nu x ny                                  */
    /* Scratch for the algebraic-loop check: ny x ny matrix and pivots. */
    double *work_ny;
    double *work_con;     /* 4 ny for dgecon                          */
    lapack_int *ipiv_ny;
    lapack_int *iwork_ny;
    double *req, *ceq;    /* row/column equilibration of I - D L (dgeequ) */
    int loop_ok;          /* the factorisation in work_ny is that of the stored D, L */
    int loop_stale;       /* D or L changed since the last factorisation            */
};

/* Solve (I - D L) X = B in place (B ny x nrhs, ld ldb) with the equilibrated
 * LU computed by the last successful validation. */
void system_algloop_solve(const cosa_system *sys, size_t nrhs, double *B, size_t ldb);

/* Allocation-free form of cosa_system_monolithic: Cstar must not be NULL;
 * work holds nx*ny doubles. */
cosa_status system_monolithic_work(const cosa_system *sys, double *Astar, double *Cstar,
                                       double *work);

#endif
