/* control_impl.h -- private declarations of the controller and estimator tables
 * (lib/td/control.c, lib/td/vo_estimator.c) that only lib/td uses. */
#ifndef COSA_TD_CONTROL_IMPL_H
#define COSA_TD_CONTROL_IMPL_H

#include "cosa/td.h"

/* from cosa/control.h: used only inside lib/ (not part of the installed API) */
size_t cosa_vo_estimator_count(void);

const cosa_vo_estimator *cosa_vo_estimator_at(size_t i);          /* NULL past the end */

const cosa_controller_type *cosa_controller_get_type(const cosa_controller *c);

/* The decision after an attempted macro step of the variable-order engine:
 * the type's decide(), or, without one, next() on the attempt's error norm
 * (max(err_pos, err_vel) or err_u, floored at 1e-16; a failed corrector
 * repeats the step at a quarter), the degree unchanged, stop when the next
 * step is <= p->vo.hmin.  COSA_EINVAL before reset. */
cosa_status cosa_controller_decide(cosa_controller *c, const cosa_vo_control_input *in,
                                   const cosa_vo_history *hist, cosa_vo_decision *out);

#endif /* COSA_TD_CONTROL_IMPL_H */
