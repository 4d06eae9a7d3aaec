/* dense.c -- internal dense-matrix helpers over CBLAS and LAPACKE. */
#include "dense.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void cosa_gemm(char ta, char tb, size_t m, size_t n, size_t k, double alpha,
               const double *A, size_t lda, const double *B, size_t ldb, double beta,
               double *C, size_t ldc)
{
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < m; i++)
                C[i + j * ldc] = beta == 0.0 ? 0.0 : beta * C[i + j * ldc];
        return;
    }
    cblas_dgemm(CblasColMajor, ta == 'T' ? CblasTrans : CblasNoTrans,
                tb == 'T' ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, alpha, A,
                (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

void cosa_gemv(size_t m, size_t n, double alpha, const double *A, size_t lda,
               const double *x, double beta, double *y)
{
    if (m == 0)
        return;
    if (n == 0) {
        for (size_t i = 0; i < m; i++)
            y[i] = beta == 0.0 ? 0.0 : beta * y[i];
        return;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)n, alpha, A, (int)lda, x, 1, beta,
                y, 1);
}

void cosa_mat_copy(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb)
{
    for (size_t j = 0; j < n; j++)
        memcpy(B + j * ldb, A + j * lda, m * sizeof *A);
}

void cosa_mat_zero(size_t m, size_t n, double *A, size_t lda)
{
    for (size_t j = 0; j < n; j++)
        memset(A + j * lda, 0, m * sizeof *A);
}

void cosa_mat_identity(size_t n, double *A, size_t lda)
{
    cosa_mat_zero(n, n, A, lda);
    for (size_t i = 0; i < n; i++)
        A[i + i * lda] = 1.0;
}

double cosa_mat_norm1(size_t m, size_t n, const double *A, size_t lda)
{
    double best = 0.0;
    for (size_t j = 0; j < n; j++) {
        double s = 0.0;
        for (size_t i = 0; i < m; i++)
            s += fabs(A[i + j * lda]);
        if (s > best || isnan(s))
            best = s;
    }
    return best;
}

int cosa_mat_isfinite(size_t m, size_t n, const double *A, size_t lda)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            if (!isfinite(A[i + j * lda]))
                return 0;
    return 1;
}

int cosa_lu(size_t n, double *A, size_t lda, lapack_int *ipiv)
{
    if (n == 0)
        return 0;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A,
                                          (lapack_int)lda, ipiv);
    return (int)info;
}

void cosa_lu_solve(size_t n, size_t nrhs, const double *LU, size_t lda,
                   const lapack_int *ipiv, double *B, size_t ldb)
{
    if (n == 0 || nrhs == 0)
        return;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', (lapack_int)n, (lapack_int)nrhs, LU,
                        (lapack_int)lda, ipiv, B, (lapack_int)ldb);
}

double cosa_lu_rcond(size_t n, const double *LU, size_t lda, double anorm, double *work,
                     lapack_int *iwork)
{
    if (n == 0)
        return 1.0;
    double rcond = 0.0;
    lapack_int info = LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', (lapack_int)n, LU,
                                          (lapack_int)lda, anorm, &rcond, work, iwork);
    return info == 0 ? rcond : 0.0;
}
