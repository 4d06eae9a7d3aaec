/* test_opt_table.c -- the table-driven command line (analysis/opt_table.c):
 * every kind of value (accepted and refused, with the exact one-line
 * message), unknown, ambiguous, missing and twice-given options, requires,
 * excludes and required rows, deprecated aliases, included tables, options
 * from an @FILE (FILE:LINE in the message), the rendering of --help and
 * --list-options. */
#include <criterion/criterion.h>

#include "argfile.h"
#include "cli.h"
#include "opt_table.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pair {
    char name[16];
    double value;
    int n;
};

struct inner {
    const char *model;
    int verbose;
};

struct opts {
    int flag, old_used;
    double num, pos, nonneg, frac, closed;
    long i;
    size_t sz, szmax;
    int e, e2;
    const char *path, *str, *out;
    const char *list[3];
    size_t nlist;
    struct pair pair;
    struct inner in;
};

/* NAME=VALUE with a numeric value: the custom kind (as --set) */
static int parse_pair(const opt_row *row, const char *v, void *dst, char *msg, size_t size)
{
    struct pair *p = dst;
    const char *eq = strchr(v, '=');
    double x;
    if (!eq || eq == v || (size_t)(eq - v) >= sizeof p->name ||
        cli_parse_double(eq + 1, &x) != CLI_NUM_OK) {
        snprintf(msg, size, "--%s expects NAME=VALUE, got '%s'", row->name, v);
        return -1;
    }
    memcpy(p->name, v, (size_t)(eq - v));
    p->name[eq - v] = '\0';
    p->value = x;
    p->n++;
    return 0;
}

static const char *const colours[] = {"red", "green", "blue", NULL};
static const char *shape_at(size_t i)
{
    static const char *const s[] = {"circle", "square"};
    return i < 2 ? s[i] : NULL;
}

static const opt_row inner_rows[] = {
    {.kind = OPTK_STRING, .name = "model", .off = offsetof(struct inner, model), .arg = "NAME",
     .help = "the model"},
    {.kind = OPTK_FLAG, .name = "verbose", .off = offsetof(struct inner, verbose),
     .help = "say more"},
    {0}};

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_FLAG, .name = "flag", .off = offsetof(struct opts, flag), .help = "a flag"},
    {.kind = OPTK_NUMBER, .name = "num", .off = offsetof(struct opts, num), .arg = "X",
     .help = "any finite number"},
    {.kind = OPTK_POSITIVE, .name = "pos", .off = offsetof(struct opts, pos), .arg = "X",
     .help = "a positive number"},
    {.kind = OPTK_NONNEG, .name = "nonneg", .off = offsetof(struct opts, nonneg), .arg = "X",
     .help = "a number >= 0"},
    {.kind = OPTK_RANGE, .name = "frac", .off = offsetof(struct opts, frac), .arg = "F",
     .dmin = 0.0, .dmax = 1.0, .flags = OPTF_OPEN_MIN | OPTF_OPEN_MAX, .help = "in (0, 1)"},
    {.kind = OPTK_RANGE, .name = "closed", .off = offsetof(struct opts, closed), .arg = "X",
     .dmin = -1.0, .dmax = 2.5, .help = "in [-1, 2.5]"},
    {.kind = OPTK_INT, .name = "int", .off = offsetof(struct opts, i), .arg = "K", .imin = -3,
     .imax = 10, .help = "an integer in -3..10"},
    {.kind = OPTK_SIZE, .name = "size", .off = offsetof(struct opts, sz), .arg = "N",
     .help = "a positive integer"},
    {.kind = OPTK_SIZE, .name = "size-max", .off = offsetof(struct opts, szmax), .arg = "N",
     .imax = 64, .help = "a positive integer up to 64"},
    {.kind = OPTK_ENUM, .name = "colour", .off = offsetof(struct opts, e), .arg = "C",
     .names = colours, .help = "red, green or blue"},
    {.kind = OPTK_ENUM, .name = "shape", .off = offsetof(struct opts, e2), .arg = "S",
     .name_at = shape_at, .help = "circle or square"},
    {.kind = OPTK_PATH, .name = "path", .off = offsetof(struct opts, path), .arg = "PATH",
     .help = "a file"},
    {.kind = OPTK_PATH, .name = "output", .short_name = 'o', .off = offsetof(struct opts, out),
     .arg = "DIR", .help = "output directory"},
    {.kind = OPTK_STRING, .name = "str", .off = offsetof(struct opts, str), .arg = "TEXT",
     .help = "any text", .requires = "flag", .requires_why = "the reason"},
    {.kind = OPTK_LIST, .name = "item", .off = offsetof(struct opts, list), .arg = "ITEM",
     .max = 3, .off_count = offsetof(struct opts, nlist), .help = "repeatable, at most 3"},
    {.kind = OPTK_CUSTOM, .name = "pair", .off = offsetof(struct opts, pair), .arg = "NAME=VALUE",
     .fn = parse_pair, .flags = OPTF_REPEAT, .excludes = "num",
     .help = "a name and a value; a long help text that has to be wrapped because it goes "
             "past the eighty-seventh column of the terminal, twice: past it again\nand a "
             "second line"},
    {.kind = OPTK_ALIAS, .name = "positive", .target = "pos"},
    {.kind = OPTK_ALIAS, .name = "old-size", .target = "size", .off = offsetof(struct opts, old_used),
     .flags = OPTF_MARK},
    {.kind = OPTK_INCLUDE, .sub = inner_rows, .off = offsetof(struct opts, in)},
    {.kind = OPTK_STRING, .name = "hidden", .off = offsetof(struct opts, str), .flags = OPTF_HIDDEN},
    {.kind = OPTK_HELP, .name = "help", .short_name = 'h', .help = "this help"},
    {0}};

