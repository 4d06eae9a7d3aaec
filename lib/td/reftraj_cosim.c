/* reftraj_cosim.c -- a reference trajectory from a fine co-simulation of
 * the same unit set (cosa simulate --ref fine): for units whose monolithic
 * model cosa cannot integrate itself, such as nonlinear FMUs, whose
 * linearisation is no reference. */
#include "td/unit_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    for (size_t k = 0; st == COSA_OK && k < nsamples; k++) {
        for (unsigned j = 0; k > 0 && j < factor && st == COSA_OK; j++)
            st = cosa_master_step(m);
        if (st == COSA_OK)
            st = cosa_master_get(m, NULL, r->x + k * nx, NULL, NULL, r->y + k * ny, NULL);
        for (size_t i = 0; st == COSA_OK && i < nx; i++)
            if (!isfinite(r->x[k * nx + i]))
                st = COSA_ENOTCONVERGED;
    }
    r->nsteps = (long)((nsamples - 1) * factor);
    cosa_master_free(m);
    if (st != COSA_OK) {
        cosa_reftraj_free(r);
        return st;
    }
    *out = r;
    return COSA_OK;
}
