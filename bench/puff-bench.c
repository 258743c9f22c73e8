// SPDX-License-Identifier: Apache-2.0
//
// puff-bench: a Secret Service benchmark client. It speaks only the public
// org.freedesktop.Secret API (plus org.freedesktop.DBus.Peer.Ping and the bus daemon's
// GetConnectionUnixProcessID / NameHasOwner), so any provider that owns org.freedesktop.secrets
// can be put through it: puffd, gnome-keyring-daemon, oo7-daemon, KeePassXC...
//
// One run drives one or more providers, each on its own bus (NAME=ADDRESS arguments). It fills
// each provider's default collection from 0 to --max items and, at N = 1,000 / 10,000 / 100,000
// (and at --max, and at a provider's --cap), measures the read workloads. With several providers
// every phase alternates between them, so they see the same background load. A provider whose
// fill is capped (gnome-keyring, which rewrites its whole keyring file on every change) gets the
// larger N extrapolated from its measured growth; such numbers are marked "extrapolated".
//
// Output: Markdown tables on stdout, a long-format TSV (--tsv) for bench/plot.gp. With --smoke:
// N = 200, the same code path, and a final "N passed, M failed" line; the exit status is non-zero
// when a check failed. Secrets are generated, compared in memory and never printed.
//
// Helper mode: puff-bench --wait-name ADDRESS [--since-us T] [--pid P] [--timeout-s S] waits
// (NameOwnerChanged, no fixed sleep) until the bus name is owned and prints the milliseconds since
// T (a CLOCK_REALTIME timestamp in microseconds, e.g. bash's $EPOCHREALTIME without the dot).

#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define SERVICE_PATH "/org/freedesktop/secrets"
#define DEFAULT_ALIAS "/org/freedesktop/secrets/aliases/default"
#define IFACE_SERVICE "org.freedesktop.Secret.Service"
#define IFACE_COLLECTION "org.freedesktop.Secret.Collection"
#define IFACE_ITEM "org.freedesktop.Secret.Item"
#define GROUP_SIZE 100
#define MAX_PROVIDERS 4
#define MAX_POINTS 16
#define MAX_SEGMENTS 128
#define CALL_TIMEOUT_MS 300000

// ---------------------------------------------------------------------------------------------
// Small utilities

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "puff-bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

typedef struct {
    double *v;
    size_t n, cap;
} Samples;

static void samples_add(Samples *s, double x) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = xrealloc(s->v, s->cap * sizeof(double));
    }
    s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// Nearest-rank percentiles and the mean of v[from, to).
typedef struct {
    double p50, p99, mean;
    size_t n;
} Stats;

static Stats stats_of(const double *v, size_t from, size_t to) {
    Stats st = {NAN, NAN, NAN, 0};
    if (to <= from) return st;
    size_t n = to - from;
    double *c = xmalloc(n * sizeof(double));
    memcpy(c, v + from, n * sizeof(double));
    qsort(c, n, sizeof(double), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += c[i];
    size_t r50 = (size_t)ceil(0.50 * (double)n), r99 = (size_t)ceil(0.99 * (double)n);
    st.p50 = c[(r50 ? r50 : 1) - 1];
    st.p99 = c[(r99 ? r99 : 1) - 1];
    st.mean = sum / (double)n;
    st.n = n;
    free(c);
    return st;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void) {  // xorshift64*
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}
static long rng_below(long n) { return n > 0 ? (long)(rng_next() % (uint64_t)n) : 0; }

static char run_id[17];

// The secret of item k: deterministic, distinct per item and per run. Never printed.
static size_t make_secret(long k, unsigned char *out) {
    uint64_t h = 1469598103934665603ull;
    for (const char *c = run_id; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ (uint64_t)k) * 1099511628211ull;
    h ^= h >> 29;
    int n = snprintf((char *)out, 64, "pw-%ld-%016" PRIx64, k, (uint64_t)(h * 0xbf58476d1ce4e5b9ull));
    return (size_t)n;
}

static char *fmt_int(long v) {  // 100000 -> "100,000" (rotating static buffers)
    static char bufs[8][32];
    static int which;
    char *b = bufs[which++ % 8];
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%ld", v < 0 ? -v : v);
    size_t len = strlen(tmp), o = 0;
    if (v < 0) b[o++] = '-';
    for (size_t i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) b[o++] = ',';
        b[o++] = tmp[i];
    }
    b[o] = 0;
    return b;
}

// ---------------------------------------------------------------------------------------------
// /proc snapshots of the provider process

typedef struct {
    long long ticks;          // utime + stime from /proc/<pid>/stat (clock ticks, all threads)
    long long sched_ns;       // sum of /proc/<pid>/task/*/schedstat run time (ns), -1 if unknown
    uint64_t task_sig;        // signature of the thread set, to know whether sched_ns is comparable
    long long wchar, write_bytes;
    long rss_kib, maps;
    long long file_bytes;     // size of the watched file, -1 if none
} ProcSnap;

static long clk_tck = 100;

static long long read_stat_ticks(pid_t pid) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    // After ")": state(3) ppid(4) ... utime(14) stime(15).
    long long ut = 0, st = 0;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
        field++;
        if (field == 14) ut = atoll(tok);
        if (field == 15) {
            st = atoll(tok);
            break;
        }
    }
    return ut + st;
}

static void read_sched(pid_t pid, long long *ns, uint64_t *sig) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    *ns = -1;
    *sig = 0;
    if (!d) return;
    long long total = 0;
    uint64_t s = 1469598103934665603ull;
    struct dirent *e;
    int ok = 1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p2[320];
        snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        FILE *f = fopen(p2, "r");
        if (!f) {
            ok = 0;
            continue;
        }
        long long run = 0;
        if (fscanf(f, "%lld", &run) != 1) ok = 0;
        fclose(f);
        total += run;
        s ^= (uint64_t)atoll(e->d_name) * 0x9e3779b97f4a7c15ull;  // order-independent
    }
    closedir(d);
    if (ok) {
        *ns = total;
        *sig = s;
    }
}

static long read_status_kib(pid_t pid, const char *key) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = atol(line + kl + 1);
            break;
        }
    fclose(f);
    return v;
}

static long count_lines(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long n = 0;
    char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < r; i++) n += buf[i] == '\n';
    fclose(f);
    return n;
}

static void read_io(pid_t pid, long long *wchar, long long *wb) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    *wchar = *wb = -1;
    FILE *f = fopen(path, "r");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "wchar:", 6)) *wchar = atoll(line + 6);
        if (!strncmp(line, "write_bytes:", 12)) *wb = atoll(line + 12);
    }
    fclose(f);
}

static ProcSnap snap_cpu_io(pid_t pid, const char *watch_file) {
    ProcSnap s;
    memset(&s, 0, sizeof s);
    s.ticks = read_stat_ticks(pid);
    read_sched(pid, &s.sched_ns, &s.task_sig);
    read_io(pid, &s.wchar, &s.write_bytes);
    s.rss_kib = -1;
    s.maps = -1;
    s.file_bytes = -1;
    if (watch_file) {
        struct stat st;
        if (stat(watch_file, &st) == 0) s.file_bytes = (long long)st.st_size;
    }
    return s;
}

static ProcSnap snap_full(pid_t pid, const char *watch_file) {
    ProcSnap s = snap_cpu_io(pid, watch_file);
    char path[64];
    s.rss_kib = read_status_kib(pid, "VmRSS");
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    s.maps = count_lines(path);
    return s;
}

// Resource use of one phase, per operation.
typedef struct {
    double cpu_us;        // from /proc/<pid>/stat (10 ms resolution; phases are long enough)
    double cpu_sched_us;  // from task schedstat (ns resolution); NAN when threads came or went
    double wchar, write_bytes;
    double file_growth;   // growth of the watched storage file (its size after minus before)
} PerOp;

#define PEROP_NAN ((PerOp){NAN, NAN, NAN, NAN, NAN})

static PerOp per_op(ProcSnap a, ProcSnap b, long ops) {
    PerOp r = PEROP_NAN;
    if (ops <= 0) return r;
    if (a.ticks >= 0 && b.ticks >= 0) r.cpu_us = (double)(b.ticks - a.ticks) * 1e6 / (double)clk_tck / (double)ops;
    if (a.sched_ns >= 0 && b.sched_ns >= 0 && a.task_sig == b.task_sig)
        r.cpu_sched_us = (double)(b.sched_ns - a.sched_ns) / 1e3 / (double)ops;
    if (a.wchar >= 0 && b.wchar >= 0) r.wchar = (double)(b.wchar - a.wchar) / (double)ops;
    if (a.write_bytes >= 0 && b.write_bytes >= 0) r.write_bytes = (double)(b.write_bytes - a.write_bytes) / (double)ops;
    if (a.file_bytes >= 0 && b.file_bytes >= 0) r.file_growth = (double)(b.file_bytes - a.file_bytes) / (double)ops;
    return r;
}

// ---------------------------------------------------------------------------------------------
// Checks

static long checks_passed, checks_failed;

static void check(bool ok, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ok) {
        checks_passed++;
    } else {
        checks_failed++;
        fprintf(stderr, "FAIL: %s\n", msg);
    }
}

// ---------------------------------------------------------------------------------------------
// Providers and their results

enum {
    W_PING_PROVIDER,
    W_PING_BUS,
    W_SEARCH1,
    W_SEARCH100,
    W_GETSECRET,
    W_GETSECRETS100,
    W_LOOKUP,
    W_COUNT
};
static const char *w_key[W_COUNT] = {"ping_provider", "ping_bus",    "search1", "search100",
                                     "getsecret",     "getsecrets100", "secret_tool_lookup"};
static const char *w_label[W_COUNT] = {"Peer.Ping (provider)", "Peer.Ping (bus daemon)",
                                       "SearchItems, 1 hit", "SearchItems, 100 hits",
                                       "Item.GetSecret", "Service.GetSecrets (100 items)",
                                       "secret-tool lookup (whole process)"};

typedef struct {
    bool done;
    bool extrapolated;
    long calls, errors;
    Stats st;
    PerOp op;
} WorkResult;

typedef struct {
    long from, to;
    double wall_s;
    Stats st;
    PerOp op;
    bool extrapolated;
} Segment;

typedef struct {
    long n;
    bool extrapolated;
    double fill_s;  // wall time of the fill 0 -> n (sum of the fill segments)
    Stats tenth[10];
    PerOp tenth_op[10];
    WorkResult w[W_COUNT];
    long rss_kib, maps;
    long long file_bytes;
} Point;

typedef struct {
    char name[64];
    char address[512];
    DBusConnection *conn;
    char session[256];
    pid_t pid;
    long cap;
    const char *watch_file;
    bool dead;
    long dead_at;
    char **paths;  // item paths, index = item number
    long nitems;
    long create_errors;
    Samples create_lat;  // every CreateItem latency (µs), index = item number
    Segment seg[MAX_SEGMENTS];
    int nseg;
    Point pt[MAX_POINTS];
    int npt;
    double startup_ms[16];
    int nstartup;
    double fill_total_s;  // wall time of all its fill segments so far
    bool over_budget;     // its fill stopped at --fill-budget-s; cap lowered to where it stopped
} Provider;

static Provider prov[MAX_PROVIDERS];
static int nprov;
static const char *bus_name = "org.freedesktop.secrets";
static long opt_calls = 200;
static long opt_min_phase_ms = 500;
static long opt_lookup_runs = 20;
static bool opt_smoke;
static bool opt_expect_locked;  // --reopen before the unlock: matches must come back in the locked list
static bool opt_reopen;         // --reopen: item paths are not known in advance, they are looked up
static long opt_max = 100000;
static double opt_fill_budget_s = 0;  // 0: none
static const char *target_collection = DEFAULT_ALIAS;  // where CreateItem creates (--fleet: the fleet collection)

// ---------------------------------------------------------------------------------------------
// D-Bus helpers

static DBusMessage *call_msg(Provider *p, DBusMessage *m, DBusError *err) {
    DBusMessage *r = dbus_connection_send_with_reply_and_block(p->conn, m, CALL_TIMEOUT_MS, err);
    dbus_message_unref(m);
    // Drop anything else that arrived (signals sent to us), so the queue never grows.
    DBusMessage *x;
    while ((x = dbus_connection_pop_message(p->conn))) dbus_message_unref(x);
    return r;
}

static DBusMessage *new_call(const char *dest, const char *path, const char *iface, const char *member) {
    DBusMessage *m = dbus_message_new_method_call(dest, path, iface, member);
    if (!m) die("out of memory");
    return m;
}

static bool name_has_owner(DBusConnection *c, const char *name) {
    DBusMessage *m = new_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner");
    dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 10000, &err);
    dbus_message_unref(m);
    dbus_bool_t has = FALSE;
    if (r) {
        dbus_message_get_args(r, NULL, DBUS_TYPE_BOOLEAN, &has, DBUS_TYPE_INVALID);
        dbus_message_unref(r);
    }
    dbus_error_free(&err);
    return has;
}

static DBusConnection *connect_bus(const char *address) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(address, &err);
    if (!c) die("cannot connect to %s: %s", address, err.message);
    if (!dbus_bus_register(c, &err)) die("cannot register on %s: %s", address, err.message);
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    return c;
}

static void append_dict_ss(DBusMessageIter *parent, const char **kv, int npairs) {
    DBusMessageIter arr, e;
    dbus_message_iter_open_container(parent, DBUS_TYPE_ARRAY, "{ss}", &arr);
    for (int i = 0; i < npairs; i++) {
        dbus_message_iter_open_container(&arr, DBUS_TYPE_DICT_ENTRY, NULL, &e);
        dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &kv[2 * i]);
        dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &kv[2 * i + 1]);
        dbus_message_iter_close_container(&arr, &e);
    }
    dbus_message_iter_close_container(parent, &arr);
}

// Reads a Secret struct (oayays) at `it`; copies the value (up to cap bytes).
static bool read_secret(DBusMessageIter *it, unsigned char *out, size_t cap, size_t *len, char *session_out) {
    if (dbus_message_iter_get_arg_type(it) != DBUS_TYPE_STRUCT) return false;
    DBusMessageIter s, a;
    dbus_message_iter_recurse(it, &s);
    if (dbus_message_iter_get_arg_type(&s) != DBUS_TYPE_OBJECT_PATH) return false;
    const char *sess;
    dbus_message_iter_get_basic(&s, &sess);
    if (session_out) snprintf(session_out, 256, "%s", sess);
    dbus_message_iter_next(&s);
    if (dbus_message_iter_get_arg_type(&s) != DBUS_TYPE_ARRAY) return false;
    dbus_message_iter_next(&s);  // parameters: empty for plain
    if (dbus_message_iter_get_arg_type(&s) != DBUS_TYPE_ARRAY) return false;
    dbus_message_iter_recurse(&s, &a);
    const unsigned char *bytes = NULL;
    int n = 0;
    if (dbus_message_iter_get_arg_type(&a) == DBUS_TYPE_BYTE) dbus_message_iter_get_fixed_array(&a, &bytes, &n);
    if ((size_t)n > cap) return false;
    if (n) memcpy(out, bytes, (size_t)n);
    *len = (size_t)n;
    return true;
}

// ---------------------------------------------------------------------------------------------
// The Secret Service calls

// Sends `m` (consumed) and copies the reply's second argument, an object path, into `out`.
// False, with the error on stderr, when the call fails or the reply has another shape.
static bool second_path(Provider *p, DBusMessage *m, const char *what, char *out, size_t size) {
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = call_msg(p, m, &err);
    if (!r) {
        fprintf(stderr, "%s: %s: %s: %s\n", p->name, what, err.name, err.message);
        dbus_error_free(&err);
        return false;
    }
    DBusMessageIter ri;
    bool ok = false;
    if (dbus_message_iter_init(r, &ri) && dbus_message_iter_next(&ri) &&
        dbus_message_iter_get_arg_type(&ri) == DBUS_TYPE_OBJECT_PATH) {
        const char *path;
        dbus_message_iter_get_basic(&ri, &path);
        snprintf(out, size, "%s", path);
        ok = true;
    }
    dbus_message_unref(r);
    return ok;
}

static bool open_session(Provider *p) {
    DBusMessage *m = new_call(bus_name, SERVICE_PATH, IFACE_SERVICE, "OpenSession");
    DBusMessageIter it, v;
    const char *alg = "plain", *empty = "";
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &alg);
    dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "s", &v);
    dbus_message_iter_append_basic(&v, DBUS_TYPE_STRING, &empty);
    dbus_message_iter_close_container(&it, &v);
    return second_path(p, m, "OpenSession", p->session, sizeof p->session);
}

static pid_t provider_pid(Provider *p) {
    DBusMessage *m = new_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionUnixProcessID");
    dbus_message_append_args(m, DBUS_TYPE_STRING, &bus_name, DBUS_TYPE_INVALID);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = call_msg(p, m, &err);
    dbus_uint32_t pid = 0;
    if (r) {
        dbus_message_get_args(r, NULL, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID);
        dbus_message_unref(r);
    } else {
        fprintf(stderr, "%s: GetConnectionUnixProcessID: %s\n", p->name, err.message);
        dbus_error_free(&err);
    }
    return (pid_t)pid;
}

