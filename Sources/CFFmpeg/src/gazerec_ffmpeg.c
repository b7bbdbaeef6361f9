// FFmpeg opened with dlopen on first use. See include/gazerec_ffmpeg.h for the contract.

#include "gazerec_ffmpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <libavutil/macros.h>

gz_ffmpeg gz_ff;
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
    gz_ff.function = (__typeof__(gz_ff.function))dlsym(handles[library], #function);                  \
    if (gz_ff.function == NULL) {                                                                  \
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
    GZ_LOAD(0, av_dict_free)
    GZ_LOAD(2, avformat_alloc_output_context2)
    GZ_LOAD(1, avcodec_find_encoder)
    GZ_LOAD(1, avcodec_find_encoder_by_name)
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
    GZ_LOAD(0, av_display_rotation_get)
#if GZ_FFMPEG_CODED_SIDE_DATA
    GZ_LOAD(1, av_packet_side_data_get)
#else
    GZ_LOAD(2, av_stream_get_side_data)
#endif
#undef GZ_LOAD
    ff_loaded = 1;
}

int gz_ffmpeg_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_ffmpeg_once);
    return ff_loaded > 0;
}

void gz_ffmpeg_set_error(char *error, size_t size, const char *prefix, int code) {
    if (error == NULL || size == 0) return;
    char reason[256] = "unknown error";
    if (code != 0) gz_ff.av_strerror(code, reason, sizeof reason);
    snprintf(error, size, "%s%s%s", prefix, code != 0 ? ": " : "", code != 0 ? reason : "");
}


const char *gz_ffmpeg_error(void) { return ff_error; }
