/*
 * Python programs. mpi4py's extension module (MPI.cpython-311-*.so)
 * calls MPI for the script, so a wrapper's return address lies in that
 * module, which names no line of the program. For such a call the shim
 * reads the calling thread's current Python frame instead and names the
 * script's file, line and function; the module's address is kept as the
 * call's native frame.
 *
 * The frame is read without the GIL: mpi4py releases it around blocking
 * calls, and the shim must never wait for it. What is read is safe
 * without it. The thread's own state (PyGILState_GetThisThreadState, a
 * thread-local) and its frames change only when the thread runs Python
 * code, and the thread is inside this MPI call. A frame holds its code
 * object; a code object's file name, name, line table and constants are
 * immutable objects it holds. The line is decoded here from the line
 * table (CPython's Objects/locations.md) rather than with
 * PyCode_Addr2Line, which reads a lazily built array another thread
 * could be filling.
 *
 * Only CPython 3.11 is read (Py_Version; layouts in python_layout.h):
 * another version's calls keep their native sites. Nothing links
 * libpython: its functions are found with dlsym, so the shim still loads
 * into any process.
 *
 * A site is interned once per (code object, instruction, native return
 * address): the record goes into the registry's pysites table, where a
 * debugger reads it, and the call's site is MPIDBG_PYSITE_TAG with the
 * record's index (reg.h). A hit costs a hash probe; so a Python call pays
 * the thread-state look-up, a few loads and the probe, and a C program
 * pays the one test of mpidbg_npy in mpidbg_enter.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim.h"
#include "python_layout.h"
#include "pyline.h"

int mpidbg_npy;
struct mpidbg_pytext_range mpidbg_pytext[MPIDBG_NPYTEXT];

static void *(*tstate_get)(void);   /* PyGILState_GetThisThreadState */
static int (*py_initialized)(void); /* Py_IsInitialized: 0 once finalisation began */
static uintptr_t code_type, unicode_type, tuple_type, bytes_type;
static char mpi4py_dir[PATH_MAX];   /* ".../mpi4py/": its own Python code is not the program's */

#define LD(a) (*(const uintptr_t *)(uintptr_t)(a))
#define MAX_FRAMES 64

/* ---- finding CPython and mpi4py ---- */

/* is_mpi4py says whether path is one of mpi4py's extension modules
 * (MPI.cpython-311-x86_64-linux-gnu.so, MPI.abi3.so): the code that calls
 * MPI for a script. Other extension modules that call MPI (a C++ module
 * of the program's own) have lines of their own to name. */
static int is_mpi4py(const char *path)
{
    const char *base = strrchr(path, '/');
    if (!base || base - path < 7 || strncmp(base - 7, "/mpi4py", 7) != 0)
        return 0;
    base++;
    return strstr(base, ".cpython-311") != NULL || strstr(base, ".abi3.so") != NULL;
}

/* ext_cb adds mpi4py's modules to mpidbg_pytext, counting them in *arg;
 * mpidbg_npy is set from the count once they are in. */
static int ext_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    int *n = arg;
    if (!info->dlpi_name || !is_mpi4py(info->dlpi_name) || *n >= MPIDBG_NPYTEXT)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mpidbg_pytext[*n].lo = lo;
        mpidbg_pytext[*n].hi = lo + ph->p_memsz;
        ++*n;
        break;
    }
    size_t dir = (size_t)(strrchr(info->dlpi_name, '/') - info->dlpi_name) + 1; /* ".../mpi4py/" */
    if (!mpi4py_dir[0] && dir < sizeof mpi4py_dir) {
        memcpy(mpi4py_dir, info->dlpi_name, dir);
        mpi4py_dir[dir] = 0;
    }
    return 0;
}

void mpidbg_python_init(void)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    if (!version || (*version >> 16) != MPIDBG_PY_VERSION_MINOR)
        return;
    tstate_get = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    py_initialized = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    unicode_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    tuple_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyTuple_Type");
    bytes_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyBytes_Type");
    if (!tstate_get || !py_initialized || !code_type || !unicode_type || !tuple_type || !bytes_type)
        return;
    int n = 0;
    dl_iterate_phdr(ext_cb, &n);
    /* None yet: MPI was initialised by another extension (petsc4py,
     * h5py) or through ctypes, before mpi4py.MPI was imported. Then
     * mpidbg_npy is -1 and the calls' return addresses are looked at
     * until one lies in mpi4py's directory (pending): the cost is this
     * Python process's, a C program's mpidbg_npy stays 0. */
    __atomic_store_n(&mpidbg_npy, n ? n : -1, __ATOMIC_RELEASE);
}

