/* coupling.c -- the iteration of a coupling scheme, the second half of its
 * descriptor (the first: the input builder, input_builder.h): the entries
 *   none         the master's proposal is the step (explicit Jacobi and
 *                Gauss-Seidel, corrections; lib/td/master.c);
 *   one-sweep    one Gauss-Seidel sweep whose inputs are the degree-q
 *                interpolants through the end values (gs:P/Q;
 *                lib/td/iterate.c);
 *   fixed-point  the step is iterated: sweeps over the units from T_n with
 *                given input polynomials, relaxed by the scheme's relax or
 *                Aitken's factor, until the window-end values converge
 *                (imp:, gs-imp:; lib/td/iterate.c).
 * "Does this scheme iterate" is the entry's one field (iterates), which
 * the fixed-step run (driver.c), the command and the combination rules
 * (lib/core/combination.c) read. */
#include "td/master_impl.h"
#include "td/stepping_impl.h"

/* The master alone: the scheme's own input builder (mopt). */
static cosa_status none_create(cosa_unitset *set, const cosa_scheme *s, double H,
                               const cosa_master_opts *mopt, const cosa_iter_opts *io,
                               cosa_iter **it, cosa_master **m)
{
    (void)io;
    *it = NULL;
    return cosa_master_create(set, s, H, mopt, m);
}

/* The sweeps (iterate.c), which own their master (given inputs). */
static cosa_status sweeps_create(cosa_unitset *set, const cosa_scheme *s, double H,
                                      const cosa_master_opts *mopt, const cosa_iter_opts *io,
                                      cosa_iter **it, cosa_master **m)
{
    cosa_status st = cosa_iter_create(set, s, H, mopt, io, it);
    *m = cosa_iter_master(*it);
    return st;
}

const cosa_iteration_type cosa_iteration_none = {
    .name = "none", .iterates = 0, .repeats = 0, .create = none_create};

const cosa_iteration_type cosa_iteration_one_sweep = {
    .name = "one-sweep", .iterates = 1, .repeats = 0, .create = sweeps_create};

const cosa_iteration_type cosa_iteration_fixed_point = {
    .name = "fixed-point", .iterates = 1, .repeats = 1, .create = sweeps_create};

const cosa_iteration_type *cosa_iteration_of(const cosa_scheme *s)
{
    if (s && s->implicit) /* imp:, gs-imp: */
        return &cosa_iteration_fixed_point;
    if (s && s->q_extra) /* gs:P/Q */
        return &cosa_iteration_one_sweep;
    return &cosa_iteration_none;
}
