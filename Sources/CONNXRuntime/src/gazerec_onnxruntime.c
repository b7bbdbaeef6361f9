// ONNX Runtime's C API through dlopen. See include/gazerec_onnxruntime.h for the contract.

#include "gazerec_onnxruntime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The runtime's opaque types and the enum values gazerec passes (from the public C API).
typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;
typedef struct OrtRunOptions OrtRunOptions;
enum { ORT_LOGGING_LEVEL_ERROR = 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1, ORT_ENABLE_ALL = 99 };
enum { OrtArenaAllocator = 1, OrtMemTypeDefault = 0 };
#define GZ_ORT_API_VERSION 13

// OrtApi: each member gazerec calls, at its index in the runtime's struct of function pointers;
// `gap_N_M` stands for the members N to M, which gazerec does not call.
typedef struct gz_ort_api {
    void *gap_0_1[2];                                                     // CreateStatus, GetErrorCode
    const char *(*GetErrorMessage)(const OrtStatus *status);             // 2
    OrtStatus *(*CreateEnv)(int level, const char *logid, OrtEnv **out);  // 3
    void *gap_4_6[3];
    OrtStatus *(*CreateSession)(const OrtEnv *env, const char *model_path, const OrtSessionOptions *options,
                                OrtSession **out);  // 7
    void *gap_8_8[1];
    OrtStatus *(*Run)(OrtSession *session, const OrtRunOptions *run_options, const char *const *input_names,
                      const OrtValue *const *inputs, size_t input_len, const char *const *output_names,
                      size_t output_names_len, OrtValue **outputs);  // 9
    OrtStatus *(*CreateSessionOptions)(OrtSessionOptions **options);  // 10
    void *gap_11_22[12];
    OrtStatus *(*SetSessionGraphOptimizationLevel)(OrtSessionOptions *options, int level);  // 23
    OrtStatus *(*SetIntraOpNumThreads)(OrtSessionOptions *options, int threads);          // 24
    OrtStatus *(*SetInterOpNumThreads)(OrtSessionOptions *options, int threads);          // 25
    void *gap_26_48[23];
    OrtStatus *(*CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *info, void *data, size_t data_length,
                                                 const int64_t *shape, size_t shape_length, int type,
                                                 OrtValue **out);  // 49
    void *gap_50_50[1];
    OrtStatus *(*GetTensorMutableData)(OrtValue *value, void **out);  // 51
    void *gap_52_63[12];
    OrtStatus *(*GetTensorShapeElementCount)(const void *info, size_t *out);  // 64
    OrtStatus *(*GetTensorTypeAndShape)(const OrtValue *value, void **out);   // 65
    void *gap_66_68[3];
    OrtStatus *(*CreateCpuMemoryInfo)(int type, int mem_type, OrtMemoryInfo **out);  // 69
    void *gap_70_91[22];
    void (*ReleaseEnv)(OrtEnv *env);                                  // 92
    void (*ReleaseStatus)(OrtStatus *status);                         // 93
    void (*ReleaseMemoryInfo)(OrtMemoryInfo *info);                   // 94
    void (*ReleaseSession)(OrtSession *session);                      // 95
    void (*ReleaseValue)(OrtValue *value);                            // 96
    void *gap_97_98[2];
    void (*ReleaseTensorTypeAndShapeInfo)(void *info);                // 99
    void (*ReleaseSessionOptions)(OrtSessionOptions *options);        // 100
} gz_ort_api;

// OrtApiBase, the struct OrtGetApiBase returns.
typedef struct gz_ort_api_base {
    const gz_ort_api *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} gz_ort_api_base;

struct gz_ort_session {
    const gz_ort_api *api;
    const char *version;
    OrtEnv *env;
    OrtSession *session;
    OrtMemoryInfo *memory;
};

// Writes the status's message into `error` and releases the status. Returns -1 if there was one.
static int failed(const gz_ort_api *api, OrtStatus *status, const char *what, char *error, size_t error_size) {
    if (status == NULL) return 0;
    snprintf(error, error_size, "%s: %s", what, api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return -1;
}

static const gz_ort_api *load_api(const char *library_path, const char **version, char *error, size_t error_size) {
    void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(error, error_size, "cannot open ONNX Runtime at %s: %s", library_path, dlerror());
        return NULL;
    }
    const gz_ort_api_base *(*get_base)(void) = (const gz_ort_api_base *(*)(void))dlsym(library, "OrtGetApiBase");
    if (get_base == NULL) {
        snprintf(error, error_size, "%s is not ONNX Runtime (it has no OrtGetApiBase)", library_path);
        return NULL;
    }
    const gz_ort_api_base *base = get_base();
    const gz_ort_api *api = base->GetApi(GZ_ORT_API_VERSION);
    if (api == NULL) {
        snprintf(error, error_size, "ONNX Runtime %s at %s does not offer C API version %d", base->GetVersionString(),
                 library_path, GZ_ORT_API_VERSION);
        return NULL;
    }
    *version = base->GetVersionString();
    return api;
}

