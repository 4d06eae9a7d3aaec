/* contour.c -- level lines of a field on a rectangular grid (marching
 * squares) joined into polylines; cosa/phi.h "Contour lines".
 *
 * Each grid cell is the square of corners (ix, iy), (ix+1, iy), (ix, iy+1),
 * (ix+1, iy+1).  A corner is "above" when z > level (+inf is above).  An
 * edge whose two corners differ carries one vertex, where the linear
 * interpolant of its two values equals level:
 *     t = (level - za) / (zb - za),   p = pa + t (pb - pa);
 * on an edge the bilinear interpolant of the cell is that linear function,
 * so every vertex lies on the bilinear interpolant's level set.  A cell with
 * two crossing edges gets one segment between them; a saddle (four crossing
 * edges, diagonal corners alike) is resolved by the cell mean, the value of
 * the bilinear interpolant at the cell centre: the corners on the mean's
 * side are joined through the centre, the two others are cut off.  The same
 * rule in every cell makes the lines of neighbouring cells meet.  A cell
 * with a NaN corner has no segment (a hole; lines end at its edges).
 *
 * An edge's vertex is a function of the edge's two corners alone, so the
 * two cells sharing it compute the same coordinates bitwise, and every edge
 * vertex joins at most two segments (one per cell beside it); the segments
 * are then walked into polylines, closed ones ending on their first vertex.
 *
 * Cost: almost every cell lies on one side of the level.  One pass marks
 * each point's side (above, not above, NaN); a cell whose four marks add up
 * to 0 or 4 (all below, all above, or two NaNs: no segment either way) is
 * passed over with a load and a compare, seven such cells at once where
 * eight marks of both grid lines are all 0 or all 1.  Only the other cells compute
 * their edges' vertices and segments, in the same cell order as a full
 * scan, and only the edges of segments are ever read or written; so the
 * lines, their order and their numbers do not depend on the shortcut. */
#include "cosa/phi.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Edge numbering: horizontal edges (ix, iy)-(ix+1, iy) are ix * ny + iy,
 * vertical ones (ix, iy)-(ix, iy+1) come after them. */
typedef struct contour_ws {
    size_t nx, ny, nh;
    const double *u, *v; /* grid coordinates                      */
    unsigned char *side; /* per point: 1 above, 0 not, 2 + that NaN */
    double *ex, *ey;   /* vertex of the edges of crossing cells    */
    size_t (*seg)[2];  /* the two edges of every segment           */
    size_t nseg, cap;
    size_t (*inc)[2];  /* segments at an edge of a segment (SIZE_MAX: none) */
    unsigned char *used;
} contour_ws;

static double cz(const double *z, size_t ny, size_t ix, size_t iy)
{
    return z[ix * ny + iy];
}

/* The vertex of the edge from corner (a) to corner (b), if they differ. */
static void edge_vertex(contour_ws *w, size_t e, double za, double zb, double pa_x,
                        double pa_y, double pb_x, double pb_y, double level)
{
    w->ex[e] = w->ey[e] = NAN;
    if (isnan(za) || isnan(zb) || (za > level) == (zb > level))
        return;
    double t;
    if (isinf(za))
        t = 1.0; /* the level is at the finite corner */
    else if (isinf(zb))
        t = 0.0;
    else
        t = (level - za) / (zb - za);
    w->ex[e] = pa_x + t * (pb_x - pa_x);
    w->ey[e] = pa_y + t * (pb_y - pa_y);
}

static int add_segment(contour_ws *w, size_t e0, size_t e1)
{
    if (w->nseg == w->cap) {
        const size_t cap = w->cap ? 2 * w->cap : 256;
        void *p = realloc(w->seg, cap * sizeof *w->seg);
        if (!p)
            return -1;
        w->seg = p;
        w->cap = cap;
    }
    const size_t s = w->nseg++;
    w->seg[s][0] = e0;
    w->seg[s][1] = e1;
    return 0;
}

/* The segments at every edge of a segment, in the order of the segments
 * (the edges of no segment are never read). */
static void incidence(contour_ws *w)
{
    for (size_t s = 0; s < w->nseg; s++)
        for (int k = 0; k < 2; k++)
            w->inc[w->seg[s][k]][0] = w->inc[w->seg[s][k]][1] = SIZE_MAX;
    for (size_t s = 0; s < w->nseg; s++)
        for (int k = 0; k < 2; k++) {
            const size_t e = w->seg[s][k];
            if (w->inc[e][0] == SIZE_MAX)
                w->inc[e][0] = s;
            else
                w->inc[e][1] = s;
        }
}

