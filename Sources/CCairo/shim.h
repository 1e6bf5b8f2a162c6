#ifndef HAWALA_CCAIRO_SHIM_H
#define HAWALA_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>
#endif
