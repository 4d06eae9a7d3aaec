/* reftraj_cosim.c -- a reference trajectory from a fine co-simulation of
 * the same unit set (cosa simulate --ref fine): for units whose monolithic
 * model cosa cannot integrate itself, such as nonlinear FMUs, whose
 * linearisation is no reference.
 *
 * Algebraic loops.  When units with direct feedthrough close a loop, the
 * plain fine co-simulation feeds the loop's extrapolated outputs back into
 * themselves: per fine step y_{n+1} = D L E_p(y_n, ..., y_{n-p}) + (terms
 * of the states), E_p the degree-p extrapolation to the next point, whose
 * weights e_j = (-1)^j binom(p+1, j+1) make sum_j e_j lambda^(p-j) =
 * lambda^(p+1) - (lambda - 1)^(p+1).  On an eigenvector of D L with
 * eigenvalue mu the outputs grow as lambda^n with
 *     (1 - mu) lambda^(p+1) + mu (lambda - 1)^(p+1) = 0,
 * i.e. w = 1 - 1/lambda solves w^(p+1) = (mu - 1)/mu, and |lambda| < 1 iff
 * |1 - w| > 1.  For p = 0 (ZOH) that is |mu| < 1, the contraction of the
 * fixed-point iteration; for real mu < 0 the root w = (1 + 1/|mu|)^(1/(p+1))
 * needs w > 2, |mu| < 1/(2^(p+1) - 1): 1, 1/3, 1/7 for ZOH, FOH, SOH; and
 * for SOH with 0 < mu < 1 the roots at angle +-pi/3 need mu < 1/2.  A loop
 * of two feedthrough units has mu = +-sqrt(a1 a2), so SOH at H/64 blows up
 * already for a1 a2 > 1/49, the faster the finer the step.  No extrapolation
 * order cures every loop that has a solution (I - D L invertible), so the
 * loop is solved at every fine point instead: y_{n+1} = y(t_{n+1},
 * x_{n+1}) by the loop solver, the extrapolation runs on these consistent
 * outputs, and the outputs no longer feed back through the history -- the
 * recursion is that of the states alone, as in a network without a loop,
 * and the reference keeps its order p + 1 in H/factor. */
