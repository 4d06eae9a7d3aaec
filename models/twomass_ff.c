/* twomass_ff.c -- the nonlinear two-mass oscillator of the variable-order
 * paper, section 6.1 (Fig 10, eq 35), split force/force: the coupling force
 * f^c is the one coupling variable (nc = 1), it acts +f^c on mass 1 and
 * -f^c on mass 2:
 *
 *   subsystem I:  x = [x1, v1], u = [fI],  y = [x1, v1],
 *                 m1 v1' = -c1 x1 - d1 v1 + F_C(x1) + fI,
 *                 F_C(x1) = Acon exp(Bcon x1)   (penalty contact on mass 1);
 *   subsystem II: x = [x2, v2], u = [fII], y = [x2, v2],
 *                 m2 v2' = -c2 x2 - d2 v2 + fII;
 *   coupling (eq 35c): with w = x2 - x1, z = v2 - v1,
 *                 f^c = phi(y) = cc w + dc z + Cc w^3 + Dc z^3,
 *                 u = [fI, fII] = S f^c,  S = [+1; -1].
 * dphi/dy = [-(cc + 3 Cc w^2), -(dc + 3 Dc z^2), cc + 3 Cc w^2, dc + 3 Dc z^2].
 * The system's L (what u = L y schemes and the linear analyses use) is the
 * linear coupling S dphi/dy(0); it is the exact coupling when Cc = Dc = 0.
 * Neither unit has feedthrough (no algebraic loop).
 *
 * F_C overflows for Bcon x1 > ~709.78 (with the paper's Bcon = 1e7: x1 >
 * 7.1e-5 m); then f and the Jacobian return 1 (recoverable: CVODE retries
 * with a smaller step) instead of handing inf to the integrator.
 *
 * No linear form (create/update), on purpose: the defaults are nonlinear,
 * and every command that finds a linear form (cosa_model_is_linear) builds
 * the system from create() -- cosa simulate and cosa defect too, before they
 * turn to create_ode -- so a create() refusing nonlinear parameter values
 * would make the model's own defaults fail in the time domain, and one
 * returning a linearisation would let Phi analyses (point, map, ...) answer
 * silently for another system.  Without one, the Phi commands refuse the
 * model with "model twomass-ff is nonlinear"; its linear case (Cc = Dc =
 * Acon = 0) is the two-mass oscillator that `twomass` covers (with ck = cc,
 * dk = dc), up to the split; there the ODE system is declared linear
 * (cosa_odesys_set_linear), so that the variable-order engine can run exact
 * units and the exact reference on it (--integrator exact). */
