// gazerec_dlib_hog_wide.h — internal to the shim: dlib's frontal HOG detector compiled a second
// time for AVX2 (gazerec_dlib_hog_wide.cpp), used by gazerec_dlib.cpp when the processor has it.
//
// The rest of the shim targets x86-64-v2 so that it runs everywhere; dlib's HOG features and
// filters have AVX paths (eight floats a step where SSE takes four) that it cannot use. This copy
// is built with them, inside a namespace of its own, and finds the same faces with the same scores:
// every step is element-wise, so the floats are the same (tested on every shared image and clip).

#ifndef GAZEREC_DLIB_HOG_WIDE_H
#define GAZEREC_DLIB_HOG_WIDE_H

#include <string>
#include <vector>

namespace gzshim {

/// A detection: inclusive corners in the searched image's pixels, dlib's confidence and the index
/// of the detector's filter that found it (dlib's `weight_index`).
struct found_face {
    long left, top, right, bottom;
    double confidence;
    int filter;
};

/// The AVX2 build of the detector (opaque).
struct wide_hog;

/// Whether this processor and its operating system run AVX2 code.
bool wide_hog_supported();

/// A detector read from `serialized` (dlib's serialization of a frontal_face_detector).
///   requires: wide_hog_supported().
///   ensures: returns a detector; throws (std::exception) if `serialized` is not one.
wide_hog *wide_hog_create(const std::string &serialized);

void wide_hog_free(wide_hog *detector);

/// dlib's detector on the gray image (`height` rows of `width` bytes, `stride` apart), doubled
/// first when `upsample`; `scale` is set to the searched image's width over `width`.
///   ensures: `found` holds the faces in the searched image's pixels, in dlib's order.
void wide_hog_detect(wide_hog *detector, const unsigned char *pixels, long width, long height, long stride,
                     bool upsample, double threshold, std::vector<found_face> &found, double &scale);

} // namespace gzshim

#endif
