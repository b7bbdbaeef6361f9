// FFmpeg decoding for gazerec. See include/gazerec_video.h for the contract.

#include "gazerec_video.h"

#include "gazerec_ffmpeg.h"

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
    // The decoded frame's gray before the display matrix's turn (coded_width × coded_height),
    // when there is a turn to apply.
    uint8_t *unturned;
    int coded_width;
    int coded_height;
    // Colour frames (gz_video_read_yuv420): their converter for formats other than 4:2:0, and
    // the planes before the turn, when there is one.
    struct SwsContext *colour_scaler;
    uint8_t *unturned_yuv;
};

/// The clockwise turn (0, 90, 180, 270) the stream's display matrix asks for, to the nearest
/// quarter turn; 0 without one. av_display_rotation_get gives the counter-clockwise angle the
/// matrix rotates by, so the frame shows upright turned by its negative (as FFmpeg's own
/// players do).
static int display_rotation(const AVStream *stream) {
    const int32_t *matrix = NULL;
#if GZ_FFMPEG_CODED_SIDE_DATA
    const AVPacketSideData *side = gz_ff.av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                                 stream->codecpar->nb_coded_side_data,
                                                                 AV_PKT_DATA_DISPLAYMATRIX);
    if (side != NULL && side->size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)side->data;
#else
    size_t size = 0;
    const uint8_t *data = gz_ff.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data != NULL && size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)data;
#endif
    if (matrix == NULL) return 0;
    double angle = gz_ff.av_display_rotation_get(matrix);
    if (isnan(angle)) return 0;
    long quarter = lround(-angle / 90.0);
    return (int)(((quarter % 4) + 4) % 4) * 90;
}

/// Turns `source` (width × height, rows packed) clockwise by `degrees` into `target`.
static void turn_gray(const uint8_t *source, int width, int height, int degrees, uint8_t *target) {
    for (int y = 0; y < height; ++y) {
        const uint8_t *row = source + (size_t)y * width;
        for (int x = 0; x < width; ++x) {
            size_t at;
            switch (degrees) {
            case 90: at = (size_t)x * height + (height - 1 - y); break;
            case 180: at = (size_t)(height - 1 - y) * width + (width - 1 - x); break;
            default: at = (size_t)(width - 1 - x) * height + y; break;
            }
            target[at] = row[x];
        }
    }
}

/// Fills in the rotation and the size the frames come out at; 0 when out of memory.
static int set_up_rotation(gz_video *video, const AVStream *stream) {
    video->coded_width = video->codec->width;
    video->coded_height = video->codec->height;
    video->info.rotation_degrees = display_rotation(stream);
    int sideways = video->info.rotation_degrees % 180 != 0;
    video->info.width = sideways ? video->coded_height : video->coded_width;
    video->info.height = sideways ? video->coded_width : video->coded_height;
    if (video->info.rotation_degrees == 0) return 1;
    video->unturned = malloc((size_t)video->coded_width * video->coded_height);
    return video->unturned != NULL;
}

static int is_luma_plane_format(int format);

/// Whether frames of `format` are copied as they are into colour frames (planar 4:2:0, 8 bits).
static int is_yuv420(int format) { return format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P; }

/// Fills in the colour of the frames gz_video_read_yuv420 gives (see gazerec_video.h).
static void describe_colour(gz_video *video, const AVStream *stream) {
    const AVCodecParameters *parameters = stream->codecpar;
    int format = video->codec->pix_fmt;
    video->info.colour_matrix = is_luma_plane_format(format) ? (int)parameters->color_space : AVCOL_SPC_SMPTE170M;
    video->info.colour_primaries = (int)parameters->color_primaries;
    video->info.colour_transfer = (int)parameters->color_trc;
    int full = format == AV_PIX_FMT_YUVJ420P || (format == AV_PIX_FMT_YUV420P && parameters->color_range == AVCOL_RANGE_JPEG);
    video->info.colour_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
}