/* Result of one parse: the return code and what went to stderr. */
struct res {
    int rc;
    int first;
    char err[2048];
};

static struct res run_rows(const opt_row *tab, struct opts *o, int positional, const char *first,
                           ...)
{
    char *argv[64] = {"cosa"};
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
    r.rc = opt_parse("t", tab, o, af.argc, af.argv, positional ? &r.first : NULL);
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
#define run(o, ...) run_rows(rows, o, 0, __VA_ARGS__, (const char *)NULL)

/* rc 2 and exactly the one line want */
static void refused(struct res r, const char *want)
{
    char line[1100];
    snprintf(line, sizeof line, "cosa: t: %s\n", want);
    cr_expect_eq(r.rc, CLI_EUSAGE, "rc %d for '%s'", r.rc, want);
    cr_expect_str_eq(r.err, line);
}

Test(opt_table, every_kind_accepted)
{
    struct opts o;
    struct res r = run(&o, "--flag", "--pos=1e-4", "--nonneg", "0", "--int",
                       "-3", "--size", "1e3", "--size-max", "64", "--colour", "blue", "--shape",
                       "square", "--path", "a/b", "-o", "out", "--str", "x y", "--item", "i1",
                       "--item=i2", "--pair", "k=10^2", "--model", "m", "--verbose");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_str_empty(r.err);
    cr_expect_eq(o.flag, 1);
    /* the values are decimal texts that strtod reads exactly as the
     * literals below (same conversion): exact equality is right */
    cr_expect_eq(o.pos, 1e-4);
    cr_expect_eq(o.nonneg, 0.0);
    cr_expect_eq(o.i, -3);
    cr_expect_eq(o.sz, 1000);
    cr_expect_eq(o.szmax, 64);
    cr_expect_eq(o.e, 2);
    cr_expect_eq(o.e2, 1);
    cr_expect_str_eq(o.path, "a/b");
    cr_expect_str_eq(o.out, "out");
    cr_expect_str_eq(o.str, "x y");
    cr_expect_eq(o.nlist, 2);
    cr_expect_str_eq(o.list[0], "i1");
    cr_expect_str_eq(o.list[1], "i2");
    cr_expect_str_eq(o.pair.name, "k");
    cr_expect_eq(o.pair.value, 100.0);
    cr_expect_str_eq(o.in.model, "m");
    cr_expect_eq(o.in.verbose, 1);
    /* short option with its value attached, a unique prefix of a long name */
    r = run(&o, "-oout2", "--nonn", "3", "--col", "red", "--num", "-2.5");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.num, -2.5);
    cr_expect_str_eq(o.out, "out2");
    cr_expect_eq(o.nonneg, 3.0);
    cr_expect_eq(o.e, 0);
    /* a range: open ends take values next to them, closed ends the ends */
    r = run(&o, "--frac", "1e-300", "--closed", "-1");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.frac, 1e-300);
    cr_expect_eq(o.closed, -1.0);
    r = run(&o, "--frac", "0.99999999999999989", "--closed", "2.5");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_lt(o.frac, 1.0);
    cr_expect_eq(o.closed, 2.5);
    /* OPTF_REPEAT: the custom row sees every value */
    r = run(&o, "--pair", "a=1", "--pair", "b=2");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.pair.n, 2);
    cr_expect_str_eq(o.pair.name, "b");
}

