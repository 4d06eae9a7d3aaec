/* fmu_notes.c -- the Phi commands (point, limit, map, curve, phi, advise)
 * analyse a model file's FMUs through their linearisation at the start
 * point, as exact subsystems.  What that leaves out is said in notes: a
 * scheme the FMUs cannot run in cosa simulate (an input degree they do not
 * accept, an output correction without Jacobians), an FMU with a fixed
 * internal step (its own error), an FMU that is nonlinear or has a
 * constant term x' = A x + B u drops, FMUs with events or clocks (Phi sees
 * the linearisation between events only) (README "FMU import"). */
#include "fmu_notes.h"
#include "fmu_rules.h"

#include <math.h>
#include <stdlib.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *sub_name(const cosa_model *m, const double *par, size_t i)
{
    const char *n = m->sub_name ? m->sub_name(m, par, i) : NULL;
    return n ? n : "?";
}

/* 1 while i is a subsystem of m (model files name their subsystems). */
static int has_sub(const cosa_model *m, const double *par, size_t i)
{
    return m->sub_name && m->sub_name(m, par, i) != NULL;
}

/* The subsystems' capabilities (NULL: no FMU) and names, n of them; 0
 * without memory. */
static int caps_of(const cli_model *mod, const cosa_fmu_capability ***caps, const char ***names,
                   int **events, size_t *n)
{
    const cosa_model *m = mod->model;
    size_t k = 0;
    while (has_sub(m, mod->par, k))
        k++;
    *n = k;
    *caps = calloc(k + 1, sizeof **caps);
    *names = calloc(k + 1, sizeof **names);
    *events = calloc(k + 1, sizeof **events);
    if (!*caps || !*names || !*events)
        return 0;
    for (size_t i = 0; i < k; i++) {
        (*caps)[i] = cosa_model_file_fmu_capability(m, i);
        (*names)[i] = sub_name(m, mod->par, i);
        (*events)[i] = (*caps)[i] && (*caps)[i]->event_mode;
    }
    return 1;
}

/* What cosa simulate checks of the network before a run with its defaults
 * (--events on; fmu_rules.c): the event points' scheme and whether the
 * fixed-step FMUs can stop at them.  1, or 0 with the reason. */
static int events_runnable(const cosa_fmu_capability *const *caps, const char *const *names,
                           const int *events, size_t n, const cosa_scheme *s, char *why,
                           size_t size)
{
    for (size_t i = 0; i < n; i++) {
        const char *need = events[i] ? fmu_event_rule(s, 0, 0, 0) : NULL;
        if (need) {
            if (size)
                snprintf(why, size, "FMU %s has event mode: the event points need %s "
                                    "(cosa simulate --events on, the default; or --events off)",
                         names[i], need);
            return 0;
        }
    }
    char r[320];
    if (fmu_event_grid_refusal(caps, events, n, names, r, sizeof r) < n) {
        if (size)
            snprintf(why, size, "%s (or cosa simulate --events off)", r);
        return 0;
    }
    return 1;
}

int fmu_scheme_runnable(const cli_model *mod, const cosa_scheme *s, char *why, size_t size)
{
    const cosa_model *m = mod->model;
    char r[256];
    for (size_t i = 0; has_sub(m, mod->par, i); i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        /* nu = 1: the summary already allows any degree without inputs */
        if (cap && cosa_fmu_capability_check(cap, 1, s, r, sizeof r) != COSA_OK) {
            if (size)
                snprintf(why, size, "FMU %s: %s", sub_name(m, mod->par, i), r);
            return 0;
        }
    }
    const cosa_fmu_capability **caps = NULL;
    const char **names = NULL;
    int *events = NULL;
    size_t n = 0;
    int ok = 1;
    if (caps_of(mod, &caps, &names, &events, &n))
        ok = events_runnable(caps, names, events, n, s, why, size);
    free(caps);
    free(names);
    free(events);
    return ok;
}

/* One note for a network whose FMUs use events or clocks (hasEventMode, a
 * Clock variable): Phi is the linearisation at the start point, so it sees
 * the dynamics between events only; naming those FMUs. */
