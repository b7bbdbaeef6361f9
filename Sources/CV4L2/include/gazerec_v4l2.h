// gazerec_v4l2.h — what Swift needs from libv4l2, libv4lconvert and <linux/videodev2.h>.
//
// WHAT THIS OBJECT REPRESENTS
//   Thin, non-variadic wrappers over libv4l2's open/ioctl/mmap (Swift cannot call variadic C
//   functions), the VIDIOC_* request numbers and V4L2_PIX_FMT_* codes as constants (Swift cannot
//   import function-like macros), and a device-independent libv4lconvert converter that turns
//   YUYV or MJPEG buffers into 8-bit gray.
//
// THREAD SAFETY
//   The wrappers are as thread-safe as the calls they wrap. A gz_converter is used by one thread at a time.

#ifndef GAZEREC_V4L2_H
#define GAZEREC_V4L2_H

#include <linux/videodev2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const unsigned long GZ_VIDIOC_QUERYCAP;
extern const unsigned long GZ_VIDIOC_ENUM_FMT;
extern const unsigned long GZ_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long GZ_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long GZ_VIDIOC_S_FMT;
extern const unsigned long GZ_VIDIOC_G_PARM;
extern const unsigned long GZ_VIDIOC_S_PARM;
extern const unsigned long GZ_VIDIOC_REQBUFS;
extern const unsigned long GZ_VIDIOC_QUERYBUF;
extern const unsigned long GZ_VIDIOC_QBUF;
extern const unsigned long GZ_VIDIOC_DQBUF;
extern const unsigned long GZ_VIDIOC_STREAMON;
extern const unsigned long GZ_VIDIOC_STREAMOFF;
extern const unsigned long GZ_VIDIOC_QUERYCTRL;
extern const unsigned long GZ_VIDIOC_QUERYMENU;
extern const unsigned long GZ_VIDIOC_G_CTRL;
extern const unsigned long GZ_VIDIOC_S_CTRL;
// Control ids and flags (expressions of other macros, which Swift does not import).
extern const uint32_t GZ_V4L2_CID_HFLIP;
extern const uint32_t GZ_V4L2_CTRL_FLAG_NEXT_CTRL;

extern const uint32_t GZ_PIX_FMT_YUYV;
extern const uint32_t GZ_PIX_FMT_MJPEG;
extern const uint32_t GZ_PIX_FMT_GREY;
extern const uint32_t GZ_PIX_FMT_YUV420;

/// libv4l2's v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC); returns -1 with errno set on failure.
int gz_v4l2_open(const char *path);
/// libv4l2's v4l2_close.
int gz_v4l2_close(int fd);
/// libv4l2's v4l2_ioctl, retried on EINTR; returns -1 with errno set on failure.
int gz_v4l2_ioctl(int fd, unsigned long request, void *argument);
/// libv4l2's v4l2_mmap of a capture buffer (read/write, shared); returns NULL with errno set on failure.
void *gz_v4l2_mmap(int fd, size_t length, int64_t offset);
/// libv4l2's v4l2_munmap.
int gz_v4l2_munmap(void *start, size_t length);
/// poll(2) for input; returns 1 when readable, 0 on timeout, -1 with errno set (POLLERR/POLLHUP give ENODEV).
int gz_poll_readable(int fd, int timeout_ms);

/// CLOCK_MONOTONIC and CLOCK_REALTIME now, in seconds (to map driver timestamps to Unix time).
double gz_monotonic_seconds(void);
double gz_realtime_seconds(void);

typedef struct gz_converter gz_converter;

/// A libv4lconvert instance that needs no device (its ioctl callback answers VIDIOC_QUERYCAP only).
gz_converter *gz_converter_create(void);
void gz_converter_free(gz_converter *converter);

/// Whether MJPEG goes straight to gray through libjpeg (on by default); off: through libv4lconvert's
/// YUV 4:2:0 always (the reference, for tests and benchmarks).
void gz_converter_set_mjpeg_direct(gz_converter *converter, int enabled);

/// Converts one YUYV or MJPEG buffer of width × height into packed 8-bit gray (`gray` holds width * height bytes).
/// YUYV: its Y bytes. MJPEG: libjpeg decodes the luma alone (grayscale output), and libv4lconvert
/// converts the frames libjpeg cannot read.
///   returns 0, or -1 with a one-line reason in `error`.
int gz_converter_to_gray(gz_converter *converter, uint32_t pixel_format, uint32_t width, uint32_t height,
                         uint32_t bytes_per_line, const uint8_t *source, size_t source_size, uint8_t *gray,
                         char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
