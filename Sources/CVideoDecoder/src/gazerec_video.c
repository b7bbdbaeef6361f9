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
    // The luma shortcut (see gz_video_set_luma_shortcut): for the pixel format `luma_format`,
    // state 1 = the table below gives exactly swscale's gray, -1 = it does not (use swscale),
    // 0 = not decided yet. `luma_shortcut` is 0 when the caller asked for swscale always.
    int luma_shortcut;
    int luma_format;
    int luma_state;
    uint8_t luma_table[256];
    // The table as arithmetic, where it is one: gray = clamp((y * scale + offset) >> 12) for
    // every y (luma_affine = 1), which vectorises where a table read per pixel cannot.
    int luma_affine;
    int32_t luma_scale;
    int32_t luma_offset;
};

#include <dlfcn.h>
#include <pthread.h>
#include <libavutil/macros.h>

// FFmpeg is opened with dlopen on first use, not linked: its ~130 libraries add ~27 MB and
// ~60 ms to the start of every gazerec command, most of which never decode a video.
static struct {
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
    __typeof__(&avformat_alloc_output_context2) avformat_alloc_output_context2;
    __typeof__(&avcodec_find_encoder) avcodec_find_encoder;
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
} ff;
static int ff_loaded = 0;
static char ff_error[256];

#define GZ_SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

static void load_ffmpeg_once(void) {
    const char *names[4] = {GZ_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), GZ_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
                            GZ_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), GZ_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR)};
    void *handles[4];
    for (int i = 0; i < 4; ++i) {
        handles[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handles[i] == NULL) {
            snprintf(ff_error, sizeof ff_error, "cannot load FFmpeg's %s (install libavformat-dev or the FFmpeg runtime libraries)", names[i]);
            ff_loaded = -1;
            return;
        }
    }
#define GZ_LOAD(library, function)                                                              \
    ff.function = (__typeof__(ff.function))dlsym(handles[library], #function);                  \
    if (ff.function == NULL) {                                                                  \
        snprintf(ff_error, sizeof ff_error, "FFmpeg's %s lacks %s", names[library], #function); \
        ff_loaded = -1;                                                                         \
        return;                                                                                 \
    }
    GZ_LOAD(0, av_log_set_level)
    GZ_LOAD(2, avformat_open_input)
    GZ_LOAD(2, avformat_find_stream_info)
    GZ_LOAD(2, av_find_best_stream)
    GZ_LOAD(1, avcodec_alloc_context3)
    GZ_LOAD(1, avcodec_parameters_to_context)
    GZ_LOAD(1, avcodec_open2)
    GZ_LOAD(1, av_packet_alloc)
    GZ_LOAD(0, av_frame_alloc)
    GZ_LOAD(0, av_strerror)
    GZ_LOAD(3, sws_getCachedContext)
    GZ_LOAD(3, sws_scale)
    GZ_LOAD(0, av_frame_unref)
    GZ_LOAD(1, avcodec_receive_frame)
    GZ_LOAD(2, av_read_frame)
    GZ_LOAD(1, avcodec_send_packet)
    GZ_LOAD(1, av_packet_unref)
    GZ_LOAD(3, sws_freeContext)
    GZ_LOAD(0, av_frame_free)
    GZ_LOAD(1, av_packet_free)
    GZ_LOAD(1, avcodec_free_context)
    GZ_LOAD(2, avformat_close_input)
    GZ_LOAD(0, av_dict_get)
    GZ_LOAD(0, av_dict_set)
    GZ_LOAD(2, avformat_alloc_output_context2)
    GZ_LOAD(1, avcodec_find_encoder)
    GZ_LOAD(2, avformat_new_stream)
    GZ_LOAD(1, avcodec_parameters_from_context)
    GZ_LOAD(2, avio_open)
    GZ_LOAD(2, avio_closep)
    GZ_LOAD(2, avformat_write_header)
    GZ_LOAD(0, av_frame_get_buffer)
    GZ_LOAD(0, av_frame_make_writable)
    GZ_LOAD(1, avcodec_send_frame)
    GZ_LOAD(1, avcodec_receive_packet)
    GZ_LOAD(1, av_packet_rescale_ts)
    GZ_LOAD(2, av_interleaved_write_frame)
    GZ_LOAD(2, av_write_trailer)
    GZ_LOAD(2, avformat_free_context)
#undef GZ_LOAD
    ff_loaded = 1;
}

// Thread-safe: decoders may be opened from several threads at once (tests do), and every one
// must see the whole table filled in.
static int load_ffmpeg(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_ffmpeg_once);
    return ff_loaded > 0;
}

