// gazerec_ffmpeg.h — FFmpeg's libraries opened with dlopen on first use, for gazerec's decoder
// and encoder.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_ff: the table of the FFmpeg functions gazerec's video targets call, filled in by
//   gz_ffmpeg_load(). FFmpeg is not linked: its ~130 libraries add ~27 MB and ~60 ms to the start
//   of every gazerec command, most of which never decode or encode a video.
//
// THREAD SAFETY
//   gz_ffmpeg_load() may be called from any number of threads at once; every caller that sees 1
//   sees the whole table filled in. The table is read-only afterwards.
//
// For the video targets' C sources only: Swift never imports this header.

#ifndef GAZEREC_FFMPEG_H
#define GAZEREC_FFMPEG_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

#include <stddef.h>

/// 1 where a stream's side data (its display matrix) is in `codecpar->coded_side_data`
/// (libavcodec 60.29, FFmpeg 6.1, which removed `av_stream_get_side_data` later); 0 before.
#define GZ_FFMPEG_CODED_SIDE_DATA (LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100))

/// The FFmpeg functions gazerec calls, each under its own name.
typedef struct gz_ffmpeg {
    __typeof__(&av_log_set_level) av_log_set_level;
    __typeof__(&avformat_open_input) avformat_open_input;
    __typeof__(&avformat_find_stream_info) avformat_find_stream_info;
    __typeof__(&av_find_best_stream) av_find_best_stream;
    __typeof__(&avcodec_alloc_context3) avcodec_alloc_context3;
    __typeof__(&avcodec_parameters_to_context) avcodec_parameters_to_context;
    __typeof__(&avcodec_open2) avcodec_open2;
    __typeof__(&av_packet_alloc) av_packet_alloc;
    __typeof__(&av_frame_alloc) av_frame_alloc;
    __typeof__(&av_strerror) av_strerror;
    __typeof__(&sws_getCachedContext) sws_getCachedContext;
    __typeof__(&sws_scale) sws_scale;
    __typeof__(&av_frame_unref) av_frame_unref;
    __typeof__(&avcodec_receive_frame) avcodec_receive_frame;
    __typeof__(&av_read_frame) av_read_frame;
    __typeof__(&avcodec_send_packet) avcodec_send_packet;
    __typeof__(&av_packet_unref) av_packet_unref;
    __typeof__(&sws_freeContext) sws_freeContext;
    __typeof__(&av_frame_free) av_frame_free;
    __typeof__(&av_packet_free) av_packet_free;
    __typeof__(&avcodec_free_context) avcodec_free_context;
    __typeof__(&avformat_close_input) avformat_close_input;
    __typeof__(&av_dict_get) av_dict_get;
    __typeof__(&av_dict_set) av_dict_set;
    __typeof__(&av_dict_free) av_dict_free;
    __typeof__(&avformat_alloc_output_context2) avformat_alloc_output_context2;
    __typeof__(&avcodec_find_encoder) avcodec_find_encoder;
    __typeof__(&avcodec_find_encoder_by_name) avcodec_find_encoder_by_name;
    __typeof__(&avformat_new_stream) avformat_new_stream;
    __typeof__(&avcodec_parameters_from_context) avcodec_parameters_from_context;
    __typeof__(&avio_open) avio_open;
    __typeof__(&avio_closep) avio_closep;
    __typeof__(&avformat_write_header) avformat_write_header;
    __typeof__(&av_frame_get_buffer) av_frame_get_buffer;
    __typeof__(&av_frame_make_writable) av_frame_make_writable;
    __typeof__(&avcodec_send_frame) avcodec_send_frame;
    __typeof__(&avcodec_receive_packet) avcodec_receive_packet;
    __typeof__(&av_packet_rescale_ts) av_packet_rescale_ts;
    __typeof__(&av_interleaved_write_frame) av_interleaved_write_frame;
    __typeof__(&av_write_trailer) av_write_trailer;
    __typeof__(&avformat_free_context) avformat_free_context;
    __typeof__(&av_display_rotation_get) av_display_rotation_get;
#if GZ_FFMPEG_CODED_SIDE_DATA
    __typeof__(&av_packet_side_data_get) av_packet_side_data_get;
#else
    __typeof__(&av_stream_get_side_data) av_stream_get_side_data;
#endif
} gz_ffmpeg;

/// The table, valid once gz_ffmpeg_load() has returned 1.
extern gz_ffmpeg gz_ff;

/// Loads FFmpeg's libraries once per process; 1 when every function was found, else 0.
int gz_ffmpeg_load(void);

/// Why loading failed (one line naming the library or function and what to install).
const char *gz_ffmpeg_error(void);

/// Writes "prefix: FFmpeg's reason for code" (just the prefix when code is 0) into error.
void gz_ffmpeg_set_error(char *error, size_t size, const char *prefix, int code);

#endif
