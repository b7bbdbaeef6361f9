// gazerec_video_writer.h — encode 8-bit gray frames losslessly into a video file with FFmpeg.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_video_writer: 8-bit gray frames encoded losslessly with FFV1 into a file whose container
//   follows its name (Matroska for .mkv), each with its presentation time in microseconds (the
//   container may round it: Matroska keeps milliseconds). Decoding the file gives the very pixels
//   written.
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
