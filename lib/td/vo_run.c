/* vo_run.c -- the variable-order co-simulation engine of the variable-order
 * paper (issue 11): explicit (sect. 3.1) and implicit (sect. 3.2) coupling of
 * the coupling variables u (cosa_coupling; u = L y without one) with Lagrange
 * polynomials on the non-uniform macro grid, the five error estimators
 * (vo_estimator.c, a table) and the order and macro-step controller
 * (vo_control.c).
 *
 * The units advance through the master (COSA_EXTRAP_GIVEN: this file hands
 * it each proposal's input polynomials and macro step; the master saves and
 * restores the units, and advances them in parallel).  A macro step
 * T_N -> T_N + H of degree k:
 *   explicit  P^k through (T_N, u_N) .. (T_{N-k}, u_{N-k}), advance, update
 *             step u_{N+1} = phi(T_{N+1}, y_{N+1}) (the algebraic loop when a
 *             unit has feedthrough); ExLocal / ExMilne first integrate their
 *             comparative solution from the same start (then restore);
 *   implicit  predictor = the explicit step without update; Newton on
 *             g(u*) = u* - phi(y(u*)) (eq 11) with the interface Jacobian of
 *             the predictor point (fd: one forward-difference integration per
 *             (unit, input); los: S ~ H g1 B + H^2 g2 A B; exact: linear
 *             units' responses from zero state), the units restored before
 *             every corrector integration; converged when max_i |du_i| /
 *             max(|u_i|, 1e-3 max |u|) <= corr_tol, failed after corr_max.
 * Then the estimator's error vector, its WRMS norms (eqs 25-27), and the
 * controller's decision: commit (history shift) or reject (restore). */
#include "td/evolve.h"
#include "td/failure.h"
#include "td/run_impl.h"
#include "td/vo.h"
#include "td/unit_impl.h"
#include "td/stepping_impl.h"
#include "core/carve.h"
#include "core/dense.h"
#include "td/control_impl.h"
#include "td/unitset_impl.h"
#include "td/master_impl.h"

#include <float.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cosa_vo_opts_default(cosa_vo_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->coupling = COSA_VO_EXPLICIT;
    o->k = 0;
    o->kmax = 5;
    o->rtol = 1e-5;
    o->atol_x = 1e-3 * o->rtol;
    o->atol_v = o->rtol;
    o->atol_u = 1e2 * o->rtol;
    o->sf = 6.0;
    o->rmin = 0.5;
    o->rmax = 2.0;
    o->hmin = 1e-12;
    o->corr_tol = cosa_iteration_newton.tol; /* the corrector's entry: 1e-10, 10 */
    o->corr_max = (int)cosa_iteration_newton.max;
    o->jacobian = COSA_VO_JAC_FD;
    o->control = COSA_VO_CONTROL_NONE;
}

const char *cosa_vo_status_name(cosa_vo_status s)
{
    switch (s) {
    case COSA_VO_OK: return "ok";
    case COSA_VO_HMIN: return "hmin";
    case COSA_VO_DIVERGED: return "diverged";
    case COSA_VO_MAXSTEPS: return "max-steps";
    case COSA_VO_NOREF: return "reference-failed";
    }
    return "?";
}

void cosa_vo_result_free(cosa_vo_result *r)
{
    if (!r)
        return;
    free(r->at);
    free(r->aH);
    free(r->aerr_pos);
    free(r->aerr_vel);
    free(r->aerr_u);
    free(r->ak);
    free(r->aacc);
    free(r->aiters);
    free(r->t);
    free(r->x);
    free(r->xref);
    free(r->y);
    free(r->coupling_body);
    free(r->stored);
    free(r);
}

static int finite_pos(double v) { return isfinite(v) && v > 0.0; }

static cosa_status check_opts(const cosa_unitset *set, const cosa_vo_opts *o)
{
    if (o->kmax < 0 || o->kmax > COSA_VO_KMAX || o->k < 0 || o->k > o->kmax)
        return COSA_ERANGE;
    if (!finite_pos(o->H) || !finite_pos(o->tend) || !finite_pos(o->rtol) ||
        !finite_pos(o->atol_x) || !finite_pos(o->atol_v) || !finite_pos(o->atol_u) ||
        !finite_pos(o->sf) || !finite_pos(o->corr_tol) || o->corr_max < 1 ||
        !(o->rtol_u >= 0.0) || !isfinite(o->rtol_u))
        return COSA_ERANGE;
    if (!(o->rmin > 0.0 && o->rmin < 1.0) || !(o->rmax > 1.0) || isnan(o->rmax) ||
        !(o->hmin > 0.0) || !isfinite(o->hmin))
        return COSA_ERANGE;
    if (o->coupling != COSA_VO_EXPLICIT && o->coupling != COSA_VO_IMPLICIT)
        return COSA_EINVAL;
    if (o->control != COSA_VO_CONTROL_NONE && !o->estimator)
        return COSA_EUNSUPPORTED;
    if (o->estimator && (!o->estimator->estimate || o->estimator->comparative < 0 ||
                         o->estimator->comparative > 2))
        return COSA_EINVAL;
    if (o->estimator && o->estimator->implicit != (o->coupling == COSA_VO_IMPLICIT))
        return COSA_EUNSUPPORTED;
    /* ExLocal integrates degree k+1 inputs */
    const int kmaxrun = o->control == COSA_VO_CONTROL_ORDER ? o->kmax : o->k;
    if (o->estimator && o->estimator->comparative == 1 && kmaxrun + 1 > COSA_UNIT_DEGMAX)
        return COSA_ERANGE;
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        cosa_unit *u = cosa_unitset_unit(set, i);
        if (!(cosa_unit_caps(u) & COSA_UNIT_CAN_SAVE_STATE))
            return COSA_EUNSUPPORTED;
        if (o->coupling == COSA_VO_IMPLICIT && o->jacobian == COSA_VO_JAC_EXACT &&
            !cosa_unit_is_linear(u))
            return COSA_EUNSUPPORTED;
    }
    return COSA_OK;
}

cosa_status td_vo_check(const cosa_unitset *set, cosa_vo_ref_fn ref, const cosa_vo_opts *o)
{
    if (!set || !ref || !o)
        return COSA_EINVAL;
    return check_opts(set, o);
}

/* Per-unit scratch of the interface Jacobian (no nx x nx matrix: long
 * banded units): FD by steps der, y, z; matrix-free LOS f+-, x, B_j, (AB)_j,
 * Sx_j, u, g+-, D_j. */
static size_t unit_scratch(const cosa_unit *u)
{
    return 6 * u->nx + 4 * u->ny + u->nu * (COSA_UNIT_DEGMAX + 2) + 8;
}

static void vo_free(struct vo *v)
{
    if (!v)
        return;
    if (v->snaps)
        for (size_t i = 0; i < v->nunits; i++)
            cosa_unit_snapshot_free(cosa_unitset_unit(v->set, i), v->snaps[i]);
    free(v->snaps);
    cosa_master_free(v->m);
    free(v->C);
    free(v->ipiv);
    free(v->is_vel);
    free(v->ust);
    free(v->woff);
    free(v);
}

