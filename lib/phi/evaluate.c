/* evaluate.c -- one analysis point: Phi, Phi*, spectral radii and the NRMSE
 * indicators, with all buffers in a workspace sized once. */
#include "cosa/phi.h"
#include "phi/deflate_impl.h"
#include "core/dense.h"
#include "core/eig_bound.h"
#include "phi/phi_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cosa_eval_workspace {
    size_t dimmax, nx;
    int pmax;
    cosa_phi_workspace *phi;
    cosa_eig_workspace *eig;
    cosa_nrmse_workspace *nrmse;
    deflate_workspace *defl; /* rho(Phi) of Jacobi schemes (lib/deflate.c) */
    double *Phi, *Phistar, *copy;
    double *Adstar; /* nx x nx: A*_d, the leading block of Phi*          */
    double *T;      /* dimmax x nx: reference basis, z*_n = T A*_d^n x0   */
    cosa_stage_fn stage;  /* progress: called as each stage starts (may be NULL) */
    void *stage_data;
    const cosa_cancel *cancel; /* checked as each evaluation starts (may be NULL) */
};

void cosa_eval_workspace_set_cancel(cosa_eval_workspace *w, const cosa_cancel *cancel)
{
    if (w)
        w->cancel = cancel;
}

void cosa_eval_workspace_set_progress(cosa_eval_workspace *w, cosa_stage_fn fn, void *user_data)
{
    if (!w)
        return;
    w->stage = fn;
    w->stage_data = user_data;
    cosa_nrmse_workspace_set_progress(w->nrmse, fn, user_data);
}

static void stage(const cosa_eval_workspace *w, const char *name, size_t dim)
{
    if (w->stage)
        w->stage(name, dim, 0, 0, w->stage_data);
}

void cosa_eval_workspace_free(cosa_eval_workspace *w)
{
    if (!w)
        return;
    cosa_phi_workspace_free(w->phi);
    cosa_eig_workspace_free(w->eig);
    cosa_nrmse_workspace_free(w->nrmse);
    deflate_workspace_free(w->defl);
    free(w->Phi);
    free(w->Phistar);
    free(w->copy);
    free(w->Adstar);
    free(w->T);
    free(w);
}

cosa_eval_workspace *cosa_eval_workspace_alloc(const cosa_system *sys, int pmax)
{
    if (!sys || pmax < 0 || pmax > COSA_ORDER_MAX)
        return NULL;
    cosa_eval_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    cosa_scheme big = {.order = pmax, .corr = COSA_CORR_MBCORR, .alpha = 1.0};
    cosa_layout lay;
    if (cosa_layout_get(sys, &big, &lay) != COSA_OK)
        goto fail;
    size_t d = lay.dim;
    w->dimmax = d;
    w->nx = lay.nx;
    w->pmax = pmax;
    w->phi = cosa_phi_workspace_alloc(sys, pmax);
    w->eig = cosa_eig_workspace_alloc(d);
    w->nrmse = cosa_nrmse_workspace_alloc(d);
    w->defl = deflate_workspace_alloc(sys, pmax);
    w->Phi = malloc(d * d * sizeof(double));
    w->Phistar = malloc(d * d * sizeof(double));
    w->copy = malloc(d * d * sizeof(double));
    w->Adstar = malloc((lay.nx ? lay.nx * lay.nx : 1) * sizeof(double));
    w->T = malloc(d * (lay.nx ? lay.nx : 1) * sizeof(double));
    if (!w->phi || !w->eig || !w->nrmse || !w->defl || !w->Phi || !w->Phistar || !w->copy ||
        !w->Adstar || !w->T)
        goto fail;
    return w;
fail:
    cosa_eval_workspace_free(w);
    return NULL;
}

/* out->rho_tol for rho in (1 + COSA_RHO_TOL, 1 + COSA_RHO_NEAR]: the rounding
 * bound of the computed dominant eigenvalue of Phi (lib/core/eig_bound.c),
 * at most COSA_RHO_NEAR; Phi is built here when the deflated Jacobi route
 * did without it (the same nonzero eigenvalues).  Only near 1, so the cost
 * (one dgeevx with eigenvectors) is paid where the verdict needs it. */
static cosa_status rho_rounding(const cosa_system *sys, const cosa_scheme *s, double dt, size_t n,
                                int built, cosa_point_result *out, cosa_eval_workspace *w)
{
    if (!cosa_rho_near_one(out->rho))
        return COSA_OK;
    cosa_status st = COSA_OK;
    if (!built && (st = cosa_phi_build(sys, s, dt, w->Phi, n, w->phi)) != COSA_OK)
        return st;
    double tol;
    st = cosa_rho_tol(n, w->Phi, n, out->rho, &tol);
    if (st == COSA_OK)
        out->rho_tol = tol;
    return st;
}

