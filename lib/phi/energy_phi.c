/* energy_phi.c -- the energy paper's coupling of a linear system as a linear
 * recurrence, and its energy figures without time stepping (issue 10
 * section 3).
 *
 * Jacobi, every unit i with K_i steps of h = H / K_i per macro step, held
 * inputs: before step j the extrapolation of degree q through the last
 * samples (s = 0, -1, ..., -q) at beta_j = j / K_i, held over the step; the
 * outputs at T_{n+1} use the input of the last step (eq 9).  One integrator
 * step per unit step, as the linear map x <- Ad x + Bd u:
 *   exact            Ad = e^{A h}, Bd = int_0^h e^{A(h - t)} B dt (Van Loan);
 *   symplectic Euler Ad = (I + h P_D A)(I + h P_K A),
 *                    Bd = (I + h P_D A) h P_K B + h P_D B (P_K: kicked states);
 *   Euler            Ad = I + h A, Bd = h B.
 * With z_n = [x_n | y_n | y_{n-1} | ... | y_{n-p}]:
 *   x_{n+1} = Ad^K x_n + sum_j Ad^{K-1-j} Bd u_j,  u_j = sum_m c_m(beta_j) L_i y_{n-m},
 *   y_{n+1} = C x_{n+1} + D u_{K-1},  and the history shifts.
 * Energy E = x' W x; residual power dP_{n+1} = z_n' Q z_n with
 * Q = sym(sum_b (e_f e_v' - e_v e_f') Phi); dE_N = H sum_{n<N} z_n' Q_n z_n,
 * the sum over the steady part by doubling: G_M = sum_{j<M} Phi^j' Q Phi^j,
 * G_{A+B} = G_A + Phi^A' G_B Phi^A. */
#include "core/dense.h"
#include "phi/phi_impl.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lagrange weight of node -m (nodes 0, -1, ..., -q) at s. */
static double lagrange_weight(int q, int m, double s)
{
    double c = 1.0;
    for (int k = 0; k <= q; k++)
        if (k != m)
            c *= (s + (double)k) / (double)(k - m);
    return c;
}

/* Ad (n x n) and Bd (n x nu) of one unit step h. */
static cosa_status unit_step_map(const cosa_mr_scheme *s, size_t n, size_t nu, const double *A,
                                 size_t lda, const double *B, size_t ldb,
                                 const unsigned char *kick, double h, double *Ad, double *Bd,
                                 double *tmp)
{
    switch (s->integrator) {
    case COSA_MR_EXACT: {
        cosa_vanloan_workspace *vw = cosa_vanloan_workspace_alloc(n + nu);
        if (!vw)
            return COSA_ENOMEM;
        cosa_status st = cosa_vanloan(n, nu, 0, h, A, lda, B, ldb, Ad, n, Bd, n, n * nu, vw);
        cosa_vanloan_workspace_free(vw);
        return st;
    }
    case COSA_MR_EULER:
        for (size_t c = 0; c < n; c++)
            for (size_t r = 0; r < n; r++)
                Ad[r + c * n] = (r == c ? 1.0 : 0.0) + h * A[r + c * lda];
        for (size_t c = 0; c < nu; c++)
            for (size_t r = 0; r < n; r++)
                Bd[r + c * n] = h * B[r + c * ldb];
        return COSA_OK;
    case COSA_MR_SYMPLECTIC_EULER: {
        /* K = I + h P_K A, Dm = I + h P_D A (tmp: 2 n^2) */
        double *Km = tmp, *Dm = tmp + n * n;
        for (size_t c = 0; c < n; c++)
            for (size_t r = 0; r < n; r++) {
                const double e = r == c ? 1.0 : 0.0, a = h * A[r + c * lda];
                Km[r + c * n] = e + (kick[r] ? a : 0.0);
                Dm[r + c * n] = e + (kick[r] ? 0.0 : a);
            }
        dense_gemm('N', 'N', n, n, n, 1.0, Dm, n, Km, n, 0.0, Ad, n);
        /* Bd = Dm h P_K B + h P_D B */
        for (size_t c = 0; c < nu; c++)
            for (size_t r = 0; r < n; r++)
                Km[r + c * n] = kick[r] ? h * B[r + c * ldb] : 0.0;
        dense_gemm('N', 'N', n, nu, n, 1.0, Dm, n, Km, n, 0.0, Bd, n);
        for (size_t c = 0; c < nu; c++)
            for (size_t r = 0; r < n; r++)
                if (!kick[r])
                    Bd[r + c * n] += h * B[r + c * ldb];
        return COSA_OK;
    }
    }
    return COSA_EINVAL;
}

