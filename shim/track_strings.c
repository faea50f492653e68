/*
 * Loads by libc's string functions beside a watched buffer.
 *
 * glibc's vectorised string functions (strlen, strchr, memchr and the
 * others below) read whole aligned vectors, 16 to 128 bytes, and look at
 * the bytes up to the string's end only: a vector that holds a string's
 * last bytes also holds the bytes after it, and near a page's end the
 * vector before the string. A string beside a pending receive buffer (a
 * record's name before its data, a std::string searched with find) makes
 * such a load touch the buffer, though the program never reads it
 * (MPI-4.1 §3.7.2 is about the program's accesses; glibc may read what
 * it likes). Which bytes the function used is known only to it.
 *
 * So such a load is a false hit (stepped past, the buffer still watched)
 * when the call that led there called one of these functions: the call
 * instruction before the return address (the top of the stack, these
 * functions keep no frame) names the function directly, through a PLT
 * entry or through its GOT slot (-fno-plt), which holds the
 * implementation glibc chose (dlsym gives the same address). The price:
 * a program that does read a pending buffer through strlen or printf's
 * %s is not told (docs/races.md). A call the decoding does not recognise
 * (a tail call, a call through a register) is reported as before.
 *
 * tr_string_call is async-signal-safe: the addresses are resolved when
 * the tracker starts, and every read goes through the kernel (tr_peek).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "shim.h"
#include "track_int.h"

static const char *const names[] = {
    "strlen",  "strnlen", "strchr",  "strchrnul", "strrchr",    "memchr",      "memrchr", "rawmemchr", "strcmp",
    "strncmp", "strcasecmp", "strncasecmp", "strcpy", "stpcpy", "strncpy", "stpncpy", "strcat", "strncat",
    "strspn",  "strcspn", "strpbrk", "strstr", "strcasestr", "wcslen", "wcsnlen", "wcschr", "wcsrchr",
    "wcscmp",  "wcsncmp", "wmemchr", "wcscpy", "wcscat",
};
#define NNAMES (sizeof names / sizeof names[0])
static uint64_t impl[NNAMES]; /* written once, before any range is watched */

void tr_strings_init(void)
{
    for (size_t i = 0; i < NNAMES; i++)
        impl[i] = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, names[i]);
}

static int is_impl(uint64_t a)
{
    for (size_t i = 0; a && i < NNAMES; i++)
        if (impl[i] == a)
            return 1;
    return 0;
}

/* through_plt is the address a PLT entry at t jumps to (its GOT slot), 0
 * when t is not one: jmp *d(%rip), with endbr64 and bnd before it */
static uint64_t through_plt(uint64_t t)
{
    uint8_t p[16];
    if (!tr_peek(t, p, sizeof p))
        return 0;
    int at = 0;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
        at = 4; /* endbr64 */
    if (p[at] == 0xf2)
        at++; /* bnd */
    if (p[at] != 0xff || p[at + 1] != 0x25)
        return 0;
    int32_t d;
    memcpy(&d, p + at + 2, sizeof d);
    uint64_t slot = t + (uint64_t)at + 6 + (uint64_t)(int64_t)d, v = 0;
    return tr_peek(slot, &v, sizeof v) ? v : 0;
}

int tr_string_call(uint64_t ra)
{
    if (!ra)
        return 0;
    uint8_t c[6];
    if (!tr_peek(ra - 6, c, sizeof c))
        return 0;
    int32_t rel;
    if (c[0] == 0xff && c[1] == 0x15) {
        /* call *d(%rip): a call through the GOT (-fno-plt) */
        uint64_t v = 0;
        memcpy(&rel, c + 2, sizeof rel);
        return tr_peek(ra + (uint64_t)(int64_t)rel, &v, sizeof v) && is_impl(v);
    }
    if (c[1] != 0xe8)
        return 0; /* not a direct call */
    memcpy(&rel, c + 2, sizeof rel);
    uint64_t t = ra + (uint64_t)(int64_t)rel;
    return is_impl(t) || is_impl(through_plt(t));
}
