/* dense.h -- small internal dense-matrix helpers (column-major).
 * Thin wrappers over CBLAS/LAPACKE "_work" routines so that the numerical
 * modules read like the math.  None of these allocate. */
#ifndef COSA_DENSE_H
#define COSA_DENSE_H

#include <stddef.h>
#include <lapacke.h>

/* C = alpha * op(A) * op(B) + beta * C, op = transpose when ta/tb is 'T'. */
void dense_gemm(char ta, char tb, size_t m, size_t n, size_t k, double alpha,
               const double *A, size_t lda, const double *B, size_t ldb, double beta,
               double *C, size_t ldc);

/* y = alpha * A x + beta * y  (A m x n). */
void dense_gemv(size_t m, size_t n, double alpha, const double *A, size_t lda,
               const double *x, double beta, double *y);

/* Copy the m x n matrix A (lda) into B (ldb). */
void dense_copy(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb);

/* Set the m x n matrix A to zero / to the identity (m == n for identity). */
void dense_zero(size_t m, size_t n, double *A, size_t lda);
void dense_identity(size_t n, double *A, size_t lda);

/* Maximum absolute column sum (1-norm). */
double dense_norm1(size_t m, size_t n, const double *A, size_t lda);

/* 1 if every entry is finite. */
int dense_isfinite(size_t m, size_t n, const double *A, size_t lda);

/* LU factorisation in place (dgetrf); returns 0, or >0 if exactly singular. */
int dense_lu(size_t n, double *A, size_t lda, lapack_int *ipiv);

/* Solve A X = B with the LU of A (dgetrs), X overwrites B (n x nrhs). */
void dense_lu_solve(size_t n, size_t nrhs, const double *LU, size_t lda,
                   const lapack_int *ipiv, double *B, size_t ldb);

/* Reciprocal 1-norm condition estimate from an LU (dgecon); anorm is the
 * 1-norm of the original matrix.  work: 4n doubles, iwork: n ints. */
double dense_lu_rcond(size_t n, const double *LU, size_t lda, double anorm, double *work,
                     lapack_int *iwork);

#endif
