// SwiftPM wants at least one source file in a C target, and this is it: the target declares
// BoringSSL functions that swift-crypto's `CCryptoBoringSSL` defines (include/strata_aead.h),
// and defines nothing.
#include "strata_aead.h"
