// zlib (Debian's zlib1g-dev): deflate for the PNG figures' image data and gzip for the BIDS
// datasets' `.tsv.gz` tables.
#include <zlib.h>
