/* modelfile_cache.h -- the cache of identified models of a model file's
 * black-box FMUs (models/modelfile_cache.c): a sweep over an FMU's own
 * parameters identifies the FMU once per distinct parameter set, and a
 * sweep that does not move them reuses the model read with the file
 * (doc/black-box.md "Identification cache"). */
#ifndef COSA_MODELFILE_CACHE_H
#define COSA_MODELFILE_CACHE_H

#include "cosa/models.h"

#include <stddef.h>

struct mf;
struct mf_sub;
struct mf_icache;

/* A new, empty cache (NULL without memory); mf_icache_free releases it
 * (NULL is ignored).  The environment variable COSA_IDENT_CACHE=off, read
 * here, makes it store nothing (every lookup identifies: a check that the
 * cache changes no number). */
struct mf_icache *mf_icache_new(void);
void mf_icache_free(struct mf_icache *c);

/* The identified continuous model A (n x n), B (n x nu), C (ny x n),
 * D (ny x nu) of subsystem s's FMU and, when x0 is not NULL, the initial
 * state x0 (n) fitted by the same identification, with the unit u created at parameter
 * values par (the operating point), the order and probe step found at the
 * defaults: from the cache when the key -- the FMU file (path, size,
 * modification time), its interface, the order, the probe step and the
 * subsystem's parameter values par[fpar0, fpar0 + nfpar) -- was identified
 * before in this process, else by mf_ident_unit (then stored).  Safe to call
 * from several threads: a key being identified by one thread is waited
 * for by the others.  COSA_OK, or the identification's status (its reason
 * set on u with cosa_unit_fail). */
cosa_status mf_icache_identify(const struct mf *mf, const struct mf_sub *s, const double *par,
                               cosa_unit *u, double *A, double *B, double *C, double *D,
                               double *x0);

/* cosa_model_file_ident_cache_counts (cosa/models.h) reads the counts. */

#endif
