/* identify.c -- black-box identification of a unit (doc/black-box.md):
 * pulse responses at a probe step h, a block Hankel matrix of the Markov
 * parameters, its SVD, the order from the Hankel singular values against a
 * measured noise floor, and the Ho-Kalman / eigensystem-realisation (ERA)
 * model
 *   x_{k+1} = Ad x_k + Bd du_k,   dy_k = C x_k + D du_k,
 * with Markov parameters G_0 = D, G_k = C Ad^{k-1} Bd (k >= 1).  The outputs
 * are read as a co-simulation reads them: after each step, with the step's
 * (held) input still set, dy~_k := dy_{k+1} = C~ x_k + D~ du_k with
 * C~ = C Ad, D~ = C Bd + D; the realisation is of that shifted system, and
 * C, D are recovered from C Ad = C~ (an LU solve with Ad) and D = D~ - C Bd.
 * An FMU that computes its outputs only inside doStep (their values lag a
 * new input until the next step) is then an ordinary system too.  Only what a
 * black box offers is used: inputs held over a step (degree 0), steps of h,
 * outputs, and snapshots where the unit has them (else the unit is set back
 * to its operating point: an FMU is instantiated afresh there). */
#include "cosa/td.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cosa_ident_opts_default(cosa_ident_opts *o)
{
    if (o)
        *o = (cosa_ident_opts){.h = 1e-3, .nmax = 8, .order = -1, .amp = 1e-3, .window = 64};
}

void cosa_ident_free(cosa_ident *id)
{
    if (!id)
        return;
    free(id->Ad); /* one block: Ad, Bd, C, D, x0 */
    free(id->hsv);
    id->Ad = id->Bd = id->C = id->D = id->x0 = id->hsv = NULL;
}

/* The experiments: the unit, its operating point and the run length. */
typedef struct ictx {
    cosa_unit *u;
    const double *u0;
    size_t nu, ny, N;
    double h, t0;
    double *x0u;               /* the unit's own state at the point (nx)     */
    cosa_unit_snapshot *snap;  /* NULL: back to the point by set_state        */
    double *uin;               /* nu                                         */
    double *pre;               /* ny: outputs after step 0's inputs are set,
                                  before its doStep (NULL: not read)          */
    size_t steps, resets;
} ictx;

/* The pieces of cosa_ident_run's workspace (one block). */
typedef struct iwork {
    double *Y0, *Y, *Yv, *du, *G, *G2, *E, *d, *sy, *H, *H1, *dH, *U, *VT, *s, *sup, *w;
    double *Ga, *G2a, *Ea, *da; /* augmented by the free response's differences */
    double *P0, *Gp, *Pp;       /* pre-step outputs: free run's, their response, a run's */
} iwork;

static cosa_status back(ictx *c)
{
    c->resets++;
    if (c->snap)
        return cosa_unit_restore(c->u, c->snap);
    return cosa_unit_set_state(c->u, c->t0, c->x0u);
}

/* One experiment from the operating point: inputs u0 + du[:, k] held over
 * step k (du nu x N; NULL: none; u0 over step N), outputs Y[:, k] read
 * after step k, at t0 + (k + 1) h with step k's input still set (the held
 * reading), k = 0..N; c->pre (if set) gets the outputs after step 0's
 * inputs are set, before its doStep (the reading that shows feedthrough in
 * an FMU which updates its outputs when an input is set). */
static cosa_status run(ictx *c, const double *du, double *Y)
{
    cosa_status st = back(c);
    for (size_t k = 0; st == COSA_OK && k <= c->N; k++) {
        for (size_t j = 0; j < c->nu; j++)
            c->uin[j] = c->u0[j] + (du && k < c->N ? du[j + c->nu * k] : 0.0);
        st = cosa_unit_set_input(c->u, 0, c->uin);
        if (st == COSA_OK && k == 0 && c->pre)
            st = cosa_unit_get_output(c->u, c->pre);
        if (st == COSA_OK) {
            st = cosa_unit_do_step(c->u, c->h);
            c->steps++;
        }
        if (st == COSA_OK)
            st = cosa_unit_get_output(c->u, Y + c->ny * k);
    }
    return st;
}

/* The experiment of a pulse of amp on input j over step k alone (du: the
 * nu x N workspace of the inputs). */
static cosa_status pulse(ictx *c, size_t j, size_t k, double amp, double *du, double *Y)
{
    memset(du, 0, c->nu * c->N * sizeof *du);
    du[j + c->nu * k] = amp;
    return run(c, du, Y);
}

