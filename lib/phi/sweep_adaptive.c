/* sweep_adaptive.c -- maps and curves at the cost of their contours.
 *
 * A stability or accuracy map is read for its contour value = level.  Per
 * plane (one scheme and, for a map over two parameters, one macro step) the
 * grid is evaluated every K-th point first; then every cell whose corners
 * straddle the level, or come within a margin of it, or failed (NaN), is
 * split in two along each side longer than one grid step, and the new points
 * are evaluated, round by round, until the active cells are single grid
 * cells.  Cells that never became active hold no contour (their corners
 * are on one side of the level, away from it): their points are filled by
 * bilinear interpolation of the corners (the nearest corner where a corner
 * is infinite), and marked not exact.  Then the contours are traced (see
 * trace()): a contour that left the refined cells (a thin valley between
 * corners that do not hint at it) is followed from the crossings found.
 * Every point next to a contour is then evaluated, so the contours drawn
 * are those of the full grid unless a feature (an island) fits inside a
 * coarse cell without coming within the margin of its corners.
 *
 * The plane of a sweep is the first two of (x, y, dt) with more than one
 * point: (x, y) for maps, (x, dt) for maps over --y dt, (x) for a curve over a
 * parameter and (dt) for a curve over the macro step; the other indices and
 * the schemes enumerate the planes.  Each round is one cosa_sweep_run_list
 * over all planes, so the evaluation is as parallel as a full sweep. */
#include "cosa/phi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct cell {
    size_t plane, a0, a1, b0, b1;
};

struct view {
    size_t na, nb;          /* plane size                          */
    size_t sa, sb;          /* strides of a and b in the results   */
    size_t nplane;
    size_t dim[4], stride[4]; /* is, it, ix, iy                     */
    int pa, pb;             /* which of it, ix, iy (1, 2, 3) a, b are */
    size_t *base;           /* nplane: result index of (p, 0, 0)   */
};

/* Result index of plane p's point (0, 0), from the dimensions. */
static size_t plane_base(const struct view *v, size_t p)
{
    /* p enumerates the dims other than pa and pb, dim 0 (the scheme) slowest */
    size_t idx = 0;
    for (int d = 3; d >= 0; d--) {
        if (d == v->pa || d == v->pb)
            continue;
        idx += (p % v->dim[d]) * v->stride[d];
        p /= v->dim[d];
    }
    return idx;
}

/* Result index of plane p, point (a, b). */
static inline size_t at(const struct view *v, size_t p, size_t a, size_t b)
{
    return v->base[p] + a * v->sa + b * v->sb;
}

/* The inverse of at(): result index idx as p * na * nb + a * nb + b. */
static size_t plane_index(const struct view *v, size_t idx)
{
    size_t comp[4], p = 0;
    for (int d = 0; d < 4; d++) {
        comp[d] = idx / v->stride[d];
        idx %= v->stride[d];
    }
    for (int d = 0; d < 4; d++)
        if (d != v->pa && d != v->pb)
            p = p * v->dim[d] + comp[d];
    return (p * v->na + comp[v->pa]) * v->nb + comp[v->pb];
}

