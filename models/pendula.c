/* pendula.c -- the energy paper's coupled pendula (section 4.3, Figs 15-16):
 * two point masses m1, m2 on massless rods l1, l2 pinned at A = (0, 0) and
 * B = (xb, 0), angles theta from the downward vertical, joined at their tips
 * by a spring-damper (k, c) whose natural length l0 is the tips' distance at
 * the initial angles (8.756 m for the defaults).  Tip i: p_i = pivot_i +
 * l_i (sin th_i, -cos th_i).  The spring-damper's force on tip 2:
 *   F = -(k (L - l0) + c L') n,  L = |p2 - p1|, n = (p2 - p1) / L,
 * and -F on tip 1.  As ODEs in the angles (torque r x F about the pivot):
 *   m l^2 th'' = -m g l sin th + l (cos th F_x + sin th F_y).
 * Force/displacement split (Fig 16): M1 = pendulum 1 and the spring-damper,
 * u = [x2, y2, vx2, vy2] (tip 2), y = [fx, fy] = F (direct feedthrough);
 * M2 = pendulum 2, u = [fx, fy], y = [x2, y2, vx2, vy2].  Energy:
 * sum (m l^2 w^2 / 2 + m g l (1 - cos th)) + k (L - l0)^2 / 2; the power port
 * is the vector bond (fx, fy) . (vx2, vy2). */
#include "builtin.h"
#include "fixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M1, M2, L1, L2, XB, K, C, G, TH1, TH2, W1, W2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 1.0, "kg", "mass at tip 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 1.0, "kg", "mass at tip 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [L1] = {"l1", 1.0, "m", "rod 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [L2] = {"l2", 1.0, "m", "rod 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [XB] = {"xb", 9.285, "m", "pivot B at (xb, 0); pivot A at the origin", COSA_PARAM_MODEL},
    [K] = {"k", 10.0, "N/m", "spring between the tips (natural length: their initial distance)",
           COSA_PARAM_MODEL},
    [C] = {"c", 0.0, "N s/m", "damper between the tips", COSA_PARAM_MODEL},
    [G] = {"g", 9.81, "m/s^2", "gravity (along -y)", COSA_PARAM_MODEL},
    [TH1] = {"th1", 0.78539816339744831, "rad", "initial angle of rod 1 (pi/4)",
             COSA_PARAM_INITIAL},
    [TH2] = {"th2", 0.17453292519943295, "rad", "initial angle of rod 2 (pi/18)",
             COSA_PARAM_INITIAL},
    [W1] = {"w1", 0.0, "rad/s", "initial angular velocity of rod 1", COSA_PARAM_INITIAL},
    [W2] = {"w2", 0.0, "rad/s", "initial angular velocity of rod 2", COSA_PARAM_INITIAL},
};

struct pend {
    double p[NPAR];
    double l0; /* natural length of the spring: the tips' initial distance */
};

static double natural_length(const double *p)
{
    const double dx = p[XB] + p[L2] * sin(p[TH2]) - p[L1] * sin(p[TH1]);
    const double dy = -p[L2] * cos(p[TH2]) + p[L1] * cos(p[TH1]);
    return hypot(dx, dy);
}

/* The spring-damper's force on tip 2 from tip 1 (x1 = [th1, w1]) and tip 2
 * (position, velocity q = [x2, y2, vx2, vy2]). */
static void tip_force(const struct pend *d, const double *x1, const double *q, double *F)
{
    const double *p = d->p;
    const double s = sin(x1[0]), co = cos(x1[0]);
    const double px = p[L1] * s, py = -p[L1] * co, vx = p[L1] * co * x1[1],
                 vy = p[L1] * s * x1[1];
    const double dx = q[0] - px, dy = q[1] - py, L = hypot(dx, dy);
    if (!(L > 0.0)) {
        F[0] = F[1] = 0.0;
        return;
    }
    const double nx = dx / L, ny = dy / L, Ld = nx * (q[2] - vx) + ny * (q[3] - vy);
    const double f = p[K] * (L - d->l0) + p[C] * Ld;
    F[0] = -f * nx;
    F[1] = -f * ny;
}

static int f1(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const struct pend *d = ud;
    const double *p = d->p;
    double F[2];
    tip_force(d, x, u, F); /* on tip 2; tip 1 feels -F */
    const double l = p[L1], m = p[M1];
    out[0] = x[1];
    out[1] = (-m * p[G] * l * sin(x[0]) - l * (cos(x[0]) * F[0] + sin(x[0]) * F[1])) / (m * l * l);
    return 0;
}

