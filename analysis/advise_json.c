/* advise_json.c -- cosa advise as one JSON object (--format json, and
 * advice.json next to the table with -o): the settings, what each FMU of a
 * model file can do, every candidate in rank order with dt_stable,
 * dt_accurate, dt, steps, cost, whether it is usable and why not, and the
 * recommendation.  Numbers are written with %.17g (they read back to the
 * same double); what is not a finite number (a limit not reached, the cost
 * of an unusable scheme) is null, with the reason in "why". */
#include "advise_json.h"
#include "json_out.h"

#include <math.h>
#include <string.h>

/* Why a row is not usable ("" if it is). */
static void why_not(const struct advise_row *r, const cosa_advice *a, double dtmin, char *b,
                    size_t n)
{
    b[0] = '\0';
    if (!r->runnable)
        snprintf(b, n, "cannot run on these FMUs: %s", r->why);
    else if (a->status != COSA_OK)
        snprintf(b, n, "not judged: %s", cosa_strerror(a->status));
    else if (!a->usable)
        snprintf(b, n, "not %s at dt-min %g", !a->stable.good_at_min ? "stable" : "accurate",
                 dtmin);
}

/* A macro step count, or null where the advice has none. */
static void steps_or_null(json_out *j, int ok, size_t steps)
{
    if (ok)
        jo_size(j, steps);
    else
        jo_null(j);
}

static void limit(json_out *j, const char *key, const cosa_advice *a, const cosa_limit *l)
{
    jo_key(j, key);
    jo_finite(j, a->status == COSA_OK && l->good_at_min ? l->dt_max : NAN);
}

static void candidate(json_out *j, const struct advise_json_info *in,
                      const struct advise_row *r, size_t rank)
{
    const cosa_advice *a = &r->nom;
    const int good = a->status == COSA_OK && a->usable;
    char name[64], why[512];
    cosa_scheme_name(&a->scheme, name, sizeof name);
    why_not(r, a, in->dtmin, why, sizeof why);
    jo_object(j, JO_INLINE);
    jo_key(j, "scheme");
    jo_string(j, name);
    jo_key(j, "rank");
    jo_size(j, rank);
    jo_key(j, "runnable");
    jo_bool(j, r->runnable);
    limit(j, "dt_stable", a, &a->stable);
    limit(j, "dt_accurate", a, &a->accurate);
    jo_key(j, "dt");
    jo_finite(j, good ? a->dt : NAN);
    jo_key(j, "steps");
    steps_or_null(j, good, a->steps);
    jo_key(j, "cost");
    jo_finite(j, good ? a->cost : NAN);
    if (in->robust) {
        const cosa_advice *b = &r->rob;
        const int rok = b->status == COSA_OK && b->usable;
        jo_key(j, "dt_robust");
        jo_finite(j, rok ? b->dt : NAN);
        jo_key(j, "steps_robust");
        steps_or_null(j, rok, b->steps);
        jo_key(j, "cost_robust");
        jo_finite(j, rok ? b->cost : NAN);
    }
    jo_key(j, "usable");
    jo_bool(j, r->runnable && good);
    jo_key(j, "why");
    if (why[0])
        jo_string(j, why);
    else
        jo_null(j);
    jo_close(j);
}

/* true, false, or null where the linearity is not known */
static void maybe_bool(json_out *j, int known, int b)
{
    if (known)
        jo_bool(j, b);
    else
        jo_null(j);
}

