/* map_contour.c -- the contour-line files of `cosa map` (map_contour.h). */
#include "map_contour.h"

#include "map_data.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The plotting coordinate of a value: log10 on a log scale (non-positive
 * values of an error, which cannot be drawn on it, go to -300 as in the
 * scripts; +inf stays +inf: unstable, above every level). */
static double scale(double v, int lg)
{
    if (!lg || isnan(v))
        return v;
    return v > 0 ? log10(v) : -300.0;
}

/* The grid of a map's planes: nx x ny values, coordinates u, v (plotting
 * scale), one plane per block. */
typedef struct plane {
    const cosa_sweep_spec *sp;
    size_t is, nx, ny, nblock;
    int dt_axis, zlog, ylog;
    double *u, *v, *z;
    char (*us)[32], (*vs)[32]; /* a grid coordinate's text ("": not yet) */
} plane;

/* Block b's values, scaled: values[] itself where they need no change,
 * else in p->z.  cosa_sweep_index(sp, is, it, ix, iy) = base + it * sit +
 * ix * sx + iy: a block of a map over two parameters is one contiguous run
 * of values (z in the same order); over (x, dt), an x row takes every
 * sit-th value. */
static const double *plane_fill(plane *p, const double *values, size_t b)
{
    const cosa_sweep_spec *sp = p->sp;
    const size_t sx = sp->y.n, sit = sp->x.n * sp->y.n;
    const double *val = values + cosa_sweep_index(sp, p->is, p->dt_axis ? 0 : b, 0, 0);
    double *z = p->z;
    if (!p->dt_axis && !p->zlog)
        return val;
    if (!p->dt_axis)
        for (size_t i = 0; i < p->nx * p->ny; i++)
            z[i] = scale(val[i], 1);
    else
        for (size_t ix = 0; ix < p->nx; ix++)
            for (size_t k = 0; k < p->ny; k++)
                z[ix * p->ny + k] = scale(val[k * sit + ix * sx], p->zlog);
    return z;
}

/* A vertex coordinate w in the axis' own units, as text in buf: the grid
 * value itself where w is a grid coordinate g[k] (a vertex on a grid line:
 * written as in the data file; one of the two coordinates of every vertex
 * is, so its text is made once per grid line, in gs[k]), else w, or 10^w
 * on a log axis.  The text, in buf or gs. */
static const char *unscale(char *buf, double w, const double *g, size_t n, int lg,
                           const cosa_sweep_axis *ax, const double *dt, char (*gs)[32])
{
    size_t lo = 0, hi = n; /* g increasing: the first g[k] >= w */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (g[mid] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && g[lo] == w) {
        if (!gs[lo][0])
            md_num(gs[lo], sizeof gs[lo], ax ? cosa_sweep_axis_value(ax, lo) : dt[lo]);
        return gs[lo];
    }
    md_num(buf, 32, lg ? pow(10.0, w) : w);
    return buf;
}

/* One block: the lines of block b; 0 or an errno value. */
static int write_block(FILE *f, plane *p, size_t b, const double *values, double zl)
{
    const cosa_sweep_spec *sp = p->sp;
    const double *z = plane_fill(p, values, b);
    cosa_contour c;
    if (cosa_contour_trace(z, p->nx, p->ny, p->u, p->v, zl, &c) != COSA_OK) {
        cosa_contour_free(&c);
        return ENOMEM;
    }
    char d[32], bx[32], by[32];
    if (p->dt_axis)
        fprintf(f, "# lines %zu\n", c.nline);
    else {
        md_num(d, sizeof d, sp->dt[b]);
        fprintf(f, "%s# dt %s lines %zu\n", b ? "\n\n" : "", d, c.nline);
    }
    if (c.nline == 0)
        fputs("nan nan\n", f);
    for (size_t l = 0; l < c.nline; l++) {
        if (l)
            fputc('\n', f);
        for (size_t k = c.start[l]; k < c.start[l + 1]; k++) {
            fputs(unscale(bx, c.x[k], p->u, p->nx, sp->x.log, &sp->x, NULL, p->us), f);
            fputc(' ', f);
            fputs(unscale(by, c.y[k], p->v, p->ny, p->ylog, p->dt_axis ? NULL : &sp->y, sp->dt,
                          p->vs),
                  f);
            fputc('\n', f);
        }
    }
    cosa_contour_free(&c);
    return 0;
}

