/* modelfile_cache.c -- identified models of black-box FMUs, kept per FMU
 * file and parameter set within one process (modelfile_cache.h).  A hash
 * table of entries keyed by the FMU file's identity (path, size,
 * modification time), its interface, the order and probe step found at the
 * defaults, and the bits of the subsystem's parameter values; the value is
 * the continuous model's A, B, C, D.  Under OpenMP one lock guards the
 * table and each entry has a lock its identifying thread holds, so that a
 * thread asking for a key being identified waits instead of identifying
 * it again: the count of identifications is the count of distinct keys. */
#include "modelfile_cache.h"
#include "modelfile_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum {
    ICACHE_BUCKETS = 4096, /* power of two                                  */
    ICACHE_MAX = 65536     /* entries kept; past it, identified unstored    */
};

struct icache_key {
    const char *path;
    long long size, mtime_s, mtime_ns;
    int iface;
    size_t order, nu, ny, npar;
    double h;
    const double *par;
};

struct icache_entry {
    struct icache_entry *next;
    uint64_t hash;
    struct icache_key key; /* path and par owned (below)             */
    char *path;
    double *par, *M;       /* npar values; A, B, C, D                */
    int state;             /* 0: being identified, 1: ready, -1: failed */
#ifdef _OPENMP
    omp_lock_t busy;       /* held by the identifying thread          */
#endif
};

struct mf_icache {
    struct icache_entry *bucket[ICACHE_BUCKETS];
    size_t n, done, reused;
    int off; /* COSA_IDENT_CACHE=off */
#ifdef _OPENMP
    omp_lock_t lock;
#endif
};

struct mf_icache *mf_icache_new(void)
{
    struct mf_icache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    const char *e = getenv("COSA_IDENT_CACHE");
    c->off = e && strcmp(e, "off") == 0;
#ifdef _OPENMP
    omp_init_lock(&c->lock);
#endif
    return c;
}

void mf_icache_free(struct mf_icache *c)
{
    if (!c)
        return;
    for (size_t b = 0; b < ICACHE_BUCKETS; b++)
        for (struct icache_entry *e = c->bucket[b], *next; e; e = next) {
            next = e->next;
#ifdef _OPENMP
            omp_destroy_lock(&e->busy);
#endif
            free(e->path);
            free(e->par);
            free(e->M);
            free(e);
        }
#ifdef _OPENMP
    omp_destroy_lock(&c->lock);
#endif
    free(c);
}

static void lock(struct mf_icache *c)
{
#ifdef _OPENMP
    omp_set_lock(&c->lock);
#else
    (void)c;
#endif
}