size_t cosa_mr_dim(const cosa_system *sys, int p)
{
    return cosa_system_nx(sys) + (size_t)(p + 1) * cosa_system_ny(sys);
}

cosa_status cosa_mr_phi(const cosa_system *sys, const cosa_mr_scheme *s, int q, double H,
                        double *Phi, size_t ld)
{
    if (!sys || !s || !Phi)
        return COSA_EINVAL;
    if (s->p < 0 || s->p > COSA_ORDER_MAX || q < 0 || q > s->p)
        return COSA_ERANGE;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    if (s->integrator == COSA_MR_SYMPLECTIC_EULER && !s->kick)
        return COSA_EINVAL;
    const size_t nx = cosa_system_nx(sys), nu = cosa_system_nu(sys), ny = cosa_system_ny(sys);
    const size_t np = (size_t)s->p + 1, d = nx + np * ny;
    if (ld < d)
        return COSA_EINVAL;
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys), *C = cosa_system_C(sys),
                 *D = cosa_system_D(sys), *L = cosa_system_L(sys);
    dense_zero(d, d, Phi, ld);
    for (size_t m = 0; m + 1 < np; m++) /* the history shifts */
        for (size_t r = 0; r < ny; r++)
            Phi[nx + (m + 1) * ny + r + (nx + m * ny + r) * ld] = 1.0;
    /* per unit (the largest of each size): Ad (n x n), Bd (n x nu), P = Ad^k
     * (n x n), T (n x n, n x ny, ny_i x ny), tmp (2 n x n), the weighted input
     * sums S (n x ny per slot) and BL = Bd L_i (n x ny) */
    size_t bn = 0, bu = 0, by = 0;
    for (size_t i = 0; i < cosa_system_nsub(sys); i++) {
        size_t a, b, c, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &a, &b, &c, &ox, &ou, &oy);
        bn = a > bn ? a : bn;
        bu = b > bu ? b : bu;
        by = c > by ? c : by;
    }
    size_t tsz = bn * bn;
    tsz = bn * ny > tsz ? bn * ny : tsz;
    tsz = by * ny > tsz ? by * ny : tsz;
    const size_t ad_n = bn * bn, bd_n = bn * (bu > bn ? bu : bn);
    double *buf = calloc(ad_n + bd_n + ad_n + tsz + 2 * ad_n + bn * ny * np + bn * ny + 1,
                         sizeof *buf);
    if (!buf)
        return COSA_ENOMEM;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < cosa_system_nsub(sys) && st == COSA_OK; i++) {
        size_t n, nui, nyi, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &n, &nui, &nyi, &ox, &ou, &oy);
        const unsigned K = s->rate ? s->rate[i] : 1;
        if (K < 1) {
            st = COSA_ERANGE;
            break;
        }
        double *Ad = buf, *Bd = Ad + ad_n, *P = Bd + bd_n, *T = P + ad_n, *tmp = T + tsz,
               *S = tmp + 2 * ad_n, *BL = S + bn * ny * np;
        if (n) {
            st = unit_step_map(s, n, nui, A + ox + ox * nx, nx, B + ox + ou * nx, nx,
                               s->kick ? s->kick + ox : NULL, H / (double)K, Ad, Bd, tmp);
            if (st != COSA_OK)
                break;
        }
        /* BL = Bd L_i (n x ny): the input rows of unit i */
        if (n && nui)
            dense_gemm('N', 'N', n, ny, nui, 1.0, Bd, n, L + ou, nu, 0.0, BL, n);
        /* x_{n+1} = Ad^K x + sum_j c_m(beta_j) Ad^{K-1-j} BL y_{n-m}: P = Ad^{K-1-j}
         * from j = K-1 down */
        dense_identity(n, P, n);
        dense_zero(n, ny * np, S, n);
        for (unsigned jj = K; jj-- > 0;) {
            const double beta = (double)jj / (double)K;
            if (nui) {
                dense_gemm('N', 'N', n, ny, n, 1.0, P, n, BL, n, 0.0, T, n); /* P BL */
                for (int m = 0; m <= q; m++) {
                    const double cm = lagrange_weight(q, m, beta);
                    for (size_t k = 0; k < n * ny; k++)
                        S[(size_t)m * n * ny + k] += cm * T[k];
                }
            }
            dense_gemm('N', 'N', n, n, n, 1.0, Ad, n, P, n, 0.0, T, n);
            memcpy(P, T, n * n * sizeof *P); /* P = Ad^{K-jj} */
        }
        /* rows of x_i: Ad^K (now in P) and the slots */
        dense_copy(n, n, P, n, Phi + ox + ox * ld, ld);
        for (int m = 0; m <= q; m++)
            dense_copy(n, ny, S + (size_t)m * n * ny, n, Phi + ox + (nx + (size_t)m * ny) * ld, ld);
        /* rows of y_{n+1, i} = C_i x_{n+1, i} + D_i u_{K-1} */
        const double *Ci = C + oy + ox * ny, *Di = D + oy + ou * ny;
        for (size_t c = 0; c < d; c++) /* C_i times the x_i rows of column c */
            for (size_t r = 0; r < nyi; r++) {
                double v = 0.0;
                for (size_t k = 0; k < n; k++)
                    v += Ci[r + k * ny] * Phi[ox + k + c * ld];
                Phi[nx + oy + r + c * ld] = v;
            }
        if (nui) {
            const double beta = (double)(K - 1) / (double)K;
            /* D_i L_i (nyi x ny) into T */
            dense_gemm('N', 'N', nyi, ny, nui, 1.0, Di, ny, L + ou, nu, 0.0, T, nyi);
            for (int m = 0; m <= q; m++) {
                const double cm = lagrange_weight(q, m, beta);
                for (size_t c = 0; c < ny; c++)
                    for (size_t r = 0; r < nyi; r++)
                        Phi[nx + oy + r + (nx + (size_t)m * ny + c) * ld] += cm * T[r + c * nyi];
            }
        }
    }
    free(buf);
    return st;
}

