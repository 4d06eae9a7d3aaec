/* dense.c -- internal dense-matrix helpers over CBLAS and LAPACKE. */
#include "core/dense.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* Products of matrices this small go through plain loops instead of
 * OpenBLAS's dgemm, which takes a global lock for its buffers on every call:
 * the threads of a sweep then wait for each other in the kernel (e_g map,
 * 2 threads: 1.2x the speed of one, 1.9x with these loops).  The loops do
 * what OpenBLAS's kernels do -- acc = sum_l A(i,l) B(l,j) from 0 in
 * increasing l, then C = beta C + alpha acc, with FMA where the CPU has it
 * -- and give the same bits as OpenBLAS 0.3.21 (Haswell kernels) for square
 * products with beta = 0 or 1 (checked for n <= 16), e.g. all of the matrix
 * exponential's.  No entry is skipped (0 * Inf = NaN), beta = 0 overwrites
 * C, and the order is fixed: results do not depend on thread or alignment. */
#define COSA_GEMM_SMALL 32

#ifdef _OPENMP
#define COSA_SIMD _Pragma("omp simd")
#else
#define COSA_SIMD
#endif

static inline __attribute__((always_inline)) void
gemm_small_body(char ta, char tb, size_t m, size_t n, size_t k, double alpha, const double *A,
                size_t lda, const double *B, size_t ldb, double beta, double *restrict C,
                size_t ldc)
{
    /* as OpenBLAS's kernels: acc = sum_l A(i, l) B(l, j) from 0 in order l,
     * then C = beta C + alpha acc */
    double acc[COSA_GEMM_SMALL];
    for (size_t j = 0; j < n; j++) {
        double *restrict c = C + j * ldc;
        if (ta != 'T') {
            for (size_t i = 0; i < m; i++)
                acc[i] = 0.0;
#define OPB(l) (tb == 'T' ? B[j + (l) * ldb] : B[(l) + j * ldb])
            size_t l = 0;
            /* four columns of A per pass; the same sequence of operations
             * on every acc[i] as one column at a time */
            for (; l + 4 <= k; l += 4) {
                const double t0 = OPB(l), t1 = OPB(l + 1), t2 = OPB(l + 2), t3 = OPB(l + 3);
                const double *a0 = A + l * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
                COSA_SIMD
                for (size_t i = 0; i < m; i++) {
                    double v = acc[i];
                    v += a0[i] * t0;
                    v += a1[i] * t1;
                    v += a2[i] * t2;
                    v += a3[i] * t3;
                    acc[i] = v;
                }
            }
            for (; l < k; l++) {
                const double t = OPB(l);
                const double *a = A + l * lda;
                COSA_SIMD
                for (size_t i = 0; i < m; i++)
                    acc[i] += a[i] * t;
            }
#undef OPB
        } else {
            for (size_t i = 0; i < m; i++) {
                const double *a = A + i * lda;
                double s = 0.0;
                if (tb == 'T')
                    for (size_t l = 0; l < k; l++)
                        s += a[l] * B[j + l * ldb];
                else
                    for (size_t l = 0; l < k; l++)
                        s += a[l] * B[l + j * ldb];
                acc[i] = s;
            }
        }
        if (beta == 0.0 && alpha == 1.0)
            for (size_t i = 0; i < m; i++)
                c[i] = acc[i];
        else if (beta == 0.0)
            for (size_t i = 0; i < m; i++)
                c[i] = alpha * acc[i];
        else
            for (size_t i = 0; i < m; i++)
                c[i] = beta * c[i] + alpha * acc[i];
    }
}

/* Where the CPU has FMA (as OpenBLAS's own kernels use it), the products
 * are contracted into fused multiply-adds: one rounding per term, which the
 * matrix exponential's squaring phase needs for stiff, nearly defective
 * cases (tests/test_expm.c).  The choice depends on the CPU only, never on
 * the thread. */
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target("avx2,fma"))) static void
gemm_small_fma(char ta, char tb, size_t m, size_t n, size_t k, double alpha, const double *A,
               size_t lda, const double *B, size_t ldb, double beta, double *restrict C,
               size_t ldc)
{
    gemm_small_body(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
#endif

static void gemm_small(char ta, char tb, size_t m, size_t n, size_t k, double alpha,
                       const double *A, size_t lda, const double *B, size_t ldb, double beta,
                       double *restrict C, size_t ldc)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        gemm_small_fma(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
#endif
    gemm_small_body(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void dense_gemm(char ta, char tb, size_t m, size_t n, size_t k, double alpha,
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
    if (m <= COSA_GEMM_SMALL && n <= COSA_GEMM_SMALL && k <= COSA_GEMM_SMALL) {
        gemm_small(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    cblas_dgemm(CblasColMajor, ta == 'T' ? CblasTrans : CblasNoTrans,
                tb == 'T' ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, alpha, A,
                (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

void dense_gemv(size_t m, size_t n, double alpha, const double *A, size_t lda,
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

void dense_copy(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb)
{
    for (size_t j = 0; j < n; j++)
        memcpy(B + j * ldb, A + j * lda, m * sizeof *A);
}

void dense_zero(size_t m, size_t n, double *A, size_t lda)
{
    for (size_t j = 0; j < n; j++)
        memset(A + j * lda, 0, m * sizeof *A);
}

void dense_identity(size_t n, double *A, size_t lda)
{
    dense_zero(n, n, A, lda);
    for (size_t i = 0; i < n; i++)
        A[i + i * lda] = 1.0;
}

double dense_norm1(size_t m, size_t n, const double *A, size_t lda)
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

int dense_isfinite(size_t m, size_t n, const double *A, size_t lda)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            if (!isfinite(A[i + j * lda]))
                return 0;
    return 1;
}

int dense_lu(size_t n, double *A, size_t lda, lapack_int *ipiv)
{
    if (n == 0)
        return 0;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A,
                                          (lapack_int)lda, ipiv);
    return (int)info;
}

void dense_lu_solve(size_t n, size_t nrhs, const double *LU, size_t lda,
                   const lapack_int *ipiv, double *B, size_t ldb)
{
    if (n == 0 || nrhs == 0)
        return;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', (lapack_int)n, (lapack_int)nrhs, LU,
                        (lapack_int)lda, ipiv, B, (lapack_int)ldb);
}

double dense_lu_rcond(size_t n, const double *LU, size_t lda, double anorm, double *work,
                     lapack_int *iwork)
{
    if (n == 0)
        return 1.0;
    double rcond = 0.0;
    lapack_int info = LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', (lapack_int)n, LU,
                                          (lapack_int)lda, anorm, &rcond, work, iwork);
    return info == 0 ? rcond : 0.0;
}
