/* test_opt_modes.c -- the modes of the table-driven command line
 * (opt_parse_modes, opt_help_mode in analysis/opt_table.c): the mode is
 * decided after the whole command line is read (by its selector option,
 * wherever it stands), an option of another mode is one line naming the
 * option and the runs it belongs to (the first such option on the command
 * line), shared rows work in every mode, --help of a mode lists its
 * rows and the shared ones only; --list-options names each row's modes; and
 * the "A, B or C" wording of OPTF_OR_LIST. */
#include <criterion/criterion.h>

#include "argfile.h"
#include "cli.h"
#include "opt_table.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FIXED = 1, COUPLED = 2 };

struct opts {
    double tend;
    int energy;
    const char *coupling, *estimator, *old;
};

static const opt_mode modes[] = {
    {FIXED, NULL, "fixed-step runs (without --coupling)"},
    {COUPLED, "coupling", "--coupling runs"},
    {0}};

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = offsetof(struct opts, tend), .arg = "T",
     .help = "shared"},
    {.kind = OPTK_FLAG, .name = "energy", .off = offsetof(struct opts, energy),
     .help = "fixed-step only", .modes = FIXED},
    {.kind = OPTK_TEXT, .help = "Coupling:\n", .modes = COUPLED},
    {.kind = OPTK_STRING, .name = "coupling", .off = offsetof(struct opts, coupling),
     .arg = "C", .help = "the selector", .modes = COUPLED},
    {.kind = OPTK_STRING, .name = "estimator", .off = offsetof(struct opts, estimator),
     .arg = "E", .help = "coupling only", .modes = COUPLED},
    {.kind = OPTK_ALIAS, .name = "old-estimator", .target = "estimator"},
    {0}};

struct res {
    int rc;
    unsigned mode;
    char err[2048];
};

static struct res run_argv(struct opts *o, const char *first, ...)
{
    char *argv[32] = {"cosa"};
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    argfile af = {0};
    struct res r = {0};
    cr_assert_eq(argfile_expand("t", argc, argv, 1, &af), 0);
    fflush(stderr);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    const int saved = dup(2);
    dup2(fileno(tmp), 2);
    memset(o, 0, sizeof *o);
    r.mode = 99;
    r.rc = opt_parse_modes("t", rows, modes, o, af.argc, af.argv, NULL, &r.mode);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(r.err, 1, sizeof r.err - 1, tmp);
    r.err[n] = '\0';
    fclose(tmp);
    argfile_free(&af);
    return r;
}
#define run(o, ...) run_argv(o, __VA_ARGS__, (const char *)NULL)

/* stdout of opt_parse_modes(tab, modes) on "cosa ARGS..." (args NULL-ended) into out;
 * returns its result */
static int stdout_of(const opt_row *tab, const opt_mode *md, void *o, char *out, size_t size,
                     const char *const *args)
{
    char *argv[16] = {"cosa"};
    int argc = 1;
    for (; args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;
    argfile af = {0};
    cr_assert_eq(argfile_expand("t", argc, argv, 1, &af), 0);
    fflush(stdout);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    const int saved = dup(1);
    dup2(fileno(tmp), 1);
    const int rc = opt_parse_modes("t", tab, md, o, af.argc, af.argv, NULL, NULL);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, size - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    argfile_free(&af);
    return rc;
}

/* --list-options names the modes of a row by their selectors ("default"
 * for the mode without one); rows of every mode are listed, whichever mode
 * the options before it chose */
Test(opt_modes, list_options_names_the_modes)
{
    struct opts o = {0};
    char out[1024];
    const char *args[] = {"--coupling", "explicit", "--list-options", NULL};
    cr_expect_eq(stdout_of(rows, modes, &o, out, sizeof out, args), OPT_LISTED);
    cr_expect_str_eq(out, "--tend\n--energy\tmode=default\n--coupling\tmode=--coupling\n"
                          "--estimator\tmode=--coupling\n--old-estimator\talias=--estimator\n");
}

Test(opt_modes, the_mode_is_decided_after_parsing)
{
    struct opts o;
    struct res r = run(&o, "--tend", "2", "--energy");
    cr_expect_eq(r.rc, CLI_OK);
    cr_expect_eq(r.mode, FIXED);
    cr_expect_eq(o.energy, 1);
    cr_expect_str_empty(r.err);
    /* the selector after the mode's options: the same decision */
    r = run(&o, "--estimator", "milne", "--tend", "2", "--coupling", "explicit");
    cr_expect_eq(r.rc, CLI_OK);
    cr_expect_eq(r.mode, COUPLED);
    cr_expect_str_eq(o.estimator, "milne");
    cr_expect(o.tend == 2.0);
}

Test(opt_modes, an_option_of_another_mode_is_one_line)
{
    struct opts o;
    struct res r = run(&o, "--estimator", "milne");
    cr_expect_eq(r.rc, CLI_EUSAGE);
    cr_expect_str_eq(r.err, "cosa: t: --estimator is an option of --coupling runs\n");
    r = run(&o, "--coupling", "explicit", "--energy");
    cr_expect_eq(r.rc, CLI_EUSAGE);
    cr_expect_str_eq(r.err,
                     "cosa: t: --energy is an option of fixed-step runs (without --coupling)\n");
    /* an alias is named as the user spelled it (and no deprecation note) */
    r = run(&o, "--old-estimator", "milne");
    cr_expect_eq(r.rc, CLI_EUSAGE);
    cr_expect_str_eq(r.err, "cosa: t: --old-estimator is an option of --coupling runs\n");
    /* a value error comes first, where the option stands */
    r = run(&o, "--tend", "0", "--estimator", "milne");
    cr_expect_eq(r.rc, CLI_EUSAGE);
    cr_expect_str_eq(r.err, "cosa: t: --tend must be a positive finite number, got '0'\n");
}

Test(opt_modes, help_of_one_mode)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    opt_help_mode(f, rows, FIXED);
    fclose(f);
    cr_expect_not_null(strstr(buf, "--tend"));
    cr_expect_not_null(strstr(buf, "--energy"));
    cr_expect_null(strstr(buf, "--estimator"));
    cr_expect_null(strstr(buf, "Coupling:"));
    free(buf);
    f = open_memstream(&buf, &len);
    opt_help_mode(f, rows, COUPLED);
    fclose(f);
    cr_expect_not_null(strstr(buf, "--tend"));
    cr_expect_null(strstr(buf, "--energy"));
    cr_expect_not_null(strstr(buf, "Coupling:\n  --coupling C"));
    free(buf);
    /* mode 0 and opt_help: every row */
    f = open_memstream(&buf, &len);
    opt_help(f, rows);
    fclose(f);
    cr_expect_not_null(strstr(buf, "--energy"));
    cr_expect_not_null(strstr(buf, "--estimator"));
    free(buf);
}

