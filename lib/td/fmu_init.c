/* fmu_init.c -- the initialization loop (README "FMU import"): FMUs whose
 * direct feedthrough closes a cycle of the coupling u = L y are iterated in
 * Initialization Mode to the fixed point y = g(t, x, L y) before they start
 * stepping, with the master's algebraic-loop solver (Newton, the same
 * tolerance and limit: cosa_unitset_loop_solve_stats). */
#include "td/unit_impl.h"
#include "td/unitset_impl.h"
#include "td/unit_fmu_impl.h"

#include <stdlib.h>
#include <string.h>

/* in_loop[i] = 1 for the units on a cycle of the feedthrough graph: an edge
 * j -> i when an output of j feeds (L != 0) an input k of i whose column of
 * D_i is not zero (a unit without Jacobians counts as without feedthrough).
 * Warshall's closure on the nunits x nunits graph. */
static cosa_status find_loop(cosa_unitset *set, double t, const double *x, unsigned char *in_loop)
{
    const size_t n = cosa_unitset_count(set), nu = cosa_unitset_nu(set);
    const double *L = cosa_unitset_L(set);
    size_t dmax = 0, umax = 0;
    for (size_t i = 0; i < n; i++) {
        const cosa_unit *u = cosa_unitset_unit(set, i);
        dmax = u->nu * u->ny > dmax ? u->nu * u->ny : dmax;
        umax = u->nu > umax ? u->nu : umax;
    }
    unsigned char *g = calloc(n * n + nu + 1, 1);
    double *D = calloc(dmax + umax + 1, sizeof *D);
    if (!g || !D) {
        free(g);
        free(D);
        return COSA_ENOMEM;
    }
    unsigned char *ft = g + n * n; /* ft[k]: stacked input k has feedthrough */
    double *u0 = D + dmax;         /* zeros */
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < n && st == COSA_OK; i++) {
        cosa_unit *u = cosa_unitset_unit(set, i);
        size_t ox, ou;
        cosa_unitset_offsets(set, i, &ox, &ou, NULL);
        if (!u->nu || !u->ny)
            continue;
        st = cosa_unit_jacobian(u, t, x + ox, u0, 0, NULL, NULL, NULL, D);
        if (st == COSA_EUNSUPPORTED) { /* no Jacobians: no loop solver either; the
                                          unit counts as without feedthrough */
            cosa_unit_fail(u, "%s", "");
            st = COSA_OK;
            continue;
        }
        for (size_t k = 0; st == COSA_OK && k < u->nu; k++)
            for (size_t r = 0; r < u->ny; r++)
                ft[ou + k] |= D[r + k * u->ny] != 0.0;
    }
    for (size_t i = 0; i < n && st == COSA_OK; i++) {
        const cosa_unit *ui = cosa_unitset_unit(set, i);
        size_t oui;
        cosa_unitset_offsets(set, i, NULL, &oui, NULL);
        for (size_t j = 0; j < n; j++) {
            const cosa_unit *uj = cosa_unitset_unit(set, j);
            size_t oyj;
            cosa_unitset_offsets(set, j, NULL, NULL, &oyj);
            for (size_t k = 0; k < ui->nu && !g[i + j * n]; k++)
                for (size_t l = 0; ft[oui + k] && l < uj->ny; l++)
                    if (L[oui + k + (oyj + l) * nu] != 0.0)
                        g[i + j * n] = 1; /* j feeds i */
        }
    }
    for (size_t k = 0; k < n; k++) /* Warshall: i reached from j through k */
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; g[k + j * n] && i < n; i++)
                g[i + j * n] |= g[i + k * n];
    for (size_t i = 0; i < n; i++)
        in_loop[i] = st == COSA_OK && g[i + i * n];
    free(g);
    free(D);
    return st;
}

cosa_status cosa_unitset_find_loop(cosa_unitset *set, double t, const double *x,
                                   unsigned char *in_loop, int *loop)
{
    if (loop)
        *loop = 0;
    if (!set || !in_loop || (cosa_unitset_nx(set) && !x))
        return COSA_EINVAL;
    cosa_status st = find_loop(set, t, x, in_loop);
    for (size_t i = 0; loop && st == COSA_OK && i < cosa_unitset_count(set); i++)
        *loop |= in_loop[i];
    return st;
}

static int is_fmu(const cosa_unit *u) { return strcmp(cosa_unit_get_type(u)->name, "fmu") == 0; }

cosa_status cosa_fmu_init_loop(cosa_unitset *set, double t, const double *x, double *y,
                               unsigned char *in_loop, cosa_fmu_init_result *res)
{
    cosa_fmu_init_result dummy;
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    if (!set || (cosa_unitset_nx(set) && !x) || (cosa_unitset_ny(set) && !y))
        return COSA_EINVAL;
    const size_t n = cosa_unitset_count(set);
    unsigned char *flag = in_loop ? in_loop : calloc(n + 1, 1);
    if (!flag)
        return COSA_ENOMEM;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < n && st == COSA_OK; i++) {
        size_t ox;
        cosa_unitset_offsets(set, i, &ox, NULL, NULL);
        st = cosa_unit_set_state(cosa_unitset_unit(set, i), t, x ? x + ox : NULL);
    }
    if (st == COSA_OK)
        st = find_loop(set, t, x, flag);
    for (size_t i = 0; i < n && st == COSA_OK; i++)
        res->loop |= flag[i] && is_fmu(cosa_unitset_unit(set, i));
    if (st != COSA_OK || !res->loop) {
        if (!in_loop)
            free(flag);
        return st;
    }
    size_t entered = 0;
    for (; entered < n && st == COSA_OK; entered++) {
        cosa_unit *u = cosa_unitset_unit(set, entered);
        size_t ox;
        cosa_unitset_offsets(set, entered, &ox, NULL, NULL);
        if (flag[entered] && is_fmu(u))
            st = cosa_unit_fmu_init_enter(u, t, x ? x + ox : NULL);
    }
    if (st == COSA_OK) {
        memset(y, 0, cosa_unitset_ny(set) * sizeof *y);
        st = cosa_unitset_loop_solve_stats(set, t, x, y, &res->iterations, &res->residual);
    }
    for (size_t i = 0; i < entered; i++) { /* leave Initialization Mode, also on failure */
        cosa_unit *u = cosa_unitset_unit(set, i);
        if (flag[i] && is_fmu(u)) {
            cosa_status sx = cosa_unit_fmu_init_exit(u);
            st = st == COSA_OK ? sx : st;
        }
    }
    if (!in_loop)
        free(flag);
    return st;
}
