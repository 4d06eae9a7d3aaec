/* zoh_log.c -- the continuous model (A, B) whose zero-order-hold
 * discretisation at step h is (Ad, Bd): one matrix logarithm of the
 * augmented matrix [[Ad, Bd], [0, I]], taken through the eigen
 * decomposition of Ad (the augmented matrix's other eigenvalues are 1 and
 * its logarithm's B block is the function log(mu) / (mu - 1) of Ad applied
 * to Bd, divided by h). */
#include <complex.h>

#include "cosa/core.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* log(mu) / (mu - 1), with the series 1 - z/2 + z^2/3 - z^3/4 + z^4/5 for
 * z = mu - 1 small (|z| < 1e-3: truncation below z^5 / 6 < 2e-16). */
static double complex logratio(double complex mu)
{
    const double complex z = mu - 1.0;
    if (cabs(z) < 1e-3)
        return 1.0 - z / 2.0 + z * z / 3.0 - z * z * z / 4.0 + z * z * z * z / 5.0;
    return clog(mu) / z;
}

static cosa_status refuse(char *why, size_t size, const char *fmt, double a, double b)
{
    if (why && size)
        snprintf(why, size, fmt, a, b);
    return COSA_EUNSUPPORTED;
}

/* Eigen decomposition of Ad into complex V (n x n) and mu (n), with the
 * checks on mu; work 2 n^2 + 2 n doubles. */
static cosa_status eig(size_t n, const double *Ad, double complex *V, double complex *mu,
                       double *work, char *why, size_t size)
{
    double *M = work, *VR = M + n * n, *wr = VR + n * n, *wi = wr + n;
    memcpy(M, Ad, n * n * sizeof *M);
    if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'V', (lapack_int)n, M, (lapack_int)n, wr, wi, NULL,
                      1, VR, (lapack_int)n) != 0)
        return COSA_ELAPACK;
    for (size_t k = 0; k < n; k++) {
        mu[k] = wr[k] + I * wi[k];
        if (cabs(mu[k]) <= COSA_ZOH_LOG_MU_MIN)
            return refuse(why, size, "Ad has the eigenvalue %.3g%+.3gi at 0 (an output that lags "
                          "its input by a step), which has no logarithm", wr[k], wi[k]);
        if (wi[k] == 0.0 && wr[k] < 0.0)
            return refuse(why, size, "Ad has the eigenvalue %.6g on the negative real axis (a "
                          "mode at the probe step's Nyquist frequency, or a sampled system "
                          "without a continuous equivalent)%.0g", wr[k], 0.0);
    }
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < n; i++) {
            if (wi[k] == 0.0)
                V[i + n * k] = VR[i + n * k];
            else if (wi[k] > 0.0) /* pair k, k+1: v = VR[:,k] +- i VR[:,k+1] */
                V[i + n * k] = VR[i + n * k] + I * VR[i + n * (k + 1)];
            else
                V[i + n * k] = VR[i + n * (k - 1)] - I * VR[i + n * k];
        }
    return COSA_OK;
}

cosa_status cosa_zoh_log(size_t n, size_t nu, double h, const double *Ad, const double *Bd,
                         double *A, double *B, char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    if (!(h > 0.0) || !isfinite(h))
        return COSA_ERANGE;
    if (n == 0)
        return COSA_OK;
    if (!Ad || !A || (nu && (!Bd || !B)))
        return COSA_EINVAL;
    if (!dense_isfinite(n, n, Ad, n) || !dense_isfinite(n, nu, Bd, n))
        return COSA_ENONFINITE;
    double complex *V = malloc((3 * n * n + 2 * n * nu + n + 1) * sizeof *V);
    double *work = malloc((2 * n * n + 4 * n + 1) * sizeof *work);
    lapack_int *ipiv = malloc((n + 1) * sizeof *ipiv);
    if (!V || !work || !ipiv) {
        free(V);
        free(work);
        free(ipiv);
        return COSA_ENOMEM;
    }
    /* W: n x n for A (X^T), then X: n x nu for B; mu after both */
    double complex *LU = V + n * n, *W = LU + n * n, *X = W + n * n + n * nu, *mu = X + n * nu;
    cosa_status st = eig(n, Ad, V, mu, work, why, size);
    if (st == COSA_OK) {
        memcpy(LU, V, n * n * sizeof *LU);
        double anorm = 0.0; /* 1-norm of V */
        for (size_t k = 0; k < n; k++) {
            double cs = 0.0;
            for (size_t i = 0; i < n; i++)
                cs += cabs(V[i + n * k]);
            anorm = fmax(anorm, cs);
        }
        double rcond = 0.0;
        if (LAPACKE_zgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, LU, (lapack_int)n,
                           ipiv) != 0 ||
            LAPACKE_zgecon(LAPACK_COL_MAJOR, '1', (lapack_int)n, LU, (lapack_int)n, anorm,
                           &rcond) != 0 ||
            rcond < COSA_ZOH_LOG_RCOND)
            st = refuse(why, size, "the eigenvectors of Ad are ill-conditioned (reciprocal "
                        "condition %.3g < %.0e: Ad is defective or nearly so)", rcond,
                        COSA_ZOH_LOG_RCOND);
    }
    double imax = 0.0, rmax = 0.0;
    if (st == COSA_OK) {
        /* A^T solves V^T A^T = (V diag(log mu / h))^T */
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++)
                W[k + n * i] = V[i + n * k] * clog(mu[k]) / h; /* W = X^T, n x n */
        LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'T', (lapack_int)n, (lapack_int)n, LU, (lapack_int)n,
                       ipiv, W, (lapack_int)n);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++) {
                A[i + n * k] = creal(W[k + n * i]);
                imax = fmax(imax, fabs(cimag(W[k + n * i])));
                rmax = fmax(rmax, fabs(A[i + n * k]));
            }
    }
    if (st == COSA_OK && nu) {
        /* B = V diag(log mu / (h (mu - 1))) (V^{-1} Bd) */
        double bi = 0.0, br = 0.0;
        for (size_t e = 0; e < n * nu; e++)
            X[e] = Bd[e];
        LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, (lapack_int)nu, LU, (lapack_int)n,
                       ipiv, X, (lapack_int)n);
        for (size_t j = 0; j < nu; j++)
            for (size_t k = 0; k < n; k++)
                X[k + n * j] *= logratio(mu[k]) / h;
        for (size_t j = 0; j < nu; j++)
            for (size_t i = 0; i < n; i++) {
                double complex s = 0.0;
                for (size_t k = 0; k < n; k++)
                    s += V[i + n * k] * X[k + n * j];
                B[i + n * j] = creal(s);
                bi = fmax(bi, fabs(cimag(s)));
                br = fmax(br, fabs(creal(s)));
            }
        if (bi > 1e-8 * br)
            st = refuse(why, size, "the logarithm's B is not real (imaginary part %.3g of %.3g)",
                        bi, br);
    }
    if (st == COSA_OK && imax > 1e-8 * rmax)
        st = refuse(why, size, "the logarithm of Ad is not real (imaginary part %.3g of %.3g)",
                    imax, rmax);
    free(V);
    free(work);
    free(ipiv);
    return st;
}