/* Markov parameters G[k] (ny x nu, at G + ny nu k, k = 0..N) of pulses of
 * amp d_j on input j, and (E non-NULL) the rounding bound of each entry,
 * 16 eps (|y_pulse| + |y_free|) / d_j: the outputs are differenced and
 * divided by d_j; 16 leaves room for the unit's own rounding of y.  With
 * E, also Gp (ny x nu): the pre-step outputs' response (against the free
 * run's P0), the feedthrough as setting an input shows it. */
static cosa_status markov(ictx *c, const double *Y0, const double *d, double *du, double *Y,
                          double *G, double *E, const double *P0, double *Gp)
{
    const size_t nu = c->nu, ny = c->ny, N = c->N;
    cosa_status st = COSA_OK;
    for (size_t j = 0; j < nu && st == COSA_OK; j++) {
        st = pulse(c, j, 0, d[j], du, Y);
        for (size_t i = 0; st == COSA_OK && E && i < ny; i++)
            Gp[i + ny * j] = (c->pre[i] - P0[i]) / d[j];
        for (size_t k = 0; st == COSA_OK && k <= N; k++)
            for (size_t i = 0; i < ny; i++) {
                const double a = Y[i + ny * k], b = Y0[i + ny * k];
                G[i + ny * j + ny * nu * k] = (a - b) / d[j];
                if (E)
                    E[i + ny * j + ny * nu * k] = 16.0 * DBL_EPSILON * (fabs(a) + fabs(b)) / d[j];
            }
    }
    return st;
}

/* The pulse amplitudes d_j: rescaled after one trial pulse so that the
 * largest output deviation is amp times that output's largest free-response
 * value (outputs with a zero free response do not count): the differences
 * then stand amp / eps above the outputs' rounding, whatever the units of
 * inputs and outputs.  A pulse that moves no output keeps its d_j. */
static cosa_status calibrate(ictx *c, const double *Y0, double amp, double *d, double *du,
                             double *Y)
{
    const size_t nu = c->nu, ny = c->ny, N = c->N;
    cosa_status st = COSA_OK;
    for (size_t j = 0; j < nu && st == COSA_OK; j++) {
        st = pulse(c, j, 0, d[j], du, Y);
        double r = 0.0;
        for (size_t i = 0; st == COSA_OK && i < ny; i++) {
            double ys = 0.0, dy = 0.0;
            for (size_t k = 0; k <= N; k++) {
                ys = fmax(ys, fabs(Y0[i + ny * k]));
                dy = fmax(dy, fabs(Y[i + ny * k] - Y0[i + ny * k]));
            }
            if (ys > 0.0)
                r = fmax(r, dy / ys);
        }
        if (r > 0.0 && isfinite(r))
            d[j] *= fmin(fmax(amp / r, 1e-8), 1e8);
    }
    return st;
}

/* Time invariance: pulses of d_j at step 1 instead of step 0; returns
 * |G_shift[k] - G[k]|_F / |G[k]|_F over k = 0..N-1, scaled by sy and d (the
 * Markov parameters must not depend on when the pulse comes: a linearised
 * trajectory that is not an equilibrium of a nonlinear unit fails this). */
static cosa_status shifted(ictx *c, const double *Y0, const double *d, const double *sy,
                           const double *G, double *du, double *Y, double *tvar)
{
    const size_t nu = c->nu, ny = c->ny, N = c->N;
    double dn = 0.0, gn = 0.0;
    cosa_status st = COSA_OK;
    for (size_t j = 0; j < nu && st == COSA_OK; j++) {
        st = pulse(c, j, 1, d[j], du, Y);
        for (size_t k = 0; st == COSA_OK && k < N; k++)
            for (size_t i = 0; i < ny; i++) {
                const double g = sy[i] * d[j] * G[i + ny * j + ny * nu * k];
                const double gs = sy[i] * (Y[i + ny * (k + 1)] - Y0[i + ny * (k + 1)]);
                gn += g * g;
                dn += (gs - g) * (gs - g);
            }
    }
    *tvar = gn > 0.0 ? sqrt(dn / gn) : 0.0;
    return st;
}

/* The block Hankel matrix (r ny x c nu, ld r ny) of the scaled Markov
 * parameters sy_i G_ij[k] d_j for k = k0 + a + b (block row a, column b). */
