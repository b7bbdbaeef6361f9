// gazerec_lsl.h — the Lab Streaming Layer's C library (liblsl 1.16 or later) opened with dlopen,
// for gazerec's LabStreaming module.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_lsl_api: a table of the liblsl functions gazerec calls, filled in by gz_lsl_load() from a
//   liblsl.so.2 named by path. liblsl is not linked: gazerec builds and runs without it, and only
//   the LSL outlets and inlet need it. The declarations are gazerec's own, written against
//   liblsl's public C API (lsl_c.h); the handles are opaque here as they are there.
//
// THREAD SAFETY
//   gz_lsl_load() may be called from any thread; it fills only the table it is given. liblsl's
//   functions are safe to call from several threads on different objects; one outlet or inlet is
//   used by one thread at a time.
//
// LIFETIMES
//   Strings liblsl returns from pull_sample_str are liblsl's: free each with destroy_string.
//   Strings from last_error, get_name and get_source_id are owned by liblsl (do not free).

#ifndef GAZEREC_LSL_H
#define GAZEREC_LSL_H

#include <stddef.h>
#include <stdint.h>

/// A stream's description (lsl_streaminfo).
typedef struct gz_lsl_streaminfo_handle *gz_lsl_streaminfo;
/// A published stream (lsl_outlet).
typedef struct gz_lsl_outlet_handle *gz_lsl_outlet;
/// A subscription to another program's stream (lsl_inlet).
typedef struct gz_lsl_inlet_handle *gz_lsl_inlet;
/// A node of a stream's XML description (lsl_xml_ptr).
typedef struct gz_lsl_xml_handle *gz_lsl_xml;

/// liblsl's channel formats (lsl_channel_format_t) that gazerec uses.
enum { GZ_LSL_FORMAT_FLOAT32 = 1, GZ_LSL_FORMAT_DOUBLE64 = 2, GZ_LSL_FORMAT_STRING = 3 };

/// liblsl's error codes (lsl_error_code_t).
enum { GZ_LSL_NO_ERROR = 0, GZ_LSL_TIMEOUT_ERROR = -1, GZ_LSL_LOST_ERROR = -2, GZ_LSL_ARGUMENT_ERROR = -3,
       GZ_LSL_INTERNAL_ERROR = -4 };

/// The liblsl functions gazerec calls, each under its C API name without the "lsl_" prefix.
typedef struct gz_lsl_api {
    int32_t (*library_version)(void);
    double (*local_clock)(void);
    const char *(*last_error)(void);
    gz_lsl_streaminfo (*create_streaminfo)(const char *name, const char *type, int32_t channel_count,
                                           double nominal_rate_hertz, int32_t channel_format, const char *source_id);
    void (*destroy_streaminfo)(gz_lsl_streaminfo info);
    const char *(*get_name)(gz_lsl_streaminfo info);
    const char *(*get_source_id)(gz_lsl_streaminfo info);
    int32_t (*get_channel_format)(gz_lsl_streaminfo info);
    gz_lsl_xml (*get_desc)(gz_lsl_streaminfo info);
    gz_lsl_xml (*append_child)(gz_lsl_xml parent, const char *name);
    gz_lsl_xml (*append_child_value)(gz_lsl_xml parent, const char *name, const char *value);
    gz_lsl_outlet (*create_outlet)(gz_lsl_streaminfo info, int32_t chunk_size, int32_t max_buffered);
    void (*destroy_outlet)(gz_lsl_outlet outlet);
    int32_t (*have_consumers)(gz_lsl_outlet outlet);
    int32_t (*wait_for_consumers)(gz_lsl_outlet outlet, double timeout_seconds);
    int32_t (*push_sample_ftp)(gz_lsl_outlet outlet, const float *values, double timestamp, int32_t pushthrough);
    int32_t (*push_sample_strtp)(gz_lsl_outlet outlet, const char **values, double timestamp, int32_t pushthrough);
    int32_t (*resolve_bypred)(gz_lsl_streaminfo *found, uint32_t capacity, const char *predicate, int32_t minimum,
                              double timeout_seconds);
    gz_lsl_inlet (*create_inlet)(gz_lsl_streaminfo info, int32_t max_buffered, int32_t max_chunk_length, int32_t recover);
    void (*destroy_inlet)(gz_lsl_inlet inlet);
    void (*open_stream)(gz_lsl_inlet inlet, double timeout_seconds, int32_t *error_code);
    double (*pull_sample_str)(gz_lsl_inlet inlet, char **values, int32_t capacity, double timeout_seconds,
                              int32_t *error_code);
    double (*time_correction)(gz_lsl_inlet inlet, double timeout_seconds, int32_t *error_code);
    void (*destroy_string)(char *string);
} gz_lsl_api;

/// Opens the liblsl at `path` (a file path, or a bare soname for the loader's search path) and
/// fills `api`. Returns 1 when every function was found; else 0 with one line in `error`
/// (dlerror's reason, or the function the library lacks).
int gz_lsl_load(const char *path, gz_lsl_api *api, char *error, size_t error_size);

#endif