#include "td/evolve.h"
#include "td/unit_impl.h"
#include "td/master_impl.h"
#include "td/unitset_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sampling observer: sample k after every factor-th committed step
 * (and at the start), the state checked finite; the outputs from ycons
 * (the loop's consistent ones) when it is set, else the master's. */
struct sampler {
    const cosa_master *m;
    cosa_reftraj *r;
    unsigned factor;
    size_t nx, ny;
    const double *ycons;
};

static cosa_status sample(const cosa_master *m, struct sampler *s, size_t k)
{
    cosa_reftraj *r = s->r;
    cosa_status st = cosa_master_get(m, NULL, r->x + k * s->nx, NULL, NULL,
                                     s->ycons ? NULL : r->y + k * s->ny, NULL);
    if (s->ycons && s->ny)
        memcpy(r->y + k * s->ny, s->ycons, s->ny * sizeof *r->y);
    for (size_t i = 0; st == COSA_OK && i < s->nx; i++)
        if (!isfinite(r->x[k * s->nx + i]))
            st = COSA_ENOTCONVERGED;
    return st;
}

static cosa_status sample_step(void *ctx, const evolve_attempt *a, int *halt)
{
    (void)halt;
    struct sampler *s = ctx;
    const size_t n = a->k + 1; /* steps committed */
    return n % s->factor ? COSA_OK : sample(s->m, s, n / s->factor);
}

/* ---- the loop-consistent stepper: the master with given inputs ------------ */

struct loopstep {
    cosa_master *m;    /* COSA_EXTRAP_GIVEN                                  */
    cosa_unitset *set;
    const double *L;
    size_t nx, nu, ny, np; /* np = p + 1                                      */
    double h;
    double *hist;      /* ny x np: consistent y_n, y_{n-1}, ..., y_{n-p}     */
    double *lag;       /* np x np: Lagrange basis on s = 0, -1, ..., -p       */
    double *P, *uder;  /* ny x np coefficients of s^k; nu x np derivatives    */
    double *x, *y;     /* nx, ny                                              */
};

static void loopstep_free(struct loopstep *ls)
{
    free(ls->hist);
    free(ls->lag);
    free(ls->P);
    free(ls->uder);
    free(ls->x);
    free(ls->y);
}

static cosa_status loopstep_alloc(struct loopstep *ls, cosa_master *m, cosa_unitset *set, int p,
                                  double h)
{
    memset(ls, 0, sizeof *ls);
    ls->m = m;
    ls->set = set;
    ls->L = cosa_unitset_L(set);
    ls->nx = cosa_unitset_nx(set), ls->nu = cosa_unitset_nu(set), ls->ny = cosa_unitset_ny(set);
    ls->np = (size_t)p + 1;
    ls->h = h;
    const size_t np = ls->np;
    double e[COSA_ORDER_MAX + 1], w[COSA_ORDER_MAX + 1];
    ls->hist = calloc(ls->ny * np + 1, sizeof *ls->hist);
    ls->lag = calloc(np * np, sizeof *ls->lag);
    ls->P = calloc(ls->ny * np + 1, sizeof *ls->P);
    ls->uder = calloc(ls->nu * np + 1, sizeof *ls->uder);
    ls->x = calloc(ls->nx + 1, sizeof *ls->x);
    ls->y = calloc(ls->ny + 1, sizeof *ls->y);
    if (!ls->hist || !ls->lag || !ls->P || !ls->uder || !ls->x || !ls->y) {
        loopstep_free(ls);
        return COSA_ENOMEM;
    }
    cosa_order_tables(p, ls->lag, e, w);
    return COSA_OK;
}

/* The inputs of the step, u~(s) = L P(s) with P the degree-p extrapolation
 * of the consistent outputs (as the master's history extrapolation), as
 * derivatives at T_n: d^k u/dt^k = k! a_k / h^k; then the master's step. */
static cosa_status loop_propose(void *ctx, const evolve_attempt *a)
{
    struct loopstep *ls = ctx;
    const size_t ny = ls->ny, nu = ls->nu, np = ls->np;
    for (size_t l = 0; l < ny; l++)
        for (size_t k = 0; k < np; k++) {
            double c = 0.0;
            for (size_t j = 0; j < np; j++)
                c += ls->lag[j * np + k] * ls->hist[l + j * ny];
            ls->P[l + k * ny] = c;
        }
    /* u^(k) = k!/h^k (L P + c e_0')_k */
    cosa_unitset_couple(ls->set, 0, nu, np, ls->P, ny ? ny : 1, ls->uder, nu ? nu : 1);
    double fact = 1.0; /* k! / h^k */
    for (size_t k = 1; k < np; k++) {
        fact *= (double)k / ls->h;
        for (size_t r = 0; r < nu; r++)
            ls->uder[r + k * nu] *= fact;
    }
    cosa_status st = cosa_master_set_inputs(ls->m, (int)np - 1, ls->uder);
    return st == COSA_OK ? evolve_stepper_master.propose(ls->m, a) : st;
}

/* Commit, then the loop solved at (T_{n+1}, x_{n+1}) from y_n: the new
 * consistent outputs head the history. */
static cosa_status loop_commit(void *ctx, const evolve_attempt *a)
{
    struct loopstep *ls = ctx;
    double t;
    cosa_status st = evolve_stepper_master.commit(ls->m, a);
    if (st == COSA_OK)
        st = cosa_master_get(ls->m, &t, ls->x, NULL, NULL, NULL, NULL);
    if (st != COSA_OK)
        return st;
    memcpy(ls->y, ls->hist, ls->ny * sizeof *ls->y);
    if ((st = cosa_unitset_loop_solve(ls->set, t, ls->x, ls->y)) != COSA_OK)
        return st;
    memmove(ls->hist + ls->ny, ls->hist, (ls->np - 1) * ls->ny * sizeof *ls->hist);
    memcpy(ls->hist, ls->y, ls->ny * sizeof *ls->y);
    return COSA_OK;
}

static cosa_status loop_reject(void *ctx, const evolve_attempt *a)
{
    return evolve_stepper_master.reject(((struct loopstep *)ctx)->m, a);
}

static size_t loop_failed_unit(void *ctx)
{
    return evolve_stepper_master.failed_unit(((struct loopstep *)ctx)->m);
}

static double loop_next_event(void *ctx)
{
    return evolve_stepper_master.next_event(((struct loopstep *)ctx)->m);
}

static int loop_reached(void *ctx, double *t)
{
    return evolve_stepper_master.reached(((struct loopstep *)ctx)->m, t);
}

/* the master's stepper with the loop solved after every proposal; its
 * events are the master's */
static const evolve_stepper stepper_loop = {"master, algebraic loop solved", loop_propose,
                                            loop_commit, loop_reject, loop_failed_unit,
                                            loop_next_event, loop_reached};

/* Does a feedthrough cycle close at (0, x0)?  Every unit is set there first
 * (an FMU's Jacobians exist at its current point only). */
static cosa_status has_loop(cosa_unitset *set, const double *x0, int *loop)
{
    const size_t n = cosa_unitset_count(set);
    unsigned char *flag = calloc(n + 1, 1);
    if (!flag)
        return COSA_ENOMEM;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < n && st == COSA_OK; i++) {
        size_t ox;
        cosa_unitset_offsets(set, i, &ox, NULL, NULL);
        st = cosa_unit_set_state(cosa_unitset_unit(set, i), 0.0, x0 + ox);
    }
    if (st == COSA_OK)
        st = cosa_unitset_find_loop(set, 0.0, x0, flag, loop);
    free(flag);
    return st;
}