static void set_error(char *error, size_t size, const char *prefix, int code) {
    if (error == NULL || size == 0) return;
    char reason[256] = "unknown error";
    if (code != 0) ff.av_strerror(code, reason, sizeof reason);
    snprintf(error, size, "%s%s%s", prefix, code != 0 ? ": " : "", code != 0 ? reason : "");
}

gz_video *gz_video_open(const char *path, char *error, size_t error_size) {
    if (!load_ffmpeg()) {
        if (error != NULL && error_size > 0) snprintf(error, error_size, "%s", ff_error);
        return NULL;
    }
    ff.av_log_set_level(AV_LOG_QUIET);
    gz_video *video = calloc(1, sizeof *video);
    if (video == NULL) {
        set_error(error, error_size, "out of memory", 0);
        return NULL;
    }
    int code = ff.avformat_open_input(&video->format, path, NULL, NULL);
    if (code < 0) {
        set_error(error, error_size, "not a readable video or image", code);
        free(video);
        return NULL;
    }
    code = ff.avformat_find_stream_info(video->format, NULL);
    if (code < 0) {
        set_error(error, error_size, "cannot read the stream information", code);
        gz_video_close(video);
        return NULL;
    }
    const AVCodec *decoder = NULL;
    code = ff.av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (code < 0 || decoder == NULL) {
        set_error(error, error_size, "the file has no video stream", code == AVERROR_DECODER_NOT_FOUND ? code : 0);
        gz_video_close(video);
        return NULL;
    }
    video->stream_index = code;
    AVStream *stream = video->format->streams[video->stream_index];
    video->codec = ff.avcodec_alloc_context3(decoder);
    if (video->codec == NULL || ff.avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) {
        set_error(error, error_size, "cannot set up the decoder", 0);
        gz_video_close(video);
        return NULL;
    }
    video->codec->thread_count = 1;  // deterministic and leaves the other core to the pipeline
    video->luma_shortcut = 1;
    video->luma_format = AV_PIX_FMT_NONE;
    code = ff.avcodec_open2(video->codec, decoder, NULL);
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
    video->packet = ff.av_packet_alloc();
    video->frame = ff.av_frame_alloc();
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
    AVDictionaryEntry *created = ff.av_dict_get(video->format->metadata, "creation_time", NULL, 0);
    if (created == NULL) created = ff.av_dict_get(stream->metadata, "creation_time", NULL, 0);
    if (created != NULL && created->value != NULL) {
        snprintf(video->info.creation_time, sizeof video->info.creation_time, "%s", created->value);
    }
    return video;
}

gz_video_info gz_video_get_info(const gz_video *video) { return video->info; }

/// Whether plane 0 of `format` is the 8-bit luma, one byte per pixel (planar and semi-planar
/// 8-bit YUV, and gray): its gray is then a function of each luma byte alone.
static int is_luma_plane_format(int format) {
    switch (format) {
    case AV_PIX_FMT_YUV420P: case AV_PIX_FMT_YUVJ420P: case AV_PIX_FMT_YUV422P: case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUV444P: case AV_PIX_FMT_YUVJ444P: case AV_PIX_FMT_YUV440P: case AV_PIX_FMT_YUVJ440P:
    case AV_PIX_FMT_YUV411P: case AV_PIX_FMT_YUV410P: case AV_PIX_FMT_NV12: case AV_PIX_FMT_NV21:
    case AV_PIX_FMT_NV16: case AV_PIX_FMT_GRAY8:
        return 1;
    default:
        return 0;
    }
}

