/*
 * CPython 3.11's line tables (Objects/locations.md in its sources): one
 * entry per run of code units, a first byte with bit 7 set, the kind in
 * bits 3-6 and the run's length - 1 in bits 0-2, then bytes with bit 7
 * clear. Lines are deltas from co_firstlineno: kind 15 has no location,
 * 14 (long form) and 13 (no columns) start with a signed varint delta,
 * 10-12 are deltas 0-2, 0-9 delta 0. The same walk as CPython's
 * PyCode_Addr2Line over the table, which never changes once the code
 * object exists, without the line array it may be building in another
 * thread.
 */
#include "pyline.h"

/* varint reads an unsigned varint: 6 bits a byte, low first, bit 6 set
 * while more follow. */
static int varint(const uint8_t **p, const uint8_t *end, unsigned *v)
{
    if (*p >= end)
        return 0;
    unsigned b = *(*p)++, val = b & 63, shift = 0;
    while (b & 64) {
        if (*p >= end || shift >= 24)
            return 0;
        b = *(*p)++;
        shift += 6;
        val |= (b & 63) << shift;
    }
    *v = val;
    return 1;
}

/* walk calls fn for each entry (its first unit, its length, its line or
 * -1) until fn returns non-zero, which it returns; -1 for a malformed
 * table. */
static int walk(const uint8_t *t, size_t n, int first, int (*fn)(uint32_t at, uint32_t len, int line, void *arg), void *arg)
{
    const uint8_t *p = t, *end = t + n;
    int line = first;
    uint32_t at = 0;
    while (p < end) {
        uint8_t b = *p;
        if (!(b & 128))
            return -1;
        unsigned kind = (b >> 3) & 15, len = (b & 7) + 1u;
        const uint8_t *q = p + 1;
        unsigned u;
        switch (kind) {
        case 14:
        case 13:
            if (!varint(&q, end, &u))
                return -1;
            line += (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
            break;
        case 12:
        case 11:
        case 10:
            line += (int)kind - 10;
            break;
        }
        int r = fn(at, len, kind == 15 ? -1 : line, arg);
        if (r)
            return r;
        at += len;
        for (p++; p < end && !(*p & 128); p++)
            ;
    }
    return 0;
}

struct line_of {
    uint32_t unit;
    int line;
};

static int line_of(uint32_t at, uint32_t len, int line, void *arg)
{
    struct line_of *l = arg;
    if (l->unit < at + len) {
        l->line = line;
        return 1;
    }
    return 0;
}

int mpidbg_py_line(const uint8_t *t, size_t n, int first, uint32_t unit)
{
    struct line_of l = {unit, -1};
    walk(t, n, first, line_of, &l);
    return l.line;
}

static int is_line(uint32_t at, uint32_t len, int line, void *arg)
{
    (void)at;
    (void)len;
    return line == *(const int *)arg;
}

int mpidbg_py_has_line(const uint8_t *t, size_t n, int first, int line)
{
    return line > 0 && walk(t, n, first, is_line, &line) == 1;
}
