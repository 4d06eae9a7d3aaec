/* cli_rows.c -- the option rows every analysis command shares (model,
 * scheme, macro step, Gauss-Seidel sequence, iterative coupling, progress,
 * help) and cli_parse_rows, the table-driven parse of a command line
 * (analysis/opt_table.h). */
#include "cli.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

int cli_row_model_pair(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    cli_model *m = dst;
    if (row->data)
        return cli_name_value("--assume", value, m->assume_name, m->assume_value, &m->nassume,
                              msg, size);
    return cli_name_value("--set", value, m->set_name, m->set_value, &m->nset, msg, size);
}

const int cli_row_assume_tag = 1;

const opt_row cli_set_rows[] = {
    {.kind = OPTK_CUSTOM, .name = "set", .arg = "NAME=VALUE", .fn = cli_row_model_pair,
     .flags = OPTF_REPEAT,
     .help = "override a model parameter or initial state (repeatable)"},
    {0}};

const opt_row cli_model_rows[] = {
    {.kind = OPTK_STRING, .name = "model", .off = offsetof(cli_model, name), .arg = "NAME",
     .help = "built-in model (default: twomass; see 'cosa models')"},
    {.kind = OPTK_PATH, .name = "model-file", .off = offsetof(cli_model, file), .arg = "PATH",
     .excludes = "model", .help = "model file (format: man 5 cosa-model)"},
    {.kind = OPTK_STRING, .name = "linearization", .off = offsetof(cli_model, linearization),
     .arg = "identify|declared", .requires = "model-file",
     .help = "FMUs as linear subsystems: identified from their inputs\n"
             "and outputs (black boxes, doc/black-box.md), or from their\n"
             "declared states (default: identify the FMUs that declare\n"
             "no states, linearise the others)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_text, .name = "probe-step",
     .off = offsetof(cli_model, probe_step),
     .arg = "H", .requires = "model-file",
     .help = "identification's probe step in seconds for FMUs without\n"
             "a fixed internal step (default: DefaultExperiment stepSize,\n"
             "else 1e-3)"},
    {.kind = OPTK_INCLUDE, .sub = cli_set_rows},
    {0}};

const opt_row cli_assume_rows[] = {
    {.kind = OPTK_CUSTOM, .name = "assume", .arg = "NAME=VALUE", .fn = cli_row_model_pair,
     .data = &cli_row_assume_tag, .flags = OPTF_REPEAT,
     .help = "imperfect model knowledge: the output correction (+ocorr,\n"
             "+mbcorr) believes in the model with NAME = VALUE (the\n"
             "other parameters as the true ones; repeatable;\n"
             "doc/which-scheme.md)"},
    {0}};

const opt_row cli_scheme_rows[] = {
    {.kind = OPTK_STRING, .name = "scheme", .off = offsetof(cli_case, scheme_text),
     .arg = "SCHEME", .help = "coupling scheme"},
    {0}};

/* ---- number options kept as text, checked while parsing ---------------- */

/* The text of a number option, checked now: the command reads it later,
 * and an @FILE error names FILE:LINE.  positive: > 0, else finite. */
static int number_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size,
                       int positive)
{
    double x;
    const int rc = cli_parse_double(value, &x);
    const char *what = positive ? "a positive finite number" : "a finite number";
    if (rc == CLI_NUM_OK && (!positive || x > 0.0)) {
        *(const char **)dst = value;
        return 0;
    }
    if (rc == CLI_NUM_OVERFLOW || rc == CLI_NUM_UNDERFLOW)
        snprintf(msg, size, "--%s must be %s: '%s' %s", row->name, what, value,
                 cli_number_why(rc));
    else
        snprintf(msg, size, "--%s must be %s, got '%s'", row->name, what, value);
    return -1;
}

int cli_row_positive_text(const opt_row *row, const char *value, void *dst, char *msg,
                          size_t size)
{
    return number_text(row, value, dst, msg, size, 1);
}

int cli_row_number_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    return number_text(row, value, dst, msg, size, 0);
}

int cli_row_rule_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    const cli_number_rule *r = row->data;
    double x;
    if (r->word && strcmp(value, r->word) == 0) {
        *(const char **)dst = value;
        return 0;
    }
    const int rc = cli_parse_double(value, &x);
    const int lo_ok = (r->open & 1u) ? x > r->lo : x >= r->lo;
    const int hi_ok = (r->open & 2u) ? x < r->hi : x <= r->hi;
    if (rc == CLI_NUM_OK && lo_ok && hi_ok && !(r->nonzero && x == 0.0)) {
        *(const char **)dst = value;
        return 0;
    }
    if (r->why && (rc == CLI_NUM_OVERFLOW || rc == CLI_NUM_UNDERFLOW))
        snprintf(msg, size, "--%s must be %s: '%s' %s", row->name, r->what, value,
                 cli_number_why(rc));
    else
        snprintf(msg, size, "--%s must be %s, got '%s'", row->name, r->what, value);
    return -1;
}

