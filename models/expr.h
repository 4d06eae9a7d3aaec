/* expr.h -- arithmetic expressions of named parameters, compiled once to a
 * small postfix bytecode and re-evaluated cheaply (models/expr.c).
 * Internal to the model-file reader and writer (models/modelfile*.c).
 *
 * Grammar (recursive descent; newlines are blanks inside parentheses):
 *   expr    := term { ('+' | '-') term }
 *   term    := unary { ('*' | '/') unary }
 *   unary   := ('-' | '+') unary | power
 *   power   := primary [ '^' unary ]              (right-associative: -a^2 = -(a^2))
 *   primary := NUMBER | NAME | FUNC '(' expr ')' | '(' expr ')'
 *   NUMBER  := decimal, e.g. 2, 0.5, .5, 1e-4, 1E+6 (no hex, inf, nan)
 *   FUNC    := sqrt | exp | log | abs | sin | cos
 * Subexpressions of literals are folded at compile time with the same IEEE
 * operations the evaluator uses, so folding never changes a result.  Every
 * compiled expression is printed back (mf_expr_print) as text that compiles
 * to the identical bytecode, hence evaluates to the identical bits. */
#ifndef COSA_MODELS_EXPR_H
#define COSA_MODELS_EXPR_H

#include "cosa.h"

#include <stdint.h>
#include <stdio.h>

#define MF_EXPR_STACK 64       /* evaluation stack (checked at compile time) */
#define MF_EXPR_MAXCODE 4096   /* instructions per expression               */
#define MF_EXPR_MAXNAME 64     /* characters in a name                      */

/* Shared code store of many expressions. */
typedef struct mf_expr_pool mf_expr_pool;

/* One compiled expression: a constant (len == 0) or code[start, start+len). */
typedef struct mf_expr {
    double value;   /* the constant when len == 0 */
    uint32_t start, len;
    uint32_t line;  /* source line where the expression starts (for messages) */
} mf_expr;

mf_expr_pool *mf_expr_pool_alloc(void);
void mf_expr_pool_free(mf_expr_pool *p);

/* Name lookup used while compiling: returns a variable id >= 0 for the name
 * (text, len), or -1 when the name cannot be accepted (out of memory). */
typedef long (*mf_expr_lookup)(void *ctx, const char *name, size_t len, size_t line);

/* Compile the expression starting at text[*pos] (text NUL-terminated).
 * Stops before the first character that cannot continue the expression at
 * parenthesis depth 0 (',', ';', ']', newline, '#', end of text ...); *pos and
 * *line are advanced.  lookup == NULL means names are not allowed (a
 * constant expression).  On error returns COSA_ESYNTAX (malformed),
 * COSA_ENONFINITE (a number or folded constant is not finite) or
 * COSA_ENOMEM, writes a message without location into msg and leaves *line
 * at the offending line. */
cosa_status mf_expr_compile(mf_expr_pool *p, const char *text, size_t *pos, size_t *line,
                            mf_expr_lookup lookup, void *ctx, mf_expr *out, char *msg,
                            size_t msgsize);

/* Replace every variable id v by map[v] (ids < nmap; returns COSA_EINVAL if
 * an id is out of range).  Used once, after all names are resolved. */
cosa_status mf_expr_pool_remap(mf_expr_pool *p, const uint32_t *map, size_t nmap);

/* Largest variable id used by e, or -1 if it uses none. */
long mf_expr_max_var(const mf_expr_pool *p, const mf_expr *e);

/* Value of e with variables vars[id]. */
double mf_expr_eval(const mf_expr_pool *p, const mf_expr *e, const double *vars);

/* Print e as source text; name(ctx, id) gives variable names.
 * Returns 0, or -1 on a write error or out of memory. */
typedef const char *(*mf_expr_namer)(void *ctx, uint32_t id);
int mf_expr_print(FILE *f, const mf_expr_pool *p, const mf_expr *e, mf_expr_namer name,
                  void *ctx);

/* x with the fewest significant digits (<= 17) that read back as x, an
 * exponent counting two extra characters ("1000", "1e6"): written to f, or
 * into buf (MF_NUMBER_MAX bytes; returns buf). */
enum { MF_NUMBER_MAX = COSA_NUMBER_MAX };
int mf_expr_print_number(FILE *f, double x);
char *mf_expr_format_number(char *buf, double x);

#endif
