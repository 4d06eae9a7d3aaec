/* cosa/internal/fmu.h -- the build tree's view of cosa/fmu.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/fmu.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_FMU_H
#define COSA_INTERNAL_FMU_H

#include "cosa/fmu.h"

cosa_status cosa_fmu_open_flags(const char *path, unsigned flags, cosa_fmu **out, char *err,
                                size_t errsize);

void cosa_archive_remove(const char *dir);

const char *cosa_fmu_token(const cosa_fmu *fmu);           /* token (3) / guid (2) */

const char *cosa_fmu_directory(const cosa_fmu *fmu);       /* the unzipped tree */

unsigned cosa_fmu_caps(const cosa_fmu *fmu);               /* COSA_FMU_CAP_*    */

size_t cosa_fmu_state_derivative(const cosa_fmu *fmu, size_t i);

size_t cosa_fmu_nother(const cosa_fmu *fmu);

const cosa_fmu_other *cosa_fmu_other_at(const cosa_fmu *fmu, size_t i);

/* The name of an interval variability ("constant", ..., "triggered"; "?"
 * out of range). */
const char *cosa_fmu_interval_variability_name(int iv);

/* The same for an Integer (Int32), Boolean or String variable, the value as
 * text ("42"; "true"/"false"/"1"/"0"; any string), set with fmi2SetInteger/
 * SetBoolean/SetString (fmi3SetInt32/...) before initialization (OSP
 * InitialValues).  COSA_EPARAM for an unknown name, COSA_EUNSUPPORTED for
 * another type, COSA_ERANGE for a value that is not one of the type. */
cosa_status cosa_unit_fmu_set_start_text(cosa_unit *u, const char *name, const char *value);

/* Turn the FMU's logging on (loggingOn at instantiation) and pass every
 * message it logs to fn (NULL: logging off again); the FMU is instantiated
 * again now, at the unit's time and state.  COSA_EINVAL if u is not an FMU
 * unit, COSA_EFMU if the new instance fails (cosa_unit_message says why). */
cosa_status cosa_unit_fmu_set_logger(cosa_unit *u, cosa_fmu_log_fn *fn, void *user);

/* The first Warning status an FMU call of the unit returned, as one line
 * (the instance, the function, the time and what the FMU logged), or "" if
 * none did; NULL if u is not an FMU unit. */
const char *cosa_unit_fmu_warning(const cosa_unit *u);

cosa_status cosa_unit_fmu_set_events(cosa_unit *u, int on);

/* 1 when events are on for the FMU unit u (0 otherwise, or not an FMU). */
int cosa_unit_fmu_events(const cosa_unit *u);

/* The integrator of a Model Exchange FMU unit (default: CVODE BDF, rtol
 * 1e-10; doc/model-exchange.md); a co-simulation FMU integrates itself:
 * COSA_OK, nothing changes.  COSA_EINVAL for COSA_INTEGRATOR_EXACT,
 * COSA_EUNSUPPORTED (one line) for symplectic Euler (needs kick flags). */
cosa_status cosa_unit_fmu_set_integrator(cosa_unit *u, const cosa_integrator *cfg);

/* The class of an FMU variable type for discrete signals (doc/ssp.md
 * "Discrete signals"): 'i' an integer (Integer, Int8 ... UInt64), 'b'
 * Boolean, 'e' Enumeration, 0 any other type. */
int cosa_fmu_discrete_class(const char *type);

/* The instance name of an FMU unit, NULL for other units. */
const char *cosa_unit_fmu_name(const cosa_unit *u);

/* Connect an output clock of FMU unit from to a triggered input clock of
 * FMU unit to (README "Clocks"): whenever out_clock ticks (fmi3GetClock
 * active in from's Event Mode at t), in_clock ticks at t -- to's next event
 * is set to t and its Event Mode there (the master runs it at the same
 * communication point) activates in_clock with fmi3SetClock.  Both units
 * need events on (cosa_unit_fmu_set_events, before or after linking: the
 * link survives a new instance).
 * COSA_EPARAM for a name that is no clock of that FMU, COSA_EINVAL for a
 * non-FMU unit, an out_clock that is no output clock or an in_clock that
 * is no triggered input clock, COSA_ENOMEM. */
cosa_status cosa_unit_fmu_clock_link(cosa_unit *from, const char *out_clock, cosa_unit *to,
                                     const char *in_clock);

