// FFV1 and H.264 encoding for gazerec. See include/gazerec_video_writer.h for the contract.

#include "gazerec_video_writer.h"
#include "gazerec_ffmpeg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gz_video_writer {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    int header_written;
    // Colour writers: the last frame's time in the codec's ticks (frames of the rate).
    int64_t last_pts;
};

/// How a writer is set up: everything but the file.
typedef struct writer_setup {
    const char *container;  // NULL: from the file's name
    const char *encoder_name;
    int pixel_format;
    int width;
    int height;
    AVRational time_base;
    AVRational frame_rate;  // 0/1: none
    int gop_size;           // 0: the encoder's default
    AVDictionary *codec_options;
    AVDictionary *format_options;
    const char *title;
    gz_video_format colour;  // its colour members only, when `has_colour`
    int has_colour;
} writer_setup;

static void writer_error(int code, const char *what, char *error, size_t error_size) {
    char reason[128] = "";
    gz_ff.av_strerror(code, reason, sizeof reason);
    snprintf(error, error_size, "%s: %s", what, reason);
}

static void writer_free(gz_video_writer *writer) {
    if (writer == NULL) return;
    if (writer->format != NULL) {
        if (writer->format->pb != NULL) gz_ff.avio_closep(&writer->format->pb);
        gz_ff.avformat_free_context(writer->format);
    }
    gz_ff.avcodec_free_context(&writer->codec);
    gz_ff.av_frame_free(&writer->frame);
    gz_ff.av_packet_free(&writer->packet);
    free(writer);
}

// Moves every packet the encoder has ready into the file.
static int writer_drain(gz_video_writer *writer, char *error, size_t error_size) {
    for (;;) {
        int status = gz_ff.avcodec_receive_packet(writer->codec, writer->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status < 0) {
            writer_error(status, "encoding failed", error, error_size);
            return -1;
        }
        gz_ff.av_packet_rescale_ts(writer->packet, writer->codec->time_base, writer->stream->time_base);
        writer->packet->stream_index = writer->stream->index;
        status = gz_ff.av_interleaved_write_frame(writer->format, writer->packet);
        if (status < 0) {
            writer_error(status, "writing the video failed", error, error_size);
            return -1;
        }
    }
}

