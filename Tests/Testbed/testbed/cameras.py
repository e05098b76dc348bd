"""Cameras: a sensor sub-device's V4L2 controls, a media controller's graph (ioctls answered through umockdev), and
a guard that fails the run when a video node is opened."""
import ctypes
import errno
import os
import re
import select
import struct
import threading
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402

from .common import Failure, give  # noqa: E402

# V4L2 (linux/videodev2.h, linux/v4l2-controls.h), x86-64 layouts.
VIDIOC_G_CTRL = 0xC008561B        # _IOWR('V', 27, struct v4l2_control), 8 bytes
VIDIOC_QUERYCTRL = 0xC0445624     # _IOWR('V', 36, struct v4l2_queryctrl), 68 bytes
VIDIOC_G_EXT_CTRLS = 0xC0205647   # _IOWR('V', 71, struct v4l2_ext_controls), 32 bytes
QUERYCTRL = "<II32siiiiIII"       # id, type, name, minimum, maximum, step, default_value, flags, reserved[2]
EXT_CONTROL_SIZE = 20             # struct v4l2_ext_control is packed: id, size, reserved2, value (union)
CID_CAMERA_ORIENTATION = 0x009A0922
CID_CAMERA_SENSOR_ROTATION = 0x009A0923
CTRL_TYPE_INTEGER, CTRL_TYPE_MENU = 1, 3
CTRL_FLAG_READ_ONLY = 0x0004


class SensorSubdevice(UMockdev.IoctlBase):
    """A camera sensor's sub-device as the kernel's v4l2-ctrls core presents the fixed controls that
    v4l2_ctrl_new_fwnode_properties() creates: read-only, minimum = maximum = default = the value."""

    def __init__(self, controls):
        super().__init__()
        self.controls = {}
        if "orientation" in controls:
            self.controls[CID_CAMERA_ORIENTATION] = (CTRL_TYPE_MENU, b"Camera Orientation", 0, 2, controls["orientation"])
        if "rotation" in controls:
            r = controls["rotation"]
            self.controls[CID_CAMERA_SENSOR_ROTATION] = (CTRL_TYPE_INTEGER, b"Camera Sensor Rotation", r, r, r)

    def do_handle_ioctl(self, client):
        request, arg = client.get_request(), client.get_arg()
        if request == VIDIOC_QUERYCTRL:
            data = arg.resolve(0, struct.calcsize(QUERYCTRL))
            cid = struct.unpack_from("<I", bytes(data.retrieve()), 0)[0]
            if cid not in self.controls:
                client.complete(-1, errno.EINVAL)
                return True
            kind, name, low, high, value = self.controls[cid]
            data.update(0, struct.pack(QUERYCTRL, cid, kind, name, low, high, 1, value, CTRL_FLAG_READ_ONLY, 0, 0))
        elif request == VIDIOC_G_CTRL:
            data = arg.resolve(0, 8)
            cid = struct.unpack_from("<I", bytes(data.retrieve()), 0)[0]
            if cid not in self.controls:
                client.complete(-1, errno.EINVAL)
                return True
            data.update(4, struct.pack("<i", self.controls[cid][4]))
        elif request == VIDIOC_G_EXT_CTRLS:
            data = arg.resolve(0, 32)
            count = struct.unpack_from("<I", bytes(data.retrieve()), 4)[0]
            items = data.resolve(24, EXT_CONTROL_SIZE * count)
            raw = bytes(items.retrieve())
            for i in range(count):
                cid = struct.unpack_from("<I", raw, EXT_CONTROL_SIZE * i)[0]
                if cid not in self.controls:
                    data.update(8, struct.pack("<I", count))  # error_idx = count: failed while validating
                    client.complete(-1, errno.EINVAL)
                    return True
                items.update(EXT_CONTROL_SIZE * i + 12, struct.pack("<i", self.controls[cid][4]))
        else:
            client.complete(-1, errno.ENOTTY)
            return True
        client.complete(0, 0)
        return True


