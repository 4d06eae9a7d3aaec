/* oscillator.c -- the two-mass oscillator of preCICE's oscillator tutorial
 * (partitioned, "Oscillator" tutorial): two unit masses, each held by a wall
 * spring, joined by a coupling spring; no damping.
 *
 *   m1 x1'' = -k1 x1 + F,   m2 x2'' = -k2 x2 - F,   F = k12 (x2 - x1),
 *
 * with m1 = m2 = 1, k1 = k2 = 4 pi^2, k12 = 16 pi^2: stiffness 4 pi^2
 * [[5, -4], [-4, 5]] with eigenvalues 4 pi^2 and 36 pi^2, so the
 * eigenfrequencies are 2 pi and 6 pi (periods 1 s and 1/3 s).  Split as
 * twomass: subsystem I (mass 1) reads the coupling force; subsystem II
 * (mass 2) owns the coupling spring, reads x1 and outputs the force on mass 1.
 *   I:  x = [x1, v1], u = [F],  y = [x1]
 *   II: x = [x2, v2], u = [x1], y = [F],  F = k12 x2 - k12 x1 (D = -k12).
 * The reference is the exact solution e^{A* t} x0 (no damping: a neutral
 * system, rho(Phi*) = 1). */
#include "fixed.h"
#include "builtin.h"

#include <math.h>

enum { M1, M2, K1, K2, K12, X1, V1, X2, V2, NPAR };

#define FOUR_PI2 (4.0 * M_PI * M_PI)

static const cosa_param params[NPAR] = {
    [M1] = {"m1", 1.0, "kg", "mass 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M2] = {"m2", 1.0, "kg", "mass 2", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [K1] = {"k1", FOUR_PI2, "N/m", "spring of mass 1 to the wall", COSA_PARAM_MODEL},
    [K2] = {"k2", FOUR_PI2, "N/m", "spring of mass 2 to the wall", COSA_PARAM_MODEL},
    [K12] = {"k12", 4.0 * FOUR_PI2, "N/m", "coupling spring", COSA_PARAM_MODEL},
    [X1] = {"x1", 1.0, "m", "initial displacement of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 0.0, "m/s", "initial velocity of mass 1", COSA_PARAM_INITIAL},
    [X2] = {"x2", 0.0, "m", "initial displacement of mass 2", COSA_PARAM_INITIAL},
    [V2] = {"v2", 0.0, "m/s", "initial velocity of mass 2", COSA_PARAM_INITIAL},
};

static cosa_status fill(const double *par, double *store, cosa_subsystem *sub)
{
    /* column-major blocks: I: A 2x2, B 2x1, C 1x2, D 1x1;  II: A 2x2, B 2x1, C 1x2, D 1x1 */
    double *Ai = store, *Bi = store + 4, *Ci = store + 6, *Di = store + 8;
    double *Aii = store + 9, *Bii = store + 13, *Cii = store + 15, *Dii = store + 17;
    const double m1 = par[M1], m2 = par[M2], k12 = par[K12];
    if (!(m1 > 0.0) || !(m2 > 0.0))
        return COSA_EPARAM;
    Ai[0] = 0.0;            Ai[2] = 1.0;
    Ai[1] = -par[K1] / m1;  Ai[3] = 0.0;
    Bi[0] = 0.0;            Bi[1] = 1.0 / m1;
    Ci[0] = 1.0;            Ci[1] = 0.0;
    Di[0] = 0.0;
    Aii[0] = 0.0;                    Aii[2] = 1.0;
    Aii[1] = -(par[K2] + k12) / m2;  Aii[3] = 0.0;
    Bii[0] = 0.0;                    Bii[1] = k12 / m2;
    Cii[0] = k12;                    Cii[1] = 0.0;
    Dii[0] = -k12;
    sub[0] = (cosa_subsystem){2, 1, 1, Ai, Bi, Ci, Di};
    sub[1] = (cosa_subsystem){2, 1, 1, Aii, Bii, Cii, Dii};
    return COSA_OK;
}

/* u = [F, x1] = L [x1, F]. */
static const double coupling[4] = {0, 1, /* column y1 = x1 */
                                   1, 0 /* column y2 = F  */};

static const char *const state_names[] = {"x1", "v1", "x2", "v2"};
static const char *const input_names[] = {"I.F", "II.x1"};
static const char *const output_names[] = {"x1", "F"};
static const char *const sub_names[] = {"I", "II"};
static const int x0_param[] = {X1, V1, X2, V2};

static const model_fixed_desc desc = {
    .nsub = 2, .nx = 4, .nu = 2, .ny = 2, .L = coupling, .fill = fill, .x0_param = x0_param,
    .state_names = state_names, .input_names = input_names, .output_names = output_names,
    .sub_names = sub_names,
};

/* The model-file form (cosa_model_dump), with fill()'s arithmetic. */
static const cosa_model_template dump_template = {
    .text =
        "subsystem I\n"
        "  states  x1 v1\n"
        "  inputs  F\n"
        "  outputs x1\n"
        "  A = [ 0, 1\n"
        "        -k1/m1, 0 ]\n"
        "  B = [ 0; 1/m1 ]\n"
        "  C = [ 1, 0 ]\n"
        "  D = zeros\n"
        "  x0 = [ x1; v1 ]\n"
        "end\n"
        "\n"
        "subsystem II\n"
        "  states  x2 v2\n"
        "  inputs  x1\n"
        "  outputs F\n"
        "  A = [ 0, 1\n"
        "        -(k2 + k12)/m2, 0 ]\n"
        "  B = [ 0; k12/m2 ]\n"
        "  C = [ k12, 0 ]\n"
        "  D = [ -k12 ]\n"
        "  x0 = [ x2; v2 ]\n"
        "end\n"
        "\n"
        "connect I.x1 -> II.x1\n"
        "connect II.F -> I.F\n",
};

const cosa_model model_oscillator = {
    .name = "oscillator",
    .doc = "two-mass oscillator of preCICE's tutorial (eigenfrequencies 2 pi and 6 pi)",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .data = &desc,
    .dump_template = &dump_template,
    MODEL_FIXED_CALLBACKS,
};
