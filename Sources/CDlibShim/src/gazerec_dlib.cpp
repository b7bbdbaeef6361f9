// The shim's baseline build: model loading, the frontal HOG detector (choosing the AVX2 copy of
// gazerec_dlib_hog_wide.cpp where the processor has it) and dlib's own shape predictor. The CNN
// detector is in gazerec_dlib_cnn.cpp. The shim's files are the only code of gazerec that includes
// dlib. See include/gazerec_dlib.h for the contract.

#include "gazerec_dlib.h"
#include "gazerec_dlib_errors.h"
#include "gazerec_dlib_hog_wide.h"

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/serialize.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#define GZSHIM_VIEW_NAMESPACE gzshim
#include "gazerec_dlib_view.h"

namespace {

using gzshim::gray_view;
using gzshim_errors::set_error;
using gzshim_errors::valid_image;

} // namespace

struct gz_detector {
    dlib::frontal_face_detector detector;
    /// The same detector built for AVX2 (gazerec_dlib_hog_wide.h), when the processor has it and
    /// it is not switched off; used in place of `detector`.
    gzshim::wide_hog *wide = nullptr;
    /// Detectors holding only some of `detector`'s filters, made on first use (the filter bit
    /// mask, the detector, and the filter numbers its own filters had in `detector`).
    struct subset {
        int filters;
        dlib::frontal_face_detector detector;
        std::vector<int> numbers;
    };
    std::vector<subset> subsets;

    gz_detector() = default;
    gz_detector(const gz_detector &) = delete;
    gz_detector &operator=(const gz_detector &) = delete;
    ~gz_detector() { gzshim::wide_hog_free(wide); }
};

struct gz_predictor {
    dlib::shape_predictor predictor;
};

namespace {

/// Writes `found` (most confident first) to `out` in the caller's pixels, each filter number mapped
/// through `numbers` when given; returns how many faces were found.
int write_faces(std::vector<gzshim::found_face> &found, double scale, const std::vector<int> *numbers, gz_rect *out,
                int capacity) {
    std::sort(found.begin(), found.end(), [](const gzshim::found_face &a, const gzshim::found_face &b) {
        if (a.confidence != b.confidence) return a.confidence > b.confidence;
        return a.left != b.left ? a.left < b.left : a.top < b.top;
    });
    const int count = static_cast<int>(found.size());
    for (int i = 0; i < count && i < capacity; ++i) {
        out[i].left = static_cast<long>(found[i].left / scale);
        out[i].top = static_cast<long>(found[i].top / scale);
        out[i].right = static_cast<long>(found[i].right / scale);
        out[i].bottom = static_cast<long>(found[i].bottom / scale);
        out[i].score = found[i].confidence;
        out[i].filter = numbers != nullptr ? (*numbers)[static_cast<size_t>(found[i].filter)] : found[i].filter;
    }
    return count;
}

} // namespace

extern "C" gz_detector *gz_detector_create(char *error, size_t error_size) {
    try {
        auto handle = std::make_unique<gz_detector>();
        handle->detector = dlib::get_frontal_face_detector();
        if (gzshim::wide_hog_supported()) {
            // The AVX2 copy is only a faster route to the same faces: if it cannot be made, the
            // baseline detector serves alone.
            try {
                std::ostringstream serialized;
                dlib::serialize(handle->detector, serialized);
                handle->wide = gzshim::wide_hog_create(serialized.str());
            } catch (const std::exception &) {
                handle->wide = nullptr;
            }
        }
        return handle.release();
    } catch (const std::exception &e) {
        set_error(error, error_size, std::string("cannot create the face detector: ") + e.what());
    } catch (...) {
        set_error(error, error_size, "cannot create the face detector: unknown error");
    }
    return nullptr;
}

extern "C" void gz_detector_free(gz_detector *detector) { delete detector; }

extern "C" int gz_detector_wide(const gz_detector *detector) { return detector != nullptr && detector->wide != nullptr; }

extern "C" void gz_detector_drop_wide(gz_detector *detector) {
    if (detector == nullptr) return;
    gzshim::wide_hog_free(detector->wide);
    detector->wide = nullptr;
}

