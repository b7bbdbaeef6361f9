// libv4l2/libv4lconvert wrappers for gazerec. See include/gazerec_v4l2.h.

#include "gazerec_v4l2.h"

#include <errno.h>
#include <fcntl.h>
#include <libv4l-plugin.h>
#include <libv4l2.h>
#include <libv4lconvert.h>
#include <jpeglib.h>
#include <jerror.h>
#include <poll.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

const unsigned long GZ_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long GZ_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long GZ_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long GZ_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long GZ_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long GZ_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long GZ_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long GZ_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long GZ_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long GZ_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long GZ_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long GZ_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long GZ_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long GZ_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
const unsigned long GZ_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long GZ_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
const unsigned long GZ_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
const uint32_t GZ_V4L2_CID_HFLIP = V4L2_CID_HFLIP;
const uint32_t GZ_V4L2_CTRL_FLAG_NEXT_CTRL = V4L2_CTRL_FLAG_NEXT_CTRL;

const uint32_t GZ_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
const uint32_t GZ_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
const uint32_t GZ_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
const uint32_t GZ_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;

int gz_v4l2_open(const char *path) { return v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC); }

int gz_v4l2_close(int fd) { return v4l2_close(fd); }

int gz_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = v4l2_ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result;
}

void *gz_v4l2_mmap(int fd, size_t length, int64_t offset) {
    void *start = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    return start == MAP_FAILED ? NULL : start;
}

int gz_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

int gz_poll_readable(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    int result;
    do {
        result = poll(&entry, 1, timeout_ms);
    } while (result == -1 && errno == EINTR);
    if (result <= 0) return result;
    if (entry.revents & (POLLERR | POLLHUP | POLLNVAL)) {
        errno = ENODEV;
        return -1;
    }
    return 1;
}

static double seconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

double gz_monotonic_seconds(void) { return seconds(CLOCK_MONOTONIC); }
double gz_realtime_seconds(void) { return seconds(CLOCK_REALTIME); }

struct gz_converter {
    struct v4lconvert_data *data;
    uint8_t *yuv;
    size_t yuv_size;
    int mjpeg_direct;
};

// libv4lconvert asks the "device" what it is; without a device, answer as a capture device.
static int deviceless_ioctl(void *priv, int fd, unsigned long request, void *argument) {
    (void)priv;
    (void)fd;
    if (request == VIDIOC_QUERYCAP) {
        struct v4l2_capability *capability = argument;
        memset(capability, 0, sizeof *capability);
        snprintf((char *)capability->driver, sizeof capability->driver, "gazerec");
        snprintf((char *)capability->card, sizeof capability->card, "gazerec converter");
        capability->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_DEVICE_CAPS;
        capability->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        return 0;
    }
    errno = ENOTTY;
    return -1;
}

static const struct libv4l_dev_ops deviceless_ops = {.ioctl = deviceless_ioctl};

gz_converter *gz_converter_create(void) {
    gz_converter *converter = calloc(1, sizeof *converter);
    if (converter == NULL) return NULL;
    converter->data = v4lconvert_create_with_dev_ops(-1, NULL, &deviceless_ops);
    if (converter->data == NULL) {
        free(converter);
        return NULL;
    }
    converter->mjpeg_direct = 1;
    return converter;
}

void gz_converter_set_mjpeg_direct(gz_converter *converter, int enabled) {
    if (converter != NULL) converter->mjpeg_direct = enabled != 0;
}

void gz_converter_free(gz_converter *converter) {
    if (converter == NULL) return;
    v4lconvert_destroy(converter->data);
    free(converter->yuv);
    free(converter);
}

// MARK: - MJPEG straight to gray

struct gz_jpeg_failure {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int damaged;
};

static void gz_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct gz_jpeg_failure *)info->err)->jump, 1);
}

/// Warnings (level -1) mean corrupt data libjpeg patched over, a frame cut short among them:
/// such a frame is not taken. Bytes after the image (some cameras pad their frames) are harmless.
static void gz_jpeg_note_message(j_common_ptr info, int level) {
    if (level == -1 && info->err->msg_code != JWRN_EXTRANEOUS_DATA) ((struct gz_jpeg_failure *)info->err)->damaged = 1;
}

