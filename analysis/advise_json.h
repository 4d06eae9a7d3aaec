/* advise_json.h -- cosa advise's rows and its JSON document
 * (analysis/advise_json.c), for scripts and co-simulation masters. */
#ifndef COSA_ADVISE_JSON_H
#define COSA_ADVISE_JSON_H

#include "cli.h"

#include <stdio.h>

/* One candidate: the nominal advice and, with --robust, the worst over the
 * factors; whether the model's FMUs can run it (always for other models). */
struct advise_row {
    cosa_advice nom;
    cosa_advice rob; /* worst factor (status, usable, dt, steps, cost) */
    double rob_factor;
    int runnable;    /* cosa simulate can run it on the FMUs        */
    double dt_usable; /* nom.dt before it was rounded down to a step the
                         fixed-step FMUs can take (= nom.dt without them) */
    char why[320];   /* ... else why not ("FMU I: ...")               */
};

/* What the document says besides the rows. */
struct advise_json_info {
    const cli_model *mod;
    const char *error;        /* "global" or "local" */
    double tol, tend, dtmin, dtmax, cost;
    double itol, crb;         /* --iter-tol, --cost-rollback (iterative candidates) */
    int robust;               /* --robust given: its parameter, LO, HI, factors */
    const char *rparam;
    double lo, hi;
    int nfactors;
    const char *notes;        /* the note lines, "note ...\n" each (may be NULL) */
    const struct advise_row *best; /* the recommendation, or NULL */
};

/* Write the JSON document (one object, UTF-8, numbers %.17g, null for
 * what is not a finite number; the JSON emitter json_out.h) of rows[0..n)
 * in rank order to f.  0, or -1 if a write to f failed (its error flag). */
int advise_json_write(FILE *f, const struct advise_json_info *in, const struct advise_row *rows,
                       size_t n);

#endif