static void hankel(size_t ny, size_t nu, size_t r, size_t c, size_t k0, const double *G,
                   const double *sy, const double *d, double *H)
{
    const size_t m = r * ny;
    for (size_t a = 0; a < r; a++)
        for (size_t b = 0; b < c; b++)
            for (size_t j = 0; j < nu; j++)
                for (size_t i = 0; i < ny; i++)
                    H[(a * ny + i) + m * (b * nu + j)] =
                        sy[i] * d[j] * G[i + ny * j + ny * nu * (k0 + a + b)];
}

static double fro(size_t n, const double *x)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* A deterministic +-1 sequence (a linear congruential generator's top bit):
 * the validation input, unlike any pulse. */
static double pm1(unsigned long *state)
{
    *state = *state * 6364136223846793005UL + 1442695040888963407UL;
    return (*state >> 63) ? 1.0 : -1.0;
}

/* The validation input du (nu x N): +-d_j in a deterministic sequence. */
static void validation_input(size_t nu, size_t N, const double *d, double *du)
{
    unsigned long seed = 20261129UL;
    for (size_t k = 0; k < N; k++)
        for (size_t j = 0; j < nu; j++)
            du[j + nu * k] = d[j] * pm1(&seed);
}

/* The Markov parameters with one more column, the free response's
 * differences F[k - 1] = y0[k] - y0[k - 1] = C Ad^{k-1} (x_1 - x_0) (a held
 * u0 and a constant offset cancel): the modes the initial state excites
 * enter the realisation even where no input reaches them (an FMU without
 * inputs, as the Reference FMUs' Dahlquist).  The column's scale da[nu]
 * makes its largest scaled entry 1; its two-amplitude difference is 0, its
 * rounding bound 16 eps (|y0[k]| + |y0[k - 1]|). */
static void augment(const ictx *c, iwork *w)
{
    const size_t nu = c->nu, ny = c->ny, na = nu + 1, N = c->N;
    double mx = 0.0;
    for (size_t k = 1; k <= N; k++)
        for (size_t i = 0; i < ny; i++)
            mx = fmax(mx, w->sy[i] * fabs(w->Y0[i + ny * k] - w->Y0[i + ny * (k - 1)]));
    memcpy(w->da, w->d, nu * sizeof *w->da);
    w->da[nu] = mx > 0.0 ? 1.0 / mx : 1.0;
    for (size_t k = 0; k <= N; k++)
        for (size_t i = 0; i < ny; i++) {
            for (size_t j = 0; j < nu; j++) {
                w->Ga[i + ny * j + ny * na * k] = w->G[i + ny * j + ny * nu * k];
                w->G2a[i + ny * j + ny * na * k] = w->G2[i + ny * j + ny * nu * k];
                w->Ea[i + ny * j + ny * na * k] = w->E[i + ny * j + ny * nu * k];
            }
            const double a = k ? w->Y0[i + ny * k] : 0.0, b = k ? w->Y0[i + ny * (k - 1)] : 0.0;
            w->Ga[i + ny * nu + ny * na * k] = w->G2a[i + ny * nu + ny * na * k] = a - b;
            w->Ea[i + ny * nu + ny * na * k] = 16.0 * DBL_EPSILON * (fabs(a) + fabs(b));
        }
}

/* Ho-Kalman / ERA from the SVD H = U S V^T (U m x m-or-less, VT ld ldvt):
 * Ad = S^-1/2 U_n^T H1 V_n S^-1/2, Bd = S^1/2 V_n^T (first nu columns),
 * C = U_n (first ny rows) S^1/2, undone from the scaling (rows sy, columns d);
 * work m n doubles. */
static void era(const ictx *c, size_t n, size_t m, size_t q, const double *U, const double *VT,
                size_t ldvt, const double *s, const double *H1, const double *sy, const double *d,
                cosa_ident *id, double *work)
{
    const size_t nu = c->nu, ny = c->ny;
    dense_gemm('N', 'T', m, n, q, 1.0, H1, m, VT, ldvt, 0.0, work, m);
    dense_gemm('T', 'N', n, n, m, 1.0, U, m, work, m, 0.0, id->Ad, n);
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            id->Ad[a + n * b] /= sqrt(s[a]) * sqrt(s[b]);
    for (size_t a = 0; a < n; a++)
        for (size_t j = 0; j < nu; j++)
            id->Bd[a + n * j] = sqrt(s[a]) * VT[a + ldvt * j] / d[j];
    for (size_t i = 0; i < ny; i++)
        for (size_t a = 0; a < n; a++)
            id->C[i + ny * a] = U[i + m * a] * sqrt(s[a]) / sy[i];
}

/* The model's response to du (nu x N) from x = 0, against the measured
 * deviation Yv - Y0, both scaled by sy: |error|_F / |measured|_F. */
static double validate(const ictx *c, const cosa_ident *id, const double *du, const double *Yv,
                       const double *Y0, const double *sy, double *x, double *xn)
{
    const size_t n = id->n, nu = c->nu, ny = c->ny;
    double e2 = 0.0, m2 = 0.0;
    memset(x, 0, (n + 1) * sizeof *x);
    for (size_t k = 0; k <= c->N; k++) {
        const double *v = du + nu * k;
        for (size_t i = 0; i < ny; i++) {
            double y = 0.0;
            for (size_t a = 0; a < n; a++)
                y += id->C[i + ny * a] * x[a];
            for (size_t j = 0; k < c->N && j < nu; j++)
                y += id->D[i + ny * j] * v[j];
            const double meas = Yv[i + ny * k] - Y0[i + ny * k];
            e2 += (sy[i] * (y - meas)) * (sy[i] * (y - meas));
            m2 += (sy[i] * meas) * (sy[i] * meas);
        }
        for (size_t a = 0; k < c->N && a < n; a++) {
            xn[a] = 0.0;
            for (size_t b = 0; b < n; b++)
                xn[a] += id->Ad[a + n * b] * x[b];
            for (size_t j = 0; j < nu; j++)
                xn[a] += id->Bd[a + n * j] * v[j];
        }
        memcpy(x, xn, n * sizeof *x);
    }
    return m2 > 0.0 ? sqrt(e2 / m2) : (e2 > 0.0 ? INFINITY : 0.0);
}

/* x0 and constant output offsets e (ny) from least squares of
 * [O, S] [x0; e] = r (O: rows x n, S: sy_i at row ny k + i, column i),
 * rank-revealing (dgelsy: a mode at 1 and an offset are one column up to
 * rounding, 1e-12 relative); O, r are kept; the relative residual, or -1
 * when LAPACK fails. */
static double fit_offset(size_t rows, size_t n, size_t ny, const double *O, const double *r,
                         const double *sy, double *x0)
{
    const size_t m = n + ny;
    double *A = calloc(rows * m + 2 * rows + 1, sizeof *A), *b = A + rows * m, *e = b + rows;
    lapack_int *jp = calloc(m + 1, sizeof *jp), rank = 0;
    double res = -1.0;
    if (A && jp) {
        memcpy(A, O, rows * n * sizeof *A);
        for (size_t k = 0; k < rows; k++)
            A[k + rows * (n + k % ny)] = sy[k % ny];
        memcpy(b, r, rows * sizeof *b);
        if (LAPACKE_dgelsy(LAPACK_COL_MAJOR, (lapack_int)rows, (lapack_int)m, 1, A,
                           (lapack_int)rows, b, (lapack_int)rows, jp, 1e-12, &rank) == 0) {
            memcpy(e, r, rows * sizeof *e);
            dense_gemv(rows, n, -1.0, O, rows, b, 1.0, e);
            for (size_t k = 0; k < rows; k++)
                e[k] -= sy[k % ny] * b[n + k % ny];
            const double nr = fro(rows, r);
            res = nr > 0.0 ? fro(rows, e) / nr : 0.0;
            memcpy(x0, b, n * sizeof *x0);
        }
    }
    free(A);
    free(jp);
    return res;
}

/* x0 of the model that explains the free response Y0 (inputs held at u0):
 * least squares of C Ad^k x0 = sy (Y0[k] - (D + sum_{i<k} C Ad^i Bd) u0),
 * k = 0..N (dgels); the relative residual into id->x0_resid.  When that
 * leaves more than COSA_IDENT_X0_RESID, the free response is tried as a
 * transient around constant outputs (an affine FMU: a constant force, a
 * ground position): x0 with output offsets e (fit_offset); if that explains
 * it, x0 is the state relative to that equilibrium (id->y_offset). */
static cosa_status fit_x0(const ictx *c, cosa_ident *id, const double *Y0, const double *sy)
{
    const size_t n = id->n, nu = c->nu, ny = c->ny, rows = ny * (c->N + 1);
    id->x0_resid = 0.0;
    if (n == 0)
        return COSA_OK;
    double *O = calloc(rows * n + rows + 3 * n + 1, sizeof *O);
    if (!O)
        return COSA_ENOMEM;
    double *rhs = O + rows * n, *P = rhs + rows, *xs = P + n, *t = xs + n;
    /* P = Ad^k (column by column through the rows); xs = sum_{i<k} Ad^i Bd u0 */
    for (size_t col = 0; col < n; col++) {
        memset(P, 0, n * sizeof *P);
        P[col] = 1.0;
        for (size_t k = 0; k <= c->N; k++) {
            for (size_t i = 0; i < ny; i++) {
                double y = 0.0;
                for (size_t a = 0; a < n; a++)
                    y += id->C[i + ny * a] * P[a];
                O[(ny * k + i) + rows * col] = sy[i] * y;
            }
            dense_gemv(n, n, 1.0, id->Ad, n, P, 0.0, t);
            memcpy(P, t, n * sizeof *P);
        }
    }
    memset(xs, 0, n * sizeof *xs);
    for (size_t k = 0; k <= c->N; k++) {
        for (size_t i = 0; i < ny; i++) {
            double y = Y0[i + ny * k];
            for (size_t a = 0; a < n; a++)
                y -= id->C[i + ny * a] * xs[a];
            for (size_t j = 0; j < nu; j++)
                y -= id->D[i + ny * j] * c->u0[j];
            rhs[ny * k + i] = sy[i] * y;
        }
        dense_gemv(n, n, 1.0, id->Ad, n, xs, 0.0, t);
        dense_gemv(n, nu, 1.0, id->Bd, n, c->u0, 1.0, t);
        memcpy(xs, t, n * sizeof *xs);
    }
    const double nr = fro(rows, rhs);
    double *A = malloc(rows * n * sizeof *A), *b = malloc(rows * sizeof *b);
    cosa_status st = A && b ? COSA_OK : COSA_ENOMEM;
    if (st == COSA_OK) {
        memcpy(A, O, rows * n * sizeof *A);
        memcpy(b, rhs, rows * sizeof *b);
        if (nr == 0.0 || LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)rows, (lapack_int)n, 1,
                                       A, (lapack_int)rows, b, (lapack_int)rows) != 0)
            memset(b, 0, n * sizeof *b);
        memcpy(id->x0, b, n * sizeof *b);
        memcpy(A, rhs, rows * sizeof *A); /* r kept for fit_offset */
        dense_gemv(rows, n, -1.0, O, rows, id->x0, 1.0, rhs);
        id->x0_resid = nr > 0.0 ? fro(rows, rhs) / nr : 0.0;
        if (id->x0_resid > COSA_IDENT_X0_RESID) {
            double *z = malloc((n + 1) * sizeof *z);
            const double r2 = z ? fit_offset(rows, n, ny, O, A, sy, z) : -1.0;
            if (r2 >= 0.0 && r2 <= COSA_IDENT_X0_RESID) {
                memcpy(id->x0, z, n * sizeof *z);
                id->x0_resid = r2;
                id->y_offset = 1;
            }
            free(z);
        }
    }
    free(A);
    free(b);
    free(O);
    return st;
}

