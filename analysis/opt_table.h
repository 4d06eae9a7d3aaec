/* opt_table.h -- the table-driven command line (issue 23 item 4).
 *
 * Each subcommand describes its options once, as a table of rows: the name,
 * the kind of value, where the value goes, the help line, and what the
 * option needs or excludes.  One parser (opt_parse) reads argv against the
 * table and prints the one-line errors ("cosa: CMD: --dt must be a positive
 * finite number, got 'x'"); one printer (opt_help) renders the "Options:"
 * block of --help from the same rows, and the man page is generated from
 * --help (tools/gen-man.sh).  Options read from a file (`cosa CMD @FILE`,
 * analysis/argfile.c) arrive in argv like the others; an error about one of
 * them starts with FILE:LINE.
 *
 * A table is an array of rows ended by a row of kind OPTK_END ({0}).  The
 * value of a row goes to dest + row.off (dest: the command's options struct,
 * given to opt_parse); the type at that offset depends on the kind:
 *
 *   OPTK_FLAG      int, set to 1                       (no value)
 *   OPTK_NUMBER    double, finite                      (cli_parse_double: 1e-4, 10^-4)
 *   OPTK_POSITIVE  double, finite and > 0
 *   OPTK_NONNEG    double, finite and >= 0
 *   OPTK_RANGE     double, finite and in [dmin, dmax]; OPTF_OPEN_MIN and
 *                  OPTF_OPEN_MAX exclude an end: "--iter-tol must be a
 *                  number in (0, 1), got 'x'"
 *   OPTK_INT       long, an integer in [imin, imax]     (digits, or 1e3, 10^3)
 *   OPTK_SIZE      size_t, an integer >= 1 (and <= imax when imax > 0)
 *   OPTK_ENUM      int, the index of the value in a name table: names
 *                  (NULL-terminated) or name_at(i) (NULL past the end), so
 *                  the library's own tables are used
 *   OPTK_PATH      const char *, a non-empty file or directory name
 *   OPTK_STRING    const char *, any text (checked later by the command)
 *   OPTK_LIST      const char *[max], repeatable: each value appended, the
 *                  count in the size_t at dest + off_count; fn (optional)
 *                  checks each value first (dst: its slot)
 *   OPTK_CUSTOM    whatever fn parses (NAME=VALUE, lists of numbers, ...)
 *   OPTK_ALIAS     a deprecated spelling of the row named target: behaves as
 *                  it, and a one-line note goes to stderr after a successful
 *                  parse ("cosa: CMD: note: --OLD is deprecated; use --NEW");
 *                  with OPTF_MARK the int at dest + off is set to 1 and no
 *                  note is printed (the command prints its own, later)
 *   OPTK_HELP      -h/--help: opt_parse returns OPT_HELP_ASKED
 *   OPTK_INCLUDE   the rows of sub, whose destinations are relative to
 *                  dest + off (shared rows, e.g. the model options)
 *   OPTK_TEXT      no option: help is printed as it is (a heading or a note
 *                  between rows)
 *
 * Strings point into argv (not copied): they live as long as argv.
 *
 * Parsing rules: "--name VALUE", "--name=VALUE", a unique prefix of a long
 * name ("--sch" for --scheme), "-x VALUE" and "-xVALUE" for a row with a
 * short name; "--" ends the options.  An option given twice is an error
 * unless it is repeatable (OPTK_LIST, or OPTF_REPEAT); an alias and its
 * target count as one option.  After the whole command line: rows with
 * OPTF_REQUIRED must be given; a given row's requires must be given and its
 * excludes must not be.
 *
 * Every table also answers to "--list-options" (exactly that spelling: not a
 * row, so no prefix of it and no table's own prefixes change): it prints
 * every option of the table on stdout, one line each in table order, with
 * included tables, aliases, hidden rows and the rows of every mode:
 *   --NAME[<TAB>ATTR[ ATTR...]]
 * with ATTR short=-X, alias=--TARGET (a deprecated spelling), hidden (not in
 * --help: accepted to be refused with a message of its own, or a deprecated
 * spelling the command handles), mode=SEL[,SEL...] (opt_parse_modes: the
 * modes it belongs to, as --SELECTOR or "default" for the mode without
 * one).  Shell completion reads the names; tests/test_man_options.sh checks
 * that the man page lists every option. */
