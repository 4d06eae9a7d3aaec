/* cmd_fmu_info.c -- `cosa fmu-info FILE.fmu`: what cosa reads from an FMU
 * (README "FMU import"): version, capabilities, states, inputs, outputs,
 * parameters; the FMU is unzipped, parsed and its binary loaded, so every
 * error the importer can find at load time shows here. */
#include "cli.h"
#include "table_writer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa fmu-info [--name SUB] FILE.fmu\n\n"
    "Open an FMI 3.0 or 2.0 co-simulation FMU as cosa's importer does (unzip into a\n"
    "private temporary directory, read modelDescription.xml, load the binary for\n"
    "this platform and resolve its functions) and print what it found:\n"
    "  fmi VERSION, model NAME, identifier ID, capabilities (get-set-state,\n"
    "  directional-derivatives, interpolate-inputs, intermediate-update,\n"
    "  variable-step); only when the FMU declares them (FMI 3.0): event-mode yes\n"
    "  (hasEventMode), early-return yes (canReturnEarlyAfterIntermediateUpdate),\n"
    "  input-smoothness K (recommendedIntermediateInputSmoothness K >= 1: input\n"
    "  polynomials of degree <= K in simulate and advise), scheduled-execution yes\n"
    "  (cosa uses CoSimulation), interface model-exchange (an FMU without a\n"
    "  CoSimulation element: cosa integrates it), clocks N and a line per Clock variable:\n"
    "  clock NAME vr=VR causality=C [interval=VARIABILITY] [period=SECONDS];\n"
    "  default-experiment start=T0 stop=T1 (when given), then one\n"
    "  line per variable: KIND NAME vr=VALUE_REFERENCE [start=VALUE] [set=SUB.VAR]\n"
    "  with KIND state, input, output, parameter (the continuous states, inputs\n"
    "  and outputs and the parameters cosa uses), derivative (of a state) or\n"
    "  unused (with the reason: its type, variability or causality).\n"
    "  set=SUB.VAR is the model parameter of an 'fmu SUB = FILE.fmu' subsystem\n"
    "  (--set SUB.VAR=VALUE, map axes): parameters and states' start values\n"
    "A broken FMU gives one line naming the file and what is wrong, exit code 2\n"
    "(1 if the file cannot be read; an FMU offering only Scheduled Execution says\n"
    "so); the temporary directory is always removed.\n\n";

struct fi_opts {
    const char *name; /* --name SUB */
};

/* --name SUB: a model-file name (letter or '_', then letters, digits, '_'),
 * as the 'fmu SUB = FILE.fmu' line it stands for needs (an empty or odd
 * name would print set= names no --set accepts) */
