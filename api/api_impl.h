/* api_impl.h -- what the one-call API's files share (api/). */
#ifndef COSA_API_IMPL_H
#define COSA_API_IMPL_H

#include "cosa/api.h"
#include <stddef.h>

struct cosa_case {
    cosa_model *owned;        /* loaded from a file, else NULL        */
    const cosa_model *model;
    double *par;              /* model->nparam (+1) values            */
    char **set_name;          /* the names set, in order (messages)   */
    double *set_value;
    size_t nset;
    const cosa_cancel *cancel; /* the caller's flag (cosa_case_set_cancel), or NULL */
};

/* One line "fmt ..." into err (errsize bytes, err may be NULL); returns st. */
cosa_status api_fail(char *err, size_t errsize, cosa_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* err = "" (every public call starts with it: a successful call leaves no
 * earlier message behind). */
static inline void api_clear(char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
}

/* The scheme named text, checked as the command line does (unknown name,
 * corrections of an iterative scheme). */
cosa_status api_scheme(const char *text, cosa_scheme *s, char *err, size_t errsize);

/* The linear system of c (refusing a nonlinear model, parameters out of
 * their ranges), the scheme checked against it, and x0 when x0 != NULL.
 * On failure nothing is left allocated. */
cosa_status api_system(const cosa_case *c, const char *scheme_text, cosa_scheme *s,
                       cosa_system **sys, double **x0, char *err, size_t errsize);

/* dt (argument name what) positive, finite, and small enough for the
 * discretisation of sys (dt |[A B]|_inf <= 1e300, as the command line). */
cosa_status api_dt(const char *what, double dt, const cosa_system *sys, char *err,
                   size_t errsize);

/* The status of a model callback as one line, naming the set values for a
 * model file that stopped being finite. */
cosa_status api_model_failed(const cosa_case *c, cosa_status st, char *err, size_t errsize);

/* The initial state of c (nx entries, malloc'ed into *x0). */
cosa_status api_x0(const cosa_case *c, size_t nx, double **x0, char *err, size_t errsize);

#endif /* COSA_API_IMPL_H */
