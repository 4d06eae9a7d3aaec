/* convergence.c -- convergence order of an error indicator and macro-step
 * limits (stability rho(Phi) <= 1, eq 29; accuracy e_g <= tol, section 4.2 of
 * the MBCorr paper).  Rules are documented in cosa.h. */
#include "cosa/phi.h"

#include <math.h>
#include <stdlib.h>

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

/* A point of the asymptotic range: usable, and err <= emax. */
static int in_range(const double *dt, const double *err, size_t i, double emax)
{
    return usable(dt[i], err[i]) && err[i] <= emax;
}

/* Sliding window over the local slopes s_k (k = i..j-1, points i..j) with
 * monotone deques of slope indices for the window's minimum (qmin: slopes
 * increasing from head to tail) and maximum (qmax: decreasing), so that the
 * longest run from every start i costs O(n) in all (Lemire 2006, "Streaming
 * maximum-minimum filter").  The window's end never moves back: a run i..j
 * that satisfies the rule contains the run i+1..j.  The comparisons are
 * those of the literal rule (the window's min and max are the same doubles),
 * so the range is the same. */
struct slope_window {
    const double *s;
    size_t *qmin, *qmax;
    size_t hmin, tmin, hmax, tmax;
};

static void window_push(struct slope_window *w, size_t k)
{
    const double *s = w->s;
    while (w->tmin > w->hmin && s[w->qmin[w->tmin - 1]] >= s[k])
        w->tmin--;
    w->qmin[w->tmin++] = k;
    while (w->tmax > w->hmax && s[w->qmax[w->tmax - 1]] <= s[k])
        w->tmax--;
    w->qmax[w->tmax++] = k;
}

/* Would slope k keep max - min <= tol? */
static int window_fits(const struct slope_window *w, size_t k, double tol)
{
    double lo = w->s[k], hi = w->s[k];
    if (w->hmin < w->tmin && w->s[w->qmin[w->hmin]] < lo)
        lo = w->s[w->qmin[w->hmin]];
    if (w->hmax < w->tmax && w->s[w->qmax[w->hmax]] > hi)
        hi = w->s[w->qmax[w->hmax]];
    return !(hi - lo > tol);
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
    if (n < 2)
        return COSA_ERANGE;

    /* s_k between points k and k+1; NaN (a barrier) unless both are in range */
    struct slope_window w = {0};
    double *s = malloc((n - 1) * sizeof *s);
    w.qmin = malloc((n - 1) * sizeof *w.qmin);
    w.qmax = malloc((n - 1) * sizeof *w.qmax);
    if (!s || !w.qmin || !w.qmax) {
        free(s);
        free(w.qmin);
        free(w.qmax);
        return COSA_ENOMEM;
    }
    w.s = s;
    for (size_t k = 0; k + 1 < n; k++)
        s[k] = in_range(dt, err, k, emax) && in_range(dt, err, k + 1, emax)
                   ? log(err[k + 1] / err[k]) / log(dt[k + 1] / dt[k])
                   : NAN;

    size_t best_i = 0, best_len = 0, j = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!in_range(dt, err, i, emax))
            continue;
        if (j < i) { /* a new run: empty window */
            j = i;
            w.hmin = w.tmin = w.hmax = w.tmax = 0;
        } else { /* the run goes on from i: drop slope i-1 (a head, if held) */
            if (w.hmin < w.tmin && w.qmin[w.hmin] < i)
                w.hmin++;
            if (w.hmax < w.tmax && w.qmax[w.hmax] < i)
                w.hmax++;
        }
        while (j + 1 < n && isfinite(s[j]) && window_fits(&w, j, slope_tol))
            window_push(&w, j++);
        /* strictly longer only: ties keep the run at smaller dt */
        if (j > i && j - i + 1 > best_len) {
            best_len = j - i + 1;
            best_i = i;
        }
    }
    free(s);
    free(w.qmin);
    free(w.qmax);
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
