/* rotational_defect.c -- the rotational oscillator of models/rotational.c in
 * the split of the defect paper (section 4, issue 12 section 2): the
 * coupling spring-damper sits with inertia 1, which integrates its own copy
 * phi2c of the angle of inertia 2 from the incoming velocity.
 *
 *   unit omega2tau: x = [phi1, omega1, phi2c], u = [omega2_in], y = [tau]
 *     phi2c' = omega2_in
 *     J1 omega1' = -(c1 + ck) phi1 - (d1 + dk) omega1 + ck phi2c + dk omega2_in
 *     tau = ck (phi1 - phi2c) + dk (omega1 - omega2_in)
 *   unit tau2omega: x = [phi2, omega2], u = [tau_in], y = [omega2]
 *     J2 omega2' = -c2 phi2 - d2 omega2 + tau_in
 * Coupling: omega2_in = omega2, tau_in = tau.  Same parameters and initial
 * state as rotational; phi2c starts at phi2. */
#include "fixed.h"
#include "builtin.h"

enum { J1, C1, D1, J2, C2, D2, CK, DK, PHI1, OMEGA1, PHI2, OMEGA2, NPAR };

static const cosa_param params[NPAR] = {
    [J1] = {"J1", 10.0, "kg m^2", "inertia 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C1] = {"c1", 1.0, "N m/rad", "torsion spring of inertia 1 to ground", COSA_PARAM_MODEL},
    [D1] = {"d1", 1.0, "N m s/rad", "torsion damper of inertia 1 to ground", COSA_PARAM_MODEL},
    [J2] = {"J2", 10.0, "kg m^2", "inertia 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C2] = {"c2", 1.0, "N m/rad", "torsion spring of inertia 2 to ground", COSA_PARAM_MODEL},
    [D2] = {"d2", 2.0, "N m s/rad", "torsion damper of inertia 2 to ground", COSA_PARAM_MODEL},
    [CK] = {"ck", 1.0, "N m/rad", "coupling torsion spring", COSA_PARAM_MODEL},
    [DK] = {"dk", 2.0, "N m s/rad", "coupling torsion damper", COSA_PARAM_MODEL},
    [PHI1] = {"phi1", 0.1, "rad", "initial angle of inertia 1", COSA_PARAM_INITIAL},
    [OMEGA1] = {"omega1", 0.1, "rad/s", "initial angular velocity of inertia 1",
                COSA_PARAM_INITIAL},
    [PHI2] = {"phi2", 0.2, "rad", "initial angle of inertia 2 (and of its copy phi2c)",
              COSA_PARAM_INITIAL},
    [OMEGA2] = {"omega2", 0.1, "rad/s", "initial angular velocity of inertia 2",
                COSA_PARAM_INITIAL},
};

static cosa_status fill(const double *par, double *store, cosa_subsystem *sub)
{
    /* column-major blocks of both subsystems, consecutively in store */
    double *A1 = store, *B1 = store + 9, *C1_ = store + 12, *D1_ = store + 15;
    double *A2 = store + 16, *B2 = store + 20, *C2_ = store + 22, *D2_ = store + 24;
    double j1 = par[J1], j2 = par[J2], ck = par[CK], dk = par[DK];
    if (!(j1 > 0.0) || !(j2 > 0.0))
        return COSA_EPARAM;
    /* omega2tau */
    A1[0] = 0.0;                     A1[3] = 1.0;                     A1[6] = 0.0;
    A1[1] = -(par[C1] + ck) / j1;    A1[4] = -(par[D1] + dk) / j1;    A1[7] = ck / j1;
    A1[2] = 0.0;                     A1[5] = 0.0;                     A1[8] = 0.0;
    B1[0] = 0.0;                     B1[1] = dk / j1;                 B1[2] = 1.0;
    C1_[0] = ck;                     C1_[1] = dk;                     C1_[2] = -ck;
    D1_[0] = -dk;
    /* tau2omega */
    A2[0] = 0.0;                     A2[2] = 1.0;
    A2[1] = -par[C2] / j2;           A2[3] = -par[D2] / j2;
    B2[0] = 0.0;                     B2[1] = 1.0 / j2;
    C2_[0] = 0.0;                    C2_[1] = 1.0;
    D2_[0] = 0.0;
    sub[0] = (cosa_subsystem){3, 1, 1, A1, B1, C1_, D1_};
    sub[1] = (cosa_subsystem){2, 1, 1, A2, B2, C2_, D2_};
    return COSA_OK;
}

/* u = [omega2_in, tau_in] = L [tau, omega2]. */
static const double coupling[4] = {0, 1, /* column y1 = tau    */
                                   1, 0 /* column y2 = omega2 */};

static const char *const state_names[] = {"phi1", "omega1", "phi2c", "phi2", "omega2"};
static const char *const input_names[] = {"omega2_in", "tau_in"};
static const char *const output_names[] = {"tau", "omega2"};
static const char *const sub_names[] = {"omega2tau", "tau2omega"};
static const int x0_param[] = {PHI1, OMEGA1, PHI2, PHI2, OMEGA2};

static const model_fixed_desc desc = {
    .nsub = 2, .nx = 5, .nu = 2, .ny = 2, .L = coupling, .fill = fill, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names,
};

/* The model-file form (README "Model files"), operation for operation as fill(). */
static const cosa_model_template dump_template = {
    .text =
        "# The defect paper's split: the coupling spring-damper sits with inertia 1,\n"
        "# which integrates its copy phi2c of the angle of inertia 2.\n"
        "subsystem omega2tau\n"
        "  states  phi1 omega1 phi2c\n"
        "  inputs  omega2_in\n"
        "  outputs tau\n"
        "  A = [ 0, 1, 0\n"
        "        -(c1 + ck)/J1, -(d1 + dk)/J1, ck/J1\n"
        "        0, 0, 0 ]\n"
        "  B = [ 0; dk/J1; 1 ]\n"
        "  C = [ ck, dk, -ck ]\n"
        "  D = [ -dk ]\n"
        "  x0 = [ phi1; omega1; phi2 ]\n"
        "end\n"
        "\n"
        "subsystem tau2omega\n"
        "  states  phi2 omega2\n"
        "  inputs  tau_in\n"
        "  outputs omega2\n"
        "  A = [ 0, 1\n"
        "        -c2/J2, -d2/J2 ]\n"
        "  B = [ 0; 1/J2 ]\n"
        "  C = [ 0, 1 ]\n"
        "  D = zeros\n"
        "  x0 = [ phi2; omega2 ]\n"
        "end\n"
        "\n"
        "connect omega2tau.tau -> tau2omega.tau_in\n"
        "connect tau2omega.omega2 -> omega2tau.omega2_in\n",
};

const cosa_model model_rotational_defect = {
    .name = "rotational-defect",
    .doc = "the rotational oscillator split as in the defect paper (velocity in, torque out)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .data = &desc,
    .dump_template = &dump_template,
    MODEL_FIXED_CALLBACKS,
};