// Unlock([default alias]); true when the default collection is usable without a prompt.
static bool ensure_unlocked(Provider *p) {
    DBusMessage *m = new_call(bus_name, SERVICE_PATH, IFACE_SERVICE, "Unlock");
    DBusMessageIter it, arr;
    const char *alias = DEFAULT_ALIAS;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "o", &arr);
    dbus_message_iter_append_basic(&arr, DBUS_TYPE_OBJECT_PATH, &alias);
    dbus_message_iter_close_container(&it, &arr);
    char prompt[256];
    if (!second_path(p, m, "Unlock", prompt, sizeof prompt)) return false;
    if (!strcmp(prompt, "/")) return true;
    fprintf(stderr, "%s: the default collection is locked and unlocking it needs a prompt (%s); "
                    "unlock it before benchmarking\n", p->name, prompt);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *dr = call_msg(p, new_call(bus_name, prompt, "org.freedesktop.Secret.Prompt", "Dismiss"), &err);
    if (dr) dbus_message_unref(dr);
    dbus_error_free(&err);
    return false;
}

// CreateItem of item k into target_collection (the default alias unless --fleet), with the
// attribute service=`service`; stores the returned path. Returns latency in µs or -1.
static double create_item_as(Provider *p, long k, const char *service) {
    char user[32], group[32], label[64];
    snprintf(user, sizeof user, "u%ld", k);
    snprintf(group, sizeof group, "g%ld", k / GROUP_SIZE);
    snprintf(label, sizeof label, "bench item %ld", k);
    const char *kv[] = {"service", service,    "run", run_id, "user", user, "group", group,
                        "xdg:schema", "org.freedesktop.Secret.Generic"};
    unsigned char secret[64];
    size_t slen = make_secret(k, secret);

    DBusMessage *m = new_call(bus_name, target_collection, IFACE_COLLECTION, "CreateItem");
    DBusMessageIter it, props, e, v, sec, arr;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &props);
    const char *k_label = "org.freedesktop.Secret.Item.Label", *k_attrs = "org.freedesktop.Secret.Item.Attributes";
    const char *lp = label;
    dbus_message_iter_open_container(&props, DBUS_TYPE_DICT_ENTRY, NULL, &e);
    dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &k_label);
    dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, "s", &v);
    dbus_message_iter_append_basic(&v, DBUS_TYPE_STRING, &lp);
    dbus_message_iter_close_container(&e, &v);
    dbus_message_iter_close_container(&props, &e);
    dbus_message_iter_open_container(&props, DBUS_TYPE_DICT_ENTRY, NULL, &e);
    dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &k_attrs);
    dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, "a{ss}", &v);
    append_dict_ss(&v, kv, 5);
    dbus_message_iter_close_container(&e, &v);
    dbus_message_iter_close_container(&props, &e);
    dbus_message_iter_close_container(&it, &props);

    const char *sess = p->session, *ctype = "text/plain";
    const unsigned char *sp = secret;
    dbus_message_iter_open_container(&it, DBUS_TYPE_STRUCT, NULL, &sec);
    dbus_message_iter_append_basic(&sec, DBUS_TYPE_OBJECT_PATH, &sess);
    dbus_message_iter_open_container(&sec, DBUS_TYPE_ARRAY, "y", &arr);
    dbus_message_iter_close_container(&sec, &arr);
    dbus_message_iter_open_container(&sec, DBUS_TYPE_ARRAY, "y", &arr);
    dbus_message_iter_append_fixed_array(&arr, DBUS_TYPE_BYTE, &sp, (int)slen);
    dbus_message_iter_close_container(&sec, &arr);
    dbus_message_iter_append_basic(&sec, DBUS_TYPE_STRING, &ctype);
    dbus_message_iter_close_container(&it, &sec);
    dbus_bool_t replace = FALSE;
    dbus_message_iter_append_basic(&it, DBUS_TYPE_BOOLEAN, &replace);

    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    memset(secret, 0, sizeof secret);
    if (!r) {
        if (p->create_errors < 5) fprintf(stderr, "%s: CreateItem #%ld: %s: %s\n", p->name, k, err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    const char *item = NULL, *prompt = NULL;
    bool ok = dbus_message_get_args(r, NULL, DBUS_TYPE_OBJECT_PATH, &item, DBUS_TYPE_OBJECT_PATH, &prompt,
                                    DBUS_TYPE_INVALID);
    if (ok && strcmp(prompt, "/") == 0 && strcmp(item, "/") != 0) {
        p->paths[k] = strdup(item);
    } else {
        if (p->create_errors < 5) fprintf(stderr, "%s: CreateItem #%ld: unexpected reply (prompt?)\n", p->name, k);
        ok = false;
    }
    dbus_message_unref(r);
    return ok ? us : -1;
}

static double create_item(Provider *p, long k) { return create_item_as(p, k, "bench"); }

// Service.SearchItems; returns latency (µs) or -1; *nunlocked / *first describe the result.
static double search_items(Provider *p, const char **kv, int npairs, int *nunlocked, int *nlocked, char *first,
                           size_t firstcap) {
    DBusMessage *m = new_call(bus_name, SERVICE_PATH, IFACE_SERVICE, "SearchItems");
    DBusMessageIter it;
    dbus_message_iter_init_append(m, &it);
    append_dict_ss(&it, kv, npairs);
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    if (!r) {
        fprintf(stderr, "%s: SearchItems: %s: %s\n", p->name, err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    char **u = NULL, **l = NULL;
    int nu = 0, nl = 0;
    bool ok = dbus_message_get_args(r, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_OBJECT_PATH, &u, &nu, DBUS_TYPE_ARRAY,
                                    DBUS_TYPE_OBJECT_PATH, &l, &nl, DBUS_TYPE_INVALID);
    if (ok) {
        *nunlocked = nu;
        *nlocked = nl;
        if (first) snprintf(first, firstcap, "%s", nu > 0 ? u[0] : nl > 0 ? l[0] : "");
        dbus_free_string_array(u);
        dbus_free_string_array(l);
    }
    dbus_message_unref(r);
    return ok ? us : -1;
}

static double get_secret_at(Provider *p, const char *path, long k, bool *exact);

static double get_secret(Provider *p, long k, bool *exact) { return get_secret_at(p, p->paths[k], k, exact); }

// Item.GetSecret of the item at `path`; *exact: the bytes make_secret(k) gives, for our session.
static double get_secret_at(Provider *p, const char *path, long k, bool *exact) {
    DBusMessage *m = new_call(bus_name, path, IFACE_ITEM, "GetSecret");
    const char *sess = p->session;
    dbus_message_append_args(m, DBUS_TYPE_OBJECT_PATH, &sess, DBUS_TYPE_INVALID);
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    *exact = false;
    if (!r) {
        fprintf(stderr, "%s: GetSecret: %s: %s\n", p->name, err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    DBusMessageIter it;
    unsigned char got[256], want[64];
    size_t glen = 0, wlen = make_secret(k, want);
    char sess_back[256];
    if (dbus_message_iter_init(r, &it) && read_secret(&it, got, sizeof got, &glen, sess_back))
        *exact = glen == wlen && memcmp(got, want, wlen) == 0 && strcmp(sess_back, p->session) == 0;
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    dbus_message_unref(r);
    return us;
}

// GetSecrets of the 100 items of group g; *exact: 100 entries, each with its item's bytes.
static double get_secrets_group(Provider *p, long g, bool *exact) {
    DBusMessage *m = new_call(bus_name, SERVICE_PATH, IFACE_SERVICE, "GetSecrets");
    DBusMessageIter it, arr;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "o", &arr);
    for (long k = g * GROUP_SIZE; k < (g + 1) * GROUP_SIZE; k++) {
        const char *path = p->paths[k];
        dbus_message_iter_append_basic(&arr, DBUS_TYPE_OBJECT_PATH, &path);
    }
    dbus_message_iter_close_container(&it, &arr);
    const char *sess = p->session;
    dbus_message_iter_append_basic(&it, DBUS_TYPE_OBJECT_PATH, &sess);
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    *exact = false;
    if (!r) {
        fprintf(stderr, "%s: GetSecrets: %s: %s\n", p->name, err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    DBusMessageIter ri, dict, e;
    int n = 0, good = 0;
    if (dbus_message_iter_init(r, &ri) && dbus_message_iter_get_arg_type(&ri) == DBUS_TYPE_ARRAY) {
        dbus_message_iter_recurse(&ri, &dict);
        while (dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY) {
            dbus_message_iter_recurse(&dict, &e);
            const char *path;
            dbus_message_iter_get_basic(&e, &path);
            dbus_message_iter_next(&e);
            // Which item is it? Paths are unique; look in the group's range.
            long k = -1;
            for (long j = g * GROUP_SIZE; j < (g + 1) * GROUP_SIZE; j++)
                if (!strcmp(p->paths[j], path)) {
                    k = j;
                    break;
                }
            unsigned char got[256], want[64];
            size_t glen = 0;
            if (k >= 0 && read_secret(&e, got, sizeof got, &glen, NULL)) {
                size_t wlen = make_secret(k, want);
                good += glen == wlen && memcmp(got, want, wlen) == 0;
            }
            memset(got, 0, sizeof got);
            memset(want, 0, sizeof want);
            n++;
            dbus_message_iter_next(&dict);
        }
    }
    *exact = n == GROUP_SIZE && good == GROUP_SIZE;
    dbus_message_unref(r);
    return us;
}

static double ping(Provider *p, bool bus) {
    DBusMessage *m = bus ? new_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping")
                         : new_call(bus_name, SERVICE_PATH, "org.freedesktop.DBus.Peer", "Ping");
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    if (!r) {
        fprintf(stderr, "%s: Ping(%s): %s: %s\n", p->name, bus ? "bus" : "provider", err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    dbus_message_unref(r);
    return us;
}

// `secret-tool lookup service bench run <id> user u<k>` as a whole process on the provider's
// bus; *exact: exit 0 and stdout equals the stored secret. Returns wall time (µs) or -1.
static double secret_tool_lookup(Provider *p, long k, bool *exact) {
    *exact = false;
    char user[32];
    snprintf(user, sizeof user, "u%ld", k);
    char *argv[] = {"secret-tool", "lookup", "service", "bench", "run", run_id, "user", user, NULL};
    // Environment: ours, with the provider's bus address.
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = xmalloc((ne + 2) * sizeof(char *));
    size_t o = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "DBUS_SESSION_BUS_ADDRESS=", 25)) envp[o++] = environ[i];
    char addr_env[600];
    snprintf(addr_env, sizeof addr_env, "DBUS_SESSION_BUS_ADDRESS=%s", p->address);
    envp[o++] = addr_env;
    envp[o] = NULL;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC)) die("pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t child;
    double t0 = now_s();
    int rc = posix_spawnp(&child, "secret-tool", &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    free(envp);
    if (rc) {
        close(pipefd[0]);
        fprintf(stderr, "%s: cannot run secret-tool: %s\n", p->name, strerror(rc));
        return -1;
    }
    unsigned char out[512];
    size_t got = 0;
    ssize_t r;
    while ((r = read(pipefd[0], out + got, sizeof out - got)) > 0) got += (size_t)r;
    close(pipefd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    double us = (now_s() - t0) * 1e6;
    unsigned char want[64];
    size_t wlen = make_secret(k, want);
    if (got > 0 && out[got - 1] == '\n') got--;
    *exact = WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == wlen && memcmp(out, want, wlen) == 0;
    memset(out, 0, sizeof out);
    memset(want, 0, sizeof want);
    return us;
}

// ---------------------------------------------------------------------------------------------
// Phases

static bool provider_alive(Provider *p) {
    if (p->dead) return false;
    if (!dbus_connection_get_is_connected(p->conn) || !name_has_owner(p->conn, bus_name) ||
        (p->pid > 0 && kill(p->pid, 0) != 0)) {
        p->dead = true;
        p->dead_at = p->nitems;
        fprintf(stderr, "%s: the provider is gone (after %s items); its remaining phases are skipped\n", p->name,
                fmt_int(p->nitems));
        check(false, "%s stays up for the whole run (gone after %ld items)", p->name, p->nitems);
        return false;
    }
    return true;
}

// Fills items [p->nitems, to) as one segment.
static void fill_segment(Provider *p, long to) {
    if (p->dead) return;
    long from = p->nitems;
    Segment *s = &p->seg[p->nseg++];
    memset(s, 0, sizeof *s);
    s->from = from;
    s->to = to;
    long consecutive_errors = 0;
    ProcSnap a = snap_cpu_io(p->pid, p->watch_file);
    double t0 = now_s();
    for (long k = from; k < to; k++) {
        double us = create_item(p, k);
        if (us < 0) {
            p->create_errors++;
            p->paths[k] = NULL;
            samples_add(&p->create_lat, NAN);
            if (++consecutive_errors >= 3 && !provider_alive(p)) {
                s->to = k + 1;
                break;
            }
            if (consecutive_errors >= 50) {
                fprintf(stderr, "%s: 50 CreateItem calls in a row failed; stopping its fill\n", p->name);
                p->dead = true;
                p->dead_at = k + 1;
                check(false, "%s: CreateItem keeps failing", p->name);
                s->to = k + 1;
                break;
            }
        } else {
            consecutive_errors = 0;
            samples_add(&p->create_lat, us);
        }
        p->nitems = k + 1;
        if (opt_fill_budget_s > 0 && p->fill_total_s + (now_s() - t0) > opt_fill_budget_s && k + 1 < to &&
            (k + 1) % 100 == 0) {
            fprintf(stderr, "%s: fill time budget (%.0f s) used up at %s items; the rest is extrapolated\n",
                    p->name, opt_fill_budget_s, fmt_int(k + 1));
            p->over_budget = true;
            p->cap = k + 1;
            s->to = k + 1;
            break;
        }
    }
    s->wall_s = now_s() - t0;
    p->fill_total_s += s->wall_s;
    ProcSnap b = snap_cpu_io(p->pid, p->watch_file);
    s->st = stats_of(p->create_lat.v, (size_t)s->from, (size_t)s->to);
    s->op = per_op(a, b, s->to - s->from);
}

static bool item_ok(Provider *p, long k) { return k < p->nitems && p->paths[k] != NULL; }

// Finds item k's path with SearchItems (untimed), for a run that did not create the items itself.
static bool resolve_path(Provider *p, long k) {
    if (k < 0 || k >= p->nitems) return false;
    if (p->paths[k]) return true;
    char user[32], first[256];
    snprintf(user, sizeof user, "u%ld", k);
    const char *kv[] = {"service", "bench", "run", run_id, "user", user};
    int nu = 0, nl = 0;
    if (search_items(p, kv, 3, &nu, &nl, first, sizeof first) < 0 || nu + nl != 1) return false;
    p->paths[k] = strdup(first);
    return p->paths[k] != NULL;
}

// Runs one read workload at the provider's current size.
static void run_workload(Provider *p, Point *pt, int w) {
    if (w < 0 || w >= W_COUNT) return;
    WorkResult *r = &pt->w[w];
    memset(r, 0, sizeof *r);
    if (p->dead) return;
    long n = p->nitems, groups = n / GROUP_SIZE;
    if ((w == W_SEARCH100 || w == W_GETSECRETS100) && groups == 0) return;
    if (w == W_LOOKUP && opt_lookup_runs <= 0) return;
    Samples lat = {0};
    long min_calls = w == W_LOOKUP ? opt_lookup_runs : opt_calls;
    double min_s = w == W_LOOKUP ? 0 : (double)opt_min_phase_ms / 1000.0;
    long wrong = 0;
    // After a restart (--reopen) the item paths are not known yet: the GetSecret workload finds a
    // pool of them first, untimed, so that each timed call follows another GetSecret as after the
    // fill. Found during the loop, every call came right after its SearchItems (measured at 100k:
    // 1.38x Ping instead of 1.29x) and its CPU per call counted the search too.
    long *pool = NULL, npool = 0;
    if (w == W_GETSECRET && opt_reopen) {
        npool = n < 5000 ? n : 5000;
        pool = xmalloc((size_t)npool * sizeof *pool);
        for (long i = 0; i < npool; i++) {
            pool[i] = rng_below(n);
            if (!item_ok(p, pool[i])) resolve_path(p, pool[i]);
        }
    }
    ProcSnap a = snap_cpu_io(p->pid, NULL);
    double t0 = now_s();
    for (long i = 0; i < min_calls || now_s() - t0 < min_s; i++) {
        double us = -1;
        bool exact = true;
        char user[32], group[32], first[256];
        if (w == W_PING_PROVIDER || w == W_PING_BUS) {
            us = ping(p, w == W_PING_BUS);
        } else if (w == W_SEARCH1) {
            long k = rng_below(n);
            snprintf(user, sizeof user, "u%ld", k);
            const char *kv[] = {"service", "bench", "run", run_id, "user", user};
            int nu = 0, nl = 0;
            us = search_items(p, kv, 3, &nu, &nl, first, sizeof first);
            exact = opt_expect_locked ? nu == 0 && nl == 1 : nu == 1 && nl == 0;
            if (exact && opt_reopen && k < n && !p->paths[k]) p->paths[k] = strdup(first);
            exact = exact && item_ok(p, k) && !strcmp(first, p->paths[k]);
        } else if (w == W_SEARCH100) {
            long g = rng_below(groups);
            snprintf(group, sizeof group, "g%ld", g);
            const char *kv[] = {"service", "bench", "run", run_id, "group", group};
            int nu = 0, nl = 0;
            us = search_items(p, kv, 3, &nu, &nl, NULL, 0);
            exact = nu == GROUP_SIZE && nl == 0;
        } else if (w == W_GETSECRET) {
            long k = pool ? pool[rng_below(npool)] : rng_below(n);
            if (!item_ok(p, k)) continue;
            us = get_secret(p, k, &exact);
        } else if (w == W_GETSECRETS100) {
            long g = rng_below(groups);
            bool all = true;
            for (long j = g * GROUP_SIZE; j < (g + 1) * GROUP_SIZE; j++) all &= item_ok(p, j);
            if (!all) continue;
            us = get_secrets_group(p, g, &exact);
        } else if (w == W_LOOKUP) {
            us = secret_tool_lookup(p, rng_below(n), &exact);
        }
        r->calls++;
        if (us < 0) {
            r->errors++;
            if (r->errors >= 3 && !provider_alive(p)) break;
            if (r->errors >= 20) break;
            continue;
        }
        if (!exact) wrong++;
        samples_add(&lat, us);
    }
    ProcSnap b = snap_cpu_io(p->pid, NULL);
    free(pool);
    r->st = stats_of(lat.v, 0, lat.n);
    r->op = per_op(a, b, r->calls);
    r->done = lat.n > 0;
    free(lat.v);
    const char *what[W_COUNT] = {"succeed", "succeed",
                                 opt_expect_locked ? "return exactly 1 locked hit, the right item"
                                                   : "return exactly 1 hit, the right item",
                                 "return exactly 100 hits", "return the stored bytes exactly",
                                 "return 100 secrets with the stored bytes", "print the stored secret"};
    check(r->errors == 0 && r->calls > 0, "%s N=%ld: %s: %ld of %ld calls failed", p->name, n, w_label[w], r->errors,
          r->calls);
    if (w != W_PING_PROVIDER && w != W_PING_BUS)
        check(wrong == 0, "%s N=%ld: %s: %ld of %ld calls did not %s", p->name, n, w_label[w], wrong, r->calls,
              what[w]);
}

// Resource use per CreateItem over items [lo, hi): the sum over the measured segments in it. Tenths
// are unions of segments, except after a fill stopped by the time budget; a segment that only
// overlaps counts with its overlap (its resource use taken as even over its items).
static PerOp fill_op(Provider *p, long lo, long hi) {
    PerOp agg = {0, 0, 0, 0, 0};
    double ops = 0;
    bool sched_ok = true, file_ok = true;
    for (int i = 0; i < p->nseg; i++) {
        Segment *s = &p->seg[i];
        long a = s->from > lo ? s->from : lo, b = s->to < hi ? s->to : hi;
        if (s->extrapolated || b <= a) continue;
        double c = (double)(b - a);
        agg.cpu_us += s->op.cpu_us * c;
        if (isnan(s->op.cpu_sched_us)) sched_ok = false;
        else agg.cpu_sched_us += s->op.cpu_sched_us * c;
        agg.wchar += s->op.wchar * c;
        agg.write_bytes += s->op.write_bytes * c;
        if (isnan(s->op.file_growth)) file_ok = false;
        else agg.file_growth += s->op.file_growth * c;
        ops += c;
    }
    if (ops == 0) return PEROP_NAN;
    agg.cpu_us /= ops;
    agg.cpu_sched_us = sched_ok ? agg.cpu_sched_us / ops : NAN;
    agg.wchar /= ops;
    agg.write_bytes /= ops;
    agg.file_growth = file_ok ? agg.file_growth / ops : NAN;
    return agg;
}

// Summarises the fill 0 -> pt->n from the provider's segments (tenths are unions of segments).
static void summarise_fill(Provider *p, Point *pt) {
    long n = pt->n;
    pt->fill_s = 0;
    for (int i = 0; i < p->nseg; i++)
        if (p->seg[i].to <= n) pt->fill_s += p->seg[i].wall_s;
    for (int t = 0; t < 10; t++) {
        long lo = n * t / 10, hi = n * (t + 1) / 10;
        pt->tenth[t] = stats_of(p->create_lat.v, (size_t)lo, (size_t)hi);
        pt->tenth_op[t] = fill_op(p, lo, hi);
    }
}

// ---------------------------------------------------------------------------------------------
// Extrapolation for a provider whose fill was capped

typedef struct {
    double a, b;  // y = a + b x
} Line;

// Least-squares line through (x_i, y_i); slope clamped at >= 0 (growth, never shrinkage).
static Line fit(const double *x, const double *y, int n) {
    Line l = {NAN, NAN};
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(x[i]) || isnan(y[i])) continue;
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
        m++;
    }
    if (m == 0) return l;
    double den = (double)m * sxx - sx * sx;
    l.b = (m >= 2 && den != 0) ? ((double)m * sxy - sx * sy) / den : 0;
    if (l.b < 0) l.b = 0;
    l.a = (sy - l.b * sx) / (double)m;
    return l;
}

static double at(Line l, double x) { return l.a + l.b * x; }

// Line through the last two measured points (by n) of a per-point quantity.
static Line two_point(Provider *p, double (*get)(Point *)) {
    double xs[2], ys[2];
    int got = 0;
    for (int i = p->npt - 1; i >= 0 && got < 2; i--) {
        if (p->pt[i].extrapolated) continue;
        double y = get(&p->pt[i]);
        if (isnan(y)) continue;
        xs[got] = (double)p->pt[i].n;
        ys[got] = y;
        got++;
    }
    if (got == 0) return (Line){NAN, NAN};
    if (got == 1) return (Line){ys[0], 0};
    double b = (ys[0] - ys[1]) / (xs[0] - xs[1]);
    if (b < 0) b = 0;
    return (Line){ys[0] - b * xs[0], b};
}

static int g_w, g_field;
static double get_w(Point *pt) {
    WorkResult *r = &pt->w[g_w];
    if (!r->done) return NAN;
    switch (g_field) {
    case 0: return r->st.p50;
    case 1: return r->st.p99;
    case 2: return r->st.mean;
    case 3: return r->op.cpu_us;
    case 4: return r->op.cpu_sched_us;
    case 5: return r->op.wchar;
    default: return r->op.write_bytes;
    }
}
static double get_rss(Point *pt) { return pt->rss_kib < 0 ? NAN : (double)pt->rss_kib; }
static double get_maps(Point *pt) { return pt->maps < 0 ? NAN : (double)pt->maps; }
static double get_file(Point *pt) { return pt->file_bytes < 0 ? NAN : (double)pt->file_bytes; }

static Line seg_fit(Provider *p, int field) {
    double x[MAX_SEGMENTS], y[MAX_SEGMENTS];
    int n = 0;
    for (int i = 0; i < p->nseg; i++) {
        Segment *s = &p->seg[i];
        if (s->extrapolated || s->to <= s->from) continue;
        x[n] = (double)(s->from + s->to) / 2.0;
        switch (field) {
        case 0: y[n] = s->st.p50; break;
        case 1: y[n] = s->st.p99; break;
        case 2: y[n] = s->wall_s * 1e6 / (double)(s->to - s->from); break;
        case 3: y[n] = s->op.cpu_us; break;
        case 4: y[n] = s->op.cpu_sched_us; break;
        case 5: y[n] = s->op.wchar; break;
        default: y[n] = s->op.write_bytes; break;
        }
        n++;
    }
    return fit(x, y, n);
}

// Adds extrapolated points (and fill segments, for the plot) for targets beyond the cap.
static void extrapolate(Provider *p, const long *targets, int ntargets, const long *bounds, int nbounds) {
    Line lp50 = seg_fit(p, 0), lwall = seg_fit(p, 2), lcpu = seg_fit(p, 3),
         lsched = seg_fit(p, 4), lwchar = seg_fit(p, 5), lwb = seg_fit(p, 6);
    // p99 is too noisy to fit on its own: p99 = fitted p50 x the median p99/p50 of the last third
    // of the measured segments.
    double ratios[MAX_SEGMENTS];
    int nr = 0, nmeasured = 0;
    for (int i = 0; i < p->nseg; i++) nmeasured += !p->seg[i].extrapolated;
    for (int i = nmeasured - (nmeasured + 2) / 3; i < nmeasured; i++)
        if (i >= 0 && p->seg[i].st.p50 > 0) ratios[nr++] = p->seg[i].st.p99 / p->seg[i].st.p50;
    qsort(ratios, (size_t)nr, sizeof(double), cmp_double);
    double p99_ratio = nr ? ratios[(nr - 1) / 2] : NAN;
    double measured_fill = 0;
    long measured_n = 0;
    for (int i = 0; i < p->nseg; i++) {
        measured_fill += p->seg[i].wall_s;
        if (p->seg[i].to > measured_n) measured_n = p->seg[i].to;
    }
    for (int i = 0; i < nbounds; i++) {
        if (bounds[i] <= measured_n || p->nseg >= MAX_SEGMENTS) continue;
        long from = i > 0 ? bounds[i - 1] : 0;
        if (from < measured_n) from = measured_n;
        Segment *s = &p->seg[p->nseg++];
        memset(s, 0, sizeof *s);
        s->from = from;
        s->to = bounds[i];
        s->extrapolated = true;
        double mid = (double)(s->from + s->to) / 2.0;
        s->st.p50 = at(lp50, mid);
        s->st.p99 = at(lp50, mid) * p99_ratio;
        s->st.n = (size_t)(s->to - s->from);
        s->wall_s = at(lwall, mid) * (double)(s->to - s->from) / 1e6;
        s->op = (PerOp){at(lcpu, mid), at(lsched, mid), at(lwchar, mid), at(lwb, mid), NAN};
    }
    for (int t = 0; t < ntargets; t++) {
        long n = targets[t];
        if (n <= measured_n || p->npt >= MAX_POINTS) continue;
        Point *pt = &p->pt[p->npt];
        memset(pt, 0, sizeof *pt);
        pt->n = n;
        pt->extrapolated = true;
        // Fill time: measured part plus the integral of the fitted per-item wall time.
        double x0 = (double)measured_n, x1 = (double)n;
        pt->fill_s = measured_fill + (lwall.a * (x1 - x0) + lwall.b * (x1 * x1 - x0 * x0) / 2.0) / 1e6;
        for (int k = 0; k < 10; k++) {
            double mid = (double)n * ((double)k + 0.5) / 10.0;
            long lo = n * k / 10, hi = n * (k + 1) / 10;
            if (hi <= measured_n) {
                pt->tenth[k] = stats_of(p->create_lat.v, (size_t)lo, (size_t)hi);
                pt->tenth_op[k] = fill_op(p, lo, hi);
            } else {
                pt->tenth[k] = (Stats){at(lp50, mid), at(lp50, mid) * p99_ratio, NAN, (size_t)(hi - lo)};
                pt->tenth_op[k] = (PerOp){at(lcpu, mid), at(lsched, mid), at(lwchar, mid), at(lwb, mid), NAN};
            }
        }
        // Read workloads: a line through the last two measured points (growth never negative); p99
        // keeps the last measured p99/p50 ratio. Pings do not depend on N: the last measured value.
        Point *last = NULL;
        for (int j = 0; j < p->npt; j++)
            if (!p->pt[j].extrapolated) last = &p->pt[j];
        for (int w = 0; w < W_COUNT && last; w++) {
            WorkResult *r = &pt->w[w];
            if (!last->w[w].done) continue;
            if (w == W_PING_PROVIDER || w == W_PING_BUS) {
                *r = last->w[w];
                r->extrapolated = true;
                continue;
            }
            g_w = w;
            double v[7];
            for (g_field = 0; g_field < 7; g_field++) v[g_field] = at(two_point(p, get_w), (double)n);
            if (isnan(v[0])) continue;
            r->done = true;
            r->extrapolated = true;
            r->st = (Stats){v[0], v[0] * last->w[w].st.p99 / last->w[w].st.p50, v[2], 0};
            r->op = (PerOp){v[3], v[4], v[5], v[6], NAN};
        }
        pt->rss_kib = (long)llround(at(two_point(p, get_rss), (double)n));
        pt->maps = (long)llround(at(two_point(p, get_maps), (double)n));
        double fb = at(two_point(p, get_file), (double)n);
        pt->file_bytes = isnan(fb) ? -1 : (long long)llround(fb);
        p->npt++;
    }
}

// ---------------------------------------------------------------------------------------------
// Output

static FILE *tsv;

static void tsv_row(const char *prov_name, long n, const char *metric, const char *stat, double v, bool extrap) {
    if (!tsv || isnan(v)) return;
    fprintf(tsv, "%s\t%ld\t%s\t%s\t%.6g\t%s\n", prov_name, n, metric, stat, v,
            extrap ? "extrapolated" : "measured");
}

static void tsv_perop(const char *pn, long n, const char *metric, PerOp op, bool ex) {
    tsv_row(pn, n, metric, "cpu_us_per_op", op.cpu_us, ex);
    tsv_row(pn, n, metric, "cpu_sched_us_per_op", op.cpu_sched_us, ex);
    tsv_row(pn, n, metric, "wchar_per_op", op.wchar, ex);
    tsv_row(pn, n, metric, "write_bytes_per_op", op.write_bytes, ex);
    tsv_row(pn, n, metric, "file_growth_per_op", op.file_growth, ex);
}

static void write_tsv(void) {
    if (!tsv) return;
    fprintf(tsv, "provider\tn\tmetric\tstat\tvalue\tsource\n");
    for (int i = 0; i < nprov; i++) {
        Provider *p = &prov[i];
        for (int k = 0; k < p->nstartup; k++) tsv_row(p->name, 0, "startup", "ms", p->startup_ms[k], false);
        for (int s = 0; s < p->nseg; s++) {
            Segment *g = &p->seg[s];
            tsv_row(p->name, g->to, "create_segment", "from", (double)g->from, g->extrapolated);
            tsv_row(p->name, g->to, "create_segment", "p50_us", g->st.p50, g->extrapolated);
            tsv_row(p->name, g->to, "create_segment", "p99_us", g->st.p99, g->extrapolated);
            tsv_row(p->name, g->to, "create_segment", "wall_us_per_op", g->wall_s * 1e6 / (double)(g->to - g->from),
                    g->extrapolated);
            tsv_perop(p->name, g->to, "create_segment", g->op, g->extrapolated);
        }
        for (int j = 0; j < p->npt; j++) {
            Point *pt = &p->pt[j];
            bool ex = pt->extrapolated;
            tsv_row(p->name, pt->n, "fill", "total_s", pt->fill_s, ex);
            for (int t = 0; t < 10; t++) {
                char m[32];
                snprintf(m, sizeof m, "create_tenth%02d", t + 1);
                bool tex = ex && (long)pt->tenth[t].n > 0 && isnan(pt->tenth[t].mean);
                tsv_row(p->name, pt->n, m, "p50_us", pt->tenth[t].p50, tex);
                tsv_row(p->name, pt->n, m, "p99_us", pt->tenth[t].p99, tex);
                tsv_perop(p->name, pt->n, m, pt->tenth_op[t], ex);
            }
            for (int w = 0; w < W_COUNT; w++) {
                WorkResult *r = &pt->w[w];
                if (!r->done) continue;
                bool wex = r->extrapolated;
                if (!wex) tsv_row(p->name, pt->n, w_key[w], "calls", (double)r->calls, false);
                tsv_row(p->name, pt->n, w_key[w], "p50_us", r->st.p50, wex);
                tsv_row(p->name, pt->n, w_key[w], "p99_us", r->st.p99, wex);
                tsv_row(p->name, pt->n, w_key[w], "mean_us", r->st.mean, wex);
                if (pt->w[W_PING_PROVIDER].done)
                    tsv_row(p->name, pt->n, w_key[w], "p50_over_ping", r->st.p50 / pt->w[W_PING_PROVIDER].st.p50, wex);
                tsv_perop(p->name, pt->n, w_key[w], r->op, wex);
            }
            tsv_row(p->name, pt->n, "memory", "rss_kib", pt->rss_kib < 0 ? NAN : (double)pt->rss_kib, ex);
            tsv_row(p->name, pt->n, "memory", "maps", pt->maps < 0 ? NAN : (double)pt->maps, ex);
            tsv_row(p->name, pt->n, "storage", "file_bytes", pt->file_bytes < 0 ? NAN : (double)pt->file_bytes, ex);
        }
    }
}

static const char *num(double v, int prec) {  // rotating buffers; "–" for unknown
    static char bufs[64][32];
    static int which;
    char *b = bufs[which++ % 64];
    if (isnan(v)) return "–";
    if (fabs(v) >= 100000 && prec == 0) {
        snprintf(b, 32, "%s", fmt_int((long)llround(v)));
        return b;
    }
    snprintf(b, 32, "%.*f", prec, v);
    return b;
}

static const char *us_fmt(double us) {  // latency, human scale
    static char bufs[32][32];
    static int which;
    char *b = bufs[which++ % 32];
    if (isnan(us)) return "–";
    if (us >= 1e6) snprintf(b, 32, "%.2f s", us / 1e6);
    else if (us >= 1e4) snprintf(b, 32, "%.1f ms", us / 1e3);
    else if (us >= 1e3) snprintf(b, 32, "%.2f ms", us / 1e3);
    else snprintf(b, 32, "%.0f µs", us);
    return b;
}

static const char *bytes_fmt(double b) {
    static char bufs[32][32];
    static int which;
    char *o = bufs[which++ % 32];
    if (isnan(b)) return "–";
    if (b >= 10 * 1048576.0) snprintf(o, 32, "%.0f MiB", b / 1048576.0);
    else if (b >= 1048576.0) snprintf(o, 32, "%.1f MiB", b / 1048576.0);
    else if (b >= 10240) snprintf(o, 32, "%.0f KiB", b / 1024.0);
    else snprintf(o, 32, "%.0f B", b);
    return o;
}

static const char *secs_fmt(double sec) {  // durations: "12.3 s", "3,743 s (≈ 1.0 h)"
    static char bufs[16][48];
    static int which;
    char *b = bufs[which++ % 16];
    if (isnan(sec)) return "–";
    if (sec < 100) snprintf(b, 48, "%.1f s", sec);
    else if (sec < 3600) snprintf(b, 48, "%s s", fmt_int((long)llround(sec)));
    else snprintf(b, 48, "%s s (≈ %.1f h)", fmt_int((long)llround(sec)), sec / 3600.0);
    return b;
}

static const char *ratio_fmt(double r) {  // "0.87", "0.034", "1/2,400"
    static char bufs[16][32];
    static int which;
    char *b = bufs[which++ % 16];
    if (isnan(r) || isinf(r)) return "–";
    if (r >= 0.1) snprintf(b, 32, "%.2f", r);
    else if (r >= 0.01) snprintf(b, 32, "%.3f", r);
    else if (r > 0) snprintf(b, 32, "1/%s", fmt_int((long)llround(1.0 / r)));
    else snprintf(b, 32, "0");
    return b;
}

static void print_point(Provider *p, Point *pt) {
    double ping50 = pt->w[W_PING_PROVIDER].done ? pt->w[W_PING_PROVIDER].st.p50 : NAN;
    printf("\n### %s, N = %s%s\n\n", p->name, fmt_int(pt->n),
           pt->extrapolated ? " (EXTRAPOLATED from the measured growth, not measured)" : "");
    printf("| workload | calls | p50 | p99 | p50 ÷ ping p50 | CPU µs/op (stat) | CPU µs/op (schedstat) | "
           "wchar B/op | write_bytes B/op | storage file growth B/op |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int t = 0; t < 10; t++) {
        long lo = pt->n * t / 10, hi = pt->n * (t + 1) / 10;
        bool ex = pt->extrapolated && isnan(pt->tenth[t].mean);
        printf("| CreateItem, items %s–%s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", fmt_int(lo),
               fmt_int(hi), ex ? " *(extrapolated)*" : "", ex ? "–" : fmt_int((long)pt->tenth[t].n),
               us_fmt(pt->tenth[t].p50), us_fmt(pt->tenth[t].p99), num(pt->tenth[t].p50 / ping50, 1),
               num(pt->tenth_op[t].cpu_us, 0), num(pt->tenth_op[t].cpu_sched_us, 0), num(pt->tenth_op[t].wchar, 0),
               num(pt->tenth_op[t].write_bytes, 0), num(pt->tenth_op[t].file_growth, 0));
    }
    for (int w = 0; w < W_COUNT; w++) {
        WorkResult *r = &pt->w[w];
        if (!r->done) continue;
        printf("| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w_label[w],
               r->extrapolated ? " *(extrapolated)*" : "", r->extrapolated ? "–" : fmt_int(r->calls),
               us_fmt(r->st.p50), us_fmt(r->st.p99), num(r->st.p50 / ping50, 2), num(r->op.cpu_us, 0),
               num(r->op.cpu_sched_us, 0), num(r->op.wchar, 0), num(r->op.write_bytes, 0),
               num(r->op.file_growth, 0));
    }
    printf("\nFill 0 → %s: %s%s. Provider RSS %s MiB, %s memory maps", fmt_int(pt->n), secs_fmt(pt->fill_s),
           pt->extrapolated ? " (extrapolated)" : "", num(pt->rss_kib < 0 ? NAN : pt->rss_kib / 1024.0, 1),
           pt->maps < 0 ? "–" : fmt_int(pt->maps));
    if (pt->file_bytes >= 0) printf(", storage file %s", bytes_fmt((double)pt->file_bytes));
    printf("%s.\n", pt->extrapolated ? " (extrapolated)" : "");
}

static Point *point_at(Provider *p, long n) {
    for (int i = 0; i < p->npt; i++)
        if (p->pt[i].n == n) return &p->pt[i];
    return NULL;
}

static void print_compare(Provider *a, Provider *b, long n) {
    Point *pa = point_at(a, n), *pb = point_at(b, n);
    if (!pa || !pb) return;
    printf("\n### %s ÷ %s, N = %s%s\n\n", a->name, b->name, fmt_int(n),
           (pa->extrapolated || pb->extrapolated) ? " (* = extrapolated, not measured)" : "");
    printf("| workload | %s p50 | %s p50 | %s ÷ %s (p50) | %s CPU µs/op | %s CPU µs/op | %s write_bytes/op | "
           "%s write_bytes/op |\n",
           a->name, b->name, a->name, b->name, a->name, b->name, a->name, b->name);
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    const char *sa = pa->extrapolated ? "*" : "", *sb = pb->extrapolated ? "*" : "";
    int tenths[2] = {0, 9};
    for (int i = 0; i < 2; i++) {
        int t = tenths[i];
        const char *ta = pa->extrapolated && isnan(pa->tenth[t].mean) ? "*" : "";
        const char *tb = pb->extrapolated && isnan(pb->tenth[t].mean) ? "*" : "";
        printf("| CreateItem, %s tenth of the fill | %s%s | %s%s | %s | %s%s | %s%s | %s%s | %s%s |\n",
               t ? "last" : "first", us_fmt(pa->tenth[t].p50), ta, us_fmt(pb->tenth[t].p50), tb,
               ratio_fmt(pa->tenth[t].p50 / pb->tenth[t].p50), num(pa->tenth_op[t].cpu_us, 0), ta,
               num(pb->tenth_op[t].cpu_us, 0), tb, bytes_fmt(pa->tenth_op[t].write_bytes), ta,
               bytes_fmt(pb->tenth_op[t].write_bytes), tb);
    }
    printf("| fill 0 → %s (wall) | %s%s | %s%s | %s | | | | |\n", fmt_int(n), secs_fmt(pa->fill_s), sa,
           secs_fmt(pb->fill_s), sb, ratio_fmt(pa->fill_s / pb->fill_s));
    for (int w = 0; w < W_COUNT; w++) {
        WorkResult *ra = &pa->w[w], *rb = &pb->w[w];
        if (!ra->done || !rb->done) continue;
        const char *xa = ra->extrapolated ? "*" : "", *xb = rb->extrapolated ? "*" : "";
        printf("| %s | %s%s | %s%s | %s | %s%s | %s%s | %s%s | %s%s |\n", w_label[w], us_fmt(ra->st.p50), xa,
               us_fmt(rb->st.p50), xb, ratio_fmt(ra->st.p50 / rb->st.p50), num(ra->op.cpu_us, 0), xa,
               num(rb->op.cpu_us, 0), xb, bytes_fmt(ra->op.write_bytes), xa, bytes_fmt(rb->op.write_bytes), xb);
    }
    printf("| RSS | %s MiB%s | %s MiB%s | %s | | | | |\n", num(pa->rss_kib / 1024.0, 1), sa,
           num(pb->rss_kib / 1024.0, 1), sb, ratio_fmt((double)pa->rss_kib / (double)pb->rss_kib));
    printf("| memory maps | %s%s | %s%s | %s | | | | |\n", fmt_int(pa->maps), sa, fmt_int(pb->maps), sb,
           ratio_fmt((double)pa->maps / (double)pb->maps));
}

static void print_targets(Provider *p) {
    Point *pt = point_at(p, 100000);
    printf("\n### Targets for %s (issue: at N = 100,000)\n\n", p->name);
    if (!pt || pt->extrapolated) {
        Point *last = NULL;
        for (int i = 0; i < p->npt; i++)
            if (!p->pt[i].extrapolated) last = &p->pt[i];
        printf("Not measured at N = 100,000 (largest measured N: %s); the targets are evaluated there only "
               "as an indication.\n\n",
               last ? fmt_int(last->n) : "none");
        pt = last;
        if (!pt) return;
    }
    double ping50 = pt->w[W_PING_PROVIDER].st.p50;
    printf("| target | measured at N = %s | met |\n| --- | --- | --- |\n", fmt_int(pt->n));
    double r1 = pt->tenth[9].p50 / pt->tenth[0].p50;
    printf("| CreateItem p50, last tenth ≤ 1.3 × first tenth | %s ÷ %s = %s× | %s |\n", us_fmt(pt->tenth[9].p50),
           us_fmt(pt->tenth[0].p50), num(r1, 2), r1 <= 1.3 ? "yes" : "**no**");
    double fill_budget = 30.0 * (double)pt->n / 100000.0;
    printf("| fill 0 → 100,000 ≤ 30 s%s | %s | %s |\n",
           pt->n == 100000 ? "" : " (budget scaled linearly to this N)", secs_fmt(pt->fill_s),
           pt->fill_s <= fill_budget ? "yes" : "**no**");
    double r2 = pt->w[W_SEARCH1].st.p50 / ping50;
    printf("| SearchItems (1 hit) p50 ≤ 1.5 × Ping p50 | %s ÷ %s = %s× | %s |\n", us_fmt(pt->w[W_SEARCH1].st.p50),
           us_fmt(ping50), num(r2, 2), r2 <= 1.5 ? "yes" : "**no**");
    double r3 = pt->w[W_GETSECRET].st.p50 / ping50;
    printf("| GetSecret p50 ≤ 1.2 × Ping p50 | %s ÷ %s = %s× | %s |\n", us_fmt(pt->w[W_GETSECRET].st.p50),
           us_fmt(ping50), num(r3, 2), r3 <= 1.2 ? "yes" : "**no**");
    printf("| fewer than 1,000 memory maps | %s | %s |\n", fmt_int(pt->maps), pt->maps < 1000 ? "yes" : "**no**");
    printf("| RSS ≤ 128 MiB | %s MiB | %s |\n", num(pt->rss_kib / 1024.0, 1),
           pt->rss_kib <= 128 * 1024 ? "yes" : "**no**");
}

// ---------------------------------------------------------------------------------------------
// --wait-name helper

static int wait_name(const char *address, long long since_us, pid_t pid, double timeout_s) {
    DBusConnection *c = connect_bus(address);
    DBusError err;
    dbus_error_init(&err);
    char rule[256];
    snprintf(rule, sizeof rule,
             "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
             "arg0='%s'",
             bus_name);
    dbus_bus_add_match(c, rule, &err);
    if (dbus_error_is_set(&err)) die("AddMatch: %s", err.message);
    double t0 = now_s();
    bool owned = name_has_owner(c, bus_name);
    while (!owned) {
        if (now_s() - t0 > timeout_s) {
            fprintf(stderr, "puff-bench: %s was not owned within %.0f s\n", bus_name, timeout_s);
            return 1;
        }
        if (pid > 0 && kill(pid, 0) != 0) {
            fprintf(stderr, "puff-bench: the provider (pid %d) exited before owning %s\n", (int)pid, bus_name);
            return 1;
        }
        if (pid > 0) {  // a zombie child of the caller counts as gone too
            char path[64], st = 0;
            snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
            FILE *f = fopen(path, "r");
            if (f) {
                char buf[512];
                size_t n = fread(buf, 1, sizeof buf - 1, f);
                buf[n] = 0;
                fclose(f);
                char *q = strrchr(buf, ')');
                if (q && q[1]) st = q[2];
            }
            if (st == 'Z') {
                fprintf(stderr, "puff-bench: the provider (pid %d) exited before owning %s\n", (int)pid, bus_name);
                return 1;
            }
        }
        dbus_connection_read_write(c, 50);  // wakes up on NameOwnerChanged; 50 ms to re-check the pid
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c))) {
            const char *name, *old, *new_owner;
            if (dbus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged") &&
                dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old, DBUS_TYPE_STRING,
                                      &new_owner, DBUS_TYPE_INVALID) &&
                !strcmp(name, bus_name) && new_owner[0])
                owned = true;
            dbus_message_unref(m);
        }
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long now_us = (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
    if (since_us > 0) printf("%.2f\n", (double)(now_us - since_us) / 1000.0);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// --reopen: one round on a vault an earlier run filled, after run.sh restarted the provider

// The control interface has a bus name of its own (issue 24 item 2), not the Secret Service's.
#define CONTROL_NAME "io.puff.Control"
#define CONTROL_PATH "/io/puff/Control"
#define IFACE_CONTROL "io.puff.Control1"

// io.puff.Control1.Unlock(collection, h passcode): the passcode goes through a pipe, as puffctl
// sends it. Returns the call's latency in µs, or -1 (the error on stderr, never the passcode).
static double control_unlock(Provider *p, const char *collection, const char *passcode) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) die("pipe: %s", strerror(errno));
    size_t len = strlen(passcode), done = 0;
    while (done < len) {  // a passcode is far below the pipe's capacity
        ssize_t w = write(fds[1], passcode + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("cannot write the passcode pipe: %s", strerror(errno));
        done += (size_t)w;
    }
    close(fds[1]);
    DBusMessage *m = new_call(CONTROL_NAME, CONTROL_PATH, IFACE_CONTROL, "Unlock");
    int rfd = fds[0];
    dbus_message_append_args(m, DBUS_TYPE_STRING, &collection, DBUS_TYPE_UNIX_FD, &rfd, DBUS_TYPE_INVALID);
    close(rfd);  // libdbus holds its own duplicate
    DBusError err;
    dbus_error_init(&err);
    double t0 = now_s();
    DBusMessage *r = call_msg(p, m, &err);
    double us = (now_s() - t0) * 1e6;
    if (!r) {
        fprintf(stderr, "%s: Control1.Unlock(%s): %s: %s\n", p->name, collection, err.name, err.message);
        dbus_error_free(&err);
        return -1;
    }
    dbus_message_unref(r);
    return us;
}

// io.puff.Control1.Lock([collection]); true when it worked.
static bool control_lock(Provider *p, const char *collection) {
    DBusMessage *m = new_call(CONTROL_NAME, CONTROL_PATH, IFACE_CONTROL, "Lock");
    DBusMessageIter it, arr;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &arr);
    dbus_message_iter_append_basic(&arr, DBUS_TYPE_STRING, &collection);
    dbus_message_iter_close_container(&it, &arr);
    DBusError err;
    dbus_error_init(&err);
    DBusMessage *r = call_msg(p, m, &err);
    if (!r) {
        fprintf(stderr, "%s: Control1.Lock(%s): %s: %s\n", p->name, collection, err.name, err.message);
        dbus_error_free(&err);
        return false;
    }
    dbus_message_unref(r);
    return true;
}

static void tsv_reopen(const char *prov_name, long n, const char *stat, double v) {
    tsv_row(prov_name, n, "reopen", stat, v, false);
}

static double realtime_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

// One round: the provider was just started on a vault holding `items` bench items of run_id, all
// locked. Measures the first answered call, the locked workloads and memory, the unlock of
// `probe` (an empty collection under the same KDF parameters: the KDF alone) and of
// `collection`, then the unlocked workloads and memory. The passcode is read from stdin.
static int reopen_round(long items, int round, const char *probe, const char *collection, long long since_us,
                        double startup_ms) {
    Provider *p = &prov[0];
    char passcode[1025];
    if (!fgets(passcode, sizeof passcode, stdin)) die("--reopen reads the passcode from stdin; got nothing");
    passcode[strcspn(passcode, "\n")] = 0;
    p->conn = connect_bus(p->address);
    p->nitems = items;
    p->cap = items;
    p->paths = calloc((size_t)items, sizeof(char *));
    if (!p->paths) die("out of memory");

    // The first Secret Service call, timed from the exec of the provider (run.sh's timestamp):
    // with a provider that owns its name before its vault is read, this is when it really answers.
    char user[32], first[256];
    long k0 = rng_below(items);
    snprintf(user, sizeof user, "u%ld", k0);
    const char *kv0[] = {"service", "bench", "run", run_id, "user", user};
    int nu = 0, nl = 0;
    double first_us = search_items(p, kv0, 3, &nu, &nl, first, sizeof first);
    double first_call_ms = since_us > 0 ? (realtime_us() - (double)since_us) / 1000.0 : NAN;
    check(first_us >= 0 && nu == 0 && nl == 1, "%s round %d: after a restart, SearchItems finds item %ld locked",
          p->name, round, k0);
    p->pid = provider_pid(p);
    check(p->pid > 0, "%s round %d: the provider's pid is known", p->name, round);
    if (p->pid <= 0) return 1;
    ProcSnap locked0 = snap_full(p->pid, NULL);

    Point locked_pt, unlocked_pt;
    memset(&locked_pt, 0, sizeof locked_pt);
    memset(&unlocked_pt, 0, sizeof unlocked_pt);
    locked_pt.n = unlocked_pt.n = items;
    opt_expect_locked = true;
    run_workload(p, &locked_pt, W_PING_PROVIDER);
    run_workload(p, &locked_pt, W_PING_BUS);
    run_workload(p, &locked_pt, W_SEARCH1);
    ProcSnap locked1 = snap_full(p->pid, NULL);
    // Every item is back after the restart (found through the blind index, locked).
    const char *kv_all[] = {"service", "bench", "run", run_id};
    double all_us = search_items(p, kv_all, 2, &nu, &nl, NULL, 0);
    check(all_us >= 0 && nu == 0 && nl == items, "%s round %d: all %ld items are there after the restart, locked "
          "(%d unlocked, %d locked)", p->name, round, items, nu, nl);

    // The KDF alone, before and after the real unlock (the empty collection is locked again in
    // between), so that neither the first nor the second Argon2id run of the process is favoured.
    double probe1_us = control_unlock(p, probe, passcode);
    check(probe1_us >= 0, "%s round %d: Control1.Unlock of the empty collection %s works", p->name, round, probe);
    double unlock_us = control_unlock(p, collection, passcode);
    check(unlock_us >= 0, "%s round %d: Control1.Unlock of %s works", p->name, round, collection);
    ProcSnap unlocked0 = snap_full(p->pid, NULL);
    bool relocked = control_lock(p, probe);
    check(relocked, "%s round %d: Control1.Lock of %s works", p->name, round, probe);
    double probe2_us = relocked ? control_unlock(p, probe, passcode) : -1;
    check(probe2_us >= 0, "%s round %d: %s unlocks again", p->name, round, probe);
    memset(passcode, 0, sizeof passcode);
    if (probe1_us < 0) probe1_us = NAN;
    if (probe2_us < 0) probe2_us = NAN;
    if (unlock_us < 0) unlock_us = NAN;
    double probe_us = (probe1_us + probe2_us) / 2;

    opt_expect_locked = false;
    bool sess = open_session(p);
    check(sess, "%s round %d: OpenSession(\"plain\") works", p->name, round);
    run_workload(p, &unlocked_pt, W_PING_PROVIDER);
    run_workload(p, &unlocked_pt, W_SEARCH1);
    if (sess) run_workload(p, &unlocked_pt, W_GETSECRET);
    ProcSnap unlocked1 = snap_full(p->pid, NULL);
    if (provider_alive(p)) check(true, "%s round %d: the provider is still up", p->name, round);

    double lping = locked_pt.w[W_PING_PROVIDER].st.p50, uping = unlocked_pt.w[W_PING_PROVIDER].st.p50;
    if (round == 1)
        printf("\n### %s restarted on its %s-item vault (locked), then unlocked\n\n"
               "| round | start-up ms | first call ms | RSS locked | SearchItems 1 hit, locked (÷ ping) | "
               "SearchItems of all, locked, ms | unlock, empty collection (KDF), ms, before / after | unlock, %s, ms | "
               "RSS at unlock | "
               "SearchItems 1 hit, unlocked (÷ ping) | GetSecret (÷ ping) | RSS unlocked |\n"
               "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
               p->name, fmt_int(items), collection);
    double ls1 = locked_pt.w[W_SEARCH1].st.p50, us1 = unlocked_pt.w[W_SEARCH1].st.p50;
    double gs = unlocked_pt.w[W_GETSECRET].st.p50;
    printf("| %d | %s | %s | %s MiB | %s µs (%s×) | %s | %s / %s | %s | %s MiB | %s µs (%s×) | %s µs (%s×) | %s MiB |\n",
           round, num(startup_ms, 1), num(first_call_ms, 1), num(locked1.rss_kib / 1024.0, 1), num(ls1, 0),
           num(ls1 / lping, 2), num(all_us / 1000.0, 1), num(probe1_us / 1000.0, 0), num(probe2_us / 1000.0, 0),
           num(unlock_us / 1000.0, 1),
           num(unlocked0.rss_kib / 1024.0, 1), num(us1, 0), num(us1 / uping, 2), num(gs, 0), num(gs / uping, 2),
           num(unlocked1.rss_kib / 1024.0, 1));
    fflush(stdout);
    const char *pn = p->name;
    if (!isnan(startup_ms)) tsv_reopen(pn, items, "startup_ms", startup_ms);
    tsv_reopen(pn, items, "first_call_ms", first_call_ms);
    tsv_reopen(pn, items, "rss_locked_start_kib", (double)locked0.rss_kib);
    tsv_reopen(pn, items, "rss_locked_kib", (double)locked1.rss_kib);
    tsv_reopen(pn, items, "maps_locked", (double)locked1.maps);
    tsv_reopen(pn, items, "ping_locked_p50_us", lping);
    tsv_reopen(pn, items, "search1_locked_p50_us", ls1);
    tsv_reopen(pn, items, "search1_locked_over_ping", ls1 / lping);
    tsv_reopen(pn, items, "search1_locked_cpu_us", locked_pt.w[W_SEARCH1].op.cpu_sched_us);
    tsv_reopen(pn, items, "search_all_locked_ms", all_us / 1000.0);
    tsv_reopen(pn, items, "unlock_kdf_only_ms", probe_us / 1000.0);
    tsv_reopen(pn, items, "unlock_kdf_only_first_ms", probe1_us / 1000.0);
    tsv_reopen(pn, items, "unlock_kdf_only_second_ms", probe2_us / 1000.0);
    tsv_reopen(pn, items, "unlock_ms", unlock_us / 1000.0);
    tsv_reopen(pn, items, "unlock_beyond_kdf_ms", (unlock_us - probe_us) / 1000.0);
    tsv_reopen(pn, items, "rss_unlocked_kib", (double)unlocked1.rss_kib);
    tsv_reopen(pn, items, "rss_unlocked_at_unlock_kib", (double)unlocked0.rss_kib);
    tsv_reopen(pn, items, "maps_unlocked", (double)unlocked1.maps);
    tsv_reopen(pn, items, "ping_unlocked_p50_us", uping);
    tsv_reopen(pn, items, "search1_unlocked_p50_us", us1);
    tsv_reopen(pn, items, "search1_unlocked_over_ping", us1 / uping);
    tsv_reopen(pn, items, "getsecret_p50_us", gs);
    tsv_reopen(pn, items, "getsecret_over_ping", gs / uping);
    dbus_connection_close(p->conn);
    dbus_connection_unref(p->conn);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// --file-targets: the encrypted-vault issue's targets for the file store, from a run's TSV

typedef struct {
    char provider[64], metric[48], stat[48], source[16];
    long n;
    double value;
} TsvRow;

static TsvRow *rows;
static size_t nrows;

static void read_tsv(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot read %s: %s", path, strerror(errno));
    char line[512];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        TsvRow r;
        if (sscanf(line, "%63[^\t]\t%ld\t%47[^\t]\t%47[^\t]\t%lf\t%15s", r.provider, &r.n, r.metric, r.stat, &r.value,
                   r.source) != 6)
            continue;  // the header, or a line of another shape
        if (nrows == cap) {
            cap = cap ? cap * 2 : 1024;
            rows = xrealloc(rows, cap * sizeof *rows);
        }
        rows[nrows++] = r;
    }
    fclose(f);
}

// The median of every measured row matching provider/metric/stat (and n, unless n < 0); NAN if none.
// *lo and *hi, when given, get the smallest and largest.
static double row_median(const char *pn, long n, const char *metric, const char *stat, double *lo, double *hi,
                         int *count) {
    Samples v = {0};
    for (size_t i = 0; i < nrows; i++)
        if (!strcmp(rows[i].provider, pn) && (n < 0 || rows[i].n == n) && !strcmp(rows[i].metric, metric) &&
            !strcmp(rows[i].stat, stat) && !strcmp(rows[i].source, "measured") && !isnan(rows[i].value))
            samples_add(&v, rows[i].value);
    if (count) *count = (int)v.n;
    if (v.n == 0) {
        if (lo) *lo = NAN;
        if (hi) *hi = NAN;
        return NAN;
    }
    qsort(v.v, v.n, sizeof(double), cmp_double);
    double med = v.n % 2 ? v.v[v.n / 2] : (v.v[v.n / 2 - 1] + v.v[v.n / 2]) / 2;
    if (lo) *lo = v.v[0];
    if (hi) *hi = v.v[v.n - 1];
    free(v.v);
    return med;
}

static double row1(const char *pn, long n, const char *metric, const char *stat) {
    return row_median(pn, n, metric, stat, NULL, NULL, NULL);
}

static const char *met(bool measured, bool ok) { return !measured ? "not measured" : ok ? "yes" : "**no**"; }

static const char *range_fmt(double med, double lo, double hi, int count, int prec, const char *unit) {
    static char bufs[8][96];
    static int which;
    char *b = bufs[which++ % 8];
    if (isnan(med)) return "–";
    if (count > 1)
        snprintf(b, 96, "%s %s (median of %d; %s–%s)", num(med, prec), unit, count, num(lo, prec), num(hi, prec));
    else
        snprintf(b, 96, "%s %s", num(med, prec), unit);
    return b;
}

static int file_targets(const char *tsv_path, const char *pn) {
    read_tsv(tsv_path);
    long nmax = -1;
    for (size_t i = 0; i < nrows; i++)
        if (!strcmp(rows[i].provider, pn) && !strcmp(rows[i].metric, "fill") && !strcmp(rows[i].source, "measured") &&
            rows[i].n > nmax)
            nmax = rows[i].n;
    if (nmax < 0) die("%s: no measured fill of provider %s", tsv_path, pn);
    long reopen_n = -1;
    for (size_t i = 0; i < nrows; i++)
        if (!strcmp(rows[i].provider, pn) && !strcmp(rows[i].metric, "reopen")) reopen_n = rows[i].n;
    const char *at = nmax == 100000 ? "" : " (**not at 100,000**: the run's largest N)";
    printf("\n### File store: targets of the encrypted-vault issue (%s, N = %s%s)\n\n", pn, fmt_int(nmax), at);
    printf("| target | measured | met |\n| --- | --- | --- |\n");

    double fill10k = row1(pn, 10000, "fill", "total_s");
    printf("| fill 0 → 10,000 by single CreateItem, each durable before its reply, ≤ 5 s | %s | %s |\n",
           isnan(fill10k) ? "– (N < 10,000)" : secs_fmt(fill10k), met(!isnan(fill10k), fill10k <= 5.0));

    double g1 = row1(pn, nmax, "create_tenth01", "file_growth_per_op");
    double g10 = row1(pn, nmax, "create_tenth10", "file_growth_per_op");
    double wb1 = row1(pn, nmax, "create_tenth01", "write_bytes_per_op");
    double wb10 = row1(pn, nmax, "create_tenth10", "write_bytes_per_op");
    printf("| bytes written per CreateItem ≤ 1 KiB at N (journal growth, last tenth of the fill) | %s B | %s |\n",
           num(g10, 0), met(!isnan(g10), g10 <= 1024));
    printf("| … flat in N (last tenth ÷ first tenth of the journal growth ≤ 1.3) | %s ÷ %s B = %s× | %s |\n",
           num(g10, 0), num(g1, 0), num(g10 / g1, 2), met(!isnan(g10 / g1), g10 / g1 <= 1.3));
    printf("| (for reference: `write_bytes`, which counts a whole 4 KiB page per `fdatasync`ed append) | "
           "%s B (last tenth), %s B (first tenth) | – |\n", num(wb10, 0), num(wb1, 0));

    double lo, hi;
    int cnt;
    double kdf = row_median(pn, reopen_n, "reopen", "unlock_kdf_only_ms", &lo, &hi, &cnt);
    double kdf_lo = lo, kdf_hi = hi;
    int kdf_cnt = cnt;
    double beyond = row_median(pn, reopen_n, "reopen", "unlock_beyond_kdf_ms", &lo, &hi, &cnt);
    double unl = row1(pn, reopen_n, "reopen", "unlock_ms");
    printf("| unlock of a %s-item collection ≤ 200 ms beyond its KDF (Control1.Unlock after a restart, minus the "
           "unlock of an empty collection with the same KDF) | %s (whole unlock %s ms) | %s |\n",
           fmt_int(reopen_n), range_fmt(beyond, lo, hi, cnt, 0, "ms"), num(unl, 0), met(!isnan(beyond), beyond <= 200));
    double st = row_median(pn, reopen_n, "reopen", "startup_ms", &lo, &hi, &cnt);
    printf("| start-up to bus name with a %s-item vault ≤ 100 ms | %s | %s |\n", fmt_int(reopen_n),
           range_fmt(st, lo, hi, cnt, 1, "ms"), met(!isnan(st), st <= 100));
    double fc = row_median(pn, reopen_n, "reopen", "first_call_ms", &lo, &hi, &cnt);
    printf("| (for reference: from the exec to the first answered SearchItems) | %s | – |\n",
           range_fmt(fc, lo, hi, cnt, 1, "ms"));
    double rl = row_median(pn, reopen_n, "reopen", "rss_locked_kib", &lo, &hi, &cnt) / 1024.0;
    printf("| RSS ≤ 64 MiB, locked (after a restart, before any unlock) | %s | %s |\n",
           range_fmt(rl, lo / 1024.0, hi / 1024.0, cnt, 1, "MiB"), met(!isnan(rl), rl <= 64));
    double ru = row_median(pn, reopen_n, "reopen", "rss_unlocked_kib", &lo, &hi, &cnt) / 1024.0;
    printf("| RSS ≤ 64 MiB, unlocked (after a restart and the unlock) | %s | %s |\n",
           range_fmt(ru, lo / 1024.0, hi / 1024.0, cnt, 1, "MiB"), met(!isnan(ru), ru <= 64));
    double rf = row1(pn, nmax, "memory", "rss_kib") / 1024.0;
    printf("| RSS ≤ 64 MiB, unlocked (right after the fill, without a restart) | %s MiB | %s |\n", num(rf, 1),
           met(!isnan(rf), rf <= 64));
    double sl = row_median(pn, reopen_n, "reopen", "search1_locked_over_ping", &lo, &hi, &cnt);
    printf("| SearchItems (1 hit), locked, p50 ≤ 1.5 × Ping p50 | %s | %s |\n", range_fmt(sl, lo, hi, cnt, 2, "×"),
           met(!isnan(sl), sl <= 1.5));
    double su = row1(pn, nmax, "search1", "p50_over_ping");
    printf("| SearchItems (1 hit), unlocked, p50 ≤ 1.5 × Ping p50 (after the fill) | %s× | %s |\n", num(su, 2),
           met(!isnan(su), su <= 1.5));
    double su2 = row_median(pn, reopen_n, "reopen", "search1_unlocked_over_ping", &lo, &hi, &cnt);
    printf("| SearchItems (1 hit), unlocked, p50 ≤ 1.5 × Ping p50 (after a restart and the unlock) | %s | %s |\n",
           range_fmt(su2, lo, hi, cnt, 2, "×"), met(!isnan(su2), su2 <= 1.5));
    double gs = row1(pn, nmax, "getsecret", "p50_over_ping");
    printf("| GetSecret p50 ≤ 1.2 × Ping p50 (after the fill) | %s× | %s |\n", num(gs, 2), met(!isnan(gs), gs <= 1.2));
    double gs2 = row_median(pn, reopen_n, "reopen", "getsecret_over_ping", &lo, &hi, &cnt);
    printf("| GetSecret p50 ≤ 1.2 × Ping p50 (after a restart and the unlock) | %s | %s |\n",
           range_fmt(gs2, lo, hi, cnt, 2, "×"), met(!isnan(gs2), gs2 <= 1.2));
    printf("| one unlock with the default KDF (Argon2id; the empty collection's Control1.Unlock) in 0.3–1 s | %s | "
           "%s |\n", range_fmt(kdf, kdf_lo, kdf_hi, kdf_cnt, 0, "ms"),
           met(!isnan(kdf), kdf >= 300 && kdf <= 1000));
    return 0;
}

// ---------------------------------------------------------------------------------------------
// --during: another client's GetSecret while a command (puffctl import) runs

static volatile sig_atomic_t child_done;
static struct timespec child_exit_ts;

static void on_sigchld(int sig) {
    (void)sig;
    clock_gettime(CLOCK_MONOTONIC, &child_exit_ts);  // async-signal-safe
    child_done = 1;
}

typedef struct {
    Samples lat;        // µs, send -> reply: what each call took
    Samples scheduled;  // µs, its slot in the schedule -> reply: what a reader arriving then waited
    long errors, inexact;
} Paced;

// Item.GetSecret of our own item on a fixed schedule, one slot every interval_us, until `until_s`
// or, with until_s = NAN, until the child has exited (a call sent before the exit counts). A call
// that overruns is followed at once by the next, whose wait is counted from its slot (as wrk2
// does), so a stall of the provider shows in the percentiles as long as it lasted, not as one
// slow call.
static void paced_getsecret(Provider *p, double until_s, long interval_us, Paced *out) {
    double next = now_s();
    for (;;) {
        if (isnan(until_s) ? child_done : now_s() >= until_s) break;
        double t = now_s();
        if (next > t) {
            struct timespec ts = {(time_t)next, (long)((next - floor(next)) * 1e9)};
            if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) continue;
        }
        if (isnan(until_s) ? child_done : now_s() >= until_s) break;
        bool exact = false;
        double us = get_secret(p, 0, &exact);
        if (us < 0) {
            out->errors++;
        } else {
            samples_add(&out->lat, us);
            samples_add(&out->scheduled, (now_s() - next) * 1e6);
            if (!exact) out->inexact++;
        }
        next += (double)interval_us / 1e6;
    }
}

static double max_of(const Samples *s) {
    double max = 0;
    for (size_t i = 0; i < s->n; i++) max = s->v[i] > max ? s->v[i] : max;
    return max;
}

static void print_paced(const char *what, Paced *pc) {
    Stats st = stats_of(pc->lat.v, 0, pc->lat.n), sc = stats_of(pc->scheduled.v, 0, pc->scheduled.n);
    printf("%s_calls %zu\n%s_errors %ld\n", what, pc->lat.n, what, pc->errors + pc->inexact);
    printf("%s_p50_us %.1f\n%s_p99_us %.1f\n%s_max_us %.1f\n", what, st.p50, what, st.p99, what, max_of(&pc->lat));
    printf("%s_sched_p50_us %.1f\n%s_sched_p99_us %.1f\n%s_sched_max_us %.1f\n", what, sc.p50, what, sc.p99, what,
           max_of(&pc->scheduled));
}

// Creates an item, measures GetSecret of it for baseline_ms alone, then runs `cmd` (stdout and
// stderr to cmd_out, the other descriptors inherited: run.sh passes the source's password on
// one) and measures GetSecret while it runs. With expect > 0, checks afterwards that items
// 0 .. expect-1 of PuffBenchKeyring's file were imported: all found by SearchItems, unlocked,
// and a sample of them with the exact secret. Prints key-value lines; the checks go to stderr.
static int during_command(long expect, long interval_us, long baseline_ms, const char *cmd_out, char **cmd) {
    Provider *p = &prov[0];
    p->conn = connect_bus(p->address);
    p->pid = provider_pid(p);
    check(p->pid > 0, "%s: GetConnectionUnixProcessID gives the provider's pid", p->name);
    bool sess = open_session(p);
    check(sess, "%s: OpenSession(\"plain\") works", p->name);
    bool unlocked = sess && ensure_unlocked(p);
    check(unlocked, "%s: the default collection is unlocked", p->name);
    p->paths = calloc(1, sizeof(char *));
    if (!p->paths) die("out of memory");
    bool created = unlocked && create_item(p, 0) >= 0;
    check(created, "%s: the reading client's item is created", p->name);
    if (!created) goto done;

    Paced base = {0}, during = {0};
    paced_getsecret(p, now_s() + (double)baseline_ms / 1e3, interval_us, &base);

    struct sigaction sa = {0};
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, cmd_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t child;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = posix_spawnp(&child, cmd[0], &fa, NULL, cmd, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) die("cannot run %s: %s", cmd[0], strerror(rc));
    paced_getsecret(p, NAN, interval_us, &during);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    double command_ms = (double)(child_exit_ts.tv_sec - t0.tv_sec) * 1e3 + (double)(child_exit_ts.tv_nsec - t0.tv_nsec) / 1e6;
    bool command_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    check(command_ok, "%s: the command (%s) exits 0 (see %s)", p->name, cmd[0], cmd_out);
    printf("command_ms %.1f\n", command_ms);
    print_paced("baseline", &base);
    print_paced("during", &during);
    check(base.errors == 0 && base.inexact == 0 && base.lat.n > 0,
          "%s: every GetSecret before the command succeeds with the stored bytes (%ld errors, %ld inexact of %zu)",
          p->name, base.errors, base.inexact, base.lat.n + (size_t)base.errors);
    check(during.errors == 0 && during.inexact == 0 && during.lat.n > 0,
          "%s: every GetSecret during the command succeeds with the stored bytes (%ld errors, %ld inexact of %zu)",
          p->name, during.errors, during.inexact, during.lat.n + (size_t)during.errors);

    if (expect > 0 && command_ok) {
        const char *kv[] = {"service", "bench-import", "run", run_id};
        int nu = 0, nl = 0;
        double us = search_items(p, kv, 2, &nu, &nl, NULL, 0);
        check(us >= 0 && nu == expect && nl == 0, "%s: SearchItems finds all %ld imported items unlocked (%d, %d locked)",
              p->name, expect, nu, nl);
        long sample = expect < 20 ? expect : 20, exact_count = 0;
        for (long j = 0; j < sample; j++) {
            long k = j == 0 ? 0 : j == 1 ? expect - 1 : rng_below(expect);
            char user[32], path[512] = "";
            snprintf(user, sizeof user, "i%ld", k);
            const char *one[] = {"service", "bench-import", "run", run_id, "user", user};
            bool exact = false;
            if (search_items(p, one, 3, &nu, &nl, path, sizeof path) >= 0 && nu == 1)
                get_secret_at(p, path, k, &exact);
            exact_count += exact;
        }
        check(exact_count == sample, "%s: GetSecret of %ld imported items returns their exact bytes (%ld did)",
              p->name, sample, exact_count);
    }
    free(base.lat.v);
    free(base.scheduled.v);
    free(during.lat.v);
    free(during.scheduled.v);
done:
    dbus_connection_close(p->conn);
    dbus_connection_unref(p->conn);
    fprintf(stderr, "[puff-bench] checks: %ld passed, %ld failed\n", checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// --writers W --durable N: W clients writing at once (design core-reshaped §6)

#define WRITERS_SERVICE "bench-writers"

typedef struct {
    Provider *p;        // its own connection and session
    long from, to;      // the item numbers it creates
    Samples lat;        // every reply's latency (µs)
    long errors;
    pthread_barrier_t *start;
} WriterJob;

static void *writer_main(void *arg) {
    WriterJob *job = arg;
    pthread_barrier_wait(job->start);
    for (long k = job->from; k < job->to; k++) {
        double us = create_item_as(job->p, k, WRITERS_SERVICE);
        if (us < 0) job->errors++;
        else samples_add(&job->lat, us);
        free(job->p->paths[k]);
        job->p->paths[k] = NULL;
    }
    return NULL;
}

// W connections, a thread each, N CreateItems in all into the default collection (each durable
// before its reply, as the provider makes every write); every reply is timed. The items carry
// service=bench-writers, so the fill's items (service=bench) are not among them. Prints one table
// row; with a TSV, appends the numbers.
static int writers_run(int nwriters, long total) {
    if (!dbus_threads_init_default()) die("libdbus has no thread support");
    Provider *base = &prov[0];
    base->conn = connect_bus(base->address);
    base->pid = provider_pid(base);
    check(base->pid > 0, "%s: the provider's pid is known", base->name);
    if (base->pid <= 0) return 1;
    bool unlocked = open_session(base) && ensure_unlocked(base);
    check(unlocked, "%s: the default collection is unlocked", base->name);
    if (!unlocked) return 1;

    WriterJob *jobs = calloc((size_t)nwriters, sizeof *jobs);
    pthread_t *threads = calloc((size_t)nwriters, sizeof *threads);
    if (!jobs || !threads) die("out of memory");
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)nwriters + 1);
    bool ready = true;
    for (int i = 0; i < nwriters; i++) {
        Provider *p = calloc(1, sizeof *p);
        if (!p) die("out of memory");
        memcpy(p->name, base->name, sizeof p->name);
        memcpy(p->address, base->address, sizeof p->address);
        p->conn = connect_bus(p->address);
        ready &= open_session(p);
        jobs[i] = (WriterJob){.p = p, .from = total * i / nwriters, .to = total * (i + 1) / nwriters, .start = &start};
        p->paths = calloc((size_t)jobs[i].to, sizeof(char *));
        if (!p->paths) die("out of memory");
    }
    check(ready, "%s: %d connections opened a session each", base->name, nwriters);
    if (!ready) return 1;
    for (int i = 0; i < nwriters; i++)
        if (pthread_create(&threads[i], NULL, writer_main, &jobs[i]) != 0) die("cannot start a writer thread");
    ProcSnap a = snap_cpu_io(base->pid, NULL);
    double t0 = now_s();
    pthread_barrier_wait(&start);
    for (int i = 0; i < nwriters; i++) pthread_join(threads[i], NULL);
    double wall = now_s() - t0;
    ProcSnap b = snap_cpu_io(base->pid, NULL);

    Samples all = {0};
    long errors = 0;
    for (int i = 0; i < nwriters; i++) {
        for (size_t j = 0; j < jobs[i].lat.n; j++) samples_add(&all, jobs[i].lat.v[j]);
        errors += jobs[i].errors;
    }
    Stats st = stats_of(all.v, 0, all.n);
    PerOp op = per_op(a, b, (long)all.n);
    check(errors == 0, "%s: every one of the %ld CreateItem calls of %d writers succeeded (%ld failed)", base->name,
          total, nwriters, errors);
    // Every acknowledged item is there: the writes were not just answered.
    const char *kv[] = {"service", WRITERS_SERVICE, "run", run_id};
    int nu = 0, nl = 0;
    double found_us = search_items(base, kv, 2, &nu, &nl, NULL, 0);
    check(found_us >= 0 && nu == (int)all.n, "%s: SearchItems finds the %zu items the writers created (%d found)",
          base->name, all.n, nu);
    double per_s = wall > 0 ? (double)all.n / wall : NAN;
    printf("\n### %s: %d writers at once, %s durable CreateItem calls\n\n"
           "| writers | calls | wall | calls/s | p50 | p99 | max | provider CPU per call (stat / schedstat) | "
           "load average |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
           base->name, nwriters, fmt_int(total));
    char load[64] = "?";
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fgets(load, sizeof load, lf)) {
            char *cut = load;
            for (int f = 0; f < 3 && cut; f++) cut = strchr(cut + 1, ' ');
            if (cut) *cut = 0;
        }
        fclose(lf);
    }
    double mx = 0;
    for (size_t j = 0; j < all.n; j++) mx = all.v[j] > mx ? all.v[j] : mx;
    printf("| %d | %s | %s | %s | %s | %s | %s | %s / %s µs | %s |\n", nwriters, fmt_int((long)all.n),
           secs_fmt(wall), num(per_s, 0), us_fmt(st.p50), us_fmt(st.p99), us_fmt(mx), num(op.cpu_us, 0),
           num(op.cpu_sched_us, 0), load);
    fflush(stdout);
    if (tsv) {
        tsv_row(base->name, total, "writers", "per_s", per_s, false);
        tsv_row(base->name, total, "writers", "p50_us", st.p50, false);
        tsv_row(base->name, total, "writers", "p99_us", st.p99, false);
        tsv_row(base->name, total, "writers", "cpu_us", op.cpu_us, false);
        tsv_row(base->name, total, "writers", "cpu_sched_us", op.cpu_sched_us, false);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// --fleet: a collection kept in OpenBao (issue 29), shared by two providers

#define FLEET_SERVICE "bench-fleet"
#define CONVERGE_SERVICE "bench-converge"
#define REFERENCE_SERVICE "bench-fleet-reference"
#define REFERENCE_ITEMS 200  // at most, in login: GetSecret of a file collection, for reference
#define FLEET_BLOCK 50  // calls per block of the interleaved Ping / GetSecret measurement

// The nearest-rank q-quantile (0 < q ≤ 1) of s; NAN when it holds nothing.
static double quantile(const Samples *s, double q) {
    if (s->n == 0) return NAN;
    double *c = xmalloc(s->n * sizeof(double));
    memcpy(c, s->v, s->n * sizeof(double));
    qsort(c, s->n, sizeof(double), cmp_double);
    size_t r = (size_t)ceil(q * (double)s->n);
    double v = c[(r ? r : 1) - 1];
    free(c);
    return v;
}

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

// SearchItems for fleet item k (attribute user=u<k>, service=`service`) on p; stores its path.
// True when exactly one unlocked item matches.
static bool fleet_find(Provider *p, long k, const char *service) {
    char user[32], first[256];
    snprintf(user, sizeof user, "u%ld", k);
    const char *kv[] = {"service", service, "run", run_id, "user", user};
    int nu = 0, nl = 0;
    if (search_items(p, kv, 3, &nu, &nl, first, sizeof first) < 0 || nu != 1 || nl != 0) return false;
    free(p->paths[k]);
    p->paths[k] = strdup(first);
    return p->paths[k] != NULL;
}

// How many of the run's items with attribute service=`service` p holds unlocked; -1 on an error.
static int fleet_count(Provider *p, const char *service) {
    const char *kv[] = {"service", service, "run", run_id};
    int nu = 0, nl = 0;
    return search_items(p, kv, 2, &nu, &nl, NULL, 0) < 0 ? -1 : nu;
}

typedef struct {
    Stats ping, get;
    long calls, errors, inexact;
    double ping_cpu_us, get_cpu_us;  // the provider's CPU per call (schedstat), NAN when unknown
} PingGet;

// The provider's CPU (µs, schedstat) between two snapshots; NAN when threads came or went.
static double sched_us(ProcSnap a, ProcSnap b) {
    return a.sched_ns >= 0 && b.sched_ns >= 0 && a.task_sig == b.task_sig ? (double)(b.sched_ns - a.sched_ns) / 1e3 : NAN;
}

// Peer.Ping and Item.GetSecret of random items (from .. from+items-1, whose paths p knows) in
// alternating blocks of FLEET_BLOCK calls, until each has opt_calls calls and opt_min_phase_ms
// has passed: both see the same background (the polls of OpenBao every poll_interval), and each
// GetSecret mostly follows another, as in the fill's workloads.
static PingGet ping_and_get(Provider *p, long from, long items) {
    PingGet r = {0};
    Samples ping_lat = {0}, get_lat = {0};
    double cpu[2] = {0, 0};  // summed over the blocks whose thread set stayed the same
    long cpu_calls[2] = {0, 0};
    double t0 = now_s();
    for (int round = 1;; round++) {
        bool enough = (long)ping_lat.n >= opt_calls && (long)get_lat.n >= opt_calls &&
                      now_s() - t0 >= (double)opt_min_phase_ms / 1000.0;
        if (enough || r.errors >= 20 || (round > 4 && get_lat.n == 0)) break;  // the last: no path known
        ProcSnap s0 = snap_cpu_io(p->pid, NULL);
        for (int i = 0; i < FLEET_BLOCK; i++) {
            double us = ping(p, false);
            r.calls++;
            if (us < 0) r.errors++;
            else samples_add(&ping_lat, us);
        }
        ProcSnap s1 = snap_cpu_io(p->pid, NULL);
        long gets = 0;
        for (int i = 0; i < FLEET_BLOCK; i++) {
            long k = from + rng_below(items);
            if (!p->paths[k]) continue;
            bool exact = false;
            double us = get_secret(p, k, &exact);
            r.calls++;
            gets++;
            if (us < 0) r.errors++;
            else samples_add(&get_lat, us);
            if (us >= 0 && !exact) r.inexact++;
        }
        ProcSnap s2 = snap_cpu_io(p->pid, NULL);
        double d[2] = {sched_us(s0, s1), sched_us(s1, s2)};
        long n[2] = {FLEET_BLOCK, gets};
        for (int j = 0; j < 2; j++)
            if (!isnan(d[j]) && n[j] > 0) {
                cpu[j] += d[j];
                cpu_calls[j] += n[j];
            }
    }
    r.ping_cpu_us = cpu_calls[0] ? cpu[0] / (double)cpu_calls[0] : NAN;
    r.get_cpu_us = cpu_calls[1] ? cpu[1] / (double)cpu_calls[1] : NAN;
    r.ping = stats_of(ping_lat.v, 0, ping_lat.n);
    r.get = stats_of(get_lat.v, 0, get_lat.n);
    free(ping_lat.v);
    free(get_lat.v);
    return r;
}

// After CreateItem of item k returned on a (at since, now_s clock), waits for b to serve it:
// woken by b's ItemCreated signals for the fleet collection (on `watch`, a connection of its own
// that the caller added the match to, as call_msg drops the signals on b's), and every
// 200 ms in case one is missed, it looks the item up with SearchItems. Returns the seconds from
// `since` to finding it, or -1 after timeout_s. *signal_s: from `since` to the first ItemCreated,
// waited for (up to timeout_s) also when a look found the item first; NAN if none came.
static double wait_converged(Provider *b, DBusConnection *watch, long k, double since, double timeout_s,
                             double *signal_s) {
    *signal_s = NAN;
    double found = -1, next_look = now_s();
    for (;;) {
        double now = now_s();
        if (now - since > timeout_s || (found >= 0 && !isnan(*signal_s))) return found;
        if (found < 0 && now >= next_look) {
            if (fleet_find(b, k, CONVERGE_SERVICE)) {
                found = now_s() - since;
                continue;
            }
            next_look = now_s() + 0.2;
        }
        double until = found < 0 ? next_look : since + timeout_s;
        int wait_ms = (int)ceil((until - now_s()) * 1000);
        dbus_connection_read_write(watch, wait_ms > 0 ? wait_ms : 0);
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(watch))) {
            if (dbus_message_is_signal(m, IFACE_COLLECTION, "ItemCreated")) {
                if (isnan(*signal_s)) *signal_s = now_s() - since;
                next_look = 0;  // look now
            }
            dbus_message_unref(m);
        }
    }
}

