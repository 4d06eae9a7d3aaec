/* bench_nrmse.c -- timing of cosa_nrmse (doubling, O(dim^3 log2 N)) against
 * cosa_nrmse_direct (O(N dim^2)).  Not a test and not run by make check.
 *
 * usage: bench_nrmse [dim [radius]]   (defaults 16 and 0.9999)
 * Prints, for N = 300 and N = 300000, the best-of-R time per evaluation and
 * the ratio t(300000) / t(300) of the fast route (requirement: <= 3).
 * Run with OPENBLAS_NUM_THREADS=1 for stable numbers. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cosa.h"
#include "dense.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long long state = 88172645463325252ull;
static double urand(void) /* in (-1, 1) */
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return 2.0 * (double)(state >> 11) * 0x1.0p-53 - 1.0;
}

/* M = S Lambda S^{-1}, Lambda: 2x2 rotation blocks of radius r (and r). */
static int similar(size_t d, const double *S, double r, double tscale, double *M)
{
    double *L = calloc(d * d, sizeof *L), *T = calloc(d * d, sizeof *T),
           *St = calloc(d * d, sizeof *St);
    lapack_int *ipiv = calloc(d, sizeof *ipiv);
    int ok = L && T && St && ipiv;
    if (ok) {
        for (size_t i = 0; i + 1 < d; i += 2) {
            const double t = tscale * (0.01 + 0.005 * (double)i);
            L[i + i * d] = L[i + 1 + (i + 1) * d] = r * cos(t);
            L[i + (i + 1) * d] = -r * sin(t);
            L[i + 1 + i * d] = r * sin(t);
        }
        if (d % 2)
            L[(d - 1) * (d + 1)] = r;
        cosa_gemm('N', 'N', d, d, d, 1.0, S, d, L, d, 0.0, T, d);
        for (size_t j = 0; j < d; j++)
            for (size_t i = 0; i < d; i++) {
                St[i + j * d] = S[j + i * d];
                M[i + j * d] = T[j + i * d];
            }
        ok = cosa_lu(d, St, d, ipiv) == 0;
        if (ok) {
            cosa_lu_solve(d, d, St, d, ipiv, M, d);
            for (size_t j = 0; j < d; j++)
                for (size_t i = j + 1; i < d; i++) {
                    const double x = M[i + j * d];
                    M[i + j * d] = M[j + i * d];
                    M[j + i * d] = x;
                }
        }
    }
    free(L);
    free(T);
    free(St);
    free(ipiv);
    return ok;
}

typedef cosa_status (*nrmse_fn)(size_t, const double *, const double *, size_t,
                                const cosa_layout *, const double *, size_t, double,
                                cosa_errors *, const cosa_nrmse_sums *, cosa_nrmse_workspace *);

static double best_time(nrmse_fn fn, size_t d, const double *Phi, const double *Phis,
                        const cosa_layout *lay, const double *z0, size_t N, double rho,
                        cosa_nrmse_workspace *w, int reps, cosa_errors *e)
{
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        cosa_status st = fn(d, Phi, Phis, d, lay, z0, N, rho, e, NULL, w);
        const double t = now() - t0;
        if (st != COSA_OK) {
            fprintf(stderr, "bench_nrmse: %s\n", cosa_strerror(st));
            exit(1);
        }
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    const size_t d = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 16;
    const double radius = argc > 2 ? strtod(argv[2], NULL) : 0.9999;
    if (d < 2 || d > 2000 || !(radius > 0.0 && radius < 1.0)) {
        fprintf(stderr, "usage: bench_nrmse [dim (2..2000) [radius in (0,1)]]\n");
        return 2;
    }
    double *S = malloc(d * d * sizeof *S), *Phi = malloc(d * d * sizeof *Phi),
           *Phis = malloc(d * d * sizeof *Phis), *z0 = malloc(d * sizeof *z0);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    if (!S || !Phi || !Phis || !z0 || !w) {
        fprintf(stderr, "bench_nrmse: out of memory\n");
        return 1;
    }
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++)
            S[i + j * d] = (i == j) + 0.3 * urand() / sqrt((double)d);
    for (size_t i = 0; i < d; i++)
        z0[i] = urand();
    if (!similar(d, S, radius, 1.0, Phis) || !similar(d, S, radius * 0.9999, 1.01, Phi)) {
        fprintf(stderr, "bench_nrmse: singular similarity\n");
        return 1;
    }
    const size_t ny = d / 4 ? d / 4 : 1;
    const cosa_layout lay = {.nx = d - ny, .ny = ny, .nhist = 1, .off_y = d - ny,
                             .off_du = d, .dim = d};
    const size_t Ns[2] = {300, 300000};
    double tf[2], td[2];
    cosa_errors ef[2], ed[2];
    for (int k = 0; k < 2; k++) {
        tf[k] = best_time(cosa_nrmse, d, Phi, Phis, &lay, z0, Ns[k], radius, w, 200, &ef[k]);
        td[k] = best_time(cosa_nrmse_direct, d, Phi, Phis, &lay, z0, Ns[k], radius, w,
                          k ? 3 : 50, &ed[k]);
    }
    printf("# bench_nrmse: dim %zu, radius %g, best of repeated runs\n", d, radius);
    printf("# N        fast_s          direct_s        e_g(fast)       e_g(direct)\n");
    for (int k = 0; k < 2; k++)
        printf("%-8zu %-15.6e %-15.6e %-15.9g %-15.9g\n", Ns[k], tf[k], td[k], ef[k].e_global,
               ed[k].e_global);
    printf("ratio_fast %.3f\n", tf[1] / tf[0]);
    printf("ratio_direct %.1f\n", td[1] / td[0]);
    cosa_nrmse_workspace_free(w);
    free(S);
    free(Phi);
    free(Phis);
    free(z0);
    return 0;
}
