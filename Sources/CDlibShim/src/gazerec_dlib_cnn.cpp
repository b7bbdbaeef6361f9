// dlib's CNN face detector (max-margin object detection, MMOD) behind the plain C API of
// include/gazerec_dlib.h. A separate file: dlib's neural-network templates are slow to compile.

#include "gazerec_dlib.h"
#include "gazerec_dlib_errors.h"

#include <dlib/dnn.h>
#include <dlib/image_transforms.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

// The network the serialized model was trained as (dlib's published MMOD face detector): a 8x
// downsampling front end of three strided 5x5 convolutions, three 5x5 convolutions of 45
// filters, and a 9x9 detection layer, run over an image pyramid with steps of 5/6.
template <long filters, typename SUBNET> using con5d = dlib::con<filters, 5, 5, 2, 2, SUBNET>;
template <long filters, typename SUBNET> using con5 = dlib::con<filters, 5, 5, 1, 1, SUBNET>;
template <typename SUBNET>
using downsampler = dlib::relu<dlib::affine<con5d<32, dlib::relu<dlib::affine<con5d<32, dlib::relu<dlib::affine<con5d<16, SUBNET>>>>>>>>>;
template <typename SUBNET> using rcon5 = dlib::relu<dlib::affine<con5<45, SUBNET>>>;
using mmod_net = dlib::loss_mmod<dlib::con<1, 9, 9, 1, 1, rcon5<rcon5<rcon5<downsampler<
    dlib::input_rgb_image_pyramid<dlib::pyramid_down<6>>>>>>>>;

using gzshim_errors::set_error;

} // namespace

struct gz_cnn_detector {
    mmod_net net;
    dlib::matrix<dlib::rgb_pixel> image;
};

extern "C" gz_cnn_detector *gz_cnn_detector_load(const char *path, char *error, size_t error_size) {
    return gzshim_errors::load_model<gz_cnn_detector>(path, error, error_size, [](gz_cnn_detector &handle, const char *file) {
        dlib::deserialize(file) >> handle.net;
    });
}

extern "C" void gz_cnn_detector_free(gz_cnn_detector *detector) { delete detector; }

extern "C" int gz_cnn_detector_detect(gz_cnn_detector *detector, const uint8_t *pixels, long width, long height,
                                      long stride, gz_rect *out, int capacity, char *error, size_t error_size) {
    if (detector == nullptr) {
        set_error(error, error_size, "no detector");
        return -1;
    }
    if (!gzshim_errors::valid_image(pixels, width, height, stride, error, error_size)) return -1;
    return gzshim_errors::detect_faces_or_fail(error, error_size, [&] {
        // The network reads colour; a gray frame is given as equal red, green and blue.
        detector->image.set_size(height, width);
        for (long y = 0; y < height; ++y) {
            const uint8_t *row = pixels + y * stride;
            for (long x = 0; x < width; ++x) detector->image(y, x) = dlib::rgb_pixel(row[x], row[x], row[x]);
        }
        std::vector<dlib::mmod_rect> found = detector->net(detector->image);
        std::sort(found.begin(), found.end(), [](const dlib::mmod_rect &a, const dlib::mmod_rect &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        const int count = static_cast<int>(found.size());
        for (int i = 0; i < count && i < capacity; ++i) {
            const dlib::rectangle &r = found[i].rect;
            out[i].left = r.left();
            out[i].top = r.top();
            out[i].right = r.right();
            out[i].bottom = r.bottom();
            out[i].score = found[i].detection_confidence;
            out[i].filter = -1;
        }
        return count;
    });
}
