/* reftraj.c -- the reference trajectory of a time-domain co-simulation: the
 * monolithic solution sampled at the macro points t_k = k H:
 *   exact  (linear systems): x_{k+1} = e^{A* H} x_k, y_k = C* x_k (eq 35);
 *   CVODE  (any unit set):   the coupled system as one ODE,
 *          x' = f(t, x, L y),  y = g(t, x, L y) solved by Newton inside the
 *          right-hand side (warm-started from the previous solution),
 *          BDF with a dense linear solver (difference-quotient Jacobian),
 *          stopped exactly at every sample (CVodeSetStopTime). */
#include "td/unit_impl.h"
#include "core/dense.h"
#include "td/unitset_impl.h"
#include "td/reftraj_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

void cosa_reftraj_free(cosa_reftraj *r)
{
    if (!r)
        return;
    free(r->x);
    free(r->y);
    free(r);
}

cosa_status reftraj_alloc(size_t nx, size_t ny, size_t nsamples, double H, cosa_reftraj **out)
{
    cosa_reftraj *r = calloc(1, sizeof *r);
    if (!r)
        return COSA_ENOMEM;
    r->nx = nx;
    r->ny = ny;
    r->nsamples = nsamples;
    r->H = H;
    r->x = calloc(nx * nsamples + 1, sizeof(double));
    r->y = calloc(ny * nsamples + 1, sizeof(double));
    if (!r->x || !r->y) {
        cosa_reftraj_free(r);
        return COSA_ENOMEM;
    }
    *out = r;
    return COSA_OK;
}

/* Sample times: strictly increasing from times[0] = 0 (the _at variants). */
static int times_ok(size_t n, const double *times)
{
    if (times[0] != 0.0)
        return 0;
    for (size_t k = 1; k < n; k++)
        if (!isfinite(times[k]) || !(times[k] > times[k - 1]))
            return 0;
    return 1;
}

/* The exact reference at t_k = k H (times NULL: x_{k+1} = exp(A* H) x_k,
 * one exponential) or at the given times (x(t_k) = exp(A* t_k) x0, one
 * exponential per sample: no error accumulates over the samples). */
static cosa_status exact_run(const cosa_system *sys, const double *x0, double H,
                             const double *times, size_t nsamples, cosa_reftraj **out)
{
    const size_t nx = cosa_system_nx(sys), ny = cosa_system_ny(sys);
    if (!dense_isfinite(nx, 1, x0, nx))
        return COSA_ENONFINITE;
    cosa_reftraj *r = NULL;
    cosa_status st = reftraj_alloc(nx, ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    r->exact = 1;
    double *As = calloc(3 * nx * nx + ny * nx + 1, sizeof(double));
    cosa_expm_workspace *ew = cosa_expm_workspace_alloc(nx ? nx : 1);
    if (!As || !ew) {
        st = COSA_ENOMEM;
        goto done;
    }
    double *Cs = As + nx * nx, *M = Cs + ny * nx, *Ad = M + nx * nx;
    if ((st = cosa_system_monolithic(sys, As, Cs)) != COSA_OK)
        goto done;
    memcpy(r->x, x0, nx * sizeof *x0);
    for (size_t k = 0; k < nsamples; k++) {
        if (k > 0 && (times || k == 1)) { /* exp(A* t_k), or exp(A* H) once */
            const double tau = times ? times[k] : H;
            for (size_t c = 0; c < nx * nx; c++)
                M[c] = tau * As[c];
            if (nx && (st = cosa_expm(nx, M, nx, Ad, nx, ew)) != COSA_OK)
                goto done;
        }
        if (k > 0)
            dense_gemv(nx, nx, 1.0, Ad, nx, times ? x0 : r->x + (k - 1) * nx, 0.0,
                       r->x + k * nx);
        dense_gemv(ny, nx, 1.0, Cs, ny, r->x + k * nx, 0.0, r->y + k * ny);
    }
    if (!dense_isfinite(nx, nsamples, r->x, nx) || !dense_isfinite(ny, nsamples, r->y, ny))
        st = COSA_ENOTCONVERGED;
done:
    free(As);
    cosa_expm_workspace_free(ew);
    if (st == COSA_OK)
        *out = r;
    else
        cosa_reftraj_free(r);
    return st;
}

cosa_status cosa_reftraj_exact(const cosa_system *sys, const double *x0, double H,
                                 size_t nsamples, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!sys || !x0 || nsamples == 0)
        return COSA_EINVAL;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    return exact_run(sys, x0, H, NULL, nsamples, out);
}