static cosa_status vo_create(cosa_unitset *set, const cosa_vo_opts *o, struct vo **out)
{
    struct vo *v = calloc(1, sizeof *v);
    if (!v)
        return COSA_ENOMEM;
    v->set = set;
    v->o = *o;
    v->nunits = cosa_unitset_count(set);
    v->nx = cosa_unitset_nx(set);
    v->nu = cosa_unitset_nu(set);
    v->ny = cosa_unitset_ny(set);
    v->nc = cosa_unitset_nc(set);
    v->S = cosa_unitset_coupling_S(set);
    const size_t nx = v->nx, nu = v->nu, ny = v->ny, nc = v->nc, D1 = VO_DEGMAX + 2;
    size_t fdw = 0;
    for (size_t i = 0; i < v->nunits; i++)
        fdw += unit_scratch(cosa_unitset_unit(set, i));
    size_t total = nc * VO_NH + nc * D1 * 3 + nu * D1 + nx * 4 + ny * 2 + nc * 6 + ny * nu +
                   ny * nc + nc * nc + nc * ny + nu + fdw + 1;
    v->C = calloc(total, sizeof(double));
    v->ipiv = calloc(nc + 1, sizeof(lapack_int));
    v->snaps = calloc(v->nunits + 1, sizeof *v->snaps);
    v->ust = calloc(v->nunits + 1, sizeof *v->ust);
    v->woff = calloc(v->nunits + 1, sizeof *v->woff);
    if (!v->ust || !v->woff) {
        vo_free(v);
        return COSA_ENOMEM;
    }
    for (size_t i = 0, w = 0; i < v->nunits; i++) {
        v->woff[i] = w;
        w += unit_scratch(cosa_unitset_unit(set, i));
    }
    cosa_scheme zoh = {.order = 0, .corr = COSA_CORR_NONE, .alpha = 1.0, .exec = COSA_JACOBI};
    cosa_master_opts mo = {.extrapolation = COSA_EXTRAP_GIVEN};
    cosa_status st = v->C && v->ipiv && v->snaps ? cosa_master_create(set, &zoh, o->H, &mo, &v->m)
                                                 : COSA_ENOMEM;
    for (size_t k = 0; st == COSA_OK && k < o->nobservers; k++)
        st = cosa_master_add_observer(v->m, &o->observers[k]);
    if (st != COSA_OK) {
        vo_free(v);
        return st;
    }
    double *q = v->C + nc * VO_NH;
    COSA_CARVE(v->coef, q, nc * D1);
    COSA_CARVE(v->cder, q, nc * D1);
    COSA_CARVE(v->V, q, nc * D1);
    COSA_CARVE(v->uder, q, nu * D1);
    COSA_CARVE(v->xN, q, nx);
    COSA_CARVE(v->x1, q, nx);
    COSA_CARVE(v->xh, q, nx);
    COSA_CARVE(v->epsx, q, nx);
    COSA_CARVE(v->y1, q, ny);
    COSA_CARVE(v->yh, q, ny);
    COSA_CARVE(v->c1, q, nc);
    COSA_CARVE(v->cpred, q, nc);
    COSA_CARVE(v->epsu, q, nc);
    COSA_CARVE(v->g, q, nc);
    COSA_CARVE(v->dc, q, nc);
    COSA_CARVE(v->cstar, q, nc);
    COSA_CARVE(v->G, q, ny * nu);
    COSA_CARVE(v->GS, q, ny * nc);
    COSA_CARVE(v->Jc, q, nc * nc);
    COSA_CARVE(v->Phy, q, nc * ny);
    COSA_CARVE(v->tmp, q, nu);
    COSA_CARVE(v->fdwork, q, fdw);
    v->is_vel = calloc(2 * nx + 1, 1);
    if (!v->is_vel) {
        vo_free(v);
        return COSA_ENOMEM;
    }
    v->cbody = v->is_vel + nx;
    for (size_t i = 0; i < nx; i++)
        v->is_vel[i] = o->is_vel ? (o->is_vel[i] != 0) : 1;
    *out = v;
    return COSA_OK;
}

/* ---- advancing, update, norms -------------------------------------------------- */

static void read_states(struct vo *v, double *x)
{
    for (size_t i = 0; i < v->nunits; i++) {
        size_t ox;
        cosa_unitset_offsets(v->set, i, &ox, NULL, NULL);
        cosa_unit_get_state(cosa_unitset_unit(v->set, i), NULL, x + ox);
    }
}

/* Advance every unit from T_N by H with v->uder (degree d): a proposal of
 * the master (units saved first), states x and raw outputs y. */
static cosa_status advance(struct vo *v, int d, double *x, double *y)
{
    cosa_status st;
    if ((st = cosa_master_set_inputs(v->m, d, v->uder)) != COSA_OK ||
        (st = cosa_master_set_step(v->m, v->H)) != COSA_OK)
        return st;
    if ((st = cosa_master_propose(v->m, 1)) != COSA_OK) {
        const size_t f = cosa_master_failed_unit(v->m);
        snprintf(v->msg, sizeof v->msg, "unit %zu: %s", f,
                 f < v->nunits ? cosa_unit_message(cosa_unitset_unit(v->set, f)) : "");
        cosa_master_reject(v->m);
        return st;
    }
    read_states(v, x);
    if ((st = cosa_master_proposal_outputs(v->m, y)) != COSA_OK)
        return st;
    if (!dense_isfinite(v->nx, 1, x, v->nx) || !dense_isfinite(v->ny, 1, y, v->ny)) {
        snprintf(v->msg, sizeof v->msg, "the states or outputs left the finite numbers");
        cosa_master_reject(v->m);
        return COSA_ENONFINITE;
    }
    return COSA_OK;
}

/* Update step: consistent u at (t, x): the outputs y (the algebraic loop
 * when a unit has feedthrough), then c = phi(t, y). */
static cosa_status update(struct vo *v, double t, const double *x, double *y, double *c)
{
    cosa_status st;
    if (v->feedthrough && (st = cosa_unitset_loop_solve(v->set, t, x, y)) != COSA_OK)
        return st;
    return cosa_unitset_coupling_eval(v->set, t, y, c, NULL);
}

static double wrms_states(const struct vo *v, int vel, const double *eps, const double *x)
{
    const double atol = vel ? v->o.atol_v : v->o.atol_x;
    double s = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < v->nx; i++) {
        if (v->is_vel[i] != vel || (v->o.ctl_coupling && !v->cbody[i]))
            continue;
        const double r = eps[i] / (atol + v->o.rtol * fabs(x[i]));
        s += r * r;
        n++;
    }
    return n ? sqrt(s / (double)n) : 0.0;
}

static double wrms_u(const struct vo *v, const double *eps, const double *u)
{
    double s = 0.0;
    for (size_t i = 0; i < v->nc; i++) {
        const double r = eps[i] / (v->o.atol_u + v->o.rtol_u * fabs(u[i]));
        s += r * r;
    }
    return v->nc ? sqrt(s / (double)v->nc) : 0.0;
}

/* s_j = (T_{N-j} - T_N) / H for the history */
static void set_nodes(struct vo *v)
{
    for (size_t j = 0; j < v->nh; j++)
        v->s[j] = (v->T[j] - v->T[0]) / v->H;
}

/* ---- the history the controller reads (SDN, eq 31) ------------------------------ */

/* Nodes and values of the history ending at T_M: passed = 1 adds
 * (T_{N+1}, u_{N+1}) in front.  Returns the number of points. */
static size_t hist_nodes(struct vo *v, int passed, double *s, double *V)
{
    const size_t nc = v->nc;
    size_t n = 0;
    const double TM = passed ? v->T[0] + v->H : v->T[0];
    if (passed) {
        s[0] = 0.0;
        memcpy(V, v->c1, nc * sizeof *V);
        n = 1;
    }
    for (size_t j = 0; j < v->nh && n < VO_NH + 1; j++, n++) {
        s[n] = (v->T[j] - TM) / v->H;
        memcpy(V + n * nc, v->C + j * nc, nc * sizeof *V);
    }
    return n;
}

struct hist_ctx {
    struct vo *v;
    double s[VO_NH + 1];
    double *V;   /* nc x (VO_NH + 1) */
    double *dd;  /* nc */
};

static double hist_sdn(void *ctx, int passed, int j)
{
    struct hist_ctx *h = ctx;
    struct vo *v = h->v;
    const size_t n = hist_nodes(v, passed, h->s, h->V);
    if (j < 1 || (size_t)j + 1 > n)
        return -1.0;
    vo_divided_difference(v->nc, j, h->s, h->V, v->nc, h->dd);
    double f = 1.0;
    for (int m = 2; m <= j; m++)
        f *= (double)m;
    double s2 = 0.0;
    for (size_t i = 0; i < v->nc; i++) {
        const double r = f * h->dd[i] / (v->o.atol_u + v->o.rtol_u * fabs(h->V[i]));
        s2 += r * r;
    }
    return v->nc ? sqrt(s2 / (double)v->nc) : 0.0;
}

/* eq 31: P^{k+1}(T_{M+1}) - P^k(T_{M+1}) = f[T_M..T_{M-k-1}] prod_{j=0..k} (1 - s_j) */
static double hist_etilde(void *ctx, int passed, int k)
{
    struct hist_ctx *h = ctx;
    struct vo *v = h->v;
    const size_t n = hist_nodes(v, passed, h->s, h->V);
    if (k < 0 || (size_t)k + 2 > n)
        return -1.0;
    vo_divided_difference(v->nc, k + 1, h->s, h->V, v->nc, h->dd);
    double p = 1.0;
    for (int j = 0; j <= k; j++)
        p *= 1.0 - h->s[j];
    double s2 = 0.0;
    for (size_t i = 0; i < v->nc; i++) {
        const double r = p * h->dd[i] / (v->o.atol_u + v->o.rtol_u * fabs(h->V[i]));
        s2 += r * r;
    }
    return v->nc ? sqrt(s2 / (double)v->nc) : 0.0;
}

static void push_history(struct vo *v, double t, const double *c)
{
    const size_t nc = v->nc;
    const size_t n = v->nh < VO_NH ? v->nh + 1 : VO_NH;
    for (size_t j = n - 1; j > 0; j--) {
        v->T[j] = v->T[j - 1];
        memcpy(v->C + j * nc, v->C + (j - 1) * nc, nc * sizeof *v->C);
    }
    v->T[0] = t;
    memcpy(v->C, c, nc * sizeof *c);
    v->nh = n;
}

/* ---- the implicit corrector's interface Jacobian -------------------------------- */

