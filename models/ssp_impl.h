/* ssp_impl.h -- SSP import (System Structure and Parameterization, SSP 1.0
 * and 2.0; README "SSP import"), private to models/.
 *
 * An .ssp archive (unzipped into a private directory, as FMUs are) or an
 * unpacked system's .ssd becomes the same description a model file with
 * `fmu` subsystems gives (mf_t, modelfile_impl.h), so every command that
 * takes --model-file takes an SSP:
 *   ssp_ssd.c      opening the archive or the .ssd, the document's root
 *                  (namespace, version), and the check that every element
 *                  is one cosa can use (refused in one line otherwise);
 *   ssp_flatten.c  nested systems flattened: FMU components -> `fmu`
 *                  subsystems, connections traced through system connectors
 *                  -> `connect` with the product of the linear
 *                  transformations' factors;
 *   ssp_ssv.c      parameter bindings (.ssv files, inline ParameterValues),
 *                  through parameter mappings (.ssm) and down parameter
 *                  connections -> the defaults of the FMU parameters "COMP.VAR";
 *   ssp_package.c  nested SSP packages -> systems in their components' places.
 * Both SSP versions use the namespaces http://ssp-standard.org/SSP1/...;
 * the root's version attribute ("1.0", "2.0") tells them apart. */
#ifndef COSA_MODELS_SSP_IMPL_H
#define COSA_MODELS_SSP_IMPL_H

#include "modelfile_impl.h"

#include <libxml/tree.h>

#define SSP_NS_SSD "http://ssp-standard.org/SSP1/SystemStructureDescription"
#define SSP_NS_SSC "http://ssp-standard.org/SSP1/SystemStructureCommon"
#define SSP_NS_SSV "http://ssp-standard.org/SSP1/SystemStructureParameterValues"

/* Sources below node are relative to dir (ssp_package.c). */
struct ssp_base_of {
    const xmlNode *node;
    char *dir;
    int archive;
};

struct ssp {
    struct mf_parser *p; /* errors: p->fname is the .ssd as shown ("a.ssp:SystemStructure.ssd") */
    const char *dir;     /* the .ssd's directory: sources are relative to it */
    int archive;         /* 1: sources must stay inside dir (no "..")             */
    int version;         /* 1 or 2                                                */
    xmlNode *top;        /* the top-level ssd:System                              */
    struct ssp_base_of *bases; /* nested SSP packages' directories (ssp_package.c) */
    size_t nbases;
    struct ssp_hold *holds; /* held inputs and the connectors that feed them (ssp_open.c) */
    size_t nholds;
};

/* ssp_package.c: components of type application/x-ssp-package replaced by
 * their packages' top-level systems (unzipped into the model's directory). */
void ssp_packages(struct ssp *s, xmlNode *root);
void ssp_bases_free(struct ssp *s);
/* The directory (and archive flag) sources below node n are relative to,
 * set in s; the previous ones returned for ssp_base_leave. */
struct ssp_base {
    const char *dir;
    int archive;
};
struct ssp_base ssp_base_enter(struct ssp *s, const xmlNode *n);
void ssp_base_leave(struct ssp *s, struct ssp_base b);

/* ssp_ssd.c: XML helpers */
/* 1 if n is the element NAME of namespace ns. */
int ssp_is(const xmlNode *n, const char *ns, const char *name);
/* The value of attribute name (no namespace) of n, or NULL when absent. */
const char *ssp_attr(const xmlNode *n, const char *name);
/* The element's source line. */
size_t ssp_line(const xmlNode *n);
/* The next element child of n from c on (c = n->children first), or NULL. */
xmlNode *ssp_next(xmlNode *c);
/* "ssd:Name" of an element for messages (buf of 64). */
const char *ssp_qname(const xmlNode *n, char buf[64]);
/* Read an XML file without network, DTD loading or entity expansion; NULL
 * after reporting through mf_perr (what names it, "the .ssd", ...). */
xmlDoc *ssp_read_xml(struct ssp *s, const char *path, const char *what);
/* A source attribute (FMU, .ssv) as a path below s->dir into out (4096):
 * relative, no URI scheme, inside the archive's directory; 0, or -1 after
 * reporting at line. */
int ssp_source_path(struct ssp *s, const char *source, size_t line, const char *what,
                    char *out, size_t outsize);