/* The executable code of modules seen not to be mpi4py's while mpidbg_npy
 * is -1, so that a call from one costs a few compares. */
#define NOTHER 32
static struct mpidbg_pytext_range other[NOTHER];
static int nother;
static pthread_mutex_t othermu = PTHREAD_MUTEX_INITIALIZER;

struct where {
    uintptr_t ra;
    struct mpidbg_pytext_range text;
    int found;
    char mpi4py;
};

static int where_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct where *w = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || w->ra - lo >= ph->p_memsz)
            continue;
        w->text.lo = lo;
        w->text.hi = lo + ph->p_memsz;
        w->found = 1;
        w->mpi4py = info->dlpi_name && strstr(info->dlpi_name, "/mpi4py/") != NULL;
        return 1;
    }
    return 0;
}

/* pending handles a call while no mpi4py module is known (mpidbg_npy
 * -1): the first call from a module in mpi4py's directory scans the
 * modules again. Returns whether mpidbg_npy is now positive. */
static int pending(uintptr_t ra)
{
    int n = __atomic_load_n(&nother, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (ra - other[i].lo < other[i].hi - other[i].lo)
            return 0;
    if (n >= NOTHER)
        return 0; /* so many modules call MPI: the scan below is no longer paid */
    struct where w = {.ra = ra};
    dl_iterate_phdr(where_cb, &w);
    if (!w.found)
        return 0; /* no module's code (made at run time): not mpi4py's */
    pthread_mutex_lock(&othermu);
    if (__atomic_load_n(&mpidbg_npy, __ATOMIC_ACQUIRE) < 0) {
        int k = 0;
        if (w.mpi4py)
            dl_iterate_phdr(ext_cb, &k);
        if (k)
            __atomic_store_n(&mpidbg_npy, k, __ATOMIC_RELEASE);
        else if (nother < NOTHER) {
            other[nother] = w.text;
            __atomic_store_n(&nother, nother + 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&othermu);
    return __atomic_load_n(&mpidbg_npy, __ATOMIC_ACQUIRE) > 0;
}

/* ---- reading objects ---- */

/* Objects are read in one of two ways. Those of the calling thread's
 * live frames are read in place: the frame holds them. A code object
 * recorded earlier (a signal handler's, mpidbg_python_frame) may have
 * been freed since, with the objects it held, and pymalloc unmaps an
 * arena once it is empty, so it is read with `safe` set: every load a
 * copy by process_vm_readv(2), which fails where nothing is mapped
 * rather than fault. A load through a freed object that is still mapped
 * reads stale or reused bytes; the type checks turn most away, and the
 * worst left is a wrong name for a site, never a crash. */
static int rd(int safe, uintptr_t a, void *out, size_t n)
{
    if (!safe) {
        memcpy(out, (const void *)a, n);
        return 1;
    }
    struct iovec here = {out, n}, there = {(void *)a, n};
    return process_vm_readv(getpid(), &here, 1, &there, 1, 0) == (ssize_t)n;
}

/* rdw is the word at a, 0 when it cannot be read. */
static inline uintptr_t rdw(int safe, uintptr_t a)
{
    uintptr_t v = 0;
    return safe ? (rd(1, a, &v, sizeof v) ? v : 0) : LD(a);
}

static inline uintptr_t type_of(uintptr_t o)
{
    return LD(o + MPIDBG_PY_OB_TYPE);
}

/* frame_at is the code object and instruction a frame is at, 0 for a
 * frame that has not started (CPython's _PyFrame_IsIncomplete). */
static inline int frame_at(uintptr_t fr, uintptr_t *code, uint32_t *off)
{
    uintptr_t co = LD(fr + MPIDBG_PY_FR_CODE);
    if (!co)
        return 0;
    uintptr_t first = co + MPIDBG_PY_CO_CODE, prev = LD(fr + MPIDBG_PY_FR_PREV_INSTR);
    int traceable = *(const int *)(co + MPIDBG_PY_CO_FIRSTTRACEABLE);
    if (prev < first || (*(const char *)(fr + MPIDBG_PY_FR_OWNER) != MPIDBG_PY_FRAME_OWNED_BY_GENERATOR &&
                         prev < first + 2 * (uintptr_t)traceable))
        return 0;
    uint64_t unit = (prev - first) / 2;
    if (unit >= (uint64_t)*(const int64_t *)(co + MPIDBG_PY_OB_SIZE) || unit > UINT32_MAX)
        return 0;
    *code = co;
    *off = (uint32_t)unit;
    return 1;
}

/* current_frame is the calling thread's innermost Python frame, 0 when it
 * runs no Python code or the interpreter is being finalised (mpi4py
 * finalises MPI from Py_AtExit, after the thread states are gone). */
static inline uintptr_t current_frame(void)
{
    if (!py_initialized())
        return 0;
    uintptr_t ts = (uintptr_t)tstate_get();
    if (!ts)
        return 0;
    uintptr_t cf = LD(ts + MPIDBG_PY_TS_CFRAME);
    return cf ? LD(cf + MPIDBG_PY_CF_CURRENT_FRAME) : 0;
}

/* utf8 copies a str object as UTF-8 into out (n > 0 bytes), truncated;
 * 0 when o is no compact, ready str (or, safe, cannot be read). */
static int utf8(int safe, uintptr_t o, char *out, size_t n)
{
    out[0] = 0;
    int64_t len, ul;
    uint32_t st;
    if (!o || rdw(safe, o + MPIDBG_PY_OB_TYPE) != unicode_type || !rd(safe, o + MPIDBG_PY_STR_LENGTH, &len, sizeof len) ||
        !rd(safe, o + MPIDBG_PY_STR_STATE, &st, sizeof st))
        return 0;
    unsigned kind = (st >> 2) & 7, compact = (st >> 5) & 1, ascii = (st >> 6) & 1, ready = (st >> 7) & 1;
    if (!compact || !ready || len < 0 || (kind != 1 && kind != 2 && kind != 4))
        return 0;
    size_t k = 0;
    uintptr_t u8;
    if (ascii) {
        k = (size_t)len < n - 1 ? (size_t)len : n - 1;
        if (!rd(safe, o + MPIDBG_PY_STR_ASCII_DATA, out, k))
            return 0;
    } else if ((u8 = rdw(safe, o + MPIDBG_PY_STR_UTF8))) {
        if (!rd(safe, o + MPIDBG_PY_STR_UTF8_LENGTH, &ul, sizeof ul))
            return 0;
        k = ul >= 0 && (size_t)ul < n - 1 ? (size_t)ul : n - 1;
        if (!rd(safe, u8, out, k)) {
            out[0] = 0;
            return 0;
        }
    } else {
        /* at most n - 1 characters fit: only those are read */
        if ((uint64_t)len > n - 1)
            len = (int64_t)(n - 1);
        const uint8_t *d = (const uint8_t *)(o + MPIDBG_PY_STR_COMPACT_DATA);
        uint8_t *copy = NULL;
        if (safe) {
            copy = malloc((size_t)len * kind + 1);
            if (!copy || !rd(1, (uintptr_t)d, copy, (size_t)len * kind)) {
                free(copy);
                return 0;
            }
            d = copy;
        }
        for (int64_t i = 0; i < len; i++) {
            uint32_t c = kind == 1 ? d[i] : kind == 2 ? ((const uint16_t *)d)[i] : ((const uint32_t *)d)[i];
            char b[4];
            size_t m;
            if (c < 0x80)
                b[0] = (char)c, m = 1;
            else if (c < 0x800)
                b[0] = (char)(0xC0 | c >> 6), b[1] = (char)(0x80 | (c & 63)), m = 2;
            else if (c < 0x10000)
                b[0] = (char)(0xE0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 63)), b[2] = (char)(0x80 | (c & 63)), m = 3;
            else
                b[0] = (char)(0xF0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 63)),
                b[2] = (char)(0x80 | ((c >> 6) & 63)), b[3] = (char)(0x80 | (c & 63)), m = 4;
            if (k + m > n - 1)
                break;
            memcpy(out + k, b, m);
            k += m;
        }
        free(copy);
    }
    out[k] = 0;
    return 1;
}

/* code_table gives a code object's line table, 0 when it is none. */
static int code_table(uintptr_t co, const uint8_t **t, size_t *n, int *first)
{
    uintptr_t lt = LD(co + MPIDBG_PY_CO_LINETABLE);
    if (!lt || type_of(lt) != bytes_type)
        return 0;
    int64_t len = *(const int64_t *)(lt + MPIDBG_PY_OB_SIZE);
    if (len < 0)
        return 0;
    *t = (const uint8_t *)(lt + MPIDBG_PY_BYTES_DATA);
    *n = (size_t)len;
    *first = *(const int *)(co + MPIDBG_PY_CO_FIRSTLINENO);
    return 1;
}

/* code_line is the line of code unit off of code object co whose line
 * table is lt, -1 when it has none or, safe, it cannot be read. */
static int code_line(int safe, uintptr_t co, uintptr_t lt, uint32_t off)
{
    int64_t len;
    int first;
    if (!lt || rdw(safe, lt + MPIDBG_PY_OB_TYPE) != bytes_type || !rd(safe, lt + MPIDBG_PY_OB_SIZE, &len, sizeof len) ||
        len < 0 || !rd(safe, co + MPIDBG_PY_CO_FIRSTLINENO, &first, sizeof first))
        return -1;
    if (!safe)
        return mpidbg_py_line((const uint8_t *)(lt + MPIDBG_PY_BYTES_DATA), (size_t)len, first, off);
    uint8_t *t = malloc((size_t)len + 1);
    int line = -1;
    if (t && rd(1, lt + MPIDBG_PY_BYTES_DATA, t, (size_t)len))
        line = mpidbg_py_line(t, (size_t)len, first, off);
    free(t);
    return line;
}

/* ---- the interned sites ---- */

struct pykey {
    uintptr_t code, ra;
    uint32_t off;
    int32_t skip;       /* the frame is not the program's: its caller names the call */
    int32_t lib;        /* an installed package's or the standard library's: passed over too, but
                         * named when no frame of the program's is found (site set) */
    uintptr_t linetable; /* the code object's, when interned: a new code object at a freed one's address has another */
    uint64_t site;
};

struct pymap {
    uint64_t mask, used;
    struct pykey *s[];
};

static struct pymap *pymap; /* read without the lock; replaced, never freed, when it grows */
static pthread_mutex_t pymu = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t key_hash(uintptr_t code, uint32_t off, uintptr_t ra)
{
    uint64_t h = ((uint64_t)code >> 4) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)off + 1) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)ra * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
}

