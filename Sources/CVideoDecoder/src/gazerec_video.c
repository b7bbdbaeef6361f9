// FFmpeg decoding for gazerec. See include/gazerec_video.h for the contract.

#include "gazerec_video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gz_video {
    AVFormatContext *format;
    AVCodecContext *codec;
    struct SwsContext *scaler;
    AVPacket *packet;
    AVFrame *frame;
    int stream_index;
    AVRational time_base;
    int64_t start_pts;
    int draining;
    int finished;
    long frames_out;
    double fps;
    gz_video_info info;
};

static void set_error(char *error, size_t size, const char *prefix, int code) {
    if (error == NULL || size == 0) return;
    char reason[256] = "unknown error";
    if (code != 0) av_strerror(code, reason, sizeof reason);
    snprintf(error, size, "%s%s%s", prefix, code != 0 ? ": " : "", code != 0 ? reason : "");
}

gz_video *gz_video_open(const char *path, char *error, size_t error_size) {
    av_log_set_level(AV_LOG_QUIET);
    gz_video *video = calloc(1, sizeof *video);
    if (video == NULL) {
        set_error(error, error_size, "out of memory", 0);
        return NULL;
    }
    int code = avformat_open_input(&video->format, path, NULL, NULL);
    if (code < 0) {
        set_error(error, error_size, "not a readable video or image", code);
        free(video);
        return NULL;
    }
    code = avformat_find_stream_info(video->format, NULL);
    if (code < 0) {
        set_error(error, error_size, "cannot read the stream information", code);
        gz_video_close(video);
        return NULL;
    }
    const AVCodec *decoder = NULL;
    code = av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (code < 0 || decoder == NULL) {
        set_error(error, error_size, "the file has no video stream", code == AVERROR_DECODER_NOT_FOUND ? code : 0);
        gz_video_close(video);
        return NULL;
    }
    video->stream_index = code;
    AVStream *stream = video->format->streams[video->stream_index];
    video->codec = avcodec_alloc_context3(decoder);
    if (video->codec == NULL || avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) {
        set_error(error, error_size, "cannot set up the decoder", 0);
        gz_video_close(video);
        return NULL;
    }
    video->codec->thread_count = 1;  // deterministic and leaves the other core to the pipeline
    code = avcodec_open2(video->codec, decoder, NULL);
    if (code < 0) {
        set_error(error, error_size, "cannot open the decoder", code);
        gz_video_close(video);
        return NULL;
    }
    if (video->codec->width <= 0 || video->codec->height <= 0) {
        set_error(error, error_size, "the video stream has no frame size", 0);
        gz_video_close(video);
        return NULL;
    }
    video->packet = av_packet_alloc();
    video->frame = av_frame_alloc();
    if (video->packet == NULL || video->frame == NULL) {
        set_error(error, error_size, "out of memory", 0);
        gz_video_close(video);
        return NULL;
    }
    video->time_base = stream->time_base;
    video->start_pts = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : AV_NOPTS_VALUE;
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    video->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;

    video->info.width = video->codec->width;
    video->info.height = video->codec->height;
    video->info.frames_per_second = video->fps;
    if (stream->duration != AV_NOPTS_VALUE) {
        video->info.duration_seconds = stream->duration * av_q2d(stream->time_base);
    } else if (video->format->duration != AV_NOPTS_VALUE) {
        video->info.duration_seconds = video->format->duration / (double)AV_TIME_BASE;
    }
    video->info.frame_count = stream->nb_frames > 0 ? (long)stream->nb_frames : 0;
    snprintf(video->info.codec, sizeof video->info.codec, "%s", decoder->name);
    return video;
}

gz_video_info gz_video_get_info(const gz_video *video) { return video->info; }

/// Converts the decoded frame to packed gray and computes its time.
static int emit(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size) {
    AVFrame *frame = video->frame;
    if (frame->width != video->info.width || frame->height != video->info.height) {
        set_error(error, error_size, "the frame size changed in the middle of the video", 0);
        return -1;
    }
    video->scaler = sws_getCachedContext(video->scaler, frame->width, frame->height, frame->format, frame->width,
                                         frame->height, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (video->scaler == NULL) {
        set_error(error, error_size, "cannot convert this pixel format to gray", 0);
        return -1;
    }
    uint8_t *planes[4] = {gray, NULL, NULL, NULL};
    int strides[4] = {frame->width, 0, 0, 0};
    sws_scale(video->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);

    int64_t pts = frame->best_effort_timestamp;
    if (pts != AV_NOPTS_VALUE) {
        if (video->start_pts == AV_NOPTS_VALUE) video->start_pts = pts;
        *pts_seconds = (pts - video->start_pts) * av_q2d(video->time_base);
    } else {
        *pts_seconds = video->fps > 0 ? video->frames_out / video->fps : (double)video->frames_out;
    }
    video->frames_out += 1;
    av_frame_unref(frame);
    return 1;
}

int gz_video_read(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size) {
    if (video == NULL || gray == NULL || pts_seconds == NULL) {
        set_error(error, error_size, "invalid arguments", 0);
        return -1;
    }
    while (!video->finished) {
        int code = avcodec_receive_frame(video->codec, video->frame);
        if (code == 0) return emit(video, gray, pts_seconds, error, error_size);
        if (code == AVERROR_EOF) {
            video->finished = 1;
            break;
        }
        if (code != AVERROR(EAGAIN)) {
            set_error(error, error_size, "decoding failed", code);
            return -1;
        }
        if (video->draining) {
            video->finished = 1;
            break;
        }
        code = av_read_frame(video->format, video->packet);
        if (code == AVERROR_EOF) {
            video->draining = 1;
            avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (code < 0) {
            set_error(error, error_size, "reading the file failed", code);
            return -1;
        }
        if (video->packet->stream_index == video->stream_index) {
            code = avcodec_send_packet(video->codec, video->packet);
            if (code < 0 && code != AVERROR_INVALIDDATA) {
                av_packet_unref(video->packet);
                set_error(error, error_size, "decoding failed", code);
                return -1;
            }
        }
        av_packet_unref(video->packet);
    }
    return 0;
}

void gz_video_close(gz_video *video) {
    if (video == NULL) return;
    sws_freeContext(video->scaler);
    av_frame_free(&video->frame);
    av_packet_free(&video->packet);
    avcodec_free_context(&video->codec);
    avformat_close_input(&video->format);
    free(video);
}
