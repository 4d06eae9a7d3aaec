/* integrator.c -- the integrator table of ODE units: names, the fixed-step
 * methods and the table itself (the CVODE entries are in integrator_cvode.c).
 *
 * Fixed-step methods cut a macro step h into n = ceil(h / hmicro) equal micro
 * steps hm (100 when hmicro <= 0) and take them with
 *   explicit Runge-Kutta (Butcher tableau): classical RK4 (order 4),
 *         forward Euler (order 1);
 *   symplectic Euler: v_{k+1} = v_k + hm f_v(t_k, s_k, v_k), then
 *         s_{k+1} = s_k + hm f_s(t_k, s_k, v_{k+1}) -- the kicked states
 *         (ode->kick) first, the rest with the kicked values; order 1.
 * The input is the unit's polynomial evaluated at each stage time. */
#include "td/integrator.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MICRO_DEFAULT 100 /* micro steps per macro step when hmicro <= 0 */

int integ_rhs(const struct integ_problem *pb, double tau, const double *x, double *xdot,
              double *uw)
{
    cosa_unit_input_at(pb->u, tau, uw);
    return pb->ode->f(cosa_unit_time(pb->u) + tau, x, uw, xdot, pb->ode->user_data);
}

/* Micro steps for a macro step h: ceil(h / hmicro) (100 without hmicro), or
 * 0 when that exceeds COSA_MICRO_STEPS_MAX (the double is compared before
 * any conversion to an integer: h / hmicro may be 1e300). */
static size_t micro_steps(const cosa_integrator *cfg, double h)
{
    if (!(cfg->hmicro > 0.0))
        return MICRO_DEFAULT;
    double n = ceil(h / cfg->hmicro * (1.0 - 1e-12));
    if (!(n <= (double)COSA_MICRO_STEPS_MAX))
        return 0;
    return n < 1.0 ? 1 : (size_t)n;
}

static cosa_status too_many_micro_steps(const struct integ_problem *pb, double h)
{
    cosa_unit_fail(pb->u,
                   "%s: the step from t = %.17g of %.17g / micro step %.17g needs more than %d "
                   "micro steps",
                   cosa_integrator_name(pb->cfg->kind), cosa_unit_time(pb->u), h,
                   pb->cfg->hmicro, COSA_MICRO_STEPS_MAX);
    return COSA_ERANGE;
}

/* ---- state of the fixed-step methods: stage vectors ------------------------ */

struct fixed_state {
    size_t nx;
    double *k[INTEG_RK_STAGES_MAX]; /* stage derivatives, nx each */
    double *xt;                     /* nx: stage argument          */
    double *uw;                     /* nu: input at a stage        */
    double *buf;
};

static void fixed_free(void *state)
{
    struct fixed_state *fs = state;
    if (!fs)
        return;
    free(fs->buf);
    free(fs);
}

static cosa_status fixed_alloc(const integrator_type *it, const struct integ_problem *pb,
                               void **state)
{
    const size_t nx = pb->ode->nx, nu = pb->ode->nu;
    const int ns = it->tableau ? it->tableau->stages : 2; /* symplectic Euler: 2 */
    struct fixed_state *fs = calloc(1, sizeof *fs);
    if (!fs || !(fs->buf = calloc((size_t)ns * nx + nx + nu + 1, sizeof(double)))) {
        free(fs);
        return COSA_ENOMEM;
    }
    fs->nx = nx;
    double *q = fs->buf;
    for (int i = 0; i < ns; i++, q += nx)
        fs->k[i] = q;
    fs->xt = q;
    fs->uw = q + nx;
    *state = fs;
    return COSA_OK;
}

static cosa_status rhs_failed(const struct integ_problem *pb, int rc)
{
    cosa_unit_fail(pb->u, "f returned %d at t = %.17g", rc, cosa_unit_time(pb->u));
    return COSA_ENOTCONVERGED;
}

/* One explicit Runge-Kutta step of size hm from x (in place) at tau. */
static int rk_micro(const struct butcher_tableau *bt, const struct integ_problem *pb,
                    struct fixed_state *fs, double tau, double hm, double *x)
{
    const size_t nx = fs->nx;
    int rc;
    for (int i = 0; i < bt->stages; i++) {
        const double *arg = x;
        int first = 1;
        for (int j = 0; j < i; j++) {
            const double a = bt->a[i][j];
            if (a == 0.0)
                continue;
            for (size_t r = 0; r < nx; r++)
                fs->xt[r] = first ? a * fs->k[j][r] : fs->xt[r] + a * fs->k[j][r];
            first = 0;
        }
        if (!first) {
            for (size_t r = 0; r < nx; r++)
                fs->xt[r] = x[r] + hm * fs->xt[r];
            arg = fs->xt;
        }
        if ((rc = integ_rhs(pb, tau + bt->c[i] * hm, arg, fs->k[i], fs->uw)) != 0)
            return rc;
    }
    /* x += hm / b_den * sum_j b_num_j k_j, the sum in stage order */
    const double hb = hm / bt->b_den;
    for (size_t r = 0; r < nx; r++) {
        double acc = 0.0;
        int first = 1;
        for (int j = 0; j < bt->stages; j++) {
            if (bt->b_num[j] == 0.0)
                continue;
            acc = first ? bt->b_num[j] * fs->k[j][r] : acc + bt->b_num[j] * fs->k[j][r];
            first = 0;
        }
        x[r] += hb * acc;
    }
    return 0;
}

