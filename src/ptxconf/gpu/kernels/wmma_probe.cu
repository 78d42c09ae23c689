// wmma probes: one warp (32 threads) loads a fragment and writes its raw 32-bit words out,
// or fills an accumulator fragment with host-given raw words and stores it to memory. The
// kernel interprets nothing: which element sits in which word is the oracle's question.
//
// The host appends one stanza per probe (ptxconf.gpu.build writes it), e.g.
//   WMMA_LOAD_AB_KERNEL(wmma_load_a_m16n16k16_f16_row, wmma::matrix_a, 16, 16, 16,
//                       __half, wmma::row_major, __half)
//   WMMA_LOAD_C_KERNEL(wmma_load_c_m16n16k16_f32, 16, 16, 16, float, float)
//   WMMA_STORE_C_KERNEL(wmma_store_c_m16n16k16_f32, 16, 16, 16, float, float)
//
// Kernel arguments:
//   buf, buf_u128     the matrix memory image, in 16-byte units; a store writes into it
//   use_smem          nonzero: copy buf into dynamic shared memory, work there, copy back
//   offset_bytes      where the matrix pointer points, from the start of the image
//   ldm               the stride argument, in elements, passed to wmma unchanged
//   mem_col_major     accumulator only: nonzero selects wmma::mem_col_major
//   words             [32][WMMA_MAX_WORDS] fragment words (out for loads, in for stores)
//   info              [4] from lane 0: sizeof(fragment.x) in bytes, fragment.num_elements,
//                     the low 32 bits of the matrix pointer's address in its state space,
//                     and 1 when that space is shared memory

#include <mma.h>

namespace wmma = nvcuda::wmma;

#ifndef WMMA_MAX_WORDS  // words dumped per lane: ptxconf.gpu.build defines it for the host
#error "WMMA_MAX_WORDS must be defined by the host"
#endif

#define WMMA_PARAMS                                                                     \
    uint4* __restrict__ buf, unsigned buf_u128, unsigned use_smem, unsigned offset_bytes, \
        unsigned ldm, unsigned mem_col_major, unsigned* __restrict__ words,              \
        unsigned* __restrict__ info

#define WMMA_ARGS buf, buf_u128, use_smem, offset_bytes, ldm, mem_col_major, words, info

// The bytes the matrix pointer addresses: global `buf` or a shared-memory copy of it.
__device__ __forceinline__ char* wmma_stage(uint4* buf, unsigned buf_u128, unsigned use_smem) {
    extern __shared__ __align__(1024) uint4 wmma_smem[];
    if (!use_smem) return reinterpret_cast<char*>(buf);
    for (unsigned i = threadIdx.x; i < buf_u128; i += blockDim.x) wmma_smem[i] = buf[i];
    __syncthreads();
    return reinterpret_cast<char*>(wmma_smem);
}

__device__ __forceinline__ void wmma_unstage(uint4* buf, unsigned buf_u128, unsigned use_smem) {
    extern __shared__ __align__(1024) uint4 wmma_smem[];
    if (!use_smem) return;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < buf_u128; i += blockDim.x) buf[i] = wmma_smem[i];
}

template <class Frag>
__device__ __forceinline__ void wmma_report(const Frag& frag, const char* p, unsigned use_smem,
                                            unsigned* info) {
    if (threadIdx.x != 0) return;
    info[0] = sizeof(frag.x);
    info[1] = frag.num_elements;
    info[2] = use_smem ? static_cast<unsigned>(__cvta_generic_to_shared(p))
                       : static_cast<unsigned>(reinterpret_cast<unsigned long long>(p));
    info[3] = use_smem ? 1u : 0u;
}

template <class Frag>
__device__ __forceinline__ void wmma_dump(const Frag& frag, unsigned* words) {
    unsigned w[WMMA_MAX_WORDS] = {};
    memcpy(w, &frag.x[0], sizeof(frag.x));
    for (int i = 0; i < WMMA_MAX_WORDS; ++i) words[threadIdx.x * WMMA_MAX_WORDS + i] = w[i];
}

template <class Frag>
__device__ __forceinline__ void wmma_fill(Frag& frag, const unsigned* words) {
    unsigned w[WMMA_MAX_WORDS];
    for (int i = 0; i < WMMA_MAX_WORDS; ++i) w[i] = words[threadIdx.x * WMMA_MAX_WORDS + i];
    memcpy(&frag.x[0], w, sizeof(frag.x));
}

__device__ __forceinline__ wmma::layout_t wmma_mem_layout(unsigned mem_col_major) {
    return mem_col_major ? wmma::mem_col_major : wmma::mem_row_major;
}

template <class Use, int M, int N, int K, class T, class Layout, class Elem>
__device__ __forceinline__ void wmma_load_ab_probe(WMMA_PARAMS) {
    static_assert(sizeof(wmma::fragment<Use, M, N, K, T, Layout>::x) <= 4 * WMMA_MAX_WORDS,
                  "fragment larger than the dump");
    wmma::fragment<Use, M, N, K, T, Layout> frag;
    const char* p = wmma_stage(buf, buf_u128, use_smem) + offset_bytes;
    wmma::load_matrix_sync(frag, reinterpret_cast<const Elem*>(p), ldm);
    wmma_dump(frag, words);
    wmma_report(frag, p, use_smem, info);
}

template <int M, int N, int K, class T, class Elem>
__device__ __forceinline__ void wmma_load_c_probe(WMMA_PARAMS) {
    wmma::fragment<wmma::accumulator, M, N, K, T> frag;
    const char* p = wmma_stage(buf, buf_u128, use_smem) + offset_bytes;
    wmma::load_matrix_sync(frag, reinterpret_cast<const Elem*>(p), ldm,
                           wmma_mem_layout(mem_col_major));
    wmma_dump(frag, words);
    wmma_report(frag, p, use_smem, info);
}

template <int M, int N, int K, class T, class Elem>
__device__ __forceinline__ void wmma_store_c_probe(WMMA_PARAMS) {
    wmma::fragment<wmma::accumulator, M, N, K, T> frag;
    wmma_fill(frag, words);
    char* p = wmma_stage(buf, buf_u128, use_smem) + offset_bytes;
    wmma::store_matrix_sync(reinterpret_cast<Elem*>(p), frag, ldm,
                            wmma_mem_layout(mem_col_major));
    wmma_unstage(buf, buf_u128, use_smem);
    wmma_report(frag, p, use_smem, info);
}

#define WMMA_LOAD_AB_KERNEL(NAME, USE, M, N, K, T, LAYOUT, ELEM)                       \
    extern "C" __global__ void __launch_bounds__(32) NAME(WMMA_PARAMS) {               \
        wmma_load_ab_probe<USE, M, N, K, T, LAYOUT, ELEM>(WMMA_ARGS);                  \
    }
#define WMMA_LOAD_C_KERNEL(NAME, M, N, K, T, ELEM)                                     \
    extern "C" __global__ void __launch_bounds__(32) NAME(WMMA_PARAMS) {               \
        wmma_load_c_probe<M, N, K, T, ELEM>(WMMA_ARGS);                                \
    }
#define WMMA_STORE_C_KERNEL(NAME, M, N, K, T, ELEM)                                    \
    extern "C" __global__ void __launch_bounds__(32) NAME(WMMA_PARAMS) {               \
        wmma_store_c_probe<M, N, K, T, ELEM>(WMMA_ARGS);                               \
    }