// Two providers sharing the fleet collection at `collection`: a (the writer) and b (another
// machine, its collection attached and unlocked). On a: `items` CreateItem calls into it (every
// reply timed: p50, p90, the fill's wall time), then Ping against GetSecret. On b: the time until
// it holds the whole fill, Ping against GetSecret of its copy, then `writes` CreateItem calls on a,
// each after a random pause of up to jitter_ms (so the writes fall anywhere in b's poll), each
// timed from a's reply until b serves the item. For reference, Ping against GetSecret of items in
// a's login, a collection of the file store alone. Prints the tables; the checks go to stderr.
static int fleet_run(const char *collection, long items, long writes, long jitter_ms, double timeout_s) {
    Provider *a = &prov[0], *b = &prov[1];
    for (int i = 0; i < 2; i++) {
        Provider *p = &prov[i];
        p->conn = connect_bus(p->address);
        p->pid = provider_pid(p);
        check(p->pid > 0, "%s: GetConnectionUnixProcessID gives the provider's pid", p->name);
        bool sess = open_session(p);
        check(sess, "%s: OpenSession(\"plain\") works", p->name);
        p->paths = calloc((size_t)(items + writes + REFERENCE_ITEMS), sizeof(char *));
        if (!p->paths) die("out of memory");
        if (p->pid <= 0 || !sess) return 1;
    }

    // The reference's items, in a's login (a collection of the file store alone).
    long ref_from = items + writes, ref_items = items < REFERENCE_ITEMS ? items : REFERENCE_ITEMS, ref_errors = 0;
    bool login = ensure_unlocked(a);
    check(login, "%s: login is unlocked", a->name);
    for (long k = ref_from; login && k < ref_from + ref_items; k++) ref_errors += create_item_as(a, k, REFERENCE_SERVICE) < 0;
    check(login && ref_errors == 0, "%s: every CreateItem into login succeeded (%ld of %ld failed)", a->name, ref_errors,
          ref_items);
    target_collection = collection;

    // The fill, on a.
    Samples lat = {0};
    long errors = 0;
    ProcSnap s0 = snap_cpu_io(a->pid, NULL);
    double t0 = now_s();
    for (long k = 0; k < items; k++) {
        double us = create_item_as(a, k, FLEET_SERVICE);
        if (us < 0) {
            a->create_errors++;
            if (++errors >= 20) break;
        } else {
            samples_add(&lat, us);
        }
    }
    double fill_s = now_s() - t0;
    PerOp fill_op = per_op(s0, snap_cpu_io(a->pid, NULL), (long)lat.n);
    double fill_end = now_s();
    check(errors == 0 && (long)lat.n == items, "%s: every CreateItem into the fleet collection succeeded (%ld of %ld failed)",
          a->name, errors, items);
    if (lat.n == 0) return 1;
    Stats create = stats_of(lat.v, 0, lat.n);
    double create_p90 = quantile(&lat, 0.90), create_max = max_of(&lat);
    double per_s = fill_s > 0 ? (double)lat.n / fill_s : NAN;

    // b holds the whole fill.
    int held = -1;
    while (now_s() - fill_end <= timeout_s) {
        held = fleet_count(b, FLEET_SERVICE);
        if (held >= (long)lat.n) break;
        sleep_us(50000);
    }
    double catch_up_s = held >= (long)lat.n ? now_s() - fill_end : NAN;
    check(!isnan(catch_up_s), "%s: SearchItems finds the fill's %zu items within %.0f s of its end (%d found)", b->name,
          lat.n, timeout_s, held);

    // Ping against GetSecret on a, then on b, whose item paths are looked up first (untimed).
    PingGet on_a = ping_and_get(a, 0, items);
    check(on_a.errors == 0 && on_a.inexact == 0 && on_a.get.n > 0,
          "%s: every Ping and GetSecret of the fleet collection succeeds with the stored bytes (%ld errors, %ld "
          "inexact of %ld)", a->name, on_a.errors, on_a.inexact, on_a.calls);
    PingGet ref = login ? ping_and_get(a, ref_from, ref_items) : (PingGet){0};  // the same on login, right after
    check(login && ref.errors == 0 && ref.inexact == 0 && ref.get.n > 0,
          "%s: every Ping and GetSecret of login succeeds with the stored bytes (%ld errors, %ld inexact of %ld)",
          a->name, ref.errors, ref.inexact, ref.calls);
    double ratio_ref = ref.get.p50 / ref.ping.p50;
    long pool = items < 500 ? items : 500, resolved = 0;
    for (long i = 0; i < pool; i++) {
        long k = i == 0 ? 0 : i == 1 ? items - 1 : rng_below(items);
        resolved += b->paths[k] != NULL || fleet_find(b, k, FLEET_SERVICE);
    }
    check(resolved == pool, "%s: SearchItems finds each of %ld fill items looked up by its attributes (%ld did)",
          b->name, pool, resolved);
    PingGet on_b = ping_and_get(b, 0, items);
    check(on_b.errors == 0 && on_b.inexact == 0 && on_b.get.n > 0,
          "%s: every Ping and GetSecret of its copy succeeds with the stored bytes (%ld errors, %ld inexact of %ld)",
          b->name, on_b.errors, on_b.inexact, on_b.calls);

    // Convergence: a write on a until b serves it.
    char rule[512];
    snprintf(rule, sizeof rule, "type='signal',interface='%s',member='ItemCreated',path='%s'", IFACE_COLLECTION,
             collection);
    DBusConnection *watch = connect_bus(b->address);
    DBusError err;
    dbus_error_init(&err);
    dbus_bus_add_match(watch, rule, &err);
    if (dbus_error_is_set(&err)) die("AddMatch on %s: %s", b->name, err.message);
    Samples seen = {0}, signalled = {0};
    long missed = 0, wrong = 0, unsignalled = 0;
    for (long j = 0; j < writes; j++) {
        long k = items + j;
        sleep_us(jitter_ms > 0 ? rng_below(jitter_ms * 1000) : 0);
        DBusMessage *x;
        dbus_connection_read_write(watch, 0);
        while ((x = dbus_connection_pop_message(watch))) dbus_message_unref(x);  // nothing earlier counts
        if (create_item_as(a, k, CONVERGE_SERVICE) < 0) {
            missed++;
            continue;
        }
        double since = now_s(), signal_s;
        double s = wait_converged(b, watch, k, since, timeout_s, &signal_s);
        if (s < 0) {
            missed++;
            continue;
        }
        samples_add(&seen, s);
        if (isnan(signal_s)) unsignalled++;
        else samples_add(&signalled, signal_s);
        bool exact = false;
        get_secret(b, k, &exact);
        wrong += !exact;
    }
    dbus_connection_close(watch);
    dbus_connection_unref(watch);
    check(missed == 0, "%s: each of %ld items written on %s is found there within %.0f s (%ld were not)", b->name,
          writes, a->name, timeout_s, missed);
    check(unsignalled == 0, "%s: an ItemCreated signal came for each of them (%ld without)", b->name, unsignalled);
    check(wrong == 0, "%s: GetSecret of each returns the bytes written on %s (%ld did not)", b->name, a->name, wrong);
    double seen_p50 = quantile(&seen, 0.5), seen_max = seen.n ? max_of(&seen) : NAN;
    double signal_p50 = quantile(&signalled, 0.5), signal_max = signalled.n ? max_of(&signalled) : NAN;


    bool judged = !opt_smoke;
    double ratio_a = on_a.get.p50 / on_a.ping.p50, ratio_b = on_b.get.p50 / on_b.ping.p50;
    printf("\n### openbao store: a fleet collection on `bao server -dev`, shared by two puffd%s\n\n",
           opt_smoke ? " (smoke: the targets are not judged)" : "");
    printf("| measure | %s (writes) | %s (another machine) | target | met |\n| --- | ---: | ---: | --- | --- |\n",
           a->name, b->name);
    printf("| CreateItem into the fleet collection, p50 / p90 / max (%s items) | %s / %s / %s | | – | – |\n",
           fmt_int((long)lat.n), us_fmt(create.p50), us_fmt(create_p90), us_fmt(create_max));
    printf("| fill of %s items by single CreateItem (each in OpenBao before its reply) | %s, %s items/s | "
           "all held %s after its end | – | – |\n",
           fmt_int((long)lat.n), secs_fmt(fill_s), num(per_s, 0), secs_fmt(catch_up_s));
    printf("| provider CPU per CreateItem (stat / schedstat) | %s / %s µs | | – | – |\n", num(fill_op.cpu_us, 0),
           num(fill_op.cpu_sched_us, 0));
    printf("| Peer.Ping p50 | %s | %s | – | – |\n", us_fmt(on_a.ping.p50), us_fmt(on_b.ping.p50));
    printf("| GetSecret p50 (local cache), ÷ Ping p50 | %s (%s×) | %s (%s×) | ≤ 1.3× | %s |\n", us_fmt(on_a.get.p50),
           ratio_fmt(ratio_a), us_fmt(on_b.get.p50), ratio_fmt(ratio_b),
           judged ? met(!isnan(ratio_a) && !isnan(ratio_b), ratio_a <= 1.3 && ratio_b <= 1.3) : "–");
    printf("| GetSecret p99 | %s | %s | – | – |\n", us_fmt(on_a.get.p99), us_fmt(on_b.get.p99));
    printf("| provider CPU per call (schedstat): Ping / GetSecret | %s / %s µs | %s / %s µs | – | – |\n",
           num(on_a.ping_cpu_us, 0), num(on_a.get_cpu_us, 0), num(on_b.ping_cpu_us, 0), num(on_b.get_cpu_us, 0));
    printf("| (for reference: GetSecret p50 of %s items in login, a file collection, ÷ Ping p50; CPU per call) | "
           "%s (%s×); %s / %s µs | | – | – |\n",
           fmt_int(ref_items), us_fmt(ref.get.p50), ratio_fmt(ratio_ref), num(ref.ping_cpu_us, 0),
           num(ref.get_cpu_us, 0));
    printf("| a write on %s served by %s (SearchItems finds it), p50 / max of %zu | | %s / %s | ≤ 2 s | %s |\n",
           a->name, b->name, seen.n, secs_fmt(seen_p50), secs_fmt(seen_max),
           judged ? met(seen.n > 0 && missed == 0, seen_max <= 2.0) : "–");
    printf("| … its ItemCreated signal on %s, p50 / max | | %s / %s | – | – |\n", b->name,
           secs_fmt(signal_p50), secs_fmt(signal_max));
    fflush(stdout);
    if (tsv) {
        tsv_row("openbao", items, "fleet_create", "p50_us", create.p50, false);
        tsv_row("openbao", items, "fleet_create", "p90_us", create_p90, false);
        tsv_row("openbao", items, "fleet_create", "max_us", create_max, false);
        tsv_row("openbao", items, "fleet_fill", "total_s", fill_s, false);
        tsv_row("openbao", items, "fleet_fill", "per_s", per_s, false);
        tsv_row("openbao", items, "fleet_fill", "held_by_b_s", catch_up_s, false);
        tsv_perop("openbao", items, "fleet_create", fill_op, false);
        const char *who[2] = {"a", "b"};
        PingGet *pg[2] = {&on_a, &on_b};
        for (int i = 0; i < 2; i++) {
            char m[32];
            snprintf(m, sizeof m, "fleet_ping_%s", who[i]);
            tsv_row("openbao", items, m, "p50_us", pg[i]->ping.p50, false);
            snprintf(m, sizeof m, "fleet_getsecret_%s", who[i]);
            tsv_row("openbao", items, m, "p50_us", pg[i]->get.p50, false);
            tsv_row("openbao", items, m, "p99_us", pg[i]->get.p99, false);
            tsv_row("openbao", items, m, "p50_over_ping", pg[i]->get.p50 / pg[i]->ping.p50, false);
            tsv_row("openbao", items, m, "cpu_sched_us_per_op", pg[i]->get_cpu_us, false);
            snprintf(m, sizeof m, "fleet_ping_%s", who[i]);
            tsv_row("openbao", items, m, "cpu_sched_us_per_op", pg[i]->ping_cpu_us, false);
        }
        tsv_row("openbao", ref_items, "fleet_reference_getsecret_a", "p50_us", ref.get.p50, false);
        tsv_row("openbao", ref_items, "fleet_reference_ping_a", "p50_us", ref.ping.p50, false);
        tsv_row("openbao", ref_items, "fleet_reference_getsecret_a", "p50_over_ping", ratio_ref, false);
        tsv_row("openbao", writes, "fleet_converge", "p50_s", seen_p50, false);
        tsv_row("openbao", writes, "fleet_converge", "max_s", seen_max, false);
        tsv_row("openbao", writes, "fleet_converge", "signal_p50_s", signal_p50, false);
        tsv_row("openbao", writes, "fleet_converge", "signal_max_s", signal_max, false);
    }
    free(lat.v);
    free(seen.v);
    free(signalled.v);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// main

static void usage(void) {
    fprintf(stderr,
            "usage: puff-bench [options] NAME=BUS_ADDRESS [NAME=BUS_ADDRESS ...]\n"
            "  --max N             fill each provider 0 -> N (default 100000); measure at 1,000 / 10,000 / 100,000 and N\n"
            "  --smoke             N = 200, short phases, checks; ends with 'N passed, M failed'\n"
            "  --cap NAME=N        fill NAME only to N items and extrapolate beyond (marked 'extrapolated')\n"
            "  --fill-budget-s S   stop a provider's fill after S s of filling (at a multiple of 100 items) and\n"
            "                      extrapolate the rest, like --cap (default: no budget)\n"
            "  --calls N           minimum calls per read workload (default 200)\n"
            "  --min-phase-ms MS   minimum duration of a read workload (default 500)\n"
            "  --lookup-runs N     secret-tool lookup runs per measurement point (default 20, 0 = none)\n"
            "  --watch-file NAME=PATH   record the size of the provider's storage file\n"
            "  --startup-ms NAME=MS[,MS...]   start-up times measured by the caller, for the report\n"
            "  --tsv FILE          machine-readable results (read by bench/plot.gp)\n"
            "  --bus-name NAME     provider bus name (default org.freedesktop.secrets)\n"
            "  --seed N            random seed for the read workloads\n"
            "  --run-id ID         the run's id (attribute run=ID; default: made up); --reopen needs the fill's\n"
            "  puff-bench --wait-name BUS_ADDRESS [--since-us T] [--pid P] [--timeout-s S]\n"
            "  puff-bench --reopen --run-id ID --items N [--round R] [--probe C] [--collection C] [--since-us T]\n"
            "             [--round-startup-ms MS] [--tsv-append FILE] [--smoke] NAME=BUS_ADDRESS   (passcode on stdin)\n"
            "      one round on a restarted provider whose vault holds the N items of run ID, all locked:\n"
            "      locked workloads, Control1.Unlock of C (default login) and of the empty collection P (the KDF\n"
            "      alone), unlocked workloads, memory\n"
            "  puff-bench --file-targets TSV [--provider NAME]   the file-store targets table from a run's TSV\n"
            "  puff-bench --during --run-id ID [--expect-imported N] [--interval-us US] [--baseline-ms MS]\n"
            "             [--command-out FILE] NAME=BUS_ADDRESS -- COMMAND [ARG...]\n"
            "      creates an item, calls GetSecret on it every US µs (default 2000) for MS ms (default 1000),\n"
            "      then runs COMMAND and goes on calling until it exits; prints the command's wall time and\n"
            "      GetSecret p50/p99/max before and during it; with N, checks that PuffBenchKeyring's items\n"
            "      0 .. N-1 of run ID were imported exactly\n"
            "  puff-bench --writers W --durable N --run-id ID [--tsv-append FILE] NAME=BUS_ADDRESS\n"
            "      W connections, a thread each, N CreateItem calls in all into the default collection (attribute\n"
            "      service=bench-writers), every reply timed: calls/s, p50, p99 and the provider's CPU per call\n"
            "  puff-bench --fleet --run-id ID --collection-path PATH --items N [--converge R] [--jitter-ms MS]\n"
            "             [--timeout-s S] [--calls N] [--min-phase-ms MS] [--tsv-append FILE] [--smoke] A=ADDRESS B=ADDRESS\n"
            "      a collection kept in OpenBao (issue 29) at PATH on both A and B: N CreateItem calls into it on A\n"
            "      (p50, p90, the fill's wall time), the time until B holds them, Ping against GetSecret on A and on\n"
            "      B, then R writes on A (default 20), each after a random pause of up to MS ms (default 1000),\n"
            "      timed from A's reply until B serves the item (S: how long to wait for B, default 60 s)\n");
    exit(2);
}

static Provider *find_provider(const char *name, size_t len) {
    for (int i = 0; i < nprov; i++)
        if (strlen(prov[i].name) == len && !strncmp(prov[i].name, name, len)) return &prov[i];
    return NULL;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int add_unique(long *arr, int n, long v) {
    for (int i = 0; i < n; i++)
        if (arr[i] == v) return n;
    arr[n] = v;
    return n + 1;
}

int main(int argc, char **argv) {
    clk_tck = sysconf(_SC_CLK_TCK);
    const char *tsv_path = NULL;
    const char *wait_address = NULL;
    long long since_us = 0;
    pid_t wait_pid = 0;
    double timeout_s = 60;
    // Deferred NAME=value options (providers must be known first).
    const char *caps[8], *watches[8], *startups[8];
    int ncaps = 0, nwatches = 0, nstartups = 0;
    uint64_t seed = 42;
    const char *opt_run_id = NULL, *probe = "kdf-probe", *collection = "login", *tsv_append = NULL;
    const char *targets_tsv = NULL, *targets_provider = "puff";
    long reopen_items = 0;
    bool during = false;
    long expect_imported = 0, interval_us = 2000, baseline_ms = 1000;
    const char *command_out = "/dev/null";
    char **command = NULL;
    int reopen_round_no = 1;
    double round_startup_ms = NAN;
    int writers = 0;
    long durable = 0;
    bool fleet = false;
    const char *collection_path = NULL;
    long converge = 20, jitter_ms = 1000;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG                                                                                                       \
    do {                                                                                                               \
        if (!v) usage();                                                                                               \
        i++;                                                                                                           \
    } while (0)
        if (!strcmp(a, "--max")) {
            NEED_ARG;
            opt_max = atol(v);
        } else if (!strcmp(a, "--smoke")) {
            opt_smoke = true;
        } else if (!strcmp(a, "--cap")) {
            NEED_ARG;
            if (ncaps < 8) caps[ncaps++] = v;
        } else if (!strcmp(a, "--fill-budget-s")) {
            NEED_ARG;
            opt_fill_budget_s = atof(v);
        } else if (!strcmp(a, "--calls")) {
            NEED_ARG;
            opt_calls = atol(v);
        } else if (!strcmp(a, "--min-phase-ms")) {
            NEED_ARG;
            opt_min_phase_ms = atol(v);
        } else if (!strcmp(a, "--lookup-runs")) {
            NEED_ARG;
            opt_lookup_runs = atol(v);
        } else if (!strcmp(a, "--watch-file")) {
            NEED_ARG;
            if (nwatches < 8) watches[nwatches++] = v;
        } else if (!strcmp(a, "--startup-ms")) {
            NEED_ARG;
            if (nstartups < 8) startups[nstartups++] = v;
        } else if (!strcmp(a, "--tsv")) {
            NEED_ARG;
            tsv_path = v;
        } else if (!strcmp(a, "--bus-name")) {
            NEED_ARG;
            bus_name = v;
        } else if (!strcmp(a, "--seed")) {
            NEED_ARG;
            seed = strtoull(v, NULL, 10);
        } else if (!strcmp(a, "--run-id")) {
            NEED_ARG;
            opt_run_id = v;
        } else if (!strcmp(a, "--during")) {
            during = true;
        } else if (!strcmp(a, "--expect-imported")) {
            NEED_ARG;
            expect_imported = atol(v);
        } else if (!strcmp(a, "--interval-us")) {
            NEED_ARG;
            interval_us = atol(v);
        } else if (!strcmp(a, "--baseline-ms")) {
            NEED_ARG;
            baseline_ms = atol(v);
        } else if (!strcmp(a, "--command-out")) {
            NEED_ARG;
            command_out = v;
        } else if (!strcmp(a, "--") && during) {
            command = argv + i + 1;
            break;
        } else if (!strcmp(a, "--writers")) {
            NEED_ARG;
            writers = atoi(v);
        } else if (!strcmp(a, "--durable")) {
            NEED_ARG;
            durable = atol(v);
        } else if (!strcmp(a, "--fleet")) {
            fleet = true;
        } else if (!strcmp(a, "--collection-path")) {
            NEED_ARG;
            collection_path = v;
        } else if (!strcmp(a, "--converge")) {
            NEED_ARG;
            converge = atol(v);
        } else if (!strcmp(a, "--jitter-ms")) {
            NEED_ARG;
            jitter_ms = atol(v);
        } else if (!strcmp(a, "--reopen")) {
            opt_reopen = true;
        } else if (!strcmp(a, "--items")) {
            NEED_ARG;
            reopen_items = atol(v);
        } else if (!strcmp(a, "--round")) {
            NEED_ARG;
            reopen_round_no = atoi(v);
        } else if (!strcmp(a, "--probe")) {
            NEED_ARG;
            probe = v;
        } else if (!strcmp(a, "--collection")) {
            NEED_ARG;
            collection = v;
        } else if (!strcmp(a, "--round-startup-ms")) {
            NEED_ARG;
            round_startup_ms = atof(v);
        } else if (!strcmp(a, "--tsv-append")) {
            NEED_ARG;
            tsv_append = v;
        } else if (!strcmp(a, "--file-targets")) {
            NEED_ARG;
            targets_tsv = v;
        } else if (!strcmp(a, "--provider")) {
            NEED_ARG;
            targets_provider = v;
        } else if (!strcmp(a, "--wait-name")) {
            NEED_ARG;
            wait_address = v;
        } else if (!strcmp(a, "--since-us")) {
            NEED_ARG;
            since_us = atoll(v);
        } else if (!strcmp(a, "--pid")) {
            NEED_ARG;
            wait_pid = (pid_t)atol(v);
        } else if (!strcmp(a, "--timeout-s")) {
            NEED_ARG;
            timeout_s = atof(v);
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
        } else if (a[0] != '-' && strchr(a, '=')) {
            if (nprov == MAX_PROVIDERS) die("at most %d providers", MAX_PROVIDERS);
            Provider *p = &prov[nprov++];
            size_t nl = (size_t)(strchr(a, '=') - a);
            if (nl == 0 || nl >= sizeof p->name) usage();
            memcpy(p->name, a, nl);
            snprintf(p->address, sizeof p->address, "%s", a + nl + 1);
        } else {
            usage();
        }
    }
    if (wait_address) return wait_name(wait_address, since_us, wait_pid, timeout_s);
    if (targets_tsv) return file_targets(targets_tsv, targets_provider);
    if (nprov == 0) usage();
    if (opt_smoke) {
        opt_max = 200;
        opt_min_phase_ms = 0;
        if (opt_lookup_runs > 3) opt_lookup_runs = 3;
    }
    if (opt_max < 10) die("--max must be at least 10");
    for (int i = 0; i < nprov; i++) prov[i].cap = opt_max;
    for (int i = 0; i < ncaps; i++) {
        const char *eq = strchr(caps[i], '=');
        Provider *p = eq ? find_provider(caps[i], (size_t)(eq - caps[i])) : NULL;
        if (!p) die("--cap %s: no such provider", caps[i]);
        p->cap = atol(eq + 1) < opt_max ? atol(eq + 1) : opt_max;
        if (p->cap < 10) die("--cap must be at least 10");
    }
    for (int i = 0; i < nwatches; i++) {
        const char *eq = strchr(watches[i], '=');
        Provider *p = eq ? find_provider(watches[i], (size_t)(eq - watches[i])) : NULL;
        if (!p) die("--watch-file %s: no such provider", watches[i]);
        p->watch_file = eq + 1;
    }
    for (int i = 0; i < nstartups; i++) {
        const char *eq = strchr(startups[i], '=');
        Provider *p = eq ? find_provider(startups[i], (size_t)(eq - startups[i])) : NULL;
        if (!p) die("--startup-ms %s: no such provider", startups[i]);
        char *copy = strdup(eq + 1), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok && p->nstartup < 16; tok = strtok_r(NULL, ",", &save))
            p->startup_ms[p->nstartup++] = atof(tok);
        free(copy);
    }
    rng_state ^= seed * 0x9e3779b97f4a7c15ull;
    if (opt_run_id) {
        size_t len = strlen(opt_run_id);
        if (len == 0 || len >= sizeof run_id || strspn(opt_run_id, "0123456789abcdefghijklmnopqrstuvwxyz") != len)
            die("--run-id: 1 to %zu lower-case letters and digits", sizeof run_id - 1);
        memcpy(run_id, opt_run_id, len + 1);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(run_id, sizeof run_id, "%08lx%04x", (unsigned long)(ts.tv_sec ^ ts.tv_nsec), (unsigned)getpid() & 0xffff);
    }
    if (during) {
        if (!opt_run_id || nprov != 1 || !command || !command[0] || interval_us < 1)
            die("--during needs --run-id, one NAME=ADDRESS and -- COMMAND");
        signal(SIGPIPE, SIG_IGN);
        return during_command(expect_imported, interval_us, baseline_ms, command_out, command);
    }
    if (writers > 0) {
        if (!opt_run_id || durable < writers || writers > 64 || nprov != 1)
            die("--writers W (1 to 64) needs --durable N (at least W), --run-id and one NAME=ADDRESS");
        if (tsv_append) {
            tsv = fopen(tsv_append, "a");
            if (!tsv) die("cannot append to %s: %s", tsv_append, strerror(errno));
        }
        signal(SIGPIPE, SIG_IGN);
        writers_run(writers, durable);
        if (tsv) fclose(tsv);
        fprintf(stderr, "[puff-bench] checks: %ld passed, %ld failed\n", checks_passed, checks_failed);
        return checks_failed ? 1 : 0;
    }
    if (fleet) {
        if (!opt_run_id || !collection_path || reopen_items < 1 || converge < 1 || jitter_ms < 0 || nprov != 2)
            die("--fleet needs --run-id, --collection-path PATH, --items N (at least 1), --converge R (at least 1) "
                "and two NAME=ADDRESS");
        if (opt_smoke) opt_min_phase_ms = 0;
        if (tsv_append) {
            tsv = fopen(tsv_append, "a");
            if (!tsv) die("cannot append to %s: %s", tsv_append, strerror(errno));
        }
        signal(SIGPIPE, SIG_IGN);
        fleet_run(collection_path, reopen_items, converge, jitter_ms, timeout_s);
        if (tsv) fclose(tsv);
        fprintf(stderr, "[puff-bench] checks: %ld passed, %ld failed\n", checks_passed, checks_failed);
        return checks_failed ? 1 : 0;
    }
    if (opt_reopen) {
        if (!opt_run_id || reopen_items < 1 || nprov != 1) die("--reopen needs --run-id, --items N and one NAME=ADDRESS");
        if (tsv_append) {
            tsv = fopen(tsv_append, "a");
            if (!tsv) die("cannot append to %s: %s", tsv_append, strerror(errno));
        }
        signal(SIGPIPE, SIG_IGN);
        reopen_round(reopen_items, reopen_round_no, probe, collection, since_us, round_startup_ms);
        if (tsv) fclose(tsv);
        // stdout holds only the round's table row; run.sh adds these counts to the run's total.
        fprintf(stderr, "[puff-bench] checks: %ld passed, %ld failed\n", checks_passed, checks_failed);
        return checks_failed ? 1 : 0;
    }
    if (tsv_path) {
        tsv = fopen(tsv_path, "w");
        if (!tsv) die("cannot write %s: %s", tsv_path, strerror(errno));
    }
    signal(SIGPIPE, SIG_IGN);

    // Targets: 1,000 / 10,000 / 100,000 up to --max, and --max itself.
    long targets[MAX_POINTS];
    int ntargets = 0;
    for (long t = 1000; t <= 100000; t *= 10)
        if (t <= opt_max) ntargets = add_unique(targets, ntargets, t);
    ntargets = add_unique(targets, ntargets, opt_max);
    qsort(targets, (size_t)ntargets, sizeof(long), cmp_long);
    // Segment boundaries: the tenths of every target's fill and of every capped fill.
    long bounds[MAX_SEGMENTS];
    int nbounds = 0;
    for (int t = 0; t < ntargets; t++)
        for (int k = 1; k <= 10; k++) nbounds = add_unique(bounds, nbounds, targets[t] * k / 10);
    for (int i = 0; i < nprov; i++)
        for (int k = 1; k <= 10; k++) nbounds = add_unique(bounds, nbounds, prov[i].cap * k / 10);
    qsort(bounds, (size_t)nbounds, sizeof(long), cmp_long);

    // Connect, find each provider's process, open a plain session, make sure the default collection is usable.
    for (int i = 0; i < nprov; i++) {
        Provider *p = &prov[i];
        p->conn = connect_bus(p->address);
        check(name_has_owner(p->conn, bus_name), "%s: %s is owned on its bus", p->name, bus_name);
        p->pid = provider_pid(p);
        check(p->pid > 0, "%s: GetConnectionUnixProcessID(%s) gives the provider's pid", p->name, bus_name);
        ProcSnap s = snap_full(p->pid, NULL);
        check(s.ticks >= 0 && s.rss_kib > 0 && s.maps > 0 && s.wchar >= 0,
              "%s: /proc/%d/{stat,status,maps,io} are readable", p->name, (int)p->pid);
        bool sess = open_session(p);
        check(sess, "%s: OpenSession(\"plain\") works", p->name);
        bool unlocked = sess && ensure_unlocked(p);
        check(unlocked, "%s: the default collection is unlocked", p->name);
        if (!sess || !unlocked || p->pid <= 0) p->dead = true;
        p->paths = calloc((size_t)opt_max, sizeof(char *));
        if (!p->paths) die("out of memory");
    }
    char host_cpu[256] = "?";
    {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) snprintf(host_cpu, sizeof host_cpu, "%s", c + 2);
                host_cpu[strcspn(host_cpu, "\n")] = 0;
                break;
            }
        if (f) fclose(f);
    }
    printf("# puff-bench%s: providers", opt_smoke ? " --smoke" : "");
    for (int i = 0; i < nprov; i++)
        printf(" %s (pid %d, fill to %s%s)", prov[i].name, (int)prov[i].pid, fmt_int(prov[i].cap),
               prov[i].cap < opt_max ? ", rest extrapolated" : "");
    printf("; --max %s; %ld CPUs, %s\n", fmt_int(opt_max), sysconf(_SC_NPROCESSORS_ONLN), host_cpu);
    fflush(stdout);

    // The run: alternate every phase between the providers.
    double run_t0 = now_s();
    for (int b = 0; b < nbounds; b++) {
        long to = bounds[b];
        bool stopped_now[MAX_PROVIDERS] = {false};
        for (int i = 0; i < nprov; i++)
            if (!prov[i].dead && !prov[i].over_budget && to <= prov[i].cap && prov[i].nitems < to) {
                fill_segment(&prov[i], to);
                stopped_now[i] = prov[i].over_budget;
            }
        // Measurement point for a provider: a target, its cap, or where its fill budget ran out.
        bool is_point[MAX_PROVIDERS] = {false};
        bool any = false;
        for (int i = 0; i < nprov; i++) {
            Provider *p = &prov[i];
            if (p->dead || (p->nitems != to && !stopped_now[i]) || p->npt >= MAX_POINTS) continue;
            bool target = false;
            for (int t = 0; t < ntargets; t++) target |= targets[t] == to;
            if (target || to == p->cap || stopped_now[i]) {
                is_point[i] = any = true;
                Point *pt = &p->pt[p->npt++];
                memset(pt, 0, sizeof *pt);
                pt->n = p->nitems;
                summarise_fill(p, pt);
            }
        }
        if (!any) continue;
        for (int i = 0; i < nprov; i++)
            if (is_point[i])
                fprintf(stderr, "[%6.1f s] %s: measuring at N = %s\n", now_s() - run_t0, prov[i].name,
                        fmt_int(prov[i].nitems));
        for (int w = 0; w < W_COUNT; w++)
            for (int i = 0; i < nprov; i++)
                if (is_point[i] && !prov[i].dead) run_workload(&prov[i], &prov[i].pt[prov[i].npt - 1], w);
        for (int i = 0; i < nprov; i++) {
            if (!is_point[i]) continue;
            Provider *p = &prov[i];
            Point *pt = &p->pt[p->npt - 1];
            ProcSnap s = snap_full(p->pid, p->watch_file);
            pt->rss_kib = s.rss_kib;
            pt->maps = s.maps;
            pt->file_bytes = s.file_bytes;
            check(s.rss_kib > 0 && s.maps > 0, "%s N=%ld: VmRSS and maps readable", p->name, pt->n);
            if (p->watch_file)
                check(s.file_bytes > 0, "%s N=%ld: the provider's storage file %s exists", p->name, pt->n,
                      p->watch_file);
        }
    }
    for (int i = 0; i < nprov; i++) {
        Provider *p = &prov[i];
        long expected = p->dead ? p->dead_at : p->cap;
        check(p->create_errors == 0 && p->nitems == p->cap,
              "%s: every CreateItem succeeded (%ld of %ld failed, %ld of %ld stored)", p->name, p->create_errors,
              expected, p->nitems, p->cap);
        if (p->watch_file) {  // every segment's growth was measured: the file grew by at least one byte per item
            double grown = 0;
            bool known = p->nseg > 0;
            for (int j = 0; j < p->nseg; j++) {
                if (p->seg[j].extrapolated) continue;
                if (isnan(p->seg[j].op.file_growth)) known = false;
                else grown += p->seg[j].op.file_growth * (double)(p->seg[j].to - p->seg[j].from);
            }
            // A journal extended ahead in whole MiB of zeros (its zero tail) may not grow during a
            // fill smaller than that; its size must then still hold a byte per item.
            double held = p->npt > 0 ? (double)p->pt[p->npt - 1].file_bytes : 0;
            check(known && (grown >= (double)p->nitems || held >= (double)p->nitems),
                  "%s: its storage file grew during the fill, or was extended ahead (%.0f bytes for %ld items)",
                  p->name, grown, p->nitems);
        }
        if (p->watch_file && p->npt >= 2 && !p->pt[0].extrapolated)
            check(p->pt[p->npt - 1].file_bytes > p->pt[0].file_bytes,
                  "%s: its storage file grows with the number of items", p->name);
        if (p->cap < opt_max && !p->dead) extrapolate(p, targets, ntargets, bounds, nbounds);
    }

    // Report.
    printf("\nLatencies are per call, measured by the client (send → reply). \"÷ ping p50\": divided by the same "
           "provider's Peer.Ping p50 at the same N. CPU: provider utime+stime per operation (/proc/PID/stat, "
           "10 ms ticks; the schedstat column sums the threads' run time in ns). wchar: bytes the provider "
           "passed to write()-family calls (files, pipes, eventfds; not D-Bus traffic, which goes through "
           "send()/sendmsg()); write_bytes: bytes it caused to be written to storage.\n");
    for (int i = 0; i < nprov; i++) {
        Provider *p = &prov[i];
        if (p->nstartup > 0) {
            double sorted[16];
            memcpy(sorted, p->startup_ms, sizeof(double) * (size_t)p->nstartup);
            qsort(sorted, (size_t)p->nstartup, sizeof(double), cmp_double);
            printf("\n%s start-up until %s is owned: median %.1f ms over %d starts (min %.1f, max %.1f)\n", p->name,
                   bus_name, sorted[(p->nstartup - 1) / 2], p->nstartup, sorted[0], sorted[p->nstartup - 1]);
        }
        if (p->over_budget)
            printf("\n**%s: its fill was stopped by the fill time budget (%.0f s) at %s items; larger N are "
                   "extrapolated.**\n", p->name, opt_fill_budget_s, fmt_int(p->cap));
        if (p->dead && p->nitems == 0)
            printf("\n**%s: the provider could not be used (see the FAIL lines); nothing was measured.**\n",
                   p->name);
        else if (p->dead)
            printf("\n**%s: the provider stopped answering after %s items; later phases were skipped.**\n", p->name,
                   fmt_int(p->dead_at));
        for (int j = 0; j < p->npt; j++) print_point(p, &p->pt[j]);
    }
    if (nprov >= 2)
        for (int t = 0; t < ntargets; t++)
            for (int i = 1; i < nprov; i++) print_compare(&prov[0], &prov[i], targets[t]);
    if (!opt_smoke)
        for (int i = 0; i < nprov; i++) print_targets(&prov[i]);
    write_tsv();
    if (tsv) fclose(tsv);
    printf("\n");
    for (int i = 0; i < nprov; i++) {
        dbus_connection_close(prov[i].conn);
        dbus_connection_unref(prov[i].conn);
    }
    printf("%ld passed, %ld failed\n", checks_passed, checks_failed);
    return checks_failed ? 1 : 0;
}
