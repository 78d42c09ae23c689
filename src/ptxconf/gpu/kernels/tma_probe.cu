// TMA write probe: one block; thread 0 issues one 2-D tensor copy (cp.async.bulk.tensor) of a
// whole box into dynamic shared memory at `dst_offset`, completes it on an mbarrier, and the
// block copies the shared-memory window out raw. The kernel knows no layout: the tensor map
// (built on the host with cuTensorMapEncodeTiled) says the box, the element type and the
// swizzle; the host predicts where each byte lands and compares the window.
//
// Kernel arguments (bytes):
//   tmap          the 128-byte tensor map, by value in parameter space (__grid_constant__),
//                 first so that its 64-byte alignment holds at parameter offset 0
//   dst_offset    where the box goes, from the dynamic shared memory's first byte
//   box_bytes     the bytes the copy completes (the mbarrier's expected transaction count)
//   window_bytes  the dynamic shared memory dumped (and filled with `fill` first)
//   fill          the byte the window holds before the copy
//   out           [window_bytes] the window after the copy
//   info          [1] the shared-memory address of the window's first byte

#define TENSOR_MAP_BYTES 128
#define TENSOR_MAP_ALIGN 64
#define WINDOW_SLACK 1024

struct __align__(TENSOR_MAP_ALIGN) TensorMap {
    unsigned char opaque[TENSOR_MAP_BYTES];
};

extern "C" __global__ void tma_write_probe(const __grid_constant__ TensorMap tmap,
                                           unsigned dst_offset, unsigned box_bytes,
                                           unsigned window_bytes, unsigned fill,
                                           unsigned char* __restrict__ out,
                                           unsigned* __restrict__ info) {
    // Dynamic shared memory starts after the static (the barrier), 16-byte aligned at best: the
    // window is the first 1024-byte boundary in it (the launch asks for WINDOW_SLACK more).
    extern __shared__ __align__(16) unsigned char dynamic[];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned raw = (unsigned)__cvta_generic_to_shared(dynamic);
    unsigned char* window = dynamic + ((WINDOW_SLACK - (raw & (WINDOW_SLACK - 1))) & (WINDOW_SLACK - 1));
    for (unsigned i = threadIdx.x; i < window_bytes; i += blockDim.x) window[i] = (unsigned char)fill;
    __syncthreads();
    const unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    const unsigned base = (unsigned)__cvta_generic_to_shared(window);
    if (threadIdx.x == 0) {
        info[0] = base;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr) : "memory");
        // the fill and the barrier's init, seen by the async proxy the copy writes through
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(bar_addr), "r"(box_bytes) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];"
            :: "r"(base + dst_offset), "l"(&tmap), "r"(0), "r"(0), "r"(bar_addr)
            : "memory");
        asm volatile(
            "{\n"
            ".reg .pred done;\n"
            "WAIT:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
            "@!done bra WAIT;\n"
            "}\n" :: "r"(bar_addr) : "memory");
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < window_bytes; i += blockDim.x) out[i] = window[i];
}