#ifndef COSA_OPT_TABLE_H
#define COSA_OPT_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef enum opt_kind {
    OPTK_END = 0,
    OPTK_FLAG,
    OPTK_NUMBER,
    OPTK_POSITIVE,
    OPTK_NONNEG,
    OPTK_RANGE,
    OPTK_INT,
    OPTK_SIZE,
    OPTK_ENUM,
    OPTK_PATH,
    OPTK_STRING,
    OPTK_LIST,
    OPTK_CUSTOM,
    OPTK_ALIAS,
    OPTK_HELP,
    OPTK_INCLUDE,
    OPTK_TEXT
} opt_kind;

/* Row flags. */
enum {
    OPTF_REPEAT = 1u << 0,   /* may be given more than once (OPTK_CUSTOM: fn appends) */
    OPTF_REQUIRED = 1u << 1, /* must be given: "--NAME is required (see 'cosa CMD --help')" */
    OPTF_MARK = 1u << 2,     /* OPTK_ALIAS: set the int at off, print no note */
    OPTF_HIDDEN = 1u << 3,   /* not in --help (aliases are never listed on their own) */
    OPTF_OR_LIST = 1u << 4,  /* OPTK_ENUM: "--NAME must be A, B or C, got 'x'" (the wording
                                of older messages that scripts know) */
    OPTF_OPEN_MIN = 1u << 5, /* OPTK_RANGE: dmin itself is refused */
    OPTF_OPEN_MAX = 1u << 6  /* OPTK_RANGE: dmax itself is refused */
};

/* What an option is for: the groups of `cosa CMD --help` and its man page
 * (opt_help_grouped).  OPTG_AUTO (0, a row that names none): the group of
 * its name in analysis/opt_groups.c (opt_group_of); a name found nowhere
 * is OPTG_OTHER. */
typedef enum opt_group {
    OPTG_AUTO = 0,
    OPTG_MODEL,  /* the system: model, parameters, assumed model        */
    OPTG_SCHEME, /* the coupling scheme, its corrections, integrators   */
    OPTG_GRID,   /* macro steps, horizon, sweep axes and grids          */
    OPTG_OUTPUT, /* what to compute and print, files, pictures, formats */
    OPTG_OTHER,  /* an option no group names (listed before run control) */
    OPTG_RUN,    /* run control: threads, progress, help                 */
    OPTG_N
} opt_group;

struct opt_row;

/* OPTK_CUSTOM: parse value into dst (= dest + row->off).  Returns 0, or -1
 * with the reason in msg (one line without "cosa: CMD: ", e.g. "--set
 * expects NAME=VALUE, got 'x'"); the parser prints it. */
typedef int (*opt_custom_fn)(const struct opt_row *row, const char *value, void *dst,
                             char *msg, size_t size);

typedef struct opt_row {
    opt_kind kind;
    const char *name;     /* long name without "--" ("dt")                         */
    char short_name;      /* 'o', 'h', or 0                                          */
    size_t off;           /* destination: offset in dest (offsetof)                  */
    const char *arg;      /* placeholder of the value in --help ("DT"); NULL: none   */
    const char *help;     /* help text ('\n' starts a new line; long lines wrap)     */
    unsigned flags;       /* OPTF_*                                                  */
    long imin, imax;      /* OPTK_INT range; OPTK_SIZE upper bound (0: none)         */
    double dmin, dmax;    /* OPTK_RANGE: the interval (OPTF_OPEN_MIN/MAX: open ends) */
    const char *const *names;          /* OPTK_ENUM: NULL-terminated table      */
    const char *(*name_at)(size_t i);  /* OPTK_ENUM: or this (NULL past the end) */
    size_t max;           /* OPTK_LIST: capacity of the array at off                 */
    size_t off_count;     /* OPTK_LIST: offset of its size_t count                   */
    opt_custom_fn fn;     /* OPTK_CUSTOM; OPTK_LIST: a check of each value (or NULL) */
    const void *data;     /* OPTK_CUSTOM: anything fn needs (a table, a limit)       */
    const char *target;   /* OPTK_ALIAS: long name of the row it stands for          */
    const char *requires; /* long name of an option this one needs, or NULL          */
    const char *requires_why; /* appended to the message: "--rate needs --energy (WHY)" */
    const char *excludes; /* long name of an option that cannot go with this one     */
    const struct opt_row *sub; /* OPTK_INCLUDE                                       */
    unsigned modes;       /* opt_parse_modes: the modes (bits) it belongs to; 0: all
                             (an OPTK_INCLUDE's: of its rows that have none)  */
    opt_group group;      /* what it is for in --help (OPTG_AUTO: by its name); an
                             OPTK_TEXT row's: where its text goes (AUTO: with the
                             next option) */
} opt_row;

