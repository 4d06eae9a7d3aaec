/* ssp_discrete.c -- SSP import (ssp_impl.h): connectors of types Integer,
 * Boolean and Enumeration (SSP 2.0 also Int8 ... UInt64), read as discrete
 * signals: an output copied to the input it feeds at every communication
 * point and held in between (doc/ssp.md "Discrete signals").  Such a
 * connection joins connectors of one class (Integer or Enumeration, which
 * join each other, or Boolean), carries no transformation, and becomes a discrete
 * connection of the model (modelfile_discrete.c), no part of L or Phi.
 * So does an ssc:Real connection from a Float64/Real output of variability
 * discrete, fixed, tunable or constant (ssp_dreal_var), with its
 * transformation (doc/ssp.md "Float64 outputs that are not continuous"). */
#include "ssp_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The type element of connector k (its first child of namespace ssc that
 * is no annotation or description), or NULL. */
static const xmlNode *type_of(const xmlNode *k)
{
    for (xmlNode *t = ssp_next(k->children); t; t = ssp_next(t->next))
        if (t->ns && t->ns->href && strcmp((const char *)t->ns->href, SSP_NS_SSC) == 0 &&
            !ssp_is(t, SSP_NS_SSC, "Annotations") && !ssp_is(t, SSP_NS_SSC, "Description"))
            return t;
    return NULL;
}

int ssp_type_class(const struct ssp *s, const xmlNode *t)
{
    if (!t)
        return 0;
    if (ssp_is(t, SSP_NS_SSC, "Real") || (s->version == 2 && ssp_is(t, SSP_NS_SSC, "Float64")))
        return 'r';
    if (ssp_is(t, SSP_NS_SSC, "Integer"))
        return 'i';
    if (ssp_is(t, SSP_NS_SSC, "Boolean"))
        return 'b';
    if (ssp_is(t, SSP_NS_SSC, "Enumeration"))
        return 'e';
    static const char *const ints[] = {"Int8", "UInt8", "Int16", "UInt16",
                                       "Int32", "UInt32", "Int64", "UInt64"};
    for (size_t i = 0; s->version == 2 && i < sizeof ints / sizeof *ints; i++)
        if (ssp_is(t, SSP_NS_SSC, ints[i]))
            return 'i';
    return 0;
}

int ssp_connector_class(const struct ssp *s, const xmlNode *k)
{
    const xmlNode *t = k ? type_of(k) : NULL;
    return t ? ssp_type_class(s, t) : 'r'; /* no type given: as before, a Float64 signal */
}

/* Integer and Enumeration connectors join: an enumeration's value is an
 * integer (FMI 2.0 reads both with fmi2GetInteger), copied as it is. */
static int compatible(int a, int b)
{
    return a == b || ((a == 'i' || a == 'e') && (b == 'i' || b == 'e'));
}

static const char *class_name(int c)
{
    return c == 'r' ? "Float64/Real" : c == 'i' ? "Integer" : c == 'b' ? "Boolean"
                                                                        : "Enumeration";
}

void ssp_discrete_check_connection(struct ssp *s, const xmlNode *c, const xmlNode *a,
                                   const xmlNode *b)
{
    const int ca = ssp_connector_class(s, a), cb = ssp_connector_class(s, b);
    if (!compatible(ca, cb)) {
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(c), "ssd:Connection %.80s -> %.80s joins "
                "a%s %s connector to a%s %s one: type mismatch: not supported (cosa converts "
                "no types: a connection joins connectors of one type)",
                ssp_attr(c, "startConnector"), ssp_attr(c, "endConnector"),
                ca == 'i' || ca == 'e' ? "n" : "", class_name(ca), cb == 'i' || cb == 'e' ? "n" : "",
                class_name(cb));
        return;
    }
    if (ca == 'r' || cb == 'r')
        return;
    for (xmlNode *t = ssp_next(c->children); t; t = ssp_next(t->next))
        if (ssp_is(t, SSP_NS_SSC, "LinearTransformation")) {
            mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(t), "ssc:LinearTransformation on the "
                    "%s connection %.80s -> %.80s: not supported (a discrete signal is copied "
                    "as it is)", class_name(ca), ssp_attr(c, "startConnector"),
                    ssp_attr(c, "endConnector"));
            return;
        }
}

void ssp_discrete_component_connector(struct ssp *s, const xmlNode *comp, const xmlNode *k,
                                      const struct mf_sub *sub)
{
    const int want = ssp_connector_class(s, k);
    const char *name = ssp_attr(k, "name"), *kind = ssp_attr(k, "kind");
    const int input = strcmp(kind, "input") == 0;
    const cosa_fmu_other *o = NULL;
    for (size_t i = 0; sub->fh && i < cosa_fmu_nother(sub->fh) && !o; i++)
        if (strcmp(cosa_fmu_other_at(sub->fh, i)->name, name) == 0)
            o = cosa_fmu_other_at(sub->fh, i);
    const int ok_causality =
        o && o->causality == (input ? COSA_FMU_INPUT : COSA_FMU_OUTPUT);
    if (!ok_causality) {
        mf_perr(s->p, COSA_ESYNTAX, ssp_line(k), "connector '%.80s' of component '%.80s': its "
                "FMU (%.200s) has no %s %s of that name", name, ssp_attr(comp, "name"),
                ssp_attr(comp, "source"), class_name(want), kind);
        return;
    }
    const int have = cosa_fmu_discrete_class(o->type);
    if (!have || !compatible(have, want))
        mf_perr(s->p, COSA_EUNSUPPORTED, ssp_line(k), "connector '%.80s' of component "
                "'%.80s': ssd:Connector type %s, its FMU's %s is a%s %s: type mismatch: not "
                "supported", name, ssp_attr(comp, "name"), class_name(want), kind,
                o->type[0] == 'I' || o->type[0] == 'E' ? "n" : "", o->type);
}

int ssp_dreal_var(const struct mf_sub *sub, const char *name, int input)
{
    char *id = sub && name ? mf_ident_of(name) : NULL;
    const int d = input ? DECL_U : DECL_Y;
    int r = 0; /* an input or output of the model (an OSP system's FMI 2.0 discrete ones) is none */
    for (size_t i = 0; id && sub->fh && mf_find_name(sub->names[d], sub->n[d], id) < 0 &&
                       i < cosa_fmu_nvar(sub->fh); i++) {
        const cosa_fmu_var *v = cosa_fmu_var_at(sub->fh, i);
        if (strcmp(v->name, name) == 0) {
            r = v->causality == (input ? COSA_FMU_INPUT : COSA_FMU_OUTPUT) &&
                (input ? v->variability == COSA_FMU_DISCRETE
                       : v->variability != COSA_FMU_CONTINUOUS);
            break;
        }
    }
    free(id);
    return r;
}
