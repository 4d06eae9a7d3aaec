/* modelfile_impl.h -- internals of the model-file reader and writer, shared
 * by models/modelfile*.c (private to models/).
 *
 * A model file holds N linear subsystems whose matrix entries are
 * expressions of named parameters, and the connections that define the
 * coupling matrix L (u = L y, eq 4).  The format is documented in README
 * ("Model files"); in short:
 *
 *   model NAME                       # doc
 *   tend 0.3
 *   param   NAME = VALUE [unit]      # doc        (COSA_PARAM_MODEL)
 *   initial NAME = VALUE [unit]      # doc        (COSA_PARAM_INITIAL)
 *   let     NAME = EXPR                           (derived quantity)
 *   subsystem NAME
 *     states  n1 n2 ...   inputs ...   outputs ...
 *     A = [ e, e ; e, e ]  |  A = zeros  |  A = eye      (also B, C, D, x0)
 *     A[i,j] = EXPR        (1-based, after A = zeros|eye)
 *   end
 *   connect SUB.OUTPUT -> SUB.INPUT [* FACTOR] [, SUB.INPUT [* FACTOR] ...]
 *   connect clock FMU.OUTCLOCK -> FMU.INCLOCK [, FMU.INCLOCK ...]
 *
 * Reading: modelfile.c (entry points, the description's lifetime) drives
 * modelfile_parse.c (lexer and statements) and modelfile_resolve.c (names,
 * connections, checks); the result is an mf_t whose embedded cosa_model
 * (modelfile_model.c) evaluates the expressions, compiled once (expr.c), per
 * create/update.  modelfile_write.c writes any model back as such a file
 * (cosa_model_dump) and verifies the round trip bit for bit. */
#ifndef COSA_MODELS_MODELFILE_IMPL_H
#define COSA_MODELS_MODELFILE_IMPL_H

#include "cosa.h"
#include "expr.h"

#include <ctype.h>
#include <stddef.h>

/* Blocks of a subsystem, in file order. */
enum blk { BA, BB, BC, BD, BX0, NBLK };
extern const char *const mf_blk_name[NBLK]; /* "A", "B", "C", "D", "x0" */
/* Name lists of a subsystem. */
enum { DECL_X, DECL_U, DECL_Y };

struct mf_block {
    int given;          /* 0 missing, 1 full matrix, 2 zeros/eye base   */
    size_t line;
    mf_expr *e;       /* rows x cols, column-major                     */
    unsigned char *set; /* base form: entries assigned by A[i,j] = ...  */
};

struct mf_sub {
    char *name;
    size_t line;
    size_t n[3];        /* nx, nu, ny                                    */
    char **names[3];
    size_t decl_line[3];/* 0 = not declared                              */
    struct mf_block b[NBLK];
    size_t ox, ou, oy;
    char *fmu;          /* `fmu NAME = PATH`: the FMU (path as opened), else NULL */
    int iface;          /* `fmu NAME cs|me = PATH`: COSA_FMU_IFACE_*          */
    /* an FMU subsystem: the FMU, kept open to linearise it again at other
     * parameter values; its parameters are the model's params [fpar0,
     * fpar0 + nfpar) ("NAME.VAR", the FMU's Float64/Real parameters, then
     * the nx state start values), the blocks hold the linearisation at their
     * defaults */
    cosa_fmu *fh;
    size_t fpar0, nfpar;
    char **fvar;        /* nfpar - nx: the FMU parameters' own names          */
    double *fown;       /* nfpar - nx: their start values in the FMU          */
    int ffd;            /* linearise by central differences                  */
    cosa_fmu_capability cap; /* what the FMU can do (cosa_fmu_capability_get)  */
    char **tname, **tval; /* OSP InitialValues of Integer/Boolean/String
                             variables: set on the FMU units as text
                             (cosa_unit_fmu_set_start_text)                   */
    size_t ntext;
    size_t fnx;         /* the FMU's declared states (the last fnx of its
                           parameters); n[DECL_X] unless identified            */
    int identified;     /* the blocks are the identified model (idinfo)       */
    char *ident_error;  /* default identification failed: the line to report */
    cosa_model_file_ident idinfo;
};

struct mf_conn {
    char *src, *out, *dst, *in;
    size_t line;
    double gain;        /* `-> T.IN * FACTOR`, else 1: L's entry (u = L y) */
    int sum;            /* one of the sources an OSP Sum function adds up:
                           several may feed one input (their L entries add) */
    double offset;      /* `... offset OFFSET` or an SSP LinearTransformation's
                           offset, else 0: c's entry (u = L y + c) */
};

