/* eig_bound.h -- a rounding bound on the computed dominant eigenvalues of a
 * matrix (lib/core/eig_bound.c), for the stability threshold of rho near 1
 * (lib/phi/evaluate.c).  Private to lib/. */
#ifndef COSA_CORE_EIG_BOUND_H
#define COSA_CORE_EIG_BOUND_H

#include "cosa/core.h"

#include <stddef.h>

/* Bound on the rounding error of the computed eigenvalues of largest modulus
 * of the n x n matrix M (leading dimension lda; not modified), from LAPACK
 * dgeevx's reciprocal eigenvalue condition numbers RCONDE:
 *     *bound = COSA_EIG_BOUND_C * n * eps * ||M_bal||_1 / RCONDE,
 * the largest over the eigenvalues whose modulus is within
 * COSA_RHO_NEAR of the largest.  +inf for a (numerically) defective
 * dominant eigenvalue (RCONDE = 0).  COSA_ENOMEM, COSA_ENONFINITE, or
 * COSA_ELAPACK when dgeevx fails. */
cosa_status cosa_eig_rounding_bound(size_t n, const double *M, size_t lda, double *bound);

/* the safety factor c of the bound (see eig_bound.c for its derivation) */
#define COSA_EIG_BOUND_C 10.0
/* rho within this of 1 gets the derived threshold (else 1 + COSA_RHO_TOL) */
#define COSA_RHO_NEAR 1e-8

#endif
