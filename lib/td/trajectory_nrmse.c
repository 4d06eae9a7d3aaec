/* trajectory_nrmse.c -- global NRMSE (eq 33 of the MBCorr paper, conventions
 * of doc/method.md) of a sampled output trajectory against a sampled reference:
 *
 *   e = sqrt( (1/K) sum_k  [ (1/N) sum_n (y_kn - r_kn)^2 ] / var_k ),
 *   var_k = (1/N) sum_n (r_kn - mean_k)^2   (population variance, ddof = 0),
 *
 * over the K components that are not constant (std_k > COSA_NRMSE_STD_RTOL *
 * sqrt(mean_k^2 + std_k^2), the rule of lib/nrmse.c).  The variance comes
 * from the corrected two-pass formula
 *   var = (sum (r - m)^2 - (sum (r - m))^2 / N) / N,
 * which is exact up to rounding of the centred values. */
#include "cosa/td.h"

#include <math.h>

cosa_status cosa_traj_nrmse(size_t ny, size_t N, const double *y, size_t ldy,
                            const double *yref, size_t ldr, double *e, size_t *ncomp)
{
    if (ncomp)
        *ncomp = 0;
    if (e)
        *e = NAN;
    if (!y || !yref || !e || ny == 0 || ldy < ny || ldr < ny)
        return COSA_EINVAL;
    if (N == 0)
        return COSA_ERANGE;
    for (size_t n = 0; n < N; n++)
        for (size_t k = 0; k < ny; k++)
            if (!isfinite(yref[k + n * ldr]))
                return COSA_ENONFINITE;
    int bad = 0;
    for (size_t n = 0; n < N && !bad; n++)
        for (size_t k = 0; k < ny; k++)
            if (!isfinite(y[k + n * ldy]))
                bad = 1;
    double sum = 0.0;
    size_t used = 0;
    for (size_t k = 0; k < ny; k++) {
        double mean = 0.0;
        for (size_t n = 0; n < N; n++)
            mean += yref[k + n * ldr];
        mean /= (double)N;
        double s1 = 0.0, s2 = 0.0, ss = 0.0;
        for (size_t n = 0; n < N; n++) {
            double d = yref[k + n * ldr] - mean;
            s1 += d;
            s2 += d * d;
            double err = y[k + n * ldy] - yref[k + n * ldr];
            ss += err * err;
        }
        double var = fmax((s2 - s1 * s1 / (double)N) / (double)N, 0.0);
        double sd = sqrt(var), rms = sqrt(mean * mean + var);
        if (!(sd > COSA_NRMSE_STD_RTOL * rms))
            continue;
        used++;
        sum += ss / ((double)N * var);
    }
    if (used == 0)
        return COSA_ERANGE;
    if (ncomp)
        *ncomp = used;
    double r = sqrt(sum / (double)used);
    *e = bad || !isfinite(r) ? INFINITY : r;
    return COSA_OK;
}