gz_video *gz_video_open(const char *path, char *error, size_t error_size) {
    if (!gz_ffmpeg_load()) {
        if (error != NULL && error_size > 0) snprintf(error, error_size, "%s", gz_ffmpeg_error());
        return NULL;
    }
    gz_ff.av_log_set_level(AV_LOG_QUIET);
    gz_video *video = calloc(1, sizeof *video);
    if (video == NULL) {
        gz_ffmpeg_set_error(error, error_size, "out of memory", 0);
        return NULL;
    }
    int code = gz_ff.avformat_open_input(&video->format, path, NULL, NULL);
    if (code < 0) {
        gz_ffmpeg_set_error(error, error_size, "not a readable video or image", code);
        free(video);
        return NULL;
    }
    code = gz_ff.avformat_find_stream_info(video->format, NULL);
    if (code < 0) {
        gz_ffmpeg_set_error(error, error_size, "cannot read the stream information", code);
        gz_video_close(video);
        return NULL;
    }
    const AVCodec *decoder = NULL;
    code = gz_ff.av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (code < 0 || decoder == NULL) {
        gz_ffmpeg_set_error(error, error_size, "the file has no video stream", code == AVERROR_DECODER_NOT_FOUND ? code : 0);
        gz_video_close(video);
        return NULL;
    }
    video->stream_index = code;
    AVStream *stream = video->format->streams[video->stream_index];
    video->codec = gz_ff.avcodec_alloc_context3(decoder);
    if (video->codec == NULL || gz_ff.avcodec_parameters_to_context(video->codec, stream->codecpar) < 0) {
        gz_ffmpeg_set_error(error, error_size, "cannot set up the decoder", 0);
        gz_video_close(video);
        return NULL;
    }
    video->codec->thread_count = 1;  // deterministic and leaves the other core to the pipeline
    video->luma_shortcut = 1;
    video->luma_format = AV_PIX_FMT_NONE;
    code = gz_ff.avcodec_open2(video->codec, decoder, NULL);
    if (code < 0) {
        gz_ffmpeg_set_error(error, error_size, "cannot open the decoder", code);
        gz_video_close(video);
        return NULL;
    }
    if (video->codec->width <= 0 || video->codec->height <= 0) {
        gz_ffmpeg_set_error(error, error_size, "the video stream has no frame size", 0);
        gz_video_close(video);
        return NULL;
    }
    video->packet = gz_ff.av_packet_alloc();
    video->frame = gz_ff.av_frame_alloc();
    if (video->packet == NULL || video->frame == NULL) {
        gz_ffmpeg_set_error(error, error_size, "out of memory", 0);
        gz_video_close(video);
        return NULL;
    }
    video->time_base = stream->time_base;
    video->start_pts = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : AV_NOPTS_VALUE;
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    video->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;

    if (!set_up_rotation(video, stream)) {
        gz_ffmpeg_set_error(error, error_size, "out of memory", 0);
        gz_video_close(video);
        return NULL;
    }
    video->info.frames_per_second = video->fps;
    video->info.rate_numerator = video->fps > 0 ? rate.num : 0;
    video->info.rate_denominator = video->fps > 0 ? rate.den : 1;
    describe_colour(video, stream);
    if (stream->duration != AV_NOPTS_VALUE) {
        video->info.duration_seconds = stream->duration * av_q2d(stream->time_base);
    } else if (video->format->duration != AV_NOPTS_VALUE) {
        video->info.duration_seconds = video->format->duration / (double)AV_TIME_BASE;
    }
    video->info.frame_count = stream->nb_frames > 0 ? (long)stream->nb_frames : 0;
    snprintf(video->info.codec, sizeof video->info.codec, "%s", decoder->name);
    AVDictionaryEntry *created = gz_ff.av_dict_get(video->format->metadata, "creation_time", NULL, 0);
    if (created == NULL) created = gz_ff.av_dict_get(stream->metadata, "creation_time", NULL, 0);
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
    AVFrame *ramp = gz_ff.av_frame_alloc();
    struct SwsContext *scaler = NULL;
    if (ramp == NULL) return 0;
    ramp->format = format;
    ramp->width = 256;
    ramp->height = 4;
    if (gz_ff.av_frame_get_buffer(ramp, 0) == 0) {
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
        scaler = gz_ff.sws_getCachedContext(NULL, 256, 4, format, 256, 4, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
        uint8_t out[256 * 4];
        uint8_t *planes[4] = {out, NULL, NULL, NULL};
        int strides[4] = {256, 0, 0, 0};
        if (scaler != NULL && gz_ff.sws_scale(scaler, (const uint8_t *const *)ramp->data, ramp->linesize, 0, 4, planes, strides) == 4) {
            memcpy(table, out, 256);
            ok = 1;
        }
    }
    gz_ff.sws_freeContext(scaler);
    gz_ff.av_frame_free(&ramp);
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
    video->scaler = gz_ff.sws_getCachedContext(video->scaler, frame->width, frame->height, frame->format, frame->width,
                                            frame->height, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (video->scaler == NULL) return -1;
    uint8_t *planes[4] = {gray, NULL, NULL, NULL};
    int strides[4] = {frame->width, 0, 0, 0};
    gz_ff.sws_scale(video->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
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

/// The decoded frame's time in seconds from the stream's start; releases the frame.
static void finish_frame(gz_video *video, double *pts_seconds) {
    int64_t pts = video->frame->best_effort_timestamp;
    if (pts != AV_NOPTS_VALUE) {
        if (video->start_pts == AV_NOPTS_VALUE) video->start_pts = pts;
        *pts_seconds = (pts - video->start_pts) * av_q2d(video->time_base);
    } else {
        *pts_seconds = video->fps > 0 ? video->frames_out / video->fps : (double)video->frames_out;
    }
    video->frames_out += 1;
    gz_ff.av_frame_unref(video->frame);
}

/// Converts the decoded frame to packed gray and computes its time.
static int emit(gz_video *video, uint8_t *output, double *pts_seconds, char *error, size_t error_size) {
    AVFrame *frame = video->frame;
    uint8_t *gray = video->unturned != NULL ? video->unturned : output;
    if (frame->width != video->coded_width || frame->height != video->coded_height) {
        gz_ffmpeg_set_error(error, error_size, "the frame size changed in the middle of the video", 0);
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
            gz_ffmpeg_set_error(error, error_size, "cannot convert this pixel format to gray", 0);
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

    if (video->unturned != NULL) {
        turn_gray(video->unturned, video->coded_width, video->coded_height, video->info.rotation_degrees, output);
    }

    finish_frame(video, pts_seconds);
    return 1;
}

/// Decodes the next frame into video->frame: 1, or 0 at the end, or -1 with `error` set.
static int receive_frame(gz_video *video, char *error, size_t error_size) {
    while (!video->finished) {
        int code = gz_ff.avcodec_receive_frame(video->codec, video->frame);
        if (code == 0) return 1;
        if (code == AVERROR_EOF) {
            video->finished = 1;
            break;
        }
        if (code != AVERROR(EAGAIN)) {
            gz_ffmpeg_set_error(error, error_size, "decoding failed", code);
            return -1;
        }
        if (video->draining) {
            video->finished = 1;
            break;
        }
        code = gz_ff.av_read_frame(video->format, video->packet);
        if (code == AVERROR_EOF) {
            video->draining = 1;
            gz_ff.avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (code < 0) {
            gz_ffmpeg_set_error(error, error_size, "reading the file failed", code);
            return -1;
        }
        if (video->packet->stream_index == video->stream_index) {
            code = gz_ff.avcodec_send_packet(video->codec, video->packet);
            if (code < 0 && code != AVERROR_INVALIDDATA) {
                gz_ff.av_packet_unref(video->packet);
                gz_ffmpeg_set_error(error, error_size, "decoding failed", code);
                return -1;
            }
        }
        gz_ff.av_packet_unref(video->packet);
    }
    return 0;
}

int gz_video_read(gz_video *video, uint8_t *gray, double *pts_seconds, char *error, size_t error_size) {
    if (video == NULL || gray == NULL || pts_seconds == NULL) {
        gz_ffmpeg_set_error(error, error_size, "invalid arguments", 0);
        return -1;
    }
    int status = receive_frame(video, error, error_size);
    return status == 1 ? emit(video, gray, pts_seconds, error, error_size) : status;
}

/// Copies `rows` rows of `width` bytes from `source` (rows `stride` apart) into packed `target`.
static void copy_plane(const uint8_t *source, int stride, int width, int rows, uint8_t *target) {
    for (int row = 0; row < rows; ++row) memcpy(target + (size_t)row * width, source + (size_t)row * stride, (size_t)width);
}

/// The decoded frame as packed I420 (coded size) in `target`: copied, or converted by swscale.
static int frame_to_yuv420(gz_video *video, const AVFrame *frame, uint8_t *target) {
    int width = frame->width, height = frame->height, chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    uint8_t *planes[4] = {target, target + (size_t)width * height,
                          target + (size_t)width * height + (size_t)chroma_width * chroma_height, NULL};
    if (is_yuv420(frame->format)) {
        copy_plane(frame->data[0], frame->linesize[0], width, height, planes[0]);
        copy_plane(frame->data[1], frame->linesize[1], chroma_width, chroma_height, planes[1]);
        copy_plane(frame->data[2], frame->linesize[2], chroma_width, chroma_height, planes[2]);
        return 0;
    }
    video->colour_scaler = gz_ff.sws_getCachedContext(video->colour_scaler, width, height, frame->format, width, height,
                                                      AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
    if (video->colour_scaler == NULL) return -1;
    int strides[4] = {width, chroma_width, chroma_width, 0};
    gz_ff.sws_scale(video->colour_scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, height, planes, strides);
    return 0;
}

int gz_video_read_yuv420(gz_video *video, uint8_t *yuv, double *pts_seconds, char *error, size_t error_size) {
    if (video == NULL || yuv == NULL || pts_seconds == NULL) {
        gz_ffmpeg_set_error(error, error_size, "invalid arguments", 0);
        return -1;
    }
    int status = receive_frame(video, error, error_size);
    if (status != 1) return status;
    const AVFrame *frame = video->frame;
    int width = video->coded_width, height = video->coded_height, degrees = video->info.rotation_degrees;
    int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    size_t luma = (size_t)width * height, chroma = (size_t)chroma_width * chroma_height;
    if (frame->width != width || frame->height != height) {
        gz_ff.av_frame_unref(video->frame);
        gz_ffmpeg_set_error(error, error_size, "the frame size changed in the middle of the video", 0);
        return -1;
    }
    if (degrees != 0 && video->unturned_yuv == NULL) video->unturned_yuv = malloc(luma + 2 * chroma);
    uint8_t *target = degrees != 0 ? video->unturned_yuv : yuv;
    if (target == NULL || frame_to_yuv420(video, frame, target) != 0) {
        gz_ff.av_frame_unref(video->frame);
        gz_ffmpeg_set_error(error, error_size, target == NULL ? "out of memory" : "cannot convert this pixel format to colour", 0);
        return -1;
    }
    if (degrees != 0) {
        turn_gray(target, width, height, degrees, yuv);
        turn_gray(target + luma, chroma_width, chroma_height, degrees, yuv + luma);
        turn_gray(target + luma + chroma, chroma_width, chroma_height, degrees, yuv + luma + chroma);
    }
    finish_frame(video, pts_seconds);
    return 1;
}

void gz_video_close(gz_video *video) {
    if (video == NULL) return;
    gz_ff.sws_freeContext(video->scaler);
    gz_ff.sws_freeContext(video->colour_scaler);
    free(video->unturned_yuv);
    gz_ff.av_frame_free(&video->frame);
    gz_ff.av_packet_free(&video->packet);
    gz_ff.avcodec_free_context(&video->codec);
    gz_ff.avformat_close_input(&video->format);
    free(video->unturned);
    free(video);
}