/* An input held at a constant for the whole run (modelfile_hold.c): a row
 * of the coupling with no L entry and c = value (u = L y + c).  A model
 * file's `hold SUB.IN = VALUE`; an SSP's FMU input that no connection feeds
 * (the FMU's start value: FMI's rule for an unconnected input) or whose
 * value is bound (a parameter binding of the input, or of the system's
 * input connector that feeds it). */
enum mf_hold_how { MF_HOLD_FILE, MF_HOLD_START, MF_HOLD_BOUND };
struct mf_hold {
    char *dst, *in;
    size_t line;
    double value;
    int how;            /* enum mf_hold_how: said in the note's list */
};

/* `connect clock S.OUT -> T.IN [, U.IN ...]` (modelfile_clock.c): an output
 * clock of FMU subsystem S drives a triggered input clock of FMU subsystem
 * T; resolved into the subsystems' indices and the clocks' indices in the
 * FMUs' clock lists (cosa_fmu_clock_at). */
struct mf_clock_link {
    char *src, *out, *dst, *in;
    size_t line;
    size_t from, to, kout, kin; /* after mf_resolve_clocks */
};

/* A discrete connection (SSP, OSP; modelfile_discrete.c): an Integer,
 * Boolean or Enumeration output out of FMU subsystem from feeds the input
 * in (the FMUs' own variable names) of FMU subsystem to; checked by the
 * importer, no part of L or Phi. */
struct mf_dconn {
    size_t from;
    char *out;
    size_t to;
    char *in;
    size_t line;
    double gain, offset; /* a Float64 one: in = gain * out + offset (1, 0 else) */
};

struct mf_sym {
    char *name;
    size_t line; /* first use */
};

struct mf_let {
    char *name;
    mf_expr e;
    size_t line;
};

/* `bond SUB.F[, SUB.F...] -> SUB.V[, SUB.V...]`: force outputs acting on a
 * body whose velocity outputs pair with them (energy paper); dim
 * components, names "SUB.OUT". */
struct mf_bond {
    char **force, **vel;
    size_t dim, line;
};

typedef struct mf {
    cosa_model model; /* model.data == this */
    char *name, *doc;
    cosa_param *params;
    size_t nparam, capparam;
    size_t *param_line;
    struct mf_let *lets;
    size_t nlet, caplet;
    struct mf_sub *subs;
    size_t nsub, capsub;
    struct mf_conn *conns;
    size_t nconn, capconn;
    struct mf_clock_link *clks;
    size_t nclk;
    struct mf_hold *holds; /* inputs held constant (modelfile_hold.c) */
    size_t nhold;
    char *held_note;   /* "I.Fk = 3 (bound), ..." after resolution, or NULL */
    struct mf_dconn *dconns; /* discrete connections (modelfile_discrete.c) */
    size_t ndconn;
    struct mf_sym *syms;
    size_t nsym, capsym;
    mf_expr_pool *pool;
    size_t nx, nu, ny;
    double *L;         /* nu x ny, column-major */
    double *c;         /* nu: the coupling's affine term (u = L y + c) */
    char **uq;         /* qualified input names "SUB.IN" (nu)  */
    const char **xg;   /* state names (nx), views              */
    const char **yg;   /* output names (ny), views             */
    size_t blkmax;     /* largest A+B+C+D entry count of one subsystem */
    double tend;
    /* energy paper: `energy = [...]` (nx x nx, row-major as written: E =
     * x' sym(W) x over the stacked states) and the bonds, resolved into the
     * power port's indices (force, velocity, the correction inputs) */
    mf_expr *W;
    size_t W_r, W_c, W_line;
    struct mf_bond *bonds;
    size_t nbond, capbond;
    size_t *port_idx;  /* nbond*dim + 2*dim */
    size_t port_dim;
    char *tmpdir;      /* an SSP archive's unpacked directory (removed by mf_free) */
    struct mf_osp *osp; /* an OSP system structure's algorithm, ECCO
                           configuration and power bonds (osp_system.c), or NULL */
    struct mf_icache *icache; /* identified models per FMU and parameter set
                                 (modelfile_cache.c), or NULL without black boxes */
} mf_t;

/* Parser state, also used by resolution for its error messages. */
struct mf_parser {
    mf_t *mf;
    const char *s; /* NUL-terminated copy of the text */
    size_t pos, line;
    const char *fname;
    char *err;
    size_t errsize;
    cosa_status st;
    struct mf_sub *cur; /* open subsystem or NULL */
    size_t model_line, tend_line;
    size_t last_line;   /* line of the last statement (for end-of-file errors) */
    unsigned flags;     /* COSA_MODEL_FILE_* of cosa_model_file_load_flags */
    double probe;       /* identification's probe step for FMUs without a fixed
                           internal step (0: mf_ident_step's default)         */
    int fmu_iface;      /* the interface of the fmu statement being read
                           (COSA_FMU_IFACE_*: 'fmu NAME me = PATH')       */
};

