/* integrator_cvode.c -- SUNDIALS CVODE (>= 6) as the integrator of an ODE
 * unit: BDF or Adams-Moulton, Newton with a dense linear solver (analytic
 * df/dx when the subsystem has Jacobians) or, for a banded subsystem
 * (cosa_ode.banded), a band solver with CVODE's band difference quotients, restarted at every macro step
 * because the input polynomial changes there, stopped exactly at its end.
 * Absolute tolerances per state (cosa/td.h, cosa_integrator.atol) come from
 * the largest |x_i| seen at the macro points since the last new state: that
 * is the only state this stepper carries from step to step.
 * A macro step may take CVODE_MAXSTEPS internal steps, counted in chunks of
 * CVODE_CHUNK: a chunk after which t has not moved at all (every step h
 * below half an ulp of t: CVODE's "t + h = t") ends the macro step at once
 * with the error the full budget would have given (mxstep steps, t the
 * same).  In every such step seen (make paper: 1e6 steps of t + h = t, 90 %
 * of the CPU of twomass-ff's implicit runs) t never moved again and the step
 * failed; resuming CVode after a chunk continues the same internal steps, so
 * every other step is unchanged to the bit. */
#include "td/integrator.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#define CVODE_MAXSTEPS 1000000L /* internal steps per macro step */
#define CVODE_CHUNK 2000L       /* steps between the checks that t moves (divides MAXSTEPS) */

struct cvode_state {
    const integrator_type *it;
    struct integ_problem pb;
    size_t nx;
    double *scale;            /* nx: largest |x_i| at macro points so far */
    double *uw;               /* nu: input at a stage                      */
    double *jB, *jC, *jD;     /* Jacobian scratch (df/dx goes into CVODE's J) */
    double *buf;
    SUNContext ctx;
    void *mem;
    N_Vector y, atolv;
    SUNMatrix J;
    SUNLinearSolver LS;
    char toomuch[512];        /* CVODE's mxstep message, until the step ends */
};

static void cvode_free(void *state)
{
    struct cvode_state *cs = state;
    if (!cs)
        return;
    if (cs->mem)
        CVodeFree(&cs->mem);
    if (cs->LS)
        SUNLinSolFree(cs->LS);
    if (cs->J)
        SUNMatDestroy(cs->J);
    if (cs->y)
        N_VDestroy(cs->y);
    if (cs->atolv)
        N_VDestroy(cs->atolv);
    if (cs->ctx)
        SUNContext_Free(&cs->ctx);
    free(cs->buf);
    free(cs);
}

static cosa_status cvode_alloc(const integrator_type *it, const struct integ_problem *pb,
                               void **state)
{
    const size_t nx = pb->ode->nx, nu = pb->ode->nu, ny = pb->ode->ny;
    struct cvode_state *cs = calloc(1, sizeof *cs);
    if (!cs || !(cs->buf = calloc(nx + nu + nx * nu + ny * nx + ny * nu + 1, sizeof(double)))) {
        free(cs);
        return COSA_ENOMEM;
    }
    cs->it = it;
    cs->pb = *pb;
    cs->nx = nx;
    double *q = cs->buf;
    cs->scale = q, q += nx;
    cs->uw = q, q += nu;
    cs->jB = q, q += nx * nu;
    cs->jC = q, q += ny * nx;
    cs->jD = q;
    *state = cs; /* CVODE itself is set up at the first step */
    return COSA_OK;
}

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    struct cvode_state *cs = ud;
    return integ_rhs(&cs->pb, t - cosa_unit_time(cs->pb.u), N_VGetArrayPointer(y),
                     N_VGetArrayPointer(ydot), cs->uw);
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1,
                  N_Vector t2, N_Vector t3)
{
    struct cvode_state *cs = ud;
    const cosa_ode *ode = cs->pb.ode;
    cosa_unit_input_at(cs->pb.u, t - cosa_unit_time(cs->pb.u), cs->uw);
    /* dense SUNMatrix data: column-major, leading dimension = rows = nx */
    return ode->jac(t, N_VGetArrayPointer(y), cs->uw, SM_DATA_D(J), cs->jB, cs->jC, cs->jD,
                    ode->user_data);
}