/* A unit's request to end the simulation (unit_end.c) ends the reference
 * after the accepted fine step that raised it; the samples past it stay
 * NaN (the run itself ends at that time too: the same FMU asks). */
static cosa_status halt_on_end(void *ctx, const evolve_attempt *a, int *halt)
{
    (void)a;
    *halt = cosa_unitset_end_asked(ctx) != (size_t)-1;
    return COSA_OK;
}

cosa_status cosa_reftraj_cosim(cosa_unitset *set, const cosa_scheme *s, const double *x0,
                               double H, size_t nsamples, unsigned factor, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || !s || !x0 || nsamples == 0 || factor == 0)
        return COSA_EINVAL;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    const size_t nx = cosa_unitset_nx(set), ny = cosa_unitset_ny(set);
    cosa_reftraj *r = NULL;
    cosa_master *m = NULL;
    struct loopstep ls = {0};
    int loop = 0;
    cosa_status st = has_loop(set, x0, &loop);
    if (st == COSA_OK && loop && (s->exec != COSA_JACOBI || s->corr != COSA_CORR_NONE))
        st = COSA_EUNSUPPORTED;
    if (st == COSA_OK)
        st = reftraj_alloc(nx, ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    const cosa_master_opts given = {.extrapolation = COSA_EXTRAP_GIVEN};
    st = cosa_master_create(set, s, H / factor, loop ? &given : NULL, &m);
    if (st == COSA_OK && loop)
        st = loopstep_alloc(&ls, m, set, s->order, H / factor);
    if (st == COSA_OK)
        st = cosa_master_init_loop(m, 0.0, x0);
    if (st == COSA_OK && loop) /* y0: the loop's solution, in every slot (as the master) */
        for (size_t j = 0; j < ls.np; j++)
            cosa_master_get(m, NULL, NULL, NULL, NULL, ls.hist + j * ny, NULL);
    struct sampler smp = {.m = m, .r = r, .factor = factor, .nx = nx, .ny = ny,
                          .ycons = loop ? ls.hist : NULL};
    if (st == COSA_OK)
        st = sample(m, &smp, 0);
    /* (nsamples - 1) factor fixed steps of the one loop, sampled */
    evolve_fixed fixed;
    evolve_fixed_steps(&fixed, 0.0, 0, (nsamples - 1) * factor, H / factor, 0.0);
    const evolve_observer obs[] = {{.committed = sample_step, .ctx = &smp},
                                   {.committed = halt_on_end, .ctx = set}};
    const evolve_config c = {.stepper = loop ? &stepper_loop : &evolve_stepper_master,
                             .stepper_ctx = loop ? (void *)&ls : (void *)m,
                             .controller = &evolve_controller_fixed, .controller_ctx = &fixed,
                             .observers = obs, .nobservers = 2};
    evolve_stats stats;
    for (size_t k = nx; st == COSA_OK && k < nx * nsamples; k++)
        r->x[k] = NAN; /* past an end an FMU asks for: no sample */
    for (size_t k = ny; st == COSA_OK && k < ny * nsamples; k++)
        r->y[k] = NAN;
    cosa_unitset_allow_end(set, 1);
    if (st == COSA_OK)
        st = evolve_run(&c, &stats);
    cosa_unitset_allow_end(set, 0);
    r->nsteps = (long)((nsamples - 1) * factor);
    r->loop = loop;
    cosa_master_free(m);
    loopstep_free(&ls);
    if (st != COSA_OK) {
        cosa_reftraj_free(r);
        return st;
    }
    *out = r;
    return COSA_OK;
}