/* The basis polynomial of the node T_{N+1} of the degree-k corrector
 * polynomial, l(s) = prod_{j<k} (s - s_j)/(1 - s_j), as derivatives at T_N
 * (lder[m] = m! l_m / H^m). */
static void node_basis(const struct vo *v, int k, double *lder)
{
    double s[VO_NH + 1], B[(VO_NH + 1) * (VO_NH + 1)];
    s[0] = 1.0;
    for (int j = 0; j < k; j++)
        s[j + 1] = v->s[j];
    vo_lagrange_basis(k + 1, s, B);
    double f = 1.0;
    for (int m = 0; m <= k; m++) {
        if (m > 0)
            f *= (double)m / v->H;
        lder[m] = B[0 + (size_t)m * (size_t)(k + 1)] * f;
    }
}

/* dy_i(T_{N+1}) / du_i along l(s) for unit i into its block of v->G
 * (forward differences or exact responses), units at T_N on entry and exit. */
static cosa_status unit_gains_by_steps(struct vo *v, size_t i, const double *lder, int exact,
                                       double *work)
{
    cosa_unit *u = cosa_unitset_unit(v->set, i);
    size_t ox, ou, oy;
    cosa_unitset_offsets(v->set, i, &ox, &ou, &oy);
    const size_t nui = u->nu, nyi = u->ny, nq = (size_t)v->k + 1;
    if (!nui || !nyi)
        return COSA_OK;
    double *der = work, *yp = der + nui * (COSA_UNIT_DEGMAX + 1);
    cosa_status st = cosa_unit_save(u, &v->snaps[i]);
    if (st != COSA_OK)
        return st;
    const double tN = v->T[0];
    for (size_t r = 0; r < nui && st == COSA_OK; r++) {
        double delta = 1.0;
        for (size_t m = 0; m < nq; m++)
            for (size_t l = 0; l < nui; l++)
                der[l + m * nui] = exact ? 0.0 : v->uder[ou + l + m * v->nu];
        if (!exact) {
            /* u_r at T_{N+1} of the predictor polynomial */
            double ur = 0.0, f = 1.0;
            for (size_t m = 0; m < nq; m++) {
                if (m > 0)
                    f *= v->H / (double)m;
                ur += der[r + m * nui] * f;
            }
            delta = sqrt(DBL_EPSILON) * fmax(fabs(ur), v->o.atol_u);
        }
        for (size_t m = 0; m < nq; m++)
            der[r + m * nui] += delta * lder[m];
        if ((st = cosa_unit_restore(u, v->snaps[i])) != COSA_OK)
            break;
        if (exact) { /* from the zero state: the response itself */
            double *z = yp + nyi;
            memset(z, 0, u->nx * sizeof *z);
            if ((st = cosa_unit_set_state(u, tN, z)) != COSA_OK)
                break;
        }
        if ((st = cosa_unit_set_input(u, (int)nq - 1, der)) != COSA_OK ||
            (st = cosa_unit_do_step(u, v->H)) != COSA_OK ||
            (st = cosa_unit_get_output(u, yp)) != COSA_OK)
            break;
        for (size_t l = 0; l < nyi; l++)
            v->G[oy + l + (ou + r) * v->ny] = exact ? yp[l] : (yp[l] - v->yh[oy + l]) / delta;
    }
    cosa_status st2 = cosa_unit_restore(u, v->snaps[i]);
    return st != COSA_OK ? st : st2;
}

/* LOS: dx(T_{N+1})/du ~ H g1 B + H^2 g2 A B (g1 = C_vel^k, g2 = C_pos^k, the
 * integrals of the node's basis), A, B at (T_N, x_N, u_N); dy/du = C Sx + D.
 * Matrix-free (no nx x nx matrix for long units): per input j, central
 * differences of f give B_j, of f along B_j give (A B)_j, of g along Sx_j
 * give C Sx_j, and of g give D_j; steps cbrt(eps) times the scale of the
 * variable perturbed (relative error ~ eps^(2/3); LOS is an O(H^3)
 * approximation anyway, and only the corrector's speed depends on it). */
static double inf_norm(size_t n, const double *a)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

static cosa_status unit_gains_los(struct vo *v, size_t i, double g1, double g2, double *work)
{
    cosa_unit *u = cosa_unitset_unit(v->set, i);
    size_t ox, ou, oy;
    cosa_unitset_offsets(v->set, i, &ox, &ou, &oy);
    const size_t nx = u->nx, nu = u->nu, ny = u->ny;
    if (!nu || !ny)
        return COSA_OK;
    double *fp = work, *fm = fp + nx, *xp = fm + nx, *Bj = xp + nx, *ABj = Bj + nx, *Sx = ABj + nx;
    double *gp = Sx + nx, *gm = gp + ny, *Dj = gm + ny, *up = Dj + ny;
    const double *x = v->xN + ox, t = v->T[0], cb = cbrt(DBL_EPSILON);
    for (size_t l = 0; l < nu; l++)
        up[l] = v->uder[ou + l];
    const double xs = fmax(inf_norm(nx, x), 1e-300);
    const double us = inf_norm(nu, up);
    cosa_status st = COSA_OK;
    for (size_t j = 0; j < nu && st == COSA_OK; j++) {
        const double uj = up[j];
        const double du = cb * fmax(fmax(fabs(uj), 1e-3 * us), v->o.atol_u);
        up[j] = uj + du;
        st = cosa_unit_eval(u, t, x, up, nx ? fp : NULL, gp);
        up[j] = uj - du;
        if (st == COSA_OK)
            st = cosa_unit_eval(u, t, x, up, nx ? fm : NULL, gm);
        up[j] = uj;
        if (st != COSA_OK)
            break;
        for (size_t r = 0; r < nx; r++)
            Bj[r] = (fp[r] - fm[r]) / (2.0 * du);
        for (size_t r = 0; r < ny; r++)
            Dj[r] = (gp[r] - gm[r]) / (2.0 * du);
        /* (A B)_j: f along B_j */
        const double bn = inf_norm(nx, Bj);
        if (nx && bn > 0.0) {
            const double e = cb * xs / bn;
            for (size_t r = 0; r < nx; r++)
                xp[r] = x[r] + e * Bj[r];
            st = cosa_unit_eval(u, t, xp, up, fp, NULL);
            for (size_t r = 0; r < nx && st == COSA_OK; r++)
                xp[r] = x[r] - e * Bj[r];
            if (st == COSA_OK)
                st = cosa_unit_eval(u, t, xp, up, fm, NULL);
            for (size_t r = 0; r < nx; r++)
                ABj[r] = (fp[r] - fm[r]) / (2.0 * e);
        } else
            memset(ABj, 0, nx * sizeof *ABj);
        for (size_t r = 0; r < nx; r++)
            Sx[r] = v->H * g1 * Bj[r] + v->H * v->H * g2 * ABj[r];
        /* C Sx_j: g along Sx_j */
        const double sn = inf_norm(nx, Sx);
        double *col = v->G + oy + (ou + j) * v->ny;
        for (size_t r = 0; r < ny; r++)
            col[r] = Dj[r];
        if (st == COSA_OK && nx && sn > 0.0) {
            const double e = cb * xs / sn;
            for (size_t r = 0; r < nx; r++)
                xp[r] = x[r] + e * Sx[r];
            st = cosa_unit_eval(u, t, xp, up, NULL, gp);
            for (size_t r = 0; r < nx && st == COSA_OK; r++)
                xp[r] = x[r] - e * Sx[r];
            if (st == COSA_OK)
                st = cosa_unit_eval(u, t, xp, up, NULL, gm);
            for (size_t r = 0; r < ny; r++)
                col[r] += (gp[r] - gm[r]) / (2.0 * e);
        }
    }
    return st;
}