Test(opt_table, every_kind_refused)
{
    struct opts o;
    refused(run(&o, "--num", "x"), "--num must be a finite number, got 'x'");
    refused(run(&o, "--num", "nan"), "--num must be a finite number, got 'nan'");
    refused(run(&o, "--num", "1e999"),
            "--num must be a finite number: '1e999' overflows (beyond 1.8e308, the largest "
            "double)");
    refused(run(&o, "--pos", "0"), "--pos must be a positive finite number, got '0'");
    refused(run(&o, "--pos", "1e-400"),
            "--pos must be a positive finite number: '1e-400' underflows to 0 (below 2.2e-308, "
            "the smallest normal double)");
    refused(run(&o, "--nonneg", "-1e-300"), "--nonneg must be a finite number >= 0, got '-1e-300'");
    refused(run(&o, "--frac", "0"), "--frac must be a number in (0, 1), got '0'");
    refused(run(&o, "--frac", "1"), "--frac must be a number in (0, 1), got '1'");
    refused(run(&o, "--frac", "x"), "--frac must be a number in (0, 1), got 'x'");
    refused(run(&o, "--frac", "nan"), "--frac must be a number in (0, 1), got 'nan'");
    refused(run(&o, "--closed", "2.5000000000000004"),
            "--closed must be a number in [-1, 2.5], got '2.5000000000000004'");
    refused(run(&o, "--closed", "-1.0000000000000002"),
            "--closed must be a number in [-1, 2.5], got '-1.0000000000000002'");
    refused(run(&o, "--int", "11"), "--int must be an integer in -3..10, got '11'");
    refused(run(&o, "--int", "-4"), "--int must be an integer in -3..10, got '-4'");
    refused(run(&o, "--int", "2.5"), "--int must be an integer in -3..10, got '2.5'");
    refused(run(&o, "--int", "99999999999999999999"),
            "--int must be an integer in -3..10, got '99999999999999999999'");
    refused(run(&o, "--size", "0"), "--size must be a positive integer, got '0'");
    refused(run(&o, "--size", "-1"), "--size must be a positive integer, got '-1'");
    refused(run(&o, "--size-max", "65"), "--size-max must be an integer in 1..64, got '65'");
    refused(run(&o, "--colour", "Red"), "--colour must be one of red, green, blue; got 'Red'");
    refused(run(&o, "--shape", "x"), "--shape must be one of circle, square; got 'x'");
    refused(run(&o, "--path", ""), "--path needs a non-empty path");
    refused(run(&o, "--item", "a", "--item", "b", "--item", "c", "--item", "d"),
            "too many --item options (at most 3)");
    refused(run(&o, "--pair", "k"), "--pair expects NAME=VALUE, got 'k'");
}