/* The view of the sweep's results as planes; v->base NULL: out of memory. */
static void make_view(const cosa_sweep_spec *sp, struct view *v)
{
    v->dim[0] = sp->nscheme;
    v->dim[1] = sp->ndt;
    v->dim[2] = sp->x.n;
    v->dim[3] = sp->y.n;
    v->stride[3] = 1;
    v->stride[2] = sp->y.n;
    v->stride[1] = sp->x.n * sp->y.n;
    v->stride[0] = sp->ndt * sp->x.n * sp->y.n;
    /* preference x, y, dt */
    static const int pref[3] = {2, 3, 1};
    int chosen[2] = {-1, -1}, nc = 0;
    for (int i = 0; i < 3 && nc < 2; i++)
        if (v->dim[pref[i]] > 1)
            chosen[nc++] = pref[i];
    for (int i = 0; i < 3 && nc < 2; i++) /* fill with a dimension of size 1 */
        if (pref[i] != chosen[0] && v->dim[pref[i]] == 1)
            chosen[nc++] = pref[i];
    v->pa = chosen[0];
    v->pb = chosen[1];
    v->na = v->dim[v->pa];
    v->nb = v->dim[v->pb];
    v->sa = v->stride[v->pa];
    v->sb = v->stride[v->pb];
    v->nplane = 1;
    for (int d = 0; d < 4; d++)
        if (d != v->pa && d != v->pb)
            v->nplane *= v->dim[d];
    v->base = malloc(v->nplane * sizeof *v->base);
    for (size_t p = 0; v->base && p < v->nplane; p++)
        v->base[p] = plane_base(v, p);
}

/* v in the metric's scale: itself for rho, log10 for the errors. */
static double scaled(double v, const cosa_adaptive_opts *o)
{
    return o->log_scale ? (v > 0.0 ? log10(v) : -INFINITY) : v;
}

enum { CELL_SETTLED = 0, CELL_CROSSED = 1, CELL_NEAR = 2 };

/* Whether the cell may hold a contour: CELL_CROSSED for a failed (NaN)
 * corner or corners on both sides of the level; CELL_NEAR for a finite
 * corner whose distance from the level is at most margin times the spread
 * of the finite corner values (in the metric's scale): the level could be
 * reached inside the cell by a bump of the size of the variation across it
 * (an island); else CELL_SETTLED. */
static int active(const double *val, const struct view *v, const struct cell *c,
                  const cosa_adaptive_opts *o)
{
    const size_t base = v->base[c->plane];
    const size_t as[2] = {c->a0 * v->sa, c->a1 * v->sa}, bs[2] = {c->b0 * v->sb, c->b1 * v->sb};
    const double lev = scaled(o->level, o);
    int below = 0, above = 0;
    double lo = INFINITY, hi = -INFINITY, dmin = INFINITY;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double x = val[base + as[i] + bs[j]];
            if (isnan(x))
                return CELL_CROSSED;
            if (x < o->level)
                below = 1;
            else
                above = 1;
            const double y = scaled(x, o);
            if (isfinite(y)) {
                lo = y < lo ? y : lo;
                hi = y > hi ? y : hi;
                const double d = fabs(y - lev);
                dmin = d < dmin ? d : dmin;
            }
        }
    if (below && above)
        return CELL_CROSSED;
    return isfinite(dmin) && dmin <= o->margin * (hi - lo) ? CELL_NEAR : CELL_SETTLED;
}

/* exact[] while the rounds run: 0 untouched, 1 evaluated, 2 listed for the
 * next evaluation, 3 interpolated (may still be listed and evaluated later,
 * when a neighbouring cell is refined). */
enum { PT_NONE = 0, PT_EXACT = 1, PT_LISTED = 2, PT_FILLED = 3 };

/* Fill the points of an inactive cell that were neither evaluated nor
 * filled; returns how many it filled. */
