/* test_contour.c -- contour lines by marching squares (lib/phi/contour.c):
 * a circle's level set in closed form, vertices on the bilinear
 * interpolant's level set to rounding, saddles, holes, infinities,
 * argument checks. */
#include <criterion/criterion.h>

#include "cosa.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double *grid(size_t n, double lo, double hi)
{
    double *u = malloc(n * sizeof *u);
    cr_assert(u);
    for (size_t i = 0; i < n; i++)
        u[i] = lo + (hi - lo) * (double)i / (double)(n - 1);
    return u;
}

/* Index of the last coordinate <= p (u increasing), or SIZE_MAX if p equals
 * none of them and exact is set. */
static size_t locate(const double *u, size_t n, double p, int exact)
{
    size_t k = 0;
    while (k + 1 < n && u[k + 1] <= p)
        k++;
    if (exact && u[k] != p)
        return SIZE_MAX;
    return k;
}

/* The residual |f(p) - level| of the edge interpolant at vertex (x, y) and
 * its bound.  A vertex lies on a grid line (its other coordinate is pa +
 * t (pb - pa) on the edge).  Bound: t carries 3 roundings (two differences,
 * a quotient), p = pa + t h two more, and recovering s = (p - pa) / h here
 * two more plus eps |p| / h from the rounding of p; f = za + s (zb - za) two
 * more.  So |f - level| <= 8 eps ((|zb - za|) (1 + max(|pa|, |pb|) / h) +
 * |za| + |level|), 8 being a round upper bound of the count. */
static void edge_residual(const double *z, const double *u, size_t nx, const double *v,
                          size_t ny, double level, double x, double y, double *res,
                          double *bound)
{
    size_t iy = locate(v, ny, y, 1), ix;
    double za, zb, pa, pb, p;
    if (iy != SIZE_MAX) { /* on a horizontal edge */
        ix = locate(u, nx, x, 0);
        if (ix + 1 >= nx)
            ix = nx - 2;
        za = z[ix * ny + iy];
        zb = z[(ix + 1) * ny + iy];
        pa = u[ix], pb = u[ix + 1], p = x;
    } else {
        ix = locate(u, nx, x, 1);
        cr_assert_neq(ix, SIZE_MAX, "vertex (%g, %g) on no grid line", x, y);
        iy = locate(v, ny, y, 0);
        if (iy + 1 >= ny)
            iy = ny - 2;
        za = z[ix * ny + iy];
        zb = z[ix * ny + iy + 1];
        pa = v[iy], pb = v[iy + 1], p = y;
    }
    cr_assert((za > level) != (zb > level), "vertex on an edge that does not cross");
    const double h = pb - pa, s = (p - pa) / h;
    cr_assert(s >= 0.0 && s <= 1.0);
    *res = fabs(za + s * (zb - za) - level);
    *bound = 8.0 * DBL_EPSILON *
             (fabs(zb - za) * (1.0 + fmax(fabs(pa), fabs(pb)) / h) + fabs(za) + fabs(level));
}

/* z = x^2 + y^2, level r^2: one closed line.  On an edge at fixed y the
 * linear interpolant of x^2 exceeds x^2 by (x - xa)(xb - x) in [0, h^2/4],
 * so every vertex has level - h^2/4 <= x^2 + y^2 <= level (closed form,
 * independent of the code), up to rounding. */