cosa_status cosa_reftraj_exact_at(const cosa_system *sys, const double *x0, size_t nsamples,
                                  const double *times, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!sys || !x0 || !times || nsamples == 0)
        return COSA_EINVAL;
    if (!times_ok(nsamples, times))
        return COSA_ERANGE;
    return exact_run(sys, x0, 0.0, times, nsamples, out);
}

/* ---- CVODE reference ------------------------------------------------------- */

struct refctx {
    cosa_unitset *set;
    const double *times;    /* sample times, or NULL: k H */
    size_t nx, nu, ny;
    double *y, *u;          /* ny (warm start of the loop), nu */
    /* the Jacobian of the coupled right-hand side (ref_jac) */
    double *jA, *jB, *jC, *jD, *jU, *jM, *jZ, *jW; /* stacked; U = du/dy; scratch */
    lapack_int *jpiv;
    /* stored states (NULL: all) and the amplitudes seen at the samples */
    const size_t *sel;
    size_t nsel;
    double *amp;            /* nx */
    int banded;
    size_t blo, bup;
    char msg[160];
};

/* store the selected states of x as sample k and track the amplitudes */
static void ref_store(struct refctx *c, cosa_reftraj *r, size_t k, const double *x)
{
    for (size_t i = 0; i < c->nx; i++)
        c->amp[i] = fmax(c->amp[i], fabs(x[i]));
    if (!c->sel)
        memcpy(r->x + k * c->nx, x, c->nx * sizeof *x);
    else
        for (size_t j = 0; j < c->nsel; j++)
            r->x[j + k * c->nsel] = x[c->sel[j]];
}

/* Outputs and inputs at (t, x): the algebraic loop, warm-started. */
static cosa_status ref_outputs(struct refctx *c, double t, const double *x)
{
    cosa_status st = cosa_unitset_loop_solve(c->set, t, x, c->y);
    if (st != COSA_OK) {
        /* the warm start may be far off after a rejected step: retry from 0 */
        memset(c->y, 0, c->ny * sizeof *c->y);
        st = cosa_unitset_loop_solve(c->set, t, x, c->y);
    }
    if (st == COSA_OK && c->nu) /* u = L y, or S phi(t, y) (coupling variables) */
        st = cosa_unitset_inputs(c->set, t, c->y, c->u, NULL);
    return st;
}

static int ref_rhs(sunrealtype t, N_Vector X, N_Vector Xdot, void *ud)
{
    struct refctx *c = ud;
    const double *x = N_VGetArrayPointer(X);
    double *xd = N_VGetArrayPointer(Xdot);
    if (!dense_isfinite(c->nx, 1, x, c->nx))
        return 1;
    if (ref_outputs(c, t, x) != COSA_OK)
        return 1; /* recoverable: CVODE retries with a smaller step */
    for (size_t i = 0; i < cosa_unitset_count(c->set); i++) {
        cosa_unit *un = cosa_unitset_unit(c->set, i);
        size_t ox, ou;
        cosa_unitset_offsets(c->set, i, &ox, &ou, NULL);
        /* a failed evaluation (e.g. an exponential contact force that
         * overflows beyond the step CVODE tried) is recoverable: CVODE
         * retries with a smaller step */
        if (un->nx && cosa_unit_eval(un, t, x + ox, c->u + ou, xd + ox, NULL) != COSA_OK)
            return 1;
    }
    return dense_isfinite(c->nx, 1, xd, c->nx) ? 0 : 1;
}

/* J = df/dx of the coupled system x' = f(t, x, u(y)), y = g(t, x, u(y)):
 * with the units' A, B, C, D (block diagonal) and U = du/dy,
 *   dy/dx = Z = (I - D U)^{-1} C,   J = A + B U Z.
 * Analytic wherever the units' Jacobians are (CVODE's difference quotients
 * fail on stiff exponential contact forces). */
