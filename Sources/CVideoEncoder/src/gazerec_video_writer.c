// FFV1 encoding of gray frames for gazerec. See include/gazerec_video_writer.h for the contract.

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
};

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

gz_video_writer *gz_video_writer_open(const char *path, int width, int height, const char *title, char *error,
                                      size_t error_size) {
    if (!gz_ffmpeg_load()) {
        snprintf(error, error_size, "%s", gz_ffmpeg_error());
        return NULL;
    }
    gz_ff.av_log_set_level(AV_LOG_QUIET);
    gz_video_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    int status = gz_ff.avformat_alloc_output_context2(&writer->format, NULL, NULL, path);
    if (status < 0 || writer->format == NULL) {
        writer_error(status, "no container for this file name (use .mkv)", error, error_size);
        writer_free(writer);
        return NULL;
    }
    const AVCodec *encoder = gz_ff.avcodec_find_encoder(AV_CODEC_ID_FFV1);
    writer->codec = encoder != NULL ? gz_ff.avcodec_alloc_context3(encoder) : NULL;
    writer->frame = gz_ff.av_frame_alloc();
    writer->packet = gz_ff.av_packet_alloc();
    if (writer->codec == NULL || writer->frame == NULL || writer->packet == NULL) {
        snprintf(error, error_size, "FFmpeg has no FFV1 encoder");
        writer_free(writer);
        return NULL;
    }
    writer->codec->width = width;
    writer->codec->height = height;
    writer->codec->pix_fmt = AV_PIX_FMT_GRAY8;
    writer->codec->time_base = (AVRational){1, 1000000};
    writer->codec->thread_count = 1;
    writer->codec->gop_size = 1;
    if (writer->format->oformat->flags & AVFMT_GLOBALHEADER) writer->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((status = gz_ff.avcodec_open2(writer->codec, encoder, NULL)) < 0) {
        writer_error(status, "cannot open the FFV1 encoder", error, error_size);
        writer_free(writer);
        return NULL;
    }
    writer->stream = gz_ff.avformat_new_stream(writer->format, NULL);
    if (writer->stream == NULL) {
        snprintf(error, error_size, "out of memory");
        writer_free(writer);
        return NULL;
    }
    writer->stream->time_base = writer->codec->time_base;
    gz_ff.avcodec_parameters_from_context(writer->stream->codecpar, writer->codec);
    if (title != NULL) gz_ff.av_dict_set(&writer->format->metadata, "title", title, 0);
    if ((status = gz_ff.avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE)) < 0) {
        writer_error(status, "cannot create the file", error, error_size);
        writer_free(writer);
        return NULL;
    }
    if ((status = gz_ff.avformat_write_header(writer->format, NULL)) < 0) {
        writer_error(status, "cannot write the container header", error, error_size);
        writer_free(writer);
        return NULL;
    }
    writer->header_written = 1;
    writer->frame->format = AV_PIX_FMT_GRAY8;
    writer->frame->width = width;
    writer->frame->height = height;
    if ((status = gz_ff.av_frame_get_buffer(writer->frame, 0)) < 0) {
        writer_error(status, "out of memory", error, error_size);
        writer_free(writer);
        return NULL;
    }
    return writer;
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
    writer->frame->pts = pts_microseconds;
    if ((status = gz_ff.avcodec_send_frame(writer->codec, writer->frame)) < 0) {
        writer_error(status, "encoding failed", error, error_size);
        return -1;
    }
    return writer_drain(writer, error, error_size);
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
