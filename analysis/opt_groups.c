/* opt_groups.c -- what each option is for: the groups of `cosa CMD --help`
 * and of the man pages (issue 34), by option name, so that every command's
 * table groups the same option the same way.  A row may name its group
 * itself (opt_row.group), which wins: an option name that means different
 * things in different commands (fmu-info --name SUB is a model option,
 * simulate --name NAME an output one). */
#include "opt_table.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    const char *name;
    opt_group group;
} group_entry;

static const group_entry groups[] = {
    /* the system */
    {"model", OPTG_MODEL}, {"model-file", OPTG_MODEL}, {"set", OPTG_MODEL},
    {"assume", OPTG_MODEL}, {"alpha", OPTG_MODEL}, {"robust", OPTG_MODEL},
    {"start", OPTG_MODEL},
    /* the scheme and how the subsystems are integrated */
    {"scheme", OPTG_SCHEME}, {"schemes", OPTG_SCHEME}, {"sequence", OPTG_SCHEME},
    {"order", OPTG_SCHEME}, {"iterations", OPTG_SCHEME}, {"relax", OPTG_SCHEME},
    {"iter-tol", OPTG_SCHEME}, {"mbcorr-jacobian", OPTG_SCHEME}, {"jacobian", OPTG_SCHEME},
    {"corrector-jacobian", OPTG_SCHEME}, {"linearize", OPTG_SCHEME}, {"fd", OPTG_SCHEME},
    {"energy", OPTG_SCHEME}, {"mu", OPTG_SCHEME}, {"nu", OPTG_SCHEME},
    {"limit", OPTG_SCHEME}, {"limit-abs", OPTG_SCHEME}, {"rate", OPTG_SCHEME},
    {"input", OPTG_SCHEME}, {"events", OPTG_SCHEME}, {"integrator", OPTG_SCHEME},
    {"rtol", OPTG_SCHEME}, {"atol", OPTG_SCHEME}, {"micro", OPTG_SCHEME},
    {"ref", OPTG_SCHEME}, {"ref-rtol", OPTG_SCHEME}, {"coupling", OPTG_SCHEME},
    {"estimator", OPTG_SCHEME}, {"control", OPTG_SCHEME}, {"kmax", OPTG_SCHEME},
    {"ctl-rtol", OPTG_SCHEME}, {"ctl-rtol-u", OPTG_SCHEME}, {"ctl-atol-x", OPTG_SCHEME},
    {"ctl-atol-v", OPTG_SCHEME}, {"ctl-atol-u", OPTG_SCHEME}, {"ctl-vars", OPTG_SCHEME},
    {"sf", OPTG_SCHEME}, {"rmin", OPTG_SCHEME}, {"rmax", OPTG_SCHEME},
    {"corr-tol", OPTG_SCHEME}, {"corr-max", OPTG_SCHEME}, {"in-order", OPTG_SCHEME},
    {"out-order", OPTG_SCHEME}, {"cost-mbcorr", OPTG_SCHEME}, {"cost-rollback", OPTG_SCHEME},
    {"algorithm", OPTG_SCHEME},
    {"linearization", OPTG_MODEL}, {"probe-step", OPTG_MODEL},
    /* macro steps, horizon, sweep axes and grids */
    {"dt", OPTG_GRID}, {"dt-min", OPTG_GRID}, {"dt-max", OPTG_GRID}, {"tend", OPTG_GRID},
    {"t0", OPTG_GRID}, {"h0", OPTG_GRID}, {"hmin", OPTG_GRID}, {"max-steps", OPTG_GRID},
    {"x", OPTG_GRID}, {"y", OPTG_GRID}, {"points", OPTG_GRID}, {"per-decade", OPTG_GRID},
    {"grid", OPTG_GRID}, {"egrid", OPTG_GRID}, {"adaptive", OPTG_GRID},
    {"coarse", OPTG_GRID}, {"margin", OPTG_GRID}, {"pairs", OPTG_GRID},
    /* what to compute and print, files, pictures */
    {"tol", OPTG_OUTPUT}, {"error", OPTG_OUTPUT}, {"criterion", OPTG_OUTPUT},
    {"metric", OPTG_OUTPUT}, {"level", OPTG_OUTPUT}, {"paper", OPTG_OUTPUT},
    {"table", OPTG_OUTPUT}, {"format", OPTG_OUTPUT}, {"output", OPTG_OUTPUT},
    {"plot", OPTG_OUTPUT}, {"heatmap", OPTG_OUTPUT}, {"name", OPTG_OUTPUT},
    {"outputs", OPTG_OUTPUT}, {"output-interval", OPTG_OUTPUT},
    {"defects", OPTG_OUTPUT}, {"contour", OPTG_OUTPUT},
    {"max-points", OPTG_GRID},
    /* run control */
    {"threads", OPTG_RUN}, {"progress", OPTG_RUN}, {"max-attempts", OPTG_RUN},
    {"fmu-log", OPTG_RUN}, {"help", OPTG_RUN},
};

opt_group opt_group_of_name(const char *name)
{
    if (name)
        for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
            if (strcmp(groups[i].name, name) == 0)
                return groups[i].group;
    return OPTG_OTHER;
}

opt_group opt_group_of(const opt_row *r)
{
    if (r->group != OPTG_AUTO)
        return r->group;
    if (r->kind == OPTK_HELP)
        return OPTG_RUN;
    return opt_group_of_name(r->name);
}

const char *opt_group_title(opt_group g)
{
    static const char *const titles[OPTG_N] = {
        [OPTG_AUTO] = "Options",  [OPTG_MODEL] = "Model",  [OPTG_SCHEME] = "Scheme",
        [OPTG_GRID] = "Grid",     [OPTG_OUTPUT] = "Output", [OPTG_OTHER] = "Other options",
        [OPTG_RUN] = "Run control"};
    return (unsigned)g < OPTG_N ? titles[g] : titles[OPTG_OTHER];
}