Test(contour, circle_closed_form)
{
    const size_t n = 41;
    double *u = grid(n, -1.0, 1.0), *z = malloc(n * n * sizeof *z);
    cr_assert(z);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            z[i * n + j] = u[i] * u[i] + u[j] * u[j];
    const double level = 0.5, h = 2.0 / (double)(n - 1);
    cosa_contour c;
    cr_assert_eq(cosa_contour_trace(z, n, n, u, u, level, &c), COSA_OK);
    cr_assert_eq(c.nline, 1);
    cr_assert_eq(c.start[1], c.nvertex);
    cr_assert_eq(c.x[0], c.x[c.nvertex - 1], "closed: ends on its first vertex");
    cr_assert_eq(c.y[0], c.y[c.nvertex - 1]);
    size_t crossings = 0; /* edges whose corners lie on either side */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j + 1 < n; j++) {
            crossings += (z[i * n + j] > level) != (z[i * n + j + 1] > level);
            crossings += (z[j * n + i] > level) != (z[(j + 1) * n + i] > level);
        }
    cr_assert_eq(c.nvertex, crossings + 1, "every crossing once, plus the closing vertex");
    double turn = 0.0; /* the line goes once around the origin */
    for (size_t k = 0; k < c.nvertex; k++) {
        const double r2 = c.x[k] * c.x[k] + c.y[k] * c.y[k];
        cr_assert(r2 <= level + 8 * DBL_EPSILON && r2 >= level - h * h / 4 - 8 * DBL_EPSILON,
                  "vertex %zu: r^2 = %.17g", k, r2);
        if (k) {
            double d = atan2(c.y[k], c.x[k]) - atan2(c.y[k - 1], c.x[k - 1]);
            d -= 2 * M_PI * round(d / (2 * M_PI));
            turn += d;
        }
    }
    cr_assert(fabs(fabs(turn) - 2 * M_PI) < 1e-9, "winding %g", turn / (2 * M_PI));
    cosa_contour_free(&c);
    free(u);
    free(z);
}

/* A rough field on coordinates far from 0 (as log10 axes are): every vertex
 * on the bilinear interpolant's level set to rounding (edge_residual), every
 * crossing edge used once by each cell beside it, consecutive vertices in
 * one cell. */
Test(contour, rough_field_vertices_on_level_set)
{
    const size_t nx = 37, ny = 29;
    double *u = grid(nx, 0.0, 10.0), *v = grid(ny, 1.0, 7.0);
    double *z = malloc(nx * ny * sizeof *z);
    cr_assert(z);
    unsigned long long s = 12345;
    for (size_t i = 0; i < nx; i++) /* shifted coordinates: 1e9 .. 1e10 on a log axis */
        u[i] += 9.0;
    for (size_t k = 0; k < nx * ny; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        z[k] = (double)(s >> 11) / 9007199254740992.0 * 2.0; /* in [0, 2) */
    }
    const double level = 1.0;
    cosa_contour c;
    cr_assert_eq(cosa_contour_trace(z, nx, ny, u, v, level, &c), COSA_OK);
    cr_assert_gt(c.nline, 10);
    /* each crossing edge is used once by every cell beside it (two inside,
     * one on the border), each segment has two ends */
    size_t ends = 0, segments = 0;
    for (size_t i = 0; i < nx; i++)
        for (size_t j = 0; j < ny; j++) {
            if (j + 1 < ny && (z[i * ny + j] > level) != (z[i * ny + j + 1] > level))
                ends += (i == 0 || i + 1 == nx) ? 1 : 2;
            if (i + 1 < nx && (z[i * ny + j] > level) != (z[(i + 1) * ny + j] > level))
                ends += (j == 0 || j + 1 == ny) ? 1 : 2;
        }
    for (size_t l = 0; l < c.nline; l++)
        segments += c.start[l + 1] - c.start[l] - 1;
    cr_assert_eq(2 * segments, ends);
    cr_assert_eq(c.nvertex, segments + c.nline);
    for (size_t k = 0; k < c.nvertex; k++) {
        double res, bound;
        edge_residual(z, u, nx, v, ny, level, c.x[k], c.y[k], &res, &bound);
        cr_assert_leq(res, bound, "vertex %zu: residual %g > bound %g", k, res, bound);
    }
    for (size_t l = 0; l < c.nline; l++)
        for (size_t k = c.start[l] + 1; k < c.start[l + 1]; k++) {
            const double hx = u[1] - u[0], hy = v[1] - v[0];
            cr_assert_leq(fabs(c.x[k] - c.x[k - 1]), hx * (1 + 1e-12));
            cr_assert_leq(fabs(c.y[k] - c.y[k - 1]), hy * (1 + 1e-12));
        }
    cosa_contour_free(&c);
    free(u);
    free(v);
    free(z);
}