int cli_row_positive_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                               size_t size)
{
    char tok[128];
    const char *item;
    for (const char *p = value; *p;) { /* items as strtok splits them: empty ones skipped */
        const size_t n = strcspn(p, ",");
        snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok ? n : sizeof tok - 1), p);
        if (n && number_text(row, tok, &item, msg, size, 1) != 0)
            return -1;
        p += n + (p[n] == ',');
    }
    *(const char **)dst = value;
    return 0;
}

int cli_row_threads_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                              size_t size)
{
    char tok[128];
    size_t v;
    for (const char *p = value; *p;) { /* items as strtok splits them: empty ones skipped */
        const size_t n = strcspn(p, ",");
        snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok ? n : sizeof tok - 1), p);
        if (n && (cli_parse_size(tok, &v) != 0 || v > CLI_THREADS_MAX)) {
            snprintf(msg, size, "--%s must be an integer in 1..%d, got '%s'", row->name,
                     CLI_THREADS_MAX, tok);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    *(const char **)dst = value;
    return 0;
}

int cli_row_iterations_text(const opt_row *row, const char *value, void *dst, char *msg,
                            size_t size)
{
    size_t k;
    if (strcmp(value, "inf") != 0 && (cli_parse_size(value, &k) != 0 || k > 1000000)) {
        snprintf(msg, size, "--%s must be an integer in 1..1000000 or inf, got '%s'", row->name,
                 value);
        return -1;
    }
    *(const char **)dst = value;
    return 0;
}

int cli_row_relax_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    double w = 1.0;
    const char *w0 = value + 6;
    if (strncmp(value, "aitken", 6) == 0 && (*w0 == '\0' || *w0 == ':')) {
        /* (whether aitken applies is the command's question, cli_iter_apply) */
        if (*w0 && (cli_parse_double(w0 + 1, &w) != 0 || !(w > 0.0) || w > 2.0)) {
            snprintf(msg, size, "--%s aitken:W0 needs an initial factor W0 in (0, 2], got '%s'",
                     row->name, value);
            return -1;
        }
    } else if (cli_parse_double(value, &w) != 0 || w == 0.0) {
        snprintf(msg, size, "--%s must be a finite nonzero number, got '%s'", row->name, value);
        return -1;
    }
    *(const char **)dst = value;
    return 0;
}

int cli_row_rate_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    const char *eq = strchr(value, '=');
    size_t v;
    if (!eq) {
        snprintf(msg, size, "--%s expects NAME=K, got '%s'", row->name, value);
        return -1;
    }
    /* NAME is checked against the model later (ecli_rates) */
    if (cli_parse_size(eq + 1, &v) != 0 || v < 1 || v > 1000000) {
        snprintf(msg, size, "--%s %s: K must be an integer 1..1000000 (unit steps per macro "
                            "step)", row->name, value);
        return -1;
    }
    *(const char **)dst = value;
    return 0;
}

int cli_row_dt_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                         size_t size)
{
    double x;
    if (strchr(value, ':')) {
        /* LO:HI:log|lin:N with positive LO and HI; N against the cap later */
        char buf[256], *f[5], *save = NULL;
        size_t nf = 0;
        int ok = strlen(value) < sizeof buf && value[strlen(value) - 1] != ':';
        if (ok) {
            strcpy(buf, value);
            for (char *t = strtok_r(buf, ":", &save); t && nf < 5; t = strtok_r(NULL, ":", &save))
                f[nf++] = t;
        }
        ok = ok && !strstr(value, "::") && value[0] != ':' && nf == 4 &&
             cli_parse_double(f[0], &x) == CLI_NUM_OK && x > 0.0 &&
             cli_parse_double(f[1], &x) == CLI_NUM_OK && x > 0.0 &&
             (strcmp(f[2], "log") == 0 || strcmp(f[2], "lin") == 0);
        if (!ok) {
            snprintf(msg, size, "--%s expects DT[,DT...] or LO:HI:log|lin:N with positive steps, "
                                "got '%s'", row->name, value);
            return -1;
        }
        *(const char **)dst = value;
        return 0;
    }
    const size_t len = strlen(value);
    if (len == 0 || value[0] == ',' || value[len - 1] == ',' || strstr(value, ",,")) {
        snprintf(msg, size, "--%s: empty item in the list '%s'", row->name, value);
        return -1;
    }
    for (const char *p = value; *p;) {
        const size_t n = strcspn(p, ",");
        char tok[128];
        snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok ? n : sizeof tok - 1), p);
        if (cli_parse_double(tok, &x) != CLI_NUM_OK || !(x > 0.0)) {
            snprintf(msg, size, "--%s must be positive finite numbers, got '%s'", row->name, tok);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    *(const char **)dst = value;
    return 0;
}