Test(opt_table, command_line_errors)
{
    struct opts o;
    refused(run(&o, "--foo", "1"), "unknown option '--foo' (see 'cosa t --help')");
    refused(run(&o, "--foo=1"), "unknown option '--foo=1' (see 'cosa t --help')");
    refused(run(&o, "-x"), "unknown option '-x' (see 'cosa t --help')");
    refused(run(&o, "--s", "1"), "option '--s' is ambiguous (see 'cosa t --help')");
    /* an empty name is no prefix of every option */
    refused(run(&o, "--=1"), "unknown option '--=1' (see 'cosa t --help')");
    refused(run(&o, "--num"), "option '--num' needs a value (see 'cosa t --help')");
    refused(run(&o, "--flag=1"), "option '--flag' takes no value, got '--flag=1'");
    refused(run(&o, "--num", "1", "--num", "2"), "option --num given twice (it takes one value)");
    refused(run(&o, "--flag", "stray"), "unexpected argument 'stray' (see 'cosa t --help')");
    refused(run(&o, "--", "--flag"), "unexpected argument '--flag' (see 'cosa t --help')");
    /* the first error wins: nothing after it is read */
    refused(run(&o, "--num", "x", "--foo"), "--num must be a finite number, got 'x'");
}

Test(opt_table, positional_arguments)
{
    struct opts o;
    struct res r = run_rows(rows, &o, 1, "--flag", "in.dat", "--num", "1", (const char *)NULL);
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(r.first, 2);
    cr_expect_eq(o.num, 0.0); /* not parsed: after the first positional */
    r = run_rows(rows, &o, 1, "--flag", "--", "--num", (const char *)NULL);
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(r.first, 3);
    r = run_rows(rows, &o, 1, "--flag", (const char *)NULL);
    cr_expect_eq(r.first, 2); /* argc: none */
    r = run_rows(rows, &o, 1, "-", (const char *)NULL);
    cr_expect_eq(r.first, 1); /* "-" (stdin) is an argument, not an option */
}

Test(opt_table, requires_excludes_required)
{
    struct opts o;
    refused(run(&o, "--str", "a"), "--str needs --flag (the reason)");
    struct res r = run(&o, "--str", "a", "--flag");
    cr_expect_eq(r.rc, CLI_OK, "%s", r.err);
    refused(run(&o, "--pair", "a=1", "--num", "2"), "--pair excludes --num (give one of them)");
    static const opt_row req[] = {
        {.kind = OPTK_POSITIVE, .name = "dt", .off = offsetof(struct opts, pos), .arg = "DT",
         .flags = OPTF_REQUIRED, .requires = "scheme"},
        {.kind = OPTK_STRING, .name = "scheme", .off = offsetof(struct opts, str)},
        {0}};
    refused(run_rows(req, &o, 0, "--scheme", "zoh", (const char *)NULL),
            "--dt is required (see 'cosa t --help')");
    refused(run_rows(req, &o, 0, "--dt", "1", (const char *)NULL), "--dt needs --scheme");
    r = run_rows(req, &o, 0, "--dt", "1", "--scheme", "zoh", (const char *)NULL);
    cr_expect_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.pos, 1.0);
}

Test(opt_table, deprecated_aliases)
{
    struct opts o;
    struct res r = run(&o, "--positive", "2");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.pos, 2.0);
    cr_expect_str_eq(r.err, "cosa: t: note: --positive is deprecated; use --pos\n");
    /* the alias's value rules are its target's; no note with an error */
    refused(run(&o, "--positive", "-1"), "--pos must be a positive finite number, got '-1'");
    /* alias and target are one option */
    refused(run(&o, "--pos", "1", "--positive", "2"),
            "option --positive given twice (it takes one value)");
    refused(run(&o, "--positive", "1", "--pos", "2"),
            "option --pos given twice (it takes one value)");
    /* a prefix shared by an alias and its target only is not ambiguous */
    r = run(&o, "--posi", "3");
    cr_expect_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.pos, 3.0);
    /* OPTF_MARK: a flag for the command, no note from the parser */
    r = run(&o, "--old-size", "4");
    cr_assert_eq(r.rc, CLI_OK, "%s", r.err);
    cr_expect_eq(o.sz, 4);
    cr_expect_eq(o.old_used, 1);
    cr_expect_str_empty(r.err);
    r = run(&o, "--size", "4");
    cr_expect_eq(o.old_used, 0);
}

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