static inline struct pykey **probe(struct pymap *m, uintptr_t code, uint32_t off, uintptr_t ra)
{
    for (uint64_t i = key_hash(code, off, ra) & m->mask;; i = (i + 1) & m->mask) {
        struct pykey *k = __atomic_load_n(&m->s[i], __ATOMIC_ACQUIRE);
        if (!k || (k->code == code && k->off == off && k->ra == ra))
            return &m->s[i];
    }
}

/* lookup finds the key of (code, off, ra), whose line table is lt. */
static inline struct pykey *lookup(uintptr_t code, uint32_t off, uintptr_t ra, uintptr_t lt)
{
    struct pymap *m = __atomic_load_n(&pymap, __ATOMIC_ACQUIRE);
    if (!m)
        return NULL;
    struct pykey *k = __atomic_load_n(probe(m, code, off, ra), __ATOMIC_ACQUIRE);
    return k && k->linetable == lt ? k : NULL;
}

/* insert puts k in the map, in place of a stale key of the same code
 * address, instruction and return address; under pymu. */
static void insert(struct pykey *k)
{
    struct pymap *m = pymap;
    if (!m || (m->used + 1) * 2 > m->mask + 1) {
        uint64_t cap = m ? (m->mask + 1) * 2 : 256;
        struct pymap *b = calloc(1, sizeof *b + cap * sizeof b->s[0]);
        if (!b)
            return;
        b->mask = cap - 1;
        if (m)
            for (uint64_t i = 0; i <= m->mask; i++)
                if (m->s[i]) {
                    *probe(b, m->s[i]->code, m->s[i]->off, m->s[i]->ra) = m->s[i];
                    b->used++;
                }
        __atomic_store_n(&pymap, b, __ATOMIC_RELEASE);
        m = b;
    }
    struct pykey **slot = probe(m, k->code, k->off, k->ra);
    if (!*slot)
        m->used++;
    __atomic_store_n(slot, k, __ATOMIC_RELEASE);
}