/* How many output clocks are linked to the input clock in_clock of FMU
 * unit u (cosa_unit_fmu_clock_link); 0 for an unlinked or unknown clock or
 * a unit that is no FMU.  A triggered input clock with none never ticks. */
unsigned cosa_unit_fmu_clock_driven(const cosa_unit *u, const char *in_clock);

/* Keep the FMU unit u in Initialization Mode: it is instantiated afresh at
 * time t with states x (as cosa_unit_set_state), entered into Initialization
 * Mode and left there, so that its inputs can be set and its outputs read
 * (cosa_unit_eval at (t, x)) while a loop is iterated; no step until
 * cosa_unit_fmu_init_exit.  COSA_EINVAL if u is not an FMU unit, COSA_EFMU
 * if the instantiation fails (cosa_unit_message says why). */
cosa_status cosa_unit_fmu_init_enter(cosa_unit *u, double t, const double *x);

/* At time t and stacked state x, find the units whose direct feedthrough
 * (D_i from cosa_unit_jacobian at inputs 0: a structural zero there is taken
 * as none) closes a cycle of the coupling u = L y; in_loop (nunits, may be
 * NULL) flags them.  When an FMU unit is among them, every FMU unit of the
 * loop is put in Initialization Mode at (t, x_i) (cosa_unit_fmu_init_enter),
 * the loop y = g(t, x, L y) is solved there by cosa_unitset_loop_solve's
 * Newton method and tolerance (||dy||_inf <= 1e-10 ||y||_inf, then one more
 * iteration; at most COSA_UNITSET_LOOP_MAXIT), from y = 0, and the FMUs
 * leave Initialization Mode; y (ny) receives the outputs.  Every unit is set
 * to (t, x_i) first.  COSA_ENOTCONVERGED (no convergence within the limit)
 * or COSA_EALGLOOP (I - D L singular: no unique fixed point), with the
 * iterations and residual in *res; other statuses from the units. */
cosa_status cosa_fmu_init_loop(cosa_unitset *set, double t, const double *x, double *y,
                               unsigned char *in_loop, cosa_fmu_init_result *res);

/* The feedthrough cycle test of cosa_fmu_init_loop alone, for any units: at
 * (t, x), with every unit already at its point (an FMU's Jacobians exist at
 * its current point only), in_loop[i] (nunits) = 1 for the units on a cycle
 * of u = L y through D != 0, and *loop (may be NULL) = 1 when there is one. */
cosa_status cosa_unitset_find_loop(cosa_unitset *set, double t, const double *x,
                                   unsigned char *in_loop, int *loop);

/* Whether scheme s's input degree (nu > 0) is within the smoothness cap of
 * cap: COSA_OK, or COSA_EUNSUPPORTED with the reason in why (one clause);
 * part of cosa_fmu_capability_check, and what cosa simulate checks before a
 * run. */
cosa_status cosa_fmu_smoothness_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size);

/* Whether the FMU can take a communication step of h (> 0): with a fixed
 * internal step hf (fixedInternalStepSize), h must be a whole number n >= 1
 * of them (to 1e-9 h), since such an FMU stops on its own grid.  COSA_OK (no
 * fixed step, or a multiple), COSA_ERANGE with the reason in why ("it takes
 * fixed internal steps of HF s ...: a step of H s is not a multiple of it";
 * may be NULL), COSA_EINVAL (NULL cap, h not > 0). */
cosa_status cosa_fmu_step_check(const cosa_fmu_capability *cap, double h, char *why, size_t size);

/* The largest K in 1..kmax for which H / K is a step every FMU of
 * caps[0..n) can take (cosa_fmu_step_check; NULL entries: not FMUs), as a
 * double; 1 if none larger is.  The fine reference's factor (dt / K). */
double cosa_fmu_step_grid(const cosa_fmu_capability *const *caps, size_t n, double H,
                          unsigned kmax);

/* The scheme of a fine reference over fmus[0..n) (NULL entries: not FMUs):
 * "soh", or the highest input degree every FMU with inputs accepts ("foh",
 * "zoh": one holds its inputs, e.g. a sampled controller with clocks). */
const char *cosa_fmu_fine_scheme(cosa_fmu *const *fmus, size_t n);

#endif /* COSA_INTERNAL_FMU_H */
