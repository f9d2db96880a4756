// SPDX-License-Identifier: MIT
/*
 * libdatacrumbs-client.so: a process that loads it (linked, or through
 * LD_PRELOAD) asks a running datacrumbs-runtime --server to trace it and
 * its children. It does nothing else: the server has a uprobe on
 * datacrumbs_client_join(), which the constructor calls once.
 */

/* Not inlined or merged away: the server's probe is on this symbol. */
__attribute__((visibility("default"), noinline, used)) void
datacrumbs_client_join(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((constructor)) static void datacrumbs_client_init(void)
{
	datacrumbs_client_join();
}
