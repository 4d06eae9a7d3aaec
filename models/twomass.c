/* twomass.c -- the linear two-mass oscillator with force/displacement
 * coupling, MBCorr paper section 3.1, eq 27.
 *
 * Subsystem I (mass m1 on spring c1, damper d1):
 *   x = [s1, v1], u = [F_k], y = [s1, v1];  m1 v1' = -c1 s1 - d1 v1 + F_k.
 * Subsystem II (mass m2 on c2, d2, plus the coupling element c_k, d_k):
 *   x = [s2, v2], u = [s1, v1], y = [F_k],
 *   F_k = c_k (s2 - s1) + d_k (v2 - v1),  m2 v2' = -c2 s2 - d2 v2 - F_k.
 * Coupling: u_I = F_k = y_II,  u_II = [s1, v1] = y_I. */
#include "fixed.h"
#include "builtin.h"

#include <stdlib.h>

enum { M1, M2, C1, C2, D1, D2, CK, DK, S1, V1, S2, V2, NPAR };

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 10.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 10.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
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

static cosa_status fill(const double *par, double *store, cosa_subsystem *sub)
{
    /* column-major blocks: I: A 2x2, B 2x1, C 2x2, D 2x1;  II: A 2x2, B 2x2, C 1x2, D 1x2 */
    double *Ai = store, *Bi = store + 4, *Ci = store + 6, *Di = store + 10;
    double *Aii = store + 12, *Bii = store + 16, *Cii = store + 20, *Dii = store + 22;
    double m1 = par[M1], m2 = par[M2];
    if (!(m1 > 0.0) || !(m2 > 0.0))
        return COSA_EPARAM;
    double ck = par[CK], dk = par[DK];
    /* subsystem I */
    Ai[0] = 0.0;            Ai[2] = 1.0;
    Ai[1] = -par[C1] / m1;  Ai[3] = -par[D1] / m1;
    Bi[0] = 0.0;            Bi[1] = 1.0 / m1;
    Ci[0] = 1.0;            Ci[2] = 0.0;
    Ci[1] = 0.0;            Ci[3] = 1.0;
    Di[0] = 0.0;            Di[1] = 0.0;
    /* subsystem II */
    Aii[0] = 0.0;                   Aii[2] = 1.0;
    Aii[1] = -(ck + par[C2]) / m2;  Aii[3] = -(dk + par[D2]) / m2;
    Bii[0] = 0.0;        Bii[2] = 0.0;
    Bii[1] = ck / m2;    Bii[3] = dk / m2;
    Cii[0] = ck;         Cii[1] = dk;
    Dii[0] = -ck;        Dii[1] = -dk;
    sub[0] = (cosa_subsystem){2, 1, 2, Ai, Bi, Ci, Di};
    sub[1] = (cosa_subsystem){2, 2, 1, Aii, Bii, Cii, Dii};
    return COSA_OK;
}

/* u = [F_k, s1, v1] = L [s1, v1, F_k] (eq 27). */
static const double coupling[9] = {0, 1, 0, /* column y1 = s1 */
                                   0, 0, 1, /* column y2 = v1 */
                                   1, 0, 0 /* column y3 = F_k */};

static const char *const state_names[] = {"s1", "v1", "s2", "v2"};
static const char *const input_names[] = {"I.Fk", "II.s1", "II.v1"};
static const char *const output_names[] = {"s1", "v1", "Fk"};
static const char *const sub_names[] = {"I", "II"};
static const int x0_param[] = {S1, V1, S2, V2};

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
        "subsystem I\n"
        "  states  s1 v1\n"
        "  inputs  Fk\n"
        "  outputs s1 v1\n"
        "  A = [ 0, 1\n"
        "        -c1/m1, -d1/m1 ]\n"
        "  B = [ 0; 1/m1 ]\n"
        "  C = eye\n"
        "  D = zeros\n"
        "  x0 = [ s1; v1 ]\n"
        "end\n"
        "\n"
        "subsystem II\n"
        "  states  s2 v2\n"
        "  inputs  s1 v1\n"
        "  outputs Fk\n"
        "  A = [ 0, 1\n"
        "        -(ck + c2)/m2, -(dk + d2)/m2 ]\n"
        "  B = [ 0, 0\n"
        "        ck/m2, dk/m2 ]\n"
        "  C = [ ck, dk ]\n"
        "  D = [ -ck, -dk ]\n"
        "  x0 = [ s2; v2 ]\n"
        "end\n"
        "\n"
        "connect I.s1 -> II.s1\n"
        "connect I.v1 -> II.v1\n"
        "connect II.Fk -> I.Fk\n",
};

const cosa_model model_twomass = {
    .name = "twomass",
    .doc = "two-mass oscillator, force/displacement coupling (MBCorr paper eq 27)",
    .nparam = NPAR,
    .params = params,
    .tend = 0.3,
    .data = &desc,
    .dump_template = &dump_template,
    MODEL_FIXED_CALLBACKS,
};
