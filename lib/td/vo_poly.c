/* vo_poly.c -- Lagrange polynomials on the non-uniform macro grid of the
 * variable-order engine (issue 11): basis polynomials, fits, divided
 * differences and the error constants C^k of eqs 17 and 20. */
#include "td/vo.h"

#include <math.h>
#include <string.h>

void vo_lagrange_basis(int n, const double *s, double *B)
{
    const size_t N = (size_t)n;
    memset(B, 0, N * N * sizeof *B);
    for (int j = 0; j < n; j++) {
        double *b = B + j; /* coefficient m at b[m N] */
        double poly[VO_NH + 2] = {1.0};
        int deg = 0;
        for (int l = 0; l < n; l++) {
            if (l == j)
                continue;
            const double den = s[j] - s[l];
            /* poly *= (s - s_l) / den */
            for (int m = deg + 1; m >= 0; m--) {
                const double hi = m > 0 ? poly[m - 1] : 0.0;
                const double lo = m <= deg ? poly[m] : 0.0;
                poly[m] = (hi - s[l] * lo) / den;
            }
            deg++;
        }
        for (int m = 0; m < n; m++)
            b[(size_t)m * N] = poly[m];
    }
}

void vo_poly_fit(size_t nc, int n, const double *s, const double *V, size_t ldv, double *A)
{
    double B[VO_NH * VO_NH];
    vo_lagrange_basis(n, s, B);
    const size_t N = (size_t)n;
    for (size_t m = 0; m < N; m++)
        for (size_t i = 0; i < nc; i++) {
            double a = 0.0;
            for (size_t j = 0; j < N; j++)
                a += B[j + m * N] * V[i + j * ldv];
            A[i + m * nc] = a;
        }
}

void vo_divided_difference(size_t nc, int d, const double *s, const double *V, size_t ldv,
                           double *dd)
{
    /* f[s_0..s_d] = sum_j f(s_j) / prod_{l != j} (s_j - s_l) */
    double w[VO_NH + 2];
    for (int j = 0; j <= d; j++) {
        double p = 1.0;
        for (int l = 0; l <= d; l++)
            if (l != j)
                p *= s[j] - s[l];
        w[j] = 1.0 / p;
    }
    for (size_t i = 0; i < nc; i++) {
        double a = 0.0;
        for (int j = 0; j <= d; j++)
            a += w[j] * V[i + (size_t)j * ldv];
        dd[i] = a;
    }
}

/* 8-point Gauss-Legendre on [0, 1]: exact for degree <= 15. */
static const double gl_x[8] = {0.019855071751231856, 0.10166676129318664, 0.2372337950418355,
                               0.4082826787521751,   0.5917173212478249,  0.7627662049581645,
                               0.8983332387068134,   0.9801449282487681};
static const double gl_w[8] = {0.05061426814518813, 0.11119051722668724, 0.15685332293894363,
                               0.18134189168918100, 0.18134189168918100, 0.15685332293894363,
                               0.11119051722668724, 0.05061426814518813};

cosa_status cosa_vo_error_constants(int k, const double *s, double *cpos, double *cvel)
{
    if (k < 0 || k > 14 || (k > 0 && !s))
        return k < 0 || k > 14 ? COSA_ERANGE : COSA_EINVAL;
    for (int j = 0; j < k; j++)
        if (!isfinite(s[j]) || !(s[j] < 1.0))
            return COSA_ERANGE;
    double cp = 0.0, cv = 0.0;
    for (int q = 0; q < 8; q++) {
        double L = 1.0;
        for (int j = 0; j < k; j++)
            L *= (gl_x[q] - s[j]) / (1.0 - s[j]);
        cv += gl_w[q] * L;
        cp += gl_w[q] * (1.0 - gl_x[q]) * L;
    }
    if (cpos)
        *cpos = cp;
    if (cvel)
        *cvel = cv;
    return COSA_OK;
}

static void inputs_from_coef(struct vo *v, int d)
{
    /* d^m c/dt^m at T_N = m! a_m / H^m; u^(m) = S c^(m) */
    double f = 1.0;
    const size_t nc = v->nc, nu = v->nu;
    for (int m = 0; m <= d; m++) {
        if (m > 0)
            f *= (double)m / v->H;
        for (size_t i = 0; i < nc; i++)
            v->cder[i + (size_t)m * nc] = v->coef[i + (size_t)m * nc] * f;
        double *u = v->uder + (size_t)m * nu;
        const double *c = v->cder + (size_t)m * nc;
        if (!v->S)
            memcpy(u, c, nu * sizeof *u);
        else
            for (size_t r = 0; r < nu; r++) {
                double a = 0.0;
                for (size_t i = 0; i < nc; i++)
                    a += v->S[r + i * nu] * c[i];
                u[r] = a;
            }
    }
}

void vo_build_extrapolation(struct vo *v, int d)
{
    vo_poly_fit(v->nc, d + 1, v->s, v->C, v->nc, v->coef);
    inputs_from_coef(v, d);
}

void vo_build_interpolation(struct vo *v, int d, const double *c1v)
{
    double s[VO_NH + 1];
    const size_t nc = v->nc;
    s[0] = 1.0;
    memcpy(v->V, c1v, nc * sizeof *c1v);
    for (int j = 0; j < d; j++) {
        s[j + 1] = v->s[j];
        memcpy(v->V + (size_t)(j + 1) * nc, v->C + (size_t)j * nc, nc * sizeof *v->C);
    }
    vo_poly_fit(nc, d + 1, s, v->V, nc, v->coef);
    inputs_from_coef(v, d);
}

void vo_poly_at_end(const struct vo *v, int d, double *c)
{
    for (size_t i = 0; i < v->nc; i++) {
        double a = 0.0;
        for (int m = d; m >= 0; m--)
            a += v->coef[i + (size_t)m * v->nc];
        c[i] = a;
    }
}
