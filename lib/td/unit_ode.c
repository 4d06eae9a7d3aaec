/* unit_ode.c -- a nonlinear subsystem x' = f(t, x, u), y = g(t, x, u) (C
 * callbacks, cosa_ode) as a co-simulation unit, integrated over each macro
 * step by one of
 *   CVODE (SUNDIALS >= 6): BDF or Adams-Moulton, Newton with a dense linear
 *         solver (analytic df/dx when the subsystem has Jacobians), restarted
 *         at every macro step because the input polynomial changes there;
 *   RK4:  classical Runge-Kutta, order 4;
 *   symplectic Euler: v_{k+1} = v_k + hm f_v(t_k, s_k, v_k), then
 *         s_{k+1} = s_k + hm f_s(t_k, s_k, v_{k+1}) -- the kicked states
 *         (ode->kick) first, the rest with the kicked values; order 1;
 *   forward Euler: order 1;
 * the fixed-step methods with ceil(h / hmicro) equal micro steps hm.
 * The input is the unit's polynomial evaluated at each stage time. */
#include "td/unit_impl.h"
#include "core/dense.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#define MICRO_DEFAULT 100        /* micro steps per macro step when hmicro <= 0 */
#define CVODE_MAXSTEPS 1000000L  /* internal steps per macro step              */

/* ---- integrator descriptors ------------------------------------------------- */

static const struct {
    const char *name;
    cosa_integrator_kind kind;
} integrator_names[] = {
    {"exact", COSA_INTEGRATOR_EXACT},
    {"cvode-bdf", COSA_INTEGRATOR_CVODE_BDF},
    {"cvode-adams", COSA_INTEGRATOR_CVODE_ADAMS},
    {"rk4", COSA_INTEGRATOR_RK4},
    {"symplectic-euler", COSA_INTEGRATOR_SYMPLECTIC_EULER},
    {"euler", COSA_INTEGRATOR_EULER},
    {"cvode", COSA_INTEGRATOR_CVODE_BDF}, /* alias, parse only */
};

const char *cosa_integrator_name(cosa_integrator_kind kind)
{
    for (size_t i = 0; i < sizeof integrator_names / sizeof integrator_names[0]; i++)
        if (integrator_names[i].kind == kind)
            return integrator_names[i].name;
    return "?";
}

cosa_status cosa_integrator_parse(const char *name, cosa_integrator *out)
{
    if (!name || !out)
        return COSA_EINVAL;
    for (size_t i = 0; i < sizeof integrator_names / sizeof integrator_names[0]; i++) {
        const char *a = integrator_names[i].name, *b = name;
        while (*a && *b && tolower((unsigned char)*b) == *a)
            a++, b++;
        if (!*a && !*b) {
            *out = (cosa_integrator){.kind = integrator_names[i].kind, .rtol = 1e-10,
                                     .atol = 0.0, .hmicro = 0.0};
            return COSA_OK;
        }
    }
    return COSA_EINVAL;
}

/* ---- the unit ------------------------------------------------------------------ */

struct ode_impl {
    cosa_ode ode;             /* copy; kick points to our copy            */
    unsigned char *kick;      /* nx flags or NULL                          */
    cosa_integrator integ;
    double *k1, *k2, *k3, *k4, *xt; /* nx each: stages                    */
    double *uw;               /* nu: input at a stage                      */
    double *scale;            /* nx: largest |x_i| at macro points so far  */
    double *jA, *jB, *jC, *jD;/* Jacobian scratch                          */
    double *buf;
    /* CVODE */
    SUNContext ctx;
    void *mem;
    N_Vector y, atolv;
    SUNMatrix J;
    SUNLinearSolver LS;
};

static void destroy(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    if (!oi)
        return;
    if (oi->mem)
        CVodeFree(&oi->mem);
    if (oi->LS)
        SUNLinSolFree(oi->LS);
    if (oi->J)
        SUNMatDestroy(oi->J);
    if (oi->y)
        N_VDestroy(oi->y);
    if (oi->atolv)
        N_VDestroy(oi->atolv);
    if (oi->ctx)
        SUNContext_Free(&oi->ctx);
    free(oi->kick);
    free(oi->buf);
    free(oi);
    u->impl = NULL;
}

