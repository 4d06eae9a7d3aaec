"""Build cosa._cosa, the cffi extension (API mode) of the Python package.

Called by make (Makefile.am): python3 build_cffi.py OUTDIR INCDIR LIBDIR RPATH
compiles the extension against the headers in INCDIR (lib/ of the source
tree: a changed struct is a compile error, not a crash) and libcosa in
LIBDIR, with run path RPATH (the installed libdir), into OUTDIR/cosa/.
"""
import os
import sys

import cffi

# The declarations the package uses.  Structs end in "...;": their layout
# comes from the compiler, so only the fields named here must exist.
CDEF = r"""
typedef int... cosa_status;
#define COSA_OK ...
#define COSA_EINVAL ...
#define COSA_ENOMEM ...
#define COSA_EUNSTABLEREF ...
#define COSA_ECANCELLED ...
typedef int... cosa_criterion;
#define COSA_CRIT_STABLE ...
#define COSA_CRIT_ACCURATE ...
#define COSA_CRIT_LOCAL ...
#define COSA_CRIT_ITERATION ...
typedef int... cosa_metric;
#define COSA_METRIC_COUNT ...
typedef int... cosa_param_kind;
#define COSA_PARAM_INITIAL ...
typedef int... cosa_case_ref;
#define COSA_CASE_REF_AUTO ...
#define COSA_CASE_REF_FINE ...
#define COSA_CASE_REF_NONE ...
#define COSA_LIMIT_PER_DECADE ...

const char *cosa_strerror(cosa_status status);
const char *cosa_version(void);
typedef struct cosa_cancel cosa_cancel;
cosa_cancel *cosa_cancel_alloc(void);
void cosa_cancel_free(cosa_cancel *c);
void cosa_cancel_request(cosa_cancel *c);
int cosa_cancel_requested(const cosa_cancel *c);
const char *cosa_run_status_name(int s);
cosa_status cosa_metric_parse(const char *text, cosa_metric *out);

typedef struct { int implicit; ...; } cosa_scheme;
void cosa_scheme_name(const cosa_scheme *s, char *buf, size_t size);

typedef struct {
    const char *name;
    double value;
    const char *unit;
    const char *doc;
    cosa_param_kind kind;
    ...;
} cosa_param;
typedef struct cosa_model {
    const char *name;
    const char *doc;
    size_t nparam;
    const cosa_param *params;
    double tend;
    const char *(*sub_name)(const struct cosa_model *m, const double *par, size_t k);
    ...;
} cosa_model;
typedef struct {
    int fmi_version; int input_degree_max; int max_output_derivative_order; int directional;
    int fmu_state; double fixed_step; double default_step; int smoothness; ...;
} cosa_fmu_capability;
typedef struct { int is_nonlinear; int is_affine; ...; } cosa_linearity;
const cosa_fmu_capability *cosa_model_file_fmu_capability(const cosa_model *m, size_t i);
cosa_status cosa_model_file_fmu_linearity(const cosa_model *m, const double *par, size_t i,
                                          cosa_linearity *out);
const char *cosa_model_file_fmu(const cosa_model *m, size_t i);
int cosa_fmu_smoothness_degree(int k);
size_t cosa_model_count(void);
const cosa_model *cosa_model_at(size_t i);
int cosa_model_is_linear(const cosa_model *m);

typedef struct { double e_global; double e_local; double e_local_ref; ...; } cosa_errors;
typedef struct {
    size_t nr; double rho_iter; double relax_max; double relax_opt; double rho_iter_opt; ...;
} cosa_iter_info;
typedef struct {
    double rho; double rho_ref; cosa_errors err; size_t nsteps; cosa_iter_info iter; ...;
} cosa_point_result;
typedef struct {
    double dt_max; int never_lost; int good_at_min; int monotone; size_t ncross; size_t nevals;
    ...;
} cosa_limit;
typedef struct { double dt; double dt_lo; double dt_hi; int enters; ...; } cosa_crossing;
typedef struct {
    size_t nx, ny, nu; size_t nhist; int has_du; size_t off_x; size_t off_y; size_t off_du;
    size_t dim; ...;
} cosa_layout;
typedef struct {
    cosa_scheme scheme; cosa_status status; cosa_limit stable; cosa_limit accurate;
    cosa_crossing cross_stable[...]; cosa_crossing cross_accurate[...];
    int usable; double dt; size_t steps; double cost; cosa_limit converge;
    cosa_crossing cross_converge[...]; double rho_iter_opt; unsigned iterations; ...;
} cosa_advice;

typedef struct cosa_case cosa_case;
cosa_status cosa_case_builtin(const char *name, cosa_case **out, char *err, size_t errsize);
cosa_status cosa_case_load(const char *path, cosa_case **out, char *err, size_t errsize);
cosa_status cosa_case_set(cosa_case *c, const char *name, double value, char *err,
                          size_t errsize);
const cosa_model *cosa_case_model(const cosa_case *c);
const double *cosa_case_par(const cosa_case *c);
void cosa_case_free(cosa_case *c);
void cosa_case_set_cancel(cosa_case *c, const cosa_cancel *cancel);

cosa_status cosa_case_point(const cosa_case *c, const char *scheme, double dt, double tend,
                            cosa_point_result *out, char *note, size_t notesize, char *err,
                            size_t errsize);
cosa_status cosa_case_phi_dim(const cosa_case *c, const char *scheme, size_t *dim,
                              cosa_layout *lay, char *err, size_t errsize);
cosa_status cosa_case_phi(const cosa_case *c, const char *scheme, double dt, int exact,
                          double *phi, size_t ld, char *err, size_t errsize);
cosa_status cosa_case_limit(const cosa_case *c, const char *scheme, cosa_criterion crit,
                            double tol, double dt_min, double dt_max, unsigned per_decade,
                            double tend, cosa_limit *out, cosa_crossing *cross,
                            size_t cross_cap, char *err, size_t errsize);
typedef struct { const char *name; double lo, hi; int log; size_t n; ...; } cosa_case_axis;
cosa_status cosa_case_map(const cosa_case *c, const char *scheme, double dt, cosa_metric metric,
                          const cosa_case_axis *x, const cosa_case_axis *y, double tend,
                          int threads, double *values, cosa_status *status, size_t *nfailed,
                          char *err, size_t errsize);
cosa_status cosa_case_map_rows(const cosa_case *c, const char *scheme, double dt,
                               cosa_metric metric, const cosa_case_axis *x,
                               const cosa_case_axis *y, double tend, int threads, size_t ix0,
                               size_t ix1, double *values, cosa_status *status,
                               size_t *nfailed, char *err, size_t errsize);
cosa_status cosa_case_axis_values(const cosa_case_axis *a, double *v);
typedef struct {
    cosa_criterion crit; double tol; double tend; const char *schemes; double dt_min;
    double dt_max; unsigned per_decade; double cost_corr; double iter_tol;
    double cost_rollback; ...;
} cosa_case_advise_opts;
void cosa_case_advise_defaults(cosa_case_advise_opts *o);
int cosa_case_runnable(const cosa_case *c, const cosa_scheme *s, char *why, size_t size);
cosa_status cosa_case_advise(const cosa_case *c, const cosa_case_advise_opts *o,
                             cosa_advice *out, size_t cap, size_t *n,
                             cosa_case_advise_opts *used, char *err, size_t errsize);

typedef struct {
    int end; double t_end; size_t steps; size_t rejected; size_t attempts;
    double h_min, h_mean, h_max; double seconds; ...;
} cosa_run_stats;
typedef struct {
    size_t nx, nu, ny; size_t nsteps; size_t ndone; double *t; double *x; double *u;
    double *y; double *ybar; double *du; double *yref; int diverged; double t_diverged;
    double e_global; double defect_out; double defect_conn; ...;
} cosa_cosim_result;
typedef struct {
    int status; char reason[...]; double t_stop; cosa_run_stats run; double e_global;
    double seconds_total; cosa_cosim_result *fixed; ...;
} cosa_run_result;
typedef struct { cosa_case_ref ref; const char *integrator; ...; } cosa_case_sim_opts;
typedef struct {
    cosa_run_result *run; size_t ny; char **yname; char reference[...]; ...;
} cosa_case_sim;
cosa_status cosa_case_simulate(const cosa_case *c, const char *scheme, double dt, double tend,
                               const cosa_case_sim_opts *opts, cosa_case_sim **out, char *err,
                               size_t errsize);
void cosa_case_sim_free(cosa_case_sim *s);
"""


def main(argv):
    outdir, incdir, libdir = (os.path.abspath(p) for p in argv[1:4])
    rpath = argv[4]
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source(
        "cosa._cosa",
        "#include <cosa.h>\n",
        include_dirs=[incdir],
        library_dirs=[libdir],
        libraries=["cosa"],
        extra_compile_args=["-std=c11", "-Wno-unused-parameter"],
        extra_link_args=["-Wl,-rpath," + rpath] if rpath else [],
    )
    tmp = os.path.join(outdir, "build-cffi")
    os.makedirs(tmp, exist_ok=True)
    so = ffi.compile(tmpdir=tmp, verbose=False)
    dest = os.path.join(outdir, "cosa", os.path.basename(so))
    os.replace(so, dest)
    print(dest)


if __name__ == "__main__":
    main(sys.argv)
