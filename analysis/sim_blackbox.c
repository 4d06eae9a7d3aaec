/* sim_blackbox.c -- black boxes in the time-domain commands (sim_blackbox.h). */
#include "sim_blackbox.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sim_blackbox_names(const cosa_model *m, size_t nsub, char *names, size_t size)
{
    size_t n = 0, len = 0;
    if (size)
        names[0] = '\0';
    for (size_t i = 0; i < nsub; i++) {
        /* identified with states, or whose identification failed (then read
         * as its gain meanwhile: no reference either); an FMU identified as
         * static is what its gain says */
        cosa_model_file_ident info;
        const int dyn = cosa_model_file_identified(m, i, &info) && info.order > 0;
        if (!dyn && !cosa_model_file_ident_error(m, i))
            continue;
        const char *name = m->sub_name ? m->sub_name(m, NULL, i) : NULL;
        if (size > len) {
            int w = snprintf(names + len, size - len, "%s%s", n ? ", " : "",
                             name ? name : "?");
            len += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    return n;
}

int sim_blackbox_x0(const char *cmd, const cosa_system *sys, const cosa_unitset *set,
                    double **x0, unsigned char **vel)
{
    if (!sys || cosa_system_nx(sys) == cosa_unitset_nx(set))
        return CLI_OK;
    double *ux = calloc(cosa_unitset_nx(set) + 1, sizeof *ux);
    unsigned char *uv = vel ? calloc(cosa_unitset_nx(set) + 1, 1) : NULL;
    if (!ux || (vel && !uv)) {
        free(ux);
        free(uv);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        size_t nxm = 0, nu, ny, oxm = 0, ou, oy, oxu = 0;
        cosa_system_sub_dims(sys, i, &nxm, &nu, &ny, &oxm, &ou, &oy);
        cosa_unitset_offsets(set, i, &oxu, NULL, NULL);
        const size_t nxu = cosa_unit_nx(cosa_unitset_unit(set, i));
        if (nxu == nxm) {
            memcpy(ux + oxu, *x0 + oxm, nxu * sizeof *ux);
            if (uv)
                memcpy(uv + oxu, *vel + oxm, nxu);
        } else if (nxu != 0) { /* only a black box (0 states) may differ */
            cli_error(cmd, "unit %zu has %zu states, its subsystem %zu", i, nxu, nxm);
            free(ux);
            free(uv);
            return CLI_EFAIL;
        }
    }
    free(*x0);
    *x0 = ux;
    if (vel) {
        free(*vel);
        *vel = uv;
    }
    return CLI_OK;
}