static void events_note(const char *cmd, const cli_model *mod)
{
    const cosa_model *m = mod->model;
    char names[256];
    size_t len = 0, n = 0;
    names[0] = '\0';
    for (size_t i = 0; has_sub(m, mod->par, i); i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        if (!cap || !(cap->event_mode || cap->clocks))
            continue;
        int w = snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "",
                         sub_name(m, mod->par, i));
        len = w > 0 && len + (size_t)w < sizeof names ? len + (size_t)w : len;
        n++;
    }
    if (n)
        fprintf(stderr, "cosa: %s: note: FMU%s %s use%s events or clocks (hasEventMode, Clock "
                        "variables): Phi analyses only the linearisation between events; what "
                        "the events and clock ticks do is not in these numbers\n",
                cmd, n > 1 ? "s" : "", names, n > 1 ? "" : "s");
}

void fmu_ident_notes(const char *cmd, const cosa_model *m, int dynamic)
{
    cosa_model_file_ident id;
    char b[32], c[32];
    for (size_t i = 0; i < cosa_model_file_nsub(m); i++) {
        if (!cosa_model_file_identified(m, i, &id) || (dynamic != 0) != (id.order > 0))
            continue;
        fprintf(stderr, "cosa: %s: note: FMU %s identified from its inputs and outputs "
                        "(doc/black-box.md): order %zu at the probe step %s s, fit error %.2g on "
                        "a validation input, %zu FMU steps\n",
                cmd, id.name, id.order, cosa_number_text(b, sizeof b, id.h), id.fit, id.steps);
        if (id.fixed_step > 0.0)
            fprintf(stderr, "cosa: %s: note: FMU %s is a sampled system with its fixed "
                            "internal step %s s (its own integration error is in its model): "
                            "Phi is exact at macro steps that are multiples of it\n",
                    cmd, id.name, cosa_number_text(b, sizeof b, id.fixed_step));
        if (id.step_outputs)
            fprintf(stderr, "cosa: %s: note: FMU %s updates its outputs only in doStep (a new "
                            "input shows in them one step later): identified with the held "
                            "input, as a co-simulation reads them after each step\n",
                    cmd, id.name);
        if (id.nonlinear)
            fprintf(stderr, "cosa: %s: note: FMU %s is nonlinear or time-varying: its pulse "
                            "responses at two amplitudes differ by %.2g relative, a pulse one "
                            "step later by %.2g, above the fit error %s: the identified model is "
                            "the small-amplitude one at the start point\n",
                    cmd, id.name, id.nonlin, id.tvar, cosa_number_text(c, sizeof c, id.fit));
        if (id.silent_out)
            fprintf(stderr, "cosa: %s: note: FMU %s: output %d never responds to its inputs "
                            "(its rows of C and D are zero)\n",
                    cmd, id.name, id.silent_out);
        if (id.order && id.y_offset)
            fprintf(stderr, "cosa: %s: note: FMU %s: its free response is a transient around "
                            "constant outputs (an affine model: a constant force or offset; "
                            "relative residual %.2g): x0 is its state relative to that "
                            "equilibrium\n",
                    cmd, id.name, id.x0_resid);
        if (id.order && id.x0_resid > COSA_IDENT_X0_RESID)
            fprintf(stderr, "cosa: %s: note: FMU %s: its free response is not the identified "
                            "model's from any state (relative residual %.2g): x0 = 0, the "
                            "model describes deviations from that response\n",
                    cmd, id.name, id.x0_resid);
    }
}

static int multiple_of(double dt, double h);

void fmu_ident_dt_note(const char *cmd, const cosa_model *m, double dt)
{
    cosa_model_file_ident id;
    char b[32], c[32];
    for (size_t i = 0; i < cosa_model_file_nsub(m); i++) {
        if (!cosa_model_file_identified(m, i, &id) || !(id.fixed_step > 0.0))
            continue;
        if (multiple_of(dt, id.fixed_step))
            continue;
        fprintf(stderr, "cosa: %s: note: dt %s is not a multiple of FMU %s's fixed internal "
                        "step %s s: the FMU cannot stop there, and Phi is exact only at "
                        "multiples of its step\n",
                cmd, cosa_number_text(b, sizeof b, dt), id.name,
                cosa_number_text(c, sizeof c, id.fixed_step));
    }
}