/* Q = sym(sum_b sum_c (e_f e_v' - e_v e_f') Phi) (d x d): z' Q z is
 * dP_{n+1} for z = z_n; force and velocity are in the y_n slot. */
static void power_form(size_t nx, size_t d, const cosa_energy_port *port, const double *Phi,
                       double *Q)
{
    dense_zero(d, d, Q, d);
    for (size_t b = 0; b < port->nbond; b++)
        for (size_t c = 0; c < port->dim; c++) {
            const size_t f = nx + port->force[b * port->dim + c], v = nx + port->velocity[c];
            /* row f gets + row v of Phi, row v gets - row f of Phi */
            for (size_t k = 0; k < d; k++) {
                Q[f + k * d] += Phi[v + k * d];
                Q[v + k * d] -= Phi[f + k * d];
            }
        }
    for (size_t c = 0; c < d; c++) /* symmetrise */
        for (size_t r = c + 1; r < d; r++) {
            const double a = 0.5 * (Q[r + c * d] + Q[c + r * d]);
            Q[r + c * d] = Q[c + r * d] = a;
        }
}

static double quad(size_t d, const double *M, const double *z, double *tmp)
{
    dense_gemv(d, d, 1.0, M, d, z, 0.0, tmp);
    double s = 0.0;
    for (size_t k = 0; k < d; k++)
        s += z[k] * tmp[k];
    return s;
}

