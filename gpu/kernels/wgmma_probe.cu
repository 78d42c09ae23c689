// wgmma probe: one warpgroup (128 threads) issues one wgmma.mma_async and writes its raw
// accumulator registers out. The kernel knows no layout: the host computes both descriptors
// relative to each operand's shared-memory start and says how to fold the real start address
// into them (`desc_start_shift`, `desc_start_lsb`, read from the spec's descriptor table).
//
// The host appends one stanza per instruction variant (ptxconf.gpu.build writes it):
//
//   struct NAME_mma {
//     static __device__ __forceinline__ void run(unsigned* d, const unsigned* a,
//         unsigned long long a_desc, unsigned long long b_desc, unsigned scale_d)
//     { asm volatile("wgmma.mma_async... {%0, ...}, ..." : "+r"(d[0]), ... : ...); }
//   };
//   WGMMA_PROBE_KERNEL(NAME, NREG_D, NREG_A)
//
// Kernel arguments (all sizes in bytes unless named otherwise):
//   smem_image, smem_image_u128  bytes copied into dynamic shared memory, in 16-byte units
//   a_start, b_start             where each operand starts, from the shared-memory base
//   a_desc_rel, b_desc_rel       descriptors whose start-address field is the offset from
//                                the operand start (normally 0); the kernel adds the address
//   desc_start_shift/_lsb        start field += (address >> shift) << lsb
//   a_regs                       [128][NREG_A] A fragment words (RS form), else unused
//   c_init                       [128][NREG_D] accumulator words before the MMA
//   scale_d                      0: D = A*B, otherwise D = A*B + D
//   d_out                        [128][NREG_D] accumulator words after the MMA
//   info                         [3] written by thread 0: the shared-memory base address and
//                                the final A and B descriptors the instruction was given

#define WGMMA_PROBE_PARAMS                                                              \
    const uint4* __restrict__ smem_image, unsigned smem_image_u128, unsigned a_start,  \
        unsigned b_start, unsigned long long a_desc_rel, unsigned long long b_desc_rel, \
        unsigned desc_start_shift, unsigned desc_start_lsb,                             \
        const unsigned* __restrict__ a_regs, const unsigned* __restrict__ c_init,       \
        unsigned scale_d, unsigned* __restrict__ d_out, unsigned long long* __restrict__ info

#define WGMMA_PROBE_ARGS                                                               \
    smem_image, smem_image_u128, a_start, b_start, a_desc_rel, b_desc_rel,            \
        desc_start_shift, desc_start_lsb, a_regs, c_init, scale_d, d_out, info

__device__ __forceinline__ unsigned long long with_start(unsigned long long desc_rel,
                                                         unsigned address, unsigned shift,
                                                         unsigned lsb) {
    return desc_rel + (static_cast<unsigned long long>(address >> shift) << lsb);
}

template <int NREG_D, int NREG_A, class Mma>
__device__ __forceinline__ void wgmma_probe(WGMMA_PROBE_PARAMS) {
    extern __shared__ __align__(1024) uint4 smem[];
    const unsigned tid = threadIdx.x;

    for (unsigned i = tid; i < smem_image_u128; i += blockDim.x) smem[i] = smem_image[i];
    // Ordinary stores become visible to the async proxy (which wgmma reads through).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const unsigned long long a_desc =
        with_start(a_desc_rel, base + a_start, desc_start_shift, desc_start_lsb);
    const unsigned long long b_desc =
        with_start(b_desc_rel, base + b_start, desc_start_shift, desc_start_lsb);

    unsigned a[NREG_A > 0 ? NREG_A : 1];
#pragma unroll
    for (int i = 0; i < NREG_A; ++i) a[i] = a_regs[tid * NREG_A + i];
    unsigned d[NREG_D];
#pragma unroll
    for (int i = 0; i < NREG_D; ++i) d[i] = c_init[tid * NREG_D + i];

    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    Mma::run(d, a, a_desc, b_desc, scale_d);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

#pragma unroll
    for (int i = 0; i < NREG_D; ++i) d_out[tid * NREG_D + i] = d[i];
    if (tid == 0) {
        info[0] = base;
        info[1] = a_desc;
        info[2] = b_desc;
    }
}

#define WGMMA_PROBE_KERNEL(NAME, NREG_D, NREG_A)                                  \
    extern "C" __global__ void __launch_bounds__(128) NAME(WGMMA_PROBE_PARAMS) { \
        wgmma_probe<NREG_D, NREG_A, NAME##_mma>(WGMMA_PROBE_ARGS);              \
    }
