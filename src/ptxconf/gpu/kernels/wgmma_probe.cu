// wgmma probe: each block is one warpgroup (128 threads) that issues one wgmma.mma_async and
// writes its raw accumulator registers out. One launch runs many probes, one per block: a
// block reads its row of the `blocks` table to find its shared-memory image, its descriptors
// and its register-A words. The kernel knows no layout: the host computes both descriptors
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
//   images                       every block's shared-memory image, in 16-byte units
//   blocks                       [gridDim.x][BLOCK_FIELDS] per block: the image's first and
//                                count of 16-byte units, a_start and b_start (where each
//                                operand starts, from the shared-memory base), a_desc_rel and
//                                b_desc_rel (descriptors whose start-address field is the
//                                offset from the operand start, normally 0; the kernel adds
//                                the address), the first of its A words, scale_d (0: D = A*B,
//                                otherwise D = A*B + D)
//   desc_start_shift/_lsb        start field += (address >> shift) << lsb
//   a_regs                       per block [128][NREG_A] A fragment words (RS form)
//   c_init                       [gridDim.x][128][NREG_D] accumulator words before the MMA
//   d_out                        [gridDim.x][128][NREG_D] accumulator words after the MMA
//   info                         [gridDim.x][3] written by thread 0: the shared-memory base
//                                address and the final A and B descriptors

#define BLOCK_FIELDS 8

#define WGMMA_PROBE_PARAMS                                                               \
    const uint4* __restrict__ images, const unsigned long long* __restrict__ blocks,    \
        unsigned desc_start_shift, unsigned desc_start_lsb,                              \
        const unsigned* __restrict__ a_regs, const unsigned* __restrict__ c_init,        \
        unsigned* __restrict__ d_out, unsigned long long* __restrict__ info

#define WGMMA_PROBE_ARGS \
    images, blocks, desc_start_shift, desc_start_lsb, a_regs, c_init, d_out, info

__device__ __forceinline__ unsigned long long with_start(unsigned long long desc_rel,
                                                         unsigned address, unsigned shift,
                                                         unsigned lsb) {
    return desc_rel + (static_cast<unsigned long long>(address >> shift) << lsb);
}

template <int NREG_D, int NREG_A, class Mma>
__device__ __forceinline__ void wgmma_probe(WGMMA_PROBE_PARAMS) {
    extern __shared__ __align__(1024) uint4 smem[];
    const unsigned tid = threadIdx.x;
    const unsigned long long* row = blocks + blockIdx.x * BLOCK_FIELDS;
    const uint4* image = images + row[0];
    const unsigned image_u128 = static_cast<unsigned>(row[1]);
    const unsigned a_start = static_cast<unsigned>(row[2]);
    const unsigned b_start = static_cast<unsigned>(row[3]);
    const unsigned scale_d = static_cast<unsigned>(row[7]);

    for (unsigned i = tid; i < image_u128; i += blockDim.x) smem[i] = image[i];
    // Ordinary stores become visible to the async proxy (which wgmma reads through).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const unsigned long long a_desc =
        with_start(row[4], base + a_start, desc_start_shift, desc_start_lsb);
    const unsigned long long b_desc =
        with_start(row[5], base + b_start, desc_start_shift, desc_start_lsb);

    const unsigned* my_a = a_regs + row[6];
    unsigned a[NREG_A > 0 ? NREG_A : 1];
#pragma unroll
    for (int i = 0; i < NREG_A; ++i) a[i] = my_a[tid * NREG_A + i];
    const unsigned long long out = (static_cast<unsigned long long>(blockIdx.x) * blockDim.x
                                    + tid) * NREG_D;
    unsigned d[NREG_D];
#pragma unroll
    for (int i = 0; i < NREG_D; ++i) d[i] = scale_d ? c_init[out + i] : 0u;

    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    Mma::run(d, a, a_desc, b_desc, scale_d);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

#pragma unroll
    for (int i = 0; i < NREG_D; ++i) d_out[out + i] = d[i];
    if (tid == 0) {
        info[blockIdx.x * 3 + 0] = base;
        info[blockIdx.x * 3 + 1] = a_desc;
        info[blockIdx.x * 3 + 2] = b_desc;
    }
}

#define WGMMA_PROBE_KERNEL(NAME, NREG_D, NREG_A)                                  \
    extern "C" __global__ void __launch_bounds__(128) NAME(WGMMA_PROBE_PARAMS) { \
        wgmma_probe<NREG_D, NREG_A, NAME##_mma>(WGMMA_PROBE_ARGS);              \
    }
