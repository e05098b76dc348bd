#ifndef ROTATIOND_CV4L2_SHIM_H
#define ROTATIOND_CV4L2_SHIM_H
/* V4L2 control access for camera discovery, from the kernel's UAPI headers (linux-libc-dev).
 * The request numbers are function-like macros Swift cannot import, so the two calls live here. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>
#include <linux/v4l2-controls.h>

static const unsigned int rotationd_cid_camera_orientation = V4L2_CID_CAMERA_ORIENTATION;
static const unsigned int rotationd_cid_camera_sensor_rotation = V4L2_CID_CAMERA_SENSOR_ROTATION;
static const int rotationd_camera_orientation_front = V4L2_CAMERA_ORIENTATION_FRONT;
static const int rotationd_camera_orientation_back = V4L2_CAMERA_ORIENTATION_BACK;
static const int rotationd_camera_orientation_external = V4L2_CAMERA_ORIENTATION_EXTERNAL;
static const unsigned int rotationd_ctrl_flag_disabled = V4L2_CTRL_FLAG_DISABLED;

/* VIDIOC_QUERYCTRL: 0 and the control's flags when the device has control `id`, else -1 with errno
 * (EINVAL: no such control). */
static inline int rotationd_v4l2_query_control(int fd, unsigned int id, unsigned int *flags) {
    struct v4l2_queryctrl query;
    memset(&query, 0, sizeof query);
    query.id = id;
    int rc = ioctl(fd, VIDIOC_QUERYCTRL, &query);
    if (rc == 0) *flags = query.flags;
    return rc;
}

/* VIDIOC_G_EXT_CTRLS for one 32-bit control's current value: 0 and the value, else -1 with errno. */
static inline int rotationd_v4l2_read_control(int fd, unsigned int id, int *value) {
    struct v4l2_ext_control control;
    struct v4l2_ext_controls controls;
    memset(&control, 0, sizeof control);
    memset(&controls, 0, sizeof controls);
    control.id = id;
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    int rc = ioctl(fd, VIDIOC_G_EXT_CTRLS, &controls);
    if (rc == 0) *value = control.value;
    return rc;
}
#endif