static void cv_err(int code, const char *module, const char *function, char *msg, void *ud)
{
    struct cvode_state *cs = ud;
    if (code == CV_TOO_MUCH_WORK) /* a chunk's end: the unit fails only if the step ends */
        snprintf(cs->toomuch, sizeof cs->toomuch, "CVODE %s: %s", function, msg);
    else if (code < 0)
        cosa_unit_fail(cs->pb.u, "CVODE %s: %s", function, msg);
}

static cosa_status cv_setup(struct cvode_state *cs)
{
    const sunindextype n = (sunindextype)cs->nx;
    const cosa_integrator *cfg = cs->pb.cfg;
    if (SUNContext_Create(NULL, &cs->ctx) != 0)
        return COSA_ENOMEM;
    cs->y = N_VNew_Serial(n, cs->ctx);
    cs->atolv = N_VNew_Serial(n, cs->ctx);
    cs->mem = CVodeCreate(cs->it->kind == COSA_INTEGRATOR_CVODE_ADAMS ? CV_ADAMS : CV_BDF,
                          cs->ctx);
    if (!cs->y || !cs->atolv || !cs->mem)
        return COSA_ENOMEM;
    /* fused vector operations: one loop for CVODE's linear combinations of
     * the history instead of one call per term (fewer calls on these short
     * vectors; every number of make paper-varorder stayed byte-identical);
     * CVODE's vectors are clones of y */
    N_VEnableFusedOps_Serial(cs->y, SUNTRUE);
    CVodeSetErrHandlerFn(cs->mem, cv_err, cs);
    memcpy(N_VGetArrayPointer(cs->y), cosa_unit_state(cs->pb.u), cs->nx * sizeof(double));
    N_VConst(cfg->rtol, cs->atolv);
    if (CVodeInit(cs->mem, cv_rhs, cosa_unit_time(cs->pb.u), cs->y) != CV_SUCCESS ||
        CVodeSVtolerances(cs->mem, cfg->rtol, cs->atolv) != CV_SUCCESS)
        return COSA_ENOMEM;
    const cosa_ode *ode = cs->pb.ode;
    if (ode->banded) { /* long chains: band matrix, CVODE's band difference quotients */
        cs->J = SUNBandMatrix(n, (sunindextype)ode->band_upper, (sunindextype)ode->band_lower,
                              cs->ctx);
        cs->LS = cs->J ? SUNLinSol_Band(cs->y, cs->J, cs->ctx) : NULL;
    } else {
        cs->J = SUNDenseMatrix(n, n, cs->ctx);
        cs->LS = cs->J ? SUNLinSol_Dense(cs->y, cs->J, cs->ctx) : NULL;
    }
    if (!cs->LS || CVodeSetLinearSolver(cs->mem, cs->LS, cs->J) != CV_SUCCESS)
        return COSA_ENOMEM;
    if (ode->jac && !ode->banded && CVodeSetJacFn(cs->mem, cv_jac) != CV_SUCCESS)
        return COSA_ENOMEM;
    CVodeSetUserData(cs->mem, cs);
    CVodeSetMaxNumSteps(cs->mem, CVODE_CHUNK);
    return COSA_OK;
}

/* Absolute tolerances (cosa/td.h, cosa_integrator.atol). */
static void cv_atol(struct cvode_state *cs)
{
    const cosa_integrator *cfg = cs->pb.cfg;
    const double *x = cosa_unit_state(cs->pb.u);
    double *a = N_VGetArrayPointer(cs->atolv);
    if (cfg->atol > 0.0) {
        for (size_t i = 0; i < cs->nx; i++)
            a[i] = cfg->atol;
        return;
    }
    double mmax = 0.0;
    for (size_t i = 0; i < cs->nx; i++) {
        cs->scale[i] = fmax(cs->scale[i], fabs(x[i]));
        mmax = fmax(mmax, cs->scale[i]);
    }
    for (size_t i = 0; i < cs->nx; i++)
        a[i] = cfg->rtol * (mmax > 0.0 ? fmax(cs->scale[i], 1e-6 * mmax) : 1.0);
}

