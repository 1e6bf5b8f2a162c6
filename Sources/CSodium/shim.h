#ifndef HAWALA_CSODIUM_SHIM_H
#define HAWALA_CSODIUM_SHIM_H
#include <sodium.h>
#endif
