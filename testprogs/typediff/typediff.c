/*
 * typediff: builds MPI datatypes from constructor expressions with the
 * real MPI library, for the differential test in datatype/mpich_test.go.
 *
 * Each input line is "COUNT EXPR", EXPR in the language of
 * datatype/expr.go, for example "3 vector(2,5,3,CHAR)". For each line one
 * output line:
 *
 *   SIZE LB EXTENT TRUE_LB TRUE_EXTENT PACK_A PACK_B
 *
 * the type's size and bounds in bytes, then the hex of MPI_Pack of COUNT
 * instances ("-" when empty) from a buffer whose byte at offset o holds
 * o & 0xff (pattern A) or (o >> 8) & 0xff (pattern B), o counted from the
 * lowest byte the COUNT instances touch. A line that cannot be built gives
 * "ERR message" instead.
 *
 * Build: mpicc.mpich -O1 -g typediff.c -o typediff; run as a singleton.
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    MAX_LINE = 1 << 16,   /* longest input line, in bytes */
    MAX_LIST = 64,        /* most entries in one [...] list */
    MAX_MADE = 1024,      /* most derived types one line may create */
    MAX_DEPTH = 64,       /* deepest nesting of constructors */
    MAX_SPAN = 1 << 20,   /* largest buffer span to pack from, in bytes */
    GUARD = 256           /* patterned bytes either side of the span */
};

/* parser holds one line being parsed and the types it created. */
struct parser {
    const char *s;
    size_t pos;
    jmp_buf fail;
    char err[256];
    MPI_Datatype made[MAX_MADE];
    int nmade;
    int depth; /* constructors being read */
};

/* fail reports an error and abandons the line. */
static void fail(struct parser *p, const char *format, ...)
{
    va_list ap;
    int n = snprintf(p->err, sizeof p->err, "offset %zu: ", p->pos);
    va_start(ap, format);
    vsnprintf(p->err + n, sizeof p->err - (size_t)n, format, ap);
    va_end(ap);
    longjmp(p->fail, 1);
}

/* check turns an MPI error code into a parse failure. */
static void check(struct parser *p, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    fail(p, "%s: %s", what, msg);
}

/* keep records a new derived type so that it is freed after the line. */
static MPI_Datatype keep(struct parser *p, MPI_Datatype t)
{
    if (p->nmade == MAX_MADE) {
        MPI_Type_free(&t);
        fail(p, "more than %d types", MAX_MADE);
    }
    p->made[p->nmade++] = t;
    return t;
}

static void skip(struct parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\r' || p->s[p->pos] == '\n')
        p->pos++;
}

/* peek consumes c if it is the next character. */
static int peek(struct parser *p, char c)
{
    skip(p);
    if (p->s[p->pos] != c)
        return 0;
    p->pos++;
    return 1;
}

static void expect(struct parser *p, char c)
{
    if (!peek(p, c))
        fail(p, "expected '%c'", c);
}

static int is_word_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* word reads a run of letters, digits and underscores into buf. */
static void word(struct parser *p, char *buf, size_t size)
{
    size_t n = 0;

    skip(p);
    while (is_word_char(p->s[p->pos])) {
        if (n + 1 == size)
            fail(p, "name too long");
        buf[n++] = p->s[p->pos++];
    }
    buf[n] = 0;
    if (n == 0)
        fail(p, "expected a name");
}

/* strip removes prefix from the front of w, ignoring case. */
static const char *strip(const char *w, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncasecmp(w, prefix, n) == 0 ? w + n : w;
}

static long long integer(struct parser *p)
{
    const char *start;
    char *end;
    long long v;

    skip(p);
    start = p->s + p->pos;
    if ((*start < '0' || *start > '9') && *start != '-' && *start != '+')
        fail(p, "expected an integer");
    v = strtoll(start, &end, 10);
    if (end == start)
        fail(p, "expected an integer");
    p->pos += (size_t)(end - start);
    return v;
}

/* small reads an integer that must fit an int argument. */
static int small(struct parser *p)
{
    long long v = integer(p);
    if (v < -2147483647LL - 1 || v > 2147483647LL)
        fail(p, "%lld does not fit an int", v);
    return (int)v;
}

static int order(struct parser *p)
{
    char w[64];
    const char *k;

    word(p, w, sizeof w);
    k = strip(strip(w, "MPI_"), "ORDER_");
    if (strcasecmp(k, "C") == 0)
        return MPI_ORDER_C;
    if (strcasecmp(k, "FORTRAN") == 0)
        return MPI_ORDER_FORTRAN;
    fail(p, "order %s is not C or FORTRAN", w);
    return 0;
}