static cosa_status callback_failed(cosa_unit *u, const char *what, int rc, double t)
{
    cosa_unit_fail(u, "%s returned %d at t = %.17g", what, rc, t);
    return COSA_ENOTCONVERGED;
}

static cosa_status eval(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y)
{
    struct ode_impl *oi = u->impl;
    int rc;
    if (xdot && (rc = oi->ode.f(t, x, uin, xdot, oi->ode.user_data)) != 0)
        return callback_failed(u, "f", rc, t);
    if (y && (rc = oi->ode.g(t, x, uin, y, oi->ode.user_data)) != 0)
        return callback_failed(u, "g", rc, t);
    return COSA_OK;
}

static cosa_status jac(cosa_unit *u, double t, const double *x, const double *uin, double *A,
                       double *B, double *C, double *D)
{
    struct ode_impl *oi = u->impl;
    int rc = oi->ode.jac(t, x, uin, A ? A : oi->jA, B ? B : oi->jB, C ? C : oi->jC,
                         D ? D : oi->jD, oi->ode.user_data);
    return rc ? callback_failed(u, "jacobian", rc, t) : COSA_OK;
}

/* f at time u->t + tau with the input polynomial at tau. */
static int rhs_at(cosa_unit *u, double tau, const double *x, double *xdot)
{
    struct ode_impl *oi = u->impl;
    cosa_unit_input_at(u, tau, oi->uw);
    return oi->ode.f(u->t + tau, x, oi->uw, xdot, oi->ode.user_data);
}

static size_t micro_steps(const cosa_unit *u, double h)
{
    const struct ode_impl *oi = u->impl;
    if (!(oi->integ.hmicro > 0.0))
        return MICRO_DEFAULT;
    double n = ceil(h / oi->integ.hmicro * (1.0 - 1e-12));
    return n < 1.0 ? 1 : (size_t)n;
}

