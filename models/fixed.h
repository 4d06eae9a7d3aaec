/* fixed.h -- shared callbacks for built-in models of fixed structure: a few
 * subsystems whose matrices are filled from the parameter vector, a constant
 * coupling matrix and an initial state taken from parameters.  A model
 * supplies a model_fixed_desc as its cosa_model.data and MODEL_FIXED_CALLBACKS. */
#ifndef COSA_MODELS_FIXED_H
#define COSA_MODELS_FIXED_H

#include "cosa.h"

#define MODEL_FIXED_STORE 64 /* doubles available to fill()        */
#define MODEL_FIXED_MAXSUB 4

typedef struct model_fixed_desc {
    size_t nsub;
    size_t nx, nu, ny;              /* totals                            */
    const double *L;                /* coupling, nu x ny, column-major   */
    /* Write the subsystem matrices into store (MODEL_FIXED_STORE doubles)
     * and describe them in sub[0 .. nsub-1]; COSA_EPARAM for invalid par. */
    cosa_status (*fill)(const double *par, double *store, cosa_subsystem *sub);
    const int *x0_param;            /* nx parameter indices: x0[k] = par[x0_param[k]] */
    const char *const *state_names; /* nx names  */
    const char *const *input_names; /* nu names  */
    const char *const *output_names;/* ny names  */
    const char *const *sub_names;   /* nsub names */
    const cosa_energy_port *port;   /* the energy paper's power port, or NULL */
} model_fixed_desc;

cosa_status model_fixed_create(const cosa_model *m, const double *par, cosa_system **out);
cosa_status model_fixed_update(const cosa_model *m, const double *par, cosa_system *sys);
cosa_status model_fixed_initial_state(const cosa_model *m, const double *par, double *x0);
const char *model_fixed_state_name(const cosa_model *m, const double *par, size_t k);
const char *model_fixed_input_name(const cosa_model *m, const double *par, size_t k);
const char *model_fixed_output_name(const cosa_model *m, const double *par, size_t k);
const char *model_fixed_sub_name(const cosa_model *m, const double *par, size_t k);
/* cosa_model.energy_port from desc->port (its indices copied into idx). */
cosa_status model_fixed_energy_port(const cosa_model *m, const double *par,
                                    cosa_energy_port *port, size_t *idx, size_t nidx);

/* The fixed-structure parts a nonlinear built-in model shares (its ODE form,
 * energy and, if it needs one, initial state are its own): names from the
 * desc, x0 from desc->x0_param, the power port. */
#define MODEL_FIXED_NAME_CALLBACKS                                                       \
    .state_name = model_fixed_state_name, .input_name = model_fixed_input_name,          \
    .output_name = model_fixed_output_name, .sub_name = model_fixed_sub_name

#define MODEL_FIXED_CALLBACKS                                                            \
    .create = model_fixed_create, .update = model_fixed_update,                          \
    .initial_state = model_fixed_initial_state, .state_name = model_fixed_state_name,    \
    .input_name = model_fixed_input_name, .output_name = model_fixed_output_name,        \
    .sub_name = model_fixed_sub_name

#endif
