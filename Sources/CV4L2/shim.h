#ifndef ROTATIOND_CV4L2_SHIM_H
#define ROTATIOND_CV4L2_SHIM_H
/* V4L2 control access and the media controller graph for camera discovery, from the kernel's UAPI headers
 * (linux-libc-dev). The request numbers are function-like macros Swift cannot import, and the topology
 * structures are packed, so the calls live here. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/media.h>
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

/* One pad of a media graph: its id, the entity it belongs to, and MEDIA_PAD_FL_* flags. */
struct rotationd_media_pad { unsigned int id, entity, flags; };
/* One interface: its id, MEDIA_INTF_T_* type and device number. */
struct rotationd_media_interface { unsigned int id, type, major, minor; };
/* One link: between two pads (a data link) or from an interface to an entity (an interface link). */
struct rotationd_media_link { unsigned int source, sink, flags; };

/* A media device's graph, as MEDIA_IOC_G_TOPOLOGY reports it; free it with rotationd_media_graph_free. */
struct rotationd_media_graph {
    unsigned int pad_count, interface_count, link_count;
    struct rotationd_media_pad *pads;
    struct rotationd_media_interface *interfaces;
    struct rotationd_media_link *links;
};

static const unsigned int rotationd_media_pad_source = MEDIA_PAD_FL_SOURCE;
static const unsigned int rotationd_media_link_type_mask = MEDIA_LNK_FL_LINK_TYPE;
static const unsigned int rotationd_media_link_data = MEDIA_LNK_FL_DATA_LINK;
static const unsigned int rotationd_media_link_interface = MEDIA_LNK_FL_INTERFACE_LINK;
static const unsigned int rotationd_media_interface_v4l_video = MEDIA_INTF_T_V4L_VIDEO;

static inline void rotationd_media_graph_free(struct rotationd_media_graph *g) {
    free(g->pads);
    free(g->interfaces);
    free(g->links);
    memset(g, 0, sizeof *g);
}

/* MEDIA_IOC_G_TOPOLOGY twice, for the sizes and then the pads, interfaces and links, again when the graph
 * changed in between: 0 with `g` filled, else -1 with errno. */
static inline int rotationd_media_graph_read(int fd, struct rotationd_media_graph *g) {
    memset(g, 0, sizeof *g);
    for (int attempt = 0; attempt < 4; attempt++) {
        struct media_v2_topology t;
        memset(&t, 0, sizeof t);
        if (ioctl(fd, MEDIA_IOC_G_TOPOLOGY, &t) < 0) return -1;
        uint64_t version = t.topology_version;
        struct media_v2_pad *pads = calloc(t.num_pads + 1, sizeof *pads);
        struct media_v2_interface *interfaces = calloc(t.num_interfaces + 1, sizeof *interfaces);
        struct media_v2_link *links = calloc(t.num_links + 1, sizeof *links);
        if (!pads || !interfaces || !links) {
            free(pads); free(interfaces); free(links);
            errno = ENOMEM;
            return -1;
        }
        t.num_entities = 0;
        t.ptr_entities = 0;
        t.ptr_pads = (uintptr_t)pads;
        t.ptr_interfaces = (uintptr_t)interfaces;
        t.ptr_links = (uintptr_t)links;
        int rc = ioctl(fd, MEDIA_IOC_G_TOPOLOGY, &t);
        int saved = errno;
        if (rc == 0 && t.topology_version == version) {
            g->pads = calloc(t.num_pads + 1, sizeof *g->pads);
            g->interfaces = calloc(t.num_interfaces + 1, sizeof *g->interfaces);
            g->links = calloc(t.num_links + 1, sizeof *g->links);
            if (g->pads && g->interfaces && g->links) {
                for (unsigned int i = 0; i < t.num_pads; i++)
                    g->pads[i] = (struct rotationd_media_pad){ pads[i].id, pads[i].entity_id, pads[i].flags };
                for (unsigned int i = 0; i < t.num_interfaces; i++)
                    g->interfaces[i] = (struct rotationd_media_interface){ interfaces[i].id, interfaces[i].intf_type,
                                                                          interfaces[i].devnode.major, interfaces[i].devnode.minor };
                for (unsigned int i = 0; i < t.num_links; i++)
                    g->links[i] = (struct rotationd_media_link){ links[i].source_id, links[i].sink_id, links[i].flags };
                g->pad_count = t.num_pads;
                g->interface_count = t.num_interfaces;
                g->link_count = t.num_links;
                rc = 0;
            } else {
                rotationd_media_graph_free(g);
                rc = -1;
                saved = ENOMEM;
            }
            free(pads); free(interfaces); free(links);
            errno = saved;
            return rc;
        }
        free(pads); free(interfaces); free(links);
        /* ENOSPC: the graph grew between the two calls; a new version: it changed. Either way, again. */
        if (rc < 0 && saved != ENOSPC) {
            errno = saved;
            return -1;
        }
    }
    errno = EAGAIN;
    return -1;
}
#endif
