#ifndef HAWALA_CMALLOC_SHIM_H
#define HAWALA_CMALLOC_SHIM_H
// glibc's allocator tuning (mallopt), which Swift's Glibc module leaves out.
#include <malloc.h>

// Set once at the start of each executable (hawala, hawala-vault, hawala-bench).
// Backups stream 64 KiB chunks through swift-crypto, which allocates each result; without a
// high trim threshold glibc returns the freed top of the heap to the kernel after every chunk
// and faults it back in, halving import throughput. Setting the trim threshold freezes glibc's
// mmap threshold at 128 KiB, so every 1 MiB buffer (vault bodies are copied in 1 MiB buffers)
// would be a fresh mmap faulted in page by page: raise it too.
static inline void hawala_tune_malloc(void) {
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
}
#endif
