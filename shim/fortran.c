/*
 * Fortran programs. Each library's Fortran bindings convert the
 * arguments (handles through the f2c functions, MPI_BOTTOM and
 * MPI_IN_PLACE, statuses, strings, LOGICALs) and call the C binding, then
 * set ierror from its return code. MPICH's mpif.h layer (libmpichfort)
 * calls MPI_Xxx, which the wrappers interpose already; its mpi_f08 layer
 * and all of Open MPI's (libmpi_mpifh, which libmpi_usempif08 calls in
 * turn) call PMPI_Xxx, which nothing interposes. So before the program
 * runs, the shim points each binding library's PMPI_Xxx imports (its
 * relocated GOT slots) at its own MPI_Xxx wrapper: every Fortran call
 * then takes the C checks with C arguments, and the library's own
 * binding keeps doing the conversions and setting ierror, exactly as it
 * would without mpidbg.
 *
 * A wrapper called from a binding names the program's Fortran line, not
 * the binding. The shim defines the Fortran entry points a program calls
 * (mpi_send_, mpi_send_f08_, mpi_send_f08ts_: fortran_gen.S), each a
 * trampoline that notes the program's return address and the stack slot
 * holding it, then jumps to the binding's own definition. While that
 * slot still holds that address, the binding's frame is live and the
 * address is the program's call (a few loads). Otherwise (an entry point
 * the table lacks, another architecture) mpidbg_binding_caller unwinds
 * to the first frame outside the shim and the bindings (about 100 ns a
 * frame).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unwind.h>

#include "shim.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

/* Fortran binding libraries of MPICH (and its derivatives, which call
 * it libmpifort) and Open MPI, by the start of their file names. */
static const char *const bindings[] = {
    "libmpichfort", "libmpifort", "libmpi_mpifh", "libmpi_usempif08", "libmpi_usempi_ignore_tkr", "libmpi_usempi.",
};

struct mpidbg_text mpidbg_bind[MPIDBG_NBIND];
int mpidbg_nbind;

static uintptr_t self_lo, self_hi; /* the shim's own executable segment */

/* What the last trampoline this thread went through noted: the
 * program's return address and the address of the slot holding it.
 * Written by fortran_gen.S (initial-exec: a fixed offset from %fs). */
__thread struct {
    uintptr_t caller, slot;
} mpidbg_ftls __attribute__((tls_model("initial-exec")));

/* The trampolines' table (fortran_gen.S): each entry point's name and
 * the slot its trampoline jumps through. */
extern struct {
    const char *name;
    void **slot;
} mpidbg_fortran_entries[] MPIDBG_HIDDEN;
extern uint64_t mpidbg_fortran_nentries MPIDBG_HIDDEN;

/* An entry point's first call: the next definition of its name (the
 * binding's), stored for the later calls. A name no library defines
 * ends the process as the dynamic linker would have. */
MPIDBG_HIDDEN void *mpidbg_fortran_resolve(uint64_t i)
{
    const char *name = i < mpidbg_fortran_nentries ? mpidbg_fortran_entries[i].name : "?";
    void *p = i < mpidbg_fortran_nentries ? dlsym(RTLD_NEXT, name) : NULL;
    if (!p) {
        char msg[256];
        int n = snprintf(msg, sizeof msg, "mpidbg: the Fortran MPI routine %s is defined by no loaded library\n", name);
        if (n > 0)
            (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        abort();
    }
    __atomic_store_n(mpidbg_fortran_entries[i].slot, p, __ATOMIC_RELEASE);
    return p;
}

static int is_binding(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
        if (strncmp(base, bindings[i], strlen(bindings[i])) == 0)
            return 1;
    return 0;
}

/* A pointer from the dynamic section: glibc rewrites most of them to
 * run-time addresses when it loads an object, other loaders may not. */
static uintptr_t dyn_ptr(uintptr_t base, ElfW(Addr) p)
{
    return p < base ? base + p : p;
}

#ifdef R_JUMP_SLOT
/* Writes one GOT slot, which may lie in the read-only-after-relocation
 * segment (PT_GNU_RELRO): made writable for the store, read-only again. */
static void write_slot(uintptr_t slot, uintptr_t value, uintptr_t relro_lo, uintptr_t relro_hi)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = slot & ~(uintptr_t)(pg - 1);
    /* the loader protects the segment's whole pages only: a last page it
     * shares with .got.plt or .data stays writable, and must stay so */
    int ro = slot >= relro_lo && slot < (relro_hi & ~(uintptr_t)(pg - 1));
    if (ro && mprotect((void *)page, (size_t)pg, PROT_READ | PROT_WRITE) != 0)
        return;
    __atomic_store_n((uintptr_t *)slot, value, __ATOMIC_RELEASE);
    if (ro)
        mprotect((void *)page, (size_t)pg, PROT_READ);
}

