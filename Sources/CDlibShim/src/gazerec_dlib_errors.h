// gazerec_dlib_errors.h — internal to the shim: how its C functions report a failure (one line in
// the caller's buffer), and the checks and model reading their entry points share. Read by
// gazerec_dlib.cpp and gazerec_dlib_cnn.cpp.

#ifndef GAZEREC_DLIB_ERRORS_H
#define GAZEREC_DLIB_ERRORS_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace gzshim_errors {

/// Writes `message` as one line (line breaks as spaces) into the caller's buffer, cut to its size.
inline void set_error(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::snprintf(error, size, "%s", line.c_str());
}

/// Whether the caller's gray buffer is one (false, with the error set, when it is not).
inline bool valid_image(const uint8_t *pixels, long width, long height, long stride, char *error, size_t size) {
    if (pixels == nullptr || width <= 0 || height <= 0 || stride < width) {
        set_error(error, size, "invalid image buffer (" + std::to_string(width) + "x" + std::to_string(height) +
                                   ", stride " + std::to_string(stride) + ")");
        return false;
    }
    return true;
}

/// A new `T` with the model at `path` read into it by `read(handle, path)` (which throws to refuse
/// the model); nullptr, with the error set, when there is no path or reading fails.
template <class T, class Read> T *load_model(const char *path, char *error, size_t error_size, Read read) {
    if (path == nullptr) {
        set_error(error, error_size, "no model path");
        return nullptr;
    }
    try {
        auto handle = std::make_unique<T>();
        read(*handle, path);
        return handle.release();
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown error while reading the model");
    }
    return nullptr;
}

/// Runs a face detection (`detect` returns how many faces it found); -1, with the error set, when it throws.
template <class Detect> int detect_faces_or_fail(char *error, size_t error_size, Detect detect) {
    try {
        return detect();
    } catch (const std::exception &e) {
        set_error(error, error_size, std::string("face detection failed: ") + e.what());
    } catch (...) {
        set_error(error, error_size, "face detection failed: unknown error");
    }
    return -1;
}

} // namespace gzshim_errors

#endif
