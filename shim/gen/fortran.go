package main

import (
	"fmt"
	"strings"
)

// FortranPath is the generated file of Fortran entry points.
const FortranPath = "shim/fortran_gen.S"

// fortranNames are the names gfortran gives a program's call of fn:
// mpif.h and the mpi module call mpi_send_, the mpi_f08 module calls
// mpi_send_f08_ (Open MPI) or mpi_send_f08ts_ (MPICH, for routines with
// a choice buffer). The large-count _c functions have no Fortran names
// of their own.
func fortranNames(fn string) []string {
	if strings.HasSuffix(fn, "_c") {
		return nil
	}
	base := strings.ToLower(fn)
	return []string{base + "_", base + "_f08_", base + "_f08ts_"}
}

// fortranS writes one trampoline per Fortran entry point of the table's
// functions (shim/fortran.c says why): it notes the program's return
// address and the stack slot that holds it in this thread's
// mpidbg_ftls, then jumps to the binding's own entry point, found at
// load time, with every register and the stack as the program left
// them. x86-64 only; elsewhere the wrappers unwind.
func fortranS(calls []*Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", Header)
	b.WriteString(`/* Fortran entry points: see shim/fortran.c. r11 and the red zone
 * are free at a function's entry (neither carries an argument); r10 is
 * saved and restored. A slot starts at the lazy resolver, which finds
 * the binding's definition at the first call (the binding may be loaded
 * after the shim, by dlopen), and receives the entry's number in r11. */
#if defined(__x86_64__) && defined(__ELF__)
#define T(name, i)                               \
    .text;                                       \
    .globl name;                                 \
    .type name, @function;                       \
    .p2align 4;                                  \
name:                                            \
    .cfi_startproc;                              \
    movq %r10, -8(%rsp);                         \
    movq mpidbg_ftls@gottpoff(%rip), %r11;       \
    movq (%rsp), %r10;                           \
    movq %r10, %fs:(%r11);                       \
    movq %rsp, %fs:8(%r11);                      \
    movq -8(%rsp), %r10;                         \
    movl $i, %r11d;                              \
    jmp *name##__next(%rip);                     \
    .cfi_endproc;                                \
    .size name, .-name;                          \
    .data;                                       \
    .p2align 3;                                  \
name##__next:                                    \
    .quad mpidbg_fortran_lazy;                   \
    .section .rodata.str1.1, "aMS", @progbits, 1; \
name##__str:                                     \
    .asciz #name

/* The first call of an entry point: the argument registers (integer and
 * vector) are kept across mpidbg_fortran_resolve(number), which returns
 * the definition and stores it in the slot. */
    .text
    .p2align 4
    .type mpidbg_fortran_lazy, @function
mpidbg_fortran_lazy:
    .cfi_startproc
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    pushq %rsi
    .cfi_adjust_cfa_offset 8
    pushq %rdx
    .cfi_adjust_cfa_offset 8
    pushq %rcx
    .cfi_adjust_cfa_offset 8
    pushq %r8
    .cfi_adjust_cfa_offset 8
    pushq %r9
    .cfi_adjust_cfa_offset 8
    pushq %rax
    .cfi_adjust_cfa_offset 8
    pushq %r10
    .cfi_adjust_cfa_offset 8
    subq $136, %rsp
    .cfi_adjust_cfa_offset 136
    movdqu %xmm0, 0(%rsp)
    movdqu %xmm1, 16(%rsp)
    movdqu %xmm2, 32(%rsp)
    movdqu %xmm3, 48(%rsp)
    movdqu %xmm4, 64(%rsp)
    movdqu %xmm5, 80(%rsp)
    movdqu %xmm6, 96(%rsp)
    movdqu %xmm7, 112(%rsp)
    movq %r11, %rdi
    call mpidbg_fortran_resolve
    movq %rax, %r11
    movdqu 0(%rsp), %xmm0
    movdqu 16(%rsp), %xmm1
    movdqu 32(%rsp), %xmm2
    movdqu 48(%rsp), %xmm3
    movdqu 64(%rsp), %xmm4
    movdqu 80(%rsp), %xmm5
    movdqu 96(%rsp), %xmm6
    movdqu 112(%rsp), %xmm7
    addq $136, %rsp
    popq %r10
    popq %rax
    popq %r9
    popq %r8
    popq %rcx
    popq %rdx
    popq %rsi
    popq %rdi
    .cfi_adjust_cfa_offset -200
    jmp *%r11
    .cfi_endproc
    .size mpidbg_fortran_lazy, .-mpidbg_fortran_lazy

`)
	var names []string
	for _, c := range calls {
		names = append(names, fortranNames(c.Name)...)
	}
	for i, n := range names {
		fmt.Fprintf(&b, "T(%s, %d)\n", n, i)
	}
	b.WriteString("\n/* The entry points by number, for mpidbg_fortran_resolve: name, slot. */\n")
	b.WriteString("    .data\n    .p2align 3\n    .globl mpidbg_fortran_entries\n    .hidden mpidbg_fortran_entries\nmpidbg_fortran_entries:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "    .quad %s__str, %s__next\n", n, n)
	}
	fmt.Fprintf(&b, "    .globl mpidbg_fortran_nentries\n    .hidden mpidbg_fortran_nentries\nmpidbg_fortran_nentries:\n    .quad %d\n", len(names))
	b.WriteString("    .section .note.GNU-stack, \"\", @progbits\n#endif\n")
	return b.String()
}
