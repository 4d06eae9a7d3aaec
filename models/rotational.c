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
#include "models.h"

enum { J1, C1, D1, J2, C2, D2, CK, DK, PHI1, OMEGA1, PHI2, OMEGA2, NPAR };

static const cosa_param params[NPAR] = {
    [J1] = {"J1", 10.0, "kg m^2", "inertia 1", COSA_PARAM_MODEL},
    [C1] = {"c1", 1.0, "N m/rad", "torsion spring of inertia 1 to ground", COSA_PARAM_MODEL},
    [D1] = {"d1", 1.0, "N m s/rad", "torsion damper of inertia 1 to ground", COSA_PARAM_MODEL},
    [J2] = {"J2", 10.0, "kg m^2", "inertia 2", COSA_PARAM_MODEL},
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

/* Column-major blocks: A is 2x2, 2x1, 2x2, 2x1; B is 2x2, 2x2, 1x2, 1x2. */
struct rot_blocks {
    double AA[4], BA[2], CA[4], DA[2];
    double AB[4], BB[4], CB[2], DB[2];
};

static cosa_status fill(const double *par, struct rot_blocks *b, cosa_subsystem sub[2])
{
    double j1 = par[J1], j2 = par[J2], ck = par[CK], dk = par[DK];
    if (!(j1 > 0.0) || !(j2 > 0.0))
        return COSA_EPARAM;
    /* A: J1 omega1' = -c1 phi1 - d1 omega1 - tau */
    b->AA[0] = 0.0;                       b->AA[2] = 1.0;
    b->AA[1] = -par[C1] / j1;             b->AA[3] = -par[D1] / j1;
    b->BA[0] = 0.0;                       b->BA[1] = -1.0 / j1;
    b->CA[0] = 1.0;                       b->CA[2] = 0.0;
    b->CA[1] = 0.0;                       b->CA[3] = 1.0;
    b->DA[0] = 0.0;                       b->DA[1] = 0.0;
    /* B: J2 omega2' = -(c2 + ck) phi2 - (d2 + dk) omega2 + ck phi1 + dk omega1,
     *    tau = -ck phi2 - dk omega2 + ck phi1 + dk omega1 */
    b->AB[0] = 0.0;                       b->AB[2] = 1.0;
    b->AB[1] = -(par[C2] + ck) / j2;      b->AB[3] = -(par[D2] + dk) / j2;
    b->BB[0] = 0.0;                       b->BB[2] = 0.0;
    b->BB[1] = ck / j2;                   b->BB[3] = dk / j2;
    b->CB[0] = -ck;                       b->CB[1] = -dk;
    b->DB[0] = ck;                        b->DB[1] = dk;
    sub[0] = (cosa_subsystem){2, 1, 2, b->AA, b->BA, b->CA, b->DA};
    sub[1] = (cosa_subsystem){2, 2, 1, b->AB, b->BB, b->CB, b->DB};
    return COSA_OK;
}

/* u = [tau (-> A), phi1, omega1 (-> B)] = L [phi1, omega1, tau]. */
static const double coupling[9] = {0, 1, 0, /* column y1 = phi1   */
                                   0, 0, 1, /* column y2 = omega1 */
                                   1, 0, 0 /* column y3 = tau    */};

static cosa_status create(const cosa_model *m, const double *par, cosa_system **out)
{
    struct rot_blocks b;
    cosa_subsystem sub[2];
    if (!par || !out)
        return COSA_EINVAL;
    cosa_status st = fill(par, &b, sub);
    if (st != COSA_OK)
        return st;
    return cosa_system_create(out, 2, sub, coupling);
}

static cosa_status update(const cosa_model *m, const double *par, cosa_system *sys)
{
    struct rot_blocks b;
    cosa_subsystem sub[2];
    if (!par || !sys)
        return COSA_EINVAL;
    cosa_status st = fill(par, &b, sub);
    if (st == COSA_OK)
        st = cosa_system_set_subsystem(sys, 0, &sub[0]);
    if (st == COSA_OK)
        st = cosa_system_set_subsystem(sys, 1, &sub[1]);
    return st;
}

static cosa_status initial_state(const cosa_model *m, const double *par, double *x0)
{
    if (!par || !x0)
        return COSA_EINVAL;
    x0[0] = par[PHI1];
    x0[1] = par[OMEGA1];
    x0[2] = par[PHI2];
    x0[3] = par[OMEGA2];
    return COSA_OK;
}

static const char *state_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"phi1", "omega1", "phi2", "omega2"};
    return k < 4 ? n[k] : NULL;
}
static const char *input_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"A.tau", "B.phi1", "B.omega1"};
    return k < 3 ? n[k] : NULL;
}
static const char *output_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"phi1", "omega1", "tau"};
    return k < 3 ? n[k] : NULL;
}

static const char *sub_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"A", "B"};
    return k < 2 ? n[k] : NULL;
}

const cosa_model cosa_model_rotational = {
    .name = "rotational",
    .doc = "two rotational inertias coupled by a torsion spring-damper (torque feedthrough)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .create = create,
    .update = update,
    .initial_state = initial_state,
    .state_name = state_name,
    .input_name = input_name,
    .output_name = output_name,
    .data = NULL,
    .sub_name = sub_name,
};
