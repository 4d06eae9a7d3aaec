/* defect.c -- the per-step defects of the defect paper (section 3, issue 12
 * "Per step"): connection defect U - Y_src (eq 17) and output-defect
 * estimate Hhat - Y (eqs 30, 32), each as its RMS over the step, and the
 * controlled defect eps (eq 38).  Polynomials are written in the normalised
 * time sigma = (s - t_{k+1}) / H in [-1, 0], where the RMS^2 is
 * int_{-1}^0 delta(sigma)^2 dsigma. */
#include "td/unit_impl.h"
#include "td/unitset_impl.h"

#include <math.h>

#define NDER (COSA_UNIT_DERMAX + 1)

cosa_status cosa_defect_output_rms(int n, double H, const double *yder, double ymid,
                                   double *rms)
{
    if (!yder || !rms)
        return COSA_EINVAL;
    if (n < 0 || n > COSA_UNIT_DERMAX || !(H > 0.0) || !isfinite(H))
        return COSA_ERANGE;
    /* Y(t_mid) = sum_j y^(j) (-H/2)^j / j!, Horner */
    double Ymid = 0.0;
    for (int j = n; j >= 0; j--)
        Ymid = Ymid * (-0.5 * H) / (double)(j + 1) + yder[j];
    /* with r = ymid - Y(t_mid), Hhat - Y = r (-2 sigma)^(n+1), whose mean
     * square over [-1, 0] is r^2 4^(n+1) / (2n + 3) */
    *rms = ldexp(fabs(ymid - Ymid), n + 1) / sqrt(2.0 * n + 3.0);
    return isfinite(*rms) ? COSA_OK : COSA_ENONFINITE;
}

/* Mean square over sigma in [-1, 0] of sum_i d_i sigma^i (i = 0..deg):
 * sum_{i,k} d_i d_k (-1)^(i+k) / (i + k + 1). */
static double mean_square(int deg, const double *d)
{
    double s = 0.0;
    for (int i = 0; i <= deg; i++)
        for (int k = 0; k <= deg; k++)
            s += ((i + k) % 2 ? -1.0 : 1.0) * d[i] * d[k] / (double)(i + k + 1);
    return s > 0.0 ? s : 0.0;
}

/* Coefficients in sigma of U - Y: U(s) = sum_j u_j H^j (sigma + 1)^j / j!,
 * Y(s) = sum_j y_j H^j sigma^j / j!. */
static double connection_ms(double H, int m, const double *uder, int n, const double *yder)
{
    double d[NDER] = {0};
    const int deg = m > n ? m : n;
    double hj = 1.0; /* H^j / j! */
    for (int j = 0; j <= deg; j++) {
        if (j > 0)
            hj *= H / (double)j;
        if (j <= m) {
            double b = 1.0; /* binom(j, i) */
            for (int i = 0; i <= j; i++) {
                d[i] += uder[j] * hj * b;
                b = b * (double)(j - i) / (double)(i + 1);
            }
        }
        if (j <= n)
            d[j] -= yder[j] * hj;
    }
    return mean_square(deg, d);
}

cosa_status cosa_defect_connection_rms(double H, int m, const double *uder, int n,
                                       const double *yder, double *rms)
{
    if (!uder || !yder || !rms)
        return COSA_EINVAL;
    if (m < 0 || n < 0 || m > COSA_UNIT_DERMAX || n > COSA_UNIT_DERMAX || !(H > 0.0) ||
        !isfinite(H))
        return COSA_ERANGE;
    *rms = sqrt(connection_ms(H, m, uder, n, yder));
    return isfinite(*rms) ? COSA_OK : COSA_ENONFINITE;
}

cosa_status cosa_defect_step(const cosa_unitset *set, double H, int m, const double *uder,
                             int n, const double *yder, const double *ymid,
                             cosa_defect_control which, double *dout, double *dconn,
                             double *eps)
{
    if (!set)
        return COSA_EINVAL;
    const size_t nu = cosa_unitset_nu(set), ny = cosa_unitset_ny(set);
    if ((nu && !uder) || (ny && (!yder || !ymid)))
        return COSA_EINVAL;
    if (which < COSA_DEFECT_BOTH || which > COSA_DEFECT_CONNECTION)
        return COSA_EINVAL;
    if (m < 0 || n < 0 || m > COSA_UNIT_DERMAX || n > COSA_UNIT_DERMAX || !(H > 0.0) ||
        !isfinite(H))
        return COSA_ERANGE;
    double emax = COSA_DEFECT_EPS_FLOOR;
    double yk[NDER], uk[NDER];
    for (size_t k = 0; k < ny; k++) {
        for (int j = 0; j <= n; j++)
            yk[j] = yder[k + (size_t)j * ny];
        double r;
        cosa_status st = cosa_defect_output_rms(n, H, yk, ymid[k], &r);
        if (st != COSA_OK)
            return st;
        if (dout)
            dout[k] = r;
        if (which != COSA_DEFECT_CONNECTION)
            emax = fmax(emax, r);
    }
    for (size_t i = 0; i < nu; i++) {
        /* Y_src = sum_l L_il Y_l (+ c_i), coefficient by coefficient */
        cosa_unitset_couple(set, i, 1, (size_t)n + 1, yder, ny, yk, 1);
        for (int j = 0; j <= m; j++)
            uk[j] = uder[i + (size_t)j * nu];
        double r = sqrt(connection_ms(H, m, uk, n, yk));
        if (!isfinite(r))
            return COSA_ENONFINITE;
        if (dconn)
            dconn[i] = r;
        if (which != COSA_DEFECT_OUTPUT)
            emax = fmax(emax, r);
    }
    if (eps)
        *eps = emax;
    return COSA_OK;
}
