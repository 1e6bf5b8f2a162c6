#ifndef HAWALA_CMALLOC_SHIM_H
#define HAWALA_CMALLOC_SHIM_H
// glibc's allocator tuning (mallopt), which Swift's Glibc module leaves out.
#include <malloc.h>
static const int hawala_m_trim_threshold = M_TRIM_THRESHOLD;
static const int hawala_m_mmap_threshold = M_MMAP_THRESHOLD;
#endif