/* Order from the Hankel singular values s (ns, descending) against the
 * floor: the number above it.  By Weyl's inequality a perturbation E of H
 * moves each singular value by at most |E|_2 <= |E|_F, so a value above the
 * floor (10 times the Frobenius norms of the rounding bound and of the
 * two-amplitude difference) is not produced by them. */
static size_t order_of(const double *s, size_t ns, double floor)
{
    size_t n = 0;
    while (n < ns && s[n] > floor)
        n++;
    return n;
}

/* Nonlinearity: the relative difference of the two amplitudes' Markov
 * parameters (all k, scaled by sy and d). */
static double two_amplitudes(const ictx *c, const iwork *w)
{
    const size_t nu = c->nu, ny = c->ny;
    double dn = 0.0, gn = 0.0;
    for (size_t k = 0; k <= c->N; k++)
        for (size_t j = 0; j < nu; j++)
            for (size_t i = 0; i < ny; i++) {
                const size_t e = i + ny * j + ny * nu * k;
                const double g = w->sy[i] * w->d[j] * w->G[e];
                const double dg = w->sy[i] * w->d[j] * (w->G[e] - w->G2[e]);
                gn += g * g;
                dn += dg * dg;
            }
    return gn > 0.0 ? sqrt(dn / gn) : 0.0;
}