static struct mpidbg_pysite *record_at(uint32_t i)
{
    struct mpidbg_table *t = &mpidbg_registry.pysites;
    if (i >= __atomic_load_n(&t->count, __ATOMIC_ACQUIRE))
        return NULL;
    uint64_t base = 0;
    int c = 0;
    while ((uint64_t)i >= base + ((uint64_t)t->first_chunk << c)) {
        base += (uint64_t)t->first_chunk << c;
        c++;
    }
    return (struct mpidbg_pysite *)(uintptr_t)__atomic_load_n(&t->chunks[c], __ATOMIC_ACQUIRE) + (i - base);
}

/* library says whether a script file is an installed package's or the
 * standard library's rather than the program's: under a site-packages or
 * dist-packages directory (pip's, Debian's), or under lib/python3.N/ (the
 * standard library). The program's own line is the innermost frame
 * outside them: the user's res.sum(), not numpy's _methods.py that read
 * the buffer for it. */
static int library(const char *file)
{
    if (strstr(file, "/site-packages/") || strstr(file, "/dist-packages/"))
        return 1;
    for (const char *p = file; (p = strstr(p, "/python3.")) != NULL; p++) {
        /* .../lib/python3.11/, .../lib64/python3.13t/ */
        if (!(p - file >= 4 && strncmp(p - 4, "/lib", 4) == 0) && !(p - file >= 6 && strncmp(p - 6, "/lib64", 6) == 0))
            continue;
        const char *q = p + strlen("/python3.");
        if (*q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        while (*q >= 'a' && *q <= 'z')
            q++;
        if (*q == '/')
            return 1;
    }
    return 0;
}

static int skipped(const char *file)
{
    return strncmp(file, "<frozen ", 8) == 0 ||
           (mpi4py_dir[0] && strncmp(file, mpi4py_dir, strlen(mpi4py_dir)) == 0);
}

/* absolute makes a relative script path absolute: the launcher shows
 * paths relative to its own directory, which need not be the rank's. */
static void absolute(char *file, size_t n)
{
    if (file[0] == '/' || file[0] == '<' || !file[0])
        return;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd) || strlen(cwd) + 1 + strlen(file) >= n)
        return;
    memmove(file + strlen(cwd) + 1, file, strlen(file) + 1);
    memcpy(file, cwd, strlen(cwd));
    file[strlen(cwd)] = '/';
}

