/* cosa/internal/core.h -- the build tree's view of cosa/core.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/core.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_CORE_H
#define COSA_INTERNAL_CORE_H

#include "cosa/core.h"

/* Copy subsystem i's matrices (checks dimensions and finiteness) without
 * checking the algebraic loop; the system is invalid until validated. */
cosa_status cosa_system_store_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub);

/* Check (I - D L) after stores: COSA_OK or COSA_EALGLOOP.  Cheap when no
 * feedthrough block changed since the last check. */
cosa_status cosa_system_validate(cosa_system *sys);

/* 1 if the system is valid (stored matrices checked, I - D L solvable). */
int cosa_system_is_valid(const cosa_system *sys);

/* |[A B]|_inf, the largest row sum of |A| and |B|: dt times it is the norm of
 * the top block row of the Van Loan matrix a discretisation at step dt
 * exponentiates (doc/method.md), which must stay inside the double range. */
double cosa_system_norm_AB(const cosa_system *sys);

/* Symplectic Euler's split of the states (cosa_odesys_from_linear, the
 * energy paper's Phi route): state r of a subsystem is a position (kick[r] =
 * 0, drifted with the updated velocities) if its row of [A_i B_i] is a single
 * 1 in the column of another state, else kicked (1).  Returns the number of
 * positions (0: no split). */
size_t cosa_system_kick_flags(const cosa_system *sys, unsigned char *kick);

/* Lagrange basis on the p+1 nodes first, first-1, ..., first-p:
 * lag[j*(p+1)+m] = coefficient of s^m of l_j(s). */
void cosa_lagrange_table(int p, double first, double *lag);

/* Coefficient tables for order p (doc/method.md):
 * lag[j*(p+1)+m]: coefficient of s^m of the Lagrange basis l_j(s) for the
 *                 nodes s = 0, -1, ..., -p;
 * e[j]          : l_j(1) = (-1)^j binom(p+1, j+1);
 * w[m]          : coefficients of w_p(s) = s(s+1)...(s+p-1)/p!  (w_0 = 1);
 * returns kappa_p = int_0^1 w_{p+1}(s) ds.  Arrays: (p+1)^2, p+1, p+1. */
double cosa_order_tables(int p, double *lag, double *e, double *w);

/* v for a message, into buf (size bytes): integers in full (100000, not
 * 1e+05), else the fewest %g digits that read back as v; "nan", "inf",
 * "-inf". Returns buf. */
const char *cosa_number_text(char *buf, size_t size, double v);

/* " (with a = 1, b = 2.5)": the n parameter values set, for a message that
 * names them ("" for n = 0), into buf (size bytes, truncated). Returns buf. */
char *cosa_set_text(char *buf, size_t size, const char *const *name, const double *value,
                    size_t n);

/* The range of parameter k in model-file syntax ("> 0", "integer, >= 1,
 * <= n"; "" for any value) into buf; returns the length it needs, as
 * snprintf. */
int cosa_param_range_text(const cosa_model *m, size_t k, char *buf, size_t size);

/* ---- Combination rules (lib/core/combination.c) ----------------------------
 * Which coupling schemes a run's features combine with, in one table: cosa
 * simulate, the Phi commands' runnable check (advise, the notes), point/map
 * --energy, the fixed-step run, the master (its input builders included:
 * each names its rows by its COSA_COMB_INPUT_* bit, lib/td/input_builder.h)
 * and the iteration ask it, and report its phrase. */

/* A run's features that constrain its coupling scheme (bits). */
enum {
    COSA_COMB_MULTIRATE = 1u,      /* a unit takes K > 1 steps a macro step (--rate) */
    COSA_COMB_HELD = 2u,           /* inputs held over a unit's step (--input held) */
    COSA_COMB_INITIAL = 4u,        /* the run starts from x0 (--start initial)       */
    COSA_COMB_ENERGY_CORRECT = 8u, /* the energy correction (--mu)                  */
    COSA_COMB_ENERGY = 16u,        /* energy indicators (--energy)                  */
    COSA_COMB_EVENTS = 32u,        /* event points as communication points          */
    COSA_COMB_ENERGY_PHI = 64u,    /* the energy paper's Phi (point, map --energy)  */
    /* the master's and the iteration's (library rules, lib/td/master.c,
     * lib/td/iterate.c; the command offers none of them directly) */
    COSA_COMB_SAMPLE_MID = 128u,   /* the mid sample of every step (defects)        */
    COSA_COMB_STEP_GAINS = 256u,   /* gains by steps (cosa_master_opts.step_gains)  */
    COSA_COMB_COUPLING_VARS = 512u,/* a unit set with coupling variables            */
    /* the master's input builder (one of them; lib/td/input_builder.h) and
     * what the master is asked between steps */
    COSA_COMB_INPUT_HISTORY = 1024u, /* extrapolation through the history (held
                                        inputs too: with COSA_COMB_HELD)       */
    COSA_COMB_INPUT_TAYLOR = 2048u,  /* Taylor polynomials of output derivatives */
    COSA_COMB_INPUT_GIVEN = 4096u,   /* the caller's polynomials                 */
    COSA_COMB_STEP_CHANGE = 8192u,   /* a new macro step between steps
                                        (cosa_master_set_step)                  */
    /* the end clip (lib/td/end_clip.c) */
    COSA_COMB_SHORT_LAST = 16384u,   /* a short last step to the horizon         */
    COSA_COMB_ITER_OPTS = 32768u     /* the caller's iteration options
                                        (cosa_cosim_opts.iter)                   */
};

