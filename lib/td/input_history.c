/* input_history.c -- the input builders on the stored history: the
 * degree-p Lagrange extrapolation through ybar_n, ..., ybar_{n-p} (MBCorr
 * paper section 2.3, step 1; doc/method.md, section 4)
 *   P(s) = sum_j l_j(s) ybar_{n-j}, Lagrange basis on s = 0, -1, ..., -p,
 *   E_p = P(1) = sum_j e_j ybar_{n-j},
 * and the same polynomial held: before unit step j of K the value
 * u~(j / K), constant over that step (energy paper, eq 9). */
#include "td/input_builder.h"
#include "td/stepping_impl.h"
#include "td/unitset_impl.h"

#include <string.h>

static cosa_status history_alloc(cosa_master *m, const cosa_master_opts *opt)
{
    (void)opt;
    m->nout = -1;
    m->q = m->p;
    return COSA_OK;
}

static cosa_status history_init(cosa_master *m, const double *yhist)
{
    master_history_from(m, yhist);
    return COSA_OK;
}

/* P(s) and E_p from the committed history. */
static cosa_status history_extrapolate(cosa_master *m)
{
    const size_t ny = m->ny, np = m->np;
    /* after a start from the initial state only nvalid samples exist: the
     * degree is capped to nvalid - 1 (cosa_master_init_initial) */
    const size_t nq = m->nvalid < np ? m->nvalid : np;
    double lagq[NP_MAX * NP_MAX], eq[NP_MAX], wq[NP_MAX];
    const double *lag = m->lag, *e = m->e;
    if (nq < np && !m->tail) { /* the tail's tables are for nq nodes */
        cosa_order_tables((int)nq - 1, lagq, eq, wq);
        lag = lagq, e = eq;
    }
    for (size_t l = 0; l < ny; l++) {
        double ep = 0.0;
        for (size_t j = 0; j < nq; j++)
            ep += e[j] * m->hist[l + j * ny];
        m->Ep[l] = ep;
        for (size_t k = 0; k < np; k++) {
            double c = 0.0;
            for (size_t j = 0; k < nq && j < nq; j++)
                c += lag[j * nq + k] * m->hist[l + j * ny];
            m->P[l + k * ny] = c;
        }
    }
    return COSA_OK;
}

/* Unit i's polynomial u~ as derivatives at T_n (m->der), recorded in
 * m->uder for the step data. */
static cosa_status history_unit_input(cosa_master *m, size_t i, cosa_unit *u, size_t ou)
{
    (void)i;
    const size_t nu = m->nu, np = m->np, nui = u->nu;
    cosa_status st = cosa_unit_set_input(u, m->p, m->der);
    for (size_t k = 0; k < np; k++)
        for (size_t r = 0; r < nui; r++)
            m->uder[ou + r + k * nu] = m->der[r + k * nui];
    return st;
}

/* Held: u~(s_j), s_j = j / K (Horner in s), as the input of unit step j. */
static cosa_status held_substep_input(cosa_master *m, cosa_unit *u, size_t ou, unsigned j,
                                      unsigned K)
{
    const size_t nu = m->nu, np = m->np, nui = u->nu;
    const double sj = (double)j / (double)K;
    for (size_t r = 0; r < nui; r++) {
        double v = 0.0;
        for (size_t k = np; k-- > 0;)
            v = v * sj + m->a[ou + r + k * nu];
        m->der[r] = v;
    }
    return cosa_unit_set_input(u, 0, m->der);
}

const cosa_input_builder_type cosa_input_history = {
    .name = "history",
    .needs = COSA_INPUT_NEEDS_HISTORY,
    .comb = COSA_COMB_INPUT_HISTORY,
    .alloc = history_alloc,
    .init = history_init,
    .prepare = history_extrapolate,
    .advance = master_advance,
    .unit_input = history_unit_input,
};

/* Held inputs: the history's rows with COSA_COMB_HELD (plain Jacobi, no
 * correction, no snapshots of the step (the mid sample, gains by steps), no
 * events: combination.c). */
const cosa_input_builder_type cosa_input_held = {
    .name = "held",
    .needs = COSA_INPUT_NEEDS_HISTORY,
    .comb = COSA_COMB_INPUT_HISTORY,
    .alloc = history_alloc,
    .init = history_init,
    .prepare = history_extrapolate,
    .advance = master_advance,
    .unit_input = history_unit_input,
    .substep_input = held_substep_input,
};
