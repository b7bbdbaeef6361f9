// dlib's frontal HOG detector compiled for AVX2, in a namespace of its own. See
// gazerec_dlib_hog_wide.h for what it is for.
//
// HOW THE SECOND BUILD STAYS APART FROM THE FIRST
//   - `dlib` is defined to `gzshim_dlib_wide` while dlib's headers are read, so every dlib
//     function compiled here has a name of its own: none can be merged by the linker with its
//     x86-64-v2 twin in gazerec_dlib.cpp (which would run AVX2 code on processors without it).
//   - Only what is declared between the pragmas gets the AVX2 target. Every standard and system
//     header dlib needs is included before them, so standard-library code instantiated here (which
//     keeps its usual names) is compiled for the baseline, like everywhere else.
//   - dlib's SIMD headers choose their code by DLIB_HAVE_AVX/AVX2, defined here by hand: the file
//     itself is compiled for the baseline like the rest of the target.
//   - The detector is not built from dlib's embedded (compressed, base64) copy, whose decoders live
//     in libdlib under dlib's own names: it is read back from the baseline detector's serialization.

#include "gazerec_dlib_hog_wide.h"

// Everything dlib's detector headers include, first (see above).
#include <algorithm>
#include <array>
#include <assert.h>
#include <atomic>
#include <cassert>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <forward_list>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <istream>
#include <iterator>
#include <limits.h>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <ostream>
#include <queue>
#include <set>
#include <sstream>
#include <stack>
#include <stdexcept>
#include <string>
#include <sys/time.h>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>
#include <immintrin.h>
#include <dlib/simd/simd_check.h>

#define DLIB_HAVE_AVX
#define DLIB_HAVE_AVX2
#pragma clang attribute push(__attribute__((target("avx,avx2"))), apply_to = function)
#define dlib gzshim_dlib_wide
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/serialize.h>

#define GZSHIM_VIEW_NAMESPACE gzshim_wide
#include "gazerec_dlib_view.h"

struct gzshim::wide_hog {
    dlib::frontal_face_detector detector;
};

gzshim::wide_hog *gzshim::wide_hog_create(const std::string &serialized) {
    auto *handle = new wide_hog;
    try {
        std::istringstream in(serialized);
        dlib::deserialize(handle->detector, in);
    } catch (...) {
        delete handle;
        throw;
    }
    return handle;
}

void gzshim::wide_hog_detect(wide_hog *detector, const unsigned char *pixels, long width, long height, long stride,
                             bool upsample, double threshold, std::vector<found_face> &found, double &scale) {
    gzshim_wide::detect_faces(detector->detector, gzshim_wide::gray_view{pixels, height, width, stride}, upsample,
                              threshold, found, scale);
}

void gzshim::wide_hog_free(wide_hog *detector) { delete detector; }

#undef dlib
#pragma clang attribute pop

bool gzshim::wide_hog_supported() { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2"); }
