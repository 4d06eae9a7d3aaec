/* test_fmu_event.c -- FMI 3.0 event mode of an FMU unit (lib/td/fmu_event.c,
 * lib/td/unit_event.c) on the event test FMUs of make check (COSA_FMUDIR,
 * tests/fmu/event_fmu.c), against the bouncing ball's closed form. */
#include <criterion/criterion.h>

#include "cosa.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double g = 9.81, e = 0.7;

static cosa_unit *unit_of(const char *name, cosa_fmu **f)
{
    const char *d = getenv("COSA_FMUDIR");
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", d ? d : "tests/fmu", name);
    cr_assert_eq(cosa_fmu_open(path, f, err, sizeof err), COSA_OK, "%s: %s", name, err);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(*f, "B", &u), COSA_OK);
    return u;
}

/* The ball from h0 at rest: the first bounce t1 = sqrt(2 h0 / g) with
 * speed v1 = g t1; a step of 0.5 ends there early, Event Mode reverses the
 * velocity to e v1.  Tolerance: the FMU's tau* = (v + sqrt(v^2 + 2 g h))/g
 * and the reference differ by rounding of a few operations on O(1)
 * numbers: 16 eps. */
Test(fmu_event, ball_stops_at_the_bounce)
{
    cosa_fmu *f;
    cosa_unit *u = unit_of("ball_fmi3.fmu", &f);
    cr_assert_eq(cosa_unit_fmu_set_events(u, 1), COSA_OK, "%s", cosa_unit_message(u));
    cr_assert(cosa_unit_has_events(u));
    cr_expect(isinf(cosa_unit_next_event(u)));
    const double t1 = sqrt(2.0 / g), v1 = g * t1;
    double hd;
    int ev;
    cr_assert_eq(cosa_unit_do_step_event(u, 0.5, &hd, &ev), COSA_OK, "%s", cosa_unit_message(u));
    cr_expect(fabs(hd - t1) <= 16 * DBL_EPSILON, "h_done %.17g t1 %.17g", hd, t1);
    cr_expect_eq(ev, 1);
    cr_expect(cosa_unit_event_pending(u));
    double t, x[2];
    cosa_unit_get_state(u, &t, x);
    cr_expect(fabs(t - t1) <= 16 * DBL_EPSILON);
    cr_expect(fabs(x[1] + v1) <= 16 * DBL_EPSILON * v1, "v %.17g", x[1]);
    cr_assert_eq(cosa_unit_event_update(u, NULL), COSA_OK, "%s", cosa_unit_message(u));
    cosa_unit_get_state(u, NULL, x);
    cr_expect(fabs(x[1] - e * v1) <= 16 * DBL_EPSILON * v1, "v after %.17g", x[1]);
    cr_expect_eq(x[0], 0.0);
    cosa_unit_counters c;
    cosa_unit_get_counters(u, &c);
    cr_expect_eq(c.events, 1);
    cr_expect_eq(c.early_returns, 1);
    cr_expect_eq(c.steps, 1);
    /* the next bounce: t2 = t1 + 2 e v1 / g */
    cr_assert_eq(cosa_unit_do_step_event(u, 1.0, &hd, &ev), COSA_OK);
    cr_expect(fabs(hd - 2.0 * e * v1 / g) <= 64 * DBL_EPSILON, "%.17g", hd);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* A plain step over both bounces handles the events inside: the state at
 * t = 1 is the closed form of the second flight (independent route). */
Test(fmu_event, plain_step_handles_the_events_inside)
{
    cosa_fmu *f;
    cosa_unit *u = unit_of("ball_fmi3.fmu", &f);
    cr_assert_eq(cosa_unit_fmu_set_events(u, 1), COSA_OK);
    cr_assert_eq(cosa_unit_do_step(u, 1.0), COSA_OK, "%s", cosa_unit_message(u));
    const double t1 = sqrt(2.0 / g), v1 = g * t1, tau = 1.0 - t1;
    const double h = e * v1 * tau - 0.5 * g * tau * tau, v = e * v1 - g * tau;
    double t, x[2];
    cosa_unit_get_state(u, &t, x);
    cr_expect_eq(t, 1.0);
    cr_expect(fabs(x[0] - h) <= 64 * DBL_EPSILON && fabs(x[1] - v) <= 64 * DBL_EPSILON * v1,
              "h %.17g (%.17g) v %.17g (%.17g)", x[0], h, x[1], v);
    cosa_unit_counters c;
    cosa_unit_get_counters(u, &c);
    cr_expect_eq(c.events, 1);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* Events off: the instance has no event mode, and do_step_event is a plain
 * step (the FMU bounces inside, no early end). */
Test(fmu_event, events_off_is_a_plain_step)
{
    cosa_fmu *f;
    cosa_unit *u = unit_of("ball_fmi3.fmu", &f);
    cr_expect(!cosa_unit_has_events(u));
    double hd;
    int ev;
    cr_assert_eq(cosa_unit_do_step_event(u, 0.5, &hd, &ev), COSA_OK);
    cr_expect_eq(hd, 0.5);
    cr_expect_eq(ev, 0);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

Test(fmu_event, time_event_is_announced)
{
    cosa_fmu *f;
    cosa_unit *u = unit_of("stepsrc_fmi3.fmu", &f);
    cr_assert_eq(cosa_unit_fmu_set_events(u, 1), COSA_OK, "%s", cosa_unit_message(u));
    cr_expect_eq(cosa_unit_next_event(u), 0.35);
    double hd, y;
    int ev;
    cr_assert_eq(cosa_unit_do_step_event(u, 0.35, &hd, &ev), COSA_OK);
    cr_expect_eq(ev, 1);
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK, "%s", cosa_unit_message(u));
    cr_expect_eq(y, 0.0, "%g", y); /* the left limit */
    double tn;
    cr_assert_eq(cosa_unit_event_update(u, &tn), COSA_OK);
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK, "%s", cosa_unit_message(u));
    cr_expect_eq(y, 1.0, "%g", y);
    cr_expect(isinf(tn));
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

Test(fmu_event, refusals_are_one_line)
{
    cosa_fmu *f;
    cosa_unit *u = unit_of("filter_fmi3.fmu", &f);
    cr_expect_eq(cosa_unit_fmu_set_events(u, 1), COSA_EUNSUPPORTED); /* no hasEventMode */
    cosa_unit_free(u);
    cosa_fmu_close(f);
    /* the event iteration that never settles */
    u = unit_of("ballnosettle_fmi3.fmu", &f);
    cr_expect_eq(cosa_unit_fmu_set_events(u, 1), COSA_EFMU); /* at the initial Event Mode */
    cr_expect(strstr(cosa_unit_message(u), "did not settle") != NULL, "%s",
              cosa_unit_message(u));
    cosa_unit_free(u);
    cosa_fmu_close(f);
    /* an early return that was not allowed (events off) */
    u = unit_of("ballrude_fmi3.fmu", &f);
    cr_expect_eq(cosa_unit_do_step(u, 0.5), COSA_EUNSUPPORTED);
    cr_expect(strstr(cosa_unit_message(u), "earlyReturnAllowed = false") != NULL, "%s",
              cosa_unit_message(u));
    cosa_unit_free(u);
    cosa_fmu_close(f);
}