/* The reference state e^{A* t} x0 into xr (As: A*, nx x nx). */
static cosa_status ref_state(size_t nx, const double *As, double t, const double *x0, double *xr,
                             double *M, double *E, cosa_expm_workspace *ew)
{
    for (size_t k = 0; k < nx * nx; k++)
        M[k] = t * As[k];
    cosa_status st = cosa_expm(nx, M, nx, E, nx, ew);
    if (st == COSA_OK)
        dense_gemv(nx, nx, 1.0, E, nx, x0, 0.0, xr);
    return st;
}

cosa_status cosa_mr_energy_eval(const cosa_system *sys, const cosa_mr_scheme *s, double H,
                                size_t N, const double *x0, const double *W,
                                const cosa_energy_port *port, int direct, cosa_mr_energy *out)
{
    if (!sys || !s || !x0 || !W || !port || !out || N == 0)
        return COSA_EINVAL;
    if (s->p < 0 || s->p > COSA_ORDER_MAX)
        return COSA_ERANGE;
    const size_t nx = cosa_system_nx(sys), ny = cosa_system_ny(sys), np = (size_t)s->p + 1;
    const size_t d = nx + np * ny;
    for (size_t k = 0; k < port->nbond * port->dim; k++)
        if (port->force[k] >= ny)
            return COSA_EINVAL;
    for (size_t k = 0; k < port->dim; k++)
        if (port->velocity[k] >= ny)
            return COSA_EINVAL;
    /* Phi_q for q = 0..p, Q, doubling matrices, the reference */
    const size_t dd = d * d;
    double *mem = calloc((np + 6) * dd + 4 * nx * nx + nx * ny + 4 * d + 1, sizeof *mem);
    cosa_expm_workspace *ew = cosa_expm_workspace_alloc(nx ? nx : 1);
    cosa_eig_workspace *gw = cosa_eig_workspace_alloc(d);
    cosa_status st = mem && ew && gw ? COSA_OK : COSA_ENOMEM;
    double *Phis = mem, *Q = Phis + np * dd, *RP = Q + dd, *RG = RP + dd, *BP = RG + dd,
           *BG = BP + dd, *T = BG + dd, *As = T + dd, *Cs = As + nx * nx, *Mx = Cs + nx * ny,
           *Ex = Mx + nx * nx, *z = Ex + nx * nx, *zn = z + d, *tmp = zn + d, *xr = tmp + d;
    for (int q = 0; st == COSA_OK && q <= s->p; q++)
        st = cosa_mr_phi(sys, s, q, H, Phis + (size_t)q * dd, d);
    if (st == COSA_OK)
        st = cosa_system_monolithic(sys, As, Cs);
    /* the start: from x0 (y0 = C* x0 in every slot, capped order) or on the
     * reference at t0 = p H (doc/method.md) */
    const double t0 = s->start_initial ? 0.0 : (double)s->p * H;
    for (size_t m = 0; st == COSA_OK && m < np; m++) {
        const double tm = s->start_initial ? 0.0 : (double)(s->p - (int)m) * H;
        st = ref_state(nx, As, tm, x0, xr, Mx, Ex, ew);
        if (st == COSA_OK)
            dense_gemv(ny, nx, 1.0, Cs, ny, xr, 0.0, z + nx + m * ny);
        if (st == COSA_OK && m == 0)
            memcpy(z, xr, nx * sizeof *z);
    }
    if (st != COSA_OK)
        goto done;
    memset(out, 0, sizeof *out);
    out->E0 = quad(nx, W, z, tmp);
    /* the capped start, step by step */
    size_t n = 0;
    double dE = 0.0;
    for (; s->start_initial && n < N && n < (size_t)s->p; n++) {
        const double *P = Phis + n * dd;
        power_form(nx, d, port, P, Q);
        dE += H * quad(d, Q, z, tmp);
        dense_gemv(d, d, 1.0, P, d, z, 0.0, zn);
        memcpy(z, zn, d * sizeof *z);
    }
    const double *P = Phis + (size_t)s->p * dd;
    power_form(nx, d, port, P, Q);
    const size_t M = N - n;
    if (direct) {
        for (size_t k = 0; k < M; k++) {
            dE += H * quad(d, Q, z, tmp);
            dense_gemv(d, d, 1.0, P, d, z, 0.0, zn);
            memcpy(z, zn, d * sizeof *z);
        }
    } else {
        /* (RP, RG) covers the first r steps, (BP, BG) a block of 2^k */
        dense_identity(d, RP, d);
        dense_zero(d, d, RG, d);
        dense_copy(d, d, P, d, BP, d);
        dense_copy(d, d, Q, d, BG, d);
        for (size_t m = M; m; m >>= 1) {
            if (m & 1) {
                dense_gemm('T', 'N', d, d, d, 1.0, RP, d, BG, d, 0.0, T, d);
                dense_gemm('N', 'N', d, d, d, 1.0, T, d, RP, d, 1.0, RG, d);
                dense_gemm('N', 'N', d, d, d, 1.0, BP, d, RP, d, 0.0, T, d);
                dense_copy(d, d, T, d, RP, d);
            }
            if (m > 1) {
                dense_gemm('T', 'N', d, d, d, 1.0, BP, d, BG, d, 0.0, T, d);
                dense_gemm('N', 'N', d, d, d, 1.0, T, d, BP, d, 1.0, BG, d);
                dense_gemm('N', 'N', d, d, d, 1.0, BP, d, BP, d, 0.0, T, d);
                dense_copy(d, d, T, d, BP, d);
            }
        }
        dE += H * quad(d, RG, z, tmp);
        dense_gemv(d, d, 1.0, RP, d, z, 0.0, zn);
        memcpy(z, zn, d * sizeof *z);
    }
    if (!dense_isfinite(d, 1, z, d) || !isfinite(dE)) {
        st = COSA_ENONFINITE;
        goto done;
    }
    out->t_end = t0 + (double)N * H;
    out->E_end = quad(nx, W, z, tmp);
    out->dE_end = dE;
    if ((st = ref_state(nx, As, out->t_end, x0, xr, Mx, Ex, ew)) != COSA_OK)
        goto done;
    out->E_ref_end = quad(nx, W, xr, tmp);
    out->varsigma_end = out->E_end - out->E_ref_end;
    out->mu_measured = out->varsigma_end / out->dE_end;
    dense_copy(d, d, P, d, T, d);
    st = cosa_spectral_radius(d, T, d, &out->rho, gw);
done:
    free(mem);
    cosa_expm_workspace_free(ew);
    cosa_eig_workspace_free(gw);
    return st;
}

