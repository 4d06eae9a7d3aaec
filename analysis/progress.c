/* progress.c -- progress of long single runs (point, limit, converge,
 * advise, simulate) on stderr; sweeps have their own (sweep_cli.c). */
#include "cli.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *cmd, int requested)
{
    *p = (cli_progress){0};
    p->cmd = cmd;
    p->tty = isatty(2);
    p->requested = requested;
    p->on = requested || p->tty;
    p->t0 = p->last = now();
}

/* One report, throttled: on a terminal in place every 0.25 s from 0.5 s
 * on; otherwise (--progress) a line every 5 s. */
static void report(cli_progress *p)
{
    if (!p->on)
        return;
    const double t = now(), el = t - p->t0;
    if (p->tty ? (el < 0.5 || t - p->last < 0.25) : t - p->last < 5.0)
        return;
    p->last = t;
    char what[160];
    if (p->total)
        snprintf(what, sizeof what, "step %zu of %zu (%.1f %%)", p->done, p->total,
                 100.0 * (double)p->done / (double)p->total);
    else if (p->evals == 0)
        snprintf(what, sizeof what, "%s", p->stage ? p->stage : "setup");
    else if (p->stotal)
        snprintf(what, sizeof what, "evaluation %zu: %s, dim %zu, step %zu of %zu", p->evals,
                 p->stage, p->dim, p->sdone + 1, p->stotal);
    else
        snprintf(what, sizeof what, "evaluation %zu: %s, dim %zu", p->evals,
                 p->stage ? p->stage : "setup", p->dim);
    fprintf(stderr, "%s%s: %.1f s, %s%s", p->tty ? "\r" : "", p->cmd, el, what,
            p->tty ? "          " : "\n");
    fflush(stderr);
    p->printed = 1;
}

void cli_progress_stage(const char *stage, size_t dim, size_t done, size_t total,
                        void *user_data)
{
    cli_progress *p = user_data;
    p->sdone = done;
    p->stotal = total;
    if (stage[0] == 's' && stage[1] == 't') /* "start": a new evaluation */
        p->evals++;
    p->stage = stage;
    p->dim = dim;
    report(p);
}

void cli_progress_steps(cli_progress *p, size_t done, size_t total)
{
    p->done = done;
    p->total = total;
    report(p);
}

void cli_progress_end(cli_progress *p)
{
    if (!p->on || !(p->printed || p->requested))
        return;
    const double el = now() - p->t0;
    if (p->total)
        fprintf(stderr, "%s%s: done in %.1f s (%zu of %zu steps)%s\n", p->tty ? "\r" : "",
                p->cmd, el, p->done, p->total, p->tty ? "          " : "");
    else
        fprintf(stderr, "%s%s: done in %.1f s (%zu evaluation%s)%s\n", p->tty ? "\r" : "", p->cmd,
                el, p->evals, p->evals == 1 ? "" : "s", p->tty ? "          " : "");
    fflush(stderr);
}
