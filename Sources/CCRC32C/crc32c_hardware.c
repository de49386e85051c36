// The functions are `static inline` in include/crc32c_hardware.h so that Swift inlines them
// and scripts/fuzz (which compiles Sources with swiftc directly) needs only `-I`; SwiftPM
// wants at least one source file in a C target, and this is it.
#include "crc32c_hardware.h"
