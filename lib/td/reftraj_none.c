/* reftraj_none.c -- the trajectory of a run without a reference (issue 31:
 * black boxes have no linearised network to compare with; `cosa simulate
 * --ref none`, cosa_run without one): the unit set's sizes at the macro
 * step H, the start-up samples that are known copied, x(0) the units' own
 * states otherwise, and NaN everywhere else; `none` set, so that the run
 * computes no e_global and takes its divergence bound from what it knows. */
#include "cosa/td.h"
#include "td/unit_impl.h"

#include <math.h>
#include <string.h>

cosa_status cosa_reftraj_none(const cosa_unitset *set, const cosa_reftraj *known, double H,
                              size_t nsamples, cosa_reftraj **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || nsamples == 0)
        return COSA_EINVAL;
    if (!(H > 0.0) || !isfinite(H))
        return COSA_ERANGE;
    const size_t nx = cosa_unitset_nx(set), ny = cosa_unitset_ny(set);
    const size_t nk = known ? known->nsamples : 0;
    if (known && (known->nx != nx || known->ny != ny || nk > nsamples))
        return COSA_EINVAL;
    cosa_reftraj *r = NULL;
    cosa_status st = reftraj_alloc(nx, ny, nsamples, H, &r);
    if (st != COSA_OK)
        return st;
    r->none = 1;
    for (size_t k = 0; k < nx * nsamples; k++)
        r->x[k] = NAN;
    for (size_t k = 0; k < ny * nsamples; k++)
        r->y[k] = NAN;
    if (nk) {
        memcpy(r->x, known->x, nx * nk * sizeof *r->x);
        memcpy(r->y, known->y, ny * nk * sizeof *r->y);
    } else {
        for (size_t i = 0; i < cosa_unitset_count(set); i++) {
            size_t ox;
            cosa_unitset_offsets(set, i, &ox, NULL, NULL);
            if ((st = cosa_unit_get_state(cosa_unitset_unit(set, i), NULL, r->x + ox)) !=
                COSA_OK) {
                cosa_reftraj_free(r);
                return st;
            }
        }
    }
    *out = r;
    return COSA_OK;
}