/// swscale's gray for each luma value of `format`, read off swscale itself: a 256-wide frame whose
/// luma is the ramp 0…255 (chroma neutral) converted as frames are. Returns 0 if it cannot.
static int luma_table_for(int format, uint8_t table[256]) {
    if (!is_luma_plane_format(format)) return 0;
    int ok = 0;
    AVFrame *ramp = ff.av_frame_alloc();
    struct SwsContext *scaler = NULL;
    if (ramp == NULL) return 0;
    ramp->format = format;
    ramp->width = 256;
    ramp->height = 4;
    if (ff.av_frame_get_buffer(ramp, 0) == 0) {
        for (int plane = 0; plane < 4 && ramp->data[plane] != NULL; ++plane) {
            for (int row = 0; row < ramp->height; ++row) {
                uint8_t *line = ramp->data[plane] + (size_t)row * ramp->linesize[plane];
                if (plane == 0) {
                    for (int x = 0; x < 256; ++x) line[x] = (uint8_t)x;
                } else {
                    memset(line, 128, (size_t)ramp->linesize[plane]);
                }
            }
        }
        scaler = ff.sws_getCachedContext(NULL, 256, 4, format, 256, 4, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
        uint8_t out[256 * 4];
        uint8_t *planes[4] = {out, NULL, NULL, NULL};
        int strides[4] = {256, 0, 0, 0};
        if (scaler != NULL && ff.sws_scale(scaler, (const uint8_t *const *)ramp->data, ramp->linesize, 0, 4, planes, strides) == 4) {
            memcpy(table, out, 256);
            ok = 1;
        }
    }
    ff.sws_freeContext(scaler);
    ff.av_frame_free(&ramp);
    return ok;
}

/// Gray from the luma plane through the table, rows packed.
static void map_luma(const AVFrame *frame, const uint8_t table[256], uint8_t *gray) {
    for (int row = 0; row < frame->height; ++row) {
        const uint8_t *luma = frame->data[0] + (size_t)row * frame->linesize[0];
        uint8_t *out = gray + (size_t)row * frame->width;
        for (int x = 0; x < frame->width; ++x) out[x] = table[luma[x]];
    }
}

enum { LUMA_FRACTION_BITS = 12 };

static inline uint8_t luma_affine_value(uint8_t y, int32_t scale, int32_t offset) {
    int32_t value = ((int32_t)y * scale + offset) >> LUMA_FRACTION_BITS;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// Finds scale and offset such that luma_affine_value gives every entry of the table (a range
/// expansion such as limited to full range is one), and returns 1; 0 if there are none.
static int luma_affine_for(const uint8_t table[256], int32_t *scale, int32_t *offset) {
    // Every 12-bit scale from 0 to 4 (limited to full range is 255/219 ≈ 1.16), each with the
    // offsets every entry allows: a few million steps, once per pixel format.
    for (int32_t candidate = 0; candidate <= 4 << LUMA_FRACTION_BITS; ++candidate) {
        int64_t low = INT32_MIN / 2, high = INT32_MAX / 2;
        for (int y = 0; y < 256 && low <= high; ++y) {
            int64_t base = (int64_t)y * candidate, t = table[y];
            if (t > 0) { int64_t bound = (t << LUMA_FRACTION_BITS) - base; if (bound > low) low = bound; }
            if (t < 255) { int64_t bound = ((t + 1) << LUMA_FRACTION_BITS) - 1 - base; if (bound < high) high = bound; }
        }
        if (low > high) continue;
        int ok = 1;
        for (int y = 0; y < 256 && ok; ++y) ok = luma_affine_value((uint8_t)y, candidate, (int32_t)low) == table[y];
        if (ok) {
            *scale = candidate;
            *offset = (int32_t)low;
            return 1;
        }
    }
    return 0;
}

// The frame's fields are read once: a byte store may alias anything, so reading them in the
// loop would keep the compiler from vectorising it.
#define LUMA_AFFINE_ROWS                                                                           \
    const int width = frame->width, height = frame->height, stride = frame->linesize[0];         \
    const uint8_t *plane = frame->data[0];                                                         \
    for (int row = 0; row < height; ++row) {                                                       \
        const uint8_t *restrict luma = plane + (size_t)row * stride;                               \
        uint8_t *restrict out = gray + (size_t)row * width;                                        \
        for (int x = 0; x < width; ++x) out[x] = luma_affine_value(luma[x], scale, offset);        \
    }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2"))) static void map_luma_affine_avx2(const AVFrame *frame, int32_t scale, int32_t offset,
                                                                  uint8_t *gray) {
    LUMA_AFFINE_ROWS
}
#endif

/// Gray from the luma plane by the table's arithmetic form (eight pixels an instruction with AVX2).
static void map_luma_affine(const AVFrame *frame, int32_t scale, int32_t offset, uint8_t *gray) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx2")) {
        map_luma_affine_avx2(frame, scale, offset, gray);
        return;
    }
#endif
    LUMA_AFFINE_ROWS
}

/// Gray from the luma plane: by arithmetic where the table is affine, else through the table.
static void map_luma_fast(const gz_video *video, const AVFrame *frame, uint8_t *gray) {
    if (video->luma_affine) {
        map_luma_affine(frame, video->luma_scale, video->luma_offset, gray);
    } else {
        map_luma(frame, video->luma_table, gray);
    }
}