static cosa_status rk_step(const integrator_type *it, const struct integ_problem *pb,
                           void *state, double h, double *x)
{
    struct fixed_state *fs = state;
    const size_t nsub = micro_steps(pb->cfg, h);
    if (nsub == 0)
        return too_many_micro_steps(pb, h);
    const double hm = h / (double)nsub;
    memcpy(x, cosa_unit_state(pb->u), fs->nx * sizeof *x);
    for (size_t k = 0; k < nsub; k++) {
        int rc = rk_micro(it->tableau, pb, fs, (double)k * hm, hm, x);
        if (rc != 0)
            return rhs_failed(pb, rc);
    }
    return COSA_OK;
}

static cosa_status symplectic_step(const integrator_type *it, const struct integ_problem *pb,
                                   void *state, double h, double *x)
{
    struct fixed_state *fs = state;
    const size_t nx = fs->nx, nsub = micro_steps(pb->cfg, h);
    if (nsub == 0)
        return too_many_micro_steps(pb, h);
    const double hm = h / (double)nsub;
    const unsigned char *kick = pb->ode->kick;
    int rc;
    memcpy(x, cosa_unit_state(pb->u), nx * sizeof *x);
    for (size_t k = 0; k < nsub; k++) {
        const double tau = (double)k * hm;
        if ((rc = integ_rhs(pb, tau, x, fs->k[0], fs->uw)) != 0)
            return rhs_failed(pb, rc);
        for (size_t i = 0; i < nx; i++)
            if (kick[i])
                x[i] += hm * fs->k[0][i];
        if ((rc = integ_rhs(pb, tau, x, fs->k[1], fs->uw)) != 0)
            return rhs_failed(pb, rc);
        for (size_t i = 0; i < nx; i++)
            if (!kick[i])
                x[i] += hm * fs->k[1][i];
    }
    return COSA_OK;
}

/* ---- the table --------------------------------------------------------------- */

static const struct butcher_tableau tableau_rk4 = {
    .stages = 4,
    .c = {0.0, 0.5, 0.5, 1.0},
    .a = {{0}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}},
    .b_num = {1.0, 2.0, 2.0, 1.0},
    .b_den = 6.0,
};

static const struct butcher_tableau tableau_euler = {
    .stages = 1, .c = {0.0}, .a = {{0}}, .b_num = {1.0}, .b_den = 1.0,
};

#define FIXED_STEP_OPS .alloc = fixed_alloc, .free = fixed_free

static const integrator_type integrator_rk4 = {
    .name = "rk4", .kind = COSA_INTEGRATOR_RK4, .order = 4, .tableau = &tableau_rk4,
    .step = rk_step, FIXED_STEP_OPS,
};
static const integrator_type integrator_symplectic_euler = {
    .name = "symplectic-euler", .kind = COSA_INTEGRATOR_SYMPLECTIC_EULER, .order = 1,
    .needs_kick = 1, .step = symplectic_step, FIXED_STEP_OPS,
};
static const integrator_type integrator_euler = {
    .name = "euler", .kind = COSA_INTEGRATOR_EULER, .order = 1, .tableau = &tableau_euler,
    .line_output = 1, .step = rk_step, FIXED_STEP_OPS,
};

/* Indexed by cosa_integrator_kind; "exact" has no ODE stepper (linear units). */
static const integrator_type *const table[COSA_INTEGRATOR_COUNT] = {
    [COSA_INTEGRATOR_EXACT] = NULL,
    [COSA_INTEGRATOR_CVODE_BDF] = &integrator_cvode_bdf,
    [COSA_INTEGRATOR_CVODE_ADAMS] = &integrator_cvode_adams,
    [COSA_INTEGRATOR_RK4] = &integrator_rk4,
    [COSA_INTEGRATOR_SYMPLECTIC_EULER] = &integrator_symplectic_euler,
    [COSA_INTEGRATOR_EULER] = &integrator_euler,
};

const integrator_type *integrator_lookup(cosa_integrator_kind kind)
{
    return (int)kind >= 0 && kind < COSA_INTEGRATOR_COUNT ? table[kind] : NULL;
}

/* ---- names --------------------------------------------------------------------- */

static const struct {
    const char *name;
    cosa_integrator_kind kind;
} names[] = {
    {"exact", COSA_INTEGRATOR_EXACT},
    {"cvode-bdf", COSA_INTEGRATOR_CVODE_BDF},
    {"cvode-adams", COSA_INTEGRATOR_CVODE_ADAMS},
    {"rk4", COSA_INTEGRATOR_RK4},
    {"symplectic-euler", COSA_INTEGRATOR_SYMPLECTIC_EULER},
    {"euler", COSA_INTEGRATOR_EULER},
    {"cvode", COSA_INTEGRATOR_CVODE_BDF}, /* alias, parse only */
};

const char *cosa_integrator_name(cosa_integrator_kind kind)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].kind == kind)
            return names[i].name;
    return "?";
}

int cosa_integrator_order(cosa_integrator_kind kind)
{
    const integrator_type *it = integrator_lookup(kind);
    return it ? it->order : 0;
}

int cosa_integrator_is_adaptive(cosa_integrator_kind kind)
{
    const integrator_type *it = integrator_lookup(kind);
    return it ? it->adaptive : 0;
}

cosa_status cosa_integrator_parse(const char *name, cosa_integrator *out)
{
    if (!name || !out)
        return COSA_EINVAL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *a = names[i].name, *b = name;
        while (*a && *b && tolower((unsigned char)*b) == *a)
            a++, b++;
        if (!*a && !*b) {
            *out = (cosa_integrator){.kind = names[i].kind, .rtol = 1e-10, .atol = 0.0,
                                     .hmicro = 0.0};
            return COSA_OK;
        }
    }
    return COSA_EINVAL;
}