static int ref_jac(sunrealtype t, N_Vector X, N_Vector fy, SUNMatrix Jm, void *ud, N_Vector t1,
                   N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    struct refctx *c = ud;
    const size_t nx = c->nx, nu = c->nu, ny = c->ny;
    const double *x = N_VGetArrayPointer(X);
    if (!dense_isfinite(nx, 1, x, nx) || ref_outputs(c, t, x) != COSA_OK)
        return 1;
    if (nu && cosa_unitset_inputs(c->set, t, c->y, c->u, c->jU) != COSA_OK)
        return 1;
    memset(c->jA, 0, nx * nx * sizeof *c->jA);
    memset(c->jB, 0, (nx * nu + ny * nx + ny * nu) * sizeof *c->jB);
    for (size_t i = 0; i < cosa_unitset_count(c->set); i++) {
        cosa_unit *un = cosa_unitset_unit(c->set, i);
        size_t ox, ou, oy;
        cosa_unitset_offsets(c->set, i, &ox, &ou, &oy);
        double *A = c->jW, *B = A + un->nx * un->nx, *C = B + un->nx * un->nu,
               *D = C + un->ny * un->nx;
        if (cosa_unit_jacobian(un, t, x + ox, c->u + ou, 0, un->nx ? A : NULL,
                               un->nx && un->nu ? B : NULL, un->ny && un->nx ? C : NULL,
                               un->ny && un->nu ? D : NULL) != COSA_OK)
            return 1;
        dense_copy(un->nx, un->nx, A, un->nx, c->jA + ox + ox * nx, nx);
        dense_copy(un->nx, un->nu, B, un->nx, c->jB + ox + ou * nx, nx);
        dense_copy(un->ny, un->nx, C, un->ny, c->jC + oy + ox * ny, ny);
        dense_copy(un->ny, un->nu, D, un->ny, c->jD + oy + ou * ny, ny);
    }
    double *Jd = SUNDenseMatrix_Data(Jm);
    memcpy(Jd, c->jA, nx * nx * sizeof *Jd);
    if (nu && ny) {
        /* M = I - D U; Z = M^{-1} C */
        dense_identity(ny, c->jM, ny);
        dense_gemm('N', 'N', ny, ny, nu, -1.0, c->jD, ny, c->jU, nu, 1.0, c->jM, ny);
        memcpy(c->jZ, c->jC, ny * nx * sizeof *c->jZ);
        if (dense_lu(ny, c->jM, ny, c->jpiv) != 0)
            return 1;
        dense_lu_solve(ny, nx, c->jM, ny, c->jpiv, c->jZ, ny);
        /* J += B (U Z): U Z is nu x nx, kept in jW */
        dense_gemm('N', 'N', nu, nx, ny, 1.0, c->jU, nu, c->jZ, ny, 0.0, c->jW, nu);
        dense_gemm('N', 'N', nx, nx, nu, 1.0, c->jB, nx, c->jW, nu, 1.0, Jd, nx);
    }
    return dense_isfinite(nx, nx, Jd, nx) ? 0 : 1;
}

static void ref_err(int code, const char *module, const char *function, char *msg, void *ud)
{
    struct refctx *c = ud;
    if (code < 0)
        snprintf(c->msg, sizeof c->msg, "CVODE %s: %s", function, msg);
}

