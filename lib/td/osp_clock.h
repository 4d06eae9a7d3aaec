/* osp_clock.h -- libcosim's clock, written once for the OSP runs
 * (ecco.c, osp_fixed.c; private to lib/td): its time is integer
 * nanoseconds (cosim/time.hpp over std::chrono), a step's length as a
 * double is the difference of its ends' times (to_double_duration), and
 * execution::simulate_until takes at least one step, then goes on while
 * tend - t is at least 1 % of the step (the steps are never cut at tend:
 * the last one may end past it, by less than itself).  cosa's own
 * fixed-step runs end at tend instead (evolve_fixed_plan). */
#ifndef COSA_TD_OSP_CLOCK_H
#define COSA_TD_OSP_CLOCK_H

#include <stddef.h>

/* seconds -> nanoseconds, truncated as libcosim's duration_cast */
static inline long long osp_to_ns(double s) { return (long long)(s * 1e9); }
static inline double osp_to_s(long long ns) { return (double)ns / 1e9; }

/* simulate_until's test after n steps at t_ns, the step step_ns: 1 to go on */
static inline int osp_until_more(size_t n, long long t_ns, long long tend_ns, long long step_ns)
{
    return n == 0 || (double)(tend_ns - t_ns) >= 0.01 * (double)step_ns;
}

#endif