static OrtSession *create_session(const gz_ort_api *api, OrtEnv *env, const char *model_path, int threads,
                                  char *error, size_t error_size) {
    OrtSessionOptions *options = NULL;
    OrtSession *session = NULL;
    if (failed(api, api->CreateSessionOptions(&options), "cannot create session options", error, error_size) == 0 &&
        failed(api, api->SetIntraOpNumThreads(options, threads), "cannot set threads", error, error_size) == 0 &&
        failed(api, api->SetInterOpNumThreads(options, 1), "cannot set threads", error, error_size) == 0 &&
        failed(api, api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), "cannot set optimisation",
               error, error_size) == 0) {
        char what[512];
        snprintf(what, sizeof what, "cannot load the model %s", model_path);
        failed(api, api->CreateSession(env, model_path, options, &session), what, error, error_size);
    }
    if (options != NULL) api->ReleaseSessionOptions(options);
    return session;
}

gz_ort_session *gz_ort_session_open(const char *library_path, const char *model_path, int threads,
                                    char *error, size_t error_size) {
    error[0] = 0;
    const char *version = NULL;
    const gz_ort_api *api = load_api(library_path, &version, error, error_size);
    if (api == NULL) return NULL;
    gz_ort_session *result = calloc(1, sizeof *result);
    if (result == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    result->api = api;
    result->version = version;
    if (failed(api, api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "gazerec", &result->env), "cannot start ONNX Runtime",
               error, error_size) != 0 ||
        failed(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &result->memory),
               "cannot describe CPU memory", error, error_size) != 0 ||
        (result->session = create_session(api, result->env, model_path, threads, error, error_size)) == NULL) {
        gz_ort_session_close(result);
        return NULL;
    }
    return result;
}

const char *gz_ort_session_runtime_version(const gz_ort_session *session) { return session->version; }

int gz_ort_session_run(gz_ort_session *session, const char *input_name, const float *input, size_t input_count,
                       const int64_t *shape, size_t rank, const char *output_name, float *output,
                       size_t output_count, char *error, size_t error_size) {
    error[0] = 0;
    const gz_ort_api *api = session->api;
    OrtValue *tensor = NULL, *result = NULL;
    void *info = NULL, *data = NULL;
    size_t count = 0;
    int status = failed(api, api->CreateTensorWithDataAsOrtValue(session->memory, (void *)input,
                                                                 input_count * sizeof(float), shape, rank,
                                                                 ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &tensor),
                        "cannot wrap the input", error, error_size);
    if (status == 0) {
        const OrtValue *inputs[1] = {tensor};
        status = failed(api, api->Run(session->session, NULL, &input_name, inputs, 1, &output_name, 1, &result),
                        "cannot run the model", error, error_size);
    }
    if (status == 0) status = failed(api, api->GetTensorTypeAndShape(result, &info), "cannot read the output", error, error_size);
    if (status == 0) status = failed(api, api->GetTensorShapeElementCount(info, &count), "cannot read the output", error, error_size);
    if (status == 0 && count != output_count) {
        snprintf(error, error_size, "the model's output %s has %zu values, not %zu", output_name, count, output_count);
        status = -1;
    }
    if (status == 0) status = failed(api, api->GetTensorMutableData(result, &data), "cannot read the output", error, error_size);
    if (status == 0) memcpy(output, data, output_count * sizeof(float));
    if (info != NULL) api->ReleaseTensorTypeAndShapeInfo(info);
    if (result != NULL) api->ReleaseValue(result);
    if (tensor != NULL) api->ReleaseValue(tensor);
    return status;
}

void gz_ort_session_close(gz_ort_session *session) {
    if (session == NULL) return;
    if (session->session != NULL) session->api->ReleaseSession(session->session);
    if (session->memory != NULL) session->api->ReleaseMemoryInfo(session->memory);
    if (session->env != NULL) session->api->ReleaseEnv(session->env);
    free(session);
}
