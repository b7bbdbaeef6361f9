// OpenSSL's libcrypto (Debian's libssl-dev, which libpq-dev already needs): the SHA-256 digest
// through the EVP interface, which uses the CPU's SHA instructions where it has them.
#include <openssl/evp.h>
