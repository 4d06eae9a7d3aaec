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
#include "models.h"

enum { M1, M2, K1, K2, KC, C1, C2, CC, X1, V1, X2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 1.0, "kg", "mass 1", COSA_PARAM_MODEL},
    [M2] = {"m2", 1.0, "kg", "mass 2", COSA_PARAM_MODEL},
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

/* Column-major blocks: I is 2x2, 2x2, 1x2, 1x2; II is 2x2, 2x1, 2x2, 2x1. */
struct fd_blocks {
    double A1[4], B1[4], C1[2], D1[2];
    double A2[4], B2[2], C2[4], D2[2];
};

static cosa_status fill(const double *par, struct fd_blocks *b, cosa_subsystem sub[2])
{
    double m1 = par[M1], m2 = par[M2], kc = par[KC], cc = par[CC];
    if (!(m1 > 0.0) || !(m2 > 0.0))
        return COSA_EPARAM;
    /* subsystem I: m1 v1' = -(k1 + kc) x1 - (c1 + cc) v1 + kc x2 + cc v2,
     *              f = kc x1 + cc v1 - kc x2 - cc v2 */
    b->A1[0] = 0.0;                        b->A1[2] = 1.0;
    b->A1[1] = -(par[K1] + kc) / m1;       b->A1[3] = -(par[C1] + cc) / m1;
    b->B1[0] = 0.0;                        b->B1[2] = 0.0;
    b->B1[1] = kc / m1;                    b->B1[3] = cc / m1;
    b->C1[0] = kc;                         b->C1[1] = cc;
    b->D1[0] = -kc;                        b->D1[1] = -cc;
    /* subsystem II: m2 v2' = -k2 x2 - c2 v2 + f */
    b->A2[0] = 0.0;                        b->A2[2] = 1.0;
    b->A2[1] = -par[K2] / m2;              b->A2[3] = -par[C2] / m2;
    b->B2[0] = 0.0;                        b->B2[1] = 1.0 / m2;
    b->C2[0] = 1.0;                        b->C2[2] = 0.0;
    b->C2[1] = 0.0;                        b->C2[3] = 1.0;
    b->D2[0] = 0.0;                        b->D2[1] = 0.0;
    sub[0] = (cosa_subsystem){2, 2, 1, b->A1, b->B1, b->C1, b->D1};
    sub[1] = (cosa_subsystem){2, 1, 2, b->A2, b->B2, b->C2, b->D2};
    return COSA_OK;
}

/* u = [x2, v2 (-> I), f (-> II)] = L [f, x2, v2]. */
static const double coupling[9] = {0, 0, 1, /* column y1 = f  */
                                   1, 0, 0, /* column y2 = x2 */
                                   0, 1, 0 /* column y3 = v2 */};

static cosa_status create(const cosa_model *m, const double *par, cosa_system **out)
{
    struct fd_blocks b;
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
    struct fd_blocks b;
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
    x0[0] = par[X1];
    x0[1] = par[V1];
    x0[2] = par[X2];
    x0[3] = par[V2];
    return COSA_OK;
}

static const char *state_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"x1", "v1", "x2", "v2"};
    return k < 4 ? n[k] : NULL;
}
static const char *input_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I.x2", "I.v2", "II.f"};
    return k < 3 ? n[k] : NULL;
}
static const char *output_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"f", "x2", "v2"};
    return k < 3 ? n[k] : NULL;
}

static const char *sub_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I", "II"};
    return k < 2 ? n[k] : NULL;
}

const cosa_model cosa_model_twomass_fd = {
    .name = "twomass-fd",
    .doc = "two-mass oscillator, coupling spring-damper with mass 1 (force feedthrough)",
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
