// gazerec_video_writer.h — encode 8-bit gray frames losslessly into a video file with FFmpeg.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_video_writer: 8-bit gray frames encoded losslessly with FFV1 into a file whose container
//   follows its name (Matroska for .mkv), each with its presentation time in microseconds (the
//   container may round it: Matroska keeps milliseconds). Decoding the file gives the very pixels
//   written.
//   Or colour frames (planar 4:2:0, I420, as gz_video_read_yuv420 gives them) encoded with FFV1
//   (lossless) or H.264 (libx264, preset veryfast, CRF 18), in a container named by the caller,
//   at a frame rate, with the colour description the frames carry.
//
// THREAD SAFETY
//   One thread at a time per handle.

#ifndef GAZEREC_VIDEO_WRITER_H
#define GAZEREC_VIDEO_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gz_video_writer gz_video_writer;

/// Creates `path` for `width` x `height` gray frames; `title` (may be NULL) is stored as the
/// file's title tag. Returns NULL with `error` set when it cannot.
gz_video_writer *gz_video_writer_open(const char *path, int width, int height, const char *title, char *error,
                                      size_t error_size);
/// The encoder of colour frames.
typedef enum gz_video_codec { GZ_VIDEO_FFV1 = 0, GZ_VIDEO_H264 = 1 } gz_video_codec;

/// What a colour video's frames are: size, rate (frames per second as a fraction), codec, and the
/// colour as FFmpeg's codes (AVColorSpace, AVColorPrimaries, AVColorTransferCharacteristic,
/// AVColorRange), written into the file for players.
typedef struct gz_video_format {
    int width;
    int height;
    int rate_numerator;
    int rate_denominator;
    gz_video_codec codec;
    int colour_matrix;
    int colour_primaries;
    int colour_transfer;
    int colour_range;
} gz_video_format;

/// Creates `path` for colour frames in the container `container` (FFmpeg's name: "matroska",
/// "mp4"; the file's name is not consulted, so it may be a temporary one). H.264 needs an even
/// width and height. Returns NULL with `error` set when it cannot.
gz_video_writer *gz_video_writer_open_yuv420(const char *path, const char *container, gz_video_format format, char *error,
                                             size_t error_size);
/// Encodes one colour frame (packed I420 of the writer's size) at `pts_microseconds` from the
/// start (increasing; rounded to the frame rate's ticks, and moved one tick on when it would not
/// advance). Returns 0, or -1 with `error` set.
int gz_video_writer_write_yuv420(gz_video_writer *writer, const uint8_t *yuv, int64_t pts_microseconds, char *error,
                                 size_t error_size);

/// Encodes one frame (rows `stride` bytes apart) at `pts_microseconds` (increasing).
/// Returns 0, or -1 with `error` set.
int gz_video_writer_write(gz_video_writer *writer, const uint8_t *gray, int stride, int64_t pts_microseconds,
                          char *error, size_t error_size);
/// Flushes the encoder, writes the container's index and closes the file (NULL is allowed).
/// Returns 0, or -1 with `error` set (the handle is freed either way).
int gz_video_writer_close(gz_video_writer *writer, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