static void unlock(struct mf_icache *c)
{
#ifdef _OPENMP
    omp_unset_lock(&c->lock);
#else
    (void)c;
#endif
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static uint64_t key_hash(const struct icache_key *k)
{
    uint64_t h = fnv(14695981039346656037ULL, k->path, strlen(k->path));
    const long long ll[3] = {k->size, k->mtime_s, k->mtime_ns};
    const size_t sz[4] = {k->order, k->nu, k->ny, k->npar};
    h = fnv(h, ll, sizeof ll);
    h = fnv(h, sz, sizeof sz);
    h = fnv(h, &k->iface, sizeof k->iface);
    h = fnv(h, &k->h, sizeof k->h);
    return fnv(h, k->par, k->npar * sizeof *k->par);
}

/* The same key: every field, the doubles bit for bit. */
static int key_same(const struct icache_key *a, const struct icache_key *b)
{
    return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
           a->iface == b->iface && a->order == b->order && a->nu == b->nu && a->ny == b->ny &&
           a->npar == b->npar && memcmp(&a->h, &b->h, sizeof a->h) == 0 &&
           strcmp(a->path, b->path) == 0 &&
           (a->npar == 0 || memcmp(a->par, b->par, a->npar * sizeof *a->par) == 0);
}

/* The key of subsystem s at parameter values par (views into s and par). */
static struct icache_key key_of(const struct mf_sub *s, const double *par)
{
    struct icache_key k = {.path = s->fmu ? s->fmu : "", .iface = s->iface,
                           .order = s->n[DECL_X], .nu = s->n[DECL_U], .ny = s->n[DECL_Y],
                           .npar = s->nfpar, .h = s->idinfo.h, .par = par + s->fpar0};
    struct stat st;
    if (s->fmu && stat(s->fmu, &st) == 0) {
        k.size = (long long)st.st_size;
        k.mtime_s = (long long)st.st_mtim.tv_sec;
        k.mtime_ns = (long long)st.st_mtim.tv_nsec;
    }
    return k;
}

/* A new entry for key k (hash h), being identified (its lock held by the
 * caller under OpenMP), linked into c; NULL without memory or past
 * ICACHE_MAX.  Called with c locked. */
static struct icache_entry *entry_add(struct mf_icache *c, const struct icache_key *k, uint64_t h,
                                      size_t nM)
{
    if (c->n >= ICACHE_MAX)
        return NULL;
    struct icache_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->path = malloc(strlen(k->path) + 1);
    e->par = malloc((k->npar + 1) * sizeof *e->par);
    e->M = malloc((nM + 1) * sizeof *e->M);
    if (!e->path || !e->par || !e->M) {
        free(e->path);
        free(e->par);
        free(e->M);
        free(e);
        return NULL;
    }
    strcpy(e->path, k->path);
    if (k->npar)
        memcpy(e->par, k->par, k->npar * sizeof *e->par);
    e->key = *k;
    e->key.path = e->path;
    e->key.par = e->par;
    e->hash = h;
#ifdef _OPENMP
    omp_init_lock(&e->busy);
    omp_set_lock(&e->busy);
#endif
    struct icache_entry **b = &c->bucket[h & (ICACHE_BUCKETS - 1)];
    e->next = *b;
    *b = e;
    c->n++;
    return e;
}

/* Identify u as at the defaults (order and probe step of s) into the
 * continuous blocks M = A, B, C, D (nM values) followed by the fitted
 * initial state x0 (n values, zero where the fit does not explain the free
 * response: mf_ident_unit); the reason on u on failure. */
static cosa_status identify(const struct mf_sub *s, cosa_unit *u, double *M, size_t nM)
{
    cosa_ident id;
    double *X = NULL;
    char why[480];
    cosa_status st = mf_ident_unit(s->fh, &s->cap, u, (int)s->n[DECL_X], s->idinfo.h, &id, &X,
                                   why, sizeof why);
    if (st == COSA_OK)
        memcpy(M, X, (nM + s->n[DECL_X]) * sizeof *M); /* A, B, C, D, x0: X's layout */
    else
        cosa_unit_fail(u, "%s", why);
    cosa_ident_free(&id);
    free(X);
    return st;
}

/* Copy the blocks M (A, B, C, D) of s out. */
static void blocks_out(const struct mf_sub *s, const double *M, double *A, double *B, double *C,
                       double *D)
{
    const size_t n = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    memcpy(A, M, n * n * sizeof *A);
    memcpy(B, M + n * n, n * nu * sizeof *B);
    memcpy(C, M + n * n + n * nu, ny * n * sizeof *C);
    memcpy(D, M + n * n + n * nu + ny * n, ny * nu * sizeof *D);
}

/* An entry of c for k whose identification is over (waiting for it when
 * another thread runs it), or NULL; called with c locked, returns with c
 * locked. */
static struct icache_entry *lookup(struct mf_icache *c, const struct icache_key *k, uint64_t h)
{
    for (struct icache_entry *e = c->bucket[h & (ICACHE_BUCKETS - 1)]; e; e = e->next) {
        if (e->hash != h || !key_same(&e->key, k))
            continue;
#ifdef _OPENMP
        if (e->state == 0) { /* being identified: wait for its thread */
            unlock(c);
            omp_set_lock(&e->busy);
            omp_unset_lock(&e->busy);
            lock(c);
        }
#endif
        return e;
    }
    return NULL;
}

cosa_status mf_icache_identify(const mf_t *mf, const struct mf_sub *s, const double *par,
                               cosa_unit *u, double *A, double *B, double *C, double *D,
                               double *x0)
{
    const size_t n = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    /* the stored values: A, B, C, D and the x0 of the same identification
     * (the initial state at these parameter values, not at the defaults) */
    const size_t nM = n * n + n * nu + ny * n + ny * nu + n;
    struct mf_icache *c = mf->icache;
    double *M = malloc((nM + 1) * sizeof *M);
    if (!M)
        return COSA_ENOMEM;
    cosa_status st;
    if (!c || c->off) { /* no cache: identify, counted */
        st = identify(s, u, M, nM - n);
        if (c) {
            lock(c);
            c->done++;
            unlock(c);
        }
    } else {
        const struct icache_key k = key_of(s, par);
        const uint64_t h = key_hash(&k);
        lock(c);
        struct icache_entry *e = lookup(c, &k, h);
        if (e && e->state == 1) {
            memcpy(M, e->M, nM * sizeof *M);
            c->reused++;
            unlock(c);
            st = COSA_OK;
        } else {
            /* a new key (or one whose identification failed: tried again,
             * unstored) */
            struct icache_entry *mine = e ? NULL : entry_add(c, &k, h, nM);
            c->done++;
            unlock(c);
            st = identify(s, u, M, nM - n);
            if (mine) {
                lock(c);
                if (st == COSA_OK)
                    memcpy(mine->M, M, nM * sizeof *M);
                mine->state = st == COSA_OK ? 1 : -1;
                unlock(c);
#ifdef _OPENMP
                omp_unset_lock(&mine->busy);
#endif
            }
        }
    }
    if (st == COSA_OK)
        blocks_out(s, M, A, B, C, D);
    if (st == COSA_OK && x0)
        memcpy(x0, M + nM - n, n * sizeof *x0);
    free(M);
    return st;
}

void cosa_model_file_ident_cache_counts(const cosa_model *m, size_t *done, size_t *reused)
{
    const mf_t *mf = mf_of(m);
    *done = *reused = 0;
    if (!mf || !mf->icache)
        return;
    lock(mf->icache);
    *done = mf->icache->done;
    *reused = mf->icache->reused;
    unlock(mf->icache);
}
