/* coupling.c -- the stepper of a fixed-step run by the scheme's iteration
 * entry (cosa_iteration_of, lib/core/iteration.c): the master alone with the
 * scheme's input builder (mopt), or the sweeps of lib/td/iterate.c, which
 * own their master (given inputs). */
#include "td/master_impl.h"
#include "td/stepping_impl.h"

cosa_status cosa_coupling_stepper_create(cosa_unitset *set, const cosa_scheme *s, double H,
                                         const cosa_master_opts *mopt,
                                         const cosa_iter_opts *io, cosa_iter **it,
                                         cosa_master **m)
{
    if (!it || !m)
        return COSA_EINVAL;
    *it = NULL;
    *m = NULL;
    if (!cosa_iteration_of(s)->iterates)
        return cosa_master_create(set, s, H, mopt, m);
    cosa_status st = cosa_iter_create(set, s, H, mopt, io, it);
    *m = cosa_iter_master(*it);
    return st;
}