static size_t fill(double *val, unsigned char *exact, const struct view *v, const struct cell *c)
{
    size_t nfill = 0;
    const size_t base = v->base[c->plane], sa = v->sa, sb = v->sb;
    const double c00 = val[base + c->a0 * sa + c->b0 * sb], c10 = val[base + c->a1 * sa + c->b0 * sb],
                 c01 = val[base + c->a0 * sa + c->b1 * sb], c11 = val[base + c->a1 * sa + c->b1 * sb];
    const int finite = isfinite(c00) && isfinite(c10) && isfinite(c01) && isfinite(c11);
    /* the weights along b, once per cell (the same quotients as per point) */
    double tbs[64];
    const size_t nb = c->b1 - c->b0 + 1, ntb = nb <= 64 ? nb : 0;
    for (size_t j = 0; j < ntb; j++)
        tbs[j] = c->b1 > c->b0 ? (double)j / (double)(c->b1 - c->b0) : 0.0;
    for (size_t a = c->a0; a <= c->a1; a++) {
        const size_t row = base + a * sa;
        const double ta = c->a1 > c->a0 ? (double)(a - c->a0) / (double)(c->a1 - c->a0) : 0.0;
        for (size_t b = c->b0; b <= c->b1; b++) {
            const size_t idx = row + b * sb;
            if (exact[idx] != PT_NONE)
                continue;
            exact[idx] = PT_FILLED;
            nfill++;
            const double tb = ntb          ? tbs[b - c->b0]
                              : c->b1 > c->b0 ? (double)(b - c->b0) / (double)(c->b1 - c->b0)
                                              : 0.0;
            if (finite)
                val[idx] = (1.0 - ta) * ((1.0 - tb) * c00 + tb * c01) +
                           ta * ((1.0 - tb) * c10 + tb * c11);
            else /* the nearest corner */
                val[idx] = ta <= 0.5 ? (tb <= 0.5 ? c00 : c01) : (tb <= 0.5 ? c10 : c11);
        }
    }
    return nfill;
}

static int cmp_size(const void *p, const void *q)
{
    const size_t a = *(const size_t *)p, b = *(const size_t *)q;
    return a < b ? -1 : a > b;
}

/* Append idx to the list if it was not evaluated or listed yet (an
 * interpolated point is no longer settled: *settled counts down). */
static void want(size_t idx, unsigned char *exact, size_t *list, size_t *n, size_t *settled)
{
    if (exact[idx] == PT_NONE || exact[idx] == PT_FILLED) {
        if (exact[idx] == PT_FILLED)
            (*settled)--;
        exact[idx] = PT_LISTED;
        list[(*n)++] = idx;
    }
}

/* The threads for work in n parts: the sweep's count (<= 0: the OpenMP
 * default), at most n, at least 1. */
static int plane_threads(int threads, size_t n)
{
    int nth = 1;
#ifdef _OPENMP
    nth = threads > 0 ? threads : omp_get_max_threads();
#endif
    if ((size_t)nth > n)
        nth = (int)n;
    return nth > 0 ? nth : 1;
}

/* One round on the cells c[0..nc) of one plane: fill the settled ones,
 * list the new points (*nlist of them into list), write the halves of the
 * others (*nnext into next); *settled counts the points filled minus the
 * filled ones listed again (modulo 2^64: the caller adds it).  Touches only
 * that plane's points, so planes can go to different threads. */
static void split_cells(double *values, unsigned char *exact, const struct view *v,
                        const cosa_adaptive_opts *opt, const struct cell *c0, size_t nc,
                        struct cell *next, size_t *nnext, size_t *list, size_t *nlist,
                        size_t *settled)
{
    size_t nn = 0, nnew = 0, st = 0;
    for (size_t i = 0; i < nc; i++) {
        const struct cell *c = &c0[i];
        const int ac = active(values, v, c, opt);
        if (ac == CELL_SETTLED) {
            st += fill(values, exact, v, c);
            continue;
        }
        if (c->a1 - c->a0 <= 1 && c->b1 - c->b0 <= 1)
            continue; /* a single grid cell: its corners are exact */
        const size_t am = c->a1 - c->a0 > 1 ? (c->a0 + c->a1) / 2 : c->a0;
        const size_t bm = c->b1 - c->b0 > 1 ? (c->b0 + c->b1) / 2 : c->b0;
        if (ac == CELL_NEAR && c->a1 - c->a0 <= 2 && c->b1 - c->b0 <= 2) {
            /* the last split of a cell that only comes near the level: its
             * centre is probed, the rest interpolated; if the centre crosses
             * the level, the tracing evaluates its neighbours */
            want(at(v, c->plane, am, bm), exact, list, &nnew, &st);
            st += fill(values, exact, v, c);
            continue;
        }
        const size_t as[3] = {c->a0, am, c->a1}, bs[3] = {c->b0, bm, c->b1};
        const int sa = am != c->a0, sb = bm != c->b0;
        for (int i2 = 0; i2 < 3; i2++)
            for (int j2 = 0; j2 < 3; j2++)
                want(at(v, c->plane, as[i2], bs[j2]), exact, list, &nnew, &st);
        for (int i2 = 0; i2 <= sa; i2++)
            for (int j2 = 0; j2 <= sb; j2++)
                next[nn++] = (struct cell){c->plane, sa ? as[i2] : c->a0, sa ? as[i2 + 1] : c->a1,
                                           sb ? bs[j2] : c->b0, sb ? bs[j2 + 1] : c->b1};
    }
    *nnext = nn;
    *nlist = nnew;
    *settled = st;
}