/* Jc = dg/du* = I - dphi/dy G S at the predictor point, LU-factored. */
static cosa_status interface_jacobian(struct vo *v)
{
    const size_t nc = v->nc, ny = v->ny, nu = v->nu;
    cosa_status st = cosa_unitset_coupling_eval(v->set, v->T[0] + v->H, v->yh, v->g, v->Phy);
    if (st != COSA_OK)
        return st;
    memset(v->G, 0, ny * nu * sizeof *v->G);
    double lder[VO_NH + 1];
    node_basis(v, v->k, lder);
    double g2 = 0.5, g1 = 1.0;
    if (v->o.jacobian == COSA_VO_JAC_LOS &&
        (st = cosa_vo_error_constants(v->k, v->s, &g2, &g1)) != COSA_OK)
        return st;
    const long n = (long)v->nunits;
    cosa_status *ust = v->ust;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (n > 1) \
    num_threads(omp_get_max_threads() < n ? omp_get_max_threads() : (int)n)
#endif
    for (long ii = 0; ii < n; ii++) {
        const size_t i = (size_t)ii;
        const size_t w = v->woff[i]; /* the unit's own slice of the scratch */
        cosa_status s1 =
            v->o.jacobian == COSA_VO_JAC_LOS
                ? unit_gains_los(v, i, g1, g2, v->fdwork + w)
                : unit_gains_by_steps(v, i, lder, v->o.jacobian == COSA_VO_JAC_EXACT,
                                      v->fdwork + w);
        ust[i] = s1;
    }
    for (size_t i = 0; i < v->nunits; i++)
        if (ust[i] != COSA_OK)
            return ust[i];
    /* GS = G S (ny x nc), Jc = I - Phy GS */
    if (!v->S)
        memcpy(v->GS, v->G, ny * nc * sizeof *v->GS);
    else
        dense_gemm('N', 'N', ny, nc, nu, 1.0, v->G, ny, v->S, nu, 0.0, v->GS, ny);
    dense_identity(nc, v->Jc, nc);
    dense_gemm('N', 'N', nc, nc, ny, -1.0, v->Phy, nc, v->GS, ny, 1.0, v->Jc, nc);
    if (!dense_isfinite(nc, nc, v->Jc, nc))
        return COSA_ENONFINITE;
    if (dense_lu(nc, v->Jc, nc, (lapack_int *)v->ipiv) != 0) {
        snprintf(v->msg, sizeof v->msg, "the interface Jacobian is singular");
        return COSA_EALGLOOP;
    }
    return COSA_OK;
}

/* ---- one attempt --------------------------------------------------------------- */

/* C^k and C^{k+1} (eqs 17, 20) on the step's nodes. */
static cosa_status step_constants(struct vo *v)
{
    cosa_status st = cosa_vo_error_constants(v->k, v->s, &v->cpos[0], &v->cvel[0]);
    if (st == COSA_OK)
        st = cosa_vo_error_constants(v->k + 1, v->s, &v->cpos[1], &v->cvel[1]);
    return st;
}

/* Explicit step (sect. 3.1) with the estimator's comparative solution. */
static cosa_status attempt_explicit(struct vo *v)
{
    const cosa_vo_estimator *e = v->o.estimator;
    const double t1 = v->T[0] + v->H;
    cosa_status st;
    if (e && e->comparative) {
        if (e->comparative == 1)
            vo_build_extrapolation(v, v->k + 1);
        else { /* through (T_{N+1}, P^{k+1}(T_{N+1})), T_N .. T_{N-k+1} */
            vo_build_extrapolation(v, v->k + 1);
            vo_poly_at_end(v, v->k + 1, v->cstar);
            vo_build_interpolation(v, v->k, v->cstar);
        }
        if ((st = advance(v, e->comparative == 1 ? v->k + 1 : v->k, v->xh, v->yh)) != COSA_OK)
            return st;
        if ((st = cosa_master_reject(v->m)) != COSA_OK)
            return st;
    }
    vo_build_extrapolation(v, v->k);
    vo_poly_at_end(v, v->k, v->cpred);
    if ((st = advance(v, v->k, v->x1, v->y1)) != COSA_OK)
        return st;
    return update(v, t1, v->x1, v->y1, v->c1);
}

/* Implicit step (sect. 3.2): predictor, then Newton on eq 11, the coupling's
 * iteration entry (lib/core/iteration.c: its convergence test; the limits
 * corr_tol and corr_max, whose defaults are the entry's). */
static cosa_status attempt_implicit(struct vo *v)
{
    const cosa_iteration_type *newton = cosa_iteration_of_vo(&v->o);
    const size_t nc = v->nc;
    const double t1 = v->T[0] + v->H;
    cosa_status st;
    vo_build_extrapolation(v, v->k);
    vo_poly_at_end(v, v->k, v->cpred);
    if ((st = advance(v, v->k, v->xh, v->yh)) != COSA_OK)
        return st;
    /* the predictor is the corrector polynomial at u* = P^k(T_{N+1}) */
    memcpy(v->cstar, v->cpred, nc * sizeof *v->cstar);
    memcpy(v->x1, v->xh, v->nx * sizeof *v->x1);
    memcpy(v->y1, v->yh, v->ny * sizeof *v->y1);
    if (v->o.jacobian != COSA_VO_JAC_LOS && (st = cosa_master_reject(v->m)) != COSA_OK)
        return st;
    if ((st = interface_jacobian(v)) != COSA_OK) {
        cosa_master_reject(v->m);
        return st;
    }
    int pending = v->o.jacobian == COSA_VO_JAC_LOS; /* a proposal is waiting */
    v->corr_iters = 0;
    v->corr_failed = 1;
    while (v->corr_iters < v->o.corr_max) {
        /* g = u* - phi(y(u*)) */
        if ((st = cosa_unitset_coupling_eval(v->set, t1, v->y1, v->g, NULL)) != COSA_OK)
            return st;
        for (size_t i = 0; i < nc; i++)
            v->dc[i] = v->g[i] - v->cstar[i]; /* -g */
        dense_lu_solve(nc, 1, v->Jc, nc, (lapack_int *)v->ipiv, v->dc, nc);
        for (size_t i = 0; i < nc; i++)
            v->cstar[i] += v->dc[i];
        double conv, csize; /* the entry's measure of the update */
        const int converged = newton->converged(nc, v->dc, v->cstar, v->o.corr_tol, &conv, &csize);
        if (!isfinite(conv))
            break;
        if (pending && (st = cosa_master_reject(v->m)) != COSA_OK)
            return st;
        vo_build_interpolation(v, v->k, v->cstar);
        v->corr_iters++;
        if ((st = advance(v, v->k, v->x1, v->y1)) != COSA_OK)
            return st;
        pending = 1;
        if (converged) {
            v->corr_failed = 0;
            break;
        }
    }
    memcpy(v->c1, v->cstar, nc * sizeof *v->c1);
    if (!pending) { /* never re-integrated: the predictor is the proposal */
        vo_build_extrapolation(v, v->k);
        if ((st = advance(v, v->k, v->x1, v->y1)) != COSA_OK)
            return st;
    }
    return COSA_OK;
}

/* The couplings, a table: an attempt integrates the step from T_N (the units
 * left with a pending proposal of the master) and sets u_{N+1}, by the
 * coupling's iteration entry. */
struct coupling_type {
    const char *name;
    cosa_status (*attempt)(struct vo *v);
    const cosa_iteration_type *iteration;
};
static const struct coupling_type couplings[] = {
    [COSA_VO_EXPLICIT] = {"explicit", attempt_explicit, &cosa_iteration_none},
    [COSA_VO_IMPLICIT] = {"implicit", attempt_implicit, &cosa_iteration_newton},
};

const cosa_iteration_type *cosa_iteration_of_vo(const cosa_vo_opts *o)
{
    if (!o || (size_t)o->coupling >= sizeof couplings / sizeof couplings[0])
        return &cosa_iteration_none;
    return couplings[o->coupling].iteration;
}

/* Error vector and norms of the attempt just integrated. */
static void estimate(struct vo *v, cosa_vo_control_input *in)
{
    const cosa_vo_estimator *e = v->o.estimator;
    in->err_pos = in->err_vel = in->err_u = NAN;
    if (!e)
        return;
    vo_estimate(v);
    if (e->on_states) {
        in->err_pos = wrms_states(v, 0, v->epsx, v->x1);
        in->err_vel = wrms_states(v, 1, v->epsx, v->x1);
    } else
        in->err_u = wrms_u(v, v->epsu, v->c1);
}

/* ---- result bookkeeping -------------------------------------------------------- */

static cosa_status grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return COSA_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return COSA_ENOMEM;
    *p = q;
    *cap = nc;
    return COSA_OK;
}

struct rec {
    size_t acap, pcap;
};

static cosa_status record_attempt(cosa_vo_result *r, struct rec *rc, double t, double H, int k,
                                  int acc, const cosa_vo_control_input *in, int iters)
{
    const size_t n = r->nattempts + 1;
    size_t c0 = rc->acap, c;
    cosa_status st = COSA_OK;
#define G(arr, T)                                                                        \
    c = c0;                                                                              \
    if (st == COSA_OK)                                                                   \
        st = grow((void **)&r->arr, &c, n, sizeof(T));
    G(at, double) G(aH, double) G(aerr_pos, double) G(aerr_vel, double) G(aerr_u, double)
    G(ak, int) G(aacc, int) G(aiters, int)
#undef G
    if (st != COSA_OK)
        return st;
    rc->acap = c;
    const size_t a = r->nattempts;
    r->at[a] = t;
    r->aH[a] = H;
    r->ak[a] = k;
    r->aacc[a] = acc;
    r->aerr_pos[a] = in->err_pos;
    r->aerr_vel[a] = in->err_vel;
    r->aerr_u[a] = in->err_u;
    r->aiters[a] = iters;
    r->nattempts = n;
    return COSA_OK;
}

