/* input_given.c -- the caller's input polynomials (cosa_master_set_inputs:
 * u^(0..q)(T_n), q <= COSA_UNIT_DEGMAX) and macro step (cosa_master_set_step):
 * the input builder of the iteration (iterate.c), the variable-order engine
 * (vo_run.c) and the OSP and reference runs.  Plain Jacobi without
 * corrections, mid samples, gains by steps, held inputs, events or unit
 * rates (its rows in lib/core/combination.c); the only builder that takes a
 * unit set with coupling variables (u = S phi(y) is no L ybar: the caller
 * applies it). */
#include "td/input_builder.h"
#include "td/stepping_impl.h"
#include "td/unitset_impl.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static cosa_status given_alloc(cosa_master *m, const cosa_master_opts *opt)
{
    (void)opt;
    m->nout = -1;
    m->q = 0;
    m->gder = calloc(m->nu * (COSA_UNIT_DEGMAX + 1) + 1, sizeof(double));
    m->gst = calloc(m->nunits + 1, sizeof *m->gst);
    return m->gder && m->gst ? COSA_OK : COSA_ENOMEM;
}

/* The samples if the caller has them, else the outputs at t0 in every slot
 * (the history is unused but read out). */
static cosa_status given_init(cosa_master *m, const double *yhist)
{
    if (yhist) {
        master_history_from(m, yhist);
        return COSA_OK;
    }
    for (size_t i = 0; i < m->nunits; i++) {
        size_t oy;
        cosa_unitset_offsets(m->set, i, NULL, NULL, &oy);
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        cosa_status st = u->ny ? cosa_unit_get_output(u, m->y + oy) : COSA_OK;
        if (st != COSA_OK)
            return st;
    }
    for (size_t j = 0; j < m->np; j++)
        memcpy(m->hist + j * m->ny, m->y, m->ny * sizeof *m->y);
    return COSA_OK;
}

/* Every unit gets its block of the caller's input derivatives, steps and
 * reports y_{n+1}.  The units are independent (Jacobi), so they run in
 * parallel (OpenMP); each writes only its own blocks, so the result does not
 * depend on the thread count, and the failure reported is the lowest index.
 * One step of H per unit: a unit set with rates K > 1 is refused at
 * cosa_master_create (combination.c). */
static cosa_status given_advance(cosa_master *m)
{
    const size_t nu = m->nu, nq = (size_t)m->q + 1, nunits = m->nunits;
    const long n = (long)nunits;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (nunits > 1) \
    num_threads(omp_get_max_threads() < n ? omp_get_max_threads() : (int)n)
#endif
    for (long ii = 0; ii < n; ii++) {
        const size_t i = (size_t)ii;
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t ou, oy;
        cosa_unitset_offsets(m->set, i, NULL, &ou, &oy);
        const size_t nui = u->nu;
        double *der = m->gder + ou * (COSA_UNIT_DEGMAX + 1);
        for (size_t k = 0; k < nq; k++)
            for (size_t r = 0; r < nui; r++)
                der[r + k * nui] = m->uder[ou + r + k * nu];
        cosa_status st = cosa_unit_set_input(u, m->q, der);
        if (st == COSA_OK)
            st = cosa_unit_do_step(u, m->H);
        if (st == COSA_OK && u->ny)
            st = cosa_unit_get_output(u, m->y_new + oy);
        m->gst[i] = st;
    }
    for (size_t i = 0; i < nunits; i++)
        if (m->gst[i] != COSA_OK) {
            m->failed = i;
            return m->gst[i];
        }
    return COSA_OK;
}

const cosa_input_builder_type cosa_input_given = {
    .name = "given",
    .needs = COSA_INPUT_NEEDS_CALLER,
    .comb = COSA_COMB_INPUT_GIVEN,
    .alloc = given_alloc,
    .init = given_init,
    .advance = given_advance,
};
