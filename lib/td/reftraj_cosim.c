/* reftraj_cosim.c -- a reference trajectory from a fine co-simulation of
 * the same unit set (cosa simulate --ref fine): for units whose monolithic
 * model cosa cannot integrate itself, such as nonlinear FMUs, whose
 * linearisation is no reference. */
#include "td/evolve.h"
#include "td/unit_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sampling observer: sample k after every factor-th committed step
 * (and at the start), the state checked finite. */
struct sampler {
    const cosa_master *m;
    cosa_reftraj *r;
    unsigned factor;
    size_t nx, ny;
};

static cosa_status sample(const cosa_master *m, struct sampler *s, size_t k)
{
    cosa_reftraj *r = s->r;
    cosa_status st = cosa_master_get(m, NULL, r->x + k * s->nx, NULL, NULL, r->y + k * s->ny, NULL);
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
    cosa_status st = reftraj_alloc(nx, ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    if (st == COSA_OK)
        st = cosa_master_create(set, s, H / factor, NULL, &m);
    if (st == COSA_OK)
        st = cosa_master_init_loop(m, 0.0, x0);
    struct sampler smp = {.m = m, .r = r, .factor = factor, .nx = nx, .ny = ny};
    if (st == COSA_OK)
        st = sample(m, &smp, 0);
    /* (nsamples - 1) factor fixed steps of the one loop, sampled */
    evolve_fixed fixed = {.n = (nsamples - 1) * factor, .H = H / factor};
    const evolve_observer sampler = {.committed = sample_step, .ctx = &smp};
    const evolve_config c = {.stepper = &evolve_stepper_master, .stepper_ctx = m,
                             .controller = &evolve_controller_fixed, .controller_ctx = &fixed,
                             .observers = &sampler, .nobservers = 1};
    evolve_stats stats;
    if (st == COSA_OK)
        st = evolve_run(&c, &stats);
    r->nsteps = (long)((nsamples - 1) * factor);
    cosa_master_free(m);
    if (st != COSA_OK) {
        cosa_reftraj_free(r);
        return st;
    }
    *out = r;
    return COSA_OK;
}
