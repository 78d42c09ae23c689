"""ptxconf: conformance harness for NVIDIA's PTX tensor-core matrix layouts."""

__version__ = "0.1.0"
