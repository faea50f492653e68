/* Functions that return twice, for the access tracker: wrapped here,
 * in assembly, since a C wrapper's frame would be gone by the second
 * return.
 *
 * vfork (track_spawn.c): its child shares the parent's memory, watched
 * pages included, until it execs or exits, and execve(2) reads the
 * arguments and the environment from there: every watched page is held
 * open from before the system call until the parent runs again. The
 * child returns into the caller's frame, as from glibc's vfork, so the
 * return address is not kept on the stack, which the child writes, but
 * in a thread-local slot (the child runs with the parent's thread
 * pointer); the child skips the hold's end, which is the parent's.
 *
 * __sigsetjmp (sigsetjmp's function; track_sigmask.c): with savemask,
 * the kernel writes the signal mask into the jump buffer, and answers
 * EFAULT on a protected page; the mask is then not saved, and the
 * siglongjmp back leaves blocked what the handler it leaves blocked. The
 * buffer's pages are made never protected first, then glibc's runs as if
 * called directly.
 *
 * getcontext, swapcontext, setcontext (track_sigmask.c): the same for
 * the contexts, whose uc_sigmask the kernel reads or writes. getcontext
 * and swapcontext save the caller's registers and return address, so the
 * context's pages are made never protected first and glibc's runs with
 * the stack and the callee-saved registers as the caller left them. */
#if defined(__x86_64__) && defined(__ELF__)
    .text
    .globl vfork
    .type vfork, @function
    .p2align 4
vfork:
    endbr64
    popq %rcx
    movq mpidbg_vfork_ra@gottpoff(%rip), %rdx
    movq %rcx, %fs:(%rdx)
    call mpidbg_vfork_begin
    movl $58, %eax /* SYS_vfork */
    syscall
    testq %rax, %rax
    jz 1f
    movq %rax, %rdi
    call mpidbg_vfork_end
1:
    movq mpidbg_vfork_ra@gottpoff(%rip), %rdx
    jmp *%fs:(%rdx)
    .size vfork, .-vfork

    .globl __sigsetjmp
    .type __sigsetjmp, @function
    .p2align 4
__sigsetjmp:
    endbr64
    pushq %rdi
    pushq %rsi
    subq $8, %rsp
    call mpidbg_sigsetjmp_prepare
    addq $8, %rsp
    popq %rsi
    popq %rdi
    jmp *mpidbg_next_sigsetjmp(%rip)
    .size __sigsetjmp, .-__sigsetjmp
/* one_context NAME: NAME(ucp), glibc's after ucp's pages are seen to */
.macro one_context name
    .globl \name
    .type \name, @function
    .p2align 4
\name:
    endbr64
    pushq %rdi
    movq %rdi, %rdx
    xorl %ecx, %ecx
    leaq mpidbg_next_\name(%rip), %rdi
    leaq name_\name(%rip), %rsi
    call mpidbg_ucontext_prepare
    popq %rdi
    jmp *mpidbg_next_\name(%rip)
    .size \name, .-\name
.endm

    one_context getcontext
    one_context setcontext

    .globl swapcontext
    .type swapcontext, @function
    .p2align 4
swapcontext:
    endbr64
    pushq %rdi
    pushq %rsi
    subq $8, %rsp
    movq %rsi, %rcx
    movq %rdi, %rdx
    leaq mpidbg_next_swapcontext(%rip), %rdi
    leaq name_swapcontext(%rip), %rsi
    call mpidbg_ucontext_prepare
    addq $8, %rsp
    popq %rsi
    popq %rdi
    jmp *mpidbg_next_swapcontext(%rip)
    .size swapcontext, .-swapcontext

    .section .rodata
name_getcontext:
    .asciz "getcontext"
name_setcontext:
    .asciz "setcontext"
name_swapcontext:
    .asciz "swapcontext"

    .section .note.GNU-stack, "", @progbits
#endif