/* Modes of Phi_p: eigenpairs (lambda, w) with Im lambda > 0 and |lambda| > 0.5;
 * omega = arg(lambda) / H, mu = (|lambda|^2 - |e^{s* H}|^2) w^H W w / (H w^H Q w),
 * s* the eigenvalue of A* (Im > 0) nearest to omega in frequency. */
cosa_status cosa_mr_energy_modes(const cosa_system *sys, const cosa_mr_scheme *s, double H,
                                 const double *W, const cosa_energy_port *port, size_t *nmodes,
                                 double *omega, double *mu)
{
    if (!sys || !s || !W || !port || !nmodes || (*nmodes && (!omega || !mu)))
        return COSA_EINVAL;
    if (s->p < 0 || s->p > COSA_ORDER_MAX)
        return COSA_ERANGE;
    const size_t nx = cosa_system_nx(sys), ny = cosa_system_ny(sys), np = (size_t)s->p + 1;
    const size_t d = nx + np * ny, dd = d * d, cap = *nmodes;
    double *mem = calloc(4 * dd + 4 * nx * nx + nx * ny + 4 * d + 2 * nx + 1, sizeof *mem);
    cosa_eig_workspace *gw = cosa_eig_workspace_alloc(nx ? nx : 1);
    cosa_status st = mem && gw ? COSA_OK : COSA_ENOMEM;
    double *P = mem, *Q = P + dd, *V = Q + dd, *T = V + dd, *As = T + dd, *Cs = As + nx * nx,
           *Aw = Cs + nx * ny, *wr = Aw + nx * nx, *wi = wr + d, *sr = wi + d, *si = sr + nx;
    *nmodes = 0;
    if (st == COSA_OK)
        st = cosa_mr_phi(sys, s, s->p, H, P, d);
    if (st == COSA_OK)
        st = cosa_system_monolithic(sys, As, Cs);
    if (st == COSA_OK) {
        memcpy(Aw, As, nx * nx * sizeof *Aw);
        st = cosa_eigenvalues(nx, Aw, nx, sr, si, gw);
    }
    if (st != COSA_OK)
        goto done;
    power_form(nx, d, port, P, Q);
    dense_copy(d, d, P, d, T, d);
    if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'V', (lapack_int)d, T, (lapack_int)d, wr, wi, NULL,
                      1, V, (lapack_int)d) != 0) {
        st = COSA_ELAPACK;
        goto done;
    }
    for (size_t k = 0; k < d; k++) {
        if (!(wi[k] > 0.0) || !(hypot(wr[k], wi[k]) > 0.5) || k + 1 >= d)
            continue;
        /* w = V[:, k] + i V[:, k+1] */
        const double complex lam = wr[k] + I * wi[k];
        const double w = carg(lam) / H;
        double best = INFINITY, re = 0.0;
        for (size_t j = 0; j < nx; j++)
            if (si[j] > 0.0 && fabs(si[j] - w) < best)
                best = fabs(si[j] - w), re = sr[j];
        double complex wWw = 0.0, wQw = 0.0;
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++) {
                const double complex za = V[a + k * d] + I * V[a + (k + 1) * d];
                const double complex zb = V[b + k * d] + I * V[b + (k + 1) * d];
                if (a < nx && b < nx)
                    wWw += conj(za) * W[a + b * nx] * zb;
                wQw += conj(za) * Q[a + b * d] * zb;
            }
        const double lam2 = creal(lam * conj(lam)), ref2 = exp(2.0 * re * H);
        if (*nmodes < cap) {
            omega[*nmodes] = w;
            mu[*nmodes] = (lam2 - ref2) * creal(wWw) / (H * creal(wQw));
        }
        (*nmodes)++;
        k++; /* its conjugate */
    }
    /* decreasing frequency */
    const size_t n = *nmodes < cap ? *nmodes : cap;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && omega[b] > omega[b - 1]; b--) {
            double t = omega[b];
            omega[b] = omega[b - 1], omega[b - 1] = t;
            t = mu[b];
            mu[b] = mu[b - 1], mu[b - 1] = t;
        }
done:
    free(mem);
    cosa_eig_workspace_free(gw);
    return st;
}

cosa_status cosa_model_energy_form(const cosa_model *m, const double *par, size_t nx, double *W)
{
    if (!m || !par || !W)
        return COSA_EINVAL;
    if (!m->energy)
        return COSA_EUNSUPPORTED;
    double *e = calloc(nx + 1, sizeof *e), *Ei = calloc(nx + 1, sizeof *Ei);
    cosa_status st = e && Ei ? COSA_OK : COSA_ENOMEM;
    for (size_t i = 0; i < nx && st == COSA_OK; i++) {
        e[i] = 1.0;
        st = m->energy(m, par, e, &Ei[i]);
        e[i] = 0.0;
        W[i + i * nx] = Ei[i];
    }
    for (size_t i = 0; i < nx && st == COSA_OK; i++)
        for (size_t j = i + 1; j < nx && st == COSA_OK; j++) {
            double Eij;
            e[i] = e[j] = 1.0;
            st = m->energy(m, par, e, &Eij);
            e[i] = e[j] = 0.0;
            W[i + j * nx] = W[j + i * nx] = 0.5 * (Eij - Ei[i] - Ei[j]);
        }
    free(e);
    free(Ei);
    return st;
}

