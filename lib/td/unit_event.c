/* unit_event.c -- events of a co-simulation unit (cosa/td.h, "Events"): a
 * step that may end early at an event (FMI 3.0 early return, or an event
 * the unit signals at its end), Event Mode at the unit's time, and the next
 * time event it announced.  A unit type without events (event_update NULL,
 * or events off) steps to t_c + h as cosa_unit_do_step and has no events. */
#include "td/unit_impl.h"

#include <math.h>

cosa_status cosa_unit_do_step_event(cosa_unit *u, double h, double *h_done, int *event)
{
    if (!u || !h_done || !event)
        return COSA_EINVAL;
    *h_done = h;
    *event = 0;
    if (!u->events)
        return cosa_unit_do_step(u, h);
    u->may_stop = 1;
    cosa_status st = cosa_unit_do_step(u, h);
    u->may_stop = 0;
    if (st != COSA_OK)
        return st;
    *h_done = u->h_done;
    *event = u->pending;
    return COSA_OK;
}

cosa_status cosa_unit_event_update(cosa_unit *u, double *t_next)
{
    if (!u)
        return COSA_EINVAL;
    if (u->events && u->type->event_update) {
        cosa_status st = u->type->event_update(u);
        if (st != COSA_OK)
            return st;
    }
    u->pending = 0;
    if (t_next)
        *t_next = u->t_event;
    return COSA_OK;
}

int cosa_unit_has_events(const cosa_unit *u) { return u && u->events && u->type->event_update; }
int cosa_unit_event_pending(const cosa_unit *u) { return u ? u->pending : 0; }
double cosa_unit_next_event(const cosa_unit *u)
{
    return u && u->events ? u->t_event : INFINITY;
}

/* ---- for type implementers ---------------------------------------------------- */

void cosa_unit_set_events(cosa_unit *u, int on)
{
    if (!u)
        return;
    u->events = on != 0;
    u->pending = 0;
    u->t_event = INFINITY;
}

int cosa_unit_step_may_stop(const cosa_unit *u) { return u ? u->may_stop : 0; }

void cosa_unit_step_stopped(cosa_unit *u, double h_done, int event)
{
    if (!u)
        return;
    /* an early end only where the caller accepts one; the length stays in (0, h] */
    if (u->may_stop && h_done > 0.0 && h_done < u->h_done)
        u->h_done = h_done;
    u->pending = event != 0;
}

void cosa_unit_set_next_event(cosa_unit *u, double t)
{
    if (u)
        u->t_event = t == t ? t : INFINITY;
}
