/* eig_bound.c -- rounding bound on the computed dominant eigenvalues.
 *
 * Derivation.  dgeev/dgeevx (balancing D^{-1} M D, Hessenberg reduction,
 * Francis QR) are backward stable: the computed eigenvalues are the exact
 * eigenvalues of M_bal + E with ||E|| <= p(n) eps ||M_bal||, p(n) a modest
 * multiple of n (LAPACK Users' Guide, section 4.8).  To first order a simple
 * eigenvalue lambda with unit right and left vectors x, y moves by
 *     |delta lambda| <= ||E||_2 / |y^H x| = ||E||_2 / s,
 * and s is exactly what dgeevx returns as RCONDE (for the balanced matrix,
 * whose 1-norm it returns as ABNRM: the Guide's bound EERRBD =
 * eps ABNRM / RCONDE).  The matrix M itself (Phi, from matrix exponentials
 * and products) carries entry errors of a few eps ||M|| as well; both are
 * covered by c n eps ABNRM / RCONDE with c = COSA_EIG_BOUND_C = 10 (the
 * backward error of the QR iteration is ~ n eps ||M|| in practice, the
 * construction of Phi adds a few units of eps ||M||).  A free mass gives
 * Phi the eigenvalue 1 exactly at every step; the computed value 1 + delta
 * with |delta| within this bound is 1 to rounding. */
#include "core/eig_bound.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cosa_status cosa_eig_rounding_bound(size_t n, const double *M, size_t lda, double *bound)
{
    if (!M || !bound || lda < n)
        return COSA_EINVAL;
    *bound = 0.0;
    if (n == 0)
        return COSA_OK;
    if (!dense_isfinite(n, n, M, lda))
        return COSA_ENONFINITE;
    /* a: copy of M; wr, wi, scale, rconde, rcondv: n each */
    double *a = malloc((n * n + 5 * n) * sizeof *a);
    if (!a)
        return COSA_ENOMEM;
    double *wr = a + n * n, *wi = wr + n, *scale = wi + n, *rconde = scale + n,
           *rcondv = rconde + n;
    for (size_t j = 0; j < n; j++)
        memcpy(a + j * n, M + j * lda, n * sizeof *a);
    lapack_int ilo, ihi;
    double abnrm;
    /* RCONDE needs both eigenvector sets (JOBVL = JOBVR = 'V') */
    double *vl = malloc((2 * n * n + 1) * sizeof *vl);
    if (!vl) {
        free(a);
        return COSA_ENOMEM;
    }
    lapack_int info = LAPACKE_dgeevx(LAPACK_COL_MAJOR, 'B', 'V', 'V', 'E', (lapack_int)n, a,
                                     (lapack_int)n, wr, wi, vl, (lapack_int)n, vl + n * n,
                                     (lapack_int)n, &ilo, &ihi, scale, &abnrm, rconde, rcondv);
    cosa_status st = info == 0 ? COSA_OK : (info < 0 ? COSA_EINVAL : COSA_ELAPACK);
    if (st == COSA_OK) {
        double r = 0.0, b = 0.0;
        for (size_t i = 0; i < n; i++)
            r = fmax(r, hypot(wr[i], wi[i]));
        for (size_t i = 0; i < n; i++)
            if (hypot(wr[i], wi[i]) >= r - COSA_RHO_NEAR) {
                const double e = COSA_EIG_BOUND_C * (double)n * DBL_EPSILON * abnrm;
                b = fmax(b, rconde[i] > 0.0 ? e / rconde[i] : INFINITY);
            }
        *bound = b;
    }
    free(vl);
    free(a);
    return st;
}
