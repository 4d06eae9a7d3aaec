/* osp_impl.h -- OSP system structures (osp_system.c: the file, simulators,
 * the entry point; osp_connect.c: connections, functions, power bonds),
 * private to models/.  The XML helpers and the parser state are the SSP
 * importer's (ssp_impl.h). */
#ifndef COSA_MODELS_OSP_IMPL_H
#define COSA_MODELS_OSP_IMPL_H

#include "ssp_impl.h"

#define OSP_NS "http://opensimulationplatform.com/MSMI/OSPSystemStructure"
#define OSP_MD_NS "https://open-simulation-platform.com/OspModelDescription/1.0.0"
#define OSP_MD_NS_01 "http://opensimulationplatform.com/MSMI/OSPModelDescription" /* version 0.1 */

/* One end of a power-bond connection: subsystem, variable, the file's label. */
struct osp_bondvar {
    size_t sub;
    char *var;
    int labelled; /* -1 none, 0 output, 1 input */
};
struct osp_pbconn {
    char *name;
    size_t line;
    struct osp_bondvar v[2];
};

struct mf_osp {
    cosa_osp_info info;
    cosa_ecco_params ecco;
    cosa_power_bond *bonds;
    char **bond_names;
    struct osp_pbconn *pbc;
    size_t npbc;
    double *step; /* per subsystem: its Simulator's stepSize (0: not given) */
    xmlDoc **md; /* per subsystem: its OspModelDescription (while loading) */
    size_t nmd;
    const char *file_dir;
};

/* 1 if n is element name of the OSP namespace. */
int osp_is(const xmlNode *n, const char *name);
/* "ELEMENT: not supported: why" at n's line. */
void osp_refuse(struct ssp *s, const xmlNode *n, const char *why);
/* The trimmed text of a simple element into buf; 0, or -1 after reporting. */
int osp_text(struct ssp *s, const xmlNode *n, char *buf, size_t size);
/* A finite number from text (what names it); 0, or -1 after reporting. */
int osp_number(struct ssp *s, const xmlNode *n, const char *text, const char *what, double *v);
/* osp_discrete.c: the connection of variable va of simulator sa and vb of
 * sb when either is an Integer, Boolean or Enumeration variable of its FMU:
 * added as a discrete connection (output to input by the FMUs'
 * causalities), or a type mismatch reported; 1 then, 0 for Real ones. */
int osp_discrete_conn(struct ssp *s, const char *sa, const char *va, const char *sb,
                      const char *vb, size_t line);
/* The subsystem of the simulator called name, or -1 after reporting. */
long osp_sub_of(struct ssp *s, const char *name, size_t line);

/* osp_system.c: libcosim's SSP variant -- the OSP annotation of an
 * ssd:DefaultExperiment (osp:Algorithm/osp:FixedStepAlgorithm baseStepSize)
 * makes the SSP an OSP system (s->p->mf->osp: fixedStep at that step). */
void osp_ssp_annotation(struct ssp *s, xmlNode *experiment);
#define OSP_NS_SSP "http://opensimulationplatform.com/SSP/OSPAnnotations"

/* osp_connect.c: the Functions and Connections elements (either may be
 * NULL) into connections and power-bond connections (o->pbc). */
void osp_connect(struct ssp *s, struct mf_osp *o, xmlNode *functions, xmlNode *connections);
/* After mf_finish: the power bonds from o->pbc, in u/y indices of mf. */
cosa_status osp_bonds(const mf_t *mf, struct mf_osp *o, const char *path, char *err,
                      size_t errsize);

#endif