/* CVode to tend in chunks of CVODE_CHUNK steps, at most CVODE_MAXSTEPS in
 * all; stops early when a whole chunk left t where it was. */
static int cv_chunks(struct cvode_state *cs, double tend, sunrealtype *tret)
{
    int flag = CV_TOO_MUCH_WORK;
    cs->toomuch[0] = '\0';
    for (long taken = 0; flag == CV_TOO_MUCH_WORK && taken < CVODE_MAXSTEPS;
         taken += CVODE_CHUNK) {
        const sunrealtype before = *tret;
        flag = CVode(cs->mem, tend, cs->y, tret, CV_NORMAL);
        if (flag == CV_TOO_MUCH_WORK && *tret == before)
            break; /* t + h = t for CVODE_CHUNK steps: the step is lost */
    }
    if (flag == CV_TOO_MUCH_WORK && cs->toomuch[0])
        cosa_unit_fail(cs->pb.u, "%s", cs->toomuch);
    return flag;
}

static cosa_status cvode_step(const integrator_type *it, const struct integ_problem *pb,
                              void *state, double h, double *x)
{
    struct cvode_state *cs = state;
    cosa_unit *u = pb->u;
    if (!cs->mem) {
        cosa_status st = cv_setup(cs);
        if (st != COSA_OK) {
            cosa_unit_fail(u, "CVODE: setup failed");
            return st;
        }
    }
    const double t0 = cosa_unit_time(u), tend = t0 + h;
    memcpy(N_VGetArrayPointer(cs->y), cosa_unit_state(u), cs->nx * sizeof(double));
    cv_atol(cs);
    sunrealtype tret = t0;
    int flag = CVodeReInit(cs->mem, t0, cs->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSVtolerances(cs->mem, pb->cfg->rtol, cs->atolv);
    if (flag == CV_SUCCESS)
        flag = CVodeSetStopTime(cs->mem, tend);
    if (flag == CV_SUCCESS)
        flag = cv_chunks(cs, tend, &tret);
    if (flag < 0) {
        if (!cosa_unit_message(u)[0])
            cosa_unit_fail(u, "CVODE failed with flag %d at t = %.17g", flag, (double)tret);
        return COSA_ENOTCONVERGED;
    }
    memcpy(x, N_VGetArrayPointer(cs->y), cs->nx * sizeof(double));
    return COSA_OK;
}

/* A new state starts a new run: the tolerance scales start afresh. */
static void cvode_reset(void *state)
{
    struct cvode_state *cs = state;
    for (size_t i = 0; i < cs->nx; i++)
        cs->scale[i] = 0.0;
}

static size_t cvode_saved_len(const struct integ_problem *pb) { return pb->ode->nx; }

static void cvode_save(const void *state, double *buf)
{
    const struct cvode_state *cs = state;
    memcpy(buf, cs->scale, cs->nx * sizeof *buf);
}

static void cvode_restore(void *state, const double *buf)
{
    struct cvode_state *cs = state;
    memcpy(cs->scale, buf, cs->nx * sizeof *buf);
}

#define CVODE_OPS                                                                        \
    .adaptive = 1, .alloc = cvode_alloc, .step = cvode_step,                 \
    .reset = cvode_reset, .saved_len = cvode_saved_len, .save = cvode_save,              \
    .restore = cvode_restore, .free = cvode_free

/* order: the largest order the method may use (BDF 5, Adams 12) */
const integrator_type integrator_cvode_bdf = {
    .name = "cvode-bdf", .kind = COSA_INTEGRATOR_CVODE_BDF, .order = 5, CVODE_OPS,
};
const integrator_type integrator_cvode_adams = {
    .name = "cvode-adams", .kind = COSA_INTEGRATOR_CVODE_ADAMS, .order = 12, CVODE_OPS,
};
