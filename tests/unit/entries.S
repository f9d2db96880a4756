/* SPDX-License-Identifier: MIT */
/*
 * Function entries and syscall wrappers with known answers, for
 * test_placement: each name says what the analyses must find.
 */
	.text
	.data
flag:	.byte 0
	.text

#define FUNC(name) .globl name; .type name, @function; name:
#define END(name) .size name, . - name

/* cmpb (RIP-relative, single-stepped), then je (emulated): +7. */
FUNC(pp_cmp_je)
	cmpb $0, flag(%rip)
	je 1f
	mov %rdi, %rax
1:	ret
END(pp_cmp_je)

/* push is emulated where it is: +0, fast. */
FUNC(pp_push)
	push %rbp
	pop %rbp
	ret
END(pp_push)

/* The stack pointer moves first: slow at +0. */
FUNC(pp_sub_rsp)
	sub $8, %rsp
	add $8, %rsp
	ret
END(pp_sub_rsp)

/* rdx (argument 2) is written before the jmp: fast at +3 only when
 * argument 2 is not captured. */
FUNC(pp_write_arg2)
	mov %rsi, %rdx
	jmp 1f
1:	ret
END(pp_write_arg2)

/* A store before the jcc: slow. */
FUNC(pp_store)
	mov %rdi, (%rsi)
	je 1f
1:	ret
END(pp_store)

/* The loop jumps back onto the je: moving there would count each
 * iteration as a call. Slow. */
FUNC(pp_jump_into)
	cmpb $0, flag(%rip)
1:	je 2f
	dec %rax
	jmp 1b
2:	ret
END(pp_jump_into)

/* A 66-prefixed jmp is not emulated; the nop after it is not reached
 * without passing it: slow. */
FUNC(pp_jmp66)
	.byte 0x66, 0xeb, 0x00
	nop
	ret
END(pp_jmp66)

/* testl reads memory (Capstone 4 says it writes it): +6, fast. */
FUNC(pp_test_mem)
	testl $0x2000, (%rdi)
	jne 1f
1:	ret
END(pp_test_mem)

/* getline's shape: argument 2 copied to rcx, then overwritten: fast at
 * +8 reading it from argument register 3 where the cookie may say so,
 * slow otherwise. */
FUNC(pp_moved)
	mov %rdx, %rcx
	mov $0xa, %edx
	jmp 1f
1:	ret
END(pp_moved)

/* fprintf's shape: a frame, a call, the stack protector's jne, ret.
 * With return sites: the entry at the call (+9), its return at the jne
 * (+22), where rax is what the function returns. */
FUNC(rs_frame)
	sub $0x18, %rsp
	mov %rdx, 8(%rsp)
	call pp_push
	mov 8(%rsp), %rdx
	test %rdx, %rdx
	jne 1f
	add $0x18, %rsp
	ret
1:	ud2
END(rs_frame)

/* Two returns with no emulated instruction both pass: slow. */
FUNC(rs_two_rets)
	sub $8, %rsp
	test %rdi, %rdi
	je 1f
	call pp_push
	add $8, %rsp
	ret
1:	xor %eax, %eax
	add $8, %rsp
	ret
END(rs_two_rets)

/* rax is written after the only candidate: slow. */
FUNC(rs_rax_after)
	sub $8, %rsp
	call pp_push
	test %rax, %rax
	jne 1f
1:	mov $1, %eax
	add $8, %rsp
	ret
END(rs_rax_after)

/* The candidate is in a loop, passed more than once a call: slow. */
FUNC(rs_loop)
	sub $8, %rsp
	call pp_push
1:	dec %rdi
	jne 1b
	add $8, %rsp
	ret
END(rs_loop)

/* A thin wrapper: pwrite64's shape, argument 3 moved to r10. */
FUNC(w_thin)
	mov %rcx, %r10
	mov $18, %eax
	syscall
	ret
END(w_thin)

/* Arguments reordered into openat(AT_FDCWD, path, flags). */
FUNC(w_reorder)
	mov %esi, %edx
	mov %rdi, %rsi
	mov $-100, %edi
	mov $257, %eax
	syscall
	ret
END(w_reorder)

/* Two paths, one saving the fd across a call: still a wrapper, the fd
 * passed as 32 bits on one of them. */
FUNC(w_spill)
	cmpb $0, flag(%rip)
	je 1f
	mov $3, %eax
	syscall
	ret
1:	sub $24, %rsp
	mov %edi, 8(%rsp)
	call pp_push
	mov 8(%rsp), %edi
	mov $3, %eax
	syscall
	add $24, %rsp
	ret
END(w_spill)

/* Returns early on a negative fd: not every call makes the syscall. */
FUNC(w_early)
	test %edi, %edi
	js 1f
	mov $3, %eax
	syscall
1:	ret
END(w_early)

/* Two syscalls in one call. */
FUNC(w_two)
	mov $3, %eax
	syscall
	mov $3, %eax
	syscall
	ret
END(w_two)

/* Retried on EINTR: a loop around the syscall. */
FUNC(w_retry)
1:	mov $0, %eax
	syscall
	cmp $-4, %rax
	je 1b
	ret
END(w_retry)

/* The syscall number depends on the path. */
FUNC(w_two_numbers)
	test %edi, %edi
	js 1f
	mov $0, %eax
	syscall
	ret
1:	mov $1, %eax
	syscall
	ret
END(w_two_numbers)

/* An indirect jump cannot be followed. */
FUNC(w_indirect)
	jmp *%rax
END(w_indirect)

/* A tail call into another function: the syscall is not its own. */
FUNC(w_tail)
	mov %rsi, %rdx
	jmp w_thin
END(w_tail)

	.section .note.GNU-stack, "", @progbits
