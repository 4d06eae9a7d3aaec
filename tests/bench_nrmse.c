/* bench_nrmse.c -- timing of cosa_nrmse (doubling, O(dim^3 log2 N)) against
 * cosa_nrmse_direct (O(N dim^2)), and the cancellation ratios of the state
 * form on the two-mass oscillator.  Not a test and not run by make check.
 *
 * usage: bench_nrmse [dim [radius]]   synthetic pair (defaults 16, 0.9999),
 *                                     reference with T = I (nx = dim), then
 *                                     twomass p4+MBCorr (dim 22, nx 4)
 *        bench_nrmse ratios           cancellation ratios, twomass cases
 * Prints, for N = 300 and N = 300000, the best-of-R time per evaluation and
 * the ratio t(300000) / t(300) of the fast route (requirement: <= 3).
 * Build (from a build tree): gcc -O2 -I$SRC/lib tests/bench_nrmse.c
 *   models/libcosamodels.a lib/libcosa.a -llapacke -lopenblas -lm
 * Run with OPENBLAS_NUM_THREADS=1 for stable numbers. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cosa.h"
#include "core/dense.h"

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
        dense_gemm('N', 'N', d, d, d, 1.0, S, d, L, d, 0.0, T, d);
        for (size_t j = 0; j < d; j++)
            for (size_t i = 0; i < d; i++) {
                St[i + j * d] = S[j + i * d];
                M[i + j * d] = T[j + i * d];
            }
        ok = dense_lu(d, St, d, ipiv) == 0;
        if (ok) {
            dense_lu_solve(d, d, St, d, ipiv, M, d);
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
                                const cosa_layout *, size_t, const double *, size_t,
                                const double *, size_t, const double *, size_t, double,
                                cosa_errors *, const cosa_nrmse_sums *, cosa_nrmse_workspace *);

/* One problem: Phi, Phi* (ld d) and the reference in state form. */
typedef struct problem {
    size_t d, nx;
    const double *Phi, *Phis, *A, *T, *x0;
    cosa_layout lay;
    double rho;
} problem;

static double best_time(nrmse_fn fn, const problem *pb, size_t N, cosa_nrmse_workspace *w,
                        int reps, cosa_errors *e)
{
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        cosa_status st = fn(pb->d, pb->Phi, pb->Phis, pb->d, &pb->lay, pb->nx, pb->A, pb->nx,
                            pb->T, pb->d, pb->x0, N, pb->rho, e, NULL, w);
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

static void report(const char *title, const problem *pb)
{
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(pb->d);
    if (!w) {
        fprintf(stderr, "bench_nrmse: out of memory\n");
        exit(1);
    }
    const size_t Ns[2] = {300, 300000};
    double tf[2], td[2];
    cosa_errors ef[2], ed[2];
    for (int k = 0; k < 2; k++) {
        tf[k] = best_time(cosa_nrmse, pb, Ns[k], w, 200, &ef[k]);
        td[k] = best_time(cosa_nrmse_direct, pb, Ns[k], w, k ? 3 : 50, &ed[k]);
    }
    printf("# %s: dim %zu, nx %zu, best of repeated runs\n", title, pb->d, pb->nx);
    printf("# N        fast_s          direct_s        e_l(fast)       e_l(direct)\n");
    for (int k = 0; k < 2; k++)
        printf("%-8zu %-15.6e %-15.6e %-15.9g %-15.9g\n", Ns[k], tf[k], td[k], ef[k].e_local,
               ed[k].e_local);
    printf("ratio_fast %.3f\n", tf[1] / tf[0]);
    printf("ratio_direct %.1f\n", td[1] / td[0]);
    cosa_nrmse_workspace_free(w);
}

/* twomass (defaults) matrices for scheme name at dt; arrays malloc'ed. */
static problem twomass(const char *name, double dt, cosa_system **sysp)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[64], *x0 = malloc(8 * sizeof *x0);
    cosa_scheme s;
    problem pb = {0};
    cosa_model_defaults(m, par);
    if (!x0 || m->create(m, par, sysp) != COSA_OK || m->initial_state(m, par, x0) != COSA_OK ||
        cosa_scheme_parse(name, &s) != COSA_OK || cosa_layout_get(*sysp, &s, &pb.lay) != COSA_OK) {
        fprintf(stderr, "bench_nrmse: cannot set up twomass %s\n", name);
        exit(1);
    }
    const size_t d = pb.d = pb.lay.dim, nx = pb.nx = pb.lay.nx;
    double *Phi = malloc(d * d * sizeof *Phi), *Phis = malloc(d * d * sizeof *Phis),
           *A = malloc(nx * nx * sizeof *A), *T = malloc(d * nx * sizeof *T),
           *cp = malloc(d * d * sizeof *cp);
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(*sysp, s.order);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(d);
    if (!Phi || !Phis || !A || !T || !cp || !pw || !ew ||
        cosa_phi_build(*sysp, &s, dt, Phi, d, pw) != COSA_OK ||
        cosa_phi_ref_build(*sysp, &s, dt, Phis, d, pw) != COSA_OK ||
        cosa_phi_ref_basis(*sysp, &s, dt, T, d, pw) != COSA_OK) {
        fprintf(stderr, "bench_nrmse: cannot build twomass %s\n", name);
        exit(1);
    }
    dense_copy(nx, nx, Phis, d, A, nx);
    dense_copy(d, d, Phi, d, cp, d);
    if (cosa_spectral_radius(d, cp, d, &pb.rho, ew) != COSA_OK)
        exit(1);
    pb.Phi = Phi, pb.Phis = Phis, pb.A = A, pb.T = T, pb.x0 = x0;
    free(cp);
    cosa_phi_workspace_free(pw);
    cosa_eig_workspace_free(ew);
    return pb;
}