/* --list-options: every row, included, aliases and hidden ones too, in
 * table order, with their attributes; the parse stops there (OPT_LISTED) */
Test(opt_table, list_options)
{
    struct opts o;
    char out[2048];
    const char *args[] = {"--num", "1", "--list-options", "--bogus", NULL};
    memset(&o, 0, sizeof o);
    cr_expect_eq(stdout_of(rows, NULL, &o, out, sizeof out, args), OPT_LISTED);
    cr_expect_str_eq(out, "--flag\n--num\n--pos\n--nonneg\n--frac\n--closed\n--int\n--size\n"
                          "--size-max\n--colour\n--shape\n--path\n--output\tshort=-o\n--str\n"
                          "--item\n--pair\n--positive\talias=--pos\n--old-size\talias=--size\n"
                          "--model\n--verbose\n--hidden\thidden\n--help\tshort=-h\n");
    /* the exact spelling only: no prefix of it, and it is no option's prefix */
    const char *prefix[] = {"--list", NULL};
    cr_expect_eq(stdout_of(rows, NULL, &o, out, sizeof out, prefix), CLI_EUSAGE);
    cr_expect_str_empty(out);
}

Test(opt_table, help_asked)
{
    struct opts o;
    struct res r = run(&o, "--num", "1", "-h", "--foo");
    cr_expect_eq(r.rc, OPT_HELP_ASKED);
    cr_expect_str_empty(r.err);
    r = run(&o, "--help");
    cr_expect_eq(r.rc, OPT_HELP_ASKED);
}

Test(opt_table, errors_in_an_option_file_name_file_and_line)
{
    char path[] = "/tmp/test_opt_table_XXXXXX";
    const int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "# options\n--flag\n\n--num 2\n--pos -1\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char at[64], want[256];
    snprintf(at, sizeof at, "@%s", path);
    struct opts o;
    snprintf(want, sizeof want, "%s:5: --pos must be a positive finite number, got '-1'", path);
    refused(run(&o, at), want);
    /* twice: once in the file, once on the command line (named there) */
    snprintf(want, sizeof want, "%s:4: option --num given twice (it takes one value)", path);
    refused(run(&o, "--num", "3", at), want);
    unlink(path);
}

Test(opt_table, help_rendering)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    cr_assert_not_null(f);
    opt_help(f, rows);
    fclose(f);
    const char *want =
        "Options:\n"
        "  --flag               a flag\n"
        "  --num X              any finite number\n"
        "  --pos X              a positive number\n"
        "  --nonneg X           a number >= 0\n"
        "  --frac F             in (0, 1)\n"
        "  --closed X           in [-1, 2.5]\n"
        "  --int K              an integer in -3..10\n"
        "  --size N             a positive integer\n"
        "  --size-max N         a positive integer up to 64\n"
        "  --colour C           red, green or blue\n"
        "  --shape S            circle or square\n"
        "  --path PATH          a file\n"
        "  -o, --output DIR     output directory\n"
        "  --str TEXT           any text\n"
        "  --item ITEM          repeatable, at most 3\n"
        "  --pair NAME=VALUE    a name and a value; a long help text that has to be wrapped\n"
        "                       because it goes past the eighty-seventh column of the terminal,\n"
        "                       twice: past it again\n"
        "                       and a second line\n"
        "  --model NAME         the model\n"
        "  --verbose            say more\n"
        "  -h, --help           this help\n";
    cr_expect_str_eq(buf, want);
    /* every line ends before column 88 */
    for (char *s = buf, *nl; (nl = strchr(s, '\n')); s = nl + 1)
        cr_expect_lt(nl - s, 88, "line too long: %.*s", (int)(nl - s), s);
    free(buf);
    /* an option longer than the column: the help starts on the next line */
    static const opt_row long_row[] = {
        {.kind = OPTK_STRING, .name = "integrator", .arg = "exact|symplectic-euler|euler",
         .help = "the step map"},
        {0}};
    f = open_memstream(&buf, &size);
    opt_help(f, long_row);
    fclose(f);
    cr_expect_str_eq(buf, "  --integrator exact|symplectic-euler|euler\n"
                          "                       the step map\n");
    free(buf);
    cr_expect_eq(opt_find(rows, "verbose"), &inner_rows[1]);
    cr_expect_null(opt_find(rows, "nothing"));
}