/* 1 if dt is a whole multiple (>= 1) of h to 1e-9 relative. */
static int multiple_of(double dt, double h)
{
    const double k = dt / h;
    return k >= 1.0 - 1e-9 && fabs(k - nearbyint(k)) <= 1e-9 * k;
}

void fmu_ident_dt_list_note(const char *cmd, const cosa_model *m, const double *dt, size_t n)
{
    cosa_model_file_ident id;
    char b[32];
    for (size_t i = 0; dt && i < cosa_model_file_nsub(m); i++) {
        if (!cosa_model_file_identified(m, i, &id) || !(id.fixed_step > 0.0))
            continue;
        size_t bad = 0;
        for (size_t k = 0; k < n; k++)
            bad += !multiple_of(dt[k], id.fixed_step);
        if (bad)
            fprintf(stderr, "cosa: %s: note: %zu of the %zu macro steps are not multiples of FMU "
                            "%s's fixed internal step %s s: Phi is exact only at multiples of "
                            "it\n",
                    cmd, bad, n, id.name, cosa_number_text(b, sizeof b, id.fixed_step));
    }
}

/* One note for a model with discrete connections (an SSP's or OSP file's
 * Integer, Boolean and Enumeration signals, doc/ssp.md "Discrete signals"):
 * they are not in L, so not in Phi. */
static void discrete_note(const char *cmd, const cosa_model *m)
{
    const size_t n = cosa_model_file_ndiscrete(m);
    if (n)
        fprintf(stderr, "cosa: %s: note: %zu discrete connection%s (Integer, Boolean, "
                        "Enumeration or non-continuous Float64) take%s no part in Phi (cosa simulate copies %s at every "
                        "communication point and holds %s in between)\n",
                cmd, n, n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "it" : "them",
                n == 1 ? "it" : "them");
}