static void fmus(json_out *j, const cli_model *mod)
{
    const cosa_model *m = mod->model;
    jo_key(j, "fmus");
    jo_array(j, JO_BLOCK);
    for (size_t i = 0; m->sub_name && m->sub_name(m, mod->par, i); i++) {
        const cosa_fmu_capability *c = cosa_model_file_fmu_capability(m, i);
        if (!c)
            continue;
        cosa_linearity lin;
        const int haslin = cosa_model_file_fmu_linearity(m, mod->par, i, &lin) == COSA_OK;
        char fmi[16];
        snprintf(fmi, sizeof fmi, "%d.0", c->fmi_version);
        jo_object(j, JO_INLINE);
        jo_key(j, "subsystem");
        jo_string(j, m->sub_name(m, mod->par, i));
        jo_key(j, "path");
        jo_string(j, cosa_model_file_fmu(m, i));
        jo_key(j, "fmi");
        jo_string(j, fmi);
        jo_key(j, "input_degree_max");
        jo_int(j, c->input_degree_max);
        jo_key(j, "directional_derivatives");
        jo_bool(j, c->directional);
        jo_key(j, "fmu_state");
        jo_bool(j, c->fmu_state);
        jo_key(j, "max_output_derivative_order");
        jo_int(j, c->max_output_derivative_order);
        jo_key(j, "fixed_internal_step");
        jo_finite(j, c->fixed_step > 0.0 ? c->fixed_step : NAN);
        jo_key(j, "default_step");
        jo_finite(j, c->default_step > 0.0 ? c->default_step : NAN);
        jo_key(j, "input_smoothness");
        jo_int(j, c->smoothness);
        jo_key(j, "input_degree_smoothness_max");
        jo_int(j, cosa_fmu_smoothness_degree(c->smoothness));
        jo_key(j, "nonlinear");
        maybe_bool(j, haslin, haslin && lin.is_nonlinear);
        jo_key(j, "affine");
        maybe_bool(j, haslin, haslin && lin.is_affine);
        jo_close(j);
    }
    jo_close(j);
}

/* The note lines ("note TEXT" each) as strings, without "note ". */
static void notes(json_out *j, const char *p)
{
    jo_key(j, "notes");
    jo_array(j, JO_BLOCK);
    while (p && *p) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        const size_t skip = len >= 5 && strncmp(p, "note ", 5) == 0 ? 5 : 0;
        jo_string_n(j, p + skip, len - skip);
        p += len + (e ? 1 : 0);
    }
    jo_close(j);
}

/* The settings: the version, command, model, criterion, scan, --robust. */
static void settings(json_out *j, const struct advise_json_info *in)
{
    jo_key(j, "cosa");
    jo_string(j, cosa_version());
    jo_key(j, "command");
    jo_string(j, "advise");
    jo_key(j, "model");
    jo_string(j, in->mod->model->name);
    jo_key(j, "error");
    jo_string(j, in->error);
    jo_key(j, "tol");
    jo_double(j, in->tol);
    jo_key(j, "tend");
    jo_double(j, in->tend);
    jo_key(j, "dt_range");
    jo_array(j, JO_INLINE);
    jo_double(j, in->dtmin);
    jo_double(j, in->dtmax);
    jo_close(j);
    jo_key(j, "cost_mbcorr");
    jo_double(j, in->cost);
    jo_key(j, "robust");
    if (in->robust) {
        jo_object(j, JO_INLINE);
        jo_key(j, "param");
        jo_string(j, in->rparam);
        jo_key(j, "lo");
        jo_double(j, in->lo);
        jo_key(j, "hi");
        jo_double(j, in->hi);
        jo_key(j, "factors");
        jo_int(j, in->nfactors);
        jo_close(j);
    } else {
        jo_null(j);
    }
}

int advise_json_write(FILE *f, const struct advise_json_info *in, const struct advise_row *rows,
                      size_t n)
{
    json_out j;
    jo_init(&j, f, 0);
    jo_object(&j, JO_BLOCK);
    settings(&j, in);
    fmus(&j, in->mod);
    jo_key(&j, "candidates");
    jo_array(&j, JO_BLOCK);
    for (size_t i = 0; i < n; i++)
        candidate(&j, in, &rows[i], i + 1);
    jo_close(&j);
    notes(&j, in->notes);
    jo_key(&j, "recommendation");
    if (in->best) {
        const cosa_advice *a = in->robust ? &in->best->rob : &in->best->nom;
        char name[64];
        cosa_scheme_name(&a->scheme, name, sizeof name);
        jo_object(&j, JO_INLINE);
        jo_key(&j, "scheme");
        jo_string(&j, name);
        jo_key(&j, "dt");
        jo_double(&j, a->dt);
        jo_key(&j, "steps");
        jo_size(&j, a->steps);
        jo_close(&j);
    } else {
        jo_null(&j);
    }
    return jo_end(&j);
}