/// Decodes only what gray needs from one MJPEG frame: libjpeg(-turbo) asked for grayscale output
/// decodes the luma component's blocks, never inverse-transforms or upsamples the chroma and
/// converts no colour. Returns 0; -1 when libjpeg cannot read the stream (the caller then tries
/// libv4lconvert, which also knows the quirks of some cameras' streams); -2 for a frame libjpeg
/// reads but finds damaged (cut short, corrupt): not a frame to analyse.
static int gz_jpeg_to_gray(const uint8_t *source, size_t source_size, uint32_t width, uint32_t height, uint8_t *gray) {
    struct jpeg_decompress_struct info;
    struct gz_jpeg_failure failure;
    info.err = jpeg_std_error(&failure.base);
    failure.base.error_exit = gz_jpeg_error_exit;
    failure.base.emit_message = gz_jpeg_note_message;
    failure.damaged = 0;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, (unsigned char *)source, (unsigned long)source_size);
    if (jpeg_read_header(&info, TRUE) != JPEG_HEADER_OK || info.image_width != width || info.image_height != height
        || (info.jpeg_color_space != JCS_YCbCr && info.jpeg_color_space != JCS_GRAYSCALE)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    info.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&info);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = gray + (size_t)info.output_scanline * width;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return failure.damaged ? -2 : 0;
}

int gz_converter_to_gray(gz_converter *converter, uint32_t pixel_format, uint32_t width, uint32_t height,
                         uint32_t bytes_per_line, const uint8_t *source, size_t source_size, uint8_t *gray,
                         char *error, size_t error_size) {
    if (pixel_format == V4L2_PIX_FMT_YUYV) {
        // Packed Y0 U Y1 V: the gray image is every other byte, taken as it is (what
        // libv4lconvert's YUV 4:2:0 output holds in its Y plane, without converting the chroma).
        size_t line = bytes_per_line > 0 ? bytes_per_line : (size_t)width * 2;
        if (line < (size_t)width * 2 || source_size < line * (height - 1) + (size_t)width * 2) {
            snprintf(error, error_size, "a YUYV buffer of %zu bytes is too short for %ux%u", source_size, width, height);
            return -1;
        }
        for (uint32_t row = 0; row < height; ++row) {
            const uint8_t *in = source + row * line;
            uint8_t *out = gray + (size_t)row * width;
            for (uint32_t x = 0; x < width; ++x) out[x] = in[2 * x];
        }
        return 0;
    }
    if (pixel_format == V4L2_PIX_FMT_MJPEG && converter->mjpeg_direct) {
        int status = gz_jpeg_to_gray(source, source_size, width, height, gray);
        if (status == 0) return 0;
        if (status == -2) {
            snprintf(error, error_size, "a damaged MJPEG frame (cut short or corrupt)");
            return -1;
        }
    }
    struct v4l2_format source_format;
    memset(&source_format, 0, sizeof source_format);
    source_format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    source_format.fmt.pix.width = width;
    source_format.fmt.pix.height = height;
    source_format.fmt.pix.pixelformat = pixel_format;
    source_format.fmt.pix.field = V4L2_FIELD_NONE;
    source_format.fmt.pix.bytesperline = bytes_per_line;
    source_format.fmt.pix.sizeimage = (uint32_t)source_size;

    // YUV 4:2:0 out: its Y plane is the gray image. (Asking for GREY directly makes
    // libv4lconvert copy the raw bytes and report success.)
    struct v4l2_format target_format = source_format;
    target_format.fmt.pix.pixelformat = V4L2_PIX_FMT_YUV420;
    target_format.fmt.pix.bytesperline = width;
    size_t needed = (size_t)width * height * 3 / 2;
    target_format.fmt.pix.sizeimage = (uint32_t)needed;
    if (converter->yuv_size < needed) {
        free(converter->yuv);
        converter->yuv = malloc(needed);
        converter->yuv_size = converter->yuv ? needed : 0;
        if (converter->yuv == NULL) {
            snprintf(error, error_size, "out of memory");
            return -1;
        }
    }
    int written = v4lconvert_convert(converter->data, &source_format, &target_format, (unsigned char *)source,
                                     (int)source_size, converter->yuv, (int)needed);
    if (written < (int)((size_t)width * height)) {
        const char *message = v4lconvert_get_error_message(converter->data);
        snprintf(error, error_size, "%s", message && *message ? message : "conversion failed");
        for (char *c = error; *c; ++c) if (*c == '\n') *c = ' ';
        return -1;
    }
    memcpy(gray, converter->yuv, (size_t)width * height);
    return 0;
}