/// Sets up the encoder's context from `setup`; 0, or -1 with `error` set.
static int writer_open_codec(gz_video_writer *writer, const writer_setup *setup, char *error, size_t error_size) {
    const AVCodec *encoder = gz_ff.avcodec_find_encoder_by_name(setup->encoder_name);
    writer->codec = encoder != NULL ? gz_ff.avcodec_alloc_context3(encoder) : NULL;
    if (writer->codec == NULL) {
        snprintf(error, error_size, "FFmpeg has no %s encoder", setup->encoder_name);
        return -1;
    }
    AVCodecContext *codec = writer->codec;
    codec->width = setup->width;
    codec->height = setup->height;
    codec->pix_fmt = setup->pixel_format;
    codec->time_base = setup->time_base;
    if (setup->frame_rate.num > 0) codec->framerate = setup->frame_rate;
    codec->thread_count = 1;
    if (setup->gop_size > 0) codec->gop_size = setup->gop_size;
    if (setup->has_colour) {
        codec->colorspace = setup->colour.colour_matrix;
        codec->color_primaries = setup->colour.colour_primaries;
        codec->color_trc = setup->colour.colour_transfer;
        codec->color_range = setup->colour.colour_range;
    }
    if (writer->format->oformat->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = setup->codec_options;
    int status = gz_ff.avcodec_open2(codec, encoder, &options);
    gz_ff.av_dict_free(&options);
    if (status < 0) {
        char what[64];
        snprintf(what, sizeof what, "cannot open the %s encoder", setup->encoder_name);
        writer_error(status, what, error, error_size);
        return -1;
    }
    return 0;
}

/// Opens the file, its stream and its encoder, and writes the container's header.
static gz_video_writer *writer_open(const char *path, writer_setup setup, char *error, size_t error_size) {
    if (!gz_ffmpeg_load()) {
        snprintf(error, error_size, "%s", gz_ffmpeg_error());
        gz_ff.av_dict_free(&setup.codec_options);
        gz_ff.av_dict_free(&setup.format_options);
        return NULL;
    }
    gz_ff.av_log_set_level(AV_LOG_QUIET);
    gz_video_writer *writer = calloc(1, sizeof *writer);
    int status = writer == NULL ? AVERROR(ENOMEM)
                                : gz_ff.avformat_alloc_output_context2(&writer->format, NULL, setup.container, path);
    if (writer == NULL || status < 0 || writer->format == NULL) {
        writer_error(status, setup.container != NULL ? "no such container" : "no container for this file name (use .mkv)", error,
                     error_size);
        goto failed;
    }
    writer->frame = gz_ff.av_frame_alloc();
    writer->packet = gz_ff.av_packet_alloc();
    if (writer->frame == NULL || writer->packet == NULL) {
        snprintf(error, error_size, "out of memory");
        goto failed;
    }
    status = writer_open_codec(writer, &setup, error, error_size);
    setup.codec_options = NULL;
    if (status < 0) goto failed;
    writer->stream = gz_ff.avformat_new_stream(writer->format, NULL);
    if (writer->stream == NULL) {
        snprintf(error, error_size, "out of memory");
        goto failed;
    }
    writer->stream->time_base = writer->codec->time_base;
    if (setup.frame_rate.num > 0) writer->stream->avg_frame_rate = setup.frame_rate;
    gz_ff.avcodec_parameters_from_context(writer->stream->codecpar, writer->codec);
    if (setup.title != NULL) gz_ff.av_dict_set(&writer->format->metadata, "title", setup.title, 0);
    if ((status = gz_ff.avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE)) < 0) {
        writer_error(status, "cannot create the file", error, error_size);
        goto failed;
    }
    if ((status = gz_ff.avformat_write_header(writer->format, &setup.format_options)) < 0) {
        writer_error(status, "cannot write the container header", error, error_size);
        goto failed;
    }
    gz_ff.av_dict_free(&setup.format_options);
    writer->header_written = 1;
    writer->frame->format = setup.pixel_format;
    writer->frame->width = setup.width;
    writer->frame->height = setup.height;
    if ((status = gz_ff.av_frame_get_buffer(writer->frame, 0)) < 0) {
        writer_error(status, "out of memory", error, error_size);
        goto failed;
    }
    writer->last_pts = INT64_MIN;
    return writer;
failed:
    gz_ff.av_dict_free(&setup.codec_options);
    gz_ff.av_dict_free(&setup.format_options);
    writer_free(writer);
    return NULL;
}

gz_video_writer *gz_video_writer_open(const char *path, int width, int height, const char *title, char *error,
                                      size_t error_size) {
    writer_setup setup = {.encoder_name = "ffv1", .pixel_format = AV_PIX_FMT_GRAY8, .width = width, .height = height,
                          .time_base = {1, 1000000}, .frame_rate = {0, 1}, .gop_size = 1, .title = title};
    return writer_open(path, setup, error, error_size);
}

