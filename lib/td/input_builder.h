/* input_builder.h -- how the master builds the units' input polynomials of a
 * macro step: the input builders as const ops tables (private to lib/td).
 *
 * One builder per kind of input (cosa_master_opts.extrapolation, held):
 *   history  degree-p Lagrange extrapolation through ybar_n .. ybar_{n-p}
 *            (MBCorr paper; input_history.c);
 *   held     the history's polynomial, its value at each unit step's start
 *            held over that step (energy paper, eq 9; input_history.c);
 *   taylor   Taylor polynomial of degree min(p, n) from consistent output
 *            derivatives y^(0..n)(T_n) (defect paper, eq 15; input_taylor.c);
 *   given    the caller's polynomials, cosa_master_set_inputs (the
 *            iteration, the variable-order engine; input_given.c).
 * A builder states what it needs from the units and the caller, and names
 * its rows in the one table of combination rules (lib/core/combination.c:
 * what it composes with), which cosa_master_create asks (COSA_EUNSUPPORTED)
 * before anything is allocated; the master calls the builder's functions
 * instead of testing its kind. */
#ifndef COSA_TD_INPUT_BUILDER_H
#define COSA_TD_INPUT_BUILDER_H

#include "td/master_impl.h"

/* What a builder needs (bits of cosa_input_builder_type.needs). */
enum {
    COSA_INPUT_NEEDS_HISTORY = 1u,     /* p + 1 output samples at cosa_master_init */
    COSA_INPUT_NEEDS_OUTPUT_DER = 2u,  /* the units' output derivatives (exchange
                                          and cosa_unit_get_output_derivatives) */
    COSA_INPUT_NEEDS_CALLER = 4u       /* cosa_master_set_inputs before each
                                          proposal (and its macro step)          */
};

typedef struct cosa_input_builder_type {
    const char *name;
    unsigned needs;    /* COSA_INPUT_NEEDS_* */
    unsigned comb;     /* its COSA_COMB_INPUT_* bit: its rows in the
                          combination rules (lib/core/combination.c) */
    /* Its own options (may be NULL): COSA_ERANGE for a bad one. */
    cosa_status (*check)(const cosa_master_opts *opt);
    /* At create (opt may be NULL): m->q, m->nout and its own buffers (the
     * master then allocates the derivative records for them). */
    cosa_status (*alloc)(cosa_master *m, const cosa_master_opts *opt);
    /* The history at t0 (m->t set, the units at their states): yhist
     * (ny x np; NULL only for builders without NEEDS_HISTORY) into m->hist
     * and m->y. */
    cosa_status (*init)(cosa_master *m, const double *yhist);
    /* Start of a proposal, before the linearisation (may be NULL): the
     * output polynomials P(s) and E_p, or the inputs themselves. */
    cosa_status (*prepare)(cosa_master *m);
    /* The advance stage: every unit gets its inputs, steps and reports
     * y_{n+1} (master_advance, or the builder's own). */
    cosa_status (*advance)(cosa_master *m);
    /* In master_advance, unit i's input polynomial m->der (nu_i x np) before
     * its step (may be NULL: the inputs are set already). */
    cosa_status (*unit_input)(cosa_master *m, size_t i, cosa_unit *u, size_t ou);
    /* Before unit step j of K within the macro step (may be NULL). */
    cosa_status (*substep_input)(cosa_master *m, cosa_unit *u, size_t ou, unsigned j,
                                 unsigned K);
    /* After unit i's step, its outputs read (may be NULL). */
    cosa_status (*after_step)(cosa_master *m, size_t i, cosa_unit *u, size_t oy);
} cosa_input_builder_type;

extern const cosa_input_builder_type cosa_input_history;
extern const cosa_input_builder_type cosa_input_held;
extern const cosa_input_builder_type cosa_input_taylor;
extern const cosa_input_builder_type cosa_input_given;

/* The builder of a master's options (NULL: the history's); NULL for an
 * unknown extrapolation kind. */
const cosa_input_builder_type *cosa_input_builder_of(const cosa_master_opts *opt);

/* Shared by the builders (master.c): the advance stage through the unit
 * set in the execution order; ubar = L v + c + du; the history from
 * samples (ny x np) into m->hist and m->y. */
cosa_status master_advance(cosa_master *m);
void master_inputs_of(const cosa_master *m, const double *v, double *uout);
void master_history_from(cosa_master *m, const double *yhist);

#endif