extern "C" int gz_detector_detect(gz_detector *detector, const uint8_t *pixels, long width, long height, long stride,
                                  int upsample, double threshold, gz_rect *out, int capacity, char *error,
                                  size_t error_size) {
    if (detector == nullptr) {
        set_error(error, error_size, "no detector");
        return -1;
    }
    if (!valid_image(pixels, width, height, stride, error, error_size)) return -1;
    return gzshim_errors::detect_faces_or_fail(error, error_size, [&] {
        std::vector<gzshim::found_face> found;
        double scale = 1.0;
        if (detector->wide != nullptr) {
            gzshim::wide_hog_detect(detector->wide, pixels, width, height, stride, upsample > 0, threshold, found, scale);
        } else {
            gzshim::detect_faces(detector->detector, gray_view{pixels, height, width, stride}, upsample > 0, threshold, found,
                                 scale);
        }
        return write_faces(found, scale, nullptr, out, capacity);
    });
}

extern "C" int gz_detector_detect_filters(gz_detector *detector, const uint8_t *pixels, long width, long height,
                                          long stride, int upsample, double threshold, int filters, gz_rect *out,
                                          int capacity, char *error, size_t error_size) {
    if (detector == nullptr) {
        set_error(error, error_size, "no detector");
        return -1;
    }
    const int all = (1 << static_cast<int>(detector->detector.num_detectors())) - 1;
    if ((filters & all) == 0) {
        set_error(error, error_size, "no filter chosen");
        return -1;
    }
    if (!valid_image(pixels, width, height, stride, error, error_size)) return -1;
    return gzshim_errors::detect_faces_or_fail(error, error_size, [&] {
        auto chosen = std::find_if(detector->subsets.begin(), detector->subsets.end(),
                                   [&](const gz_detector::subset &s) { return s.filters == (filters & all); });
        if (chosen == detector->subsets.end()) {
            gz_detector::subset made{filters & all, {}, {}};
            std::vector<dlib::frontal_face_detector::feature_vector_type> weights;
            for (unsigned long i = 0; i < detector->detector.num_detectors(); ++i) {
                if ((made.filters >> i) & 1) {
                    weights.push_back(detector->detector.get_w(i));
                    made.numbers.push_back(static_cast<int>(i));
                }
            }
            made.detector = dlib::frontal_face_detector(detector->detector.get_scanner(),
                                                        detector->detector.get_overlap_tester(), weights);
            detector->subsets.push_back(std::move(made));
            chosen = detector->subsets.end() - 1;
        }
        std::vector<gzshim::found_face> found;
        double scale = 1.0;
        gzshim::detect_faces(chosen->detector, gray_view{pixels, height, width, stride}, upsample > 0, threshold, found,
                             scale);
        return write_faces(found, scale, &chosen->numbers, out, capacity);
    });
}

extern "C" gz_predictor *gz_predictor_load(const char *path, char *error, size_t error_size) {
    return gzshim_errors::load_model<gz_predictor>(path, error, error_size, [](gz_predictor &handle, const char *file) {
        dlib::deserialize(file) >> handle.predictor;
        const unsigned long parts = handle.predictor.num_parts();
        if (parts != GZ_LANDMARK_COUNT) {
            throw std::runtime_error("the model has " + std::to_string(parts) + " landmarks, not " +
                                     std::to_string(GZ_LANDMARK_COUNT));
        }
    });
}

extern "C" void gz_predictor_free(gz_predictor *predictor) { delete predictor; }

extern "C" int gz_predictor_fit(const gz_predictor *predictor, const uint8_t *pixels, long width, long height,
                                long stride, gz_rect box, double *xy, char *error, size_t error_size) {
    if (predictor == nullptr || xy == nullptr) {
        set_error(error, error_size, "no predictor or output buffer");
        return -1;
    }
    if (!valid_image(pixels, width, height, stride, error, error_size)) return -1;
    try {
        gray_view view{pixels, height, width, stride};
        const dlib::rectangle rect(box.left, box.top, box.right, box.bottom);
        const dlib::full_object_detection shape = predictor->predictor(view, rect);
        for (unsigned long i = 0; i < shape.num_parts(); ++i) {
            xy[2 * i] = static_cast<double>(shape.part(i).x());
            xy[2 * i + 1] = static_cast<double>(shape.part(i).y());
        }
        return 0;
    } catch (const std::exception &e) {
        set_error(error, error_size, std::string("landmark fit failed: ") + e.what());
    } catch (...) {
        set_error(error, error_size, "landmark fit failed: unknown error");
    }
    return -1;
}