/* Fixed-step methods: RK4, symplectic Euler, forward Euler. */
static cosa_status step_fixed(cosa_unit *u, double h, double *x)
{
    struct ode_impl *oi = u->impl;
    const size_t nx = u->nx, nsub = micro_steps(u, h);
    const double hm = h / (double)nsub;
    int rc = 0;
    memcpy(x, u->x, nx * sizeof *x);
    for (size_t k = 0; k < nsub && rc == 0; k++) {
        const double tau = (double)k * hm;
        switch (oi->integ.kind) {
        case COSA_INTEGRATOR_RK4:
            if ((rc = rhs_at(u, tau, x, oi->k1)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                oi->xt[i] = x[i] + 0.5 * hm * oi->k1[i];
            if ((rc = rhs_at(u, tau + 0.5 * hm, oi->xt, oi->k2)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                oi->xt[i] = x[i] + 0.5 * hm * oi->k2[i];
            if ((rc = rhs_at(u, tau + 0.5 * hm, oi->xt, oi->k3)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                oi->xt[i] = x[i] + hm * oi->k3[i];
            if ((rc = rhs_at(u, tau + hm, oi->xt, oi->k4)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                x[i] += hm / 6.0 * (oi->k1[i] + 2.0 * oi->k2[i] + 2.0 * oi->k3[i] + oi->k4[i]);
            break;
        case COSA_INTEGRATOR_SYMPLECTIC_EULER:
            if ((rc = rhs_at(u, tau, x, oi->k1)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                if (oi->kick[i])
                    x[i] += hm * oi->k1[i];
            if ((rc = rhs_at(u, tau, x, oi->k2)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                if (!oi->kick[i])
                    x[i] += hm * oi->k2[i];
            break;
        default: /* forward Euler */
            if ((rc = rhs_at(u, tau, x, oi->k1)) != 0)
                break;
            for (size_t i = 0; i < nx; i++)
                x[i] += hm * oi->k1[i];
            break;
        }
    }
    if (rc != 0)
        return callback_failed(u, "f", rc, u->t);
    return COSA_OK;
}

/* ---- CVODE ------------------------------------------------------------------------ */

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    cosa_unit *u = ud;
    return rhs_at(u, t - u->t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1,
                  N_Vector t2, N_Vector t3)
{
    cosa_unit *u = ud;
    struct ode_impl *oi = u->impl;
    cosa_unit_input_at(u, t - u->t, oi->uw);
    /* dense SUNMatrix data: column-major, leading dimension = rows = nx */
    return oi->ode.jac(t, N_VGetArrayPointer(y), oi->uw, SM_DATA_D(J), oi->jB, oi->jC, oi->jD,
                       oi->ode.user_data);
}

static void cv_err(int code, const char *module, const char *function, char *msg, void *ud)
{
    if (code < 0)
        cosa_unit_fail(ud, "CVODE %s: %s", function, msg);
}

static cosa_status cv_setup(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    const sunindextype n = (sunindextype)u->nx;
    if (SUNContext_Create(NULL, &oi->ctx) != 0)
        return COSA_ENOMEM;
    oi->y = N_VNew_Serial(n, oi->ctx);
    oi->atolv = N_VNew_Serial(n, oi->ctx);
    oi->mem = CVodeCreate(oi->integ.kind == COSA_INTEGRATOR_CVODE_ADAMS ? CV_ADAMS : CV_BDF,
                          oi->ctx);
    if (!oi->y || !oi->atolv || !oi->mem)
        return COSA_ENOMEM;
    CVodeSetErrHandlerFn(oi->mem, cv_err, u);
    memcpy(N_VGetArrayPointer(oi->y), u->x, u->nx * sizeof(double));
    N_VConst(oi->integ.rtol, oi->atolv);
    if (CVodeInit(oi->mem, cv_rhs, u->t, oi->y) != CV_SUCCESS ||
        CVodeSVtolerances(oi->mem, oi->integ.rtol, oi->atolv) != CV_SUCCESS)
        return COSA_ENOMEM;
    oi->J = SUNDenseMatrix(n, n, oi->ctx);
    oi->LS = oi->J ? SUNLinSol_Dense(oi->y, oi->J, oi->ctx) : NULL;
    if (!oi->LS || CVodeSetLinearSolver(oi->mem, oi->LS, oi->J) != CV_SUCCESS)
        return COSA_ENOMEM;
    if (oi->ode.jac && CVodeSetJacFn(oi->mem, cv_jac) != CV_SUCCESS)
        return COSA_ENOMEM;
    CVodeSetUserData(oi->mem, u);
    CVodeSetMaxNumSteps(oi->mem, CVODE_MAXSTEPS);
    return COSA_OK;
}

/* Absolute tolerances (cosa.h, cosa_integrator.atol). */
static void cv_atol(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    double *a = N_VGetArrayPointer(oi->atolv);
    if (oi->integ.atol > 0.0) {
        for (size_t i = 0; i < u->nx; i++)
            a[i] = oi->integ.atol;
        return;
    }
    double mmax = 0.0;
    for (size_t i = 0; i < u->nx; i++) {
        oi->scale[i] = fmax(oi->scale[i], fabs(u->x[i]));
        mmax = fmax(mmax, oi->scale[i]);
    }
    for (size_t i = 0; i < u->nx; i++)
        a[i] = oi->integ.rtol * (mmax > 0.0 ? fmax(oi->scale[i], 1e-6 * mmax) : 1.0);
}

static cosa_status step_cvode(cosa_unit *u, double h, double *x)
{
    struct ode_impl *oi = u->impl;
    if (!oi->mem) {
        cosa_status st = cv_setup(u);
        if (st != COSA_OK) {
            cosa_unit_fail(u, "CVODE: setup failed");
            return st;
        }
    }
    const double tend = u->t + h;
    memcpy(N_VGetArrayPointer(oi->y), u->x, u->nx * sizeof(double));
    cv_atol(u);
    sunrealtype tret = u->t;
    int flag = CVodeReInit(oi->mem, u->t, oi->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSVtolerances(oi->mem, oi->integ.rtol, oi->atolv);
    if (flag == CV_SUCCESS)
        flag = CVodeSetStopTime(oi->mem, tend);
    if (flag == CV_SUCCESS)
        flag = CVode(oi->mem, tend, oi->y, &tret, CV_NORMAL);
    if (flag < 0) {
        if (!u->msg[0])
            cosa_unit_fail(u, "CVODE failed with flag %d at t = %.17g", flag, (double)tret);
        return COSA_ENOTCONVERGED;
    }
    memcpy(x, N_VGetArrayPointer(oi->y), u->nx * sizeof(double));
    return COSA_OK;
}

static cosa_status step(cosa_unit *u, double h, double *xnew)
{
    if (u->nx == 0)
        return COSA_OK;
    struct ode_impl *oi = u->impl;
    if (oi->integ.kind == COSA_INTEGRATOR_CVODE_BDF ||
        oi->integ.kind == COSA_INTEGRATOR_CVODE_ADAMS)
        return step_cvode(u, h, xnew);
    return step_fixed(u, h, xnew);
}

/* A new state starts a new run: the tolerance scales start afresh. */
static void reset(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    for (size_t i = 0; i < u->nx; i++)
        oi->scale[i] = 0.0;
}

static const struct cosa_unit_ops ode_ops = {
    .name = "ODE unit", .step = step, .eval = eval, .jac = jac, .destroy = destroy,
    .reset = reset, .linear = 0,
};
static const struct cosa_unit_ops ode_ops_nojac = {
    .name = "ODE unit", .step = step, .eval = eval, .jac = NULL, .destroy = destroy,
    .reset = reset, .linear = 0,
};

cosa_status cosa_unit_ode_create(const cosa_ode *ode, const cosa_integrator *integ,
                                 cosa_unit **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!ode || !integ || (ode->nx && !ode->f) || (ode->ny && !ode->g))
        return COSA_EINVAL;
    if (integ->kind <= COSA_INTEGRATOR_EXACT || integ->kind >= COSA_INTEGRATOR_COUNT)
        return COSA_EUNSUPPORTED;
    if (integ->kind == COSA_INTEGRATOR_SYMPLECTIC_EULER && ode->nx && !ode->kick)
        return COSA_EUNSUPPORTED;
    if (!isfinite(integ->rtol) || !isfinite(integ->atol) || !isfinite(integ->hmicro))
        return COSA_ENONFINITE;
    if ((integ->kind == COSA_INTEGRATOR_CVODE_BDF || integ->kind == COSA_INTEGRATOR_CVODE_ADAMS) &&
        !(integ->rtol > 0.0))
        return COSA_ERANGE;
    cosa_unit *u = NULL;
    cosa_status st = cosa_unit_alloc(ode->jac ? &ode_ops : &ode_ops_nojac, ode->nx, ode->nu,
                                     ode->ny, &u);
    if (st != COSA_OK)
        return st;
    struct ode_impl *oi = calloc(1, sizeof *oi);
    u->impl = oi;
    if (!oi)
        goto nomem;
    const size_t nx = ode->nx, nu = ode->nu, ny = ode->ny;
    oi->ode = *ode;
    oi->integ = *integ;
    oi->buf = calloc(6 * nx + nu + nx * nx + nx * nu + ny * nx + ny * nu + 1, sizeof(double));
    if (!oi->buf)
        goto nomem;
    double *q = oi->buf;
    oi->k1 = q, q += nx;
    oi->k2 = q, q += nx;
    oi->k3 = q, q += nx;
    oi->k4 = q, q += nx;
    oi->xt = q, q += nx;
    oi->scale = q, q += nx;
    oi->uw = q, q += nu;
    oi->jA = q, q += nx * nx;
    oi->jB = q, q += nx * nu;
    oi->jC = q, q += ny * nx;
    oi->jD = q;
    if (ode->kick) {
        oi->kick = malloc(nx + 1);
        if (!oi->kick)
            goto nomem;
        memcpy(oi->kick, ode->kick, nx);
        oi->ode.kick = oi->kick;
    }
    *out = u;
    return COSA_OK;
nomem:
    cosa_unit_free(u);
    return COSA_ENOMEM;
}
