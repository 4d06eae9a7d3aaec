/* argfile.h -- options read from files: `cosa SUBCOMMAND @run.args` (as gcc
 * and javac take them).  cosa.c expands the subcommand's arguments once,
 * before the subcommand parses them; every argument read from a file keeps
 * its origin (file and line) so that an error about it can name both. */
#ifndef COSA_ARGFILE_H
#define COSA_ARGFILE_H

#include <stddef.h>

/* Where an argument came from (file NULL: the command line). */
typedef struct argfile_origin {
    const char *arg;  /* the argument's text, as found in argv (by address) */
    const char *file; /* the @file's name as given                          */
    unsigned line;    /* 1-based line in it                                  */
} argfile_origin;

/* The expanded arguments.  argv has argc + 3 entries: argv[argc] = NULL,
 * then a trailer that carries the origins with the array itself (no process
 * state): argv[argc + 1] marks the trailer, argv[argc + 2] points to the
 * origin table.  Every argv cosa.c hands a subcommand is one of these (also
 * without an @file). */
typedef struct argfile {
    int argc;
    char **argv;
    argfile_origin *origin; /* norigin entries, one per argument from a file */
    size_t norigin;
    char **owned;           /* every string read, freed by argfile_free      */
    size_t nowned;
} argfile;

/* Expand argv[first..argc-1] (argv[0 .. first-1] are copied as they are):
 * an argument "@FILE" is replaced by the arguments in FILE, one option per
 * line: "--opt value" (two arguments: the option and the rest of the line)
 * or "--opt=value" or a lone word; blank lines and comments (from a '#' at
 * the start of a line or after a blank to the end of the line) are
 * skipped; no quoting.  After "--" nothing is expanded.  An @FILE inside a
 * file is refused (option files do not nest).  Errors (a missing or
 * unreadable file, a nested @FILE) print one line "cosa: CMD: ..." and
 * return 2 (usage); out of memory returns 1; success 0.  On failure *af is
 * left empty (argfile_free is still safe). */
int argfile_expand(const char *cmd, int argc, char **argv, int first, argfile *af);
void argfile_free(argfile *af);

/* "FILE:LINE: " when arg (an entry of argv, compared by address) was read
 * from an option file, else "" -- the prefix of an error about arg.  argv
 * must carry the trailer (argfile_expand).  Returns buf. */
const char *argfile_where(int argc, char *const *argv, const char *arg, char *buf, size_t size);

#endif