static int g1(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    tip_force(ud, x, u, out);
    return 0;
}

static int f2(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const double *p = ((const struct pend *)ud)->p;
    const double l = p[L2], m = p[M2];
    out[0] = x[1];
    out[1] = (-m * p[G] * l * sin(x[0]) + l * (cos(x[0]) * u[0] + sin(x[0]) * u[1])) / (m * l * l);
    return 0;
}

static int g2(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t, (void)u;
    const double *p = ((const struct pend *)ud)->p;
    const double s = sin(x[0]), co = cos(x[0]), l = p[L2];
    out[0] = p[XB] + l * s;
    out[1] = -l * co;
    out[2] = l * co * x[1];
    out[3] = l * s * x[1];
    return 0;
}

/* u = [x2, y2, vx2, vy2 (-> M1), fx, fy (-> M2)] = L [fx, fy, x2, y2, vx2, vy2]
 * (nu x ny = 6 x 6, column-major). */
static const double coupling[36] = {
    0, 0, 0, 0, 1, 0, /* column fx  */
    0, 0, 0, 0, 0, 1, /* column fy  */
    1, 0, 0, 0, 0, 0, /* column x2  */
    0, 1, 0, 0, 0, 0, /* column y2  */
    0, 0, 1, 0, 0, 0, /* column vx2 */
    0, 0, 0, 1, 0, 0, /* column vy2 */
};
static const unsigned char kick[2] = {0, 1}; /* theta drifts, omega is kicked */

static cosa_status check(const double *par)
{
    if (!(par[M1] > 0.0) || !(par[M2] > 0.0) || !(par[L1] > 0.0) || !(par[L2] > 0.0) ||
        !(natural_length(par) > 0.0))
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
    struct pend *d = malloc(sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    memcpy(d->p, par, sizeof d->p);
    d->l0 = natural_length(par);
    const cosa_ode subs[2] = {
        {.nx = 2, .nu = 4, .ny = 2, .f = f1, .g = g1, .kick = kick, .user_data = d},
        {.nx = 2, .nu = 2, .ny = 4, .f = f2, .g = g2, .kick = kick, .user_data = d},
    };
    return cosa_odesys_create(out, 2, subs, coupling, d, free);
}

static cosa_status energy(const cosa_model *m, const double *par, const double *x, double *E)
{
    (void)m;
    cosa_status st = check(par);
    if (st != COSA_OK)
        return st;
    const double l1 = par[L1], l2 = par[L2];
    const double dx = par[XB] + l2 * sin(x[2]) - l1 * sin(x[0]);
    const double dy = -l2 * cos(x[2]) + l1 * cos(x[0]);
    const double e = hypot(dx, dy) - natural_length(par);
    *E = 0.5 * par[M1] * l1 * l1 * x[1] * x[1] + 0.5 * par[M2] * l2 * l2 * x[3] * x[3] +
         par[M1] * par[G] * l1 * (1.0 - cos(x[0])) + par[M2] * par[G] * l2 * (1.0 - cos(x[2])) +
         0.5 * par[K] * e * e;
    return COSA_OK;
}

/* names, x0, and the vector bond (fx, fy) (outputs 0, 1) on tip 2, whose
 * velocity is (vx2, vy2) (outputs 4, 5); the correction into M2's inputs 4, 5 */
static const char *const state_names[] = {"th1", "w1", "th2", "w2"};
static const char *const input_names[] = {"M1.x2", "M1.y2", "M1.vx2", "M1.vy2", "M2.fx", "M2.fy"};
static const char *const output_names[] = {"fx", "fy", "x2", "y2", "vx2", "vy2"};
static const char *const sub_names[] = {"M1", "M2"};
static const int x0_param[] = {TH1, W1, TH2, W2};
static const size_t port_force[2] = {0, 1}, port_velocity[2] = {4, 5}, port_input[2] = {4, 5};
static const cosa_energy_port port = {2, 1, port_force, port_velocity, port_input};
static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 6, .ny = 6, .L = coupling, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names, .port = &port,
};

const cosa_model model_pendula = {
    .name = "pendula",
    .doc = "energy paper's coupled pendula: two pendula joined at their tips by a "
           "spring-damper, force/displacement (section 4.3)",
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