/* The segments of cell (ix, iy); its four edges are bottom (y = iy),
 * top, left (x = ix), right. */
static int cell_segments(contour_ws *w, const double *z, size_t ix, size_t iy, double level)
{
    const size_t ny = w->ny;
    const double z00 = cz(z, ny, ix, iy), z10 = cz(z, ny, ix + 1, iy);
    const double z01 = cz(z, ny, ix, iy + 1), z11 = cz(z, ny, ix + 1, iy + 1);
    if (isnan(z00) || isnan(z10) || isnan(z01) || isnan(z11))
        return 0;
    const int code = (z00 > level) | (z10 > level) << 1 | (z11 > level) << 2 |
                     (z01 > level) << 3;
    if (code == 0 || code == 15)
        return 0;
    const size_t bottom = ix * ny + iy, top = ix * ny + iy + 1;
    const size_t left = w->nh + ix * (ny - 1) + iy, right = w->nh + (ix + 1) * (ny - 1) + iy;
    const double *u = w->u, *v = w->v;
    /* each edge from its lower corner to its upper one */
    edge_vertex(w, bottom, z00, z10, u[ix], v[iy], u[ix + 1], v[iy], level);
    edge_vertex(w, top, z01, z11, u[ix], v[iy + 1], u[ix + 1], v[iy + 1], level);
    edge_vertex(w, left, z00, z01, u[ix], v[iy], u[ix], v[iy + 1], level);
    edge_vertex(w, right, z10, z11, u[ix + 1], v[iy], u[ix + 1], v[iy + 1], level);
    if (code == 5 || code == 10) { /* saddle: z00 and z11 alike, z10 and z01 alike */
        const double mean = 0.25 * (z00 + z10 + z01 + z11);
        const int centre = mean > level, c00 = (code & 1) != 0;
        if (centre == c00) /* 00 and 11 joined through the centre: cut off 10 and 01 */
            return add_segment(w, bottom, right) || add_segment(w, top, left) ? -1 : 0;
        return add_segment(w, left, bottom) || add_segment(w, right, top) ? -1 : 0;
    }
    size_t e[4], n = 0;
    const size_t edges[4] = {bottom, right, top, left};
    for (int k = 0; k < 4; k++)
        if (!isnan(w->ex[edges[k]]))
            e[n++] = edges[k];
    return n == 2 ? add_segment(w, e[0], e[1]) : 0;
}

/* The other segment at edge e than s, unused, or SIZE_MAX. */
static size_t next_segment(const contour_ws *w, size_t e, size_t s)
{
    for (int k = 0; k < 2; k++) {
        const size_t t = w->inc[e][k];
        if (t != SIZE_MAX && t != s && !w->used[t])
            return t;
    }
    return SIZE_MAX;
}

/* The other edge of segment s than e. */
static size_t other_edge(const contour_ws *w, size_t s, size_t e)
{
    return w->seg[s][0] == e ? w->seg[s][1] : w->seg[s][0];
}

static int push_vertex(cosa_contour *c, size_t *cap, double x, double y)
{
    if (c->nvertex == *cap) {
        const size_t n = *cap ? 2 * *cap : 1024;
        double *px = realloc(c->x, n * sizeof *px);
        if (!px)
            return -1;
        c->x = px;
        double *py = realloc(c->y, n * sizeof *py);
        if (!py)
            return -1;
        c->y = py;
        *cap = n;
    }
    c->x[c->nvertex] = x;
    c->y[c->nvertex] = y;
    c->nvertex++;
    return 0;
}

/* The segment at edge e other than s, or SIZE_MAX (used or not). */
static size_t other_at(const contour_ws *w, size_t e, size_t s)
{
    const size_t t = w->inc[e][0] != s ? w->inc[e][0] : w->inc[e][1];
    return t == s ? SIZE_MAX : t;
}

/* Walk the segments into polylines: from each unused segment back to an end
 * of its line (or once around a closed one), then forwards.  The segments
 * of a line are all unused until it is walked: a used one belongs to a line
 * already written, which is not connected to this one. */
