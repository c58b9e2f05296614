/* COSShim: operating-system helpers Swift cannot call directly (variadic syscall() and prctl()).
 * Linux only; no GStreamer. */
#ifndef COSSHIM_H
#define COSSHIM_H

/** The calling thread's kernel id (gettid), e.g. for setpriority() on that one thread. */
int COSShim_gettid (void);

/** Names the calling thread, as top -H and debuggers show it; Linux keeps the first 15 bytes. */
void COSShim_set_thread_name (const char *name);

#endif
