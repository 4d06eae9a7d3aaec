/* eig.c -- eigenvalues and spectral radius (eq 29) through LAPACK dgeev
 * (balancing, Hessenberg reduction, Francis QR; no eigenvectors).  The LAPACK
 * workspace size is queried once, at allocation. */
#include "cosa/core.h"
#include "core/dense.h"

#include <math.h>
#include <stdlib.h>

struct cosa_eig_workspace {
    size_t nmax;
    double *wr, *wi, *work;
    lapack_int lwork;
};

void cosa_eig_workspace_free(cosa_eig_workspace *w)
{
    if (!w)
        return;
    free(w->wr);
    free(w->wi);
    free(w->work);
    free(w);
}

cosa_eig_workspace *cosa_eig_workspace_alloc(size_t nmax)
{
    if (nmax == 0)
        return NULL;
    cosa_eig_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->nmax = nmax;
    w->wr = calloc(nmax, sizeof(double));
    w->wi = calloc(nmax, sizeof(double));
    if (!w->wr || !w->wi)
        goto fail;
    /* Workspace query (lwork = -1) for the largest order. */
    double q = 0.0, dummy = 0.0;
    lapack_int n = (lapack_int)nmax;
    lapack_int info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', n, &dummy, n, w->wr, w->wi,
                                         NULL, 1, NULL, 1, &q, -1);
    if (info != 0)
        goto fail;
    w->lwork = (lapack_int)q;
    if (w->lwork < 3 * n)
        w->lwork = 3 * n;
    w->work = calloc((size_t)w->lwork, sizeof(double));
    if (!w->work)
        goto fail;
    return w;
fail:
    cosa_eig_workspace_free(w);
    return NULL;
}

cosa_status cosa_eigenvalues(size_t n, double *M, size_t lda, double *wr, double *wi,
                             cosa_eig_workspace *w)
{
    if (!M || !wr || !wi || !w || lda < n)
        return COSA_EINVAL;
    if (n > w->nmax)
        return COSA_EWORKSPACE;
    if (n == 0)
        return COSA_OK;
    if (!dense_isfinite(n, n, M, lda))
        return COSA_ENONFINITE;
    lapack_int info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)n, M,
                                         (lapack_int)lda, wr, wi, NULL, 1, NULL, 1, w->work,
                                         w->lwork);
    return info == 0 ? COSA_OK : (info < 0 ? COSA_EINVAL : COSA_ELAPACK);
}

cosa_status cosa_spectral_radius(size_t n, double *M, size_t lda, double *rho,
                                 cosa_eig_workspace *w)
{
    if (!rho)
        return COSA_EINVAL;
    *rho = NAN;
    cosa_status st = cosa_eigenvalues(n, M, lda, w ? w->wr : NULL, w ? w->wi : NULL, w);
    if (st != COSA_OK)
        return st;
    double r = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = hypot(w->wr[i], w->wi[i]);
        if (a > r)
            r = a;
    }
    *rho = r;
    return COSA_OK;
}