gz_video_writer *gz_video_writer_open_yuv420(const char *path, const char *container, gz_video_format format, char *error,
                                             size_t error_size) {
    if (format.rate_numerator <= 0 || format.rate_denominator <= 0 || format.width <= 0 || format.height <= 0) {
        snprintf(error, error_size, "a colour video needs a positive size and frame rate");
        return NULL;
    }
    int h264 = format.codec == GZ_VIDEO_H264;
    if (h264 && (format.width % 2 != 0 || format.height % 2 != 0)) {
        snprintf(error, error_size, "H.264 needs an even width and height (this video is %dx%d)", format.width, format.height);
        return NULL;
    }
    writer_setup setup = {.container = container, .encoder_name = h264 ? "libx264" : "ffv1",
                          .pixel_format = format.colour_range == AVCOL_RANGE_JPEG && h264 ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P,
                          .width = format.width, .height = format.height,
                          .time_base = {format.rate_denominator, format.rate_numerator},
                          .frame_rate = {format.rate_numerator, format.rate_denominator}, .gop_size = h264 ? 0 : 1,
                          .colour = format, .has_colour = 1};
    if (h264) {
        gz_ff.av_dict_set(&setup.codec_options, "preset", "veryfast", 0);
        gz_ff.av_dict_set(&setup.codec_options, "crf", "18", 0);
    }
    if (container != NULL && strcmp(container, "mp4") == 0) gz_ff.av_dict_set(&setup.format_options, "movflags", "+faststart", 0);
    return writer_open(path, setup, error, error_size);
}

/// Sends the writer's frame (filled) at `pts` in the codec's ticks and drains the encoder.
static int writer_send(gz_video_writer *writer, int64_t pts, char *error, size_t error_size) {
    writer->frame->pts = pts;
    int status = gz_ff.avcodec_send_frame(writer->codec, writer->frame);
    if (status < 0) {
        writer_error(status, "encoding failed", error, error_size);
        return -1;
    }
    return writer_drain(writer, error, error_size);
}

int gz_video_writer_write(gz_video_writer *writer, const uint8_t *gray, int stride, int64_t pts_microseconds,
                          char *error, size_t error_size) {
    int status = gz_ff.av_frame_make_writable(writer->frame);
    if (status < 0) {
        writer_error(status, "out of memory", error, error_size);
        return -1;
    }
    for (int row = 0; row < writer->codec->height; ++row) {
        memcpy(writer->frame->data[0] + (size_t)row * writer->frame->linesize[0], gray + (size_t)row * stride,
               (size_t)writer->codec->width);
    }
    return writer_send(writer, pts_microseconds, error, error_size);
}

int gz_video_writer_write_yuv420(gz_video_writer *writer, const uint8_t *yuv, int64_t pts_microseconds, char *error,
                                 size_t error_size) {
    int status = gz_ff.av_frame_make_writable(writer->frame);
    if (status < 0) {
        writer_error(status, "out of memory", error, error_size);
        return -1;
    }
    int width = writer->codec->width, height = writer->codec->height;
    int widths[3] = {width, (width + 1) / 2, (width + 1) / 2}, heights[3] = {height, (height + 1) / 2, (height + 1) / 2};
    const uint8_t *plane = yuv;
    for (int index = 0; index < 3; ++index) {
        for (int row = 0; row < heights[index]; ++row) {
            memcpy(writer->frame->data[index] + (size_t)row * writer->frame->linesize[index], plane + (size_t)row * widths[index],
                   (size_t)widths[index]);
        }
        plane += (size_t)widths[index] * heights[index];
    }
    // Microseconds to ticks of 1/rate, rounded to the nearest (time_base = den/num seconds a tick).
    AVRational tick = writer->codec->time_base;
    int64_t scale = (int64_t)tick.num * 1000000;
    int64_t pts = (pts_microseconds * tick.den + scale / 2) / scale;
    if (pts_microseconds < 0) pts = -((-pts_microseconds * tick.den + scale / 2) / scale);
    if (writer->last_pts != INT64_MIN && pts <= writer->last_pts) pts = writer->last_pts + 1;
    writer->last_pts = pts;
    return writer_send(writer, pts, error, error_size);
}

int gz_video_writer_close(gz_video_writer *writer, char *error, size_t error_size) {
    if (writer == NULL) return 0;
    int result = 0;
    if (writer->header_written) {
        gz_ff.avcodec_send_frame(writer->codec, NULL);
        result = writer_drain(writer, error, error_size);
        int status = gz_ff.av_write_trailer(writer->format);
        if (status < 0 && result == 0) {
            writer_error(status, "cannot finish the video file", error, error_size);
            result = -1;
        }
    }
    writer_free(writer);
    return result;
}