static cosa_status record_point(cosa_vo_result *r, struct rec *rc, double t, const double *x,
                                const double *y)
{
    const size_t n = r->steps + 1; /* points 0..steps */
    size_t c = rc->pcap;
    cosa_status st = grow((void **)&r->t, &c, n, sizeof(double));
    size_t c2 = rc->pcap, c3 = rc->pcap;
    if (st == COSA_OK)
        st = grow((void **)&r->x, &c2, n, r->nx * sizeof(double));
    if (st == COSA_OK && r->ny)
        st = grow((void **)&r->y, &c3, n, r->ny * sizeof(double));
    if (st != COSA_OK)
        return st;
    rc->pcap = c;
    r->t[n - 1] = t;
    for (size_t j = 0; j < r->nx; j++)
        r->x[j + (n - 1) * r->nx] = x[r->stored[j]];
    if (r->ny)
        memcpy(r->y + (n - 1) * r->ny, y, r->ny * sizeof *y);
    return COSA_OK;
}

/* eq 36 over the points 1..steps for the states flagged (all if sel NULL) */
static double e36(const cosa_vo_result *r, const unsigned char *sel)
{
    const size_t nx = r->nx, N = r->steps;
    double e2 = 0.0;
    size_t used = 0;
    for (size_t i = 0; i < nx; i++) {
        if (sel && !sel[i])
            continue;
        double mean = 0.0;
        for (size_t j = 1; j <= N; j++)
            mean += r->xref[i + j * nx];
        mean /= (double)N;
        double num = 0.0, den = 0.0;
        for (size_t j = 1; j <= N; j++) {
            const double d = r->xref[i + j * nx] - r->x[i + j * nx];
            const double m = r->xref[i + j * nx] - mean;
            num += d * d;
            den += m * m;
        }
        if (!(den > 0.0))
            continue; /* a constant reference component has no scale */
        e2 += num / den;
        used++;
    }
    return used ? sqrt(e2) : NAN;
}

static void summarize(cosa_vo_result *r)
{
    const size_t nx = r->nx, N = r->steps;
    r->e36_all = N && r->all_stored ? e36(r, NULL) : NAN;
    r->e36_coupling = N ? e36(r, r->coupling_body) : NAN;
    double emax = 0.0;
    int any = 0;
    for (size_t i = 0; i < nx; i++) {
        double scale = 0.0;
        for (size_t j = 0; j <= N; j++)
            scale = fmax(scale, fabs(r->xref[i + j * nx]));
        if (!(scale > 0.0))
            continue;
        emax = fmax(emax, fabs(r->x[i + N * nx] - r->xref[i + N * nx]) / scale);
        any = 1;
    }
    r->e_end = any ? emax : NAN;
}

/* ---- start-up (extends doc/method.md) ----------------------------------------------- */

/* u at T_j = j H0, j = 0..K+1 from the reference, the history newest first,
 * and the units' states at t_s = (K+1) H0. */
static cosa_status startup(struct vo *v, cosa_vo_ref_fn ref, void *refctx, int K, double *X)
{
    const size_t nx = v->nx, np = (size_t)K + 2;
    double t[VO_NH + 2];
    for (size_t j = 0; j < np; j++)
        t[j] = (double)j * v->o.H;
    cosa_status st = ref(refctx, np, t, 0, NULL, X);
    if (st != COSA_OK) {
        snprintf(v->msg, sizeof v->msg, "the reference failed at the start-up");
        return st;
    }
    v->nh = 0;
    for (size_t j = 0; j < np; j++) {
        memset(v->y1, 0, v->ny * sizeof *v->y1);
        if ((st = cosa_unitset_loop_solve(v->set, t[j], X + j * nx, v->y1)) != COSA_OK ||
            (st = cosa_unitset_coupling_eval(v->set, t[j], v->y1, v->c1, NULL)) != COSA_OK) {
            snprintf(v->msg, sizeof v->msg, "no consistent coupling variables at t = %g", t[j]);
            return st;
        }
        push_history(v, t[j], v->c1);
    }
    memcpy(v->xN, X + (np - 1) * nx, nx * sizeof *v->xN);
    return cosa_master_init(v->m, t[np - 1], v->xN, NULL, NULL);
}

/* The start from the units' own state (start_initial; black boxes, whose
 * states no reference knows): x(0) of the reference, the units set there
 * (an FMU instantiated afresh), u_0 consistent with the outputs at t = 0;
 * then steps j = 0..K of H0, each with the degree min(j, k) that the j + 1
 * samples allow, committed and updated (the algebraic loop at every point,
 * as the reference start-up), so that the run starts at t_s = (K+1) H0
 * with the history the reference start-up gives it. */
static cosa_status startup_initial(struct vo *v, cosa_vo_ref_fn ref, void *refctx, int K,
                                   double *X)
{
    const double t0 = 0.0;
    cosa_status st = ref(refctx, 1, &t0, 0, NULL, X);
    if (st != COSA_OK) {
        snprintf(v->msg, sizeof v->msg, "the reference failed at t = 0");
        return st;
    }
    if ((st = cosa_master_init(v->m, 0.0, X, NULL, NULL)) != COSA_OK)
        return st;
    v->nh = 0;
    v->H = v->o.H;
    memcpy(v->x1, X, v->nx * sizeof *v->x1);
    memset(v->y1, 0, v->ny * sizeof *v->y1);
    for (int j = 0;; j++) {
        const double t = (double)j * v->o.H;
        if ((st = cosa_unitset_loop_solve(v->set, t, v->x1, v->y1)) != COSA_OK ||
            (st = cosa_unitset_coupling_eval(v->set, t, v->y1, v->c1, NULL)) != COSA_OK) {
            snprintf(v->msg, sizeof v->msg, "no consistent coupling variables at t = %g", t);
            return st;
        }
        push_history(v, t, v->c1);
        if (j == K + 1)
            break;
        const int d = j < v->o.k ? j : v->o.k;
        set_nodes(v);
        vo_build_extrapolation(v, d);
        if ((st = advance(v, d, v->x1, v->y1)) != COSA_OK) {
            snprintf(v->msg + strlen(v->msg), sizeof v->msg - strlen(v->msg),
                     " (the start-up step to t = %g)", t + v->o.H);
            return st;
        }
        if ((st = cosa_master_commit(v->m)) != COSA_OK)
            return st;
    }
    memcpy(v->xN, v->x1, v->nx * sizeof *v->xN);
    return COSA_OK;
}

/* Feedthrough and the coupling bodies at the start: a state is a coupling
 * body's if it enters (dg/dx) an output that phi depends on. */
static cosa_status structure(struct vo *v)
{
    const double t = v->T[0];
    /* v->y1 holds the outputs at t_s from the start-up */
    cosa_status st = cosa_unitset_coupling_eval(v->set, t, v->y1, v->c1, v->Phy);
    if (st != COSA_OK)
        return st;
    double *uall = v->tmp; /* nu */
    if ((st = cosa_unitset_inputs(v->set, t, v->y1, uall, NULL)) != COSA_OK)
        return st;
    const size_t nc = v->nc;
    for (size_t i = 0; i < v->nunits && st == COSA_OK; i++) {
        cosa_unit *u = cosa_unitset_unit(v->set, i);
        size_t ox, ou, oy;
        cosa_unitset_offsets(v->set, i, &ox, &ou, &oy);
        if (!u->ny)
            continue;
        /* C (ny x nx) and D of this unit, once per run (a long banded unit
         * gets them by differences of g alone: O(nx) evaluations) */
        double *Cm = malloc((u->ny * u->nx + u->ny * u->nu + 1) * sizeof *Cm);
        if (!Cm)
            return COSA_ENOMEM;
        double *Dm = Cm + u->ny * u->nx;
        st = cosa_unit_jacobian(u, t, v->xN + ox, uall + ou, 0, NULL, NULL, Cm,
                                u->nu ? Dm : NULL);
        for (size_t q = 0; st == COSA_OK && q < u->ny * u->nu; q++)
            v->feedthrough |= Dm[q] != 0.0;
        for (size_t r = 0; st == COSA_OK && r < u->ny; r++) {
            int used = 0;
            for (size_t c = 0; c < nc; c++)
                used |= v->Phy[c + (oy + r) * nc] != 0.0;
            if (!used)
                continue;
            for (size_t k = 0; k < u->nx; k++)
                if (Cm[r + k * u->ny] != 0.0)
                    v->cbody[ox + k] = 1;
        }
        free(Cm);
    }
    return st;
}

/* ---- the run --------------------------------------------------------------------- */

/* The controller: an entry of the controller table (sect. 5's "order" /
 * "step", or any other, e.g. the defect paper's "pi"). */
