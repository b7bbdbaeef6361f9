// liblsl opened with dlopen. See include/gazerec_lsl.h for the contract.

#include "gazerec_lsl.h"

#include <dlfcn.h>
#include <stdio.h>

int gz_lsl_load(const char *path, gz_lsl_api *api, char *error, size_t error_size) {
    // Kept open for the life of the process: outlets and inlets may outlive any one caller.
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : path);
        return 0;
    }
#define GZ_LSL_LOAD(field)                                                                     \
    api->field = (__typeof__(api->field))dlsym(library, "lsl_" #field);                        \
    if (api->field == NULL) {                                                                  \
        snprintf(error, error_size, "%s lacks lsl_%s (liblsl 1.16 or later is needed)", path, #field); \
        return 0;                                                                              \
    }
    GZ_LSL_LOAD(library_version)
    GZ_LSL_LOAD(local_clock)
    GZ_LSL_LOAD(last_error)
    GZ_LSL_LOAD(create_streaminfo)
    GZ_LSL_LOAD(destroy_streaminfo)
    GZ_LSL_LOAD(get_name)
    GZ_LSL_LOAD(get_source_id)
    GZ_LSL_LOAD(get_channel_format)
    GZ_LSL_LOAD(get_desc)
    GZ_LSL_LOAD(append_child)
    GZ_LSL_LOAD(append_child_value)
    GZ_LSL_LOAD(create_outlet)
    GZ_LSL_LOAD(destroy_outlet)
    GZ_LSL_LOAD(have_consumers)
    GZ_LSL_LOAD(wait_for_consumers)
    GZ_LSL_LOAD(push_sample_ftp)
    GZ_LSL_LOAD(push_sample_strtp)
    GZ_LSL_LOAD(resolve_bypred)
    GZ_LSL_LOAD(create_inlet)
    GZ_LSL_LOAD(destroy_inlet)
    GZ_LSL_LOAD(open_stream)
    GZ_LSL_LOAD(pull_sample_str)
    GZ_LSL_LOAD(time_correction)
    GZ_LSL_LOAD(destroy_string)
#undef GZ_LSL_LOAD
    return 1;
}
