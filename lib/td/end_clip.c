/* end_clip.c -- the short last step of a fixed-step run (end_clip.h): the
 * count of full steps in a horizon, which runs can take a shorter last
 * step, and the master's inputs over it. */
#include "td/end_clip.h"
#include "td/master_impl.h"
#include "td/input_builder.h"

#include <math.h>

double cosa_end_clip_steps(double T, double H, double *h_last)
{
    *h_last = 0.0;
    if (!(T > 0.0) || !(H > 0.0) || !isfinite(T / H))
        return 0;
    /* T / H within COSA_END_CLIP_RTOL of an integer is that integer (0.3 / 1e-4
     * is 2999.9999999999995 in double) */
    const double q = T / H, r = nearbyint(q);
    if (r >= 1.0 && fabs(q - r) <= COSA_END_CLIP_RTOL * q)
        return r;
    const double n = floor(q);
    if (n >= 1.0) /* T shorter than H: no step, and no rest */
        *h_last = T - n * H;
    return n;
}

const char *cosa_end_clip_refusal(const cosa_scheme *s, const cosa_cosim_opts *o)
{
    if (!s || !o)
        return "no scheme";
    /* the rules of the one table (lib/core/combination.c, COSA_RULE_SHORT_LAST) */
    const unsigned f = COSA_COMB_SHORT_LAST | (o->iter ? COSA_COMB_ITER_OPTS : 0u) |
                       (o->energy ? COSA_COMB_ENERGY : 0u);
    cosa_combination_refusal why;
    return cosa_combination_check(s, f, 0, &why) == COSA_OK ? NULL : why.needs;
}

/* GS's interpolation through (1, y_{n+1}), (0, ybar_n), (-r, ybar_{n-1}),
 * ... and the extrapolation through (0, ybar_n), (-r, ybar_{n-1}), ...
 * (nq of them), in units of the step h, r = H / h. */
static void last_step_tables(cosa_master *m, size_t nq, double r)
{
    double s[NP_MAX + 1];
    for (size_t j = 0; j < nq; j++)
        s[j] = -(double)j * r;
    cosa_lagrange_nodes((int)nq - 1, s, m->lag);
    for (size_t j = 0; j < nq; j++) { /* e_j = l_j(1) */
        double v = 0.0;
        for (size_t k = 0; k < nq; k++)
            v += m->lag[j * nq + k];
        m->e[j] = v;
    }
    const size_t np = m->np;
    s[0] = 1.0;
    for (size_t j = 1; j < np; j++)
        s[j] = -(double)(j - 1) * r;
    cosa_lagrange_nodes((int)np - 1, s, m->lag1);
}

cosa_status cosa_master_set_last_step(cosa_master *m, double h)
{
    if (!m)
        return COSA_EINVAL;
    /* the builders that take a new step (combination.c), and events */
    if (cosa_combination_check(&m->s, m->comb | COSA_COMB_STEP_CHANGE, 0, NULL) == COSA_OK)
        return cosa_master_set_step(m, h);
    if (!isfinite(h) || !(h > 0.0) || h > m->H)
        return COSA_ERANGE;
    if (cosa_combination_check(&m->s, m->comb | COSA_COMB_SHORT_LAST, 0, NULL) != COSA_OK)
        return COSA_EUNSUPPORTED; /* cosa_end_clip_refusal's schemes */
    const size_t nq = m->nvalid < m->np ? m->nvalid : m->np;
    last_step_tables(m, nq ? nq : 1, m->H / h);
    m->tail = 1; /* stage_extrapolate takes these tables even when nq < np */
    m->H = h;
    m->t_base = m->t;
    m->nsince = 0;
    return COSA_OK;
}
