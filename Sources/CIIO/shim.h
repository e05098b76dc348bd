#ifndef ROTATIOND_CIIO_SHIM_H
#define ROTATIOND_CIIO_SHIM_H
#include <iio.h>
#endif
