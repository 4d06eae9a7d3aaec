/* reftraj_samples.c -- a reference trajectory from samples someone else
 * computed (a monolithic simulation tool's result, `cosa simulate --ref
 * FILE.csv`): values at arbitrary increasing times, brought to the macro
 * points t_k = k H by the sample at t_k when there is one (within 1e-9 H)
 * and otherwise by the cubic through the four nearest samples (Lagrange
 * form; the two or three there are when fewer). */
#include "td/unit_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIME_TOL 1e-9 /* of H: a sample this close to t_k is taken as at t_k */

/* Rows v (nr x n, ld nr) at time tk from the samples t (n), into out (nr). */
static void interpolate(size_t nr, size_t n, const double *t, const double *v, size_t i,
                        double tk, double H, double *out)
{
    /* i: the last sample with t_i <= tk (or 0) */
    if (fabs(t[i] - tk) <= TIME_TOL * H || (i + 1 < n && fabs(t[i + 1] - tk) <= TIME_TOL * H)) {
        const size_t j = fabs(t[i] - tk) <= TIME_TOL * H ? i : i + 1;
        memcpy(out, v + j * nr, nr * sizeof *out);
        return;
    }
    const size_t m = n < 4 ? n : 4;
    size_t lo = i >= 1 ? i - 1 : 0;
    if (lo + m > n)
        lo = n - m;
    double w[4];
    for (size_t a = 0; a < m; a++) {
        w[a] = 1.0;
        for (size_t b = 0; b < m; b++)
            if (b != a)
                w[a] *= (tk - t[lo + b]) / (t[lo + a] - t[lo + b]);
    }
    for (size_t r = 0; r < nr; r++) {
        double s = 0.0;
        for (size_t a = 0; a < m; a++)
            s += w[a] * v[r + (lo + a) * nr];
        out[r] = s;
    }
}

cosa_status cosa_reftraj_samples(size_t nx, size_t ny, size_t n, const double *t, const double *X,
                                 const double *x0, const double *Y, double H, size_t nsamples,
                                 cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!t || !Y || (nx && !X && !x0) || n < 2 || nsamples == 0)
        return COSA_EINVAL;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(t[k]) || (k && !(t[k] > t[k - 1])))
            return COSA_EINVAL;
    for (size_t k = 0; k < ny * n; k++)
        if (!isfinite(Y[k]))
            return COSA_ENONFINITE;
    for (size_t k = 0; X && k < nx * n; k++)
        if (!isfinite(X[k]))
            return COSA_ENONFINITE;
    const double tend = (double)(nsamples - 1) * H;
    if (t[0] > TIME_TOL * H || t[n - 1] < tend - TIME_TOL * H)
        return COSA_ERANGE;
    cosa_reftraj *r = NULL;
    cosa_status st = reftraj_alloc(nx, ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    size_t i = 0;
    for (size_t k = 0; k < nsamples; k++) {
        const double tk = (double)k * H;
        while (i + 1 < n && t[i + 1] <= tk)
            i++;
        interpolate(ny, n, t, Y, i, tk, H, r->y + k * ny);
        if (X)
            interpolate(nx, n, t, X, i, tk, H, r->x + k * nx);
        else /* the states are known at the start only */
            for (size_t q = 0; q < nx; q++)
                r->x[q + k * nx] = k == 0 ? x0[q] : NAN;
    }
    r->nsteps = (long)n;
    *out = r;
    return COSA_OK;
}