/* The model of the held reading (id->C = C~ = C Ad, id->D = D~ = C Bd + D)
 * back to the ordinary one: C from Ad^T C^T = C~^T (LU of Ad, no inverse),
 * D = D~ - C Bd.  A singular Ad (reciprocal condition below
 * COSA_ZOH_LOG_RCOND) is an output that lags its input by a probe step
 * beyond the held input: refused.  Then D against Gp, the feedthrough that
 * setting an input shows (scaled alike, Frobenius): they differ by more
 * than the realisation's error -- the noise floor plus the validation
 * error times the scaled Markov parameters' norm -- when the unit updates
 * its outputs only in its steps (step_outputs; the held model is kept);
 * else D = Gp, the direct measurement, as a co-simulation sees it too. */
static cosa_status unshift(const ictx *c, const iwork *w, cosa_ident *id)
{
    const size_t n = id->n, nu = c->nu, ny = c->ny;
    cosa_status st = COSA_OK;
    if (n) {
        double *LU = malloc((n * n + n * ny + 1) * sizeof *LU), *X = LU + n * n, rcond = 0.0;
        lapack_int *ipiv = malloc((n + 1) * sizeof *ipiv);
        if (!LU || !ipiv) {
            free(LU);
            free(ipiv);
            return COSA_ENOMEM;
        }
        memcpy(LU, id->Ad, n * n * sizeof *LU);
        const double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', (lapack_int)n, (lapack_int)n,
                                            id->Ad, (lapack_int)n);
        if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, LU, (lapack_int)n,
                           ipiv) != 0 ||
            LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', (lapack_int)n, LU, (lapack_int)n, anorm,
                           &rcond) != 0 ||
            !(rcond >= COSA_ZOH_LOG_RCOND)) {
            snprintf(id->why, sizeof id->why, "identified order %zu at the probe step %g, but "
                     "A_d is singular (reciprocal condition %.3g): an output lags its input "
                     "by a probe step beyond the held input, which has no continuous model",
                     n, id->h, rcond);
            st = COSA_EUNSUPPORTED;
        }
        if (st == COSA_OK) {
            for (size_t i = 0; i < ny; i++) /* X = C~^T, n x ny */
                for (size_t a = 0; a < n; a++)
                    X[a + n * i] = id->C[i + ny * a];
            LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', (lapack_int)n, (lapack_int)ny, LU,
                           (lapack_int)n, ipiv, X, (lapack_int)n);
            for (size_t i = 0; i < ny; i++)
                for (size_t a = 0; a < n; a++)
                    id->C[i + ny * a] = X[a + n * i];
            if (nu)
                dense_gemm('N', 'N', ny, nu, n, -1.0, id->C, ny, id->Bd, n, 1.0, id->D, ny);
        }
        free(LU);
        free(ipiv);
    }
    double gap = 0.0, gn = 0.0;
    for (size_t k = 0; k <= c->N; k++)
        for (size_t j = 0; j < nu; j++)
            for (size_t i = 0; i < ny; i++) {
                const double g = w->sy[i] * w->d[j] * w->G[i + ny * j + ny * nu * k];
                gn += g * g;
                if (k == 0) {
                    const double e = w->sy[i] * w->d[j] * (id->D[i + ny * j] - w->Gp[i + ny * j]);
                    gap += e * e;
                }
            }
    id->step_outputs = sqrt(gap) > id->floor + id->fit * sqrt(gn);
    if (!id->step_outputs)
        memcpy(id->D, w->Gp, ny * nu * sizeof *id->D);
    return st;
}