static int join(contour_ws *w, cosa_contour *c)
{
    size_t vcap = 0, lcap = 0;
    c->start = malloc(sizeof *c->start);
    if (!c->start)
        return -1;
    c->start[0] = 0;
    for (size_t s0 = 0; s0 < w->nseg; s0++) {
        if (w->used[s0])
            continue;
        size_t s = s0, e = w->seg[s0][0];
        for (;;) { /* back to the free end, or around to s0 */
            const size_t t = other_at(w, e, s);
            if (t == SIZE_MAX || t == s0)
                break;
            e = other_edge(w, t, e);
            s = t;
        }
        if (s != s0 && other_at(w, e, s) == s0) { /* closed: start at s0 */
            s = s0;
            e = w->seg[s0][0];
        }
        if (lcap == c->nline) {
            lcap = lcap ? 2 * lcap : 64;
            size_t *p = realloc(c->start, (lcap + 1) * sizeof *p);
            if (!p)
                return -1;
            c->start = p;
        }
        if (push_vertex(c, &vcap, w->ex[e], w->ey[e]))
            return -1;
        while (s != SIZE_MAX) {
            w->used[s] = 1;
            e = other_edge(w, s, e);
            if (push_vertex(c, &vcap, w->ex[e], w->ey[e]))
                return -1;
            s = next_segment(w, e, s);
        }
        c->start[++c->nline] = c->nvertex;
    }
    return 0;
}

void cosa_contour_free(cosa_contour *c)
{
    if (!c)
        return;
    free(c->x);
    free(c->y);
    free(c->start);
    memset(c, 0, sizeof *c);
}

static void ws_free(contour_ws *w)
{
    free(w->side);
    free(w->ex);
    free(w->ey);
    free(w->seg);
    free(w->inc);
    free(w->used);
}

/* The segments of the cells (ix, iy), iy = 0 .. ny - 2.  Eight marks of
 * both grid lines alike and all 0 or all 1 (one word compare each) pass
 * seven cells over at once. */
static int column_cells(contour_ws *w, const double *z, size_t ix, double level)
{
    const size_t ny = w->ny;
    const unsigned char *s0 = w->side + ix * ny, *s1 = s0 + ny;
    const uint64_t ones = 0x0101010101010101u;
    size_t iy = 0;
    while (iy + 1 < ny) {
        uint64_t a, b;
        if (iy + 8 <= ny) {
            memcpy(&a, s0 + iy, sizeof a);
            memcpy(&b, s1 + iy, sizeof b);
            if (a == b && (a == 0 || a == ones)) {
                iy += 7;
                continue;
            }
        }
        const unsigned sum = (unsigned)s0[iy] + s1[iy] + s0[iy + 1] + s1[iy + 1];
        if (sum != 0 && sum != 4 && cell_segments(w, z, ix, iy, level))
            return -1;
        iy++;
    }
    return 0;
}

/* Every point's side, then the segments of every cell that may cross the
 * level, then the segments at every edge. */
static int trace(contour_ws *w, const double *z, double level)
{
    const size_t nx = w->nx, ny = w->ny;
    unsigned char *side = w->side;
    for (size_t i = 0; i < nx * ny; i++) /* z != z: NaN */
        side[i] = (unsigned char)((z[i] > level) | (z[i] != z[i]) << 1);
    for (size_t ix = 0; ix + 1 < nx; ix++)
        if (column_cells(w, z, ix, level))
            return -1;
    incidence(w);
    return 0;
}

cosa_status cosa_contour_trace(const double *z, size_t nx, size_t ny, const double *u,
                               const double *v, double level, cosa_contour *out)
{
    if (!out)
        return COSA_EINVAL;
    memset(out, 0, sizeof *out);
    if (!z || !u || !v || nx < 2 || ny < 2 || nx > SIZE_MAX / 4 / ny)
        return COSA_EINVAL;
    if (!isfinite(level))
        return COSA_ENONFINITE;
    for (size_t i = 0; i < nx; i++)
        if (!isfinite(u[i]))
            return COSA_ENONFINITE;
    for (size_t i = 0; i < ny; i++)
        if (!isfinite(v[i]))
            return COSA_ENONFINITE;
    contour_ws w = {.nx = nx, .ny = ny, .nh = (nx - 1) * ny, .u = u, .v = v};
    const size_t ne = w.nh + nx * (ny - 1);
    /* only the entries of crossing cells' edges are touched (the pages of
     * the others are never faulted in) */
    w.side = malloc(nx * ny);
    w.ex = malloc(ne * sizeof *w.ex);
    w.ey = malloc(ne * sizeof *w.ey);
    w.inc = malloc(ne * sizeof *w.inc);
    if (!w.side || !w.ex || !w.ey || !w.inc) {
        ws_free(&w);
        return COSA_ENOMEM;
    }
    if (trace(&w, z, level) != 0 ||
        (w.nseg && !(w.used = calloc(w.nseg, 1))) || join(&w, out) != 0) {
        ws_free(&w);
        cosa_contour_free(out);
        return COSA_ENOMEM;
    }
    ws_free(&w);
    return COSA_OK;
}
