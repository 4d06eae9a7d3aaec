/* master_impl.h -- private layout of the time-domain master (lib/td/master.c)
 * and its event handling (lib/td/master_event.c). */
#ifndef COSA_TD_MASTER_IMPL_H
#define COSA_TD_MASTER_IMPL_H

#include "td/unit_impl.h"
#include "core/dense.h"

#define NP_MAX (COSA_ORDER_MAX + 1)

struct exec_type;
struct cosa_input_builder_type;

struct cosa_master {
    cosa_unitset *set;
    size_t nunits;
    size_t nx, nu, ny;
    const double *L;           /* nu x ny (the set's)                         */
    cosa_scheme s;
    const struct exec_type *exec;
    size_t *seq;               /* execution order                              */
    int p;
    size_t np;                 /* p + 1                                        */
    int has_du;
    double H;
    cosa_master_opts opt;
    double t;
    double *hist, *hist_new;   /* ny x np: ybar_n, ..., ybar_{n-p}; proposal   */
    double *du, *du_new;       /* nu; proposal                                 */
    double *uoff;              /* nu: input offset (cosa_master_set_input_offset) */
    double *y, *y_new;         /* ny: raw outputs of the last step; proposal   */
    double lag[NP_MAX * NP_MAX], lag1[NP_MAX * NP_MAX], e[NP_MAX], w[NP_MAX];
    double kappa;
    double *P;                 /* ny x np: output polynomials in s (monomials) */
    double *a;                 /* nu x np: input polynomials in s              */
    double *der;               /* nu x np: derivatives for one unit            */
    double *Ep, *vu, *vy, *u0; /* ny, nu, ny, nu                               */
    /* output correction */
    cosa_system *jsys;         /* stacked Jacobians A_n, B_n, C_n, D_n and L   */
    int fixed_jac;             /* jsys holds the scheme's model: no linearising */
    cosa_disc_workspace *dw;   /* discretisation of the stacked Jacobians      */
    double *jA;                /* one unit's Jacobians (largest sizes)         */
    double *QW;                /* nx x nu: sum_m w_m Q_m                       */
    double *Gp, *G0, *IGL;     /* ny x nu, ny x nu, ny x ny                    */
    lapack_int *ipiv;
    double *buf;
    size_t failed;
    int proposed;              /* a proposal is waiting for commit             */
    cosa_unit_snapshot **snaps;/* nunits, allocated at the first saving propose */
    int saved;                 /* the snapshots belong to the current proposal */
    cosa_observer obs[COSA_MASTER_OBSERVERS];
    size_t nobs;
    /* the input builder (input_builder.h) and its step data */
    const struct cosa_input_builder_type *in;
    unsigned comb;             /* the run's features and the builder's bit
                                  (COSA_COMB_*): what the rules are asked    */
    double *gder;              /* GIVEN: nu x (DEGMAX+1), unit i's block at ou (DEGMAX+1) */
    cosa_status *gst;          /* GIVEN: nunits statuses of the parallel advance */
    int nout;                  /* TAYLOR: output derivative order n            */
    int q;                     /* input degree: p (HISTORY), min(p, n) (TAYLOR) */
    double *yder;              /* ny x (n+1): y^(0..n)(T_n), consistent (TAYLOR) */
    double *yend;              /* ny x (n+1): y^(0..n)(T_n + H) (TAYLOR)       */
    double *uder;              /* nu x (q+1): u^(0..q)(T_n) of the proposal     */
    double *ymid;              /* ny: outputs at T_n + H/2 (sample_mid)        */
    double *dtmp;              /* ny x (n+1): one unit's output derivatives    */
    cosa_unit_snapshot **msnaps; /* nunits: the mid-sample snapshots          */
    int mid_lost_now;          /* this proposal's mid sample was lost (sample_mid 2) */
    size_t mid_lost;           /* the first unit that lost one (nunits: none)  */
    char mid_why[160];         /* its message                                  */
    /* G_p, G_0 by central differences through snapshots (opt.step_gains) */
    unsigned char *sgain;      /* nunits: 1 = this unit's gains by steps       */
    size_t nsgain;             /* how many                                     */
    double *sGp, *sG0;         /* ny x nu: their blocks (zero elsewhere)       */
    double *gwork;             /* 2 ny + nu: cosa_unit_step_gains scratch      */
    double *gblk;              /* 2 x (largest ny_i x nu_i): one unit's gains  */
    cosa_unit_snapshot **gsnaps; /* nunits: their snapshots                   */
    /* held inputs (energy paper, opt.held; the rates are the unit set's) */
    size_t nvalid;             /* history samples that exist (capped start)     */
    int tail;                  /* the last, short step (end_clip.c): lag, e,
                                  lag1 are for its nodes                       */
    double H_prop;             /* H of the last proposal                       */
    double t_base;             /* the time is t_base + nsince H (no float sums)  */
    unsigned long long nsince; /* macro steps since t_base at this H           */
    int have_data;             /* the step data are those of the last proposal  */
    /* events (opt.events; lib/td/master_event.c) */
    double *hist_t;            /* np: the times of hist's samples              */
    double t_reached;          /* the proposal's end: T_n + H, or an event     */
    int ev_end;                /* Event Mode is pending at the proposal's end  */
    int at_event;              /* the last commit was an event point           */
    unsigned char *ev_pend;    /* nunits: pending at the proposal's end        */
    unsigned char *ev_done;    /* nunits: stepped in this proposal             */
    unsigned char *ev_snap;    /* nunits: has a snapshot of the step's start   */
    size_t *ev_seq;            /* nunits: units with events first              */
    double *ev_reach;          /* nunits: where each unit's step ended         */
};

/* Call every observer's initialized (which = 0) or step_complete (1). */
cosa_status master_notify(const cosa_master *m, int which);

/* The discrete signals copied at the communication point m->t (after the
 * outputs were read and the point's Event Modes ran, before the next step;
 * cosa_unitset_discrete_exchange); m->failed names a failing unit. */
cosa_status master_discrete(cosa_master *m);

/* Events (master_event.c): the workspace (at create, opt.events), a
 * proposal that ends at the first event (units with events stepped first,
 * units past the event rolled back and stepped again to it), and its
 * commit at time t (Event Mode of the pending units, outputs read again,
 * the history restarted). */
cosa_status master_event_alloc(cosa_master *m);
void master_event_free(cosa_master *m);
cosa_status master_event_propose(cosa_master *m);
cosa_status master_event_commit(cosa_master *m, double t);

/* from cosa/stepping.h: used only inside lib/ (not part of the installed API) */
/* GIVEN: the input polynomials of the next proposals, u^(0..q)(T_n) (nu x
 * (q+1), ld nu; copied), q <= COSA_UNIT_DEGMAX.  COSA_EUNSUPPORTED for the
 * other kinds. */
cosa_status cosa_master_set_inputs(cosa_master *m, int q, const double *uder);

#endif