static double *iwork_alloc(iwork *w, size_t nu, size_t ny, size_t N, size_t m, size_t q)
{
    const size_t mn = m < q ? m : q, ny1 = ny * (N + 1), g = ny * nu * (N + 1),
                 ga = ny * (nu + 1) * (N + 1);
    const size_t sz[24] = {ny1, ny1, ny1, nu * N, g, g, g, nu, ny, m * q, m * q, m * q,
                           m * mn, mn * q, mn, mn, m * (mn + 1) + 2 * (mn + 1), ga, ga, ga,
                           nu + 1, ny, ny * nu, ny};
    size_t tot = 1;
    for (int i = 0; i < 24; i++)
        tot += sz[i];
    double *b = calloc(tot, sizeof *b), *p = b;
    double **dst[24] = {&w->Y0, &w->Y, &w->Yv, &w->du, &w->G, &w->G2, &w->E, &w->d, &w->sy,
                        &w->H, &w->H1, &w->dH, &w->U, &w->VT, &w->s, &w->sup, &w->w,
                        &w->Ga, &w->G2a, &w->Ea, &w->da, &w->P0, &w->Gp, &w->Pp};
    for (int i = 0; b && i < 24; i++) {
        *dst[i] = p;
        p += sz[i];
    }
    return b;
}

