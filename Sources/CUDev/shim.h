#ifndef ROTATIOND_CUDEV_SHIM_H
#define ROTATIOND_CUDEV_SHIM_H
#include <libudev.h>
#endif