static int sub_name(const opt_row *r, const char *v, void *dst, char *msg, size_t size)
{
    int ok = (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') || *v == '_';
    for (const char *c = v; ok && *c; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_';
    if (!ok) {
        snprintf(msg, size, "--%s '%s': a subsystem name is expected (a letter or '_', then "
                 "letters, digits, '_')", r->name, v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_CUSTOM, .name = "name", .group = OPTG_MODEL, .off = offsetof(struct fi_opts, name), .arg = "SUB",
     .fn = sub_name,
     .help = "the subsystem name shown in set= (a model-file name:\n"
             "letter or _, then letters, digits, _; default SUB)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* The command line: options before FILE.fmu and after it (as getopt_long
 * took them), each at most once; *path the one FMU.  CLI_OK, CLI_EUSAGE
 * (one line), or -1 after --help. */
static int parse_args(const char *cmd, int argc, char **argv, struct fi_opts *o,
                      const char **path)
{
    int first = argc, next = 0;
    int rc = opt_parse(cmd, rows, o, argc, argv, &first);
    if (rc == CLI_OK && first < argc) {
        /* the rest: argv[first] (the FMU) stands where the parser expects
         * the command's name */
        struct fi_opts after = {0};
        rc = opt_parse(cmd, rows, &after, argc - first, argv + first, &next);
        if (rc == CLI_OK && after.name && o->name) {
            cli_error(cmd, "option --name given twice (it takes one value)");
            return CLI_EUSAGE;
        }
        o->name = after.name ? after.name : o->name;
    }
    if (rc == OPT_HELP_ASKED || rc == OPT_LISTED) {
        if (rc == OPT_HELP_ASKED) {
            fputs(usage, stdout);
            opt_help_grouped(stdout, rows, 0);
        }
        return -1;
    }
    if (rc != CLI_OK)
        return rc;
    if (first == argc || next < argc - first) {
        cli_error(cmd, "%s (see 'cosa fmu-info --help')",
                  first < argc ? "one FMU at a time" : "which FMU? give FILE.fmu");
        return CLI_EUSAGE;
    }
    *path = argv[first];
    return CLI_OK;
}

/* The model-file name of an FMU variable (models/modelfile_fmu.c): characters
 * other than letters, digits and '_' become '_', and a name that does not
 * start with a letter or '_' gets a leading '_'. */
static void ident(char *buf, size_t size, const char *name)
{
    size_t n = 0;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') ||
          name[0] == '_') && n + 1 < size)
        buf[n++] = '_';
    for (const char *c = name; *c && n + 1 < size; c++) {
        const int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                       (*c >= '0' && *c <= '9') || *c == '_';
        buf[n++] = ok ? *c : '_';
    }
    buf[n] = '\0';
}

/* The widths of a variable's line: its kind, its name, then the rest. */
static const int var_width[3] = {10, 20, 0};

/* A variable's line: kind, name, vr=, start=, set= (with sub), extra. */
static void line(tw *w, const char *kind, const cosa_fmu_var *v, const char *sub,
                 const char *extra)
{
    char b[32], vr[32], start[48], set[1024];
    tw_padded(w, "", var_width, 3);
    tw_cell(w, kind);
    tw_cell(w, v->name);
    snprintf(vr, sizeof vr, "vr=%u", v->vr);
    tw_cell(w, vr);
    if (v->has_start) {
        snprintf(start, sizeof start, "start=%s", cosa_number_text(b, sizeof b, v->start));
        tw_cell(w, start);
    }
    if (sub) {
        char id[256];
        ident(id, sizeof id, v->name);
        snprintf(set, sizeof set, "set=%s.%s", sub, id);
        tw_cell(w, set);
    }
    if (extra)
        tw_cell(w, extra);
    tw_row_end(w);
}

static const char *const causality_name[] = {"parameter", "calculated parameter", "input",
                                             "output", "local", "independent",
                                             "structural parameter"};
static const char *const variability_name[] = {"constant", "fixed", "tunable", "discrete",
                                               "continuous"};

/* Why cosa does not use the Float64/Real variable v (not a state, its
 * derivative, a continuous input or output, or a parameter with a start). */
static const char *why_unused(const cosa_fmu_var *v, char *buf, size_t size)
{
    const char *c = v->causality >= 0 && v->causality <= 6 ? causality_name[v->causality] : "?";
    const char *va = v->variability >= 0 && v->variability <= 4
                         ? variability_name[v->variability] : "?";
    if (v->causality == COSA_FMU_INPUT || v->causality == COSA_FMU_OUTPUT)
        snprintf(buf, size, "(%s %s: cosa couples continuous inputs and outputs only)", va, c);
    else if (v->causality == COSA_FMU_PARAMETER && !v->has_start)
        snprintf(buf, size, "(parameter without a start value)");
    else if (v->causality == COSA_FMU_PARAMETER)
        snprintf(buf, size, "(%s parameter: only fixed and tunable ones are model parameters)",
                 va);
    else if (v->causality == COSA_FMU_INDEPENDENT)
        snprintf(buf, size, "(independent: the time)");
    else
        snprintf(buf, size, "(%s %s: not a state, input, output or parameter)", va, c);
    return buf;
}

/* The variables cosa does not read at all: other types and arrays (the
 * Clock variables are not among them: they have their clock lines, cosa
 * drives them, README "Clocks"). */
static void other_lines(tw *w, const cosa_fmu *f)
{
    tw_padded(w, "", var_width, 3);
    for (size_t i = 0; i < cosa_fmu_nother(f); i++) {
        const cosa_fmu_other *o = cosa_fmu_other_at(f, i);
        const int c = o->causality, va = o->variability;
        char vr[32], why[256];
        snprintf(vr, sizeof vr, "vr=%u", o->vr);
        snprintf(why, sizeof why, "(%s %s %s: cosa reads %s)",
                 va >= 0 && va <= 4 ? variability_name[va] : "?", o->type,
                 c >= 0 && c <= 6 ? causality_name[c] : "?",
                 strstr(o->type, "array") ? "scalar variables only"
                                          : cosa_fmu_version(f) == 3 ? "Float64 variables only"
                                                                     : "Real variables only");
        const char *const cells[4] = {"unused", o->name, vr, why};
        tw_row_words(w, cells, 4);
    }
}

/* Every variable: the states, inputs, outputs and parameters cosa uses
 * (README "FMU import"), the derivatives, then the unused ones. */
static void var_lines(tw *w, const cosa_fmu *f, const char *sub)
{
    const size_t nv = cosa_fmu_nvar(f);
    unsigned char *used = calloc(nv + 1, 1);
    if (!used)
        return;
    for (size_t i = 0; i < cosa_fmu_nstate(f); i++) {
        line(w, "state", cosa_fmu_var_at(f, cosa_fmu_state(f, i)), sub, NULL);
        used[cosa_fmu_state(f, i)] = used[cosa_fmu_state_derivative(f, i)] = 1;
    }
    for (size_t i = 0; i < cosa_fmu_ninput(f); i++) {
        line(w, "input", cosa_fmu_var_at(f, cosa_fmu_input(f, i)), NULL, NULL);
        used[cosa_fmu_input(f, i)] = 1;
    }
    for (size_t i = 0; i < cosa_fmu_noutput(f); i++) {
        line(w, "output", cosa_fmu_var_at(f, cosa_fmu_output(f, i)), NULL, NULL);
        used[cosa_fmu_output(f, i)] = 1;
    }
    for (size_t i = 0; i < nv; i++) {
        const cosa_fmu_var *v = cosa_fmu_var_at(f, i);
        if (v->causality == COSA_FMU_PARAMETER && v->has_start &&
            (v->variability == COSA_FMU_FIXED || v->variability == COSA_FMU_TUNABLE)) {
            line(w, "parameter", v, sub, NULL);
            used[i] = 1;
        }
    }
    char of[300], why[200];
    for (size_t i = 0; i < cosa_fmu_nstate(f); i++) {
        snprintf(of, sizeof of, "of=%s", cosa_fmu_var_at(f, cosa_fmu_state(f, i))->name);
        line(w, "derivative", cosa_fmu_var_at(f, cosa_fmu_state_derivative(f, i)), NULL, of);
    }
    for (size_t i = 0; i < nv; i++)
        if (!used[i])
            line(w, "unused", cosa_fmu_var_at(f, i), NULL,
                 why_unused(cosa_fmu_var_at(f, i), why, sizeof why));
    other_lines(w, f);
    free(used);
}

/* The FMI 3.0 co-simulation concepts an FMU declares, one line each and only
 * when declared (an FMU without them prints what it printed before): event
 * mode, early return, input smoothness with the degree cap it sets
 * (cosa_fmu_capability), scheduled execution, and the Clock variables
 * (cosa_fmu_clock_at: the one clock parser, lib/td/fmu_clocks.c). */
static void fmi3_lines(tw *w, const cosa_fmu *f)
{
    const unsigned caps = cosa_fmu_caps(f);
    cosa_fmu_capability cap;
    cosa_fmu_capability_get(f, &cap);
    if (cap.model_exchange)
        tw_field(w, "interface", "model-exchange (no CoSimulation element: cosa integrates "
                 "the FMU with CVODE; doc/model-exchange.md)");
    if (caps & COSA_FMU_CAP_EVENT_MODE)
        tw_field(w, "event-mode", "yes (hasEventMode)");
    if (caps & COSA_FMU_CAP_EARLY_RETURN)
        tw_field(w, "early-return", "yes (canReturnEarlyAfterIntermediateUpdate)");
    if (cap.smoothness > 0)
        tw_field(w, "input-smoothness", "%d (recommendedIntermediateInputSmoothness: input "
                 "polynomials of degree <= %d)", cap.smoothness,
                 cosa_fmu_smoothness_degree(cap.smoothness));
    if (caps & COSA_FMU_CAP_SCHEDULED)
        tw_field(w, "scheduled-execution", "yes (a ScheduledExecution element: cosa uses the "
                 "CoSimulation interface)");
    const size_t nclock = cosa_fmu_nclock(f);
    if (nclock)
        tw_field(w, "clocks", "%zu", nclock);
    tw_padded(w, "", var_width, 3);
    for (size_t i = 0; i < nclock; i++) {
        const cosa_fmu_clock *k = cosa_fmu_clock_at(f, i);
        char b[32], vr[32], caus[64], iv[64], period[48];
        const int c = k->causality;
        snprintf(vr, sizeof vr, "vr=%u", k->vr);
        snprintf(caus, sizeof caus, "causality=%s", c >= 0 && c <= 6 ? causality_name[c] : "?");
        snprintf(iv, sizeof iv, "interval=%s",
                 cosa_fmu_interval_variability_name(k->interval_variability));
        /* the period when given (NaN, not given, fails the test too) */
        snprintf(period, sizeof period, "period=%s", cosa_number_text(b, sizeof b, k->interval));
        const char *const cells[6] = {"clock", k->name, vr, caus, iv, period};
        tw_row_words(w, cells, k->interval > 0.0 ? 6 : 5);
    }
}

int cmd_fmu_info(int argc, char **argv)
{
    const char *cmd = "fmu-info";
    struct fi_opts o = {0};
    const char *path = NULL;
    const int prc = parse_args(cmd, argc, argv, &o, &path);
    if (prc != CLI_OK)
        return prc < 0 ? CLI_OK : prc;
    const char *sub = o.name ? o.name : "SUB";
    char err[512];
    cosa_fmu *f = NULL;
    const cosa_status st = cosa_fmu_open(path, &f, err, sizeof err);
    if (st != COSA_OK) {
        cli_error(cmd, "%s: %s", path, err);
        /* a missing or unreadable file is bad input like a broken FMU */
        return st == COSA_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
    }
    const unsigned caps = cosa_fmu_caps(f);
    static const char *const capname[] = {"get-set-state", "directional-derivatives",
                                          "interpolate-inputs", "intermediate-update",
                                          "variable-step"};
    tw w; /* the text form only: a listing for people */
    tw_begin(&w, stdout, TW_TEXT, TW_REPORT, cmd, NULL, NULL);
    tw_field(&w, "fmi", "%d.0", cosa_fmu_version(f));
    tw_field(&w, "model", "%s", cosa_fmu_model_name(f));
    tw_field(&w, "identifier", "%s", cosa_fmu_identifier(f));
    char list[160] = "";
    for (unsigned k = 0; k < 5; k++)
        if (caps & (1u << k)) {
            strcat(list, list[0] ? " " : "");
            strcat(list, capname[k]); /* at most 5 x 24 characters */
        }
    tw_field(&w, "capabilities", "%s", list[0] ? list : "none");
    fmi3_lines(&w, f);
    const double t0 = cosa_fmu_start_time(f), t1 = cosa_fmu_stop_time(f);
    if (t0 == t0 || t1 == t1) {
        char b0[32], b1[32];
        char de[96] = "";
        if (t0 == t0)
            snprintf(de, sizeof de, "start=%s", cosa_number_text(b0, sizeof b0, t0));
        if (t1 == t1)
            snprintf(de + strlen(de), sizeof de - strlen(de), "%sstop=%s", de[0] ? " " : "",
                     cosa_number_text(b1, sizeof b1, t1));
        tw_field(&w, "default-experiment", "%s", de);
    }
    var_lines(&w, f, sub);
    cosa_fmu_close(f);
    return tw_finish(&w, cmd, CLI_OK); /* stdout: checked at the exit */
}
