/* rotational.c -- two rotational inertias on torsion springs/dampers to
 * ground, coupled by a torsion spring-damper (ck, dk).
 *
 *   tau = ck (phi1 - phi2) + dk (omega1 - omega2)      (torque on inertia 2)
 *   J1 omega1' = -c1 phi1 - d1 omega1 - tau
 *   J2 omega2' = -c2 phi2 - d2 omega2 + tau
 * Subsystem A (inertia 1): x = [phi1, omega1], u = [tau], y = [phi1, omega1];
 * subsystem B (inertia 2 and the coupling): x = [phi2, omega2],
 *   u = [phi1, omega1], y = [tau]  (direct feedthrough D = [ck, dk]).
 * Coupling: u_A = y_B, u_B = y_A. */
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
    [PHI2] = {"phi2", 0.2, "rad", "initial angle of inertia 2", COSA_PARAM_INITIAL},
    [OMEGA2] = {"omega2", 0.1, "rad/s", "initial angular velocity of inertia 2",
                COSA_PARAM_INITIAL},
};

static cosa_status fill(const double *par, double *store, cosa_subsystem *sub)
{
    /* column-major blocks of both subsystems, consecutively in store */
    double *AA_ = store, *BA_ = store + 4, *CA_ = store + 6, *DA_ = store + 10;
    double *AB_ = store + 12, *BB_ = store + 16, *CB_ = store + 20, *DB_ = store + 22;
    double j1 = par[J1], j2 = par[J2], ck = par[CK], dk = par[DK];
    if (!(j1 > 0.0) || !(j2 > 0.0))
        return COSA_EPARAM;
    /* A: J1 omega1' = -c1 phi1 - d1 omega1 - tau */
    AA_[0] = 0.0;                       AA_[2] = 1.0;
    AA_[1] = -par[C1] / j1;             AA_[3] = -par[D1] / j1;
    BA_[0] = 0.0;                       BA_[1] = -1.0 / j1;
    CA_[0] = 1.0;                       CA_[2] = 0.0;
    CA_[1] = 0.0;                       CA_[3] = 1.0;
    DA_[0] = 0.0;                       DA_[1] = 0.0;
    /* B: J2 omega2' = -(c2 + ck) phi2 - (d2 + dk) omega2 + ck phi1 + dk omega1,
     *    tau = -ck phi2 - dk omega2 + ck phi1 + dk omega1 */
    AB_[0] = 0.0;                       AB_[2] = 1.0;
    AB_[1] = -(par[C2] + ck) / j2;      AB_[3] = -(par[D2] + dk) / j2;
    BB_[0] = 0.0;                       BB_[2] = 0.0;
    BB_[1] = ck / j2;                   BB_[3] = dk / j2;
    CB_[0] = -ck;                       CB_[1] = -dk;
    DB_[0] = ck;                        DB_[1] = dk;
    sub[0] = (cosa_subsystem){2, 1, 2, AA_, BA_, CA_, DA_};
    sub[1] = (cosa_subsystem){2, 2, 1, AB_, BB_, CB_, DB_};
    return COSA_OK;
}

/* u = [tau (-> A), phi1, omega1 (-> B)] = L [phi1, omega1, tau]. */
static const double coupling[9] = {0, 1, 0, /* column y1 = phi1   */
                                   0, 0, 1, /* column y2 = omega1 */
                                   1, 0, 0 /* column y3 = tau    */};

static const char *const state_names[] = {"phi1", "omega1", "phi2", "omega2"};
static const char *const input_names[] = {"A.tau", "B.phi1", "B.omega1"};
static const char *const output_names[] = {"phi1", "omega1", "tau"};
static const char *const sub_names[] = {"A", "B"};
static const int x0_param[] = {PHI1, OMEGA1, PHI2, OMEGA2};

static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 3, .ny = 3, .L = coupling, .fill = fill, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names,
};

/* The model-file form of this model for cosa_model_dump (README "Model
 * files"): subsystems and connections in terms of the parameter names, with
 * the arithmetic of fill() operation for operation; the dump uses it only if
 * reading it back gives these matrices bit for bit. */
static const cosa_model_template dump_template = {
    .text =
        "# tau = ck (phi1 - phi2) + dk (omega1 - omega2) acts on inertia 2; inertia 1\n"
        "# feels -tau.\n"
        "subsystem A\n"
        "  states  phi1 omega1\n"
        "  inputs  tau\n"
        "  outputs phi1 omega1\n"
        "  A = [ 0, 1\n"
        "        -c1/J1, -d1/J1 ]\n"
        "  B = [ 0; -1/J1 ]\n"
        "  C = eye\n"
        "  D = zeros\n"
        "  x0 = [ phi1; omega1 ]\n"
        "end\n"
        "\n"
        "subsystem B\n"
        "  states  phi2 omega2\n"
        "  inputs  phi1 omega1\n"
        "  outputs tau\n"
        "  A = [ 0, 1\n"
        "        -(c2 + ck)/J2, -(d2 + dk)/J2 ]\n"
        "  B = [ 0, 0\n"
        "        ck/J2, dk/J2 ]\n"
        "  C = [ -ck, -dk ]\n"
        "  D = [ ck, dk ]\n"
        "  x0 = [ phi2; omega2 ]\n"
        "end\n"
        "\n"
        "connect A.phi1 -> B.phi1\n"
        "connect A.omega1 -> B.omega1\n"
        "connect B.tau -> A.tau\n",
};

const cosa_model model_rotational = {
    .name = "rotational",
    .doc = "two rotational inertias coupled by a torsion spring-damper (torque feedthrough)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .data = &desc,
    .dump_template = &dump_template,
    MODEL_FIXED_CALLBACKS,
};