static cosa_status vo_controller(const cosa_vo_opts *o, cosa_controller **ctl)
{
    const cosa_controller_type *ct =
        o->controller ? o->controller
                      : cosa_controller_lookup(o->control == COSA_VO_CONTROL_ORDER ? "order"
                                                                                 : "step");
    cosa_controller_params cp;
    cosa_status st;
    if ((st = cosa_controller_defaults(ct, 1.0, &cp)) != COSA_OK)
        return st;
    cp.vo = (cosa_vo_control_params){.order = o->control == COSA_VO_CONTROL_ORDER,
                                     .kmax = o->control == COSA_VO_CONTROL_ORDER
                                                 ? o->kmax
                                                 : COSA_VO_KMAX,
                                     .sf = o->sf, .rmin = o->rmin, .rmax = o->rmax,
                                     .hmin = o->hmin};
    if (ct->decide)
        cp.grow = o->rmax;
    if ((st = cosa_controller_create(ct, &cp, ctl)) != COSA_OK ||
        (st = cosa_controller_reset(*ctl, o->H)) != COSA_OK)
        return st;
    return COSA_OK;
}

/* ---- the engine as a configuration of the one loop (evolve.h) ------------------------ */

/* One run's loop state: the engine, the controller and history, the
 * result, and the attempt's control input and decision. */
struct vorun {
    struct vo *v;
    const cosa_vo_opts *o;
    cosa_controller *ctl;
    const cosa_vo_history *hist;
    struct rec *rc;
    cosa_vo_result *r;
    int fixed;
    evolve_fixed grid; /* fixed: the steps and the end (evolve_fixed_horizon) */
    size_t maxatt;
    double ts, tend, H, hsum; /* H: the controller's next step */
    double tn_grid; /* fixed: the planned step's end, t_s + (k + 1) H */
    cosa_vo_control_input in;
    cosa_vo_decision d;
};

/* The stepper: the coupling's proposal of the step v->H from v->T[0] at
 * degree v->k (the units left with a pending proposal of the master). */
static cosa_status vo_propose(void *ctx, const evolve_attempt *a)
{
    (void)a;
    struct vorun *w = ctx;
    struct vo *v = w->v;
    set_nodes(v);
    read_states(v, v->xN);
    v->msg[0] = '\0'; /* this attempt's reason only */
    v->corr_iters = 0;
    v->corr_failed = 0;
    w->in = (cosa_vo_control_input){.H = v->H, .k = v->k,
                                    .state_est = w->o->estimator ? w->o->estimator->on_states
                                                                 : 1};
    cosa_status st = step_constants(v);
    return st == COSA_OK ? couplings[w->o->coupling].attempt(v) : st;
}

/* An accepted step ending at tnew (the end exactly when last): commit and
 * the history. */
static cosa_status vo_commit(void *ctx, const evolve_attempt *a)
{
    struct vorun *w = ctx;
    struct vo *v = w->v;
    const double tnew = !w->fixed ? a->tn : a->last ? w->tend : w->tn_grid;
    cosa_status st;
    if ((st = cosa_master_commit(v->m)) != COSA_OK)
        return st;
    push_history(v, tnew, v->c1);
    if (a->last) /* exactly at the end */
        v->T[0] = w->tend;
    return COSA_OK;
}

static cosa_status vo_reject(void *ctx, const evolve_attempt *a)
{
    (void)a;
    return cosa_master_reject(((struct vorun *)ctx)->v->m);
}

static size_t vo_failed_unit(void *ctx)
{
    return cosa_master_failed_unit(((struct vorun *)ctx)->v->m);
}

static const evolve_stepper vo_stepper = {"given input polynomials", vo_propose, vo_commit,
                                          vo_reject, vo_failed_unit, NULL, NULL};

/* The estimator: the entry of the estimator table, its norms into the
 * control input. */
static cosa_status vo_estimate_op(void *ctx, evolve_attempt *a)
{
    (void)a;
    struct vorun *w = ctx;
    estimate(w->v, &w->in);
    return COSA_OK;
}

static const evolve_estimator vo_estimator = {"variable-order", vo_estimate_op};

/* The clock: until the end, the attempt limit; the fixed steps of the one
 * fixed-step rule (evolve_fixed_plan: full steps of H, a short last one to
 * t_s + tend), or the controller's step clipped to end at t_s + tend. */
static evolve_end vo_plan(void *ctx, evolve_attempt *a)
{
    struct vorun *w = ctx;
    struct vo *v = w->v;
    if (!w->fixed && !(v->T[0] < w->tend))
        return EVOLVE_DONE;
    a->last = 0;
    if (w->fixed) {
        a->t = v->T[0];
        if (evolve_fixed_plan(&w->grid, a) == EVOLVE_DONE)
            return EVOLVE_DONE;
        w->tn_grid = a->tn; /* the step's end on the grid (the engine's clock) */
    }
    if (w->r->nattempts >= w->maxatt)
        return EVOLVE_LIMIT;
    if (w->fixed)
        v->H = a->h;
    else {
        /* the end clip every controller shares (evolve_clip_to_end): a
         * step ending within 1e-12 tend of tend, or past it, ends there */
        a->t = v->T[0];
        a->h = w->H;
        a->tn = v->T[0] + w->H;
        evolve_clip_to_end(a, w->tend, 1e-12, 0);
        v->H = a->h;
    }
    a->h = v->H;
    a->tn = v->T[0] + v->H;
    return EVOLVE_GO;
}

/* The decision: the controller of the table (sect. 5), or, with fixed
 * steps, acceptance unless the step failed (then the run stops). */
static cosa_status vo_decide(void *ctx, const evolve_attempt *a, evolve_decision *dec)
{
    struct vorun *w = ctx;
    struct vo *v = w->v;
    const int failed = a->fail != COSA_OK;
    if (failed) {
        if (!v->msg[0]) /* the reason of a failed step (README "Failures") */
            snprintf(v->msg, sizeof v->msg, "%s", cosa_strerror(a->fail));
        w->in.err_pos = w->in.err_vel = w->in.err_u = INFINITY;
        cosa_master_reject(v->m);
    }
    w->in.corr_failed = v->corr_failed || failed;
    w->d = (cosa_vo_decision){.accept = !w->in.corr_failed, .k = v->k, .H = v->H};
    if (!w->fixed) {
        cosa_status st = cosa_controller_decide(w->ctl, &w->in, w->hist, &w->d);
        if (st != COSA_OK)
            return st;
    } else if (failed || w->in.corr_failed)
        w->d.accept = 0;
    dec->accept = w->d.accept;
    dec->end = w->fixed && !w->d.accept ? EVOLVE_FAILED
               : !w->fixed && w->d.stop ? EVOLVE_HMIN
                                        : EVOLVE_GO;
    return COSA_OK;
}

/* The order and step of the decision, once the attempt is committed or
 * rejected and recorded. */
static cosa_status vo_update(void *ctx, const evolve_attempt *a, const evolve_decision *dec)
{
    (void)a;
    (void)dec;
    struct vorun *w = ctx;
    if (w->fixed)
        return COSA_OK;
    if (w->d.k != w->v->k)
        w->r->k_changes++;
    w->v->k = w->d.k;
    w->H = w->d.H;
    return COSA_OK;
}

static const evolve_controller vo_control = {"variable-order", vo_plan, vo_decide, vo_update};

/* The recording observer: every attempt, and every accepted point with
 * the step statistics. */
static cosa_status vo_attempted(void *ctx, const evolve_attempt *a, const evolve_decision *dec)
{
    struct vorun *w = ctx;
    struct vo *v = w->v;
    cosa_status st =
        record_attempt(w->r, w->rc, a->tn, v->H, v->k, dec->accept, &w->in, v->corr_iters);
    w->r->corrector_iters += (size_t)v->corr_iters;
    return st;
}

static cosa_status vo_committed(void *ctx, const evolve_attempt *a, int *halt)
{
    (void)a;
    (void)halt;
    struct vorun *w = ctx;
    struct vo *v = w->v;
    cosa_vo_result *r = w->r;
    r->steps++;
    r->k_hist[v->k]++;
    w->hsum += v->H;
    r->H_min = fmin(r->H_min, v->H);
    r->H_max = fmax(r->H_max, v->H);
    read_states(v, v->x1);
    return record_point(r, w->rc, v->T[0], v->x1, v->y1);
}

/* The iterations in the loop's figures: the implicit corrector's
 * integrations, each from the units restored to T_N (a rollback). */
static void run_iterations(cosa_vo_result *r, const cosa_vo_opts *o)
{
    r->run.corrector_iterations = r->corrector_iters;
    if (o->coupling == COSA_VO_IMPLICIT)
        r->run.rollbacks += r->corrector_iters;
}

/* The end of the horizon t_s + tend (fixed steps: the end of their grid,
 * *grid, evolve_fixed_horizon: t_s + N H for a whole number N of steps). */
static double vo_horizon(const cosa_vo_opts *o, double ts, evolve_fixed *grid)
{
    if (o->control == COSA_VO_CONTROL_NONE) {
        evolve_fixed_horizon(grid, ts, o->tend, o->H);
        return grid->tend;
    }
    return ts + o->tend;
}

/* The time loop from t_s = v->T[0]: attempts until the end, the attempt
 * limit, a failed fixed step or the step floor (r->status, r->reason). */