/* an included table takes the modes of its OPTK_INCLUDE row */
struct outer {
    struct opts in;
    const char *sel;
};
static const opt_row sub_rows[] = {
    {.kind = OPTK_FLAG, .name = "energy", .off = offsetof(struct opts, energy), .help = "e"},
    {0}};
static const opt_row outer_rows[] = {
    {.kind = OPTK_STRING, .name = "coupling", .off = offsetof(struct outer, sel), .arg = "C",
     .modes = COUPLED},
    {.kind = OPTK_INCLUDE, .sub = sub_rows, .off = offsetof(struct outer, in), .modes = FIXED},
    {0}};

Test(opt_modes, included_rows_inherit_the_mode)
{
    char *argv[] = {"cosa", "--energy", "--coupling", "x", NULL};
    argfile af = {0};
    cr_assert_eq(argfile_expand("t", 4, argv, 1, &af), 0);
    struct outer o = {0};
    unsigned mode = 0;
    FILE *tmp = tmpfile();
    const int saved = dup(2);
    dup2(fileno(tmp), 2);
    const int rc = opt_parse_modes("t", outer_rows, modes, &o, af.argc, af.argv, NULL, &mode);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char err[512] = "";
    rewind(tmp);
    err[fread(err, 1, sizeof err - 1, tmp)] = '\0';
    fclose(tmp);
    argfile_free(&af);
    cr_expect_eq(rc, CLI_EUSAGE);
    cr_expect_eq(mode, COUPLED);
    cr_expect_str_eq(err, "cosa: t: --energy is an option of fixed-step runs (without --coupling)\n");
}

/* OPTF_OR_LIST: the enum's message in the older wording "A, B or C" */
struct eo {
    int e;
};
static const char *const three[] = {"none", "step", "order", NULL};
static const char *const two[] = {"poly", "held", NULL};
static const opt_row enum_rows[] = {
    {.kind = OPTK_ENUM, .name = "control", .off = offsetof(struct eo, e), .names = three,
     .flags = OPTF_OR_LIST},
    {.kind = OPTK_ENUM, .name = "input", .off = offsetof(struct eo, e), .names = two,
     .flags = OPTF_OR_LIST},
    {0}};

static void enum_message(const char *opt, const char *value, const char *want)
{
    char *argv[] = {"cosa", (char *)opt, (char *)value, NULL};
    argfile af = {0};
    cr_assert_eq(argfile_expand("t", 3, argv, 1, &af), 0);
    struct eo o = {-1};
    FILE *tmp = tmpfile();
    const int saved = dup(2);
    dup2(fileno(tmp), 2);
    const int rc = opt_parse("t", enum_rows, &o, af.argc, af.argv, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char err[512] = "";
    rewind(tmp);
    err[fread(err, 1, sizeof err - 1, tmp)] = '\0';
    fclose(tmp);
    argfile_free(&af);
    cr_expect_eq(rc, CLI_EUSAGE);
    cr_expect_str_eq(err, want);
}

Test(opt_modes, enum_or_list_wording)
{
    enum_message("--control", "always",
                 "cosa: t: --control must be none, step or order, got 'always'\n");
    enum_message("--input", "x", "cosa: t: --input must be poly or held, got 'x'\n");
}