int map_contour_write(const char *path, const cosa_sweep_spec *sp, size_t is, int dt_axis,
                      const double *values, double level, const char *head)
{
    plane p = {.sp = sp, .is = is, .nx = sp->x.n, .ny = dt_axis ? sp->ndt : sp->y.n,
               .nblock = dt_axis ? 1 : sp->ndt, .dt_axis = dt_axis,
               .zlog = cosa_metric_is_error(sp->metric), .ylog = dt_axis || sp->y.log};
    if (p.nx < 2 || p.ny < 2) /* no cells: a header and empty blocks */
        p.nx = p.ny = 0;
    p.u = malloc((p.nx ? p.nx : 1) * sizeof *p.u);
    p.v = malloc((p.ny ? p.ny : 1) * sizeof *p.v);
    p.z = malloc((p.nx * p.ny > 0 ? p.nx * p.ny : 1) * sizeof *p.z);
    p.us = calloc(p.nx ? p.nx : 1, sizeof *p.us);
    p.vs = calloc(p.ny ? p.ny : 1, sizeof *p.vs);
    if (!p.u || !p.v || !p.z || !p.us || !p.vs) {
        free(p.u);
        free(p.v);
        free(p.z);
        free(p.us);
        free(p.vs);
        return ENOMEM;
    }
    for (size_t ix = 0; ix < p.nx; ix++)
        p.u[ix] = scale(cosa_sweep_axis_value(&sp->x, ix), sp->x.log);
    for (size_t k = 0; k < p.ny; k++)
        p.v[k] = dt_axis ? log10(sp->dt[k]) : scale(cosa_sweep_axis_value(&sp->y, k), sp->y.log);
    outfile of;
    FILE *f = outfile_open(&of, path, 0);
    int e = 0;
    if (!f)
        e = errno;
    else {
        setvbuf(f, NULL, _IOFBF, 1 << 16);
        fputs(head, f);
        for (size_t b = 0; b < p.nblock && !e; b++) {
            if (p.nx == 0)
                fprintf(f, "%snan nan\n", b ? "\n\n" : "");
            else
                e = write_block(f, &p, b, values, scale(level, p.zlog));
        }
        if (e)
            outfile_abandon(&of);
        else if (outfile_commit(&of) != 0)
            e = errno;
    }
    free(p.u);
    free(p.v);
    free(p.z);
    free(p.us);
    free(p.vs);
    return e;
}

/* The index of the largest dt (the last one if it repeats). */
static size_t largest_dt(const cosa_sweep_spec *sp)
{
    size_t k = 0;
    for (size_t it = 1; it < sp->ndt; it++)
        if (sp->dt[it] >= sp->dt[k])
            k = it;
    return k;
}

int map_fill_write(const char *path, const cosa_sweep_spec *sp, size_t is, const double *values,
                   double level)
{
    const size_t nx = sp->x.n, ny = sp->y.n, it = largest_dt(sp);
    /* the plane's values: (ix, iy) at ix * ny + iy (cosa_sweep_index) */
    const double *val = values + cosa_sweep_index(sp, is, it, 0, 0);
    unsigned char *row = malloc(nx ? nx : 1);
    if (!row)
        return ENOMEM;
    outfile of;
    FILE *f = outfile_open(&of, path, 1);
    int e = 0;
    if (!f)
        e = errno;
    else {
        for (size_t iy = 0; iy < ny && !e; iy++) {
            for (size_t ix = 0; ix < nx; ix++) {
                const double v = val[ix * ny + iy];
                row[ix] = isnan(v) ? 1 : (v <= level ? 2 : 0);
            }
            if (fwrite(row, 1, nx, f) != nx)
                e = errno ? errno : EIO;
        }
        if (e)
            outfile_abandon(&of);
        else if (outfile_commit(&of) != 0)
            e = errno;
    }
    free(row);
    return e;
}