/* One round on all cells (sorted by plane, as every round makes them): the
 * planes side by side on the sweep's threads, each into its own part of
 * next (4 per cell) and of the scratch list lst (9 per cell), then joined in
 * plane order into next, *nn and list, *nnew: the same cells and points as
 * one pass in order.  COSA_ENOMEM if the plane table cannot be had. */
static cosa_status split_round(double *values, unsigned char *exact, const struct view *v,
                               const cosa_adaptive_opts *opt, const struct cell *cells,
                               size_t nc, struct cell *next, size_t *nn, size_t *lst,
                               size_t *list, size_t *nnew, size_t *settled, int threads)
{
    /* the runs of one plane: their starts, and per run its three counts */
    size_t *start = malloc((nc + 1) * 4 * sizeof *start), nr = 0;
    if (!start)
        return COSA_ENOMEM;
    for (size_t i = 0; i < nc; i++)
        if (i == 0 || cells[i].plane != cells[i - 1].plane)
            start[nr++] = i;
    start[nr] = nc;
    size_t *cnt = start + nc + 1; /* 3 per run: next cells, list entries, settled */
    const int nth = plane_threads(threads, nr);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (size_t r = 0; r < nr; r++)
        split_cells(values, exact, v, opt, cells + start[r], start[r + 1] - start[r],
                    next + 4 * start[r], &cnt[3 * r], lst + 9 * start[r], &cnt[3 * r + 1],
                    &cnt[3 * r + 2]);
    size_t m = 0, k = 0;
    for (size_t r = 0; r < nr; r++) {
        memmove(next + m, next + 4 * start[r], cnt[3 * r] * sizeof *next);
        m += cnt[3 * r];
        memcpy(list + k, lst + 9 * start[r], cnt[3 * r + 1] * sizeof *list);
        k += cnt[3 * r + 1];
        *settled += cnt[3 * r + 2];
    }
    *nn = m;
    *nnew = k;
    free(start);
    return COSA_OK;
}

/* Progress of the whole adaptive sweep through the rounds: a round's
 * progress (done of its list) is reported as settled + done of all the
 * points; only the end of the last round reports all of them. */
struct progress_adapter {
    const cosa_sweep_spec *outer;
    size_t settled, total;
};

static void adapt_progress(size_t done, size_t n, void *user_data)
{
    (void)n;
    const struct progress_adapter *a = user_data;
    size_t now = a->settled + done;
    if (now >= a->total)
        now = a->total - 1;
    a->outer->progress(now, a->total, a->outer->user_data);
}

/* Sort the result indices list[0..n) (idx = rest * npts + point, rest < nrest)
 * by grid point, and by idx within a point: two stable counting sorts, by
 * rest and then by point (O(n + npts), where qsort took a fifth of the
 * bookkeeping).  Without the scratch memory: qsort on the same key. */
