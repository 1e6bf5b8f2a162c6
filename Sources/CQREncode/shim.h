#ifndef HAWALA_CQRENCODE_SHIM_H
#define HAWALA_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
