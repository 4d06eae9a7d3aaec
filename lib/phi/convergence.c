/* convergence.c -- convergence order of an error indicator and macro-step
 * limits (stability rho(Phi) <= 1, eq 29; accuracy e_g <= tol, section 4.2 of
 * the MBCorr paper).  Rules are documented in cosa.h. */
#include "cosa/phi.h"

#include <math.h>

static int usable(double dt, double e)
{
    return isfinite(dt) && dt > 0.0 && isfinite(e) && e > 0.0;
}

cosa_status cosa_order_fit(size_t n, const double *dt, const double *err, double *order,
                           double *log10c, size_t *nused)
{
    if (order)
        *order = NAN;
    if (log10c)
        *log10c = NAN;
    if (nused)
        *nused = 0;
    if (!dt || !err)
        return COSA_EINVAL;
    /* two-pass least squares in (x, y) = (ln dt, ln err) */
    size_t m = 0;
    double xm = 0.0, ym = 0.0;
    for (size_t i = 0; i < n; i++)
        if (usable(dt[i], err[i])) {
            m++;
            xm += log(dt[i]);
            ym += log(err[i]);
        }
    if (m < 2)
        return COSA_ERANGE;
    xm /= (double)m;
    ym /= (double)m;
    double sxx = 0.0, sxy = 0.0;
    for (size_t i = 0; i < n; i++)
        if (usable(dt[i], err[i])) {
            const double x = log(dt[i]) - xm, y = log(err[i]) - ym;
            sxx += x * x;
            sxy += x * y;
        }
    if (!(sxx > 0.0))
        return COSA_ERANGE; /* all dt equal */
    const double p = sxy / sxx;
    if (order)
        *order = p;
    if (log10c)
        *log10c = (ym - p * xm) / log(10.0);
    if (nused)
        *nused = m;
    return COSA_OK;
}

cosa_status cosa_order_range(size_t n, const double *dt, const double *err, double emax,
                             double slope_tol, size_t *first, size_t *last)
{
    if (!dt || !err || !first || !last)
        return COSA_EINVAL;
    if (isnan(emax) || isnan(slope_tol))
        return COSA_ERANGE;
    if (emax <= 0.0)
        emax = COSA_ORDER_EMAX;
    if (slope_tol <= 0.0)
        slope_tol = COSA_ORDER_SLOPE_TOL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(dt[i]) || !(dt[i] > 0.0) || (i > 0 && !(dt[i] > dt[i - 1])))
            return COSA_ERANGE;

    size_t best_i = 0, best_len = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!usable(dt[i], err[i]) || err[i] > emax)
            continue;
        double smin = INFINITY, smax = -INFINITY;
        size_t j = i;
        while (j + 1 < n && usable(dt[j + 1], err[j + 1]) && err[j + 1] <= emax) {
            const double s = log(err[j + 1] / err[j]) / log(dt[j + 1] / dt[j]);
            const double lo = s < smin ? s : smin, hi = s > smax ? s : smax;
            if (!isfinite(s) || hi - lo > slope_tol)
                break;
            smin = lo;
            smax = hi;
            j++;
        }
        /* strictly longer only: ties keep the run at smaller dt */
        if (j > i && j - i + 1 > best_len) {
            best_len = j - i + 1;
            best_i = i;
        }
    }
    if (best_len < 2)
        return COSA_ERANGE;
    *first = best_i;
    *last = best_i + best_len - 1;
    return COSA_OK;
}

/* "good": f(dt) <= threshold; NaN (callback failure) is not good. */
static int is_good(cosa_metric_fn f, void *ud, double threshold, double dt, size_t *nevals)
{
    ++*nevals;
    const double v = f(dt, ud);
    return v <= threshold;
}

#define COSA_LIMIT_RTOL 1e-6 /* bisection stops when dt_hi / dt_lo - 1 <= this */

cosa_status cosa_limit_find(cosa_metric_fn f, void *user_data, double threshold,
                            double dt_min, double dt_max, unsigned per_decade,
                            cosa_crossing *cross, size_t cross_cap, cosa_limit *out)
{
    if (!f || !out || (cross_cap > 0 && !cross))
        return COSA_EINVAL;
    *out = (cosa_limit){.dt_max = NAN};
    if (!isfinite(dt_min) || !isfinite(dt_max) || !(dt_min > 0.0) || !(dt_max > dt_min) ||
        isnan(threshold))
        return COSA_ERANGE;
    if (per_decade == 0)
        per_decade = COSA_LIMIT_PER_DECADE;

    /* grid dt_i = dt_min (dt_max / dt_min)^(i/K), both ends exact */
    const double l0 = log(dt_min), l1 = log(dt_max);
    double kf = ceil((double)per_decade * (l1 - l0) / log(10.0));
    if (kf < 1.0)
        kf = 1.0;
    if (kf > 1e7)
        return COSA_ERANGE; /* absurd grid */
    const size_t K = (size_t)kf;

    size_t nev = 0, ncross = 0;
    int prev = is_good(f, user_data, threshold, dt_min, &nev);
    int lost = !prev;
    double first_loss = dt_min;
    double dprev = dt_min;
    out->good_at_min = prev;
    for (size_t i = 1; i <= K; i++) {
        const double dti = i == K ? dt_max : exp(l0 + (l1 - l0) * (double)i / (double)K);
        const int g = is_good(f, user_data, threshold, dti, &nev);
        if (g != prev) {
            /* bisection in log(dt); the invariant good(lo) == prev != good(hi) */
            double lo = dprev, hi = dti;
            while (hi / lo - 1.0 > COSA_LIMIT_RTOL) {
                const double mid = sqrt(lo) * sqrt(hi);
                if (is_good(f, user_data, threshold, mid, &nev) == prev)
                    lo = mid;
                else
                    hi = mid;
            }
            if (ncross < cross_cap)
                cross[ncross] = (cosa_crossing){
                    .dt = prev ? lo : hi, .dt_lo = lo, .dt_hi = hi, .enters = !prev};
            ncross++;
            if (!lost && prev) {
                lost = 1;
                first_loss = lo;
            }
        }
        prev = g;
        dprev = dti;
    }
    out->never_lost = !lost;
    out->dt_max = lost ? first_loss : dt_max;
    out->ncross = ncross;
    out->monotone = ncross <= 1;
    out->nevals = nev;
    return COSA_OK;
}
