#ifndef HAWALA_CHARDENING_SHIM_H
#define HAWALA_CHARDENING_SHIM_H
// Keeping secrets out of core dumps: prctl(2) is variadic, which Swift can't call.
#ifdef __linux__
#include <sys/prctl.h>
static inline int hawala_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
static inline int hawala_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
#else
static inline int hawala_set_not_dumpable(void) { return 0; }
static inline int hawala_is_dumpable(void) { return 0; }
#endif
#endif
