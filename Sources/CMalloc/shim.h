#ifndef ROTATIOND_CMALLOC_SHIM_H
#define ROTATIOND_CMALLOC_SHIM_H
/* glibc's mallopt and malloc_trim, which Glibc's Swift module does not import (<malloc.h>). malloc_trim gives
 * the free pages of every arena back to the kernel (MADV_DONTNEED inside an arena, not only at its top). */
#include <malloc.h>

/* One malloc arena for all threads, set before any thread starts: the threads of a service that allocates a
 * few hundred kB at a time share one heap, which the trim below gives back, instead of each keeping an arena
 * of its own. 1 on success. */
static inline int rotationd_malloc_one_arena(void) { return mallopt(M_ARENA_MAX, 1); }

/* Gives back every arena's free pages; 1 when some memory was released. */
static inline int rotationd_malloc_trim(void) { return malloc_trim(0); }
#endif
