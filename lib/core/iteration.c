/* iteration.c -- the iteration of a coupling scheme, one half of its
 * descriptor (the other: the master's input builder, lib/td/input_builder.h):
 *   none         the master's proposal is the step (explicit Jacobi and
 *                Gauss-Seidel, corrections; lib/td/master.c);
 *   one-sweep    one Gauss-Seidel sweep whose inputs are the degree-q
 *                interpolants through the end values (gs:P/Q;
 *                lib/td/iterate.c);
 *   fixed-point  the step is iterated: sweeps over the units from T_n with
 *                given input polynomials, relaxed by the scheme's relax or
 *                Aitken's factor, until the window-end values converge
 *                (imp:, gs-imp:; lib/td/iterate.c).
 * "Does this scheme iterate" is the entry's field iterates, which the
 * fixed-step run (lib/td/coupling.c), the command, the master, the sweeps
 * and the combination rules (combination.c) read. */
#include "cosa/core.h"

#include <stddef.h>

const cosa_iteration_type cosa_iteration_none = {"none", 0, 0};
const cosa_iteration_type cosa_iteration_one_sweep = {"one-sweep", 1, 0};
const cosa_iteration_type cosa_iteration_fixed_point = {"fixed-point", 1, 1};

const cosa_iteration_type *cosa_iteration_of(const cosa_scheme *s)
{
    if (s && s->implicit) /* imp:, gs-imp: */
        return &cosa_iteration_fixed_point;
    if (s && s->q_extra) /* gs:P/Q */
        return &cosa_iteration_one_sweep;
    return &cosa_iteration_none;
}