static int distrib(struct parser *p)
{
    char w[64];
    const char *k;

    word(p, w, sizeof w);
    k = strip(strip(w, "MPI_"), "DISTRIBUTE_");
    if (strcasecmp(k, "BLOCK") == 0)
        return MPI_DISTRIBUTE_BLOCK;
    if (strcasecmp(k, "CYCLIC") == 0)
        return MPI_DISTRIBUTE_CYCLIC;
    if (strcasecmp(k, "NONE") == 0)
        return MPI_DISTRIBUTE_NONE;
    fail(p, "distribution %s is not BLOCK, CYCLIC or NONE", w);
    return 0;
}

static int darg(struct parser *p)
{
    char w[64];
    const char *k;

    skip(p);
    if (!is_word_char(p->s[p->pos]) || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
        return small(p);
    word(p, w, sizeof w);
    k = strip(strip(w, "MPI_"), "DISTRIBUTE_");
    if (strcasecmp(k, "DFLT") != 0 && strcasecmp(k, "DFLT_DARG") != 0)
        fail(p, "darg %s is not an integer or DFLT", w);
    return MPI_DISTRIBUTE_DFLT_DARG;
}

/* The list readers read "[X, ...]" and return the number of entries. */

static int ints(struct parser *p, int *v)
{
    int n = 0;

    expect(p, '[');
    if (peek(p, ']'))
        return 0;
    do {
        if (n == MAX_LIST)
            fail(p, "more than %d list entries", MAX_LIST);
        v[n++] = small(p);
    } while (peek(p, ','));
    expect(p, ']');
    return n;
}

static int aints(struct parser *p, MPI_Aint *v)
{
    int n = 0;

    expect(p, '[');
    if (peek(p, ']'))
        return 0;
    do {
        if (n == MAX_LIST)
            fail(p, "more than %d list entries", MAX_LIST);
        v[n++] = (MPI_Aint)integer(p);
    } while (peek(p, ','));
    expect(p, ']');
    return n;
}

static int distribs(struct parser *p, int *v)
{
    int n = 0;

    expect(p, '[');
    if (peek(p, ']'))
        return 0;
    do {
        if (n == MAX_LIST)
            fail(p, "more than %d list entries", MAX_LIST);
        v[n++] = distrib(p);
    } while (peek(p, ','));
    expect(p, ']');
    return n;
}

static int dargs(struct parser *p, int *v)
{
    int n = 0;

    expect(p, '[');
    if (peek(p, ']'))
        return 0;
    do {
        if (n == MAX_LIST)
            fail(p, "more than %d list entries", MAX_LIST);
        v[n++] = darg(p);
    } while (peek(p, ','));
    expect(p, ']');
    return n;
}

/* same checks that a list has the length of an earlier one. */
static void same(struct parser *p, int got, int want, const char *what)
{
    if (got != want)
        fail(p, "%s has %d entries, want %d", what, got, want);
}

/* predefined maps a type name (without MPI_) to its handle. */
static const struct {
    const char *name;
    MPI_Datatype type;
} predefined[] = {
    {"CHAR", MPI_CHAR},
    {"SIGNED_CHAR", MPI_SIGNED_CHAR},
    {"UNSIGNED_CHAR", MPI_UNSIGNED_CHAR},
    {"BYTE", MPI_BYTE},
    {"WCHAR", MPI_WCHAR},
    {"SHORT", MPI_SHORT},
    {"UNSIGNED_SHORT", MPI_UNSIGNED_SHORT},
    {"INT", MPI_INT},
    {"UNSIGNED", MPI_UNSIGNED},
    {"LONG", MPI_LONG},
    {"UNSIGNED_LONG", MPI_UNSIGNED_LONG},
    {"LONG_LONG", MPI_LONG_LONG},
    {"LONG_LONG_INT", MPI_LONG_LONG_INT},
    {"UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG},
    {"FLOAT", MPI_FLOAT},
    {"DOUBLE", MPI_DOUBLE},
    {"LONG_DOUBLE", MPI_LONG_DOUBLE},
    {"INT8_T", MPI_INT8_T},
    {"INT16_T", MPI_INT16_T},
    {"INT32_T", MPI_INT32_T},
    {"INT64_T", MPI_INT64_T},
    {"UINT8_T", MPI_UINT8_T},
    {"UINT16_T", MPI_UINT16_T},
    {"UINT32_T", MPI_UINT32_T},
    {"UINT64_T", MPI_UINT64_T},
    {"C_BOOL", MPI_C_BOOL},
    {"C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX},
    {"C_COMPLEX", MPI_C_COMPLEX},
    {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX},
    {"C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX},
    {"AINT", MPI_AINT},
    {"OFFSET", MPI_OFFSET},
    {"COUNT", MPI_COUNT},
    {"PACKED", MPI_PACKED},
#ifndef OPEN_MPI /* removed in MPI-3.0; Open MPI 4 no longer defines them */
    {"LB", MPI_LB},
    {"UB", MPI_UB},
#endif
    {"FLOAT_INT", MPI_FLOAT_INT},
    {"DOUBLE_INT", MPI_DOUBLE_INT},
    {"LONG_INT", MPI_LONG_INT},
    {"2INT", MPI_2INT},
    {"SHORT_INT", MPI_SHORT_INT},
    {"LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT},
    /* the Fortran types: mpi.h names the optional ones only when the
     * library has them (MPICH names MPI_INTEGER16 as MPI_DATATYPE_NULL) */
    {"INTEGER", MPI_INTEGER},
    {"REAL", MPI_REAL},
    {"DOUBLE_PRECISION", MPI_DOUBLE_PRECISION},
    {"COMPLEX", MPI_COMPLEX},
    {"DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX},
    {"LOGICAL", MPI_LOGICAL},
    {"CHARACTER", MPI_CHARACTER},
#ifdef MPI_INTEGER1
    {"INTEGER1", MPI_INTEGER1},
#endif
#ifdef MPI_INTEGER2
    {"INTEGER2", MPI_INTEGER2},
#endif
#ifdef MPI_INTEGER4
    {"INTEGER4", MPI_INTEGER4},
#endif
#ifdef MPI_INTEGER8
    {"INTEGER8", MPI_INTEGER8},
#endif
#ifdef MPI_INTEGER16
    {"INTEGER16", MPI_INTEGER16},
#endif
#ifdef MPI_REAL2
    {"REAL2", MPI_REAL2},
#endif
#ifdef MPI_REAL4
    {"REAL4", MPI_REAL4},
#endif
#ifdef MPI_REAL8
    {"REAL8", MPI_REAL8},
#endif
#ifdef MPI_REAL16
    {"REAL16", MPI_REAL16},
#endif
#ifdef MPI_COMPLEX4
    {"COMPLEX4", MPI_COMPLEX4},
#endif
#ifdef MPI_COMPLEX8
    {"COMPLEX8", MPI_COMPLEX8},
#endif
#ifdef MPI_COMPLEX16
    {"COMPLEX16", MPI_COMPLEX16},
#endif
#ifdef MPI_COMPLEX32
    {"COMPLEX32", MPI_COMPLEX32},
#endif
    {"2INTEGER", MPI_2INTEGER},
    {"2REAL", MPI_2REAL},
    {"2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION},
};

/* lookup finds a predefined type by name: 1 found, 0 unknown, -1 a name
 * this MPI does not support (its mpi.h lacks it or makes it
 * MPI_DATATYPE_NULL). */
static int lookup(const char *w, MPI_Datatype *t)
{
    static const char *const optional[] = {"INTEGER1", "INTEGER2", "INTEGER4", "INTEGER8", "INTEGER16",
                                           "REAL2", "REAL4", "REAL8", "REAL16",
                                           "COMPLEX4", "COMPLEX8", "COMPLEX16", "COMPLEX32",
                                           "LB", "UB"};
    const char *k = strip(w, "MPI_");
    size_t i;

    for (i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        if (strcasecmp(k, predefined[i].name) == 0) {
            *t = predefined[i].type;
            return *t == MPI_DATATYPE_NULL ? -1 : 1;
        }
    }
    for (i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (strcasecmp(k, optional[i]) == 0)
            return -1;
    return 0;
}

static MPI_Datatype type(struct parser *p);

/* call reads the arguments of constructor fn, after its '(' and up to
 * its ')', and builds the type. */
static MPI_Datatype call(struct parser *p, const char *fn)
{
    int bl[MAX_LIST], di[MAX_LIST], sizes[MAX_LIST], subs[MAX_LIST], starts[MAX_LIST];
    int dist[MAX_LIST], darg_v[MAX_LIST], psizes[MAX_LIST];
    MPI_Aint da[MAX_LIST];
    MPI_Datatype types[MAX_LIST], old, t = MPI_DATATYPE_NULL;
    int n, count, blocklen, size, rank, ord, i;
    MPI_Aint lb, extent, stride;

    if (strcasecmp(fn, "contiguous") == 0) {
        count = small(p);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_contiguous(count, old, &t), fn);
    } else if (strcasecmp(fn, "vector") == 0 || strcasecmp(fn, "hvector") == 0) {
        count = small(p);
        expect(p, ',');
        blocklen = small(p);
        expect(p, ',');
        stride = (MPI_Aint)integer(p);
        expect(p, ',');
        old = type(p);
        if (strcasecmp(fn, "vector") == 0) {
            if (stride != (int)stride)
                fail(p, "stride does not fit an int");
            check(p, MPI_Type_vector(count, blocklen, (int)stride, old, &t), fn);
        } else {
            check(p, MPI_Type_create_hvector(count, blocklen, stride, old, &t), fn);
        }
    } else if (strcasecmp(fn, "indexed") == 0) {
        n = ints(p, bl);
        expect(p, ',');
        same(p, ints(p, di), n, "displacements");
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_indexed(n, bl, di, old, &t), fn);
    } else if (strcasecmp(fn, "hindexed") == 0) {
        n = ints(p, bl);
        expect(p, ',');
        same(p, aints(p, da), n, "displacements");
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_hindexed(n, bl, da, old, &t), fn);
    } else if (strcasecmp(fn, "indexed_block") == 0) {
        blocklen = small(p);
        expect(p, ',');
        n = ints(p, di);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_indexed_block(n, blocklen, di, old, &t), fn);
    } else if (strcasecmp(fn, "hindexed_block") == 0) {
        blocklen = small(p);
        expect(p, ',');
        n = aints(p, da);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_hindexed_block(n, blocklen, da, old, &t), fn);
    } else if (strcasecmp(fn, "struct") == 0) {
        n = ints(p, bl);
        expect(p, ',');
        same(p, aints(p, da), n, "displacements");
        expect(p, ',');
        expect(p, '[');
        i = 0;
        if (!peek(p, ']')) {
            do {
                if (i == MAX_LIST)
                    fail(p, "more than %d list entries", MAX_LIST);
                types[i++] = type(p);
            } while (peek(p, ','));
            expect(p, ']');
        }
        same(p, i, n, "types");
        check(p, MPI_Type_create_struct(n, bl, da, types, &t), fn);
    } else if (strcasecmp(fn, "subarray") == 0) {
        n = ints(p, sizes);
        expect(p, ',');
        same(p, ints(p, subs), n, "subsizes");
        expect(p, ',');
        same(p, ints(p, starts), n, "starts");
        expect(p, ',');
        ord = order(p);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_subarray(n, sizes, subs, starts, ord, old, &t), fn);
    } else if (strcasecmp(fn, "darray") == 0) {
        size = small(p);
        expect(p, ',');
        rank = small(p);
        expect(p, ',');
        n = ints(p, sizes);
        expect(p, ',');
        same(p, distribs(p, dist), n, "distribs");
        expect(p, ',');
        same(p, dargs(p, darg_v), n, "dargs");
        expect(p, ',');
        same(p, ints(p, psizes), n, "psizes");
        expect(p, ',');
        ord = order(p);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_darray(size, rank, n, sizes, dist, darg_v, psizes, ord, old, &t), fn);
    } else if (strcasecmp(fn, "resized") == 0) {
        lb = (MPI_Aint)integer(p);
        expect(p, ',');
        extent = (MPI_Aint)integer(p);
        expect(p, ',');
        old = type(p);
        check(p, MPI_Type_create_resized(old, lb, extent, &t), fn);
    } else if (strcasecmp(fn, "dup") == 0) {
        old = type(p);
        check(p, MPI_Type_dup(old, &t), fn);
    } else {
        fail(p, "unknown constructor %s", fn);
    }
    keep(p, t);
    expect(p, ')');
    return t;
}

/* type reads a predefined name, name=T or a constructor call. */
static MPI_Datatype type(struct parser *p)
{
    char w[256];
    MPI_Datatype t;
    size_t at;

    skip(p);
    at = p->pos;
    word(p, w, sizeof w);
    if (peek(p, '=')) {
        t = type(p);
        if (p->nmade == 0 || p->made[p->nmade - 1] != t) {
            p->pos = at;
            fail(p, "predefined type cannot be renamed");
        }
        check(p, MPI_Type_set_name(t, w), "set_name");
        return t;
    }
    if (peek(p, '(')) {
        if (++p->depth > MAX_DEPTH)
            fail(p, "constructors nested deeper than %d", MAX_DEPTH);
        t = call(p, w);
        p->depth--;
        return t;
    }
    switch (lookup(w, &t)) {
    case 0:
        p->pos = at;
        fail(p, "unknown type %s", w);
        break;
    case -1:
        p->pos = at;
        fail(p, "unsupported type %s", w);
        break;
    }
    return t;
}

/* pack writes to out the hex of MPI_Pack of count instances of t, from a
 * buffer of span bytes (and GUARD more either side) whose byte at offset o
 * from lo holds (o >> shift) & 0xff. It returns an MPI error code. */
static int pack(MPI_Datatype t, int count, MPI_Aint lo, MPI_Aint span, int shift, char *out)
{
    unsigned char *mem = malloc((size_t)span + 2 * GUARD), *packed = NULL;
    MPI_Aint o;
    int size = 0, pos = 0, i, rc;

    for (o = -GUARD; o < span + GUARD; o++)
        mem[o + GUARD] = (unsigned char)(o >> shift);
    rc = MPI_Pack_size(count, t, MPI_COMM_SELF, &size);
    if (rc == MPI_SUCCESS) {
        packed = malloc((size_t)size + 1);
        /* the buffer address is that of offset 0 of the first instance */
        rc = MPI_Pack(mem + GUARD - lo, count, t, packed, size, &pos, MPI_COMM_SELF);
    }
    for (i = 0; i < pos; i++)
        sprintf(out + 2 * i, "%02x", packed[i]);
    free(packed);
    free(mem);
    return rc;
}

/* line handles one input line and prints one output line. */
static void line(const char *s)
{
    static struct parser p; /* static: it stays valid across longjmp */
    MPI_Datatype t;
    MPI_Count size;
    MPI_Aint lb, extent, tlb, textent, lo, hi;
    long long count;
    char *hex;
    size_t n;
    int i, rc;

    memset(&p, 0, sizeof p);
    p.s = s;
    if (setjmp(p.fail)) {
        /* MPI error strings are multi-line: keep the answer on one line */
        for (i = 0; p.err[i] != 0; i++)
            if (p.err[i] == '\n')
                p.err[i] = ' ';
        printf("ERR %s\n", p.err);
        goto done;
    }
    count = integer(&p);
    if (count < 0 || count > 1000)
        fail(&p, "count %lld is not between 0 and 1000", count);
    t = type(&p);
    skip(&p);
    if (p.s[p.pos] != 0)
        fail(&p, "unexpected text after the type");
    check(&p, MPI_Type_commit(&t), "commit");
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);

    /* the bytes the count instances touch: [lo, hi) */
    lo = tlb + (extent < 0 ? (MPI_Aint)(count - 1) * extent : 0);
    hi = tlb + textent + (extent > 0 ? (MPI_Aint)(count - 1) * extent : 0);
    if (size * count > 0 && (hi - lo > MAX_SPAN || size * count > MAX_SPAN))
        fail(&p, "span of %lld bytes or packed size %lld above %d", (long long)(hi - lo),
             (long long)(size * count), MAX_SPAN);
    /* pack both patterns first: an error must not leave half a line */
    hex = NULL;
    n = 2 * (size_t)(size * count) + 1;
    if (size * count > 0) {
        hex = calloc(2, n);
        rc = pack(t, (int)count, lo, hi - lo, 0, hex);
        if (rc == MPI_SUCCESS)
            rc = pack(t, (int)count, lo, hi - lo, 8, hex + n);
        if (rc != MPI_SUCCESS) {
            free(hex);
            check(&p, rc, "pack");
        }
    }
    printf("%lld %lld %lld %lld %lld %s %s\n", (long long)size, (long long)lb, (long long)extent,
           (long long)tlb, (long long)textent, hex ? hex : "-", hex ? hex + n : "-");
    free(hex);
done:
    for (i = 0; i < p.nmade; i++)
        MPI_Type_free(&p.made[i]);
}

int main(int argc, char **argv)
{
    static char buf[MAX_LINE];
    size_t n;
    int c;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    while (fgets(buf, sizeof buf, stdin) != NULL) {
        n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\n') {
            buf[n - 1] = 0;
        } else if (!feof(stdin)) {
            while ((c = getchar()) != EOF && c != '\n')
                ;
            printf("ERR line longer than %d bytes\n", MAX_LINE - 2);
            continue;
        }
        line(buf);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