# Media controller (linux/media.h), x86-64 layouts.
MEDIA_IOC_G_TOPOLOGY = 0xC0487C04   # _IOWR('|', 4, struct media_v2_topology), 72 bytes, packed
TOPOLOGY = "<QIIQIIQIIQIIQ"         # version; then count, reserved, pointer for entities, interfaces, pads, links
MEDIA_ENTITY = "<I64sII20x"         # id, name, function, flags, reserved[5]: 96 bytes
MEDIA_INTERFACE = "<III36xII56x"    # id, intf_type, flags, reserved[9], devnode major, minor, rest of the union: 112
MEDIA_PAD = "<IIII16x"              # id, entity_id, flags, index, reserved[4]: 32 bytes
MEDIA_LINK = "<IIII24x"             # id, source_id, sink_id, flags, reserved[6]: 40 bytes
MEDIA_ENT_F_IO_V4L, MEDIA_ENT_F_CAM_SENSOR = 0x10001, 0x20001
MEDIA_INTF_T_V4L_VIDEO, MEDIA_INTF_T_V4L_SUBDEV = 0x200, 0x203
MEDIA_PAD_FL_SINK, MEDIA_PAD_FL_SOURCE = 1, 2
MEDIA_LNK_FL_ENABLED, MEDIA_LNK_FL_INTERFACE_LINK = 1, 1 << 28


class MediaDevice(UMockdev.IoctlBase):
    """A media controller device whose graph MEDIA_IOC_G_TOPOLOGY reports, filled in two calls as the
    kernel does: counts first (null pointers), then the arrays; ENOSPC when an array is too small."""

    def __init__(self, graph):
        super().__init__()
        self.entities, self.interfaces, self.pads, self.links = [], [], [], []
        ids = iter(range(1, 1 << 20))
        entity_ids, source_pad, sink_pad = [], [], []
        for name, number, kind in graph["entities"]:
            eid = next(ids)
            entity_ids.append(eid)
            function = MEDIA_ENT_F_IO_V4L if kind == "video" else MEDIA_ENT_F_CAM_SENSOR
            self.entities.append(struct.pack(MEDIA_ENTITY, eid, name.encode(), function, 0))
            sink_pad.append(next(ids))
            self.pads.append(struct.pack(MEDIA_PAD, sink_pad[-1], eid, MEDIA_PAD_FL_SINK, 0))
            source_pad.append(next(ids))
            self.pads.append(struct.pack(MEDIA_PAD, source_pad[-1], eid, MEDIA_PAD_FL_SOURCE, 1))
            if number is not None:
                major, minor = (int(x) for x in number.split(":"))
                iid = next(ids)
                kind_value = MEDIA_INTF_T_V4L_VIDEO if kind == "video" else MEDIA_INTF_T_V4L_SUBDEV
                self.interfaces.append(struct.pack(MEDIA_INTERFACE, iid, kind_value, 0, major, minor))
                self.links.append(struct.pack(MEDIA_LINK, next(ids), iid, eid, MEDIA_LNK_FL_INTERFACE_LINK | MEDIA_LNK_FL_ENABLED))
        for a, b in graph["links"]:
            self.links.append(struct.pack(MEDIA_LINK, next(ids), source_pad[a], sink_pad[b], 0))

    def do_handle_ioctl(self, client):
        if client.get_request() != MEDIA_IOC_G_TOPOLOGY:
            client.complete(-1, errno.ENOTTY)
            return True
        data = client.get_arg().resolve(0, struct.calcsize(TOPOLOGY))
        fields = list(struct.unpack(TOPOLOGY, bytes(data.retrieve())))
        fields[0] = 1  # topology_version
        # (index of the count in TOPOLOGY's fields, byte offset of its pointer, items, item size)
        arrays = [(1, 16, self.entities, 96), (4, 32, self.interfaces, 112), (7, 48, self.pads, 32), (10, 64, self.links, 40)]
        result = 0
        for at, offset, items, size in arrays:
            wanted, pointer = fields[at], fields[at + 2]
            fields[at] = len(items)
            if pointer == 0:
                continue
            if wanted < len(items):
                result = errno.ENOSPC
                continue
            if items:
                data.resolve(offset, size * len(items)).update(0, b"".join(items))
        data.update(0, struct.pack(TOPOLOGY, *fields))
        client.complete(-1 if result else 0, result)
        return True


