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

// Crashes end by their signal (no core once the process is undumpable), without the Swift
// runtime's backtrace, which prints every register and the memory around it — where a secret
// may be. Called first thing by Hawala's programs (hawala, hawala-vault); never by tests under
// a sanitizer, whose own reports need these signals.
#include <signal.h>
static inline void hawala_quiet_crashes(void) {
    const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT };
    for (unsigned i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
}
#endif