/* The model's arrays for order n (one block, owned by id->Ad). */
static cosa_status ident_alloc(cosa_ident *id, size_t n)
{
    const size_t nu = id->nu, ny = id->ny;
    double *b = calloc(n * n + n * nu + ny * n + ny * nu + n + 1, sizeof *b);
    if (!b)
        return COSA_ENOMEM;
    id->n = n;
    id->Ad = b;
    id->Bd = b + n * n;
    id->C = id->Bd + n * nu;
    id->D = id->C + ny * n;
    id->x0 = id->D + ny * nu;
    return COSA_OK;
}

cosa_status cosa_ident_run(cosa_unit *u, const double *u0, const cosa_ident_opts *o,
                           cosa_ident *out)
{
    cosa_ident_opts def;
    cosa_ident_opts_default(&def);
    if (!o)
        o = &def;
    if (!u || !out || (cosa_unit_nu(u) && !u0))
        return COSA_EINVAL;
    memset(out, 0, sizeof *out);
    if (!(o->h > 0.0) || !isfinite(o->h) || o->nmax < 1 || o->nmax > 200 || !(o->amp > 0.0) ||
        o->order > (int)o->nmax)
        return COSA_ERANGE;
    const size_t nu = cosa_unit_nu(u), ny = cosa_unit_ny(u), nx = cosa_unit_nx(u);
    for (size_t j = 0; j < nu; j++)
        if (!isfinite(u0[j]))
            return COSA_ENONFINITE;
    /* nmax + 1 block rows; the columns fill the window (at least as many) */
    const size_t r = o->nmax + 1, N = o->window > 2 * r ? o->window : 2 * r, cb = N - r;
    const size_t m = r * ny, q = cb * (nu + 1), mn = m < q ? m : q;
    if (o->order > 0 && (size_t)o->order > mn)
        return COSA_ERANGE; /* more states than the Hankel matrix can show */
    out->nu = nu;
    out->ny = ny;
    out->h = o->h;
    ictx c = {.u = u, .u0 = u0, .nu = nu, .ny = ny, .N = N, .h = o->h};
    iwork w;
    double *blk = iwork_alloc(&w, nu, ny, N, m, q);
    double *x0u = malloc((nx + 1) * sizeof *x0u), *uin = malloc((nu + 1) * sizeof *uin);
    cosa_status st = blk && x0u && uin ? COSA_OK : COSA_ENOMEM;
    c.x0u = x0u;
    c.uin = uin;
    if (st == COSA_OK)
        st = cosa_unit_get_state(u, &c.t0, x0u);
    if (st == COSA_OK && (cosa_unit_caps(u) & COSA_UNIT_CAN_SAVE_STATE))
        st = cosa_unit_save(u, &c.snap);
    for (size_t j = 0; j < nu; j++)
        w.d[j] = o->amp * fmax(fabs(u0[j]), 1.0);
    /* free response, pulses at amp and 2 amp, validation input */
    c.pre = w.P0;
    if (st == COSA_OK)
        st = run(&c, NULL, w.Y0);
    c.pre = w.Pp;
    if (st == COSA_OK)
        st = calibrate(&c, w.Y0, o->amp, w.d, w.du, w.Y);
    if (st == COSA_OK)
        st = markov(&c, w.Y0, w.d, w.du, w.Y, w.G, w.E, w.P0, w.Gp);
    for (size_t j = 0; j < nu; j++)
        w.d[j] *= 2.0;
    if (st == COSA_OK)
        st = markov(&c, w.Y0, w.d, w.du, w.Y, w.G2, NULL, NULL, NULL);
    for (size_t j = 0; j < nu; j++)
        w.d[j] /= 2.0;
    validation_input(nu, N, w.d, w.du);
    if (st == COSA_OK)
        st = run(&c, w.du, w.Yv);
    if (st != COSA_OK && st != COSA_ENOMEM)
        snprintf(out->why, sizeof out->why, "the unit failed during the identification "
                 "experiments: %s", cosa_unit_message(u));
    if (st == COSA_OK) {
        /* output scales: each output's largest response to a pulse of d */
        for (size_t i = 0; i < ny; i++) {
            double mx = 0.0;
            for (size_t k = 0; k <= N; k++)
                for (size_t j = 0; j < nu; j++)
                    mx = fmax(mx, fabs(w.G[i + ny * j + ny * nu * k]) * w.d[j]);
            w.sy[i] = mx > 0.0 ? 1.0 / mx : 1.0;
            if (mx == 0.0 && nu && !out->silent_out)
                out->silent_out = (int)i + 1;
        }
        out->nonlin = two_amplitudes(&c, &w);
        st = shifted(&c, w.Y0, w.d, w.sy, w.G, w.du, w.Y, &out->tvar);
    }
    if (st == COSA_OK) {
        /* Hankel matrices: H (k from 1), H1 (from 2), the two-amplitude
         * difference and the rounding bound, all scaled alike */
        augment(&c, &w);
        hankel(ny, nu + 1, r, cb, 1, w.Ga, w.sy, w.da, w.H);
        hankel(ny, nu + 1, r, cb, 2, w.Ga, w.sy, w.da, w.H1);
        hankel(ny, nu + 1, r, cb, 1, w.G2a, w.sy, w.da, w.dH);
        for (size_t i = 0; i < m * q; i++)
            w.dH[i] -= w.H[i];
        const double M = fro(m * q, w.dH);
        hankel(ny, nu + 1, r, cb, 1, w.Ea, w.sy, w.da, w.dH);
        const double R = fro(m * q, w.dH);
        out->floor = 10.0 * (R + M);
        memcpy(w.dH, w.H, m * q * sizeof *w.dH);
        if (mn && LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', (lapack_int)m, (lapack_int)q, w.dH,
                                 (lapack_int)m, w.s, w.U, (lapack_int)m, w.VT, (lapack_int)mn,
                                 w.sup) != 0)
            st = COSA_ELAPACK;
        out->hsv = malloc((mn + 1) * sizeof *out->hsv);
        if (st == COSA_OK && !out->hsv)
            st = COSA_ENOMEM;
        if (st == COSA_OK) {
            memcpy(out->hsv, w.s, mn * sizeof *w.s);
            out->nhsv = mn;
        }
        size_t n = o->order >= 0 ? (size_t)o->order : order_of(w.s, mn, out->floor);
        if (st == COSA_OK && o->order < 0 && n > o->nmax) {
            int len = snprintf(out->why, sizeof out->why, "the order cannot be decided: all "
                               "%zu Hankel singular values are above the noise floor %.3g "
                               "(smallest %.3g)", mn, out->floor, w.s[mn - 1]);
            if (fmax(out->nonlin, out->tvar) > COSA_LINEARITY_TOL)
                snprintf(out->why + len, sizeof out->why - (size_t)len, "; the responses are "
                         "not those of a linear time-invariant system: two amplitudes differ "
                         "by %.2g, a pulse one step later by %.2g (relative)", out->nonlin,
                         out->tvar);
            else
                snprintf(out->why + len, sizeof out->why - (size_t)len, "; raise the order "
                         "bound %zu or give the order", o->nmax);
            st = COSA_EUNSUPPORTED;
        }
        if (st == COSA_OK)
            st = ident_alloc(out, n);
        if (st == COSA_OK) {
            if (n)
                era(&c, n, m, q, w.U, w.VT, mn, w.s, w.H1, w.sy, w.da, out, w.w);
            for (size_t e = 0; e < ny * nu; e++)
                out->D[e] = w.G[e];
            validation_input(nu, N, w.d, w.du); /* w.du was reused since */
            /* validation and x0 in the held reading's system (C~, D~) */
            out->fit = validate(&c, out, w.du, w.Yv, w.Y0, w.sy, w.w, w.w + mn + 1);
            out->nonlinear = fmax(out->nonlin, out->tvar) > fmax(out->fit, COSA_LINEARITY_TOL);
            st = fit_x0(&c, out, w.Y0, w.sy);
        }
        if (st == COSA_OK)
            st = unshift(&c, &w, out);
    }
    cosa_status sb = back(&c); /* leave the unit at its operating point */
    if (st == COSA_OK && sb != COSA_OK) {
        st = sb;
        snprintf(out->why, sizeof out->why, "the unit failed during the identification "
                 "experiments: %s", cosa_unit_message(u));
    }
    out->steps = c.steps;
    out->resets = c.resets;
    if (c.snap)
        cosa_unit_snapshot_free(u, c.snap);
    free(blk);
    free(x0u);
    free(uin);
    return st;
}
