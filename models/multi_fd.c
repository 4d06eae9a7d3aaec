/* multi_fd.c -- the energy paper's multiple linear oscillator (section 4.1,
 * Figs 13-14): masses 1..n-1 (mass m each, to ground by spring k and damper
 * c, to mass n by the coupling kc, cc) and mass n (mn, to ground by kn, cn),
 * in a force/displacement split: unit Mi (i < n) holds mass i and its
 * coupling and returns the force f_i = kc (x_i - x_n) + cc (v_i - v_n) it
 * exerts on mass n (direct feedthrough); unit Mn holds mass n and takes
 * f_1..f_{n-1}:
 *   m v_i' = -(k + kc) x_i - (c + cc) v_i + kc x_n + cc v_n,
 *   mn v_n' = -kn x_n - cn v_n + sum_i f_i.
 * Mi: x = [x_i, v_i], u = [x_n, v_n], y = [f_i]; Mn: x = [x_n, v_n],
 * u = [f_1 .. f_{n-1}], y = [x_n, v_n].  Energy: kinetic + the springs'.
 * Power port: the forces f_i on mass n, its velocity v_n, the correction into
 * Mn's first force input.  For n = 2 every entry is computed as twomass-fd
 * computes it (the same operations): bitwise that model. */
#include "builtin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MULTI_NMAX 999

enum { NM, M, K, C, KC, CC, V, MN, KN, CN, VN, NPAR };