/* opt_help_grouped: the options by what they are for (issue 34), headings
 * in the fixed order Model, Scheme, Grid, Output, Other options, Run control;
 * rows in table order inside a group; the old heading rows dropped; a text row
 * with the next option's group or its own; an explicit .group beats the name
 * table; an unknown name lands in "Other options"; -h/--help last. */
Test(opt_table, help_grouped)
{
    static const opt_row model_rows[] = {
        {.kind = OPTK_TEXT, .help = "Model:\n"},
        {.kind = OPTK_STRING, .name = "model", .arg = "NAME", .help = "the model"},
        {.kind = OPTK_TEXT, .help = "\n"},
        {0}};
    static const opt_row g_rows[] = {
        {.kind = OPTK_INCLUDE, .sub = model_rows},
        {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
        {.kind = OPTK_FLAG, .name = "progress", .help = "progress"},
        {.kind = OPTK_STRING, .name = "dt", .arg = "DT", .help = "macro step"},
        {.kind = OPTK_TEXT, .help = "a note on schemes\n"},
        {.kind = OPTK_STRING, .name = "scheme", .arg = "S", .help = "the scheme"},
        {.kind = OPTK_STRING, .name = "frobnicate", .help = "no group"},
        {.kind = OPTK_STRING, .name = "name", .arg = "SUB", .help = "a model name",
         .group = OPTG_MODEL},
        {.kind = OPTK_STRING, .name = "output", .short_name = 'o', .arg = "DIR", .help = "dir"},
        {.kind = OPTK_STRING, .name = "tend", .arg = "T", .help = "hidden", .flags = OPTF_HIDDEN},
        {.kind = OPTK_HELP, .name = "help", .short_name = 'h', .help = "this help"},
        {0}};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    cr_assert_not_null(f);
    opt_help_grouped(f, g_rows, 0);
    fclose(f);
    cr_expect_str_eq(buf, "Model:\n"
                          "  --model NAME         the model\n"
                          "  --name SUB           a model name\n"
                          "\n"
                          "Scheme:\n"
                          "a note on schemes\n"
                          "  --scheme S           the scheme\n"
                          "\n"
                          "Grid:\n"
                          "  --dt DT              macro step\n"
                          "\n"
                          "Output:\n"
                          "  -o, --output DIR     dir\n"
                          "\n"
                          "Other options:\n"
                          "  --frobnicate         no group\n"
                          "\n"
                          "Run control:\n"
                          "  --progress           progress\n"
                          "  -h, --help           this help\n");
    free(buf);
    cr_expect_eq(opt_group_of_name("model-file"), OPTG_MODEL);
    cr_expect_eq(opt_group_of_name("threads"), OPTG_RUN);
    cr_expect_eq(opt_group_of_name("no-such-option"), OPTG_OTHER);
    cr_expect_str_eq(opt_group_title(OPTG_GRID), "Grid");
}
