/* test_eig_bound.c -- the rounding bound of the dominant eigenvalue
 * (lib/core/eig_bound.c) against closed forms of the eigenvalue condition
 * number s = |y^T x| / (|x| |y|): s = 1 for a symmetric matrix, and for the
 * triangular M = [1, -1/(2d); 0, 1/2] (eigenvalue 1: x = e1, y = [1, -1/d])
 * s = 1 / sqrt(1 + 1/d^2); and the computed eigenvalue 1 of a matrix with
 * that exact eigenvalue lies within the bound. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "cosa.h"
#include "core/eig_bound.h"

/* relative agreement: the bound is c n eps ||M_bal||_1 / RCONDE, RCONDE from
 * dgeevx's eigenvectors (accurate to ~ n eps / s relative), so 1e-10 */
#define BOUND_RTOL 1e-10

Test(eig_bound, symmetric_has_s_one)
{
    /* diag(1, 0.5, -0.25) in column order: normal, RCONDE = 1, 1-norm 1 */
    const double M[9] = {1, 0, 0, 0, 0.5, 0, 0, 0, -0.25};
    double b = -1.0;
    cr_assert_eq(cosa_eig_rounding_bound(3, M, 3, &b), COSA_OK);
    const double want = COSA_EIG_BOUND_C * 3 * DBL_EPSILON * 1.0;
    cr_assert(fabs(b - want) <= BOUND_RTOL * want, "bound %g, want %g", b, want);
}

Test(eig_bound, nonnormal_closed_form)
{
    for (double d = 1.0; d >= 1e-4; d /= 10.0) {
        const double M[4] = {1.0, 0.0, -0.5 / d, 0.5}; /* column order */
        double b = -1.0;
        cr_assert_eq(cosa_eig_rounding_bound(2, M, 2, &b), COSA_OK);
        const double s = 1.0 / sqrt(1.0 + 1.0 / (d * d));
        const double norm1 = fmax(1.0, 0.5 / d + 0.5); /* triangular: no scaling */
        const double want = COSA_EIG_BOUND_C * 2 * DBL_EPSILON * norm1 / s;
        cr_assert(fabs(b - want) <= BOUND_RTOL * want, "d %g: bound %g, want %g", d, b, want);
    }
}

Test(eig_bound, eigenvalue_one_within_bound)
{
    /* M = V diag(1, 0.3, -0.6) V^-1 with V upper unit-triangular (no
     * inverse needed: M = V D W, W = V^-1 written out); the computed
     * eigenvalue nearest 1 differs from 1 by at most the bound */
    const double v = 7.3, w = 0.9, z = 11.0;
    /* V = [1 v z; 0 1 w; 0 0 1], V^-1 = [1 -v v*w - z; 0 1 -w; 0 0 1] */
    const double V[9] = {1, 0, 0, v, 1, 0, z, w, 1};
    const double W[9] = {1, 0, 0, -v, 1, 0, v * w - z, -w, 1};
    const double D[3] = {1.0, 0.3, -0.6};
    double M[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double acc = 0.0;
            for (int k = 0; k < 3; k++)
                acc += V[i + 3 * k] * D[k] * W[k + 3 * j];
            M[i + 3 * j] = acc;
        }
    double b = -1.0, rho;
    cr_assert_eq(cosa_eig_rounding_bound(3, M, 3, &b), COSA_OK);
    double c[9];
    for (int i = 0; i < 9; i++)
        c[i] = M[i];
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(3);
    cr_assert_eq(cosa_spectral_radius(3, c, 3, &rho, ew), COSA_OK);
    cosa_eig_workspace_free(ew);
    cr_assert(b > 0.0 && b < 1e-12, "bound %g", b);
    cr_assert(fabs(rho - 1.0) <= b, "rho - 1 = %g beyond the bound %g", rho - 1.0, b);
}

Test(eig_bound, bad_input)
{
    double b, M[1] = {NAN};
    cr_assert_eq(cosa_eig_rounding_bound(1, M, 1, &b), COSA_ENONFINITE);
    cr_assert_eq(cosa_eig_rounding_bound(2, M, 1, &b), COSA_EINVAL);
    cr_assert_eq(cosa_eig_rounding_bound(0, M, 1, &b), COSA_OK);
    cr_assert_eq(b, 0.0);
}
