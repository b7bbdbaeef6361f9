// gazerec_dlib_view.h — internal to the shim: the caller's gray buffer seen as a dlib image, and
// dlib's frontal detector run on it. Read by both files that compile dlib's detector: the baseline
// copy (gazerec_dlib.cpp) and the AVX2 copy (gazerec_dlib_hog_wide.cpp, where `dlib` names that
// copy's own namespace). Each defines GZSHIM_VIEW_NAMESPACE first, so each copy gets its own view.

#ifndef GAZEREC_DLIB_VIEW_H
#define GAZEREC_DLIB_VIEW_H

#ifndef GZSHIM_VIEW_NAMESPACE
#error "define GZSHIM_VIEW_NAMESPACE before including gazerec_dlib_view.h"
#endif

#include "gazerec_dlib_hog_wide.h"

namespace GZSHIM_VIEW_NAMESPACE {

/// A caller-owned gray buffer seen through dlib's generic image interface (no copy).
/// Its accessors live in this namespace so dlib's templates find them by argument-dependent lookup.
struct gray_view {
    const unsigned char *pixels;
    long rows;
    long columns;
    long stride;
};

inline long num_rows(const gray_view &image) { return image.rows; }
inline long num_columns(const gray_view &image) { return image.columns; }
inline void *image_data(gray_view &image) { return const_cast<unsigned char *>(image.pixels); }
inline const void *image_data(const gray_view &image) { return image.pixels; }
inline long width_step(const gray_view &image) { return image.stride; }

} // namespace GZSHIM_VIEW_NAMESPACE

namespace dlib {
template <> struct image_traits<GZSHIM_VIEW_NAMESPACE::gray_view> {
    typedef unsigned char pixel_type;
};
} // namespace dlib

namespace GZSHIM_VIEW_NAMESPACE {

/// `detector` (a frontal_face_detector) on `view`, doubled first when `upsample`: `found` gets the
/// faces in the searched image's pixels, in dlib's order, and `scale` that image's width over the
/// view's.
template <typename Detector>
void detect_faces(Detector &detector, const gray_view &view, bool upsample, double threshold,
                  std::vector<gzshim::found_face> &found, double &scale) {
    std::vector<dlib::rect_detection> detections;
    scale = 1.0;
    if (upsample) {
        dlib::array2d<unsigned char> larger;
        dlib::pyramid_up(view, larger, dlib::pyramid_down<2>());
        detector(larger, detections, threshold);
        scale = static_cast<double>(dlib::num_columns(larger)) / static_cast<double>(view.columns);
    } else {
        detector(view, detections, threshold);
    }
    found.clear();
    for (const dlib::rect_detection &d : detections) {
        found.push_back({d.rect.left(), d.rect.top(), d.rect.right(), d.rect.bottom(), d.detection_confidence,
                         static_cast<int>(d.weight_index)});
    }
}

} // namespace GZSHIM_VIEW_NAMESPACE

#endif