cosa_status cosa_evaluate(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double tend, unsigned want,
                          cosa_point_result *out, cosa_eval_workspace *w)
{
    if (!sys || !s || !out || !w || ((want & COSA_WANT_ERRORS) && !x0))
        return COSA_EINVAL;
    const double given_rho = out->rho;
    const int have_rho = (want & COSA_GIVEN_RHO) && !isnan(given_rho);
    out->rho = out->rho_ref = NAN;
    out->err = (cosa_errors){NAN, NAN, NAN, 0};
    out->nsteps = 0;
    out->iter = (cosa_iter_info){0, NAN, NAN, NAN, NAN};
    out->rho_tol = COSA_RHO_TOL;
    if (!isfinite(dt) || ((want & COSA_WANT_ERRORS) && !isfinite(tend)))
        return COSA_ENONFINITE;
    if (!(dt > 0.0))
        return COSA_ERANGE;
    if (!cosa_system_is_valid(sys))
        return COSA_EALGLOOP; /* I - D L singular (or a half-done update) */
    if (w->cancel && cosa_cancel_requested(w->cancel))
        return COSA_ECANCELLED;
    cosa_layout lay;
    cosa_status st = cosa_layout_get(sys, s, &lay);
    if (st != COSA_OK)
        return st;
    if (s->order > w->pmax || lay.dim > w->dimmax || lay.nx != w->nx)
        return COSA_EWORKSPACE;
    size_t n = lay.dim;
    if (want & COSA_WANT_ERRORS) {
        double steps = tend > 0.0 ? nearbyint(tend / dt) : 0.0;
        if (!(steps >= 1.0) || steps > 1e15)
            return COSA_ERANGE;
        out->nsteps = (size_t)steps;
    }

    if (want & COSA_WANT_ERRORS)
        want |= COSA_WANT_RHO_REF;
    stage(w, "start", n);
    if (want & COSA_WANT_RHO_REF) {
        /* Phi* and rho(Phi*) from its state block (eig(Phi*) = eig(A*_d) u {0}). */
        stage(w, "Phi*", n);
        st = cosa_phi_ref_build(sys, s, dt, w->Phistar, n, w->phi);
        if (st != COSA_OK)
            return st;
        stage(w, "rho(Phi*)", lay.nx);
        dense_copy(lay.nx, lay.nx, w->Phistar, n, w->copy, lay.nx);
        st = cosa_spectral_radius(lay.nx, w->copy, lay.nx, &out->rho_ref, w->eig);
        if (st != COSA_OK)
            return st;
    }

    /* rho(Phi): for Jacobi schemes from the deflated Phi_d (lib/phi/deflate.c:
     * the same nonzero eigenvalues, a smaller dgeev, no full Phi needed).
     * The deflation assumes the correction uses the true system; with an
     * assumed model (s->model) the full Phi is used. */
    const int jacobi = s->exec == COSA_JACOBI && !s->implicit &&
                       !(s->model && s->model != sys && (s->corr & COSA_CORR_OUTPUT));
    const int built =
        (want & COSA_WANT_ERRORS) || (!jacobi && (want & (COSA_WANT_RHO | COSA_WANT_RHO_REF)));
    if (built) {
        stage(w, "Phi", n);
        st = cosa_phi_build(sys, s, dt, w->Phi, n, w->phi);
        if (st != COSA_OK)
            return st;
    }
    if (have_rho && (want & (COSA_WANT_RHO | COSA_WANT_ERRORS))) {
        out->rho = given_rho;
    } else if (want & (COSA_WANT_RHO | COSA_WANT_ERRORS)) {
        stage(w, "rho(Phi)", n);
        if (jacobi) {
            st = deflate_rho(sys, s, dt, &out->rho, w->defl);
        } else {
            dense_copy(n, n, w->Phi, n, w->copy, n);
            st = cosa_spectral_radius(n, w->copy, n, &out->rho, w->eig);
        }
        if (st != COSA_OK)
            return st;
    }
    if ((want & (COSA_WANT_RHO | COSA_WANT_ERRORS)) &&
        (st = rho_rounding(sys, s, dt, n, built, out, w)) != COSA_OK)
        return st;
    if (want & COSA_WANT_ITER) {
        stage(w, "M (iteration)", lay.ny);
        if ((st = cosa_phi_iter_info(sys, s, dt, &out->iter, w->phi)) != COSA_OK)
            return st;
    }
    if ((want & COSA_WANT_RHO_REF) && out->rho_ref > 1.0 + COSA_RHO_TOL) {
        /* the same rounding bound for A*_d (a free mass: the eigenvalue 1) */
        double b = 0.0;
        if (out->rho_ref <= 1.0 + COSA_RHO_NEAR &&
            (st = cosa_eig_rounding_bound(lay.nx, w->Phistar, n, &b)) != COSA_OK)
            return st;
        if (out->rho_ref > 1.0 + fmin(fmax(COSA_RHO_TOL, b), COSA_RHO_NEAR))
            return COSA_EUNSTABLEREF;
    }
    if (want & COSA_WANT_ERRORS) {
        /* reference trajectory in state form (doc/method.md, section 8):
         * z*_n = T q_n, q_n = A*_d^n x0, z0 = T x0 */
        stage(w, "reference basis", n);
        st = cosa_phi_ref_basis(sys, s, dt, w->T, n, w->phi);
        if (st != COSA_OK)
            return st;
        dense_copy(lay.nx, lay.nx, w->Phistar, n, w->Adstar, lay.nx);
        stage(w, "NRMSE", n);
        /* COSA_WANT_RUN: the run's values whatever rho (cosa_nrmse's
         * COSA_RHO_UNKNOWN) */
        const double rho = (want & COSA_WANT_RUN)               ? COSA_RHO_UNKNOWN
                           : out->rho <= 1.0 + out->rho_tol ? fmin(out->rho, 1.0)
                                                             : out->rho;
        st = cosa_nrmse(n, w->Phi, w->Phistar, n, &lay, lay.nx, w->Adstar, lay.nx, w->T, n, x0,
                        out->nsteps, rho, &out->err, NULL, w->nrmse);
        if (st != COSA_OK)
            return st;
    }
    return COSA_OK;
}