static void problem_free(problem *pb)
{
    free((void *)pb->Phi);
    free((void *)pb->Phis);
    free((void *)pb->A);
    free((void *)pb->T);
    free((void *)pb->x0);
}

/* (hi, lo) += a b, compensated in long double (TwoProduct by fmal, TwoSum) */
static void ld_dot2(long double a, long double b, long double *hi, long double *lo)
{
    const long double p = a * b, pe = fmal(a, b, -p);
    const long double t = *hi + p, z = t - *hi, se = (*hi - (t - z)) + (p - z);
    *hi = t;
    *lo += se + pe;
}

/* Componentwise cancellation ratios over the trajectory, max over the
 * outputs k: sqrt(sum_n (sum_i |x_i v_i|)^2 / sum_n (x . v)^2) for
 *   K q_n (rows R K, the state form's local error on the reference),
 *   D z*_n (rows R (Phi* - Phi), what the old route had to resolve),
 *   D e_n against the local error l_n = K q_n - D e_n.
 * Stepped in long double with K from compensated dot products. */
static void ratios(void)
{
    const char *schemes[] = {"zoh", "zoh+mbcorr", "soh+mbcorr", "p3", "p4", "p4+mbcorr"};
    const double dts[] = {1e-3, 1e-4, 1e-5, 1e-6};
    printf("# scheme     dt      |K||q|/|Kq|  |D||z*|/|Dz*|  |D||e|/|l|\n");
    for (int si = 0; si < 6; si++)
        for (int di = 0; di < 4; di++) {
            cosa_system *sys;
            problem pb = twomass(schemes[si], dts[di], &sys);
            const size_t d = pb.d, nx = pb.nx, ny = pb.lay.ny, off = pb.lay.off_y;
            const size_t N = (size_t)nearbyint(0.3 / dts[di]);
            long double *K = calloc(d * nx, sizeof *K), *q = calloc(nx, sizeof *q),
                        *qn = calloc(nx, sizeof *qn), *e = calloc(d, sizeof *e),
                        *en = calloc(d, sizeof *en), *zs = calloc(d, sizeof *zs), *t;
            long double s[6][8] = {{0}};
            if (!K || !q || !qn || !e || !en || !zs || ny > 8)
                exit(1);
            for (size_t j = 0; j < nx; j++)
                for (size_t i = 0; i < d; i++) {
                    long double hi = 0, lo = 0;
                    for (size_t k = 0; k < nx; k++)
                        ld_dot2(pb.T[i + k * d], pb.A[k + j * nx], &hi, &lo);
                    for (size_t k = 0; k < d; k++)
                        ld_dot2(-pb.Phi[i + k * d], pb.T[k + j * d], &hi, &lo);
                    K[i + j * d] = hi + lo;
                }
            for (size_t i = 0; i < nx; i++)
                q[i] = pb.x0[i];
            for (size_t n = 0; n < N; n++) {
                for (size_t i = 0; i < d; i++) {
                    long double v = 0;
                    for (size_t j = 0; j < nx; j++)
                        v += (long double)pb.T[i + j * d] * q[j];
                    zs[i] = v;
                }
                for (size_t k = 0; k < ny; k++) {
                    const size_t r = off + k;
                    long double ka = 0, kv = 0, da = 0, dv = 0, ea = 0, ev = 0;
                    for (size_t j = 0; j < nx; j++) {
                        ka += fabsl(K[r + j * d] * q[j]);
                        kv += K[r + j * d] * q[j];
                    }
                    for (size_t j = 0; j < d; j++) {
                        const long double D =
                            (long double)pb.Phis[r + j * d] - (long double)pb.Phi[r + j * d];
                        da += fabsl(D * zs[j]);
                        dv += D * zs[j];
                        ea += fabsl(D * e[j]);
                        ev += D * e[j];
                    }
                    s[0][k] += ka * ka, s[1][k] += kv * kv, s[2][k] += da * da;
                    s[3][k] += dv * dv, s[4][k] += ea * ea, s[5][k] += (kv - ev) * (kv - ev);
                }
                for (size_t i = 0; i < nx; i++) {
                    long double v = 0;
                    for (size_t j = 0; j < nx; j++)
                        v += (long double)pb.A[i + j * nx] * q[j];
                    qn[i] = v;
                }
                for (size_t i = 0; i < d; i++) {
                    long double v = 0;
                    for (size_t j = 0; j < d; j++)
                        v += (long double)pb.Phi[i + j * d] * e[j];
                    for (size_t j = 0; j < nx; j++)
                        v += K[i + j * d] * q[j];
                    en[i] = v;
                }
                t = q, q = qn, qn = t;
                t = e, e = en, en = t;
            }
            double r[3] = {0, 0, 0};
            for (size_t k = 0; k < ny; k++)
                for (int i = 0; i < 3; i++) {
                    const double x = sqrt((double)(s[2 * i][k] / s[2 * i + 1][k]));
                    r[i] = x > r[i] ? x : r[i];
                }
            const int unstable = pb.rho > 1.0 + COSA_RHO_TOL;
            printf("%-12s %-7g %-12.3g %-14.3g ", schemes[si], dts[di], r[0], r[1]);
            if (unstable)
                printf("(unstable)\n");
            else
                printf("%.3g\n", r[2]);
            free(K), free(q), free(qn), free(e), free(en), free(zs);
            problem_free(&pb);
            cosa_system_free(sys);
        }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ratios") == 0) {
        ratios();
        return 0;
    }
    const size_t d = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 16;
    const double radius = argc > 2 ? strtod(argv[2], NULL) : 0.9999;
    if (d < 2 || d > 2000 || !(radius > 0.0 && radius < 1.0)) {
        fprintf(stderr, "usage: bench_nrmse [dim (2..2000) [radius in (0,1)]] | ratios\n");
        return 2;
    }
    double *S = malloc(d * d * sizeof *S), *Phi = malloc(d * d * sizeof *Phi),
           *Phis = malloc(d * d * sizeof *Phis), *z0 = malloc(d * sizeof *z0),
           *eye = calloc(d * d, sizeof *eye);
    if (!S || !Phi || !Phis || !z0 || !eye) {
        fprintf(stderr, "bench_nrmse: out of memory\n");
        return 1;
    }
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++)
            S[i + j * d] = (i == j) + 0.3 * urand() / sqrt((double)d);
    for (size_t i = 0; i < d; i++) {
        z0[i] = urand();
        eye[i + i * d] = 1.0;
    }
    if (!similar(d, S, radius, 1.0, Phis) || !similar(d, S, radius * 0.9999, 1.01, Phi)) {
        fprintf(stderr, "bench_nrmse: singular similarity\n");
        return 1;
    }
    const size_t ny = d / 4 ? d / 4 : 1;
    /* reference z*_n = Phi*^n z0: state form with A*_d = Phi*, T = I */
    const problem syn = {.d = d, .nx = d, .Phi = Phi, .Phis = Phis, .A = Phis, .T = eye,
                         .x0 = z0, .rho = radius,
                         .lay = {.nx = d - ny, .ny = ny, .nhist = 1, .off_y = d - ny,
                                 .off_du = d, .dim = d}};
    char title[64];
    snprintf(title, sizeof title, "synthetic, radius %g, T = I", radius);
    report(title, &syn);
    cosa_system *sys;
    problem tm = twomass("p4+mbcorr", 1e-5, &sys);
    report("twomass p4+MBCorr, dt = 1e-5", &tm);
    problem_free(&tm);
    cosa_system_free(sys);
    free(S);
    free(Phi);
    free(Phis);
    free(z0);
    free(eye);
    return 0;
}
