/* unit_end.c -- an end of the simulation a unit asks for (an FMU's
 * terminateSimulation; unit_impl.h).  The run paths that end a run there
 * allow it for the run; the request lives until the unit's state is set or
 * restored (a rollback), so only an accepted step ends a run. */
#include "td/unit_impl.h"

void cosa_unit_allow_end(cosa_unit *u, int on)
{
    if (!u)
        return;
    u->end_ok = on != 0;
    u->end_asked = 0;
}

int cosa_unit_end_allowed(const cosa_unit *u) { return u ? u->end_ok : 0; }

void cosa_unit_ask_end(cosa_unit *u)
{
    if (u && u->end_ok)
        u->end_asked = 1;
}

int cosa_unit_end_asked(const cosa_unit *u) { return u ? u->end_asked : 0; }

void cosa_unitset_allow_end(cosa_unitset *set, int on)
{
    const size_t n = cosa_unitset_count(set);
    for (size_t i = 0; i < n; i++)
        cosa_unit_allow_end(cosa_unitset_unit(set, i), on);
}

size_t cosa_unitset_end_asked(const cosa_unitset *set)
{
    const size_t n = cosa_unitset_count(set);
    for (size_t i = 0; i < n; i++)
        if (cosa_unit_end_asked(cosa_unitset_unit(set, i)))
            return i;
    return (size_t)-1;
}
