/* advise_json.c -- cosa advise as one JSON object (--format json, and
 * advice.json next to the table with -o): the settings, what each FMU of a
 * model file can do, every candidate in rank order with dt_stable,
 * dt_accurate, dt, steps, cost, whether it is usable and why not, and the
 * recommendation.  Numbers are written with %.17g (they read back to the
 * same double); what is not a finite number (a limit not reached, the cost
 * of an unusable scheme) is null, with the reason in "why". */
#include "advise_json.h"

#include <math.h>
#include <string.h>

/* s as a JSON string (quotes, backslashes and control characters escaped). */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static const char *jbool(int b) { return b ? "true" : "false"; }

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

static void limit(FILE *f, const char *key, const cosa_advice *a, const cosa_limit *l)
{
    fprintf(f, "\"%s\": ", key);
    jnum(f, a->status == COSA_OK && l->good_at_min ? l->dt_max : NAN);
}

static void candidate(FILE *f, const struct advise_json_info *in, const struct advise_row *r,
                      size_t rank)
{
    const cosa_advice *a = &r->nom;
    const int ok = r->runnable && a->status == COSA_OK && a->usable;
    char name[64], why[512];
    cosa_scheme_name(&a->scheme, name, sizeof name);
    why_not(r, a, in->dtmin, why, sizeof why);
    fprintf(f, "    {\"scheme\": ");
    jstr(f, name);
    fprintf(f, ", \"rank\": %zu, \"runnable\": %s, ", rank, jbool(r->runnable));
    limit(f, "dt_stable", a, &a->stable);
    fprintf(f, ", ");
    limit(f, "dt_accurate", a, &a->accurate);
    fprintf(f, ", \"dt\": ");
    jnum(f, a->status == COSA_OK && a->usable ? a->dt : NAN);
    fprintf(f, ", \"steps\": ");
    if (a->status == COSA_OK && a->usable)
        fprintf(f, "%zu", a->steps);
    else
        fputs("null", f);
    fprintf(f, ", \"cost\": ");
    jnum(f, a->status == COSA_OK && a->usable ? a->cost : NAN);
    if (in->robust) {
        const cosa_advice *b = &r->rob;
        const int rok = b->status == COSA_OK && b->usable;
        fprintf(f, ", \"dt_robust\": ");
        jnum(f, rok ? b->dt : NAN);
        fprintf(f, ", \"steps_robust\": ");
        if (rok)
            fprintf(f, "%zu", b->steps);
        else
            fputs("null", f);
        fprintf(f, ", \"cost_robust\": ");
        jnum(f, rok ? b->cost : NAN);
    }
    fprintf(f, ", \"usable\": %s, \"why\": ", jbool(ok));
    if (why[0])
        jstr(f, why);
    else
        fputs("null", f);
    fputc('}', f);
}

static void fmus(FILE *f, const cli_model *mod)
{
    const cosa_model *m = mod->model;
    int first = 1;
    fprintf(f, "  \"fmus\": [");
    for (size_t i = 0; m->sub_name && m->sub_name(m, mod->par, i); i++) {
        const cosa_fmu_capability *c = cosa_model_file_fmu_capability(m, i);
        if (!c)
            continue;
        cosa_linearity lin;
        const int haslin = cosa_model_file_fmu_linearity(m, mod->par, i, &lin) == COSA_OK;
        fprintf(f, "%s\n    {\"subsystem\": ", first ? "" : ",");
        jstr(f, m->sub_name(m, mod->par, i));
        fprintf(f, ", \"path\": ");
        jstr(f, cosa_model_file_fmu(m, i));
        fprintf(f, ", \"fmi\": \"%d.0\", \"input_degree_max\": %d, "
                   "\"directional_derivatives\": %s, \"fmu_state\": %s, "
                   "\"max_output_derivative_order\": %d, \"fixed_internal_step\": ",
                c->fmi_version, c->input_degree_max, jbool(c->directional),
                jbool(c->fmu_state), c->max_output_derivative_order);
        jnum(f, c->fixed_step > 0.0 ? c->fixed_step : NAN);
        fprintf(f, ", \"default_step\": ");
        jnum(f, c->default_step > 0.0 ? c->default_step : NAN);
        fprintf(f, ", \"input_smoothness\": %d, \"input_degree_smoothness_max\": %d",
                c->smoothness, cosa_fmu_smoothness_degree(c->smoothness));
        fprintf(f, ", \"nonlinear\": %s, \"affine\": %s}",
                haslin ? jbool(lin.is_nonlinear) : "null", haslin ? jbool(lin.is_affine) : "null");
        first = 0;
    }
    fprintf(f, "%s],\n", first ? "" : "\n  ");
}

void advise_json_write(FILE *f, const struct advise_json_info *in, const struct advise_row *rows,
                       size_t n)
{
    fprintf(f, "{\n  \"cosa\": ");
    jstr(f, cosa_version());
    fprintf(f, ",\n  \"command\": \"advise\",\n  \"model\": ");
    jstr(f, in->mod->model->name);
    fprintf(f, ",\n  \"error\": \"%s\",\n  \"tol\": %.17g,\n  \"tend\": %.17g,\n"
               "  \"dt_range\": [%.17g, %.17g],\n  \"cost_mbcorr\": %.17g,\n  \"robust\": ",
            in->error, in->tol, in->tend, in->dtmin, in->dtmax, in->cost);
    if (in->robust) {
        fprintf(f, "{\"param\": ");
        jstr(f, in->rparam);
        fprintf(f, ", \"lo\": %.17g, \"hi\": %.17g, \"factors\": %d}", in->lo, in->hi,
                in->nfactors);
    } else
        fputs("null", f);
    fprintf(f, ",\n");
    fmus(f, in->mod);
    fprintf(f, "  \"candidates\": [");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n", i ? "," : "");
        candidate(f, in, &rows[i], i + 1);
    }
    fprintf(f, "\n  ],\n  \"notes\": [");
    const char *p = in->notes ? in->notes : "";
    int first = 1;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        fprintf(f, "%s\n    ", first ? "" : ",");
        jstr(f, strncmp(line, "note ", 5) == 0 ? line + 5 : line);
        first = 0;
        p += len + (e ? 1 : 0);
    }
    fprintf(f, "%s],\n  \"recommendation\": ", first ? "" : "\n  ");
    if (in->best) {
        const cosa_advice *a = in->robust ? &in->best->rob : &in->best->nom;
        char name[64];
        cosa_scheme_name(&a->scheme, name, sizeof name);
        fprintf(f, "{\"scheme\": ");
        jstr(f, name);
        fprintf(f, ", \"dt\": %.17g, \"steps\": %zu}", a->dt, a->steps);
    } else
        fputs("null", f);
    fprintf(f, "\n}\n");
}
