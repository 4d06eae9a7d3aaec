/* iter_cli.c -- --iterations and --relax of the iterative coupling schemes
 * (README "Iterative coupling"). */
#include "cli.h"
#include "table_writer.h"

#include <math.h>
#include <string.h>

int cli_iter_apply(const char *cmd, const cli_case *cs, cosa_scheme *s, size_t n)
{
    size_t k = 0;
    double w = 1.0;
    if (cs->iter_text && strcmp(cs->iter_text, "inf") != 0 &&
        (cli_parse_size(cs->iter_text, &k) != 0 || k > 1000000)) {
        cli_error(cmd, "--iterations must be an integer in 1..1000000 or inf, got '%s'",
                  cs->iter_text);
        return CLI_EUSAGE;
    }
    if (cli_iter_aitken(cs)) {
        /* Aitken's factor changes from sweep to sweep: no Phi describes it */
        const char *w0 = cs->relax_text + 6;
        if (!cs->td_relax) {
            cli_error(cmd, "--relax aitken is Aitken's dynamic relaxation of the time-domain "
                           "iteration (cosa simulate) and has no Phi: give a number");
            return CLI_EUSAGE;
        }
        w = 0.5; /* preCICE's usual initial relaxation */
        if (*w0 && (*w0 != ':' || cli_parse_double(w0 + 1, &w) != 0 || !(w > 0.0) ||
                    w > 2.0)) {
            cli_error(cmd, "--relax aitken:W0 needs an initial factor W0 in (0, 2], got '%s'",
                      cs->relax_text);
            return CLI_EUSAGE;
        }
    } else if (cs->relax_text && (cli_parse_double(cs->relax_text, &w) != 0 || w == 0.0)) {
        cli_error(cmd, "--relax must be a finite nonzero number, got '%s'", cs->relax_text);
        return CLI_EUSAGE;
    }
    for (size_t i = 0; i < n; i++) {
        char nm[64];
        cosa_scheme_name(&s[i], nm, sizeof nm);
        if (!s[i].implicit && (cs->iter_text || cs->relax_text)) {
            cli_error(cmd, "%s applies to iterative schemes (imp:, gs-imp:) only, got %s",
                      cs->iter_text ? "--iterations" : "--relax", nm);
            return CLI_EUSAGE;
        }
        if (s[i].implicit && s[i].corr != COSA_CORR_NONE) {
            cli_error(cmd, "scheme %s: corrections (+ocorr, +ecorr, +mbcorr) are not defined for "
                           "iterative schemes", nm);
            return CLI_EUSAGE;
        }
        if (s[i].implicit) {
            s[i].iterations = (unsigned)k;
            s[i].relax = w;
        }
    }
    return CLI_OK;
}

int cli_iter_aitken(const cli_case *cs)
{
    return cs->relax_text && strncmp(cs->relax_text, "aitken", 6) == 0 &&
           (cs->relax_text[6] == '\0' || cs->relax_text[6] == ':');
}

/* A figure that may be undefined: %.17g, or "none" for NaN. */
static void figure(tw *w, const char *name, double v)
{
    if (isnan(v))
        tw_field(w, name, "none");
    else
        tw_field(w, name, "%.17g", v);
}

void cli_iter_print(tw *w, const cosa_scheme *s, const cosa_iter_info *it)
{
    char b[32];
    if (s->iterations)
        tw_field(w, "iterations", "%u", s->iterations);
    else
        tw_field(w, "iterations", "inf");
    tw_field(w, "relax", "%s", cosa_number_text(b, sizeof b, s->relax));
    tw_field(w, "rho_iter", "%.17g", it->rho_iter);
    figure(w, "relax_max", it->relax_max);
    figure(w, "relax_opt", it->relax_opt);
    figure(w, "rho_iter_opt", it->rho_iter_opt);
}

void cli_iter_header(FILE *f, const cosa_scheme *s, const cosa_sweep_axis *x,
                     const cosa_sweep_axis *y)
{
    if (!s->implicit)
        return;
    const int sw_k = x->param == COSA_AXIS_ITERATIONS || y->param == COSA_AXIS_ITERATIONS;
    const int sw_w = x->param == COSA_AXIS_RELAX || y->param == COSA_AXIS_RELAX;
    if (sw_k)
        fprintf(f, "# iterations (swept)\n");
    else if (s->iterations)
        fprintf(f, "# iterations %u\n", s->iterations);
    else
        fprintf(f, "# iterations inf\n");
    if (sw_w)
        fprintf(f, "# relax (swept)\n");
    else
        fprintf(f, "# relax %.17g\n", s->relax);
}