/* One pass from x0 with absolute tolerances atol (nx) into r. */
static cosa_status ref_pass(struct refctx *c, SUNContext ctx, const double *x0,
                            const double *atol, double rtol, cosa_reftraj *r)
{
    const size_t nx = c->nx;
    cosa_status st = COSA_ENOMEM;
    N_Vector y = N_VNew_Serial((sunindextype)nx, ctx);
    N_Vector av = N_VNew_Serial((sunindextype)nx, ctx);
    SUNMatrix J = c->banded ? SUNBandMatrix((sunindextype)nx, (sunindextype)c->bup,
                                            (sunindextype)c->blo, ctx)
                            : SUNDenseMatrix((sunindextype)nx, (sunindextype)nx, ctx);
    SUNLinearSolver LS = !y || !J ? NULL
                         : c->banded ? SUNLinSol_Band(y, J, ctx) : SUNLinSol_Dense(y, J, ctx);
    void *mem = CVodeCreate(CV_BDF, ctx);
    if (!y || !av || !J || !LS || !mem)
        goto done;
    N_VEnableFusedOps_Serial(y, SUNTRUE); /* as lib/td/integrator_cvode.c */
    CVodeSetErrHandlerFn(mem, ref_err, c);
    memcpy(N_VGetArrayPointer(y), x0, nx * sizeof *x0);
    memcpy(N_VGetArrayPointer(av), atol, nx * sizeof *atol);
    if (CVodeInit(mem, ref_rhs, 0.0, y) != CV_SUCCESS ||
        CVodeSVtolerances(mem, rtol, av) != CV_SUCCESS ||
        CVodeSetLinearSolver(mem, LS, J) != CV_SUCCESS)
        goto done;
    CVodeSetUserData(mem, c);
    if (c->jA && CVodeSetJacFn(mem, ref_jac) != CV_SUCCESS)
        goto done;
    CVodeSetMaxNumSteps(mem, 10000000L);
    ref_store(c, r, 0, x0);
    if (c->times && r->nsamples > 1 &&
        CVodeSetStopTime(mem, c->times[r->nsamples - 1]) != CV_SUCCESS)
        goto done;
    for (size_t k = 1; k < r->nsamples; k++) {
        const double tk = c->times ? c->times[k] : (double)k * r->H;
        sunrealtype tret;
        /* equidistant samples stop the integrator at each one; the many
         * non-uniform samples of a controlled run (the _at/_sel variants) are
         * read from CVODE's own interpolant (error of the order of its local
         * error), which stops only at the last (set before the loop) */
        int flag = c->times ? CV_SUCCESS : CVodeSetStopTime(mem, tk);
        if (flag == CV_SUCCESS)
            flag = CVode(mem, tk, y, &tret, CV_NORMAL);
        if (flag < 0) {
            st = COSA_ENOTCONVERGED;
            goto done;
        }
        ref_store(c, r, k, N_VGetArrayPointer(y));
    }
    long ns = 0;
    CVodeGetNumSteps(mem, &ns);
    r->nsteps = ns;
    st = COSA_OK;
done:
    if (mem)
        CVodeFree(&mem);
    if (LS)
        SUNLinSolFree(LS);
    if (J)
        SUNMatDestroy(J);
    if (y)
        N_VDestroy(y);
    if (av)
        N_VDestroy(av);
    return st;
}

/* atol_i = rtol max(m_i, 1e-6 max_j m_j), rtol if every m_i is 0. */
static void scaled_atol(size_t nx, const double *m, double rtol, double *atol)
{
    double mmax = 0.0;
    for (size_t i = 0; i < nx; i++)
        mmax = fmax(mmax, m[i]);
    for (size_t i = 0; i < nx; i++)
        atol[i] = rtol * (mmax > 0.0 ? fmax(m[i], 1e-6 * mmax) : 1.0);
}

static cosa_status reftraj_cvode_run(cosa_unitset *set, const double *x0, double H,
                                     const double *times, size_t nsamples, double rtol,
                                     size_t nsel, const size_t *sel, cosa_reftraj **out);

cosa_status cosa_reftraj_cvode(cosa_unitset *set, const double *x0, double H, size_t nsamples,
                               double rtol, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    return reftraj_cvode_run(set, x0, H, NULL, nsamples, rtol, 0, NULL, out);
}

cosa_status cosa_reftraj_cvode_at(cosa_unitset *set, const double *x0, size_t nsamples,
                                  const double *times, double rtol, cosa_reftraj **out)
{
    return cosa_reftraj_cvode_sel(set, x0, nsamples, times, rtol, 0, NULL, out);
}

cosa_status cosa_reftraj_cvode_sel(cosa_unitset *set, const double *x0, size_t nsamples,
                                   const double *times, double rtol, size_t nsel,
                                   const size_t *sel, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!times || nsamples == 0 || (nsel && !sel))
        return COSA_EINVAL;
    if (!times_ok(nsamples, times))
        return COSA_ERANGE;
    for (size_t j = 0; j < nsel; j++)
        if (sel[j] >= cosa_unitset_nx(set))
            return COSA_ERANGE;
    return reftraj_cvode_run(set, x0, 0.0, times, nsamples, rtol, nsel, sel, out);
}

