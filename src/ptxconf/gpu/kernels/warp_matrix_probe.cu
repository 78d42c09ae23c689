// ldmatrix / stmatrix probe: one warp moves matrices between shared memory and its registers
// with one instruction. The kernel knows no layout: the host gives the shared-memory image and
// each lane's row address (a byte offset from the image's start, so a swizzled tile is only
// another table), and reads back the registers and the image.
//
// The host appends one stanza per instruction form (ptxconf.gpu.ldmatrix writes it from the
// spec's rows):
//
//   struct NAME_op {
//     static __device__ __forceinline__ void run(unsigned* r, unsigned address)
//     { asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, ...}, [%4];" : ...); }
//   };
//   WARP_MATRIX_PROBE_KERNEL(NAME, NREG)
//
// Kernel arguments:
//   image         the shared-memory image, in 32-bit words, copied in before the instruction
//   image_words   its length
//   lane_offsets  [32] each lane's row address, in bytes from the image's start
//   regs          [32][NREG] register words: what a store takes; a load writes what it got
//   image_out     [image_words] the shared-memory image after the instruction

extern __shared__ __align__(1024) unsigned warp_matrix_smem[];

template <int NREG, class Op>
__device__ __forceinline__ void warp_matrix_probe(const unsigned* __restrict__ image,
                                                  unsigned image_words,
                                                  const unsigned* __restrict__ lane_offsets,
                                                  unsigned* __restrict__ regs,
                                                  unsigned* __restrict__ image_out) {
    const unsigned lane = threadIdx.x;
    for (unsigned i = lane; i < image_words; i += blockDim.x) warp_matrix_smem[i] = image[i];
    __syncthreads();
    const unsigned address =
        static_cast<unsigned>(__cvta_generic_to_shared(warp_matrix_smem)) + lane_offsets[lane];
    unsigned r[NREG];
    for (int i = 0; i < NREG; ++i) r[i] = regs[lane * NREG + i];
    Op::run(r, address);
    for (int i = 0; i < NREG; ++i) regs[lane * NREG + i] = r[i];
    __syncthreads();
    for (unsigned i = lane; i < image_words; i += blockDim.x) image_out[i] = warp_matrix_smem[i];
}

#define WARP_MATRIX_PROBE_KERNEL(NAME, NREG)                                                \
    extern "C" __global__ void NAME(const unsigned* __restrict__ image, unsigned image_words, \
                                    const unsigned* __restrict__ lane_offsets,             \
                                    unsigned* __restrict__ regs,                           \
                                    unsigned* __restrict__ image_out) {                    \
        warp_matrix_probe<NREG, NAME##_op>(image, image_words, lane_offsets, regs,         \
                                           image_out);                                      \
    }
