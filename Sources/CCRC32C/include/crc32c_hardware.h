// Hardware CRC-32C (Castagnoli) for StrataStorage's `CRC32C`: the SSE4.2 `crc32`
// instruction on x86_64, the ARMv8 `crc32c` instructions on arm64 when the compiler targets
// them. Swift has no intrinsic for either, so these two header-only functions are all this
// target is. They compute exactly the same values as the portable software path in
// `Sources/StrataStorage/Checksum/CRC32C.swift` (tests compare the two on random inputs at
// every length and alignment); callers must check `strata_crc32c_hardware_available()`
// before calling `strata_crc32c_hardware_update`.
#ifndef STRATA_CRC32C_HARDWARE_H
#define STRATA_CRC32C_HARDWARE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

/// 1 when this CPU has the SSE4.2 `crc32` instruction, else 0.
static inline int strata_crc32c_hardware_available(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

/// Folds `count` bytes at `bytes` into the running (un-finalised) CRC `crc`.
__attribute__((target("sse4.2")))
static inline uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t c = crc;
    while (count >= 32) {
        uint64_t a, b, d, e;
        memcpy(&a, p, 8); memcpy(&b, p + 8, 8); memcpy(&d, p + 16, 8); memcpy(&e, p + 24, 8);
        c = __builtin_ia32_crc32di(c, a);
        c = __builtin_ia32_crc32di(c, b);
        c = __builtin_ia32_crc32di(c, d);
        c = __builtin_ia32_crc32di(c, e);
        p += 32; count -= 32;
    }
    while (count >= 8) {
        uint64_t a;
        memcpy(&a, p, 8);
        c = __builtin_ia32_crc32di(c, a);
        p += 8; count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *p);
        p += 1; count -= 1;
    }
    return c32;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

/// 1: the compiler targets ARMv8 with the CRC32 extension, so every CPU that runs this has it.
static inline int strata_crc32c_hardware_available(void) { return 1; }

/// Folds `count` bytes at `bytes` into the running (un-finalised) CRC `crc`.
static inline uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    while (count >= 8) {
        uint64_t a;
        memcpy(&a, p, 8);
        crc = __crc32cd(crc, a);
        p += 8; count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *p);
        p += 1; count -= 1;
    }
    return crc;
}

#else

/// 0: no hardware CRC-32C on this target; StrataStorage uses its software path.
static inline int strata_crc32c_hardware_available(void) { return 0; }

/// Never called when ``strata_crc32c_hardware_available`` is 0; returns `crc` unchanged.
static inline uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes; (void)count;
    return crc;
}

#endif

#endif