static const cosa_param params[NPAR] = {
    [NM] = {"n", 3.0, "", "number of masses (units M1..Mn)", COSA_PARAM_MODEL,
            {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 2.0, MULTI_NMAX, NULL, NULL}},
    [M] = {"m", 1.0, "kg", "mass of bodies 1..n-1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [K] = {"k", 10.0, "N/m", "spring of bodies 1..n-1 to ground", COSA_PARAM_MODEL},
    [C] = {"c", 0.0, "N s/m", "damper of bodies 1..n-1 to ground", COSA_PARAM_MODEL},
    [KC] = {"kc", 100.0, "N/m", "coupling spring of each body to mass n", COSA_PARAM_MODEL},
    [CC] = {"cc", 0.0, "N s/m", "coupling damper of each body to mass n", COSA_PARAM_MODEL},
    [V] = {"v", 100.0, "m/s", "initial velocity of bodies 1..n-1", COSA_PARAM_INITIAL},
    [MN] = {"mn", 1.0, "kg", "mass n", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [KN] = {"kn", 1000.0, "N/m", "spring of mass n to ground", COSA_PARAM_MODEL},
    [CN] = {"cn", 0.0, "N s/m", "damper of mass n to ground", COSA_PARAM_MODEL},
    [VN] = {"vn", -100.0, "m/s", "initial velocity of mass n", COSA_PARAM_INITIAL},
};

static cosa_status masses(const double *par, size_t *n)
{
    const double v = par[NM];
    if (!(v >= 2.0 && v <= MULTI_NMAX) || v != floor(v) || !(par[M] > 0.0) || !(par[MN] > 0.0))
        return COSA_EPARAM;
    *n = (size_t)v;
    return COSA_OK;
}

/* Entries of unit Mi (i < n) and of Mn, column-major A, B, C, D. */
enum { ENT_I = 4 + 4 + 2 + 2 };
static size_t entries_n(size_t n) { return 4 + 2 * (n - 1) + 4 + 2 * (n - 1); }

static cosa_subsystem fill_i(const double *par, double *b)
{
    double *A = b, *B = b + 4, *Cm = b + 8, *Dm = b + 10;
    const double m = par[M], kc = par[KC], cc = par[CC];
    A[0] = 0.0, A[2] = 1.0;
    A[1] = -(par[K] + kc) / m, A[3] = -(par[C] + cc) / m;
    B[0] = 0.0, B[2] = 0.0;
    B[1] = kc / m, B[3] = cc / m;
    Cm[0] = kc, Cm[1] = cc;
    Dm[0] = -kc, Dm[1] = -cc;
    return (cosa_subsystem){2, 2, 1, A, B, Cm, Dm};
}

static cosa_subsystem fill_n(const double *par, size_t n, double *b)
{
    const size_t nu = n - 1;
    double *A = b, *B = b + 4, *Cm = B + 2 * nu, *Dm = Cm + 4;
    const double mn = par[MN];
    A[0] = 0.0, A[2] = 1.0;
    A[1] = -par[KN] / mn, A[3] = -par[CN] / mn;
    for (size_t j = 0; j < nu; j++)
        B[2 * j] = 0.0, B[2 * j + 1] = 1.0 / mn;
    Cm[0] = 1.0, Cm[1] = 0.0, Cm[2] = 0.0, Cm[3] = 1.0;
    memset(Dm, 0, 2 * nu * sizeof *Dm);
    return (cosa_subsystem){2, nu, 2, A, B, Cm, Dm};
}

/* L (nu x ny, nu = 3 (n - 1), ny = n + 1): Mi's inputs x_n, v_n are the
 * outputs n - 1, n; Mn's input j is f_j (output j). */
static void fill_L(size_t n, double *L)
{
    const size_t nu = 3 * (n - 1), ny = n + 1;
    memset(L, 0, nu * ny * sizeof *L);
    for (size_t i = 0; i + 1 < n; i++) {
        L[2 * i + (n - 1) * nu] = 1.0;
        L[2 * i + 1 + n * nu] = 1.0;
        L[2 * (n - 1) + i + i * nu] = 1.0;
    }
}

static cosa_status create(const cosa_model *model, const double *par, cosa_system **out)
{
    (void)model;
    if (!par || !out)
        return COSA_EINVAL;
    *out = NULL;
    size_t n;
    cosa_status st = masses(par, &n);
    if (st != COSA_OK)
        return st;
    double *buf = malloc(((n - 1) * ENT_I + entries_n(n) + 3 * (n - 1) * (n + 1)) * sizeof *buf);
    cosa_subsystem *subs = malloc(n * sizeof *subs);
    if (!buf || !subs) {
        free(buf);
        free(subs);
        return COSA_ENOMEM;
    }
    for (size_t i = 0; i + 1 < n; i++)
        subs[i] = fill_i(par, buf + i * ENT_I);
    subs[n - 1] = fill_n(par, n, buf + (n - 1) * ENT_I);
    double *L = buf + (n - 1) * ENT_I + entries_n(n);
    fill_L(n, L);
    st = cosa_system_create(out, n, subs, L);
    free(buf);
    free(subs);
    return st;
}

static cosa_status update(const cosa_model *model, const double *par, cosa_system *sys)
{
    (void)model;
    size_t n;
    cosa_status st = masses(par, &n);
    if (st != COSA_OK)
        return st;
    if (cosa_system_nsub(sys) != n)
        return COSA_EINVAL;
    double *buf = malloc((ENT_I + entries_n(n)) * sizeof *buf);
    if (!buf)
        return COSA_ENOMEM;
    for (size_t i = 0; i + 1 < n && st == COSA_OK; i++) {
        cosa_subsystem s = fill_i(par, buf);
        st = cosa_system_store_subsystem(sys, i, &s);
    }
    if (st == COSA_OK) {
        cosa_subsystem s = fill_n(par, n, buf);
        st = cosa_system_store_subsystem(sys, n - 1, &s);
    }
    free(buf);
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

static cosa_status initial_state(const cosa_model *model, const double *par, double *x0)
{
    (void)model;
    size_t n;
    cosa_status st = masses(par, &n);
    if (st != COSA_OK)
        return st;
    for (size_t i = 0; i + 1 < n; i++)
        x0[2 * i] = 0.0, x0[2 * i + 1] = par[V];
    x0[2 * n - 2] = 0.0, x0[2 * n - 1] = par[VN];
    return COSA_OK;
}

/* E = sum m v_i^2/2 + mn v_n^2/2 + sum k x_i^2/2 + kn x_n^2/2 + sum kc (x_i - x_n)^2/2,
 * summed in twomass-fd's order for n = 2. */
static cosa_status energy(const cosa_model *model, const double *par, const double *x, double *E)
{
    (void)model;
    size_t n;
    cosa_status st = masses(par, &n);
    if (st != COSA_OK)
        return st;
    const double xn = x[2 * n - 2], vn = x[2 * n - 1];
    double s = 0.0;
    for (size_t i = 0; i + 1 < n; i++)
        s += par[M] * x[2 * i + 1] * x[2 * i + 1];
    s += par[MN] * vn * vn;
    for (size_t i = 0; i + 1 < n; i++)
        s += par[K] * x[2 * i] * x[2 * i];
    s += par[KN] * xn * xn;
    for (size_t i = 0; i + 1 < n; i++) {
        const double dx = x[2 * i] - xn;
        s += par[KC] * dx * dx;
    }
    *E = 0.5 * s;
    return COSA_OK;
}

/* Bonds f_1..f_{n-1} (outputs 0..n-2) on mass n, whose velocity is output n;
 * the correction into Mn's first input (3 (n - 1) - (n - 1) = 2 (n - 1)). */
static cosa_status energy_port(const cosa_model *model, const double *par, cosa_energy_port *port,
                               size_t *idx, size_t nidx)
{
    (void)model;
    size_t n;
    cosa_status st = masses(par, &n);
    if (st != COSA_OK)
        return st;
    if (nidx < n + 1)
        return COSA_ERANGE;
    for (size_t i = 0; i + 1 < n; i++)
        idx[i] = i;
    idx[n - 1] = n;
    idx[n] = 2 * (n - 1);
    *port = (cosa_energy_port){1, n - 1, idx, idx + n - 1, idx + n};
    return COSA_OK;
}

static const char *const xname[NAMED] = {NAMES999("x")};
static const char *const vname[NAMED] = {NAMES999("v")};
static const char *const fname[NAMED] = {NAMES999("f")};
static const char *const mname[NAMED] = {NAMES999("M")};
static const char *const inx[NAMED] = {NAMES999S("M", ".xn")};
static const char *const inv[NAMED] = {NAMES999S("M", ".vn")};
static const char *const inf[NAMED] = {NAMES999("Mn.f")};

static const char *state_name(const cosa_model *model, const double *par, size_t k)
{
    (void)model;
    size_t n;
    if (!par || masses(par, &n) != COSA_OK || k >= 2 * n)
        return NULL;
    return (k % 2 ? vname : xname)[k / 2];
}

static const char *input_name(const cosa_model *model, const double *par, size_t k)
{
    (void)model;
    size_t n;
    if (!par || masses(par, &n) != COSA_OK || k >= 3 * (n - 1))
        return NULL;
    if (k < 2 * (n - 1))
        return (k % 2 ? inv : inx)[k / 2];
    return inf[k - 2 * (n - 1)];
}

static const char *output_name(const cosa_model *model, const double *par, size_t k)
{
    (void)model;
    size_t n;
    if (!par || masses(par, &n) != COSA_OK || k > n)
        return NULL;
    if (k + 1 < n)
        return fname[k];
    return k + 1 == n ? "xn" : "vn";
}

static const char *sub_name(const cosa_model *model, const double *par, size_t k)
{
    (void)model;
    size_t n;
    if (!par || masses(par, &n) != COSA_OK || k >= n)
        return NULL;
    return mname[k];
}

/* The model-file form for the n of par (which the file fixes): fill_i() and
 * fill_n() as expressions, operation for operation; cosa_model_dump uses it
 * only if reading it back gives these matrices bit for bit. */
static int write_template(FILE *f, const cosa_model *m, const double *par)
{
    size_t n;
    (void)m;
    if (masses(par, &n) != COSA_OK)
        return -1;
    fprintf(f, "# %zu - 1 bodies coupled to mass n = %zu (n is fixed here)\n", n, n);
    for (size_t i = 1; i < n; i++)
        fprintf(f, "\nsubsystem M%zu\n  states  x%zu v%zu\n  inputs  xn vn\n  outputs f%zu\n"
                   "  A = [ 0, 1\n        -(k + kc)/m, -(c + cc)/m ]\n"
                   "  B = [ 0, 0\n        kc/m, cc/m ]\n  C = [ kc, cc ]\n  D = [ -kc, -cc ]\n"
                   "  x0 = [ 0; v ]\nend\n", i, i, i, i);
    fprintf(f, "\nsubsystem M%zu\n  states  x%zu v%zu\n  inputs ", n, n, n);
    for (size_t i = 1; i < n; i++)
        fprintf(f, " f%zu", i);
    fprintf(f, "\n  outputs xn vn\n  A = [ 0, 1\n        -kn/mn, -cn/mn ]\n  B = zeros\n");
    for (size_t i = 1; i < n; i++)
        fprintf(f, "  B[2,%zu] = 1/mn\n", i);
    fprintf(f, "  C = eye\n  D = zeros\n  x0 = [ 0; vn ]\nend\n\n");
    for (size_t i = 1; i < n; i++)
        fprintf(f, "connect M%zu.f%zu -> M%zu.f%zu\nconnect M%zu.xn -> M%zu.xn\n"
                   "connect M%zu.vn -> M%zu.vn\n", i, i, n, i, n, i, n, i);
    return ferror(f) ? -1 : 0;
}

static const char *const structural[] = {"n", NULL};
static const cosa_model_template dump_template = {.write = write_template, .fixed = structural};

const cosa_model model_multi_fd = {
    .name = "multi-fd",
    .doc = "energy paper's multiple linear oscillator: n - 1 bodies coupled to mass n, "
           "force/displacement (section 4.1)",
    .nparam = NPAR,
    .params = params,
    .tend = 10.0,
    .create = create,
    .update = update,
    .initial_state = initial_state,
    .state_name = state_name,
    .input_name = input_name,
    .output_name = output_name,
    .sub_name = sub_name,
    .dump_template = &dump_template,
    .energy = energy,
    .energy_port = energy_port,
};
