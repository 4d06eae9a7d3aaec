/* modelfile_discrete.c -- the discrete connections of a model read from an
 * SSP or an OSP system structure: an Integer, Boolean or Enumeration output
 * of one FMU subsystem feeding an input of the same type of another
 * (doc/ssp.md "Discrete signals").  They are no part of the coupling u =
 * L y + c nor of Phi; cosa_model_units_create (models/unitset_build.c)
 * links them on the unit set, whose master copies them at every
 * communication point (lib/td/discrete.c). */
#include "modelfile_impl.h"

#include <stdlib.h>
#include <string.h>

cosa_status mf_discrete_add(mf_t *mf, size_t from, const char *out, size_t to, const char *in,
                            size_t line)
{
    return mf_discrete_add_real(mf, from, out, to, in, line, 1.0, 0.0);
}

cosa_status mf_discrete_add_real(mf_t *mf, size_t from, const char *out, size_t to,
                                 const char *in, size_t line, double gain, double offset)
{
    char *o = mf_dup0(out), *i = mf_dup0(in);
    struct mf_dconn *d = o && i ? realloc(mf->dconns, (mf->ndconn + 1) * sizeof *d) : NULL;
    if (!d) {
        free(o);
        free(i);
        return COSA_ENOMEM;
    }
    mf->dconns = d;
    mf->dconns[mf->ndconn++] = (struct mf_dconn){from, o, to, i, line, gain, offset};
    return COSA_OK;
}

int mf_discrete_feeds(const mf_t *mf, size_t to, const char *in)
{
    int fed = 0;
    for (size_t k = 0; k < mf->ndconn && !fed; k++) {
        char *id = mf->dconns[k].to == to ? mf_ident_of(mf->dconns[k].in) : NULL;
        fed = id && strcmp(id, in) == 0;
        free(id);
    }
    return fed;
}

void mf_discrete_free(mf_t *mf)
{
    for (size_t k = 0; k < mf->ndconn; k++) {
        free(mf->dconns[k].out);
        free(mf->dconns[k].in);
    }
    free(mf->dconns);
    mf->dconns = NULL;
    mf->ndconn = 0;
}

size_t cosa_model_file_ndiscrete(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    return mf ? mf->ndconn : 0;
}

cosa_status cosa_model_file_discrete(const cosa_model *m, size_t k, size_t *from,
                                     const char **out, size_t *to, const char **in)
{
    const mf_t *mf = mf_of(m);
    if (!mf || k >= mf->ndconn || !from || !out || !to || !in)
        return COSA_EINVAL;
    *from = mf->dconns[k].from;
    *out = mf->dconns[k].out;
    *to = mf->dconns[k].to;
    *in = mf->dconns[k].in;
    return COSA_OK;
}

cosa_status cosa_model_file_discrete_map(const cosa_model *m, size_t k, double *gain,
                                         double *offset)
{
    const mf_t *mf = mf_of(m);
    if (!mf || k >= mf->ndconn || !gain || !offset)
        return COSA_EINVAL;
    *gain = mf->dconns[k].gain;
    *offset = mf->dconns[k].offset;
    return COSA_OK;
}
