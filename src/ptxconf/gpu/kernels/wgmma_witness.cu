// The assembler as a witness: a kernel that only spells instruction variants, so that
// NVRTC/ptxas say which ones they accept. Each variant is one self-contained asm block with
// its own registers (names prefixed per variant), on one PTX line, so that an assembler
// error's line number names the variant. Nothing here is meant to run.
//
// The host appends `WGMMA_WITNESS_KERNEL(name) { <asm blocks> }` stanzas.

#define WGMMA_WITNESS_KERNEL(NAME)                                           \
    extern "C" __global__ void __launch_bounds__(128) NAME(                 \
        unsigned long long a_desc, unsigned long long b_desc, unsigned scale_d)