/* modelfile.c: strings, block shapes and the description's lifetime */
char *mf_dupn(const char *s, size_t n);
char *mf_dup0(const char *s);
/* Rows and columns of block k of s. */
void mf_block_dims(const struct mf_sub *s, int k, size_t *r, size_t *c);
/* Zeroed r x c entries of b (and, for a zeros/eye base, their "assigned"
 * flags); COSA_ENOMEM. */
cosa_status mf_alloc_block(struct mf_block *b, size_t r, size_t c, int base);
void mf_free(mf_t *mf); /* NULL is ignored */
/* An empty model (its expression pool, tend 1), or NULL: out of memory. */
mf_t *mf_new(void);

/* After the statements (or an SSP's translation): resolve, name, and hand
 * out the model (*out), or free mf and return the first error's status. */
cosa_status mf_finish(struct mf_parser *p, cosa_model **out);

/* Characters of names (parameters, subsystems, states, ...). */
static inline int mf_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static inline int mf_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* modelfile_parse.c */
/* Record the first error as "FNAME:LINE: message" (later ones are dropped). */
void mf_perr(struct mf_parser *p, cosa_status st, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void mf_nomem(struct mf_parser *p);
/* Read one statement (or blank/comment line) at p->pos. */
void mf_statement(struct mf_parser *p);
/* modelfile_fmu.c: the subsystem NAME (declared at line) from the FMU at
 * path, appended to the model (errors through mf_perr). */
void mf_st_fmu(struct mf_parser *p, const char *name, size_t line, const char *path);
/* A variable name as a model-file identifier (characters other than
 * letters, digits and '_' become '_', '_' before a leading digit); malloc'd,
 * NULL when out of memory. */
char *mf_ident_of(const char *name);
/* The same with the FMU at full (as opened), shown as path in messages. */
void mf_fmu_add(struct mf_parser *p, const char *name, size_t line, const char *full,
                const char *path);
/* After the defaults of FMU subsystem s's parameters changed (SSP parameter
 * bindings): its blocks and x0 the linearisation there (errors through
 * mf_perr). */
cosa_status mf_fmu_rebind(struct mf_parser *p, struct mf_sub *s);
/* mf_fmu_rebind for every FMU subsystem whose parameters (or declared
 * initial states) moved from the FMU's own start values (the SSP and OSP
 * parameter bindings); stops at the first error (p->st). */
void mf_fmu_rebind_moved(struct mf_parser *p);
/* The model parameter behind Real variable var of FMU subsystem sub (a
 * Float64 parameter with a start value, or a declared state's start value),
 * or -1. */
long mf_fmu_param(const struct mf_sub *sub, const char *var);

/* 1 if the FMU subsystem's parameters in par differ from their defaults (its
 * stored blocks are then not its linearisation there). */
int mf_fmu_moved(const mf_t *mf, const struct mf_sub *s, const double *par);
/* A, B, C, D (ld = rows) of the FMU subsystem s at the parameter values par:
 * a fresh instance with those start values, linearised; and, when x0 is
 * not NULL, its initial state there (an identified FMU: the x0 fitted by
 * the same identification, cached with it; else the states' start values). */
cosa_status mf_fmu_linearize(const mf_t *mf, const struct mf_sub *s, const double *par,
                             double *A, double *B, double *C, double *D, double *x0);
/* How far the FMU of subsystem s at parameter values par is from its
 * linearisation there (cosa_unit_linearity at its start point). */
cosa_status mf_fmu_linearity(const mf_t *mf, const struct mf_sub *s, const double *par,
                             cosa_linearity *out);

/* modelfile_ident.c: identified FMU subsystems (doc/black-box.md).  The
 * probe step: the FMU's fixedInternalStepSize, else its DefaultExperiment
 * stepSize, else MF_IDENT_STEP [s]. */
#define MF_IDENT_STEP 1e-3
double mf_ident_step(const cosa_fmu_capability *cap);
/* Identify the unit u of fmu at its operating point (order < 0: from the
 * Hankel singular values, else this order) at the probe step h (0: the
 * fixed internal step, else mf_ident_step; a given h is overridden by a
 * fixed internal step, the only step such an FMU takes): *id (free with
 * cosa_ident_free) and *M, one malloc'ed block A (n x n), B (n x nu),
 * C (ny x n), D (ny x nu), x0 (n) of the continuous model; on failure one
 * clause in why. */
cosa_status mf_ident_unit(const cosa_fmu *fmu, const cosa_fmu_capability *cap, cosa_unit *u,
                          int order, double h, cosa_ident *id, double **M, char *why,
                          size_t size);
/* Mark s identified with id's figures. */
void mf_ident_info(struct mf_sub *s, const cosa_ident *id);
/* Subsystem s (an FMU identified, or whose identification failed, when it
 * was added) identified again at the model's parameter defaults and text
 * start values as they stand now (after an OSP simulator's InitialValues):
 * its blocks, sizes and idinfo replaced; a failure becomes its
 * ident_error (reported at once under --linearization identify). */
void mf_ident_refresh(struct mf_parser *p, struct mf_sub *s);
/* The blocks and port names of s from a model (A, B, C, D, x0) of nid
 * states when identified, else of the FMU's declared states (modelfile_fmu.c). */
cosa_status mf_fmu_fill(struct mf_sub *s, const cosa_fmu *fmu, int identified, size_t nid,
                        const double *A, const double *B, const double *C, const double *D,
                        const double *x0);
/* A unit of s's FMU at parameter values par (modelfile_fmu.c). */
cosa_status mf_fmu_unit_at(const mf_t *mf, const struct mf_sub *s, const double *par,
                           cosa_unit **out);

/* modelfile_clock.c: a clock connection's ports, as written (line: the
 * statement's), appended to mf->clks (src, out, dst, in are taken over;
 * freed on failure); COSA_OK or COSA_ENOMEM.  mf_resolve_clocks checks them
 * against the FMU subsystems (errors through mf_perr); mf_clocks_free
 * releases the list. */
cosa_status mf_clock_link_add(mf_t *mf, char *src, char *out, char *dst, char *in,
                              size_t line);
void mf_resolve_clocks(struct mf_parser *p);
void mf_clocks_free(mf_t *mf);

/* modelfile_hold.c: held inputs.  mf_hold_add appends one (dst and in are
 * taken over, freed on failure; COSA_OK or COSA_ENOMEM); mf_hold_find the
 * index of the hold of dst.in, or -1; mf_resolve_holds writes their c
 * entries (src_line: the line of each input's source so far, nu entries;
 * a held input must have none) and the note's list; mf_holds_free
 * releases them. */
cosa_status mf_hold_add(mf_t *mf, char *dst, char *in, size_t line, double value, int how);
long mf_hold_find(const mf_t *mf, const char *dst, const char *in);
void mf_resolve_holds(struct mf_parser *p, size_t *src_line);
void mf_holds_free(mf_t *mf);
/* modelfile_discrete.c: a discrete connection appended (names copied);
 * COSA_OK or COSA_ENOMEM.  mf_discrete_free releases the list. */
cosa_status mf_discrete_add(mf_t *mf, size_t from, const char *out, size_t to, const char *in,
                            size_t line);
void mf_discrete_free(mf_t *mf);
/* A Float64 discrete connection (an output of variability discrete or
 * constant): the same with in = gain * out + offset. */
cosa_status mf_discrete_add_real(mf_t *mf, size_t from, const char *out, size_t to,
                                 const char *in, size_t line, double gain, double offset);
/* 1 if a discrete connection feeds input in (an identifier of
 * subs[to].names[DECL_U]) of subsystem to. */
int mf_discrete_feeds(const mf_t *mf, size_t to, const char *in);

/* modelfile_energy.c: the bonds and the energy matrix against the resolved
 * names and connections (errors through mf_perr); the model's energy
 * callbacks when both are given. */
void mf_resolve_energy(struct mf_parser *p);
void mf_energy_init(mf_t *mf);
void mf_bonds_free(mf_t *mf);

/* osp_system.c: OspSystemStructure.xml (README/doc/osp.md) read into an
 * mf_t as the SSP importer does; mf_osp_free releases mf->osp. */
cosa_status mf_osp_load(const char *path, unsigned flags, double probe, cosa_model **out, char *err,
                        size_t errsize);
void mf_osp_free(struct mf_osp *o);

/* modelfile_resolve.c */
/* After the whole text: names in expressions, offsets, L from the
 * connections, and finiteness at the default parameter values. */
void mf_resolve(struct mf_parser *p);
/* Index of x among names[0..n), or -1. */
long mf_find_name(char *const *names, size_t n, const char *x);

/* modelfile_model.c */
/* Fill mf->model: the cosa_model callbacks of a file model. */
void mf_model_init(mf_t *mf);
/* The description of a file model, or NULL if m is not one. */
const mf_t *mf_of(const cosa_model *m);
/* Parameter values followed by the let values (vals: nparam + nlet). */
void mf_eval_vals(const mf_t *mf, const double *par, double *vals);
/* 1 if the m x n block of a (leading dimension lda) equals b (m x n,
 * contiguous) bit for bit. */
int mf_same_bits(const double *a, size_t lda, const double *b, size_t m, size_t n);

#endif