static int convert_with_swscale(gz_video *video, const AVFrame *frame, uint8_t *gray) {
    video->scaler = ff.sws_getCachedContext(video->scaler, frame->width, frame->height, frame->format, frame->width,
                                            frame->height, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (video->scaler == NULL) return -1;
    uint8_t *planes[4] = {gray, NULL, NULL, NULL};
    int strides[4] = {frame->width, 0, 0, 0};
    ff.sws_scale(video->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    return 0;
}

void gz_video_set_luma_shortcut(gz_video *video, int enabled) {
    if (video == NULL) return;
    video->luma_shortcut = enabled != 0;
    video->luma_format = AV_PIX_FMT_NONE;
    video->luma_state = 0;
}

int gz_video_luma_shortcut_in_use(const gz_video *video) {
    if (video == NULL || !video->luma_shortcut || video->luma_state != 1) return 0;
    return video->luma_affine ? 2 : 1;
}

/// Converts the decoded frame to packed gray and computes its time.
static int emit(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size) {
    AVFrame *frame = video->frame;
    if (frame->width != video->info.width || frame->height != video->info.height) {
        set_error(error, error_size, "the frame size changed in the middle of the video", 0);
        return -1;
    }
    if (video->luma_shortcut && frame->format != video->luma_format) {
        video->luma_format = frame->format;
        video->luma_state = luma_table_for(frame->format, video->luma_table) ? 0 : -1;
        video->luma_affine = video->luma_state == 0 &&
                             luma_affine_for(video->luma_table, &video->luma_scale, &video->luma_offset);
    }
    if (video->luma_shortcut && video->luma_state == 1) {
        map_luma_fast(video, frame, gray);
    } else {
        if (convert_with_swscale(video, frame, gray) != 0) {
            set_error(error, error_size, "cannot convert this pixel format to gray", 0);
            return -1;
        }
        if (video->luma_shortcut && video->luma_state == 0) {
            // The first frame of the format, converted both ways: the table is used only if it
            // gives every pixel exactly as swscale did.
            size_t count = (size_t)frame->width * frame->height;
            uint8_t *check = malloc(count);
            if (check != NULL) {
                map_luma_fast(video, frame, check);
                video->luma_state = memcmp(check, gray, count) == 0 ? 1 : -1;
                free(check);
            } else {
                video->luma_state = -1;
            }
        }
    }

    int64_t pts = frame->best_effort_timestamp;
    if (pts != AV_NOPTS_VALUE) {
        if (video->start_pts == AV_NOPTS_VALUE) video->start_pts = pts;
        *pts_seconds = (pts - video->start_pts) * av_q2d(video->time_base);
    } else {
        *pts_seconds = video->fps > 0 ? video->frames_out / video->fps : (double)video->frames_out;
    }
    video->frames_out += 1;
    ff.av_frame_unref(frame);
    return 1;
}

int gz_video_read(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size) {
    if (video == NULL || gray == NULL || pts_seconds == NULL) {
        set_error(error, error_size, "invalid arguments", 0);
        return -1;
    }
    while (!video->finished) {
        int code = ff.avcodec_receive_frame(video->codec, video->frame);
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
        code = ff.av_read_frame(video->format, video->packet);
        if (code == AVERROR_EOF) {
            video->draining = 1;
            ff.avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (code < 0) {
            set_error(error, error_size, "reading the file failed", code);
            return -1;
        }
        if (video->packet->stream_index == video->stream_index) {
            code = ff.avcodec_send_packet(video->codec, video->packet);
            if (code < 0 && code != AVERROR_INVALIDDATA) {
                ff.av_packet_unref(video->packet);
                set_error(error, error_size, "decoding failed", code);
                return -1;
            }
        }
        ff.av_packet_unref(video->packet);
    }
    return 0;
}

void gz_video_close(gz_video *video) {
    if (video == NULL) return;
    ff.sws_freeContext(video->scaler);
    ff.av_frame_free(&video->frame);
    ff.av_packet_free(&video->packet);
    ff.avcodec_free_context(&video->codec);
    ff.avformat_close_input(&video->format);
    free(video);
}

// MARK: - Writing

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
    ff.av_strerror(code, reason, sizeof reason);
    snprintf(error, error_size, "%s: %s", what, reason);
}

static void writer_free(gz_video_writer *writer) {
    if (writer == NULL) return;
    if (writer->format != NULL) {
        if (writer->format->pb != NULL) ff.avio_closep(&writer->format->pb);
        ff.avformat_free_context(writer->format);
    }
    ff.avcodec_free_context(&writer->codec);
    ff.av_frame_free(&writer->frame);
    ff.av_packet_free(&writer->packet);
    free(writer);
}

// Moves every packet the encoder has ready into the file.
static int writer_drain(gz_video_writer *writer, char *error, size_t error_size) {
    for (;;) {
        int status = ff.avcodec_receive_packet(writer->codec, writer->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
        if (status < 0) {
            writer_error(status, "encoding failed", error, error_size);
            return -1;
        }
        ff.av_packet_rescale_ts(writer->packet, writer->codec->time_base, writer->stream->time_base);
        writer->packet->stream_index = writer->stream->index;
        status = ff.av_interleaved_write_frame(writer->format, writer->packet);
        if (status < 0) {
            writer_error(status, "writing the video failed", error, error_size);
            return -1;
        }
    }
}

gz_video_writer *gz_video_writer_open(const char *path, int width, int height, const char *title, char *error,
                                      size_t error_size) {
    if (!load_ffmpeg()) {
        snprintf(error, error_size, "%s", ff_error);
        return NULL;
    }
    ff.av_log_set_level(AV_LOG_QUIET);
    gz_video_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    int status = ff.avformat_alloc_output_context2(&writer->format, NULL, NULL, path);
    if (status < 0 || writer->format == NULL) {
        writer_error(status, "no container for this file name (use .mkv)", error, error_size);
        writer_free(writer);
        return NULL;
    }
    const AVCodec *encoder = ff.avcodec_find_encoder(AV_CODEC_ID_FFV1);
    writer->codec = encoder != NULL ? ff.avcodec_alloc_context3(encoder) : NULL;
    writer->frame = ff.av_frame_alloc();
    writer->packet = ff.av_packet_alloc();
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
    if ((status = ff.avcodec_open2(writer->codec, encoder, NULL)) < 0) {
        writer_error(status, "cannot open the FFV1 encoder", error, error_size);
        writer_free(writer);
        return NULL;
    }
    writer->stream = ff.avformat_new_stream(writer->format, NULL);
    if (writer->stream == NULL) {
        snprintf(error, error_size, "out of memory");
        writer_free(writer);
        return NULL;
    }
    writer->stream->time_base = writer->codec->time_base;
    ff.avcodec_parameters_from_context(writer->stream->codecpar, writer->codec);
    if (title != NULL) ff.av_dict_set(&writer->format->metadata, "title", title, 0);
    if ((status = ff.avio_open(&writer->format->pb, path, AVIO_FLAG_WRITE)) < 0) {
        writer_error(status, "cannot create the file", error, error_size);
        writer_free(writer);
        return NULL;
    }
    if ((status = ff.avformat_write_header(writer->format, NULL)) < 0) {
        writer_error(status, "cannot write the container header", error, error_size);
        writer_free(writer);
        return NULL;
    }
    writer->header_written = 1;
    writer->frame->format = AV_PIX_FMT_GRAY8;
    writer->frame->width = width;
    writer->frame->height = height;
    if ((status = ff.av_frame_get_buffer(writer->frame, 0)) < 0) {
        writer_error(status, "out of memory", error, error_size);
        writer_free(writer);
        return NULL;
    }
    return writer;
}

int gz_video_writer_write(gz_video_writer *writer, const uint8_t *gray, int stride, int64_t pts_microseconds,
                          char *error, size_t error_size) {
    int status = ff.av_frame_make_writable(writer->frame);
    if (status < 0) {
        writer_error(status, "out of memory", error, error_size);
        return -1;
    }
    for (int row = 0; row < writer->codec->height; ++row) {
        memcpy(writer->frame->data[0] + (size_t)row * writer->frame->linesize[0], gray + (size_t)row * stride,
               (size_t)writer->codec->width);
    }
    writer->frame->pts = pts_microseconds;
    if ((status = ff.avcodec_send_frame(writer->codec, writer->frame)) < 0) {
        writer_error(status, "encoding failed", error, error_size);
        return -1;
    }
    return writer_drain(writer, error, error_size);
}

int gz_video_writer_close(gz_video_writer *writer, char *error, size_t error_size) {
    if (writer == NULL) return 0;
    int result = 0;
    if (writer->header_written) {
        ff.avcodec_send_frame(writer->codec, NULL);
        result = writer_drain(writer, error, error_size);
        int status = ff.av_write_trailer(writer->format);
        if (status < 0 && result == 0) {
            writer_error(status, "cannot finish the video file", error, error_size);
            result = -1;
        }
    }
    writer_free(writer);
    return result;
}