/* One saddle cell: z00 = z11 = 1, z10 = z01 = 0, mean 0.5.  Level 0.4: the
 * mean is above, so the high corners are joined through the centre and the
 * lines cut off the low corners 10 (bottom-right) and 01 (top-left); level
 * 0.6: the other way round. */
Test(contour, saddle_by_cell_mean)
{
    const double u[2] = {0.0, 1.0}, z[4] = {1.0, 0.0, 0.0, 1.0}; /* z[ix*2+iy] */
    cosa_contour c;
    cr_assert_eq(cosa_contour_trace(z, 2, 2, u, u, 0.4, &c), COSA_OK);
    cr_assert_eq(c.nline, 2);
    cr_assert_eq(c.nvertex, 4);
    for (size_t l = 0; l < 2; l++) {
        /* both vertices are 0.4 from the cut-off corner, which is (1,0) or (0,1) */
        const double cx = c.x[2 * l] + c.x[2 * l + 1] > 1.0 ? 1.0 : 0.0, cy = 1.0 - cx;
        for (size_t k = 2 * l; k < 2 * l + 2; k++)
            cr_assert_float_eq(hypot(c.x[k] - cx, c.y[k] - cy), 0.4, 4 * DBL_EPSILON);
    }
    cosa_contour_free(&c);
    cr_assert_eq(cosa_contour_trace(z, 2, 2, u, u, 0.6, &c), COSA_OK);
    cr_assert_eq(c.nline, 2);
    for (size_t l = 0; l < 2; l++) {
        const double cx = c.x[2 * l] + c.x[2 * l + 1] > 1.0 ? 1.0 : 0.0, cy = cx;
        for (size_t k = 2 * l; k < 2 * l + 2; k++) /* 1 - 0.6 = 0.4 from a high corner */
            cr_assert_float_eq(hypot(c.x[k] - cx, c.y[k] - cy), 0.4, 4 * DBL_EPSILON);
    }
    cosa_contour_free(&c);
}

/* A NaN corner removes its cells (the line of x = 0.5 breaks there); +inf
 * counts as above and puts the vertex at the finite corner. */
Test(contour, holes_and_infinity)
{
    const size_t n = 5;
    double *u = grid(n, 0.0, 1.0), z[25];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            z[i * n + j] = u[i]; /* level 0.6: the line x = 0.6 */
    z[2 * n + 2] = NAN;           /* x = 0.5, y = 0.5: four cells gone */
    cosa_contour c;
    cr_assert_eq(cosa_contour_trace(z, n, n, u, u, 0.6, &c), COSA_OK);
    cr_assert_eq(c.nline, 2, "the line breaks at the hole");
    for (size_t k = 0; k < c.nvertex; k++)
        cr_assert_float_eq(c.x[k], 0.6, 4 * DBL_EPSILON);
    cosa_contour_free(&c);
    z[2 * n + 2] = 0.5;
    for (size_t j = 0; j < n; j++)
        z[3 * n + j] = INFINITY; /* x = 0.75 unstable: the line moves to x = 0.5 */
    cr_assert_eq(cosa_contour_trace(z, n, n, u, u, 0.6, &c), COSA_OK);
    cr_assert_eq(c.nline, 1);
    cr_assert_eq(c.nvertex, n);
    for (size_t k = 0; k < c.nvertex; k++)
        cr_assert_eq(c.x[k], 0.5);
    cosa_contour_free(&c);
    free(u);
}

Test(contour, bad_arguments)
{
    const double u[2] = {0.0, 1.0}, z[4] = {0, 1, 0, 1};
    cosa_contour c;
    cr_assert_eq(cosa_contour_trace(NULL, 2, 2, u, u, 0.5, &c), COSA_EINVAL);
    cr_assert_eq(cosa_contour_trace(z, 1, 2, u, u, 0.5, &c), COSA_EINVAL);
    cr_assert_eq(cosa_contour_trace(z, 2, 2, u, u, NAN, &c), COSA_ENONFINITE);
    cr_assert_eq(c.nline, 0);
    cr_assert_eq(cosa_contour_trace(z, 2, 2, u, u, 0.5, NULL), COSA_EINVAL);
    cosa_contour_free(NULL);
}