const opt_row cli_dt_rows[] = {
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_text, .name = "dt", .off = offsetof(cli_case, dt_text), .arg = "DT",
     .help = "macro step in seconds, > 0"},
    {0}};

const opt_row cli_case_rest_rows[] = {
    {.kind = OPTK_NUMBER, .name = "alpha", .off = offsetof(cli_case, alpha), .arg = "A",
     .help = "state-correction gain alpha (default 1)"},
    {.kind = OPTK_STRING, .name = "sequence", .off = offsetof(cli_case, seq_text), .arg = "LIST",
     .help = "Gauss-Seidel (gs:) execution sequence: comma-separated\n"
             "subsystem names or 1-based indices (default: the model's;\n"
             "--order LIST is the deprecated spelling)"},
    /* "order" is the extrapolation order; the execution order of
     * Gauss-Seidel schemes is the sequence (cli_case_sequence prints the
     * note once the sequence is accepted, so that an error stays one line) */
    {.kind = OPTK_ALIAS, .name = "order", .target = "sequence", .flags = OPTF_MARK,
     .off = offsetof(cli_case, seq_deprecated)},
    {.kind = OPTK_CUSTOM, .fn = cli_row_iterations_text, .name = "iterations",
     .off = offsetof(cli_case, iter_text), .arg = "K",
     .help = "imp:/gs-imp: sweeps per macro step, K >= 1 or inf (default)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_relax_text, .name = "relax",
     .off = offsetof(cli_case, relax_text), .arg = "W",
     .help = "imp:/gs-imp: relaxation omega, finite and nonzero (default 1)"},
    {0}};

/* The head of a case command's help: its model (with --assume), the scheme
 * syntax, and the "Options:" heading (the command's own rows follow). */
const opt_row cli_case_head_rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = offsetof(cli_case, mod)},
    {.kind = OPTK_INCLUDE, .sub = cli_assume_rows, .off = offsetof(cli_case, mod)},
    {.kind = OPTK_TEXT, .help = "\n"},
    {.kind = OPTK_TEXT, .help = cli_scheme_help, .group = OPTG_SCHEME},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {0}};

/* One case: --scheme SCHEME, --dt DT and the rest of the case. */
const opt_row cli_case_point_rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_scheme_rows},
    {.kind = OPTK_INCLUDE, .sub = cli_dt_rows},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows},
    {0}};

/* A scan over the macro step: --scheme SCHEME and the rest of the case. */
const opt_row cli_case_scan_rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_scheme_rows},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows},
    {0}};

const opt_row cli_progress_rows[] = {
    {.kind = OPTK_FLAG, .name = "progress", .off = offsetof(cli_case, progress),
     .help = "progress on stderr (default: only on a terminal, after 0.5 s)"},
    {0}};

const opt_row cli_max_points_rows[] = {
    {.kind = OPTK_SIZE, .name = "max-points", .off = offsetof(cli_case, max_points), .arg = "N",
     .help = "refuse sweeps of more than N points in all (grid\n"
             "points x macro steps x schemes; default 10^7)"},
    {0}};

static const char *const format_names[] = {"text", "json", NULL};

const opt_row cli_format_rows[] = {
    {.kind = OPTK_ENUM, .name = "format", .off = offsetof(cli_case, format), .arg = "text|json",
     .names = format_names, .flags = OPTF_OR_LIST,
     .help = "text (default) or json: one JSON document with the same\n"
             "numbers (doc/output-formats.md)"},
    {0}};

const opt_row cli_help_rows[] = {
    {.kind = OPTK_HELP, .name = "help", .short_name = 'h', .help = "this help"},
    {0}};

int cli_parse_rows(const char *cmd, const opt_row *rows, void *dest, cli_case *cs, int argc,
                   char **argv, const char *usage)
{
    if (cs)
        cs->alpha = 1.0;
    const int rc = opt_parse(cmd, rows, dest, argc, argv, NULL);
    if (rc == OPT_LISTED)
        return -1;
    if (rc != OPT_HELP_ASKED)
        return rc;
    fputs(usage, stdout);
    opt_help_grouped(stdout, rows, 0);
    return -1;
}
