/* twomass_nl.c -- the nonlinear two-mass oscillator of section 5 of the
 * MBCorr paper: eq 27 with the coupling damping d_k replaced by (eq 43)
 *
 *   d_eff(w) = max(min(d_k |w|^(n_d - 1), d_kmax), d_kmin),   w = v2 - v1
 *
 * (eq 43 writes c_k on the left but the text says the damping is replaced;
 * v2 is subsystem II's state x^II_2, v1 its input u^II_2).  Hence
 *
 *   subsystem I:  x = [s1, v1], u = [F_k], y = [s1, v1],
 *                 m1 v1' = -c1 s1 - d1 v1 + F_k;
 *   subsystem II: x = [s2, v2], u = [s1, v1], y = [F_k],
 *                 F_k = c_k (s2 - s1) + d_eff(w) w,
 *                 m2 v2' = -c2 s2 - d2 v2 - F_k;
 *   coupling as eq 27: u_I = F_k = y_II, u_II = [s1, v1] = y_I.
 * n_d = 1 (with d_kmin <= d_k <= d_kmax) is the linear model twomass.
 *
 * Jacobians (analytic): with F_w = dF_k/dw,
 *   unclamped (d_kmin < d_k |w|^(n_d-1) < d_kmax):  F_w = n_d d_eff(w),
 *   clamped:                                        F_w = d_eff(w),
 * and A_II = [[0, 1], [-(c2 + c_k)/m2, -(d2 + F_w)/m2]], B_II = [[0, 0],
 * [c_k/m2, F_w/m2]], C_II = [c_k, F_w], D_II = [-c_k, -F_w].
 * Kinks: where d_k |w|^(n_d-1) equals a clamp limit exactly, the clamped
 * (one-sided) derivative is used; at w = 0 with n_d > 1 the raw damping is 0,
 * so d_eff = d_kmin and F_w = d_kmin (for n_d < 1 it is d_kmax), which is also
 * the one-sided derivative of F_k there. */