static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* intern makes the key of (code, off, ra), whose line table is lt, with
 * the objects read as rd does; under pymu. A frame whose site cannot be
 * made (its file name no compact str, the registry full, no memory) gets
 * a key too, whose site is ra: the calls from there then cost a look-up,
 * not the lock, the allocations and the same failure each time. */
static struct pykey *intern_locked(int safe, uintptr_t code, uint32_t off, uintptr_t ra, uintptr_t lt)
{
    struct pykey *k = lookup(code, off, ra, lt);
    if (k)
        return k;
    k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->code = code;
    k->off = off;
    k->ra = ra;
    k->linetable = lt;
    k->site = ra;
    char file[PATH_MAX], func[256];
    if (rdw(safe, code + MPIDBG_PY_OB_TYPE) != code_type ||
        !utf8(safe, rdw(safe, code + MPIDBG_PY_CO_FILENAME), file, sizeof file))
        goto out;
    utf8(safe, rdw(safe, code + MPIDBG_PY_CO_QUALNAME), func, sizeof func);
    k->skip = skipped(file);
    k->lib = !k->skip && library(file);
    if (!k->skip) {
        int line = code_line(safe, code, lt, off);
        absolute(file, sizeof file);
        char *f = strdup(file), *fn = strdup(func);
        struct mpidbg_pysite *r = NULL;
        uint32_t serial = 0;
        if (f && fn) {
            mpidbg_wlock();
            r = mpidbg_table_add(&mpidbg_registry.pysites, &serial);
            if (r) {
                r->file = (uint64_t)(uintptr_t)f;
                r->function = (uint64_t)(uintptr_t)fn;
                r->native = ra;
                r->code = code;
                r->line = line > 0 ? line : 0;
                r->offset = off;
                mpidbg_table_publish(&mpidbg_registry.pysites);
            }
            mpidbg_wunlock();
        }
        if (!r) {
            free(f);
            free(fn);
            goto out;
        }
        k->site = MPIDBG_PYSITE_TAG | (serial - 1);
    }
out:
    insert(k);
    return k;
}