int fmu_notes(const char *cmd, const cli_model *mod, const cosa_scheme *schemes, size_t ns)
{
    const cosa_model *m = mod->model;
    const double *par = mod->par;
    int nonlin = 0;
    for (size_t i = 0; has_sub(m, par, i); i++) {
        const cosa_fmu_capability *cap = cosa_model_file_fmu_capability(m, i);
        if (!cap)
            continue;
        const char *name = sub_name(m, par, i);
        char b[32];
        const int ident = cosa_model_file_identified(m, i, NULL); /* fmu_ident_notes */
        if (ident) {
        } else if (cap->fixed_step > 0.0)
            fprintf(stderr, "cosa: %s: note: FMU %s takes fixed internal steps of %s s "
                            "(fixedInternalStepSize): the Phi analysis assumes exact subsystems, "
                            "so the FMU's own integration error is not in these numbers\n",
                    cmd, name, cosa_number_text(b, sizeof b, cap->fixed_step));
        else if (cap->default_step > 0.0)
            fprintf(stderr, "cosa: %s: note: FMU %s documents a step size of %s s "
                            "(DefaultExperiment stepSize): if it integrates with a fixed step, "
                            "its own error is not in these numbers (the Phi analysis assumes "
                            "exact subsystems)\n",
                    cmd, name, cosa_number_text(b, sizeof b, cap->default_step));
        cosa_linearity lin;
        if (cosa_model_file_fmu_linearity(m, par, i, &lin) != COSA_OK)
            continue; /* linearising it worked when the model was read */
        if (ident) {
        } else if (lin.is_nonlinear)
            fprintf(stderr, "cosa: %s: note: FMU %s is nonlinear (it departs from its "
                            "linearisation by %.2g relative at 10 %% perturbations of its states "
                            "and inputs): these numbers are the linearised network's at the start "
                            "point; cosa simulate's default reference is then the fine "
                            "co-simulation\n",
                    cmd, name, lin.nonlinear);
        else if (lin.is_affine)
            fprintf(stderr, "cosa: %s: note: FMU %s has a constant term f(x0,u0) - A x0 - B u0 "
                            "(largest entry %.3g) that its linearisation x' = A x + B u drops: "
                            "rho holds for the affine network, the errors are those of its "
                            "linear part; cosa simulate's default reference is then the fine "
                            "co-simulation\n",
                    cmd, name, lin.affine_abs);
        nonlin += lin.is_nonlinear || lin.is_affine;
    }
    fmu_ident_notes(cmd, m, 0); /* static ones: the dynamic ones were noted when read */
    events_note(cmd, mod);
    discrete_note(cmd, m);
    for (size_t k = 0; k < ns; k++) {
        /* the output correction's model of an identified FMU is its identified one */
        char sname[64];
        size_t nid = 0;
        cosa_model_file_ident id;
        for (size_t i = 0; i < cosa_model_file_nsub(m); i++) /* static ones: D as before */
            nid += cosa_model_file_identified(m, i, &id) && id.order > 0;
        if (nid && (schemes[k].corr & COSA_CORR_OUTPUT)) {
            cosa_scheme_name(&schemes[k], sname, sizeof sname);
            fprintf(stderr, "cosa: %s: note: scheme %s: the output correction uses the "
                            "identified model%s of the black-box FMU%s\n",
                    cmd, sname, nid > 1 ? "s" : "", nid > 1 ? "s" : "");
        }
    }
    for (size_t k = 0; k < ns; k++) {
        char why[320], sname[64];
        if (fmu_scheme_runnable(mod, &schemes[k], why, sizeof why))
            continue;
        cosa_scheme_name(&schemes[k], sname, sizeof sname);
        fprintf(stderr, "cosa: %s: note: scheme %s cannot run on these FMUs (%s): the numbers "
                        "are the linearised network's, and cosa simulate refuses the scheme\n",
                cmd, sname, why);
    }
    return nonlin;
}

int fmu_network_linear(const cosa_model *m, const double *par, char *why, size_t size)
{
    for (size_t i = 0; has_sub(m, par, i); i++) {
        cosa_linearity lin;
        if (!cosa_model_file_fmu_capability(m, i) ||
            cosa_model_file_fmu_linearity(m, par, i, &lin) != COSA_OK)
            continue;
        if (lin.is_nonlinear || lin.is_affine) {
            if (size)
                snprintf(why, size, lin.is_nonlinear
                                        ? "FMU %s is nonlinear (%.2g from its linearisation at "
                                          "10 %% perturbations)"
                                        : "FMU %s has a constant term of %.3g that its "
                                          "linearisation drops",
                         sub_name(m, par, i), lin.is_nonlinear ? lin.nonlinear : lin.affine_abs);
            return 0;
        }
    }
    return 1;
}

int fmu_case_finish(const char *cmd, cli_case *cs, cosa_scheme *s, cosa_system *sys,
                    double **x0, cosa_system **model)
{
    int rc;
    if ((rc = cli_model_x0(&cs->mod, cmd, cosa_system_nx(sys), x0)) != CLI_OK ||
        (rc = cli_assume_system(&cs->mod, cmd, cs->mod.par, sys, s, 1, model)) != CLI_OK)
        return rc;
    if (cli_assume_given(&cs->mod))
        cli_assume_note(cmd, s, 1);
    fmu_notes(cmd, &cs->mod, s, 1);
    return CLI_OK;
}

void fmu_ident_cache_note(const char *cmd, const cosa_model *m)
{
    size_t done, reused;
    cosa_model_file_ident_cache_counts(m, &done, &reused);
    if (done + reused)
        fprintf(stderr, "cosa: %s: note: identified models at the sweep's FMU parameter values: "
                        "%zu identification%s, %zu reused (one per FMU and distinct parameter "
                        "set; doc/black-box.md)\n",
                cmd, done, done == 1 ? "" : "s", reused);
}
