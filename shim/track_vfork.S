/* vfork for the access tracker (track_spawn.c). Its child shares the
 * parent's memory, watched pages included, until it execs or exits, and
 * execve(2) reads the arguments and the environment from there: every
 * watched page is held open from before the system call until the parent
 * runs again. The child returns into the caller's frame, as from glibc's
 * vfork, so the return address is not kept on the stack, which the
 * child writes, but in a thread-local slot (the child runs with the
 * parent's thread pointer); the child skips the hold's end, which is
 * the parent's. */
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
    .section .note.GNU-stack, "", @progbits
#endif