/* A number attribute (xs:double): 0 and *v, or -1 after reporting. */
int ssp_number(struct ssp *s, const xmlNode *n, const char *attr, double dflt, double *v);

#define SSP_NS_SSM "http://ssp-standard.org/SSP1/SystemStructureParameterMapping"

/* ssp_flatten.c: the top system's components and connections into s->p->mf */
void ssp_flatten(struct ssp *s);
/* The flattened subsystem of component element c, or NULL. */
struct mf_sub *ssp_component_sub(struct ssp *s, const xmlNode *c);
/* The element named at end start (1) or end (0) of connection c, NULL for
 * the system's own connector ("" or absent). */
const char *ssp_end_element(const xmlNode *c, int start);
/* The element (Component or System) called name in system sys, or NULL. */
xmlNode *ssp_element(xmlNode *sys, const char *name);
/* The connector called name of element (or system) e, or NULL. */
xmlNode *ssp_connector(xmlNode *e, const char *name);

/* ssp_open.c: Model Exchange components and open systems. */
/* The interface component c asks for (implementation="ModelExchange",
 * "CoSimulation"; COSA_FMU_IFACE_AUTO for "any" or none). */
int ssp_component_iface(const xmlNode *c);
/* Held input h of the model (mf->holds) fed through the input connector
 * conn of system sys (NULL: none) with target = gain * value + offset. */
struct ssp_hold {
    size_t h;
    const xmlNode *sys;
    const char *conn;
    double gain, offset;
};
/* Input in of FMU subsystem sub, which nothing feeds (sys, conn: the system
 * input connector without a source it hangs on, or NULL), held at the FMU's
 * start value until a binding gives a value. */
void ssp_hold_open(struct ssp *s, const struct mf_sub *sub, const char *in, size_t line,
                   const xmlNode *sys, const char *conn, double gain, double offset);
/* Every FMU input that no connection feeds and no hold holds yet: held at
 * its start value (after the connections). */
void ssp_hold_rest(struct ssp *s);
/* A binding of variable var of component comp: the index of its hold when
 * var is a held input, -1 when var is no input, -2 after reporting an input
 * a connection feeds. */
long ssp_hold_input(struct ssp *s, xmlNode *comp, const char *var, const char *full,
                    size_t line);
/* Value x for held input h / for every input the input connector conn of
 * system sys holds (through their transformations). */
void ssp_hold_bind(struct ssp *s, long h, double x);
void ssp_hold_bind_connector(struct ssp *s, const xmlNode *sys, const char *conn, double x);
/* ssp_discrete.c: Integer, Boolean and Enumeration connectors (discrete
 * signals).  The class of a connector's type element t: 'r' Real/Float64,
 * 'i' Integer (SSP 2.0 also Int8 ... UInt64), 'b' Boolean, 'e'
 * Enumeration, 0 any other type. */
int ssp_type_class(const struct ssp *s, const xmlNode *t);
/* The class of connector k ('r' when it names no type). */
int ssp_connector_class(const struct ssp *s, const xmlNode *k);
/* Connection c between connectors a and b: one class at both ends (type
 * mismatch refused), no transformation on a discrete one. */
void ssp_discrete_check_connection(struct ssp *s, const xmlNode *c, const xmlNode *a,
                                   const xmlNode *b);
/* A discrete connector k of FMU component comp: its FMU (sub) has an input
 * or output of that name and class. */
void ssp_discrete_component_connector(struct ssp *s, const xmlNode *comp, const xmlNode *k,
                                      const struct mf_sub *sub);
/* 1 if the FMU of sub has a Float64/Real output (input = 0) of variability
 * discrete, fixed, tunable or constant named name -- a discrete signal,
 * copied at every communication point, no part of L -- or a Float64/Real
 * input (input = 1) of variability discrete, which one feeds; 0 for an
 * input or output of the model (sub->names: an OSP system's FMI 2.0
 * discrete Reals, coupled through L). */
int ssp_dreal_var(const struct mf_sub *sub, const char *name, int input);

/* ssp_ssv.c: the parameter bindings of every system and component, inner
 * ones first (outer bindings take precedence, as the standard says); FMUs
 * whose parameters changed are linearised again there. */
void ssp_bind(struct ssp *s);

/* ssp_ssd.c: the entry point (modelfile.c calls it for *.ssp and *.ssd). */
cosa_status mf_ssp_load(const char *path, unsigned flags, double probe, cosa_model **out, char *err,
                        size_t errsize);

#endif