static void sort_by_point(size_t *list, size_t n, size_t npts, size_t nrest)
{
    const size_t nc = (npts > nrest ? npts : nrest) + 1;
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp), *cnt = calloc(nc, sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        for (size_t i = 0; i < n; i++) /* key: grid point first, then the result index */
            list[i] = (list[i] % npts) * nrest + list[i] / npts;
        qsort(list, n, sizeof *list, cmp_size);
        for (size_t i = 0; i < n; i++)
            list[i] = (list[i] % nrest) * npts + list[i] / nrest;
        return;
    }
    /* by rest: list -> tmp */
    for (size_t i = 0; i < n; i++)
        cnt[list[i] / npts + 1]++;
    for (size_t r = 0; r < nrest; r++)
        cnt[r + 1] += cnt[r];
    for (size_t i = 0; i < n; i++)
        tmp[cnt[list[i] / npts]++] = list[i];
    /* by point, stably: tmp -> list */
    memset(cnt, 0, nc * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[tmp[i] % npts + 1]++;
    for (size_t k = 0; k < npts; k++)
        cnt[k + 1] += cnt[k];
    for (size_t i = 0; i < n; i++)
        list[cnt[tmp[i] % npts]++] = tmp[i];
    free(tmp);
    free(cnt);
}

/* Sort the list by grid point (a thread keeps its system at a point), run
 * it, mark the results exact. */
struct runner {
    cosa_sweep_list_fn fn;
    void *data;
};