static cosa_status vo_loop(struct vo *v, const cosa_vo_opts *o, cosa_controller *ctl,
                           const cosa_vo_history *hist, struct rec *rc, cosa_vo_result *r)
{
    struct vorun w = {.v = v, .o = o, .ctl = ctl, .hist = hist, .rc = rc, .r = r,
                      .fixed = o->control == COSA_VO_CONTROL_NONE, .ts = v->T[0], .H = o->H,
                      .maxatt = o->max_attempts ? o->max_attempts : 10000000u};
    w.tend = vo_horizon(o, w.ts, &w.grid);
    v->k = o->k;
    r->H_min = INFINITY;
    r->H_max = 0.0;
    r->status = COSA_VO_OK;
    const evolve_observer rec = {vo_committed, &w, vo_attempted};
    const evolve_config c = {.stepper = &vo_stepper, .stepper_ctx = &w,
                             .estimator = &vo_estimator, .estimator_ctx = &w,
                             .controller = &vo_control, .controller_ctx = &w,
                             .observers = &rec, .nobservers = 1, .is_failure = td_failure_is_result,
                             .t0 = w.ts};
    evolve_stats s;
    cosa_status st = evolve_run(&c, &s);
    if (st != COSA_OK)
        return st;
    if (s.end == EVOLVE_LIMIT) {
        r->status = COSA_VO_MAXSTEPS;
        snprintf(r->reason, sizeof r->reason, "%zu attempts without reaching the end",
                 r->nattempts);
    } else if (s.end == EVOLVE_FAILED) {
        r->status = COSA_VO_DIVERGED;
        snprintf(r->reason, sizeof r->reason, "t = %.6g: %s", s.last.tn,
                 s.last.fail != COSA_OK ? v->msg : "the corrector did not converge");
    } else if (s.end == EVOLVE_HMIN) {
        r->status = COSA_VO_HMIN;
        snprintf(r->reason, sizeof r->reason, "t = %.6g: the macro step %.3g is <= hmin",
                 v->T[0], w.d.H);
    }
    r->run = s.run;
    r->run.t_end = v->T[0];
    run_iterations(r, o);
    if (r->run.fail_unit >= v->nunits)
        r->run.fail_unit = (size_t)-1;
    r->rejected = r->nattempts - r->steps;
    r->t_end = v->T[0];
    r->H_mean = r->steps ? w.hsum / (double)r->steps : NAN;
    if (!r->steps)
        r->H_min = r->H_max = NAN;
    return COSA_OK;
}

/* ---- divergence: the rule of every time-domain run (README "Failures") ---------------- */

#define VO_DIVERGE_FACTOR 1e6 /* the fixed-step driver's factor (driver.c) */

/* The run's figures cut back to the accepted points 0..j (the attempts up
 * to the one that accepted point j): counts, degrees and macro steps. */
static void truncate_at_point(cosa_vo_result *r, size_t j)
{
    /* implicit coupling: the corrector's integrations are rollbacks too
     * (every rejection before the cut point was retried) */
    const int corr_rollbacks = r->run.corrector_iterations > 0;
    size_t a = 0, acc = 0;
    for (; a < r->nattempts; a++)
        if (r->aacc[a] && ++acc == j)
            break;
    r->nattempts = a + 1;
    r->steps = j;
    r->rejected = r->nattempts - j;
    r->corrector_iters = 0;
    r->k_changes = 0;
    memset(r->k_hist, 0, sizeof r->k_hist);
    for (size_t b = 0; b < r->nattempts; b++) {
        r->corrector_iters += (size_t)r->aiters[b];
        r->k_changes += b > 0 && r->ak[b] != r->ak[b - 1];
        if (r->aacc[b])
            r->k_hist[r->ak[b]]++;
    }
    r->H_min = INFINITY;
    r->H_max = 0.0;
    for (size_t n = 1; n <= j; n++) {
        r->H_min = fmin(r->H_min, r->t[n] - r->t[n - 1]);
        r->H_max = fmax(r->H_max, r->t[n] - r->t[n - 1]);
    }
    r->H_mean = (r->t[j] - r->t[0]) / (double)j;
    r->t_end = r->t[j];
    r->run.end = COSA_RUN_HALTED;
    r->run.t_end = r->t_end;
    r->run.steps = j;
    r->run.rejected = r->rejected;
    r->run.attempts = r->nattempts;
    r->run.h_min = r->H_min;
    r->run.h_mean = r->H_mean;
    r->run.h_max = r->H_max;
    r->run.corrector_iterations = r->corrector_iters;
    r->run.rollbacks = r->rejected + (corr_rollbacks ? r->corrector_iters : 0);
}

#define VO_BOUND_SAMPLES 1024 /* samples of the rest of the horizon after a short run */

/* The largest |x_ref| of the kept states over the horizon [0, tend]: at
 * the accepted points (and t = 0, divergence_check), and for a run that stopped short of tend also at
 * VO_BOUND_SAMPLES + 1 uniform times over [0, tend] (a failed reference
 * there leaves the points' maximum).  A sampled maximum misses at most the
 * variation between samples, immaterial against the factor 1e6. */
static cosa_status reference_max(const cosa_vo_result *r, cosa_vo_ref_fn ref, void *refctx,
                                 double tend, double *refmax)
{
    const size_t nx = r->nx, M = VO_BOUND_SAMPLES + 1;
    *refmax = 0.0;
    for (size_t k = 0; k < nx * (r->steps + 1); k++)
        *refmax = fmax(*refmax, fabs(r->xref[k]));
    if (r->status == COSA_VO_OK)
        return COSA_OK;
    double *tt = malloc(M * sizeof *tt), *XX = malloc(M * nx * sizeof *XX + 1);
    if (!tt || !XX) {
        free(tt);
        free(XX);
        return COSA_ENOMEM;
    }
    for (size_t i = 0; i < M; i++)
        tt[i] = tend * (double)i / VO_BOUND_SAMPLES;
    cosa_status st =
        ref(refctx, M, tt, r->all_stored ? 0 : nx, r->all_stored ? NULL : r->stored, XX);
    for (size_t k = 0; st == COSA_OK && k < M * nx; k++)
        *refmax = fmax(*refmax, fabs(XX[k]));
    free(tt);
    free(XX);
    return st == COSA_ENOMEM ? st : COSA_OK;
}

/* After the run (the reference is evaluated after it): a kept state
 * beyond VO_DIVERGE_FACTOR x the largest magnitude of the reference over
 * the horizon diverges at the first such accepted point --
 * COSA_VO_DIVERGED with the state, value, bound and time, the figures cut
 * there and the errors inf (as the driver's e_global). */
static cosa_status divergence_check(cosa_vo_result *r, cosa_vo_ref_fn ref, void *refctx,
                                    double tend, double ref0)
{
    const size_t nx = r->nx, N = r->steps;
    double refmax;
    cosa_status st = reference_max(r, ref, refctx, tend, &refmax);
    refmax = fmax(refmax, ref0);
    const double bound = VO_DIVERGE_FACTOR * refmax;
    if (st != COSA_OK || !(refmax > 0.0) || !isfinite(bound))
        return st; /* a zero reference has no scale */
    for (size_t j = 1; j <= N; j++)
        for (size_t i = 0; i < nx; i++) {
            const double a = fabs(r->x[i + j * nx]);
            if (a <= bound)
                continue;
            r->status = COSA_VO_DIVERGED;
            snprintf(r->reason, sizeof r->reason,
                     "t = %.6g: state %zu = %.3g exceeds %.3g x the largest reference magnitude "
                     "%.3g",
                     r->t[j], r->stored[i], a, VO_DIVERGE_FACTOR, refmax);
            truncate_at_point(r, j);
            r->e36_all = r->e36_coupling = r->e_end = INFINITY;
            return COSA_OK;
        }
    return COSA_OK;
}


/* The reference at the accepted macro points (r->xref) and the run's
 * figures; a failed reference is a result (COSA_VO_NOREF). */
static cosa_status reference_at_points(cosa_vo_result *r, cosa_vo_ref_fn ref, void *refctx,
                                       double tend)
{
    const size_t n = r->steps + 1;
    double *tt = malloc((n + 1) * sizeof *tt), *XX = malloc((n + 1) * r->nx * sizeof *XX + 1);
    r->xref = malloc(n * r->nx * sizeof *r->xref + 1);
    if (!tt || !XX || !r->xref) {
        free(tt);
        free(XX);
        return COSA_ENOMEM;
    }
    tt[0] = 0.0;
    memcpy(tt + 1, r->t, n * sizeof *tt);
    const size_t ns = r->nx;
    cosa_status st =
        ref(refctx, n + 1, tt, r->all_stored ? 0 : ns, r->all_stored ? NULL : r->stored, XX);
    double ref0 = 0.0; /* the largest |x_ref(0)|: the start of the horizon */
    if (st == COSA_OK)
        memcpy(r->xref, XX + ns, n * ns * sizeof *XX);
    for (size_t i = 0; st == COSA_OK && i < ns; i++)
        ref0 = fmax(ref0, fabs(XX[i]));
    free(tt);
    free(XX);
    if (st != COSA_OK) {
        if (st == COSA_ENOMEM)
            return st;
        r->status = COSA_VO_NOREF;
        snprintf(r->reason, sizeof r->reason, "the reference failed at the macro points (%s)",
                 cosa_strerror(st));
        r->e36_all = r->e36_coupling = r->e_end = NAN;
        free(r->xref);
        r->xref = NULL;
        return COSA_OK;
    }
    summarize(r);
    return divergence_check(r, ref, refctx, tend, ref0);
}

