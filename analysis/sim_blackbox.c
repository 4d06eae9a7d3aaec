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

/* The identified subsystems among black boxes, "II (order 4, fit 2e-09)"
 * comma-separated, into note; the first whose identification failed, or
 * nsub when every one was identified. */
static size_t bb_models(const cosa_model *m, size_t nsub, char *note, size_t size)
{
    size_t len = 0, failed = nsub;
    note[0] = '\0';
    for (size_t i = 0; i < nsub; i++) {
        cosa_model_file_ident info;
        const int dyn = cosa_model_file_identified(m, i, &info) && info.order > 0;
        if (!dyn) {
            if (cosa_model_file_ident_error(m, i) && failed == nsub)
                failed = i;
            continue;
        }
        if (size > len) {
            int w = snprintf(note + len, size - len, "%s%s (order %zu, fit %.2g)",
                             len ? ", " : "", info.name ? info.name : "?", info.order, info.fit);
            len += w > 0 ? (size_t)w : 0;
        }
    }
    return failed;
}

int sim_blackbox_corr(const char *cmd, const cosa_model *m, const double *par, size_t nsub,
                      const cosa_system *sys, cosa_scheme *s, char *note, size_t size)
{
    note[0] = '\0';
    char names[256], sname[64];
    const size_t nbb = sim_blackbox_names(m, nsub, names, sizeof names);
    if (!nbb || !(s->corr & COSA_CORR_OUTPUT))
        return CLI_OK; /* the state correction is an input offset: no model */
    cosa_scheme_name(s, sname, sizeof sname);
    char models[256];
    const size_t failed = bb_models(m, nsub, models, sizeof models);
    if (failed < nsub) {
        const char *n = m->sub_name ? m->sub_name(m, par, failed) : NULL;
        cli_error(cmd, "scheme %s: black box %s declares no states and its identification "
                       "failed: the output correction needs its identified model (use "
                       "+ecorr, or the scheme without a correction)", sname, n ? n : "?");
        return CLI_EUSAGE;
    }
    if (!sys) {
        cli_error(cmd, "scheme %s: black box%s %s declare%s no states and the model has no "
                       "linear form to correct them on (use +ecorr, or the scheme without a "
                       "correction)", sname, nbb > 1 ? "es" : "", names, nbb > 1 ? "" : "s");
        return CLI_EUSAGE;
    }
    if (!s->model) { /* --assume gives a model of its own */
        s->model = sys;
        snprintf(note, size, "%s", models);
    }
    return CLI_OK;
}