static cosa_status run(const cosa_sweep_spec *sp, const struct runner *rn, size_t *list,
                       size_t n, double *val, cosa_status *status, unsigned char *exact,
                       size_t *failed, size_t *evals, size_t *settled)
{
    cosa_sweep_spec inner = *sp;
    struct progress_adapter pa = {sp, *settled, cosa_sweep_size(sp)};
    if (sp->progress) {
        inner.progress = adapt_progress;
        inner.user_data = &pa;
    }
    sort_by_point(list, n, sp->x.n * sp->y.n, sp->nscheme * sp->ndt);
    size_t f = 0;
    cosa_status st = rn->fn ? rn->fn(&inner, list, n, val, status, &f, rn->data)
                            : cosa_sweep_run_list(&inner, list, n, val, status, &f);
    if (st != COSA_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        exact[list[i]] = PT_EXACT;
    *failed += f;
    *evals += n;
    *settled += n;
    return COSA_OK;
}

/* Side of the level of value x: 0 below, 1 at or above, 2 failed (NaN). */
static int side(double x, double level)
{
    return isnan(x) ? 2 : x >= level;
}

/* Want the corners of the cells on both sides of the edge (a, b)-(a2, b2)
 * of plane p (a2 = a + 1 or b2 = b + 1). */
static void want_edge_cells(const struct view *v, size_t p, size_t a, size_t b, size_t a2,
                            size_t b2, unsigned char *exact, size_t *list, size_t *n,
                            size_t *settled)
{
    if (a2 != a) { /* edge along a: the cells at b - 1 and b + 1 */
        const size_t lo = b > 0 ? b - 1 : b, hi = b + 1 < v->nb ? b + 1 : b;
        for (size_t bb = lo; bb <= hi; bb++) {
            want(at(v, p, a, bb), exact, list, n, settled);
            want(at(v, p, a2, bb), exact, list, n, settled);
        }
    } else {
        const size_t lo = a > 0 ? a - 1 : a, hi = a + 1 < v->na ? a + 1 : a;
        for (size_t aa = lo; aa <= hi; aa++) {
            want(at(v, p, aa, b), exact, list, n, settled);
            want(at(v, p, aa, b2), exact, list, n, settled);
        }
    }
}

/* Examine the evaluated points chk[0..nchk) (plane-local indices) for
 * crossings the refinement missed: list (at list + *n) what must be
 * evaluated next. */
static void examine(const struct view *v, const cosa_adaptive_opts *o, const double *val,
                    unsigned char *exact, const size_t *chk, size_t nchk, size_t *list,
                    size_t *n, size_t *settled)
{
    const size_t plane_n = v->na * v->nb;
    for (size_t i = 0; i < nchk; i++) {
        const size_t p = chk[i] / plane_n, a = chk[i] % plane_n / v->nb, b = chk[i] % v->nb;
        const int s0 = side(val[at(v, p, a, b)], o->level);
        /* the four neighbours (a -+ 1, b), (a, b -+ 1) */
        const long da[4] = {-1, 1, 0, 0}, db[4] = {0, 0, -1, 1};
        for (int k = 0; k < 4; k++) {
            if ((da[k] < 0 && a == 0) || (da[k] > 0 && a + 1 >= v->na) ||
                (db[k] < 0 && b == 0) || (db[k] > 0 && b + 1 >= v->nb))
                continue;
            const size_t a2 = a + (size_t)da[k], b2 = b + (size_t)db[k];
            const size_t j = at(v, p, a2, b2);
            if (side(val[j], o->level) == s0)
                continue;
            if (exact[j] == PT_FILLED)
                want(j, exact, list, n, settled);
            else if (exact[j] == PT_EXACT)
                want_edge_cells(v, p, a < a2 ? a : a2, b < b2 ? b : b2, a < a2 ? a2 : a,
                                b < b2 ? b2 : b, exact, list, n, settled);
        }
    }
}

/* The evaluated points of every plane, in plane order, as plane-local
 * indices into chk (room for all points); their count.  Each plane scans
 * into its own part of chk, then the parts are joined. */
static size_t exact_points(const struct view *v, const unsigned char *exact, size_t *chk,
                           int threads)
{
    const size_t plane_n = v->na * v->nb;
    const int nth = plane_threads(threads, v->nplane);
    size_t *cnt = malloc(v->nplane * sizeof *cnt), n = 0;
    if (!cnt) { /* no table: in order, on this thread */
        for (size_t p = 0; p < v->nplane; p++)
            for (size_t a = 0; a < v->na; a++)
                for (size_t b = 0; b < v->nb; b++)
                    if (exact[at(v, p, a, b)] == PT_EXACT)
                        chk[n++] = p * plane_n + a * v->nb + b;
        return n;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (size_t p = 0; p < v->nplane; p++) {
        size_t k = 0, *out = chk + p * plane_n;
        for (size_t a = 0; a < v->na; a++) {
            const unsigned char *row = exact + v->base[p] + a * v->sa;
            for (size_t b = 0; b < v->nb; b++)
                if (row[b * v->sb] == PT_EXACT)
                    out[k++] = p * plane_n + a * v->nb + b;
        }
        cnt[p] = k;
    }
    for (size_t p = 0; p < v->nplane; p++) {
        memmove(chk + n, chk + p * plane_n, cnt[p] * sizeof *chk);
        n += cnt[p];
    }
    free(cnt);
    return n;
}

/* examine() on chk sorted by plane: each plane's run on a thread of its
 * own (a plane's wants touch only its points), into the plane's part of
 * list (at most its plane_n points), then joined in plane order.  The
 * points listed do not depend on the order of examination (a want is
 * idempotent, and an exact point stays exact), so this lists what one pass
 * in order lists. */
static cosa_status examine_planes(const struct view *v, const cosa_adaptive_opts *o,
                                  const double *val, unsigned char *exact, const size_t *chk,
                                  size_t nchk, size_t *list, size_t *n, size_t *settled,
                                  int threads)
{
    const size_t plane_n = v->na * v->nb;
    size_t *start = malloc((v->nplane + 1) * 3 * sizeof *start);
    if (!start)
        return COSA_ENOMEM;
    size_t *cnt = start + v->nplane + 1, *stl = cnt + v->nplane;
    for (size_t p = 0, i = 0; p <= v->nplane; p++) {
        while (i < nchk && chk[i] / plane_n < p)
            i++;
        start[p] = i;
    }
    const int nth = plane_threads(threads, v->nplane);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (size_t p = 0; p < v->nplane; p++) {
        cnt[p] = 0;
        stl[p] = 0;
        examine(v, o, val, exact, chk + start[p], start[p + 1] - start[p], list + p * plane_n,
                &cnt[p], &stl[p]);
    }
    size_t k = *n;
    for (size_t p = 0; p < v->nplane; p++) {
        memmove(list + k, list + p * plane_n, cnt[p] * sizeof *list);
        k += cnt[p];
        *settled += stl[p];
    }
    *n = k;
    free(start);
    return COSA_OK;
}

/* Contour tracing, after the rounds.  A contour that leaves the refined
 * cells (a thin valley of the value that crosses a cell between corners
 * that do not hint at it) shows as an evaluated point whose interpolated
 * neighbour lies on the other side of the level, or as a level crossing
 * between two evaluated neighbours whose cells are not all evaluated.  Both
 * are evaluated, and the new points are examined in turn, until every
 * crossing found is closed: then every grid edge that crosses the level in
 * a contour reached by the refinement has both end points evaluated, and
 * so have the cells on both sides of it.  Each pass examines only the
 * points evaluated by the one before. */
static cosa_status trace(const cosa_sweep_spec *sp, const struct runner *rn, const struct view *v,
                         const cosa_adaptive_opts *o, size_t *list, double *val,
                         cosa_status *status, unsigned char *exact, size_t *failed, size_t *evals,
                         size_t *settled)
{
    const size_t total = cosa_sweep_size(sp);
    /* the points to examine: all evaluated ones first, then each pass's new
     * ones (kept as (plane, a, b) through a plane-local index) */
    size_t *chk = malloc(total * sizeof *chk), nchk = 0;
    if (!chk)
        return COSA_ENOMEM;
    nchk = exact_points(v, exact, chk, sp->threads);
    cosa_status st = COSA_OK;
    int first = 1;
    while (st == COSA_OK && nchk > 0) {
        size_t n = 0;
        if (first) /* every plane's points, in plane order: planes side by side */
            st = examine_planes(v, o, val, exact, chk, nchk, list, &n, settled, sp->threads);
        else
            examine(v, o, val, exact, chk, nchk, list, &n, settled);
        first = 0;
        nchk = 0;
        if (n == 0)
            break;
        st = run(sp, rn, list, n, val, status, exact, failed, evals, settled);
        for (size_t i = 0; st == COSA_OK && i < n; i++)
            chk[nchk++] = plane_index(v, list[i]);
    }
    free(chk);
    return st;
}

cosa_status cosa_sweep_adaptive(const cosa_sweep_spec *spec, const cosa_adaptive_opts *opt,
                                double *values, cosa_status *status, unsigned char *exact,
                                size_t *nfailed, size_t *nevaluated)
{
    return cosa_sweep_adaptive_with(spec, opt, NULL, NULL, values, status, exact, nfailed,
                                    nevaluated);
}

cosa_status cosa_sweep_adaptive_with(const cosa_sweep_spec *spec, const cosa_adaptive_opts *opt,
                                     cosa_sweep_list_fn run_fn, void *run_data, double *values,
                                     cosa_status *status, unsigned char *exact, size_t *nfailed,
                                     size_t *nevaluated)
{
    const struct runner rn = {run_fn, run_data};
    if (!spec || !opt || !values || !exact)
        return COSA_EINVAL;
    const size_t total = cosa_sweep_size(spec);
    if (total == 0)
        return COSA_EINVAL; /* an invalid spec (cosa_sweep_size) */
    if (opt->coarse < 1 || !isfinite(opt->level) || !(opt->margin >= 0.0) ||
        !isfinite(opt->margin) || (opt->log_scale && !(opt->level > 0.0)) || opt->level == 0.0)
        return COSA_ERANGE;
    struct view v;
    make_view(spec, &v);
    memset(exact, 0, total);
    size_t failed = 0, evals = 0, settled = 0;
    size_t *list = malloc(total * sizeof *list);
    size_t ccap = 1, nc = 0;
    struct cell *cells = malloc(sizeof *cells);
    cosa_status st = list && cells && v.base ? COSA_OK : COSA_ENOMEM;

    /* round 0: the coarse grid, every K-th point and the last of each side */
    const size_t K = opt->coarse;
    size_t *ca = malloc((v.na / K + 2) * sizeof *ca), *cb = malloc((v.nb / K + 2) * sizeof *cb);
    size_t nca = 0, ncb = 0;
    if (!ca || !cb)
        st = COSA_ENOMEM;
    for (size_t a = 0; st == COSA_OK && a < v.na; a += K)
        ca[nca++] = a;
    for (size_t b = 0; st == COSA_OK && b < v.nb; b += K)
        cb[ncb++] = b;
    if (st == COSA_OK && ca[nca - 1] != v.na - 1)
        ca[nca++] = v.na - 1;
    if (st == COSA_OK && cb[ncb - 1] != v.nb - 1)
        cb[ncb++] = v.nb - 1;
    size_t n = 0;
    for (size_t p = 0; p < v.nplane && st == COSA_OK; p++)
        for (size_t i = 0; i < nca; i++)
            for (size_t j = 0; j < ncb; j++)
                want(at(&v, p, ca[i], cb[j]), exact, list, &n, &settled);
    if (st == COSA_OK)
        st = run(spec, &rn, list, n, values, status, exact, &failed, &evals, &settled);
    /* the coarse cells: consecutive coarse points (a side of one point: [0, 0]) */
    const size_t cna = nca > 1 ? nca - 1 : 1, cnb = ncb > 1 ? ncb - 1 : 1;
    if (st == COSA_OK) {
        ccap = v.nplane * cna * cnb;
        struct cell *c2 = realloc(cells, (ccap ? ccap : 1) * sizeof *cells);
        if (c2)
            cells = c2;
        else
            st = COSA_ENOMEM;
    }
    for (size_t p = 0; p < v.nplane && st == COSA_OK; p++)
        for (size_t i = 0; i < cna; i++)
            for (size_t j = 0; j < cnb; j++)
                cells[nc++] = (struct cell){p, ca[i], ca[nca > 1 ? i + 1 : i], cb[j],
                                            cb[ncb > 1 ? j + 1 : j]};
    free(ca);
    free(cb);

    /* rounds: split the active cells, evaluate the new points */
    while (st == COSA_OK && nc > 0) {
        size_t nn = 0, nnew = 0;
        struct cell *next = malloc((4 * nc + 1) * sizeof *next);
        size_t *lst = malloc((9 * nc + 1) * sizeof *lst);
        st = next && lst ? split_round(values, exact, &v, opt, cells, nc, next, &nn, lst, list,
                                       &nnew, &settled, spec->threads)
                         : COSA_ENOMEM;
        free(lst);
        free(cells);
        cells = next;
        nc = nn;
        if (st == COSA_OK && nnew)
            st = run(spec, &rn, list, nnew, values, status, exact, &failed, &evals, &settled);
    }
    if (st == COSA_OK)
        st = trace(spec, &rn, &v, opt, list, values, status, exact, &failed, &evals, &settled);
    if (st == COSA_OK && spec->progress)
        spec->progress(total, total, spec->user_data);
    /* exact: 1 evaluated, 0 interpolated */
    const int nth = plane_threads(spec->threads, total);
#pragma omp parallel for schedule(static) num_threads(nth)
    for (size_t i = 0; i < total; i++) {
        exact[i] = exact[i] == PT_EXACT;
        if (status && !exact[i])
            status[i] = COSA_OK; /* interpolated, not failed */
    }
    free(cells);
    free(list);
    free(v.base);
    if (nfailed)
        *nfailed = failed;
    if (nevaluated)
        *nevaluated = evals;
    return st;
}
