/* twomass_fd.c -- two-mass oscillator split at mass 2 (force/displacement
 * coupling with the coupling element on the side of mass 1).
 *
 * Masses m1, m2 on ground springs/dampers (k1, c1), (k2, c2), coupled by
 * (kc, cc).  f = kc (x1 - x2) + cc (v1 - v2) is the force the coupling
 * exerts on mass 2; mass 1 feels -f:
 *   m1 v1' = -k1 x1 - c1 v1 - f,    m2 v2' = -k2 x2 - c2 v2 + f.
 * Subsystem I (mass 1 and the coupling):
 *   x = [x1, v1], u = [x2, v2], y = [f]   (direct feedthrough D = [-kc, -cc]);
 * subsystem II (mass 2):
 *   x = [x2, v2], u = [f], y = [x2, v2].
 * Coupling: u_I = y_II, u_II = y_I. */
#include "fixed.h"
#include "builtin.h"

enum { M1, M2, K1, K2, KC, C1, C2, CC, X1, V1, X2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 1.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 1.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [K1] = {"k1", 10.0, "N/m", "spring of mass 1 to ground", COSA_PARAM_MODEL},
    [K2] = {"k2", 1000.0, "N/m", "spring of mass 2 to ground", COSA_PARAM_MODEL},
    [KC] = {"kc", 100.0, "N/m", "coupling stiffness", COSA_PARAM_MODEL},
    [C1] = {"c1", 0.0, "N s/m", "damper of mass 1 to ground", COSA_PARAM_MODEL},
    [C2] = {"c2", 0.0, "N s/m", "damper of mass 2 to ground", COSA_PARAM_MODEL},
    [CC] = {"cc", 0.0, "N s/m", "coupling damping", COSA_PARAM_MODEL},
    [X1] = {"x1", 0.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 100.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [X2] = {"x2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", -100.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

static cosa_status fill(const double *par, double *store, cosa_subsystem *sub)
{
    /* column-major blocks of both subsystems, consecutively in store */
    double *A1_ = store, *B1_ = store + 4, *C1_ = store + 8, *D1_ = store + 10;
    double *A2_ = store + 12, *B2_ = store + 16, *C2_ = store + 18, *D2_ = store + 22;
    double m1 = par[M1], m2 = par[M2], kc = par[KC], cc = par[CC];
    if (!(m1 > 0.0) || !(m2 > 0.0))
        return COSA_EPARAM;
    /* subsystem I: m1 v1' = -(k1 + kc) x1 - (c1 + cc) v1 + kc x2 + cc v2,
     *              f = kc x1 + cc v1 - kc x2 - cc v2 */
    A1_[0] = 0.0;                        A1_[2] = 1.0;
    A1_[1] = -(par[K1] + kc) / m1;       A1_[3] = -(par[C1] + cc) / m1;
    B1_[0] = 0.0;                        B1_[2] = 0.0;
    B1_[1] = kc / m1;                    B1_[3] = cc / m1;
    C1_[0] = kc;                         C1_[1] = cc;
    D1_[0] = -kc;                        D1_[1] = -cc;
    /* subsystem II: m2 v2' = -k2 x2 - c2 v2 + f */
    A2_[0] = 0.0;                        A2_[2] = 1.0;
    A2_[1] = -par[K2] / m2;              A2_[3] = -par[C2] / m2;
    B2_[0] = 0.0;                        B2_[1] = 1.0 / m2;
    C2_[0] = 1.0;                        C2_[2] = 0.0;
    C2_[1] = 0.0;                        C2_[3] = 1.0;
    D2_[0] = 0.0;                        D2_[1] = 0.0;
    sub[0] = (cosa_subsystem){2, 2, 1, A1_, B1_, C1_, D1_};
    sub[1] = (cosa_subsystem){2, 1, 2, A2_, B2_, C2_, D2_};
    return COSA_OK;
}

/* u = [x2, v2 (-> I), f (-> II)] = L [f, x2, v2]. */
static const double coupling[9] = {0, 0, 1, /* column y1 = f  */
                                   1, 0, 0, /* column y2 = x2 */
                                   0, 1, 0 /* column y3 = v2 */};

static const char *const state_names[] = {"x1", "v1", "x2", "v2"};
static const char *const input_names[] = {"I.x2", "I.v2", "II.f"};
static const char *const output_names[] = {"f", "x2", "v2"};
static const char *const sub_names[] = {"I", "II"};
static const int x0_param[] = {X1, V1, X2, V2};

/* The bond: force f (output 0) of subsystem I on mass 2, whose velocity v2
 * is output 2; the correction goes into II.f (input 2). */
static const size_t port_force[1] = {0}, port_velocity[1] = {2}, port_input[1] = {2};
static const cosa_energy_port port = {1, 1, port_force, port_velocity, port_input};

static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 3, .ny = 3, .L = coupling, .fill = fill, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names, .port = &port,
};

/* The model-file form of this model for cosa_model_dump (README "Model
 * files"): subsystems and connections in terms of the parameter names, with
 * the arithmetic of fill() operation for operation; the dump uses it only if
 * reading it back gives these matrices bit for bit. */
static const cosa_model_template dump_template = {
    .text =
        "# f = kc (x1 - x2) + cc (v1 - v2) is the force of the coupling on mass 2;\n"
        "# mass 1 feels -f.\n"
        "subsystem I\n"
        "  states  x1 v1\n"
        "  inputs  x2 v2\n"
        "  outputs f\n"
        "  A = [ 0, 1\n"
        "        -(k1 + kc)/m1, -(c1 + cc)/m1 ]\n"
        "  B = [ 0, 0\n"
        "        kc/m1, cc/m1 ]\n"
        "  C = [ kc, cc ]\n"
        "  D = [ -kc, -cc ]\n"
        "  x0 = [ x1; v1 ]\n"
        "end\n"
        "\n"
        "subsystem II\n"
        "  states  x2 v2\n"
        "  inputs  f\n"
        "  outputs x2 v2\n"
        "  A = [ 0, 1\n"
        "        -k2/m2, -c2/m2 ]\n"
        "  B = [ 0; 1/m2 ]\n"
        "  C = eye\n"
        "  D = zeros\n"
        "  x0 = [ x2; v2 ]\n"
        "end\n"
        "\n"
        "connect I.f -> II.f\n"
        "connect II.x2 -> I.x2\n"
        "connect II.v2 -> I.v2\n",
};

/* Mechanical energy: kinetic energy of both masses and the energy of the
 * three springs, x = [x1, v1, x2, v2]. */
static cosa_status energy(const cosa_model *m, const double *par, const double *x, double *E)
{
    (void)m;
    const double dx = x[0] - x[2];
    *E = 0.5 * (par[M1] * x[1] * x[1] + par[M2] * x[3] * x[3] + par[K1] * x[0] * x[0] +
                par[K2] * x[2] * x[2] + par[KC] * dx * dx);
    return COSA_OK;
}

const cosa_model model_twomass_fd = {
    .name = "twomass-fd",
    .doc = "two-mass oscillator, coupling spring-damper with mass 1 (force feedthrough)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .data = &desc,
    .dump_template = &dump_template,
    MODEL_FIXED_CALLBACKS,
    .energy = energy,
    .energy_port = model_fixed_energy_port,
};
