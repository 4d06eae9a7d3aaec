/* linearity.c -- how far a unit is from its linearisation: the constant
 * (affine) term f(x0, u0) - A x0 - B u0 that the linear form x' = A x + B u
 * drops, and the curvature seen at finite perturbations of the states and
 * inputs.  A model file linearises its FMUs at their start point
 * (cosa_unit_fmu_linearize); this says when that linear network is not the
 * system the FMUs co-simulate (README "FMU import", nonlinear networks). */
#include "cosa/td.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out = J z and, if ab, ab_i = sum_j |J_ij z_j|, with J = [A B; C D]
 * ((nx + ny) x (nx + nu), blocks column-major) and z = (x, u). */
static void jz(size_t nx, size_t nu, size_t ny, const double *A, const double *B,
               const double *C, const double *D, const double *z, double *out, double *ab)
{
    for (size_t i = 0; i < nx + ny; i++) {
        const int f = i < nx;
        const size_t r = f ? i : i - nx, ld = f ? nx : ny;
        const double *X = f ? A : C, *U = f ? B : D;
        double s = 0.0, a = 0.0;
        for (size_t j = 0; j < nx; j++) {
            s += X[r + j * ld] * z[j];
            a += fabs(X[r + j * ld] * z[j]);
        }
        for (size_t j = 0; j < nu; j++) {
            s += U[r + j * ld] * z[nx + j];
            a += fabs(U[r + j * ld] * z[nx + j]);
        }
        out[i] = s;
        if (ab)
            ab[i] = a;
    }
}

static double inf_norm(const double *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* The perturbation of each entry of z (n): 0.1 max(|z_j|, 1e-3 |z|_inf), or
 * 0.1 for an all-zero z: large enough that curvature shows (a power law
 * |w|^1.5 departs from its tangent by 2.5 % of the change at 10 %). */
static void steps(const double *z, size_t n, double *dz)
{
    const double zi = inf_norm(z, n);
    for (size_t j = 0; j < n; j++)
        dz[j] = zi > 0.0 ? 0.1 * fmax(fabs(z[j]), 1e-3 * zi) : 0.1;
}

cosa_status cosa_unit_linearity(cosa_unit *u, double t, const double *x0, const double *u0,
                                const double *A, const double *B, const double *C,
                                const double *D, cosa_linearity *out)
{
    if (!u || !x0 || !out || !A || !C || (cosa_unit_nu(u) && (!u0 || !B || !D)))
        return COSA_EINVAL;
    memset(out, 0, sizeof *out);
    const size_t nx = cosa_unit_nx(u), nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
    const size_t m = nx + nu, n = nx + ny;
    double *buf = calloc(4 * m + 5 * n + 2, sizeof *buf);
    if (!buf)
        return COSA_ENOMEM;
    double *z0 = buf, *dz = z0 + m, *z1 = dz + m, *d = z1 + m, *f0 = d + m, *f1 = f0 + n,
           *lin = f1 + n, *ab = lin + n, *sc = ab + n;
    memcpy(z0, x0, nx * sizeof *z0);
    if (nu)
        memcpy(z0 + nx, u0, nu * sizeof *z0);
    cosa_status st = cosa_unit_eval(u, t, z0, z0 + nx, f0, f0 + nx);
    /* the constant term at the point, against the size of its terms */
    if (st == COSA_OK) {
        jz(nx, nu, ny, A, B, C, D, z0, lin, ab);
        double r = 0.0, s = 0.0;
        for (size_t i = 0; i < n; i++) {
            r = fmax(r, fabs(f0[i] - lin[i]));
            s = fmax(s, fabs(f0[i]) + ab[i]);
        }
        out->affine_abs = r;
        out->affine = s > 0.0 ? r / s : 0.0;
    }
    steps(z0, nx, dz);
    steps(z0 + nx, nu, dz + nx);
    /* directions: each entry alone, then all together with alternating
     * signs (cross terms); both signs of each */
    for (size_t k = 0; k <= m && st == COSA_OK; k++)
        for (int sgn = -1; sgn <= 1 && st == COSA_OK; sgn += 2) {
            for (size_t j = 0; j < m; j++)
                d[j] = k == m ? ((j & 1) ? -sgn : sgn) * dz[j] : j == k ? sgn * dz[j] : 0.0;
            for (size_t j = 0; j < m; j++)
                z1[j] = z0[j] + d[j];
            if ((st = cosa_unit_eval(u, t, z1, z1 + nx, f1, f1 + nx)) != COSA_OK)
                break;
            jz(nx, nu, ny, A, B, C, D, d, lin, ab);
            jz(nx, nu, ny, A, B, C, D, z1, sc, NULL); /* only for the row scale below */
            for (size_t i = 0; i < n; i++) {
                /* row i's change against the size of its terms: a change
                 * within 1e-7 of them is rounding, not a slope (rounding of
                 * f is a few eps of the terms, so the ratio's noise stays
                 * < 1e-8, below COSA_LINEARITY_TOL) */
                const double df = f1[i] - f0[i];
                const double den = fmax(fabs(df), fabs(lin[i]));
                const double scale = fabs(f0[i]) + fabs(f1[i]) + ab[i] + fabs(sc[i]);
                if (!(den > 1e-7 * scale) || !(den > 0.0))
                    continue;
                out->nonlinear = fmax(out->nonlinear, fabs(df - lin[i]) / den);
            }
        }
    free(buf);
    if (st != COSA_OK)
        return st;
    out->is_nonlinear = out->nonlinear > COSA_LINEARITY_TOL;
    out->is_affine = out->affine > COSA_LINEARITY_TOL;
    return COSA_OK;
}
