/* cancel.c -- the caller's cancellation flag of long calls (cosa/core.h):
 * one C11 atomic int, stored with release and read with acquire order (a
 * lock-free atomic store is async-signal-safe). */
#include "cosa/core.h"

#include <stdatomic.h>
#include <stdlib.h>

struct cosa_cancel {
    atomic_int set;
};

cosa_cancel *cosa_cancel_alloc(void)
{
    cosa_cancel *c = malloc(sizeof *c);
    if (c)
        atomic_init(&c->set, 0);
    return c;
}

void cosa_cancel_free(cosa_cancel *c) { free(c); }

void cosa_cancel_request(cosa_cancel *c)
{
    if (c)
        atomic_store_explicit(&c->set, 1, memory_order_release);
}

int cosa_cancel_requested(const cosa_cancel *c)
{
    /* the C11 generic functions take a pointer to non-const atomic */
    return c && atomic_load_explicit((atomic_int *)&c->set, memory_order_acquire) != 0;
}
