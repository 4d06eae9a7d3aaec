/* rho_tol.c -- the stability threshold of a computed spectral radius (the
 * rule of cosa_point_result.rho_tol, written once): rho <= 1 + COSA_RHO_TOL
 * is stable; for rho in (1 + COSA_RHO_TOL, 1 + COSA_RHO_NEAR] the threshold
 * is the rounding bound of the computed dominant eigenvalue
 * (lib/core/eig_bound.c), clamped to [COSA_RHO_TOL, COSA_RHO_NEAR]. */
#include "cosa/phi.h"
#include "core/eig_bound.h"

#include <math.h>

cosa_status cosa_rho_tol(size_t n, const double *M, size_t lda, double rho, double *tol)
{
    if (!tol)
        return COSA_EINVAL;
    *tol = COSA_RHO_TOL;
    if (!(rho > 1.0 + COSA_RHO_TOL && rho <= 1.0 + COSA_RHO_NEAR))
        return COSA_OK; /* far from 1: the verdict needs no bound */
    if (!M)
        return COSA_EINVAL;
    double b;
    cosa_status st = cosa_eig_rounding_bound(n, M, lda, &b);
    if (st == COSA_OK)
        *tol = fmin(fmax(COSA_RHO_TOL, b), COSA_RHO_NEAR);
    return st;
}

int cosa_rho_near_one(double rho)
{
    return rho > 1.0 + COSA_RHO_TOL && rho <= 1.0 + COSA_RHO_NEAR;
}
