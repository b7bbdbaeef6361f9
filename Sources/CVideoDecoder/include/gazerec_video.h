// gazerec_video.h — decode a video file into 8-bit gray frames with FFmpeg's libraries.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_video: one open video file (any container and codec FFmpeg reads, or a still image).
//   Frames come out upright: a stream whose container carries a display matrix (phone footage,
//   a camera mounted sideways) is turned by the rotation it names, to the nearest quarter turn
//   (mirroring in the matrix is not applied). Frames come out in presentation order, every frame the decoder produces (no frame is
//   dropped or duplicated), each converted to 8-bit gray at the stream's own size, with its
//   presentation time in seconds from the stream's start. Decoding is single-threaded, so the
//   same file always yields the same frames.
//
// THREAD SAFETY
//   One thread at a time per handle.
//
// ERRORS
//   Functions that can fail write a one-line reason into `error` (error_size bytes).

#ifndef GAZEREC_VIDEO_H
#define GAZEREC_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gz_video gz_video;

/// What the container says about the video stream.
typedef struct gz_video_info {
    /// The size of the frames as they come out (after the rotation below).
    int width;
    int height;
    /// The clockwise turn applied to every decoded frame, from the stream's display matrix:
    /// 0, 90, 180 or 270 degrees.
    int rotation_degrees;
    /// Average frame rate in frames per second (0 if unknown), and as the stream's fraction
    /// (numerator / denominator; 0 / 1 if unknown).
    double frames_per_second;
    int rate_numerator;
    int rate_denominator;
    /// Duration in seconds (0 if unknown).
    double duration_seconds;
    /// Frame count from the container (0 if unknown).
    long frame_count;
    /// Codec name, e.g. "h264".
    char codec[32];
    /// The container's (else the stream's) `creation_time` tag as written, e.g.
    /// "2020-07-24T21:40:43.000000Z"; empty when the file has none.
    char creation_time[64];
    /// The colour of the frames gz_video_read_yuv420 gives, as FFmpeg's codes: the YCbCr matrix
    /// (AVColorSpace: the stream's own for YUV and gray streams, 6 = BT.601 for RGB ones, which
    /// swscale converts with BT.601), primaries (AVColorPrimaries) and transfer
    /// (AVColorTransferCharacteristic) as the stream says (2 = unspecified), and the range
    /// (AVColorRange: 2 = full, JPEG, for full-range 4:2:0 streams, which are passed on as they
    /// are; else 1 = limited, what swscale converts every other format to).
    int colour_matrix;
    int colour_primaries;
    int colour_transfer;
    int colour_range;
} gz_video_info;

/// Opens `path`; returns NULL with `error` set if it is not a readable video.
gz_video *gz_video_open(const char *path, char *error, size_t error_size);

/// The stream's properties.
gz_video_info gz_video_get_info(const gz_video *video);

/// Decodes the next frame into `gray` (width * height bytes, rows packed) and its time.
///   returns 1 for a frame, 0 at the end of the stream, -1 with `error` set on a decoding error.
int gz_video_read(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size);

/// Decodes the next frame in colour into `yuv`: planar 4:2:0 (I420), rows packed — the luma plane
/// (width × height bytes), then Cb and Cr ((width + 1) / 2 × (height + 1) / 2 bytes each) — upright
/// like gz_video_read's, with the colour described in gz_video_info. A 4:2:0 stream's planes are
/// copied as decoded; any other format goes through swscale (bilinear chroma).
///   returns 1 for a frame, 0 at the end of the stream, -1 with `error` set on a decoding error.
int gz_video_read_yuv420(gz_video *video, uint8_t *yuv, double *pts_seconds, char *error, size_t error_size);

/// Closes the file (NULL is allowed).
void gz_video_close(gz_video *video);

/// Whether gray comes straight from the luma plane (on by default): for 8-bit YUV and gray
/// frames, each pixel's gray is swscale's for its luma byte alone, so a 256-entry table read off
/// swscale replaces the conversion. The table is checked against swscale on the first frame of
/// each pixel format and used only if it gives every pixel the same; otherwise (and for other
/// formats) swscale converts. Off: swscale always (the reference, for tests and benchmarks).
void gz_video_set_luma_shortcut(gz_video *video, int enabled);

/// How the last frame's gray was made: 0 by swscale, 1 through the luma table, 2 by the table's
/// arithmetic form (gray = clamp((luma × scale + offset) >> 12), found from the table and checked
/// against every one of its 256 entries; vectorised, with AVX2 where the processor has it).
int gz_video_luma_shortcut_in_use(const gz_video *video);

#ifdef __cplusplus
}
#endif

#endif
