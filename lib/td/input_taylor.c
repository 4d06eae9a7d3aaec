/* input_taylor.c -- the Taylor input builder (defect paper, eq 15 and
 * Algorithm 1, step 1): at T_n the units' output derivatives y^(0..n) are
 * made consistent through the coupling (cosa_unitset_exchange_derivatives,
 * which also sets every unit's inputs to their Taylor polynomials), the
 * inputs' derivatives u^(j) = L y^(j) (+ c for j = 0), j = 0..q, q =
 * min(p, n), are recorded, and after its step every unit reports
 * y^(0..n)(T_n + H) with the step's input continued.  Non-iterative Jacobi
 * without corrections; the macro step may change between steps. */
#include "td/input_builder.h"
#include "td/stepping_impl.h"
#include "td/unitset_impl.h"

#include <string.h>

static cosa_status taylor_check(const cosa_master_opts *opt)
{
    return opt->out_order < 0 || opt->out_order > COSA_UNIT_DERMAX ? COSA_ERANGE : COSA_OK;
}

static cosa_status taylor_alloc(cosa_master *m, const cosa_master_opts *opt)
{
    m->nout = opt->out_order;
    m->q = m->nout < m->p ? m->nout : m->p;
    return COSA_OK;
}

/* Consistent y^(0..n)(t0) (the inputs set on the way); the history holds
 * y(t0) in every slot, as cosa_master_init_loop does. */
static cosa_status taylor_init(cosa_master *m, const double *yhist)
{
    (void)yhist;
    cosa_status st = cosa_unitset_exchange_derivatives(m->set, m->p, m->nout, m->yder, NULL);
    if (st != COSA_OK)
        return st;
    for (size_t j = 0; j < m->np; j++)
        memcpy(m->hist + j * m->ny, m->yder, m->ny * sizeof *m->yder);
    memcpy(m->y, m->yder, m->ny * sizeof *m->yder);
    return COSA_OK;
}

/* Consistent y^(0..n)(T_n), the inputs set to their Taylor polynomials;
 * u^(j) = L y^(j) (+ c for j = 0), j = 0..q. */
static cosa_status taylor_prepare(cosa_master *m)
{
    cosa_status st = cosa_unitset_exchange_derivatives(m->set, m->p, m->nout, m->yder, NULL);
    if (st != COSA_OK)
        return st;
    cosa_unitset_couple(m->set, 0, m->nu, (size_t)m->q + 1, m->yder, m->ny ? m->ny : 1, m->uder,
                        m->nu ? m->nu : 1);
    return COSA_OK;
}

/* y^(0..n)(T_n + H) of unit i with the step's input continued. */
static cosa_status taylor_after_step(cosa_master *m, size_t i, cosa_unit *u, size_t oy)
{
    (void)i;
    cosa_status st = cosa_unit_get_output_derivatives(u, m->nout, m->dtmp);
    if (st != COSA_OK)
        return st;
    for (int j = 0; j <= m->nout; j++)
        for (size_t r = 0; r < u->ny; r++)
            m->yend[oy + r + (size_t)j * m->ny] = m->dtmp[r + (size_t)j * u->ny];
    return COSA_OK;
}

const cosa_input_builder_type cosa_input_taylor = {
    .name = "taylor",
    .needs = COSA_INPUT_NEEDS_OUTPUT_DER,
    .comb = COSA_COMB_INPUT_TAYLOR,
    .check = taylor_check,
    .alloc = taylor_alloc,
    .init = taylor_init,
    .prepare = taylor_prepare,
    .advance = master_advance,
    .after_step = taylor_after_step,
};