/* opt_parse results besides CLI_OK (0) and CLI_EUSAGE (2): --help was
 * given (nothing printed), or --list-options (the list printed). */
enum { OPT_HELP_ASKED = -1, OPT_LISTED = -2 };
#define OPT_LIST_SPELLING "--list-options"

/* Parse argv[1..argc-1] of subcommand cmd against rows into dest.  argv
 * comes from argfile_expand (it carries the origins of arguments read from
 * @FILEs).  first_positional NULL: every argument must be an option
 * ("unexpected argument 'x'" otherwise); else parsing stops at the first
 * argument that is not an option (or after "--") and its index goes there
 * (argc when there is none).  Returns 0 (CLI_OK), OPT_HELP_ASKED (nothing
 * printed: the caller prints its description and opt_help), OPT_LISTED
 * (--list-options printed the options: the caller stops, exit 0), or 2
 * (CLI_EUSAGE) after one line on stderr. */
int opt_parse(const char *cmd, const opt_row *rows, void *dest, int argc, char **argv,
              int *first_positional);

/* ---- Modes (H3's addition for `cosa simulate`) ------------------------------
 * A command with modes (simulate: fixed-step, or --coupling) parses one
 * table; the mode is decided after parsing, by which selector option was
 * given (the first of modes[] whose selector was given, else the one with
 * selector NULL).  A row whose .modes does not contain that mode's bit is
 * one line: "--NAME is an option of RUNS" (the RUNS of a mode it belongs
 * to), exit 2.  modes[] ends with a {0} entry. */
typedef struct opt_mode {
    unsigned bit;         /* the bit of opt_row.modes                           */
    const char *selector; /* long name of the option selecting it; NULL: default */
    const char *runs;     /* how messages name it: "--coupling runs"             */
} opt_mode;

/* opt_parse, then the mode rule above (modes NULL: opt_parse).  *mode (may
 * be NULL) is set to the bit of the mode decided. */
int opt_parse_modes(const char *cmd, const opt_row *rows, const opt_mode *modes, void *dest,
                    int argc, char **argv, int *first_positional, unsigned *mode);

/* opt_help of the rows (and OPTK_TEXT rows) that belong to mode (.modes 0
 * or containing the bit; mode 0: every row). */
void opt_help_mode(FILE *f, const opt_row *rows, unsigned mode);

/* The rows as --help lines: "  -o, --output DIR   help", the help text
 * starting at column 23 (on the next line when the option is longer),
 * continuation lines indented to column 23 and wrapped before column 88
 * (today's help texts reach column 86).
 * OPTK_TEXT rows are printed verbatim, included tables in place, aliases
 * and OPTF_HIDDEN rows not at all. */
void opt_help(FILE *f, const opt_row *rows);

/* opt_help_mode with the options grouped by what they are for: a heading
 * per group ("Model:", "Scheme:", "Grid:", "Output:", "Other options:",
 * "Run control:"), the rows of each in table order, -h/--help last.  The
 * OPTK_TEXT rows that are only headings or blank lines ("Model:\n",
 * "\nOptions:\n", "\n") are replaced by the group headings; other text
 * rows go to their group (.group, else the next option's). */
void opt_help_grouped(FILE *f, const opt_row *rows, unsigned mode);

/* The group of a row: .group, or the group of its name (analysis/opt_groups.c). */
opt_group opt_group_of(const opt_row *r);

/* The group of an option name, OPTG_OTHER for a name the table lacks. */
opt_group opt_group_of_name(const char *name);

/* The heading of a group in --help, without the colon ("Model"). */
const char *opt_group_title(opt_group g);

/* The row of rows (included tables too) whose long name is name, or NULL. */
const opt_row *opt_find(const opt_row *rows, const char *name);

#endif
