// gazerec_onnxruntime.h — ONNX Runtime's C API opened with dlopen, for gazerec's expression model.
//
// WHAT THIS OBJECT REPRESENTS
//   gz_ort_session: one ONNX model loaded into ONNX Runtime (libonnxruntime.so, as PyPI's
//   onnxruntime wheel ships it, without a header), ready to run on float tensors. ONNX Runtime is
//   not linked: it is opened with dlopen from the path the caller gives, so every gazerec command
//   works without it and only the one that needs it reports its absence.
//
//   The runtime's C API is a struct of function pointers (OrtApi) reached through the one exported
//   symbol OrtGetApiBase()->GetApi(version). The source file declares the members it calls at
//   their positions in that struct (the struct only ever grows at its end, so the positions hold
//   for every runtime of API version 13 and later) and nothing else.
//
// THREAD SAFETY
//   A session may be run from one thread at a time; distinct sessions from distinct threads.
//
// ERRORS
//   Functions that can fail take `error` (a buffer of `error_size` bytes, always NUL-terminated on
//   return) and write one sentence there: what failed and why.

#ifndef GAZEREC_ONNXRUNTIME_H
#define GAZEREC_ONNXRUNTIME_H

#include <stddef.h>
#include <stdint.h>

/// One loaded model with its runtime environment; opaque.
typedef struct gz_ort_session gz_ort_session;

/// Opens the runtime at `library_path` and loads the model at `model_path` into a session that
/// runs on `threads` threads (0: the runtime's choice). Returns NULL (and a sentence in `error`)
/// when the library cannot be opened, is not ONNX Runtime, or the model does not load.
gz_ort_session *gz_ort_session_open(const char *library_path, const char *model_path, int threads,
                                    char *error, size_t error_size);

/// The runtime's version string ("1.32.0"), valid while the session is open.
const char *gz_ort_session_runtime_version(const gz_ort_session *session);

/// Runs the model on one float tensor: `input` of `input_count` floats with shape `shape` (`rank`
/// dimensions) under the input name `input_name`; copies the output `output_name` (which must hold
/// exactly `output_count` floats) into `output`. Returns 0, or -1 with a sentence in `error`.
int gz_ort_session_run(gz_ort_session *session, const char *input_name, const float *input, size_t input_count,
                       const int64_t *shape, size_t rank, const char *output_name, float *output,
                       size_t output_count, char *error, size_t error_size);

/// Releases the session (NULL is allowed). The library stays loaded for the process.
void gz_ort_session_close(gz_ort_session *session);

#endif