/* Points every PMPI_Xxx import of a relocation table at the shim's
 * MPI_Xxx, when the shim defines one. */
static void redirect(uintptr_t base, const ElfW(Rela) * rel, size_t n, const ElfW(Sym) * syms, const char *strs,
                    uintptr_t relro_lo, uintptr_t relro_hi)
{
    for (size_t i = 0; i < n; i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        if (type != R_JUMP_SLOT && type != R_GLOB_DAT)
            continue;
        const char *name = strs + syms[ELF64_R_SYM(rel[i].r_info)].st_name;
        if (strncmp(name, "PMPI_", 5) != 0)
            continue;
        /* the shim's definition, not one found in its dependencies */
        uintptr_t ours = (uintptr_t)dlsym(RTLD_DEFAULT, name + 1);
        if (ours < self_lo || ours >= self_hi)
            continue;
        write_slot(base + rel[i].r_offset, ours, relro_lo, relro_hi);
    }
}
#endif

static int binding_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!info->dlpi_name || !is_binding(info->dlpi_name) || mpidbg_nbind >= MPIDBG_NBIND)
        return 0;
    uintptr_t base = info->dlpi_addr, relro_lo = 0, relro_hi = 0;
    const ElfW(Dyn) *dyn = NULL;
    struct mpidbg_text text = {0, 0};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            relro_lo = base + ph->p_vaddr;
            relro_hi = relro_lo + ph->p_memsz;
        } else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            text.lo = base + ph->p_vaddr;
            text.hi = text.lo + ph->p_memsz;
        }
    }
    if (text.hi > text.lo)
        mpidbg_bind[mpidbg_nbind++] = text;
#ifdef R_JUMP_SLOT
    if (!dyn)
        return 0;
    const ElfW(Sym) *syms = NULL;
    const char *strs = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t njmp = 0, nrela = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: syms = (const ElfW(Sym) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strs = (const char *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: njmp = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: nrela = dyn->d_un.d_val / sizeof(ElfW(Rela)); break;
        }
    }
    if (!syms || !strs)
        return 0;
    if (jmprel)
        redirect(base, jmprel, njmp, syms, strs, relro_lo, relro_hi);
    if (rela)
        redirect(base, rela, nrela, syms, strs, relro_lo, relro_hi);
#endif
    return 0;
}

/* Before the program's main: every object it links is loaded and
 * relocated by then, constructors come after relocation. */
__attribute__((constructor)) static void fortran_bindings(void)
{
    struct mpidbg_text self = mpidbg_text_of((uintptr_t)&fortran_bindings);
    self_lo = self.lo;
    self_hi = self.hi;
    if (self_hi > self_lo)
        dl_iterate_phdr(binding_cb, NULL);
}

#define BINDING_FRAMES (64 * 1024) /* bytes of stack the wrapper's and the binding's frames may take */

struct unwind_walk {
    uintptr_t pc;
    int frames;
};

int mpidbg_in_binding(uintptr_t pc)
{
    for (int i = 0; i < mpidbg_nbind; i++)
        if (pc - mpidbg_bind[i].lo < mpidbg_bind[i].hi - mpidbg_bind[i].lo)
            return 1;
    return 0;
}

static _Unwind_Reason_Code unwind_cb(struct _Unwind_Context *ctx, void *arg)
{
    struct unwind_walk *w = arg;
    uintptr_t pc = _Unwind_GetIP(ctx);
    if (++w->frames > 16 || !pc)
        return _URC_END_OF_STACK;
    if ((pc >= self_lo && pc < self_hi) || mpidbg_in_binding(pc))
        return _URC_NO_REASON;
    w->pc = pc;
    return _URC_END_OF_STACK;
}

void *mpidbg_binding_caller(void *ra)
{
    if (!mpidbg_in_binding((uintptr_t)ra))
        return ra;
#if defined(__x86_64__)
    /* The slot lies above this frame while the binding's frame is live;
     * a binding that called its own entry point noted itself: unwind. */
    uintptr_t caller = mpidbg_ftls.caller, slot = mpidbg_ftls.slot;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    /* within the binding's few frames above this one: a slot noted on
     * another stack (a user-level thread's, a finished coroutine's) is
     * never read */
    if (slot > here && slot - here < BINDING_FRAMES && *(const uintptr_t *)slot == caller && !mpidbg_in_binding(caller) &&
        !(caller >= self_lo && caller < self_hi))
        return (void *)caller;
#endif
    struct unwind_walk w = {0, 0};
    _Unwind_Backtrace(unwind_cb, &w);
    return w.pc ? (void *)w.pc : ra;
}
