/* cmd_models.c -- `cosa models`: list the built-in models, or the
 * parameters of a model file (with its FMUs' parameters). */
#include "cli.h"
#include "table_writer.h"

#include <string.h>

static const char usage[] =
    "Usage: cosa models [--model-file PATH] [--help]\n\n"
    "List the built-in models with their parameters, defaults, units, ranges and\n"
    "initial state: first the linear ones (every command), then the nonlinear ones\n"
    "(time domain only: 'cosa simulate').  Parameters can be changed with\n"
    "--set NAME=VALUE in every subcommand; a value outside the range is refused\n"
    "with the rule ('--set m1=0: m1 must be > 0'); '-' = any finite value.\n"
    "With --model-file, the same list for that model file; an 'fmu NAME = PATH'\n"
    "subsystem contributes the FMU's parameters and its states' start values as\n"
    "NAME.VAR (doc/fmu.md).\n\n";

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_PATH, .name = "model-file", .off = 0, .arg = "PATH",
     .help = "the parameters of this model file instead of the built-in models"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* The parameters of m: a table in padded columns, each line indented. */
static void list_params(tw *w, const cosa_model *m)
{
    static const int width[5] = {8, 14, 8, 24, 0};
    static const char *const names[5] = {"name", "default", "unit", "range", "meaning"};
    tw_padded(w, "  ", width, 5);
    tw_table(w, names, 5);
    for (size_t k = 0; k < m->nparam; k++) {
        const cosa_param *p = &m->params[k];
        char v[32], range[96];
        if (cosa_param_range_text(m, k, range, sizeof range) == 0)
            snprintf(range, sizeof range, "-");
        const char *const cells[6] = {p->name,  cosa_number_text(v, sizeof v, p->value),
                                      p->unit,  range,
                                      p->doc,   "(initial state)"};
        tw_row_words(w, cells, p->kind == COSA_PARAM_INITIAL ? 6 : 5);
    }
}

/* The list of the built-in models: the linear ones, then the nonlinear
 * ones in a section of their own. */
static void list_models(tw *w)
{
    int first = 1;
    for (int nonlinear = 0; nonlinear <= 1; nonlinear++)
        for (size_t i = 0; i < cosa_model_count(); i++) {
            const cosa_model *m = cosa_model_at(i);
            if (cosa_model_is_linear(m) == nonlinear)
                continue;
            if (nonlinear && first != 2) {
                tw_prose(w, "\nNonlinear models (time domain only: 'cosa simulate'; Phi "
                            "analyses need a linear model):\n");
                first = 2;
            }
            if (first == 0)
                tw_prose(w, "\n");
            if (first == 1)
                first = 0;
            tw_prose(w, "%s%s: %s (natural horizon %g s)\n", nonlinear ? "\n" : "", m->name,
                     m->doc, m->tend);
            list_params(w, m);
        }
}

int cmd_models(int argc, char **argv)
{
    const char *file = NULL;
    int rc = cli_parse_rows("models", rows, &file, NULL, argc, argv, usage);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    tw w; /* the text form only: a listing for people */
    tw_begin(&w, stdout, TW_TEXT, TW_REPORT, "models", NULL, NULL);
    if (file) {
        char err[1024];
        cosa_model *m = NULL;
        cosa_status st = cosa_model_file_load(file, &m, err, sizeof err);
        if (st != COSA_OK) {
            cli_error("models", "%s", err);
            tw_abandon(&w);
            return st == COSA_EIO ? CLI_EFAIL : CLI_EUSAGE;
        }
        tw_prose(&w, "%s: %s (natural horizon %g s)\n", m->name, m->doc[0] ? m->doc : file,
                 m->tend);
        list_params(&w, m);
        cosa_model_free(m);
        return tw_finish(&w, "models", CLI_OK); /* stdout: checked at the exit */
    }
    list_models(&w);
    return tw_finish(&w, "models", CLI_OK);
}
