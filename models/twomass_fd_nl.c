/* twomass_fd_nl.c -- the energy paper's double nonlinear oscillator (section
 * 4.2): twomass-fd's masses, springs and dampers, where spring = 1 makes all
 * three springs follow eq 22 and damper = 1 all three dampers eq 23:
 *   spring of stiffness k, deflection e:   S(e) = k e          (linear)
 *                                          S(e) = k sgn(e) sqrt|e|  (eq 22)
 *   damper c, deflection rate w:           Dm(w) = c w         (linear)
 *                                          Dm(w) = c sgn(w) w^2     (eq 23)
 * Split as twomass-fd (force/displacement, feedthrough in I):
 *   I:  x = [x1, v1], u = [x2, v2], y = [f],
 *       f = S_kc(x1 - x2) + Dm_cc(v1 - v2)   (the coupling's force on mass 2),
 *       m1 v1' = -S_k1(x1) - Dm_c1(v1) - f;
 *   II: x = [x2, v2], u = [f], y = [x2, v2],
 *       m2 v2' = -S_k2(x2) - Dm_c2(v2) + f.
 * Mechanical energy: m1 v1^2/2 + m2 v2^2/2 plus each spring's potential,
 * k e^2/2 or (2/3) k |e|^(3/2).  spring = damper = 0 is twomass-fd (the
 * same arithmetic for f and the accelerations up to the order of terms).
 * The Jacobians are left to central differences: eq 22's derivative is
 * unbounded at e = 0. */
#include "builtin.h"
#include "fixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M1, M2, K1, K2, KC, C1, C2, CC, SPRING, DAMPER, X1, V1, X2, V2, NPAR };

#define RANGE_SWITCH {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 0.0, 1.0, NULL, NULL}

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 1.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 1.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [K1] = {"k1", 10.0, "N/m", "spring of mass 1 to ground (N/m^0.5 with spring = 1)",
            COSA_PARAM_MODEL},
    [K2] = {"k2", 1000.0, "N/m", "spring of mass 2 to ground", COSA_PARAM_MODEL},
    [KC] = {"kc", 100.0, "N/m", "coupling spring", COSA_PARAM_MODEL},
    [C1] = {"c1", 0.0, "N s/m", "damper of mass 1 to ground (N s^2/m^2 with damper = 1)",
            COSA_PARAM_MODEL},
    [C2] = {"c2", 0.0, "N s/m", "damper of mass 2 to ground", COSA_PARAM_MODEL},
    [CC] = {"cc", 0.0, "N s/m", "coupling damper", COSA_PARAM_MODEL},
    [SPRING] = {"spring", 0.0, "", "1: all springs -k sgn(e) sqrt|e| (eq 22)", COSA_PARAM_MODEL,
                RANGE_SWITCH},
    [DAMPER] = {"damper", 0.0, "", "1: all dampers -c sgn(w) w^2 (eq 23)", COSA_PARAM_MODEL,
                RANGE_SWITCH},
    [X1] = {"x1", 0.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 100.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [X2] = {"x2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", -100.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

struct fdnl {
    double p[NPAR];
};

static double spring(const double *p, double k, double e)
{
    return p[SPRING] != 0.0 ? k * copysign(sqrt(fabs(e)), e) : k * e;
}

static double damper(const double *p, double c, double w)
{
    return p[DAMPER] != 0.0 ? c * copysign(w * w, w) : c * w;
}

static double potential(const double *p, double k, double e)
{
    return p[SPRING] != 0.0 ? (2.0 / 3.0) * k * pow(fabs(e), 1.5) : 0.5 * k * e * e;
}

static double coupling_force(const double *p, const double *x, const double *u)
{
    return spring(p, p[KC], x[0] - u[0]) + damper(p, p[CC], x[1] - u[1]);
}

static int f1(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const double *p = ((const struct fdnl *)ud)->p;
    out[0] = x[1];
    out[1] = (-spring(p, p[K1], x[0]) - damper(p, p[C1], x[1]) - coupling_force(p, x, u)) / p[M1];
    return 0;
}

static int g1(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    out[0] = coupling_force(((const struct fdnl *)ud)->p, x, u);
    return 0;
}

static int f2(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const double *p = ((const struct fdnl *)ud)->p;
    out[0] = x[1];
    out[1] = (-spring(p, p[K2], x[0]) - damper(p, p[C2], x[1]) + u[0]) / p[M2];
    return 0;
}

static int g2(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t, (void)u, (void)ud;
    out[0] = x[0];
    out[1] = x[1];
    return 0;
}

/* u = [x2, v2 (-> I), f (-> II)] = L [f, x2, v2] (as twomass-fd). */
static const double coupling[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
static const unsigned char kick[2] = {0, 1}; /* x drifts, v is kicked */

static cosa_status check(const double *par)
{
    if (!(par[M1] > 0.0) || !(par[M2] > 0.0) || (par[SPRING] != 0.0 && par[SPRING] != 1.0) ||
        (par[DAMPER] != 0.0 && par[DAMPER] != 1.0))
        return COSA_EPARAM;
    return COSA_OK;
}

static cosa_status create_ode(const cosa_model *m, const double *par, cosa_odesys **out)
{
    (void)m;
    *out = NULL;
    cosa_status st = check(par);
    if (st != COSA_OK)
        return st;
    struct fdnl *d = malloc(sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    memcpy(d->p, par, sizeof d->p);
    const cosa_ode subs[2] = {
        {.nx = 2, .nu = 2, .ny = 1, .f = f1, .g = g1, .kick = kick, .user_data = d},
        {.nx = 2, .nu = 1, .ny = 2, .f = f2, .g = g2, .kick = kick, .user_data = d},
    };
    return cosa_odesys_create(out, 2, subs, coupling, d, free);
}

static cosa_status energy(const cosa_model *m, const double *par, const double *x, double *E)
{
    (void)m;
    cosa_status st = check(par);
    if (st != COSA_OK)
        return st;
    *E = 0.5 * (par[M1] * x[1] * x[1] + par[M2] * x[3] * x[3]) + potential(par, par[K1], x[0]) +
         potential(par, par[K2], x[2]) + potential(par, par[KC], x[0] - x[2]);
    return COSA_OK;
}

/* names, x0 and the bond as twomass-fd: the force f (output 0) on mass 2,
 * velocity v2 (output 2), the correction into II.f (input 2) */
static const char *const state_names[] = {"x1", "v1", "x2", "v2"};
static const char *const input_names[] = {"I.x2", "I.v2", "II.f"};
static const char *const output_names[] = {"f", "x2", "v2"};
static const char *const sub_names[] = {"I", "II"};
static const int x0_param[] = {X1, V1, X2, V2};
static const size_t port_force[1] = {0}, port_velocity[1] = {2}, port_input[1] = {2};
static const cosa_energy_port port = {1, 1, port_force, port_velocity, port_input};
static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 3, .ny = 3, .L = coupling, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names, .port = &port,
};

const cosa_model model_twomass_fd_nl = {
    .name = "twomass-fd-nl",
    .doc = "energy paper's double nonlinear oscillator: twomass-fd with eq 22 springs "
           "(spring = 1) or eq 23 dampers (damper = 1) (section 4.2)",
    .nparam = NPAR,
    .params = params,
    .tend = 10.0,
    .create_ode = create_ode,
    .initial_state = model_fixed_initial_state,
    MODEL_FIXED_NAME_CALLBACKS,
    .data = &desc,
    .energy = energy,
    .energy_port = model_fixed_energy_port,
};