static struct pykey *intern(int safe, uintptr_t code, uint32_t off, uintptr_t ra, uintptr_t lt)
{
    pthread_mutex_lock(&pymu);
    struct pykey *k = intern_locked(safe, code, off, ra, lt);
    pthread_mutex_unlock(&pymu);
    return k;
}

uint64_t mpidbg_python_site(uintptr_t ra)
{
    if (MPIDBG_UNLIKELY(mpidbg_npy < 0) && !pending(ra))
        return ra;
    int i = 0;
    while (i < mpidbg_npy && ra - mpidbg_pytext[i].lo >= mpidbg_pytext[i].hi - mpidbg_pytext[i].lo)
        i++;
    if (i == mpidbg_npy)
        return ra;
    uintptr_t fr = current_frame();
    uint64_t lib = 0;
    for (int depth = 0; fr && depth < MAX_FRAMES; depth++, fr = LD(fr + MPIDBG_PY_FR_PREVIOUS)) {
        uintptr_t code;
        uint32_t off;
        if (!frame_at(fr, &code, &off))
            continue;
        uintptr_t lt = LD(code + MPIDBG_PY_CO_LINETABLE);
        struct pykey *k = lookup(code, off, ra, lt);
        if (MPIDBG_UNLIKELY(!k) && !(k = intern(0, code, off, ra, lt)))
            return lib ? lib : ra;
        if (!k->skip && !k->lib)
            return k->site;
        if (k->lib && !lib)
            lib = k->site;
    }
    /* no frame of the program's own: a library's that called mpi4py, else
     * (mpi4py's threads, or no Python code at all) the native place */
    return lib ? lib : ra;
}

int mpidbg_python_frames(uint64_t *code, uint32_t *offset, int max)
{
    if (mpidbg_npy <= 0)
        return 0;
    uintptr_t fr = current_frame();
    int n = 0;
    for (int depth = 0; fr && depth < MAX_FRAMES && n < max; depth++, fr = LD(fr + MPIDBG_PY_FR_PREVIOUS)) {
        uintptr_t co;
        uint32_t off;
        if (frame_at(fr, &co, &off)) {
            code[n] = co;
            offset[n] = off;
            n++;
        }
    }
    return n;
}

/* The code object was the thread's when a signal handler read it; it may
 * have been freed since (a function made by exec or at run time), so
 * nothing of it is read in place (rd). */
uint64_t mpidbg_python_site_at(const uint64_t *code, const uint32_t *offset, int n, uint64_t native)
{
    uint64_t lib = 0; /* the innermost library frame's, when no frame is the program's */
    for (int i = 0; i < n && mpidbg_npy > 0; i++) {
        uintptr_t lt;
        if (!code[i] || !rd(1, code[i] + MPIDBG_PY_CO_LINETABLE, &lt, sizeof lt))
            break;
        struct pykey *k = lookup(code[i], offset[i], native, lt);
        if (!k)
            k = intern(1, code[i], offset[i], native, lt);
        if (!k)
            break;
        if (!k->skip && !k->lib)
            return k->site;
        if (k->lib && !lib)
            lib = k->site;
    }
    return lib ? lib : native;
}

void mpidbg_python_site_code(uint64_t site, uint64_t *off, uint32_t *mod)
{
    *off = 0;
    *mod = 0;
    struct mpidbg_pysite *r = record_at(MPIDBG_PYSITE_INDEX(site));
    if (!r)
        return;
    *mod = mpidbg_fnv(basename_of((const char *)(uintptr_t)r->file));
    *off = MPIDBG_PYSITE_TAG | (uint64_t)mpidbg_fnv((const char *)(uintptr_t)r->function) << 24 |
           (uint64_t)(r->line & 0xffffff);
}

