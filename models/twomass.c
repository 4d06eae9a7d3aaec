/* twomass.c -- the linear two-mass oscillator with force/displacement
 * coupling, MBCorr paper section 3.1, eq 27.
 *
 * Subsystem I (mass m1 on spring c1, damper d1):
 *   x = [s1, v1], u = [F_k], y = [s1, v1];  m1 v1' = -c1 s1 - d1 v1 + F_k.
 * Subsystem II (mass m2 on c2, d2, plus the coupling element c_k, d_k):
 *   x = [s2, v2], u = [s1, v1], y = [F_k],
 *   F_k = c_k (s2 - s1) + d_k (v2 - v1),  m2 v2' = -c2 s2 - d2 v2 - F_k.
 * Coupling: u_I = F_k = y_II,  u_II = [s1, v1] = y_I. */
#include "models.h"

#include <stdlib.h>

enum { M1, M2, C1, C2, D1, D2, CK, DK, S1, V1, S2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 10.0, "kg", "mass 1", COSA_PARAM_MODEL},
    [M2] = {"m2", 10.0, "kg", "mass 2", COSA_PARAM_MODEL},
    [C1] = {"c1", 1e6, "N/m", "spring of mass 1 to ground", COSA_PARAM_MODEL},
    [C2] = {"c2", 1e7, "N/m", "spring of mass 2 to ground", COSA_PARAM_MODEL},
    [D1] = {"d1", 1.0, "N s/m", "damper of mass 1 to ground", COSA_PARAM_MODEL},
    [D2] = {"d2", 2.0, "N s/m", "damper of mass 2 to ground", COSA_PARAM_MODEL},
    [CK] = {"ck", 2e5, "N/m", "coupling stiffness", COSA_PARAM_MODEL},
    [DK] = {"dk", 5e2, "N s/m", "coupling damping", COSA_PARAM_MODEL},
    [S1] = {"s1", 0.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 100.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [S2] = {"s2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", -100.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

/* Column-major 2x2, 2x1, 1x2 blocks of eq 27. */
struct twomass_blocks {
    double A1[4], B1[2], C1[4], D1[2];
    double A2[4], B2[4], C2[2], D2[2];
};

static cosa_status fill(const double *par, struct twomass_blocks *b, cosa_subsystem sub[2])
{
    double m1 = par[M1], m2 = par[M2];
    if (!(m1 > 0.0) || !(m2 > 0.0))
        return COSA_EPARAM;
    double ck = par[CK], dk = par[DK];
    /* subsystem I */
    b->A1[0] = 0.0;            b->A1[2] = 1.0;
    b->A1[1] = -par[C1] / m1;  b->A1[3] = -par[D1] / m1;
    b->B1[0] = 0.0;            b->B1[1] = 1.0 / m1;
    b->C1[0] = 1.0;            b->C1[2] = 0.0;
    b->C1[1] = 0.0;            b->C1[3] = 1.0;
    b->D1[0] = 0.0;            b->D1[1] = 0.0;
    /* subsystem II */
    b->A2[0] = 0.0;                   b->A2[2] = 1.0;
    b->A2[1] = -(ck + par[C2]) / m2;  b->A2[3] = -(dk + par[D2]) / m2;
    b->B2[0] = 0.0;        b->B2[2] = 0.0;
    b->B2[1] = ck / m2;    b->B2[3] = dk / m2;
    b->C2[0] = ck;         b->C2[1] = dk;
    b->D2[0] = -ck;        b->D2[1] = -dk;
    sub[0] = (cosa_subsystem){2, 1, 2, b->A1, b->B1, b->C1, b->D1};
    sub[1] = (cosa_subsystem){2, 2, 1, b->A2, b->B2, b->C2, b->D2};
    return COSA_OK;
}

/* u = [F_k, s1, v1] = L [s1, v1, F_k] (eq 27). */
static const double coupling[9] = {0, 1, 0, /* column y1 = s1 */
                                   0, 0, 1, /* column y2 = v1 */
                                   1, 0, 0 /* column y3 = F_k */};

static cosa_status create(const cosa_model *m, const double *par, cosa_system **out)
{
    struct twomass_blocks b;
    cosa_subsystem sub[2];
    cosa_status st = fill(par, &b, sub);
    if (st != COSA_OK)
        return st;
    return cosa_system_create(out, 2, sub, coupling);
}

static cosa_status update(const cosa_model *m, const double *par, cosa_system *sys)
{
    struct twomass_blocks b;
    cosa_subsystem sub[2];
    cosa_status st = fill(par, &b, sub);
    if (st == COSA_OK)
        st = cosa_system_set_subsystem(sys, 0, &sub[0]);
    if (st == COSA_OK)
        st = cosa_system_set_subsystem(sys, 1, &sub[1]);
    return st;
}

static cosa_status initial_state(const cosa_model *m, const double *par, double *x0)
{
    x0[0] = par[S1];
    x0[1] = par[V1];
    x0[2] = par[S2];
    x0[3] = par[V2];
    return COSA_OK;
}

static const char *state_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"s1", "v1", "s2", "v2"};
    return k < 4 ? n[k] : NULL;
}
static const char *input_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I.Fk", "II.s1", "II.v1"};
    return k < 3 ? n[k] : NULL;
}
static const char *output_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"s1", "v1", "Fk"};
    return k < 3 ? n[k] : NULL;
}

static const char *sub_name(const cosa_model *m, const double *par, size_t k)
{
    static const char *const n[] = {"I", "II"};
    return k < 2 ? n[k] : NULL;
}

const cosa_model cosa_model_twomass = {
    .name = "twomass",
    .doc = "two-mass oscillator, force/displacement coupling (MBCorr paper eq 27)",
    .nparam = NPAR,
    .params = params,
    .tend = 0.3,
    .create = create,
    .update = update,
    .initial_state = initial_state,
    .state_name = state_name,
    .input_name = input_name,
    .output_name = output_name,
    .data = NULL,
    .sub_name = sub_name,
};
