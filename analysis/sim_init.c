/* sim_init.c -- `cosa simulate`'s initialization loop (README "FMU import"):
 * FMUs whose direct feedthrough closes a loop of the coupling are iterated
 * in Initialization Mode to the fixed point (cosa_fmu_init_loop, the master's
 * Newton method and tolerance), the iterations are reported, and a loop
 * without a fixed point is refused in one line. */
#include "sim_init.h"

#include <stdlib.h>
#include <string.h>

static const char *sub_of(const cosa_model *m, const double *par, size_t i)
{
    const char *n = m->sub_name ? m->sub_name(m, par, i) : NULL;
    return n ? n : "?";
}

/* "A, B" (the loop's units) into buf. */
static void loop_names(const cosa_model *m, const double *par, size_t n,
                       const unsigned char *in_loop, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len + 1 < size; i++)
        if (in_loop[i]) {
            int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", sub_of(m, par, i));
            len += w > 0 ? (size_t)w : 0;
        }
}

int sim_init_run(const char *cmd, const cosa_model *m, const double *par, cosa_unitset *set,
                 const double *x0, sim_init *si)
{
    memset(si, 0, sizeof *si);
    const size_t n = cosa_unitset_count(set), ny = cosa_unitset_ny(set);
    si->set = set;
    si->y = calloc(2 * ny + 1, sizeof *si->y);
    si->yw = si->y + ny;
    si->x = calloc(cosa_unitset_nx(set) + 1, sizeof *si->x);
    si->in_loop = calloc(n + 1, 1);
    if (!si->y || !si->x || !si->in_loop) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cosa_status st = cosa_fmu_init_loop(set, 0.0, x0, si->y, si->in_loop, &si->res);
    if (st == COSA_OK)
        return CLI_OK;
    char names[512];
    loop_names(m, par, n, si->in_loop, names, sizeof names);
    if (st == COSA_ENOTCONVERGED || st == COSA_EALGLOOP) {
        cli_error(cmd, "the initialization loop of FMUs %s does not converge in Initialization "
                       "Mode: residual %.3g after %d iteration%s (%s)", names,
                  si->res.residual, si->res.iterations, si->res.iterations == 1 ? "" : "s",
                  st == COSA_EALGLOOP ? "I - D L is singular: no unique fixed point"
                                      : "no fixed point within the loop solver's tolerance "
                                        "1e-10 relative in 50 iterations");
        return CLI_EUSAGE;
    }
    const char *why = "";
    for (size_t i = 0; i < n && !why[0]; i++)
        why = cosa_unit_message(cosa_unitset_unit(set, i));
    if (names[0])
        cli_error(cmd, "the initialization loop of FMUs %s failed: %s", names,
                  why[0] ? why : cosa_strerror(st));
    else /* before a loop was found: the feedthrough check at t = 0 */
        cli_error(cmd, "the check for initialization loops (feedthrough at t = 0) failed: %s",
                  why[0] ? why : cosa_strerror(st));
    return CLI_EFAIL;
}

void sim_init_print(const cosa_model *m, const double *par, const cosa_unitset *set,
                    const sim_init *si)
{
    if (!si->res.loop)
        return;
    printf("init_iterations %d\n", si->res.iterations);
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        size_t oy;
        cosa_unitset_offsets(set, i, NULL, NULL, &oy);
        const size_t nyi = cosa_unit_ny(cosa_unitset_unit(set, i));
        for (size_t l = 0; si->in_loop[i] && l < nyi; l++) {
            const char *on = m->output_name ? m->output_name(m, par, oy + l) : NULL;
            const char *dot = on ? strchr(on, '.') : NULL; /* SUB.NAME already */
            if (on && dot)
                printf("init_output %s %.17g\n", on, si->y[oy + l]);
            else
                printf("init_output %s.%s %.17g\n", sub_of(m, par, i), on ? on : "?",
                       si->y[oy + l]);
        }
    }
}

cosa_status sim_init_observe(const cosa_master *m, void *user_data)
{
    sim_init *si = user_data;
    double t;
    cosa_status st = cosa_master_get(m, &t, si->x, NULL, NULL, NULL, NULL);
    cosa_fmu_init_result res;
    if (st == COSA_OK) /* into yw: the printed outputs stay those of t = 0 */
        st = cosa_fmu_init_loop(si->set, t, si->x, si->yw, NULL, &res);
    return st;
}

void sim_init_free(sim_init *si)
{
    free(si->x);
    free(si->y);
    free(si->in_loop);
    memset(si, 0, sizeof *si);
}
