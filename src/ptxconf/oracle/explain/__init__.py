"""Explain: a descriptor or a CuTe layout from a kernel -> what the tensor core reads, what is
wrong with it, and the descriptor meant. Pure (numpy and the oracle); `ptxconf explain` is the
command (src/ptxconf/app/explain.py).

* `operand`    : which operand (dtype, major-ness, mn x k) an instruction and A/B name, or flags
* `readmap`    : a descriptor's fields, the addresses the tensor core reads with it (the oracle,
                 with the readings the H100 showed) and whether they make an operand
* `catalog`    : the classic mistakes: codes, rules, spec rows (file:line), evidence (case ids)
* `diagnose`   : the search for the descriptor meant, and `explain_descriptor`
* `names`      : the diagnoses, in words
* `printed`    : a CuTe layout as CUTLASS / CuTe DSL print it -> the layout in bytes (the
                 print's element width checked, where its swizzle acts read off the print)
* `synthesize` : a CuTe shared-memory layout -> its descriptor(s), or why none reads it
* `assumed`    : what explain assumed where the options say nothing, and the verdict had it
                 assumed otherwise
"""
