#ifndef ROTATIOND_CIIOEVENTS_SHIM_H
#define ROTATIOND_CIIOEVENTS_SHIM_H
/* The IIO event interface, from the kernel's UAPI headers (linux-libc-dev): libiio 0.24 has no event API. The
 * request number and the IIO_EVENT_CODE_EXTRACT_* macros are function-like macros Swift cannot import, so the
 * calls live here. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/iio/events.h>

/* IIO_GET_EVENT_FD_IOCTL on an open /dev/iio:deviceN: the new event descriptor (O_RDONLY, O_CLOEXEC, one per
 * device at a time), else -1 with errno (EBUSY: another descriptor is open; ENODEV: the device has no events). */
static inline int rotationd_iio_event_fd(int node) {
    int fd = -1;
    if (ioctl(node, IIO_GET_EVENT_FD_IOCTL, &fd) < 0) return -1;
    return fd;
}

/* The size of one record read from an event descriptor (struct iio_event_data). */
static const unsigned int rotationd_iio_event_size = sizeof(struct iio_event_data);

/* One event record, decoded: the channel type (enum iio_chan_type), modifier (enum iio_modifier), event type
 * (enum iio_event_type), direction (enum iio_event_direction), channel number, and the timestamp in ns on the
 * device's current_timestamp_clock. The enums are linux/iio/types.h's, which libiio's iio.h declares again with
 * the same values: they are taken from there (CIIO), as one module cannot see both. */
struct rotationd_iio_event {
    unsigned int channel_type, modifier, type, direction;
    int channel;
    int64_t timestamp;
};

/* Decodes the record at `bytes` (rotationd_iio_event_size bytes). */
static inline struct rotationd_iio_event rotationd_iio_event_decode(const void *bytes) {
    struct iio_event_data data;
    memcpy(&data, bytes, sizeof data);
    struct rotationd_iio_event e;
    e.channel_type = (unsigned int)IIO_EVENT_CODE_EXTRACT_CHAN_TYPE(data.id);
    e.modifier = (unsigned int)IIO_EVENT_CODE_EXTRACT_MODIFIER(data.id);
    e.type = (unsigned int)IIO_EVENT_CODE_EXTRACT_TYPE(data.id);
    e.direction = (unsigned int)IIO_EVENT_CODE_EXTRACT_DIR(data.id);
    e.channel = IIO_EVENT_CODE_EXTRACT_CHAN(data.id);
    e.timestamp = data.timestamp;
    return e;
}
#endif