class VideoNodeGuard:
    """Notices every open of the testbed's /dev/video* nodes: inotify IN_OPEN on each node (its PTY or file),
    and PROGRAM's open descriptors sampled from /proc/PID/fd."""

    IN_OPEN = 0x20

    def __init__(self, root):
        self.root = root
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise Failure("inotify_init1 failed: %s" % os.strerror(ctypes.get_errno()))
        self.watched = {}     # inotify watch descriptor -> node name
        self.targets = {}     # resolved path -> node name
        self.seen = []
        self.lock = threading.Lock()
        self.running = True
        self.pid = None
        self.refresh()
        threading.Thread(target=self._inotify, daemon=True).start()

    def refresh(self):
        """Watches the video nodes that exist now (call again after adding devices)."""
        dev = os.path.join(self.root, "dev")
        for name in sorted(os.listdir(dev)) if os.path.isdir(dev) else []:
            if not name.startswith("video"):
                continue
            target = os.path.realpath(os.path.join(dev, name))
            if target in self.targets:
                continue
            wd = self.libc.inotify_add_watch(self.fd, target.encode(), self.IN_OPEN)
            if wd < 0:
                raise Failure("cannot watch %s: %s" % (target, os.strerror(ctypes.get_errno())))
            self.watched[wd] = "/dev/" + name
            self.targets[target] = "/dev/" + name

    def follow(self, pid):
        self.pid = pid
        threading.Thread(target=self._descriptors, daemon=True).start()

    def _note(self, what):
        with self.lock:
            if what not in self.seen:
                self.seen.append(what)

    def _inotify(self):
        while self.running:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                continue
            offset = 0
            while offset + 16 <= len(data):
                wd, mask, _, length = struct.unpack_from("<iIII", data, offset)
                offset += 16 + length
                if mask & self.IN_OPEN and wd in self.watched:
                    self._note("%s was opened" % self.watched[wd])

    def _descriptors(self):
        fd_dir = "/proc/%d/fd" % self.pid
        while self.running:
            try:
                names = os.listdir(fd_dir)
            except OSError:
                return
            for n in names:
                try:
                    target = os.readlink(os.path.join(fd_dir, n))
                except OSError:
                    continue
                node = self.targets.get(target) or (target if re.search(r"/dev/video\d", target) else None)
                if node:
                    self._note("the program held %s open (descriptor %s)" % (node, n))
            time.sleep(0.002)

    def check(self):
        with self.lock:
            if self.seen:
                raise Failure("a video node was opened: " + "; ".join(self.seen))



def _attach(run, node, handler):
    run.sensors[node] = handler
    run.tb.attach_ioctl(node, handler)
    if run.user is not None:
        # The node's ioctl socket is new: hand it to the user too.
        give(os.path.join(run.root, "ioctl"), run.user, recursive=True)


def v4l2_controls(run, node, controls):
    """["v4l2-controls", NODE, CONTROLS]
    Emulate a camera sensor sub-device at NODE: VIDIOC_QUERYCTRL, VIDIOC_G_CTRL and VIDIOC_G_EXT_CTRLS answer for
    the controls in CONTROLS ({"orientation": 0|1|2, "rotation": DEGREES}; a control left out is absent), any
    other ioctl fails with ENOTTY."""
    _attach(run, node, SensorSubdevice(controls))


def media_graph(run, node, graph):
    """["media-graph", NODE, GRAPH]
    Emulate a media controller device at NODE: MEDIA_IOC_G_TOPOLOGY reports GRAPH = {"entities": [[NAME,
    "MAJOR:MINOR" or null, "video" or "subdev"], ...], "links": [[FROM, TO], ...]}, each entity with a sink pad
    and a source pad, each link a data link from FROM's source pad to TO's sink pad (entity indices), and an
    interface for each entity with a device number; any other ioctl fails with ENOTTY."""
    _attach(run, node, MediaDevice(graph))


def guard_video_nodes(run):
    """["guard-video-nodes"]
    From now on, fail the run if anyone opens a /dev/video* node of the testbed (inotify, also for nodes added
    later) or if PROGRAM holds one (its /proc/PID/fd, sampled every 2 ms while it runs)."""
    run.guard = VideoNodeGuard(run.root)
    if run.proc is not None:
        run.guard.follow(run.proc.pid)


def end_guard(run):
    """At the end of the run: the guard's verdict (a Failure when a video node was opened)."""
    if run.guard:
        time.sleep(0.2)  # let the last inotify events arrive
        run.guard.running = False
        run.guard.check()