#include "builtin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M1, M2, C1, C2, D1, D2, CK, DK, ND, DKMIN, DKMAX, S1, V1, S2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 10.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 10.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C1] = {"c1", 1e6, "N/m", "spring of mass 1 to ground", COSA_PARAM_MODEL},
    [C2] = {"c2", 1e7, "N/m", "spring of mass 2 to ground", COSA_PARAM_MODEL},
    [D1] = {"d1", 1.0, "N s/m", "damper of mass 1 to ground", COSA_PARAM_MODEL},
    [D2] = {"d2", 2.0, "N s/m", "damper of mass 2 to ground", COSA_PARAM_MODEL},
    [CK] = {"ck", 2e5, "N/m", "coupling stiffness", COSA_PARAM_MODEL},
    [DK] = {"dk", 5e2, "N s/m", "coupling damping coefficient d_k of eq 43", COSA_PARAM_MODEL,
            RANGE_NONNEGATIVE},
    [ND] = {"nd", 1.0, "", "nonlinearity factor n_d of eq 43 (1 = linear)",
            COSA_PARAM_MODEL, RANGE_POSITIVE},
    [DKMIN] = {"dkmin", 10.0, "N s/m", "lower clamp of the coupling damping", COSA_PARAM_MODEL,
               RANGE_NONNEGATIVE},
    [DKMAX] = {"dkmax", 1e4, "N s/m", "upper clamp of the coupling damping", COSA_PARAM_MODEL,
               {COSA_RANGE_GE, 0.0, 0.0, "dkmin", NULL}},
    [S1] = {"s1", 0.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 100.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [S2] = {"s2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", -100.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

struct tmnl {
    double p[NPAR];
};

/* d_eff(w) (eq 43) and F_w = d(d_eff(w) w)/dw. */
static double damping(const double *p, double w, double *Fw)
{
    double raw = p[DK] * pow(fabs(w), p[ND] - 1.0);
    if (!(raw > p[DKMIN])) { /* also NaN-safe: clamps */
        *Fw = p[DKMIN];
        return p[DKMIN];
    }
    if (!(raw < p[DKMAX])) {
        *Fw = p[DKMAX];
        return p[DKMAX];
    }
    *Fw = p[ND] * raw;
    return raw;
}

static double coupling_force(const double *p, const double *x, const double *u, double *Fw)
{
    double w = x[1] - u[1];
    return p[CK] * (x[0] - u[0]) + damping(p, w, Fw) * w;
}

static int f1(double t, const double *x, const double *u, double *out, void *ud)
{
    const double *p = ((const struct tmnl *)ud)->p;
    out[0] = x[1];
    out[1] = (-p[C1] * x[0] - p[D1] * x[1] + u[0]) / p[M1];
    return 0;
}

static int g1(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[0];
    out[1] = x[1];
    return 0;
}

static int jac1(double t, const double *x, const double *u, double *A, double *B, double *C,
              double *D, void *ud)
{
    const double *p = ((const struct tmnl *)ud)->p;
    A[0] = 0.0;            A[2] = 1.0;
    A[1] = -p[C1] / p[M1]; A[3] = -p[D1] / p[M1];
    B[0] = 0.0;
    B[1] = 1.0 / p[M1];
    C[0] = 1.0; C[2] = 0.0;
    C[1] = 0.0; C[3] = 1.0;
    D[0] = 0.0;
    D[1] = 0.0;
    return 0;
}

static int f2(double t, const double *x, const double *u, double *out, void *ud)
{
    const double *p = ((const struct tmnl *)ud)->p;
    double Fw, F = coupling_force(p, x, u, &Fw);
    out[0] = x[1];
    out[1] = (-p[C2] * x[0] - p[D2] * x[1] - F) / p[M2];
    return 0;
}

static int g2(double t, const double *x, const double *u, double *out, void *ud)
{
    double Fw;
    out[0] = coupling_force(((const struct tmnl *)ud)->p, x, u, &Fw);
    return 0;
}

static int jac2(double t, const double *x, const double *u, double *A, double *B, double *C,
              double *D, void *ud)
{
    const double *p = ((const struct tmnl *)ud)->p;
    double Fw;
    damping(p, x[1] - u[1], &Fw);
    A[0] = 0.0;                        A[2] = 1.0;
    A[1] = -(p[C2] + p[CK]) / p[M2];   A[3] = -(p[D2] + Fw) / p[M2];
    B[0] = 0.0;            B[2] = 0.0;
    B[1] = p[CK] / p[M2];  B[3] = Fw / p[M2];
    C[0] = p[CK];
    C[1] = Fw;
    D[0] = -p[CK];
    D[1] = -Fw;
    return 0;
}

/* u = [F_k, s1, v1] = L [s1, v1, F_k] (eq 27). */
static const double coupling[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
static const unsigned char kick[2] = {0, 1}; /* s drifts, v is kicked */

static cosa_status create_ode(const cosa_model *m, const double *par, cosa_odesys **out)
{
    *out = NULL;
    if (!(par[M1] > 0.0) || !(par[M2] > 0.0) || !(par[ND] > 0.0) || !(par[DK] >= 0.0) ||
        !(par[DKMIN] >= 0.0) || !(par[DKMIN] <= par[DKMAX]))
        return COSA_EPARAM;
    struct tmnl *d = malloc(sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    memcpy(d->p, par, sizeof d->p);
    const cosa_ode subs[2] = {
        {.nx = 2, .nu = 1, .ny = 2, .f = f1, .g = g1, .jac = jac1, .kick = kick, .user_data = d},
        {.nx = 2, .nu = 2, .ny = 1, .f = f2, .g = g2, .jac = jac2, .kick = kick, .user_data = d},
    };
    return cosa_odesys_create(out, 2, subs, coupling, d, free);
}

static cosa_status initial_state(const cosa_model *m, const double *par, double *x0)
{
    x0[0] = par[S1];
    x0[1] = par[V1];
    x0[2] = par[S2];
    x0[3] = par[V2];
    return COSA_OK;
}

static const char *output_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"s1", "v1", "Fk"};
    return k < 3 ? n[k] : NULL;
}
static const char *input_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I.Fk", "II.s1", "II.v1"};
    return k < 3 ? n[k] : NULL;
}
static const char *sub_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I", "II"};
    return k < 2 ? n[k] : NULL;
}

/* Nonlinear only: no linear form (create, update), so Phi analyses refuse it. */
const cosa_model model_twomass_nl = {
    .name = "twomass-nl",
    .doc = "nonlinear two-mass oscillator, coupling damping of eq 43 (MBCorr paper section 5)",
    .nparam = NPAR,
    .params = params,
    .tend = 0.3,
    .create_ode = create_ode,
    .initial_state = initial_state,
    .output_name = output_name,
    .input_name = input_name,
    .sub_name = sub_name,
};