int mpidbg_python_site_get(uint64_t site, struct mpidbg_pysite *out)
{
    struct mpidbg_pysite *r = MPIDBG_IS_PYSITE(site) ? record_at(MPIDBG_PYSITE_INDEX(site)) : NULL;
    if (!r)
        return 0;
    *out = *r;
    return 1;
}

/* ---- another rank's sites ---- */

struct find {
    uint32_t mod, fh;
    int line;
    int budget;
    uintptr_t found;
};

/* find_code searches a code object and the code objects among its
 * constants (the functions and classes defined in it) for the one named
 * by f: its file's and qualified name's hashes, and a call on f->line. */
static void find_code(uintptr_t co, struct find *f, int depth)
{
    if (f->found || --f->budget < 0 || depth > 12 || !co || type_of(co) != code_type)
        return;
    char name[256], file[PATH_MAX];
    const uint8_t *t;
    size_t n;
    int first;
    if (utf8(0, LD(co + MPIDBG_PY_CO_QUALNAME), name, sizeof name) && mpidbg_fnv(name) == f->fh &&
        utf8(0, LD(co + MPIDBG_PY_CO_FILENAME), file, sizeof file) && mpidbg_fnv(basename_of(file)) == f->mod &&
        code_table(co, &t, &n, &first) && mpidbg_py_has_line(t, n, first, f->line)) {
        f->found = co;
        return;
    }
    uintptr_t consts = LD(co + MPIDBG_PY_CO_CONSTS);
    if (!consts || type_of(consts) != tuple_type)
        return;
    int64_t len = *(const int64_t *)(consts + MPIDBG_PY_OB_SIZE);
    for (int64_t i = 0; i < len && i < 4096 && !f->found; i++) {
        uintptr_t c = LD(consts + MPIDBG_PY_TUPLE_ITEMS + 8 * (uintptr_t)i);
        if (c && type_of(c) == code_type)
            find_code(c, f, depth + 1);
    }
}

/* mpidbg_python_remote names another rank's Python site (mod and off
 * from mpidbg_python_site_code) in this process: a site this process
 * interned with the same file name, function and line; else a function
 * of that name and file with a call on that line, among the code objects
 * of the calling thread's frames and what they define (the module
 * frame of the main script defines all of it); else the file of such a
 * name, without the function. Returns 0 when no file is known. */
int mpidbg_python_remote(uint32_t mod, uint64_t off, char *file, int flen, char *func, int fnlen, int *line)
{
    if (mpidbg_npy <= 0 || flen <= 0 || fnlen <= 0)
        return 0;
    struct find f = {mod, (uint32_t)(off >> 24), (int)(off & 0xffffff), 20000, 0};
    *line = f.line;
    file[0] = func[0] = 0;
    uint32_t count = __atomic_load_n(&mpidbg_registry.pysites.count, __ATOMIC_ACQUIRE);
    const char *same_file = NULL;
    for (uint32_t i = 0; i < count; i++) {
        struct mpidbg_pysite *r = record_at(i);
        const char *rf = (const char *)(uintptr_t)r->file;
        if (mpidbg_fnv(basename_of(rf)) != mod)
            continue;
        same_file = rf;
        if (r->line == f.line && mpidbg_fnv((const char *)(uintptr_t)r->function) == f.fh) {
            snprintf(file, (size_t)flen, "%s", rf);
            snprintf(func, (size_t)fnlen, "%s", (const char *)(uintptr_t)r->function);
            return 1;
        }
    }
    uintptr_t fr = current_frame();
    for (int depth = 0; fr && depth < MAX_FRAMES && !f.found; depth++, fr = LD(fr + MPIDBG_PY_FR_PREVIOUS))
        find_code(LD(fr + MPIDBG_PY_FR_CODE), &f, 0);
    if (f.found) {
        char buf[PATH_MAX];
        utf8(0, LD(f.found + MPIDBG_PY_CO_FILENAME), buf, sizeof buf);
        absolute(buf, sizeof buf);
        snprintf(file, (size_t)flen, "%s", buf);
        utf8(0, LD(f.found + MPIDBG_PY_CO_QUALNAME), func, (size_t)fnlen);
        return 1;
    }
    if (same_file) {
        snprintf(file, (size_t)flen, "%s", same_file);
        return 1;
    }
    return 0;
}