#include "builtin.h"
#include "fixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M1, M2, C1, C2, CC, D1, D2, DC, CCUB, DCUB, ACON, BCON, X1, V1, X2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 50.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 1.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C1] = {"c1", 1e5, "N/m", "spring of mass 1 to ground", COSA_PARAM_MODEL},
    [C2] = {"c2", 1e3, "N/m", "spring of mass 2 to ground", COSA_PARAM_MODEL},
    [CC] = {"cc", 1e5, "N/m", "linear coupling stiffness c_c", COSA_PARAM_MODEL},
    [D1] = {"d1", 0.0, "N s/m", "damper of mass 1 to ground", COSA_PARAM_MODEL},
    [D2] = {"d2", 0.0, "N s/m", "damper of mass 2 to ground", COSA_PARAM_MODEL},
    [DC] = {"dc", 0.0, "N s/m", "linear coupling damping d_c", COSA_PARAM_MODEL},
    [CCUB] = {"Cc", 1e5, "N/m^3", "cubic coupling stiffness C_c", COSA_PARAM_MODEL},
    [DCUB] = {"Dc", 1e-2, "Ns^3/m^3", "cubic coupling damping D_c", COSA_PARAM_MODEL},
    [ACON] = {"Acon", -1e-2, "N", "contact force amplitude A (F_C = A exp(B x1))",
              COSA_PARAM_MODEL},
    [BCON] = {"Bcon", 1e7, "1/m", "contact force exponent B (F_C = A exp(B x1))",
              COSA_PARAM_MODEL},
    [X1] = {"x1", -2.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 100.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [X2] = {"x2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", -200.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

struct tmff {
    double p[NPAR];
};

/* F_C(x1) and dF_C/dx1; Acon = 0 gives exactly 0 (no exp, no 0 * inf). */
static void contact(const double *p, double x1, double *F, double *dF)
{
    if (p[ACON] == 0.0) {
        *F = *dF = 0.0;
        return;
    }
    const double e = exp(p[BCON] * x1);
    *F = p[ACON] * e;
    *dF = p[ACON] * p[BCON] * e;
}

static int f1(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const double *p = ((const struct tmff *)ud)->p;
    double F, dF;
    contact(p, x[0], &F, &dF);
    out[0] = x[1];
    out[1] = (-p[C1] * x[0] - p[D1] * x[1] + F + u[0]) / p[M1];
    return isfinite(out[1]) ? 0 : 1;
}

static int f2(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const double *p = ((const struct tmff *)ud)->p;
    out[0] = x[1];
    out[1] = (-p[C2] * x[0] - p[D2] * x[1] + u[0]) / p[M2];
    return isfinite(out[1]) ? 0 : 1;
}

/* Both units output their state. */
static int g_state(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t, (void)u, (void)ud;
    out[0] = x[0];
    out[1] = x[1];
    return 0;
}

/* A = [[0, 1], [(-c + dF)/m, -d/m]], B = [0; 1/m], C = I, D = 0. */
static void jac_mass(double m, double c, double d, double dF, double *A, double *B, double *C,
                     double *D)
{
    A[0] = 0.0;            A[2] = 1.0;
    A[1] = (-c + dF) / m;  A[3] = -d / m;
    B[0] = 0.0;
    B[1] = 1.0 / m;
    C[0] = 1.0; C[2] = 0.0;
    C[1] = 0.0; C[3] = 1.0;
    D[0] = 0.0;
    D[1] = 0.0;
}

static int jac1(double t, const double *x, const double *u, double *A, double *B, double *C,
                double *D, void *ud)
{
    (void)t, (void)u;
    const double *p = ((const struct tmff *)ud)->p;
    double F, dF;
    contact(p, x[0], &F, &dF);
    jac_mass(p[M1], p[C1], p[D1], dF, A, B, C, D);
    return isfinite(A[1]) ? 0 : 1;
}

static int jac2(double t, const double *x, const double *u, double *A, double *B, double *C,
                double *D, void *ud)
{
    (void)t, (void)x, (void)u;
    const double *p = ((const struct tmff *)ud)->p;
    jac_mass(p[M2], p[C2], p[D2], 0.0, A, B, C, D);
    return 0;
}

/* f^c = phi(y), y = [x1, v1, x2, v2] (eq 35c), and dphi/dy (1 x 4). */
static cosa_status phi(void *ctx, double t, const double *y, double *c, double *J)
{
    (void)t;
    const double *p = ((const struct tmff *)ctx)->p;
    const double w = y[2] - y[0], z = y[3] - y[1];
    c[0] = p[CC] * w + p[DC] * z + p[CCUB] * w * w * w + p[DCUB] * z * z * z;
    if (J) {
        const double fw = p[CC] + 3.0 * p[CCUB] * w * w, fz = p[DC] + 3.0 * p[DCUB] * z * z;
        J[0] = -fw;
        J[1] = -fz;
        J[2] = fw;
        J[3] = fz;
    }
    return COSA_OK;
}

static const double S[2] = {1.0, -1.0}; /* fI = +f^c, fII = -f^c */
static const unsigned char kick[2] = {0, 1}; /* x drifts, v is kicked */

static cosa_status create_ode(const cosa_model *m, const double *par, cosa_odesys **out)
{
    (void)m;
    if (!par || !out)
        return COSA_EINVAL;
    *out = NULL;
    if (!(par[M1] > 0.0) || !(par[M2] > 0.0))
        return COSA_EPARAM;
    struct tmff *d = malloc(sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    memcpy(d->p, par, sizeof d->p);
    /* L = S dphi/dy(0) (nu x ny = 2 x 4, column-major) */
    double c0, J0[4], L[8];
    phi(d, 0.0, (const double[4]){0.0, 0.0, 0.0, 0.0}, &c0, J0);
    for (size_t j = 0; j < 4; j++)
        for (size_t i = 0; i < 2; i++)
            L[i + 2 * j] = S[i] * J0[j];
    const cosa_ode subs[2] = {
        {.nx = 2, .nu = 1, .ny = 2, .f = f1, .g = g_state, .jac = jac1, .kick = kick,
         .user_data = d},
        {.nx = 2, .nu = 1, .ny = 2, .f = f2, .g = g_state, .jac = jac2, .kick = kick,
         .user_data = d},
    };
    cosa_status st = cosa_odesys_create(out, 2, subs, L, d, free);
    if (st != COSA_OK)
        return st; /* d released by cosa_odesys_create */
    const cosa_coupling cpl = {.nc = 1, .phi = phi, .S = S, .ctx = d};
    st = cosa_odesys_set_coupling(*out, &cpl);
    /* Cc = Dc = Acon = 0: both units and phi are linear (exact units) */
    if (st == COSA_OK && par[CCUB] == 0.0 && par[DCUB] == 0.0 && par[ACON] == 0.0)
        st = cosa_odesys_set_linear(*out);
    if (st != COSA_OK) {
        cosa_odesys_free(*out);
        *out = NULL;
    }
    return st;
}

static const char *const state_names[] = {"x1", "v1", "x2", "v2"};
static const char *const input_names[] = {"I.fI", "II.fII"};
static const char *const output_names[] = {"x1", "v1", "x2", "v2"};
static const char *const sub_names[] = {"I", "II"};
static const int x0_param[] = {X1, V1, X2, V2};

/* names and x0 only (the ODE form is create_ode's) */
static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 2, .ny = 4, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names,
};

const cosa_model model_twomass_ff = {
    .name = "twomass-ff",
    .doc = "nonlinear two-mass oscillator, force/force split, cubic coupling and contact "
           "(variable-order paper section 6.1, eq 35)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .create_ode = create_ode,
    .initial_state = model_fixed_initial_state,
    MODEL_FIXED_NAME_CALLBACKS,
    .data = &desc,
};