cosa_status cosa_vo_run(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                        const cosa_vo_opts *o, cosa_vo_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    cosa_status st = td_vo_check(set, ref, o);
    return st != COSA_OK ? st : td_vo_exec(set, ref, refctx, o, out);
}

/* The run itself, on a description td_vo_check accepted (run_impl.h). */
cosa_status td_vo_exec(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                       const cosa_vo_opts *o, cosa_vo_result **out)
{
    *out = NULL;
    cosa_status st = COSA_OK;
    cosa_unitset_counters_reset(set); /* the units' counters are this run's */
    struct vo *v = NULL;
    if ((st = vo_create(set, o, &v)) != COSA_OK)
        return st;
    if (!(v->o.rtol_u > 0.0))
        v->o.rtol_u = v->o.rtol;
    const size_t nx = v->nx;
    cosa_vo_result *r = calloc(1, sizeof *r);
    const int K = o->control == COSA_VO_CONTROL_ORDER ? o->kmax : o->k;
    double *X = calloc(nx * ((size_t)K + 2) + 1, sizeof *X);
    struct hist_ctx hc = {.v = v};
    hc.V = calloc(v->nc * (VO_NH + 1) + v->nc + 1, sizeof(double));
    struct rec rc = {0};
    cosa_controller *ctl = NULL;
    if (!r || !X || !hc.V) {
        st = COSA_ENOMEM;
        goto done;
    }
    hc.dd = hc.V + v->nc * (VO_NH + 1);
    r->nx_total = nx;
    r->nc = v->nc;
    r->coupling_body = calloc(nx + 1, 1);
    r->stored = calloc(nx + 1, sizeof *r->stored);
    if (!r->coupling_body || !r->stored) {
        st = COSA_ENOMEM;
        goto done;
    }
    st = o->start_initial ? startup_initial(v, ref, refctx, K, X) : startup(v, ref, refctx, K, X);
    if (st != COSA_OK || (st = structure(v)) != COSA_OK) {
        if (st == COSA_ENOMEM)
            goto done;
        /* a result: the reference (or the start on it) failed */
        r->status = COSA_VO_NOREF;
        snprintf(r->reason, sizeof r->reason, "%s (%s)",
                 v->msg[0] ? v->msg : "no consistent start on the reference", cosa_strerror(st));
        st = COSA_OK;
        goto done;
    }
    /* the states kept at the macro points: all, or the coupling bodies' */
    r->all_stored = nx <= (o->store_max ? o->store_max : 20000u);
    for (size_t i = 0; i < nx; i++)
        if (r->all_stored || v->cbody[i]) {
            r->coupling_body[r->nx] = v->cbody[i];
            r->stored[r->nx++] = i;
        }
    r->ny = v->ny <= (o->store_max ? o->store_max : 20000u) ? v->ny : 0;
    r->t_start = v->T[0];
    if ((st = record_point(r, &rc, v->T[0], v->xN, v->y1)) != COSA_OK)
        goto done;
    if (o->control != COSA_VO_CONTROL_NONE && (st = vo_controller(o, &ctl)) != COSA_OK)
        goto done;
    const cosa_vo_history hist = {.sdn = hist_sdn, .etilde = hist_etilde, .ctx = &hc};
    if ((st = vo_loop(v, o, ctl, &hist, &rc, r)) == COSA_OK)
        {
        evolve_fixed grid;
        st = reference_at_points(r, ref, refctx, vo_horizon(o, r->t_start, &grid));
    }
done:
    cosa_controller_free(ctl);
    free(X);
    free(hc.V);
    vo_free(v);
    if (st == COSA_OK)
        *out = r;
    else
        cosa_vo_result_free(r);
    return st;
}

/* ---- one step from the reference (cosa estimate) --------------------------------- */

static double norm2_sel(const struct vo *v, const double *a, const double *b, int vel)
{
    double s = 0.0;
    for (size_t i = 0; i < v->nx; i++)
        if (v->is_vel[i] == vel) {
            const double d = b ? a[i] - b[i] : a[i];
            s += d * d;
        }
    return sqrt(s);
}

cosa_status cosa_vo_estimate_step(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                                  const cosa_vo_opts *o, double t0, cosa_vo_estimate *out)
{
    if (!set || !ref || !o || !out || !o->estimator)
        return COSA_EINVAL;
    cosa_vo_opts oo = *o;
    oo.control = COSA_VO_CONTROL_NONE;
    oo.tend = o->H;
    if (oo.kmax < oo.k)
        oo.kmax = oo.k;
    cosa_status st = check_opts(set, &oo);
    if (st != COSA_OK)
        return st;
    if (!isfinite(t0) || t0 < (double)(o->k + 1) * o->H * (1.0 - 1e-12))
        return COSA_ERANGE;
    struct vo *v = NULL;
    if ((st = vo_create(set, &oo, &v)) != COSA_OK)
        return st;
    if (!(v->o.rtol_u > 0.0))
        v->o.rtol_u = v->o.rtol;
    const size_t nx = v->nx, np = (size_t)o->k + 2;
    /* times: [0,] t0 - (k+1) H, ..., t0, t0 + H */
    double t[VO_NH + 4];
    size_t n = 0, first;
    const double tfirst = t0 - (double)(np - 1) * o->H;
    if (tfirst > 0.0)
        t[n++] = 0.0;
    first = n;
    for (size_t j = 0; j < np; j++)
        t[n++] = j + 1 == np ? t0 : fmax(0.0, t0 - (double)(np - 1 - j) * o->H);
    t[n++] = t0 + o->H;
    double *X = calloc(nx * n + 1, sizeof *X), *c1ex = calloc(v->nc + 1, sizeof *c1ex);
    if (!X || !c1ex) {
        st = COSA_ENOMEM;
        goto done;
    }
    if ((st = ref(refctx, n, t, 0, NULL, X)) != COSA_OK)
        goto done;
    v->nh = 0;
    for (size_t j = 0; j < np; j++) {
        const double *xj = X + (first + j) * nx;
        memset(v->y1, 0, v->ny * sizeof *v->y1);
        if ((st = cosa_unitset_loop_solve(set, t[first + j], xj, v->y1)) != COSA_OK ||
            (st = cosa_unitset_coupling_eval(set, t[first + j], v->y1, v->c1, NULL)) != COSA_OK)
            goto done;
        push_history(v, t[first + j], v->c1);
    }
    memcpy(v->xN, X + (first + np - 1) * nx, nx * sizeof *v->xN);
    if ((st = cosa_master_init(v->m, t0, v->xN, NULL, NULL)) != COSA_OK ||
        (st = structure(v)) != COSA_OK)
        goto done;
    /* the exact u at T_{N+1} */
    const double *xend = X + (n - 1) * nx;
    memset(v->yh, 0, v->ny * sizeof *v->yh);
    if ((st = cosa_unitset_loop_solve(set, t0 + o->H, xend, v->yh)) != COSA_OK ||
        (st = cosa_unitset_coupling_eval(set, t0 + o->H, v->yh, c1ex, NULL)) != COSA_OK)
        goto done;
    v->k = o->k;
    v->H = o->H;
    set_nodes(v);
    if ((st = step_constants(v)) != COSA_OK)
        goto done;
    st = couplings[o->coupling].attempt(v);
    if (st != COSA_OK)
        goto done;
    vo_estimate(v);
    memset(out, 0, sizeof *out);
    out->err_pos = norm2_sel(v, v->x1, xend, 0);
    out->err_vel = norm2_sel(v, v->x1, xend, 1);
    out->est_pos = norm2_sel(v, v->epsx, NULL, 0);
    out->est_vel = norm2_sel(v, v->epsx, NULL, 1);
    double eu = 0.0, su = 0.0;
    for (size_t i = 0; i < v->nc; i++) {
        eu += (v->cpred[i] - c1ex[i]) * (v->cpred[i] - c1ex[i]);
        su += v->epsu[i] * v->epsu[i];
    }
    out->err_u = sqrt(eu);
    out->est_u = sqrt(su);
    cosa_master_reject(v->m);
done:
    free(X);
    free(c1ex);
    vo_free(v);
    return st;
}