/* The rules (the entries of the table). */
typedef enum cosa_comb_rule {
    COSA_RULE_NONE = 0,
    COSA_RULE_EVENTS,            /* event points: plain explicit Jacobi, one step per
                                    unit, polynomial inputs, no energy             */
    COSA_RULE_ITERATES,          /* iterative schemes: given inputs from the
                                    reference start                                */
    COSA_RULE_UNIT_STEPS,        /* the command's multi-rate, held inputs, start from
                                    x0: plain Jacobi, no --assume                  */
    COSA_RULE_ENERGY_CORRECTION, /* the energy correction: plain Jacobi             */
    COSA_RULE_ENERGY_PHI,        /* the energy paper's Phi: plain explicit Jacobi   */
    COSA_RULE_INPUTS,            /* the master's input builders: what each composes
                                    with                                           */
    COSA_RULE_SHORT_LAST         /* a short last step: schemes and features that
                                    assume equal macro steps                       */
} cosa_comb_rule;

typedef struct cosa_combination_refusal {
    cosa_comb_rule rule; /* the first rule broken (COSA_RULE_NONE: none)          */
    unsigned feature;    /* the feature it names (one COSA_COMB_* bit)            */
    const char *needs;   /* what it needs (or, COSA_RULE_SHORT_LAST, why not),
                            one phrase (static; NULL: none)                      */
} cosa_combination_refusal;

/* COSA_OK when scheme s combines with the features (COSA_COMB_* bits), else
 * COSA_EUNSUPPORTED with *why (may be NULL) the first rule of the table that
 * the combination breaks.  command 1 also applies the command line's rules
 * (COSA_RULE_UNIT_STEPS: it offers those features with plain Jacobi schemes
 * only; the library runs more).  COSA_EINVAL for s NULL. */
cosa_status cosa_combination_check(const cosa_scheme *s, unsigned features, int command,
                                   cosa_combination_refusal *why);

/* ---- The coupling descriptor: its iteration (lib/core/iteration.c) --------
 * A coupling scheme in the time domain is an input builder (the master's,
 * lib/td/input_builder.h) and an iteration, one of these entries: "does it
 * iterate", its convergence test and its default limits are the entry's,
 * which the fixed-step run, the command, the master, the sweeps
 * (lib/td/iterate.c), the variable-order corrector (lib/td/vo_run.c) and the
 * combination rules read. */
typedef struct cosa_iteration_type {
    const char *name; /* "none", "one-sweep", "fixed-point", "newton"         */
    int iterates;     /* 1: the macro step is integrated more than once from
                         T_n with given input polynomials (units with
                         rollback), not as the master's one proposal         */
    int repeats;      /* 1: the iterates repeat until converged (or the
                         limit), 0: one sweep                                */
    /* The convergence test of an iterate's update dx of x (n values; NULL
     * for none; one-sweep's only measures its sweep): *change the update's
     * size as the entry measures it, *size that of x, 1 when converged at
     * tol, 0 when not (or not finite: the caller checks *change). */
    int (*converged)(size_t n, const double *dx, const double *x, double tol, double *change,
                     double *size);
    double tol;       /* the default tolerance of the test (0: none)         */
    unsigned max;     /* the default limit of iterates per macro step        */
} cosa_iteration_type;

extern const cosa_iteration_type cosa_iteration_none;
extern const cosa_iteration_type cosa_iteration_one_sweep;
extern const cosa_iteration_type cosa_iteration_fixed_point;
extern const cosa_iteration_type cosa_iteration_newton;

/* The entries, NULL-terminated (none, one-sweep, fixed-point, newton). */
extern const cosa_iteration_type *const cosa_iteration_types[];

/* The iteration entry of scheme s (s NULL: none): the fixed-step
 * couplings; the variable-order engine's: cosa_iteration_of_vo
 * (lib/td/vo.h). */
const cosa_iteration_type *cosa_iteration_of(const cosa_scheme *s);

#endif /* COSA_INTERNAL_CORE_H */