static cosa_status reftraj_cvode_run(cosa_unitset *set, const double *x0, double H,
                                     const double *times, size_t nsamples, double rtol,
                                     size_t nsel, const size_t *sel, cosa_reftraj **out)
{
    if (!set || nsamples == 0)
        return COSA_EINVAL;
    struct refctx c = {.set = set, .times = times, .nx = cosa_unitset_nx(set),
                       .nu = cosa_unitset_nu(set), .ny = cosa_unitset_ny(set)};
    if (c.nx && !x0)
        return COSA_EINVAL;
    if (!isfinite(rtol) || !(rtol > 0.0))
        return COSA_ERANGE;
    if (!dense_isfinite(c.nx, 1, x0, c.nx))
        return COSA_ENONFINITE;
    cosa_reftraj *r = NULL;
    /* with a selection: only those states are kept, and no outputs */
    c.sel = sel;
    c.nsel = nsel;
    c.banded = cosa_unitset_band(set, &c.blo, &c.bup);
    cosa_status st = reftraj_alloc(sel ? nsel : c.nx, sel ? 0 : c.ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    r->rtol = rtol;
    SUNContext ctx = NULL;
    double *work = calloc(3 * c.nx + c.ny + c.nu + 1, sizeof(double));
    if (!work) {
        st = COSA_ENOMEM;
        goto done;
    }
    double *m = work, *atol = m + c.nx;
    c.y = atol + c.nx;
    c.u = c.y + c.ny;
    c.amp = c.u + c.nu;
    /* the analytic Jacobian's workspace (dense; left out for huge systems:
     * CVODE's difference quotients then) */
    double *jwork = NULL;
    {
        const size_t nx = c.nx, nu = c.nu, ny = c.ny;
        size_t wmax = nu * nx;
        for (size_t i = 0; i < cosa_unitset_count(set); i++) {
            const cosa_unit *un = cosa_unitset_unit(set, i);
            const size_t w = un->nx * un->nx + un->nx * un->nu + un->ny * un->nx + un->ny * un->nu;
            wmax = w > wmax ? w : wmax;
        }
        const size_t total = nx * nx + nx * nu + 2 * ny * nx + ny * nu + nu * ny + ny * ny + wmax;
        if (nx && !c.banded && total < ((size_t)1 << 27))
            jwork = calloc(total + 1, sizeof(double));
        c.jpiv = jwork ? calloc(ny + 1, sizeof *c.jpiv) : NULL;
        if (jwork && c.jpiv) {
            double *q = jwork;
            c.jA = q, q += nx * nx;
            c.jB = q, q += nx * nu;
            c.jC = q, q += ny * nx;
            c.jD = q, q += ny * nu;
            c.jU = q, q += nu * ny;
            c.jM = q, q += ny * ny;
            c.jZ = q, q += ny * nx;
            c.jW = q;
        } else {
            free(jwork);
            free(c.jpiv);
            jwork = NULL;
            c.jpiv = NULL;
        }
    }
    if (SUNContext_Create(NULL, &ctx) != 0) {
        st = COSA_ENOMEM;
        goto done;
    }
    if (c.nx) {
        /* pass 1: scales from x0; pass 2: from the amplitudes of pass 1 */
        for (size_t i = 0; i < c.nx; i++)
            m[i] = fabs(x0[i]);
        for (int pass = 0; pass < 2; pass++) {
            scaled_atol(c.nx, m, rtol, atol);
            memset(c.y, 0, c.ny * sizeof *c.y);
            memset(c.amp, 0, c.nx * sizeof *c.amp);
            if ((st = ref_pass(&c, ctx, x0, atol, rtol, r)) != COSA_OK)
                goto done;
            for (size_t i = 0; i < c.nx; i++)
                m[i] = fmax(m[i], c.amp[i]);
        }
    }
    memset(c.y, 0, c.ny * sizeof *c.y);
    for (size_t k = 0; !sel && k < nsamples; k++) {
        if ((st = ref_outputs(&c, times ? times[k] : (double)k * H, r->x + k * c.nx)) !=
            COSA_OK)
            goto done;
        memcpy(r->y + k * c.ny, c.y, c.ny * sizeof *c.y);
    }
done:
    if (ctx)
        SUNContext_Free(&ctx);
    free(work);
    free(c.jA);
    free(c.jpiv);
    if (st == COSA_OK)
        *out = r;
    else
        cosa_reftraj_free(r);
    return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
}
